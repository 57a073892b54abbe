/*
 * MADV_COLLAPSE under zone_reclaim_mode: a range spread over distant nodes
 * is left alone.
 *
 * vm.rst enables zone_reclaim_mode where "accessing remote memory would cause
 * a measurable performance reduction"; "The page allocator will take
 * additional actions before allocating off node pages".  The collapse scan
 * keeps that locality (khugepaged.c collapse_scan_abort(): "If
 * node_reclaim_mode is disabled, then no extra effort is made to allocate
 * memory locally"): with it on, a range holding pages of two nodes more than
 * node_reclaim_distance apart (RECLAIM_DISTANCE, 30; 32 on AMD family 17h
 * and later, amd.c init_amd_zen_common()) is not collapsed, since one THP
 * would make half of it remote.  MADV_COLLAPSE then fails (SCAN_SCAN_ABORT:
 * EINVAL) and the pages stay where they are.  near and far are the first
 * memory node and, of the others, one nearer than that distance and one
 * farther (4node's ring: 1 at 21, 2 at 31); every page is written, the first
 * half on near, then the second on far.
 *
 *   anon-far   an anonymous range on near and far: not collapsed.  Kills
 *              mm/khugepaged.c:collapse_scan_abort `if
 *              (!node_reclaim_enabled())` -> `if (1)` (280419f69c64: never
 *              aborts, the range collapsed).
 *   anon-near  the same on near and the nearer node: collapsed (the limit is
 *              the distance, not two nodes).
 *   shmem-far  a shmem range (memfd) on near and far: not collapsed.  Kills
 *              collapse_scan_file's `collapse_scan_abort(node, cc)` ->
 *              `(swap, cc)` (106e41ac016c: node 0 asked each time, which
 *              holds pages from the first on: never aborts).
 * SKIP on shapes without a node farther than the distance from the first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define NR_RECLAIM_ROWS 3
#define ZONE_RECLAIM_MODE "/proc/sys/vm/zone_reclaim_mode"

/* node_reclaim_distance as the kernel sets it for this CPU (see the header). */
static int reclaim_distance(void)
{
	char line[256], vendor[64] = "";
	int family = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && fgets(line, sizeof(line), f) && !(vendor[0] && family)) {
		sscanf(line, "vendor_id : %63s", vendor);
		sscanf(line, "cpu family : %d", &family);
	}
	if (f)
		fclose(f);
	return !strcmp(vendor, "AuthenticAMD") && family >= 0x17 ? 32 : 30;
}

/* Every page of huge written, the first half on a, the second on b; 1 if all landed there. */
static int halves(char *huge, size_t nr, int a, int b)
{
	size_t ps = (size_t)page_size();

	for (size_t i = 0; i < nr; i++) {
		if ((i == 0 || i == nr / 2) && bind_task(i ? b : a)) {
			ktap_diag("set_mempolicy MPOL_BIND: %s", strerror(errno));
			bind_task(-1);
			return 0;
		}
		pmd_range_fill_page(huge, i);
	}
	bind_task(-1);
	for (size_t i = 0; i < nr; i++)
		if (page_node(huge + i * ps) != (i < nr / 2 ? a : b)) {
			ktap_diag("page %zu is on node %d, not %d", i, page_node(huge + i * ps), i < nr / 2 ? a : b);
			return 0;
		}
	return 1;
}

/*
 * MADV_COLLAPSE of huge (pages on a, then b) under zone_reclaim_mode: 1 if it did what
 * want_collapse says (collapsed, or EINVAL with no THP and the pages where they were).
 */
static int judge(char *huge, size_t pmd, const char *field, int a, int b, int dist, int want_collapse)
{
	size_t nr = pmd / (size_t)page_size();
	int err = collapse_range(huge, pmd) ? errno : 0;
	long long mapped = smaps_bytes_at(huge, field);

	if (want_collapse) {
		if (err || mapped != (long long)pmd) {
			ktap_diag("nodes %d and %d: MADV_COLLAPSE %s, %s %lld", a, b, err ? strerror(err) : "0",
				  field, mapped);
			return 0;
		}
		return pmd_range_intact(huge, pmd, nr);
	}
	if (err != EINVAL || mapped != 0) {
		ktap_diag("nodes %d and %d, %d apart: MADV_COLLAPSE %s (want EINVAL), %s %lld", a, b,
			  dist, err ? strerror(err) : "0", field, mapped);
		return 0;
	}
	for (size_t i = 0; i < nr; i++)
		if (page_node(huge + i * (size_t)page_size()) != (i < nr / 2 ? a : b)) {
			ktap_diag("page %zu moved to node %d", i, page_node(huge + i * (size_t)page_size()));
			return 0;
		}
	return pmd_range_intact(huge, pmd, nr);
}

