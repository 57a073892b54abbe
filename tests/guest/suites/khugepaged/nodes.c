/*
 * MADV_COLLAPSE's node, exactly (collapse_find_target_node()): the huge
 * page is allocated preferring the first node that holds the most of the
 * range's pages, and only from the nodes tied for most (cc->alloc_nmask).
 *
 * The two nodes a < b of a tie are chosen so that the rule is visible: a is
 * not node 0 and node 0 is nearer to b than to a (4node: a 2, b 3; cxl: 1,
 * 2), so a kernel that leaves the preferred node at 0 gets b from node 0's
 * zonelist.  Shapes without such a pair use their first two memory nodes.
 * Pages are placed one by one under a task MPOL_BIND (the VMA has no
 * policy, so it stays one VMA), and the test pins itself to one CPU so that
 * filling a node with hugetlb pages also empties this CPU's lists.
 *
 *   tie1     one page on a, one on b, the rest empty: the THP is on a.
 *            Kills 5dab0c4e3db6 (`max_value = 0` -> 1: no node beats 1, the
 *            preferred node stays 0), 4c914995587c (`target_node = nid`
 *            removed) and 28ceb66cfde5 (`>` -> `>=`: the last tied node).
 *   tie      every page, alternately on a and b: the THP is on a.  Same
 *            mutants, with a tie of PMD/2 pages each.
 *   full     every page on a, node a filled with hugetlb pages (until
 *            another cannot be had): ENOMEM, the
 *            pages still on a.  Kills 5a92fd6e7fc6 (`if (max_value ==
 *            node_load[nid])` -> if (1): every node allowed, so the THP
 *            lands elsewhere).
 *   full-tie a tie between a (full) and b: the THP is on b.  Kills
 *            dc37b6c12720 (node_set(target_node): only a allowed, ENOMEM).
 * The last two skip when a is node 0 (filling node 0 would starve the
 * guest) or the kernel has no hugetlb pages of the PMD size.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define NR_RULES 4

/* Pages 0..nr-1 written, the even ones on a, the odd ones on b; 1 if all landed there. */
static int place(char *huge, size_t nr, int a, int b)
{
	size_t ps = (size_t)page_size();
	int bound = -1;

	for (size_t i = 0; i < nr; i++) {
		int want = i % 2 ? b : a;

		if (want != bound && bind_task((bound = want))) {
			ktap_diag("set_mempolicy MPOL_BIND: %s", strerror(errno));
			bind_task(-1);
			return 0;
		}
		pmd_range_fill_page(huge, i);
	}
	bind_task(-1);
	for (size_t i = 0; i < nr; i++) {
		int node = page_node(huge + i * ps);

		if (node != (i % 2 ? b : a)) {
			ktap_diag("page %zu is on node %d, not %d", i, node, i % 2 ? b : a);
			return 0;
		}
	}
	return 1;
}

/* Collapse a range whose first nr pages are placed a/b alternately; the THP must be on expect. */
static void collapse_onto(const char *what, size_t pmd, size_t nr, int a, int b, int expect)
{
	char *map, *huge = pmd_range_map(pmd, &map);
	int ok = 0, node = -1;

	if (!huge)
		ktap_diag("mmap: %s", strerror(errno));
	else if (place(huge, nr, a, b)) {
		if (collapse_range(huge, pmd))
			ktap_diag("MADV_COLLAPSE: %s", strerror(errno));
		else if (smaps_anon_huge(huge) != (long long)pmd)
			ktap_diag("no THP after MADV_COLLAPSE");
		else if ((node = page_node(huge)) != expect || page_node(huge + pmd - 1) != expect)
			ktap_diag("the THP is on node %d", node);
		else
			ok = pmd_range_intact(huge, pmd, nr);
	}
	ktap_ok(ok, "MADV_COLLAPSE of a range with %s (a %d, b %d): THP on node %d", what, a, b, expect);
	if (huge)
		munmap(map, 2 * pmd);
}

/* The pair of the header; -1 with fewer than two memory nodes. */
static int pick_pair(const struct topology *t, int *a, int *b)
{
	int mem[TOPO_MAX_NODES], nr = 0;

	for (int i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].mem_bytes)
			mem[nr++] = i;
	if (nr < 2)
		return -1;
	for (int i = 0; i < nr; i++)
		for (int j = i + 1; j < nr; j++)
			if (mem[i] != 0 && t->dist[0][mem[j]] < t->dist[0][mem[i]]) {
				*a = mem[i];
				*b = mem[j];
				return 0;
			}
	*a = mem[0];
	*b = mem[1];
	return 0;
}

