/*
 * Policies remapped when the cpuset's mems change (issue 33 (c)), in a
 * child cgroup v2 cpuset the task moves into, as numa_memory_policy.rst
 * ("rst") describes the three ways:
 *
 *   no flag          "any time a mempolicy is rebound because of a change in
 *                    the set of allowed nodes, the ... nodemask (Bind,
 *                    Interleave) is remapped to the new set of allowed nodes"
 *   STATIC_NODES     "if the user-specified nodes overlap with the nodes
 *                    allowed by the task's cpuset, then the memory policy is
 *                    applied to their intersection"
 *   RELATIVE_NODES   "the node numbers from the user's passed nodemask are
 *                    relative to the set of allowed nodes"
 *
 * Each scenario sets an MPOL_INTERLEAVE policy (its node set shows exactly
 * in where 16 fresh pages land), then writes cpuset.mems once or twice and
 * checks where pages land after each step, and what get_mempolicy reports:
 * the remapped nodes without a flag, the user's mask with one (rst: "The
 * kernel stores the user-passed nodemask").  Node names below are ranks
 * among the memory nodes (m0 < m1 < ...); the 8-node scenarios are the
 * rst's own examples, node for node.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "policy.h"

#define FAULT_PAGES 16
#define MAX_STEPS 2

struct scenario {
	const char *name;
	int flags;
	const char *user;                 /* ranks; RELATIVE_NODES: relative bits 0-9 as is */
	const char *mems[MAX_STEPS + 1];  /* cpuset.mems at set time, then after each step */
	const char *lands[MAX_STEPS + 1]; /* the interleave's nodes at set time and after each step */
	int min_mem;                      /* memory nodes needed */
	const char *mutant;
};

/*
 * On four memory nodes.  A: m1-3 -> m0,m2,m3.  The default remap maps the
 * n-th allowed node to the n-th new one (m1 -> m0, m2 -> m2); STATIC keeps
 * m1,m2 and intersects.  B: the relative mask 1,2 over m1,m2 wraps (bit 2 is
 * the first node again, rst "the remap wraps around"); over m1-3 it is the
 * second and third, m2,m3, where a plain remap of m1,m2 would stay put.
 */
static const struct scenario scenarios[] = {
	{ "no flag: m1,m2 in mems m1-3, mems -> m0,m2,m3: remapped to m0,m2", 0, "12",
	  { "123", "023" }, { "12", "02" }, 4,
	  "mm/mempolicy.c:mpol_rebind_nodemask `if (pol->flags & MPOL_F_STATIC_NODES)` -> `if (1)`" },
	{ "STATIC_NODES: m1,m2 in mems m1-3, mems -> m0,m2,m3: the intersection m2", MPOL_F_STATIC_NODES, "12",
	  { "123", "023" }, { "12", "2" }, 4,
	  "mm/mempolicy.c:mpol_rebind_nodemask `if (pol->flags & MPOL_F_STATIC_NODES)` -> `if (0)`" },
	{ "RELATIVE_NODES: 1,2 in mems m1,m2, mems -> m1-3: m2,m3", MPOL_F_RELATIVE_NODES, "r12",
	  { "12", "123" }, { "12", "23" }, 4,
	  "mm/mempolicy.c:mpol_rebind_nodemask `else if (pol->flags & MPOL_F_RELATIVE_NODES)` -> `if (0)`" },
	/* rst MPOL_F_STATIC_NODES: "consider a task that is attached to a cpuset with mems 1-3 that sets
	 * an Interleave policy over the same set.  If the cpuset's mems change to 3-5, the Interleave
	 * will now occur over nodes 3, 4, and 5.  With this flag, however, ... only occurs over node 3." */
	{ "rst example: mems 1-3, interleave 1-3, mems -> 3-5: over 3-5", 0, "123",
	  { "123", "345" }, { "123", "345" }, 8,
	  "mm/mempolicy.c:mpol_rebind_task `mpol_rebind_policy(tsk->mempolicy, new);` removed" },
	{ "rst example: STATIC_NODES, mems 1-3 -> 3-5: over node 3", MPOL_F_STATIC_NODES, "123",
	  { "123", "345" }, { "123", "3" }, 8,
	  "mm/mempolicy.c:mpol_rebind_nodemask `nodes_and(tmp, pol->w.user_nodemask, *nodes);` removed" },
	/* rst MPOL_F_RELATIVE_NODES: "a task that is attached to a cpuset with mems 2-5 that sets an
	 * Interleave policy over the same set with MPOL_F_RELATIVE_NODES.  If the cpuset's mems change
	 * to 3-7, the interleave now occurs over nodes 3,5-7.  If the cpuset's mems then change to
	 * 0,2-3,5, then the interleave occurs over nodes 0,2-3,5." */
	{ "rst example: RELATIVE_NODES 2-5, mems 2-5 -> 3-7 -> 0,2,3,5", MPOL_F_RELATIVE_NODES, "r2345",
	  { "2345", "34567", "0235" }, { "2345", "3567", "0235" }, 8,
	  "mm/mempolicy.c:mpol_relative_nodemask `nodes_fold(tmp, *orig, nodes_weight(*rel));` removed" },
};
#define NR_SCENARIOS (int)(sizeof(scenarios) / sizeof(scenarios[0]))
static const char *const other_names[] = {
	"cpuset rebind of a VMA policy: m1,m2 remapped to m0,m2",
	"get_mempolicy(MPOL_F_MEMS_ALLOWED) in a child cpuset: its mems",
	"set_mempolicy MPOL_BIND on a node outside the cpuset: EINVAL",
	"set_mempolicy RELATIVE_NODES 1 in mems m0,m2,m3: node m2",
	"move_pages to a node outside the cpuset: EACCES",
};
#define NR_OTHER (int)(sizeof(other_names) / sizeof(other_names[0]))

