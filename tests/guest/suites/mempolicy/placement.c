/*
 * Do faults land where the memory policy says, page by page?
 *
 * Each case sets a policy as a VMA policy (mbind) or as the task policy
 * (set_mempolicy), faults a fresh region page by page and reads each page's
 * node back with move_pages().  For the interleaving modes the expectation
 * is exact: a fault in a VMA is placed by its interleave index
 * ilx = vm_pgoff + page offset (get_vma_policy()), and an anonymous private
 * mapping has vm_pgoff == vm_start >> PAGE_SHIFT, so ilx = address / page
 * size; weighted interleave picks the node whose weight interval holds
 * ilx % total weight (weighted_interleave_nid()).  PREFERRED_MANY must stay
 * in its node set; LOCAL and DEFAULT follow the CPU the task runs on.
 *
 * Two VMA cases for masks the all-node cases cannot tell apart:
 *   - MPOL_INTERLEAVE over every memory node but the first (mbind): a node
 *     walk that starts from a wrong place only shows when the mask does not
 *     begin at node 0 and has gaps before it.  Kills acc644ec9867
 *     (interleave_nid's `nid = next_node(nid, nodemask)` -> `next_node(i,
 *     nodemask)`: i runs 0, 1, ... and names the same nodes as nid only in a
 *     mask 0..n-1).
 *   - MPOL_WEIGHTED_INTERLEAVE over one node, faulted from a CPU of another
 *     node: weighted_interleave_nid() falls back to the local node only for
 *     an empty mask.  Kills 964e646ff1bb (`nr_nodes = ...` -> `... - 1`:
 *     a one-node mask counts as empty, every page on the CPU's node).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ktap.h"
#include "mempolicy.h"
#include "weights.h"

#define NR_PAGES 64

enum via { VIA_MBIND, VIA_TASK };

struct policy {
	int mode;
	const char *mode_name;
	int nodes[MAX_NODES];          /* ascending, as the kernel walks a nodemask */
	int nr_nodes;
	unsigned weights[MAX_NODES];   /* weighted interleave: weight of nodes[k] */
};

static unsigned long policy_mask(const struct policy *p)
{
	unsigned long mask = 0;

	for (int k = 0; k < p->nr_nodes; k++)
		mask |= 1UL << p->nodes[k];
	return mask;
}

static int weighted_node(const struct policy *p, unsigned long ilx)
{
	unsigned long total = 0, target;

	for (int k = 0; k < p->nr_nodes; k++)
		total += p->weights[k];
	target = ilx % total;
	for (int k = 0; k < p->nr_nodes; k++) {
		if (target < p->weights[k])
			return p->nodes[k];
		target -= p->weights[k];
	}
	return -1;
}

/* The one node page ilx must be on; -1: any node of the policy's set. */
static int expected_node(const struct policy *p, unsigned long ilx)
{
	switch (p->mode) {
	case MPOL_INTERLEAVE:
		return p->nodes[ilx % (unsigned long)p->nr_nodes];
	case MPOL_WEIGHTED_INTERLEAVE:
		return weighted_node(p, ilx);
	case MPOL_PREFERRED_MANY:
		return -1;
	default:
		return p->nodes[0];
	}
}

/* Map, apply, fault page by page; status[] receives each page's node. */
static int place_pages(const struct policy *p, enum via via, char **base_out, int *status)
{
	size_t ps = (size_t)page_size();
	char *base;
	int rc = 0;

	if (via == VIA_TASK && sys_set_mempolicy(p->mode, policy_mask(p))) {
		ktap_diag("set_mempolicy: %s", strerror(errno));
		return -1;
	}
	base = map_pages(NR_PAGES);
	if (!base)
		rc = -1;
	else if (via == VIA_MBIND && sys_mbind(base, NR_PAGES * ps, p->mode, policy_mask(p))) {
		ktap_diag("mbind: %s", strerror(errno));
		rc = -1;
	}
	for (size_t i = 0; !rc && i < NR_PAGES; i++)
		base[i * ps] = 1;
	if (via == VIA_TASK)
		sys_set_mempolicy(MPOL_DEFAULT, 0);
	if (!rc)
		rc = pages_nodes(base, NR_PAGES, status);
	*base_out = base;
	return rc;
}

