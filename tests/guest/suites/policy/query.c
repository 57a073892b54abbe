/*
 * get_mempolicy(2) for every flag combination (issue 33 (b)): the task
 * policy, MPOL_F_MEMS_ALLOWED, MPOL_F_NODE under the interleave modes (the
 * next node), MPOL_F_NODE|MPOL_F_ADDR (where a page is), the refused
 * combinations, and maxnode against nr_node_ids.  Each row cites its
 * sentence of get_mempolicy(2) and names a mutant of mm/mempolicy.c it kills.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "policy.h"

#define NR_ROWS 14
#define ADDR_PAGES 16

/* MPOL_F_NODE, no address, under mode over mask: the node reported (-1 on error). */
static int next_node(int mode, unsigned long mask)
{
	int node = -1;

	if (set_task(mode, mask) || p_get(&node, NULL, 0, NULL, MPOL_F_NODE)) {
		ktap_diag("mode %d over %s, get_mempolicy(MPOL_F_NODE): %s", mode, mask_str(mask), strerror(errno));
		node = -1;
	}
	reset_task();
	return node;
}

/* Each touched page of an interleaved VMA: MPOL_F_NODE|MPOL_F_ADDR says the node move_pages says. */
static int check_addr_node(const struct nodes *n)
{
	unsigned long mask = all_mem(n);
	int status[ADDR_PAGES], ok = 0;
	size_t ps = (size_t)page_size();
	char *base = map_pages(ADDR_PAGES);

	if (base && p_mbind(base, ADDR_PAGES * ps, MPOL_INTERLEAVE, &mask, MAXNODE_LONG, 0) == 0) {
		touch_pages(base, ADDR_PAGES);
		ok = pages_nodes(base, ADDR_PAGES, status) == 0;
		for (int i = 0; ok && i < ADDR_PAGES; i++) {
			int node = -1;

			if (p_get(&node, NULL, 0, base + (size_t)i * ps, MPOL_F_NODE | MPOL_F_ADDR) ||
			    node != status[i]) {
				ktap_diag("page %d: get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) node %d (%s), move_pages %d",
					  i, node, strerror(errno), status[i]);
				ok = 0;
			}
		}
	}
	unmap_pages(base, ADDR_PAGES);
	return ok;
}

/* The policy field of addr's line in /proc/self/numa_maps, into out; -1 if there is no line. */
static int numa_maps_policy(const void *addr, char *out, size_t cap)
{
	char key[32], line[512];
	FILE *f = fopen("/proc/self/numa_maps", "r");
	int found = -1;

	snprintf(key, sizeof(key), "%lx ", (unsigned long)(uintptr_t)addr);
	while (f && found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			snprintf(out, cap, "%s", line + strlen(key));
			out[strcspn(out, "\n")] = '\0';
			found = 0;
		}
	if (f)
		fclose(f);
	return found;
}

/*
 * A page mbind()ed mode|flags over ranks' memory nodes (mode MPOL_DEFAULT: no mbind): 1 if its
 * numa_maps line's policy is want followed by the nodes (or by nothing, for an empty nodes).
 */
static int shows(const struct nodes *n, int mode, unsigned long mask, const char *want, const char *nodes)
{
	size_t ps = (size_t)page_size();
	char *page = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char got[256], expect[128];
	int ok;

	(void)n;
	if (page == MAP_FAILED)
		return 0;
	snprintf(expect, sizeof(expect), "%s%s%s", want, *nodes ? ":" : "", nodes);
	ok = (mode == MPOL_DEFAULT || p_mbind(page, ps, mode, &mask, MAXNODE_LONG, 0) == 0) &&
	     numa_maps_policy(page, got, sizeof(got)) == 0 && !strncmp(got, expect, strlen(expect)) &&
	     (got[strlen(expect)] == ' ' || got[strlen(expect)] == '\0');
	if (!ok)
		ktap_diag("numa_maps for mode %#x over %s: \"%.60s\", want \"%s ...\" (%s)", (unsigned)mode,
			  mask_str(mask), errno ? strerror(errno) : "", expect, got);
	munmap(page, ps);
	return ok;
}

/*
 * numa(7): numa_maps' second field "shows the memory policy currently in effect for the memory
 * range"; mpol_to_str() writes it as mode[=flags][:nodes] ("the longest flag flags,
 * \"relative|balancing\""), the mode names of numa_memory_policy.rst.  Each mode, each flag
 * and the combined flags; RELATIVE_NODES' mask {0,1} is the first two memory nodes
 * ("the nodemask is ... relative to the set of allowed nodes").
 * Kills mpol_to_str: `p += snprintf(p, ..., "|")` removed ("bind=static|balancing" written
 * "bind=staticbalancing").
 */
