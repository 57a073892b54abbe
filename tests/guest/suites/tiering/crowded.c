/*
 * Promotion into a DRAM node that is nearly full.  sysctl/kernel.rst's
 * memory tiering mode is there "to place the hot pages in the fast memory";
 * a fast node without room takes them once its kswapd has demoted cold
 * pages (demotion_enabled) to make some.
 *
 * D is the last node with CPUs that has a demotion target S.  D's free
 * pages are brought just under its high watermark with cold base pages
 * bound to it: every promotion then finds D "nearly full"
 * (migrate_misplaced_folio_prepare()'s migrate_balanced_pgdat()), while no
 * allocation of the test goes under the low watermark, which would wake
 * kswapd by itself.  HOT_PAGES pages on S are written from a CPU of D for up
 * to CROWDED_S seconds: every one must reach D, and pgdemote_kswapd must
 * have grown (kswapd made the room).  Kills mm/migrate.c:
 * migrate_misplaced_folio_prepare's zone search `z = pgdat->nr_zones - 1` ->
 * `- 2` (841c1f781122: a node whose only zone is its highest gets no
 * kswapd wake-up, so it stays full and nothing is promoted).  D is not node
 * 0 where the shape has another DRAM node: node 0 has lower zones, which
 * that search still finds.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"
#include "numab.h"
#include "tiering.h"

#define HOT_PAGES 64
#define CROWDED_S 40
#define TOUCH_SLICE_S 0.2
#define FILL_STEP_MIN 16           /* pages written between looks at the watermarks */
#define MPOL_BIND 2

int crowded_plan(const struct tiering *t)
{
	(void)t;
	return 1;
}

/* The last node with CPUs that has a demotion target; -1 if none. */
static int crowded_node(const struct tiering *t)
{
	for (int n = t->nr_nodes - 1; n >= 0; n--)
		if (t->has_cpu[n] && demotion_targets(t, n))
			return n;
	return -1;
}

/* node's first CPU, -1 if unreadable. */
static int first_cpu(int node)
{
	char path[128], list[256];
	uint64_t cpus;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", node);
	if (sys_read(path, list, sizeof(list)) || idlist_parse(list, &cpus) < 0 || !cpus)
		return -1;
	return __builtin_ctzll(cpus);
}

/*
 * Write base pages of filler (len bytes, bound to node) until node's free pages are under
 * its high watermark, never under its low one: the pages written, or 0 (diag printed).
 */
static size_t fill_under_high(int node, char *filler, size_t len)
{
	size_t ps = (size_t)page_size(), filled = 0;
	struct zone_marks z;

	while (!zone_marks(node, &z) && z.free >= z.high && filled < len / ps) {
		size_t step = (size_t)(z.free - z.high) / 2;

		if (step < FILL_STEP_MIN)
			step = FILL_STEP_MIN;
		for (size_t k = 0; k < step && filled < len / ps; k++)
			filler[filled++ * ps] = 1;
	}
	if (zone_marks(node, &z) || z.free >= z.high || z.free <= z.low) {
		ktap_diag("node%d: %ld pages free after %zu filler pages, watermarks low %ld high %ld: not "
			  "between them", node, z.free, filled, z.low, z.high);
		return 0;
	}
	ktap_diag("node%d: %ld pages free, watermarks min %ld low %ld high %ld, %zu filler pages", node, z.free,
		  z.min, z.low, z.high, filled);
	return filled;
}

void crowded_run(const struct tiering *t)
{
	const char *row = "hot pages reach a nearly full DRAM node in memory tiering mode: kswapd demotes to make room";
	static int status[HOT_PAGES];
	int node = crowded_node(t), cpu = node >= 0 ? first_cpu(node) : -1, slow, stray = -1, ok = 0;
	unsigned long mask = node >= 0 ? 1UL << node : 0;
	size_t ps = (size_t)page_size(), len = node >= 0 ? (size_t)t->topo->nodes[node].mem_bytes : 0, hot_in = 0;
	long long demoted = vmstat("pgdemote_kswapd");
	char old[16] = "", boost[32] = "", *filler = MAP_FAILED, *hot = NULL;
	double t0;

	if (node < 0 || cpu < 0) {
		ktap_skip(row, "no node with CPUs and a demotion target");
		return;
	}
	slow = __builtin_ctzl(demotion_targets(t, node));
	if (sys_read(DEMOTION_ENABLED, old, sizeof(old)) || sys_write(DEMOTION_ENABLED, "1") || numab_start("2")) {
		ktap_diag("demotion_enabled 1, numa_balancing 2: %s", strerror(errno));
		ktap_ok(0, "%s", row);
		if (old[0])
			sys_write(DEMOTION_ENABLED, old);
		return;
	}
	/* A boost after a fragmenting fallback would raise the watermarks under the test. */
	watermark_boost_off(boost, sizeof(boost));
	pin_to_cpu(cpu);
	filler = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (filler == MAP_FAILED || madvise(filler, len, MADV_NOHUGEPAGE) ||
	    syscall(SYS_mbind, filler, len, MPOL_BIND, &mask, sizeof(mask) * CHAR_BIT + 1, 0)) {
		ktap_diag("a filler bound to node%d: %s", node, strerror(errno));
	} else if ((hot = anon_pages(HOT_PAGES * ps)) && !pages_move_to(hot, HOT_PAGES, slow)) {
		size_t filled = fill_under_high(node, filler, len);

		if (filled) {
			make_cold(filler, filled * ps);
			t0 = numab_now();
			while (hot_in < HOT_PAGES && numab_now() - t0 < CROWDED_S) {
				numab_touch_for(hot, HOT_PAGES * ps, ps, TOUCH_SLICE_S);
				if (pages_where(hot, HOT_PAGES, status))
					break;
				hot_in = pages_in(status, HOT_PAGES, mask, &stray);
			}
			ktap_diag("after %.1f s: %zu of %d hot pages on node%d (from node%d); pgdemote_kswapd %+lld",
				  numab_now() - t0, hot_in, HOT_PAGES, node, slow, vmstat("pgdemote_kswapd") - demoted);
			ok = hot_in == HOT_PAGES && vmstat("pgdemote_kswapd") > demoted;
		}
	}
	ktap_ok(ok, "%s", row);
	if (hot)
		munmap(hot, HOT_PAGES * ps);
	if (filler != MAP_FAILED)
		munmap(filler, len);
	numab_stop();
	sys_write(DEMOTION_ENABLED, old);
	watermark_boost_restore(boost);
}