static void skip_named(const char *prefix, const char *name, const char *why)
{
	char full[256];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	ktap_skip(full, "%s", why);
}

static unsigned long user_mask(const struct nodes *n, const char *user)
{
	unsigned long m = 0;

	if (*user != 'r')
		return mem_mask(n, user);
	for (user++; *user; user++)
		m |= 1UL << (*user - '0');
	return m;
}

/* Fresh pages under the task policy land on exactly `want` (ranks). */
static int lands(const struct nodes *n, const char *want, const char *when)
{
	unsigned long seen = fault_nodes(FAULT_PAGES), w = mem_mask(n, want);

	if (seen != w)
		ktap_diag("%s: pages on nodes %s, want %s", when, mask_str(seen), mask_str(w));
	return seen == w;
}

static void run_scenario(const struct nodes *n, const struct scenario *s)
{
	unsigned long user = user_mask(n, s->user), got = 0, want_get;
	int ok, mode = -1, step;

	reset_task();
	ok = cpuset_set_mems(mem_mask(n, s->mems[0])) == 0;
	if (ok && set_task(MPOL_INTERLEAVE | s->flags, user)) {
		ktap_diag("MPOL_INTERLEAVE|%#x %s: %s", s->flags, mask_str(user), strerror(errno));
		ok = 0;
	}
	ok = ok && lands(n, s->lands[0], "at set time");
	for (step = 1; ok && step <= MAX_STEPS && s->mems[step]; step++) {
		char when[64];

		snprintf(when, sizeof(when), "after mems -> %s", mask_str(mem_mask(n, s->mems[step])));
		ok = cpuset_set_mems(mem_mask(n, s->mems[step])) == 0 && lands(n, s->lands[step], when);
	}
	/* get_mempolicy: the remapped nodes, or with a flag the user's mask as passed. */
	want_get = s->flags ? user : mem_mask(n, s->lands[step - 1]);
	if (ok && (get_task(&mode, &got) || got != want_get || mode != (MPOL_INTERLEAVE | s->flags))) {
		ktap_diag("get_mempolicy: mode %#x nodes %s, want %#x %s", mode, mask_str(got),
			  MPOL_INTERLEAVE | s->flags, mask_str(want_get));
		ok = 0;
	}
	reset_task();
	if (!ok)
		ktap_diag("kills %s", s->mutant);
	ktap_ok(ok, "cpuset rebind %s", s->name);
}