/* An anonymous range on a then b, collapsed under zone_reclaim_mode: judge()'s answer. */
static int anon_row(size_t pmd, int a, int b, int dist, int want_collapse)
{
	char *map, *huge = pmd_range_map(pmd, &map);
	int ok = 0;

	if (!huge)
		ktap_diag("mmap: %s", strerror(errno));
	else
		ok = halves(huge, pmd / (size_t)page_size(), a, b) &&
		     judge(huge, pmd, "AnonHugePages", a, b, dist, want_collapse);
	if (huge)
		munmap(map, 2 * pmd);
	return ok;
}

/* The same for a memfd's first PMD, written while shmem_enabled is never (base pages). */
static int shmem_row(size_t pmd, int a, int b, int dist)
{
	int fd = memfd_create("numalab-reclaim", 0), ok = 0, filled = 0;
	char *map = NULL, *huge = NULL;
	struct thp_knob knob;
	int knob_set = !thp_knob_set(&knob, SHMEM_ENABLED, "never");

	if (fd < 0 || ftruncate(fd, (off_t)pmd) || !(huge = shmem_range_map(fd, pmd, &map)))
		ktap_diag("memfd: %s", strerror(errno));
	else
		filled = halves(huge, pmd / (size_t)page_size(), a, b);
	if (knob_set)
		thp_knob_restore(&knob);
	ok = filled && judge(huge, pmd, "ShmemPmdMapped", a, b, dist, 0);
	if (map)
		munmap(map, 2 * pmd);
	if (fd >= 0)
		close(fd);
	return ok;
}

int reclaim_plan(const struct topology *t)
{
	(void)t;
	return NR_RECLAIM_ROWS;
}

void reclaim_run(const struct topology *t)
{
	static const char *const rows[NR_RECLAIM_ROWS] = {
		"zone_reclaim_mode on: MADV_COLLAPSE of an anonymous range on two distant nodes refused, pages kept",
		"zone_reclaim_mode on: MADV_COLLAPSE of an anonymous range on two near nodes done",
		"zone_reclaim_mode on: MADV_COLLAPSE of a shmem range on two distant nodes refused, pages kept",
	};
	int limit = reclaim_distance(), first = -1, nearer = -1, far = -1;
	size_t pmd = (size_t)pmd_size();
	struct thp_knob mode, top;

	for (int i = 0; i < t->nr_nodes; i++) {
		if (!t->nodes[i].mem_bytes)
			continue;
		if (first < 0)
			first = i;
		else if (t->dist[first][i] > limit && far < 0)
			far = i;
		else if (t->dist[first][i] <= limit && nearer < 0)
			nearer = i;
	}
	if (far < 0 || nearer < 0) {
		for (int i = 0; i < NR_RECLAIM_ROWS; i++)
			ktap_skip(rows[i], "no memory nodes both nearer and farther than node_reclaim_distance "
				  "(%d) from node %d", limit, first);
		return;
	}
	if (value_knob_set(&mode, ZONE_RECLAIM_MODE, "1")) {
		for (int i = 0; i < NR_RECLAIM_ROWS; i++)
			ktap_skip(rows[i], "cannot set " ZONE_RECLAIM_MODE ": %s", strerror(errno));
		return;
	}
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	ktap_diag("node_reclaim_distance %d: node %d with %d (%d apart) and %d (%d apart)", limit, first, far,
		  t->dist[first][far], nearer, t->dist[first][nearer]);
	ktap_ok(anon_row(pmd, first, far, t->dist[first][far], 0), "%s", rows[0]);
	ktap_ok(anon_row(pmd, first, nearer, t->dist[first][nearer], 1), "%s", rows[1]);
	ktap_ok(shmem_row(pmd, first, far, t->dist[first][far]), "%s", rows[2]);
	thp_knob_restore(&top);
	thp_knob_restore(&mode);
}