static int check_numa_maps(const struct nodes *n)
{
	unsigned long a = 1UL << n->mem[0], b = 1UL << n->mem[1], ab = a | b;
	char one[64], two[64], other[64];
	int ok = 1;

	/* mask_str()'s buffers rotate: the diags would overwrite them. */
	snprintf(one, sizeof(one), "%s", mask_str(a));
	snprintf(two, sizeof(two), "%s", mask_str(ab));
	snprintf(other, sizeof(other), "%s", mask_str(b));

	ok &= shows(n, MPOL_DEFAULT, 0, "default", "");
	ok &= shows(n, MPOL_PREFERRED, b, "prefer", other);
	ok &= shows(n, MPOL_PREFERRED | MPOL_F_STATIC_NODES, a, "prefer=static", one);
	ok &= shows(n, MPOL_BIND, ab, "bind", two);
	ok &= shows(n, MPOL_BIND | MPOL_F_RELATIVE_NODES, 3, "bind=relative", two);
	ok &= shows(n, MPOL_BIND | MPOL_F_NUMA_BALANCING, ab, "bind=balancing", two);
	ok &= shows(n, MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_NUMA_BALANCING, ab, "bind=static|balancing", two);
	ok &= shows(n, MPOL_BIND | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING, 3, "bind=relative|balancing", two);
	ok &= shows(n, MPOL_INTERLEAVE, ab, "interleave", two);
	ok &= shows(n, MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES, ab, "weighted interleave=static", two);
	ok &= shows(n, MPOL_LOCAL, 0, "local", "");
	ok &= shows(n, MPOL_PREFERRED_MANY | MPOL_F_NUMA_BALANCING, ab, "prefer (many)=balancing", two);
	return ok;
}

int query_plan(const struct nodes *n)
{
	(void)n;
	return NR_ROWS;
}

