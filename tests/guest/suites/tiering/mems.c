/*
 * Demotion inside a cpuset: Documentation/ABI/testing/sysfs-kernel-mm-numa,
 * demotion_enabled: "This migration is performed before swap if an
 * eligible numa node is present in cpuset.mems for the cgroup".  The test
 * runs in a child cgroup v2 with the cpuset and memory controllers (the
 * memory controller makes the pages the child's: reclaim asks the pages'
 * cgroup for its mems), pinned to a CPU of the first DRAM node D, faults
 * NR_PAGES cold anonymous pages on D, goes back to the root cgroup (the
 * pages stay the child's) and asks the child's memory.reclaim for them.
 * From the root, the reclaiming task's own cpuset does not confine where
 * the demoted pages are allocated: only the rule under test does.
 *
 *   mems = D and a lower-tier node L that is not one of D's preferred
 *   targets: every page demoted to L, none to a preferred target outside
 *   the cpuset (shapes where D has such a node: cxl, cxl-3tier);
 *   mems = D alone: no eligible node, so (no swap in the guest) every page
 *   stays on D.
 *
 * Kills: in mm/memory-tiers.c next_demotion_node(), `if
 * (!nodes_empty(mask))` -> `if (1)` (57a3ad3c994b: with the preferred
 * targets outside the cpuset it returns NUMA_NO_NODE and nothing is
 * demoted), and in mm/vmscan.c demote_folio_list(),
 * `mem_cgroup_node_filter_allowed(memcg, &allowed_mask);` removed
 * (53cc9316e90b: the pages go to D's preferred target, outside cpuset.mems;
 * a reclaim run from inside the cpuset hid it, as the allocation of the
 * demoted page was confined by the reclaiming task's own mems).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "mpol.h"
#include "tiering.h"

#define MEMS_CGROUP "numalab-tiering-mems"
#define NR_PAGES 256

int mems_plan(const struct tiering *t)
{
	(void)t;
	return 2;
}

/* The lower-tier node nearest to node that is not in preferred; -1: none. */
static int other_lower_node(const struct tiering *t, int node, unsigned long preferred)
{
	int best = -1;

	for (int i = 0; i < t->nr_nodes; i++)
		if (t->tier[i] > t->tier[node] && !(preferred >> i & 1) &&
		    (best < 0 || t->distance[node][i] < t->distance[node][best]))
			best = i;
	return best;
}

/*
 * In a child cpuset with mems, NR_PAGES cold pages faulted on node, reclaimed
 * through the child's memory.reclaim: 0 and the pages' nodes in status, or
 * -1 (diag printed).
 */
static int reclaim_in_cpuset(const struct tiering *t, unsigned long mems, int *status)
{
	size_t len = NR_PAGES * (size_t)page_size();
	const char *why = cpuset_enter(MEMS_CGROUP, mems);
	struct memcg_controller controller = { 0 };
	char amount[32], *pages = NULL;
	int stray, rc = -1;

	if (why)
		ktap_diag("%s", why);
	else if (memcg_controller_enable(&controller))
		ktap_diag("cannot enable the memory controller: %s", strerror(errno));
	else if ((pages = anon_pages(len))) {
		if (pages_where(pages, NR_PAGES, status) ||
		    pages_in(status, NR_PAGES, 1UL << t->dram, &stray) != NR_PAGES) {
			ktap_diag("before reclaim a page is not on node%d", t->dram);
		} else {
			make_cold(pages, len);
			if (cpuset_step_out())
				ktap_diag("cannot move back to the root cgroup: %s", strerror(errno));
			/* All the child has: EAGAIN says less was reclaimable, and it has gone. */
			snprintf(amount, sizeof(amount), "%zuM", (len >> 20) * 4 + 4);
			if (cpuset_write("memory.reclaim", amount) && errno != EAGAIN)
				ktap_diag("memory.reclaim %s: %s", amount, strerror(errno));
			rc = pages_where(pages, NR_PAGES, status);
		}
		munmap(pages, len);
	}
	cpuset_leave();
	memcg_controller_restore(&controller);
	return rc;
}

/* 1 if all NR_PAGES status entries are node, else 0 with a diag. */
static int all_on(const int *status, int node)
{
	int stray;
	size_t on = pages_in(status, NR_PAGES, 1UL << node, &stray);

	if (on != NR_PAGES)
		ktap_diag("%zu of %d pages on node%d; one on node%d", on, NR_PAGES, node, stray);
	return on == NR_PAGES;
}

void mems_run(const struct tiering *t)
{
	static int status[NR_PAGES];
	int node = t->dram, other;
	unsigned long preferred = demotion_targets(t, node);
	char old[16] = "", pl[64];

	idlist_format(preferred, pl, sizeof(pl));
	other = other_lower_node(t, node, preferred);
	if (sys_read(DEMOTION_ENABLED, old, sizeof(old)) || sys_write(DEMOTION_ENABLED, "true")) {
		ktap_diag("cannot enable " DEMOTION_ENABLED ": %s", strerror(errno));
		ktap_ok(0, "demotion inside cpuset.mems");
		ktap_ok(0, "no demotion outside cpuset.mems");
		return;
	}
	pin_to_cpu(t->dram_cpu);
	if (other < 0)
		ktap_skip("cold pages demoted to the lower-tier node in cpuset.mems",
			  "every lower-tier node of node%d is a preferred target (%s)", node, pl);
	else
		ktap_ok(!reclaim_in_cpuset(t, 1UL << node | 1UL << other, status) && all_on(status, other),
			"cold pages demoted to node%d, the lower-tier node in cpuset.mems %d,%d "
			"(not node(s) %s, outside it)", other, node, other, pl);
	ktap_ok(!reclaim_in_cpuset(t, 1UL << node, status) && all_on(status, node),
		"cpuset.mems %d: no eligible node, cold pages stay on node%d", node, node);
	sys_write(DEMOTION_ENABLED, old);
}