static int check_placement(const struct policy *p, const char *base, const int *status)
{
	unsigned long ps = (unsigned long)page_size(), mask = policy_mask(p);
	int misplaced = 0, first = -1;

	for (int i = 0; i < NR_PAGES; i++) {
		unsigned long ilx = ((uintptr_t)base + (unsigned long)i * ps) / ps;
		int want = expected_node(p, ilx);
		int ok = want >= 0 ? status[i] == want
				   : status[i] >= 0 && status[i] < MAX_NODES && (mask >> status[i] & 1);

		if (!ok && misplaced++ == 0)
			first = i;
	}
	if (misplaced) {
		int want = expected_node(p, ((uintptr_t)base + (unsigned long)first * ps) / ps);

		ktap_diag("%d of %d pages misplaced; first: page %d on node %d, expected %s %s",
			  misplaced, NR_PAGES, first, status[first], want < 0 ? "one of nodes" : "node",
			  want < 0 ? mask_str(mask) : mask_str(1UL << want));
	}
	return !misplaced;
}

static void run_case(const struct policy *p, enum via via)
{
	int status[NR_PAGES];
	char *base = NULL, name[256], nodes[128];
	size_t len;
	int ok;

	idlist_format(policy_mask(p), nodes, sizeof(nodes));
	len = (size_t)snprintf(name, sizeof(name), "%s %s node%s %s",
			       via == VIA_MBIND ? "mbind" : "set_mempolicy", p->mode_name,
			       p->nr_nodes > 1 ? "s" : "", nodes);
	for (int k = 0; p->mode == MPOL_WEIGHTED_INTERLEAVE && k < p->nr_nodes && len < sizeof(name); k++)
		len += (size_t)snprintf(name + len, sizeof(name) - len, "%s%u", k ? "," : " weights ",
					p->weights[k]);
	ok = place_pages(p, via, &base, status) == 0 && check_placement(p, base, status);
	if (base)
		munmap(base, NR_PAGES * (size_t)page_size());
	ktap_ok(ok, "%s", name);
}

static struct policy all_nodes(const struct nodes *n, int mode, const char *name)
{
	struct policy p = { .mode = mode, .mode_name = name, .nr_nodes = n->nr_mem };

	memcpy(p.nodes, n->mem, sizeof(int) * (size_t)n->nr_mem);
	return p;
}

static void run_single_node_cases(const struct nodes *n, enum via via)
{
	struct policy p = { .nr_nodes = 1 };

	for (int k = 0; k < n->nr_mem; k++) {
		p.nodes[0] = n->mem[k];
		p.mode = MPOL_BIND;
		p.mode_name = "MPOL_BIND";
		run_case(&p, via);
		p.mode = MPOL_PREFERRED;
		p.mode_name = "MPOL_PREFERRED";
		run_case(&p, via);
	}
}

/* PREFERRED_MANY over the last two memory nodes (farthest from the CPUs on most shapes). */
static void run_preferred_many(const struct nodes *n, enum via via)
{
	struct policy p = { .mode = MPOL_PREFERRED_MANY, .mode_name = "MPOL_PREFERRED_MANY" };

	if (n->nr_mem < 2) {
		ktap_skip(via == VIA_MBIND ? "mbind MPOL_PREFERRED_MANY" : "set_mempolicy MPOL_PREFERRED_MANY",
			  "one memory node: a node set needs two");
		return;
	}
	p.nr_nodes = 2;
	p.nodes[0] = n->mem[n->nr_mem - 2];
	p.nodes[1] = n->mem[n->nr_mem - 1];
	run_case(&p, via);
}

static void run_interleave_cases(const struct nodes *n, enum via via)
{
	struct policy p = all_nodes(n, MPOL_INTERLEAVE, "MPOL_INTERLEAVE");

	if (p.nr_nodes < 2)
		ktap_skip(via == VIA_MBIND ? "mbind MPOL_INTERLEAVE" : "set_mempolicy MPOL_INTERLEAVE",
			  "one memory node: interleaving needs two");
	else
		run_case(&p, via);
}

/* Interleave over all memory nodes but the first (one node on two-node shapes). */
static void run_interleave_tail(const struct nodes *n)
{
	struct policy p = { .mode = MPOL_INTERLEAVE, .mode_name = "MPOL_INTERLEAVE", .nr_nodes = n->nr_mem - 1 };

	if (n->nr_mem < 2) {
		ktap_skip("mbind MPOL_INTERLEAVE on all nodes but the first", "one memory node");
		return;
	}
	memcpy(p.nodes, n->mem + 1, sizeof(int) * (size_t)p.nr_nodes);
	run_case(&p, VIA_MBIND);
}