void query_run(const struct nodes *n)
{
	unsigned long one = 1UL << n->mem[0], got = 0, buf[2];
	unsigned long two = n->nr_mem > 1 ? one | 1UL << n->mem[n->nr_mem - 1] : one;
	int mode = -1, ok, node;

	/* "If flags specifies MPOL_F_MEMS_ALLOWED ..., the set of nodes (memories) that the thread
	 * is allowed to specify in subsequent calls to mbind(2) or set_mempolicy(2) ... is returned
	 * in nodemask."  Outside any child cpuset: every memory node.
	 * Kills do_get_mempolicy: `*nmask = cpuset_current_mems_allowed;` removed. */
	ok = p_get(&mode, &got, MAXNODE_LONG, NULL, MPOL_F_MEMS_ALLOWED) == 0 && got == all_mem(n);
	if (!ok)
		ktap_diag("MPOL_F_MEMS_ALLOWED: %s, nodes %s, want %s", strerror(errno), mask_str(got),
			  mask_str(all_mem(n)));
	ktap_ok(ok, "get_mempolicy(MPOL_F_MEMS_ALLOWED): the memory nodes");
	/* "It is not permitted to combine MPOL_F_MEMS_ALLOWED with either MPOL_F_ADDR or MPOL_F_NODE."
	 * Kills do_get_mempolicy: `if (flags & (MPOL_F_NODE|MPOL_F_ADDR))` -> `if (0)`. */
	expect_errno(p_get(&mode, &got, MAXNODE_LONG, NULL, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE), EINVAL,
		     "get_mempolicy(MPOL_F_MEMS_ALLOWED|MPOL_F_NODE)");
	expect_errno(p_get(&mode, &got, MAXNODE_LONG, &got, MPOL_F_MEMS_ALLOWED | MPOL_F_ADDR), EINVAL,
		     "get_mempolicy(MPOL_F_MEMS_ALLOWED|MPOL_F_ADDR)");
	/* ERRORS "Or flags specified values other than MPOL_F_NODE or MPOL_F_ADDR"; "Other flag
	 * values are reserved."  Kills do_get_mempolicy: the unknown-flags test's `return -EINVAL;`
	 * -> `return 0;` (hand-written: the test spans two lines). */
	expect_errno(p_get(&mode, &got, MAXNODE_LONG, NULL, 1 << 3), EINVAL, "get_mempolicy flags 1 << 3");
	/* "When flags is 0, addr must be specified as NULL."; ERRORS "or flags did not specify
	 * MPOL_F_ADDR and addr is not NULL".  Kills do_get_mempolicy: `} else if (addr)` -> `if (0)`. */
	expect_errno(p_get(&mode, &got, MAXNODE_LONG, &got, 0), EINVAL, "get_mempolicy flags 0 with an address");
	/* ERRORS "Or, flags specified MPOL_F_NODE but not MPOL_F_ADDR and the current thread policy is
	 * not MPOL_INTERLEAVE."  Kills do_get_mempolicy: `} else if (pol == current->mempolicy &&`
	 * (the MPOL_INTERLEAVE branch) -> `||`. */
	ok = set_task(MPOL_BIND, one) == 0;
	expect_errno(ok ? p_get(&mode, NULL, 0, NULL, MPOL_F_NODE) : 0, EINVAL,
		     "get_mempolicy(MPOL_F_NODE) under MPOL_BIND");
	/* "If flags specifies MPOL_F_NODE, but not MPOL_F_ADDR, and the thread's current policy is
	 * MPOL_INTERLEAVE, then get_mempolicy() will return ... the node ID of the next node that will
	 * be used for interleaving"; nothing interleaved yet, so the lowest node of the mask (rst:
	 * the counter "wraps around to the lowest specified node").  The task's il_prev, from its
	 * parent, is 0 here: the next node after it would be the mask's second.
	 * Kills do_set_mempolicy: `current->il_prev = MAX_NUMNODES-1;` removed. */
	node = next_node(MPOL_INTERLEAVE, two);
	if (node != n->mem[0])
		ktap_diag("MPOL_INTERLEAVE over %s: next node %d, want %d", mask_str(two), node, n->mem[0]);
	ktap_ok(node == n->mem[0], "get_mempolicy(MPOL_F_NODE) under MPOL_INTERLEAVE: the first node next");
	/* The same for weighted interleave (get_mempolicy(2) names MPOL_INTERLEAVE; the kernel's
	 * MPOL_WEIGHTED_INTERLEAVE answers alike): no weight used up yet, the first node.
	 * Kills do_get_mempolicy: `if (current->il_weight)` -> `if (1)` (il_prev, MAX_NUMNODES-1). */
	node = next_node(MPOL_WEIGHTED_INTERLEAVE, two);
	if (node != n->mem[0])
		ktap_diag("MPOL_WEIGHTED_INTERLEAVE over %s: next node %d, want %d", mask_str(two), node, n->mem[0]);
	ktap_ok(node == n->mem[0], "get_mempolicy(MPOL_F_NODE) under MPOL_WEIGHTED_INTERLEAVE: the first node next");
	/* "If flags specifies both MPOL_F_NODE and MPOL_F_ADDR, get_mempolicy() will return the node
	 * ID of the node on which the address addr is allocated".
	 * Kills do_get_mempolicy: `*policy = err;` (lookup_node's node) removed. */
	ktap_ok(check_addr_node(n), "get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR): each page's node");
	/* ERRORS "EINVAL The value specified by maxnode is less than the number of node IDs supported
	 * by the system."  Kills kernel_get_mempolicy: `maxnode < nr_node_ids` -> `<=` (next row) and
	 * `nmask != NULL &&` -> `||` (the row after). */
	expect_errno(p_get(&mode, &got, (unsigned long)n->nr_possible - 1, NULL, 0), EINVAL,
		     "get_mempolicy maxnode nr_node_ids - 1");
	/* "maxnode specifies the number of node IDs that can be stored into nodemask--that is,
	 * the maximum node ID plus one.": nr_node_ids holds every node, the last memory node too. */
	got = 0;
	ok = set_task(MPOL_BIND, 1UL << n->mem[n->nr_mem - 1]) == 0 &&
	     p_get(&mode, &got, (unsigned long)n->nr_possible, NULL, 0) == 0 && got == 1UL << n->mem[n->nr_mem - 1];
	if (!ok)
		ktap_diag("BIND node %d, get_mempolicy maxnode %d: %s, nodes %s", n->mem[n->nr_mem - 1],
			  n->nr_possible, strerror(errno), mask_str(got));
	reset_task();
	ktap_ok(ok, "get_mempolicy maxnode nr_node_ids holds the last memory node");
	/* "If the mode argument is not NULL, then get_mempolicy() will store the policy mode": no
	 * nodemask, so maxnode is not looked at. */
	ok = set_task(MPOL_BIND, one) == 0 && p_get(&mode, NULL, 0, NULL, 0) == 0 && mode == MPOL_BIND;
	reset_task();
	ktap_ok(ok, "get_mempolicy mode only (NULL nodemask, maxnode 0)");
	/* "If nodemask is not NULL, then the nodemask associated with the policy will be stored":
	 * a mask of two longs (maxnode 129) has no node beyond nr_node_ids, those bits read 0.
	 * Kills copy_nodes_to_user: `if (clear_user(...))` -> `if (0)` (no clear, then copy = nbytes). */
	buf[0] = ~0UL;
	buf[1] = ~0UL;
	ok = set_task(MPOL_BIND, one) == 0 && p_get(&mode, buf, 2 * 64 + 1, NULL, 0) == 0 && buf[0] == one &&
	     buf[1] == 0;
	if (!ok)
		ktap_diag("get_mempolicy maxnode 129: %s, words %#lx %#lx, want %#lx 0", strerror(errno), buf[0],
			  buf[1], one);
	reset_task();
	ktap_ok(ok, "get_mempolicy clears the nodemask beyond nr_node_ids");
	if (n->nr_mem < 2)
		ktap_skip("numa_maps shows each mode and its flags", "needs two memory nodes (%d here)", n->nr_mem);
	else
		ktap_ok(check_numa_maps(n), "numa_maps shows each mode and its flags");
}