static void full_node_rules(const struct topology *t, size_t pmd, int a, int b)
{
	struct node_hugepages h = { "", "" };
	char boost[32] = "";
	long wanted, got;
	size_t nr = pmd / (size_t)page_size();
	char *map3 = NULL, *map4 = NULL, *r3, *r4;
	int ok3 = 0, ok4 = 0, node = -1;
	const char *why = NULL;

	if (a == 0)
		why = "the first node of the tie is node 0 (filling it would starve the guest)";
	else if (node_hugepages_set(&h, a, 0) < 0)
		why = "no hugetlb pages of the PMD size on the node";
	if (why) {
		node_hugepages_restore(&h);
		ktap_skip("MADV_COLLAPSE onto a full node", "%s", why);
		ktap_skip("MADV_COLLAPSE of a tie whose first node is full", "%s", why);
		return;
	}
	r3 = pmd_range_map(pmd, &map3);
	r4 = pmd_range_map(pmd, &map4);
	if (!r3 || !r4 || !place(r3, nr, a, a) || !place(r4, nr, a, b)) {
		ktap_diag("cannot set the ranges up: %s", strerror(errno));
		goto report;
	}
	/*
	 * As many hugetlb pages on a as it gives: the node is full when another
	 * one cannot be had (hugetlb's allocation tries harder than a THP's:
	 * __GFP_RETRY_MAYFAIL, the same watermarks).  Blocks the min watermark
	 * holds back (khugepaged raises min_free_kbytes) stay free, for neither.
	 * Watermark boosting (after a fragmenting fallback) raises every
	 * watermark for a while: off, so a THP cannot get a block once kswapd
	 * resets it.
	 */
	watermark_boost_off(boost, sizeof(boost));
	wanted = (long)(t->nodes[a].mem_bytes / pmd) + 8;
	got = node_hugepages_set(&h, a, wanted);
	ktap_diag("node %d: %ld hugetlb pages (of %ld asked)", a, got, wanted);
	if (got <= 0 || got >= wanted) {
		why = "cannot fill the node with hugetlb pages";
		goto report;
	}
	errno = 0;
	if (!collapse_range(r3, pmd))
		ktap_diag("MADV_COLLAPSE onto the full node %d succeeded: THP on node %d", a, page_node(r3));
	else if (errno != ENOMEM)
		ktap_diag("MADV_COLLAPSE onto the full node: %s, not ENOMEM", strerror(errno));
	else if (!(ok3 = smaps_bytes_at(r3, "AnonHugePages") == 0 && page_node(r3) == a && page_node(r3 + pmd - page_size()) == a))
		ktap_diag("after ENOMEM: AnonHugePages %lld, first page on node %d", smaps_bytes_at(r3, "AnonHugePages"), page_node(r3));
	if (collapse_range(r4, pmd))
		ktap_diag("MADV_COLLAPSE of the tie with node %d full: %s", a, strerror(errno));
	else if ((node = page_node(r4)) != b || smaps_bytes_at(r4, "AnonHugePages") < (long long)pmd)
		ktap_diag("the tie's THP is on node %d", node);
	else
		ok4 = 1;
report:
	node_hugepages_restore(&h);
	watermark_boost_restore(boost);
	if (why) {
		ktap_skip("MADV_COLLAPSE onto a full node", "%s", why);
		ktap_skip("MADV_COLLAPSE of a tie whose first node is full", "%s", why);
	} else {
		ktap_ok(ok3 && pmd_range_intact(r3, pmd, nr),
			"MADV_COLLAPSE of a range on node %d, full of hugetlb pages: ENOMEM, the pages stay", a);
		ktap_ok(ok4 && pmd_range_intact(r4, pmd, nr),
			"MADV_COLLAPSE of a tie of nodes %d (full) and %d: THP on node %d", a, b, b);
	}
	if (r3)
		munmap(map3, 2 * pmd);
	if (r4)
		munmap(map4, 2 * pmd);
}

int nodes_plan(const struct topology *t)
{
	(void)t;
	return NR_RULES;
}

void nodes_run(const struct topology *t)
{
	struct thp_knob top;
	size_t pmd = (size_t)pmd_size();
	cpu_set_t was;
	int a, b;

	if (pick_pair(t, &a, &b)) {
		for (int i = 0; i < NR_RULES; i++)
			ktap_skip("MADV_COLLAPSE node rule", "one memory node: a tie needs two");
		return;
	}
	if (!cpu_pin_here(&was))
		ktap_diag("cannot pin to one CPU: %s", strerror(errno));
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	collapse_onto("one page on each of a and b (a tie of 1)", pmd, 2, a, b, a);
	collapse_onto("its pages alternately on a and b (a tie of PMD/2)", pmd, pmd / (size_t)page_size(), a, b, a);
	full_node_rules(t, pmd, a, b);
	thp_knob_restore(&top);
}