/* p (weights set) over its last node only, faulted on a CPU of a node with CPUs that is not that node. */
static void run_weighted_one_node(const struct nodes *n, const struct policy *all)
{
	struct policy p = *all;
	int cpu_node = -1;
	cpu_set_t set, old;

	p.nr_nodes = 1;
	p.nodes[0] = all->nodes[all->nr_nodes - 1];
	p.weights[0] = all->weights[all->nr_nodes - 1];
	for (int k = 0; k < n->nr_cpu && cpu_node < 0; k++)
		if (n->cpu[k] != p.nodes[0])
			cpu_node = n->cpu[k];
	CPU_ZERO(&set);
	if (cpu_node >= 0)
		CPU_SET(n->topo->nodes[cpu_node].cpu_first, &set);
	if (cpu_node < 0 || sched_getaffinity(0, sizeof(old), &old) || sched_setaffinity(0, sizeof(set), &set)) {
		ktap_skip("mbind MPOL_WEIGHTED_INTERLEAVE on one node from another node's CPU", "%s",
			  cpu_node < 0 ? "no CPU outside the node" : "cannot pin the task");
		return;
	}
	run_case(&p, VIA_MBIND);
	sched_setaffinity(0, sizeof(old), &old);
}

static void run_weighted_cases(const struct nodes *n)
{
	struct policy p = all_nodes(n, MPOL_WEIGHTED_INTERLEAVE, "MPOL_WEIGHTED_INTERLEAVE");
	struct wi_saved saved;
	const char *why = p.nr_nodes < 2 ? "one memory node: interleaving needs two" :
			  !sys_exists(WI_DIR) ? "no " WI_DIR " in this kernel" : NULL;

	if (!why && wi_save(p.nodes, p.nr_nodes, &saved))
		why = "cannot read the node weights";
	for (int k = 0; !why && k < p.nr_nodes; k++)
		if (wi_set(p.nodes[k], k % 2 ? 1 : 3, &p.weights[k]))
			why = "cannot set the node weights";
	if (why) {
		ktap_skip("mbind MPOL_WEIGHTED_INTERLEAVE", "%s", why);
		ktap_skip("set_mempolicy MPOL_WEIGHTED_INTERLEAVE", "%s", why);
		ktap_skip("mbind MPOL_WEIGHTED_INTERLEAVE on one node from another node's CPU", "%s", why);
	} else {
		run_case(&p, VIA_MBIND);
		run_case(&p, VIA_TASK);
		run_weighted_one_node(n, &p);
	}
	if (p.nr_nodes >= 2 && sys_exists(WI_DIR))
		wi_restore(&saved);
}

/*
 * LOCAL (as a VMA policy) and DEFAULT (no policy): run on a CPU of each
 * node with CPUs and memory, expect every page on that node.
 */
static void run_local_cases(const struct nodes *n, int mode, const char *mode_name)
{
	for (int k = 0; k < n->nr_cpu; k++) {
		struct policy p = { .mode = MPOL_BIND, .mode_name = mode_name, .nr_nodes = 1 };
		int node = n->cpu[k], status[NR_PAGES], ok = 0, cpu = n->topo->nodes[node].cpu_first;
		cpu_set_t set, old;
		char *base = NULL;
		size_t ps = (size_t)page_size();

		p.nodes[0] = node;
		sched_getaffinity(0, sizeof(old), &old);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (!n->topo->nodes[node].mem_bytes) {
			ktap_skip(mode_name, "node %d has CPUs but no memory", node);
			continue;
		}
		if (sched_setaffinity(0, sizeof(set), &set)) {
			ktap_diag("sched_setaffinity cpu %d: %s", cpu, strerror(errno));
		} else if ((base = map_pages(NR_PAGES))) {
			if (mode == MPOL_LOCAL && sys_mbind(base, NR_PAGES * ps, MPOL_LOCAL, 0))
				ktap_diag("mbind MPOL_LOCAL: %s", strerror(errno));
			else {
				for (size_t i = 0; i < NR_PAGES; i++)
					base[i * ps] = 1;
				ok = pages_nodes(base, NR_PAGES, status) == 0 && check_placement(&p, base, status);
			}
			munmap(base, NR_PAGES * ps);
		}
		sched_setaffinity(0, sizeof(old), &old);
		ktap_ok(ok, "%s on cpu %d: pages on node %d", mode_name, cpu, node);
	}
}

int placement_plan(const struct nodes *n)
{
	/*
	 * per via: BIND + PREFERRED per node, PREFERRED_MANY, INTERLEAVE; INTERLEAVE on all but the
	 * first; WI three times; LOCAL, DEFAULT
	 */
	return 2 * (2 * n->nr_mem + 2) + 1 + 3 + 2 * n->nr_cpu;
}

void placement_run(const struct nodes *n)
{
	for (enum via via = VIA_MBIND; via <= VIA_TASK; via++) {
		run_single_node_cases(n, via);
		run_preferred_many(n, via);
		run_interleave_cases(n, via);
	}
	run_interleave_tail(n);
	run_weighted_cases(n);
	run_local_cases(n, MPOL_LOCAL, "MPOL_LOCAL");
	run_local_cases(n, MPOL_DEFAULT, "MPOL_DEFAULT");
}