/* A VMA policy is remapped as the task's is (rst: "the task or VMA's set of allowed nodes"). */
static int check_vma(const struct nodes *n)
{
	size_t ps = (size_t)page_size();
	unsigned long mask = mem_mask(n, "12"), got = 0;
	int mode = -1, ok, status[FAULT_PAGES];
	unsigned long seen = 0;
	char *base = map_pages(2 * FAULT_PAGES);

	ok = base && cpuset_set_mems(mem_mask(n, "123")) == 0 &&
	     p_mbind(base, 2 * FAULT_PAGES * ps, MPOL_INTERLEAVE, &mask, MAXNODE_LONG, 0) == 0 &&
	     cpuset_set_mems(mem_mask(n, "023")) == 0 &&
	     p_get(&mode, &got, MAXNODE_LONG, base, MPOL_F_ADDR) == 0;
	if (ok && got != mem_mask(n, "02")) {
		ktap_diag("VMA policy after mems -> m0,m2,m3: nodes %s, want %s", mask_str(got),
			  mask_str(mem_mask(n, "02")));
		ok = 0;
	}
	if (ok) {
		touch_pages(base + FAULT_PAGES * ps, FAULT_PAGES);
		ok = pages_nodes(base + FAULT_PAGES * ps, FAULT_PAGES, status) == 0;
		for (int i = 0; ok && i < FAULT_PAGES; i++)
			seen |= status[i] >= 0 ? 1UL << status[i] : 0;
		if (ok && seen != mem_mask(n, "02")) {
			ktap_diag("VMA pages faulted after the change on %s, want %s", mask_str(seen),
				  mask_str(mem_mask(n, "02")));
			ok = 0;
		}
	}
	unmap_pages(base, 2 * FAULT_PAGES);
	return ok;
}

int rebind_plan(const struct nodes *n)
{
	(void)n;
	return NR_SCENARIOS + NR_OTHER;
}

void rebind_run(const struct nodes *n)
{
	const char *why = n->nr_mem < 4 ? "fewer than 4 memory nodes" : NULL;
	unsigned long got = 0, outside;
	int mode, ok;

	if (!why)
		why = cpuset_enter("numalab-policy", mem_mask(n, "123"));
	for (int i = 0; i < NR_SCENARIOS; i++) {
		if (why || n->nr_mem < scenarios[i].min_mem)
			skip_named("cpuset rebind ", scenarios[i].name, why ? why : "fewer than 8 memory nodes");
		else
			run_scenario(n, &scenarios[i]);
	}
	if (why) {
		for (int i = 0; i < NR_OTHER; i++)
			ktap_skip(other_names[i], "%s", why);
		if (n->nr_mem >= 4)
			cpuset_leave();
		return;
	}
	/* rst "the task or VMA's set of allowed nodes": an mbind policy without flags is remapped too.
	 * Kills mm/mempolicy.c:mpol_rebind_mm `mpol_rebind_policy(vma->vm_policy, new);` removed. */
	ktap_ok(check_vma(n), "%s", other_names[0]);
	/* get_mempolicy(2) MPOL_F_MEMS_ALLOWED: "the set of nodes (memories) that the thread is
	 * allowed to specify": the cpuset's mems (m0,m2,m3 now).
	 * Kills mm/mempolicy.c:do_get_mempolicy `*nmask = cpuset_current_mems_allowed;` removed. */
	ok = cpuset_set_mems(mem_mask(n, "023")) == 0 &&
	     p_get(&mode, &got, MAXNODE_LONG, NULL, MPOL_F_MEMS_ALLOWED) == 0 && got == mem_mask(n, "023");
	if (!ok)
		ktap_diag("MPOL_F_MEMS_ALLOWED in mems %s: %s", mask_str(mem_mask(n, "023")), mask_str(got));
	ktap_ok(ok, "%s", other_names[1]);
	/* set_mempolicy(2) "EINVAL ... none of the node IDs specified by nodemask are on-line and allowed
	 * by the process's current cpuset context".
	 * Kills mm/mempolicy.c:mpol_set_nodemask `cpuset_current_mems_allowed, node_states[N_MEMORY]);`
	 * -> `node_possible_map, node_states[N_MEMORY]);` (hand-written: the cpuset not consulted). */
	outside = mem_mask(n, "1");
	expect_errno(set_task(MPOL_BIND, outside), EINVAL, "set_mempolicy MPOL_BIND on a node outside the cpuset");
	/* rst "MPOL_F_RELATIVE_NODES ... the policy will be effected over the first ... nodes in the
	 * set of allowed nodes": relative 0 in mems m0,m2,m3 is m0, relative 1 is m2.
	 * Kills mm/mempolicy.c:mpol_set_nodemask `if (pol->flags & MPOL_F_RELATIVE_NODES)` -> `if (0)`
	 * (the relative mask taken as physical: node m1 is outside the cpuset, EINVAL). */
	ok = set_task(MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, 1UL << 1) == 0 && lands(n, "2", "relative 1");
	reset_task();
	ktap_ok(ok, "%s", other_names[3]);
	/* move_pages(2) "EACCES One of the target nodes is not allowed by the current cpuset."
	 * Kills mm/migrate.c:do_pages_move `if (!node_isset(node, task_nodes))` -> `if (0)`. */
	expect_move_errno(n->mem[1], EACCES, "move_pages to a node outside the cpuset");
	cpuset_leave();
}
