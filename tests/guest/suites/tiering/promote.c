/*
 * Promotion: with kernel.numa_balancing = 2 (NUMA_BALANCING_MEMORY_TIERING)
 * the scanner unmaps slow-tier pages (only those: top-tier pages are
 * skipped), and a hinting fault on a page touched again soon enough (under
 * hot_threshold_ms) migrates it to the faulting CPU's node.
 *
 * Pinned to a CPU of the first DRAM node D, the test moves HOT_PAGES and
 * COLD_PAGES anonymous pages to D's nearest slower node S, then keeps
 * writing the hot ones.  Within PROMOTE_S seconds every hot page must be
 * on D, every cold one still on S, and pgpromote_success must have grown by
 * at least HOT_PAGES.  The scanner's delays are shortened in debugfs
 * (sched/numa_balancing/) where the kernel has them.
 *
 * Fails on: a kernel without CONFIG_NUMA_BALANCING (no sysctl); the mutant
 * `return false;` for `return !numa_promotion_rate_limit(...)` at the end of
 * should_numa_migrate_memory()'s memory-tiering branch in
 * kernel/sched/fair.c (nothing promoted: kernels/patches/mutants/).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ktap.h"
#include "numab.h"
#include "tiering.h"

#define HOT_PAGES 64
#define COLD_PAGES 64
#define PROMOTE_S 20
#define TOUCH_SLICE_S 0.2        /* between looks at where the pages are */

int promote_plan(const struct tiering *t)
{
	(void)t;
	return 3;
}

void promote_run(const struct tiering *t)
{
	static int status[HOT_PAGES + COLD_PAGES];
	size_t ps = (size_t)page_size(), len = (HOT_PAGES + COLD_PAGES) * ps;
	unsigned long targets = demotion_targets(t, t->dram);
	int slow = targets ? __builtin_ctzl(targets) : -1, placed = 0, stray = -1;
	long long before = vmstat("pgpromote_success"), after;
	long long faults = vmstat("numa_hint_faults"), cand = vmstat("pgpromote_candidate");
	size_t hot_in = 0, cold_in = 0;
	double t0 = 0, took = -1;
	char *base;

	if (numab_start("2")) {
		ktap_diag("cannot set " NUMA_BALANCING_SYSCTL " to 2: %s", strerror(errno));
		for (int i = 0; i < promote_plan(t); i++)
			ktap_ok(0, "promotion (no memory tiering mode in " NUMA_BALANCING_SYSCTL ")");
		return;
	}
	pin_to_cpu(t->dram_cpu);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base != MAP_FAILED && slow >= 0) {
		madvise(base, len, MADV_NOHUGEPAGE);
		memset(base, 1, len);
		placed = !pages_move_to(base, HOT_PAGES + COLD_PAGES, slow);
	}
	if (placed) {
		ktap_diag("promotion: %d hot and %d cold pages on node%d, touched from cpu%d (node%d, "
			  "%llu MiB free)", HOT_PAGES, COLD_PAGES, slow, t->dram_cpu, t->dram,
			  node_free(t->dram) >> 20);
		t0 = numab_now();
		while (numab_now() - t0 < PROMOTE_S) {
			numab_touch_for(base, HOT_PAGES * ps, ps, TOUCH_SLICE_S);
			if (pages_where(base, HOT_PAGES + COLD_PAGES, status))
				break;
			hot_in = pages_in(status, HOT_PAGES, 1UL << t->dram, &stray);
			if (hot_in == HOT_PAGES) {
				took = numab_now() - t0;
				break;
			}
		}
		cold_in = pages_in(status + HOT_PAGES, COLD_PAGES, 1UL << slow, &stray);
		ktap_diag("after %.1f s: %zu of %d hot pages on node%d, %zu of %d cold on node%d",
			  numab_now() - t0, hot_in, HOT_PAGES, t->dram, cold_in, COLD_PAGES, slow);
	}
	ktap_ok(placed && took >= 0, "hot pages promoted node%d -> node%d within %d s", slow, t->dram,
		PROMOTE_S);
	ktap_ok(placed && cold_in == COLD_PAGES, "cold pages stay on node%d", slow);
	after = vmstat("pgpromote_success");
	/* Where a slow promotion stopped: no hinting faults, no candidates, or no migration. */
	ktap_diag("pgpromote_success %lld -> %lld, numa_hint_faults %lld -> %lld, "
		  "pgpromote_candidate %lld -> %lld", before, after, faults, vmstat("numa_hint_faults"),
		  cand, vmstat("pgpromote_candidate"));
	ktap_ok(before >= 0 && placed && after - before >= HOT_PAGES,
		"pgpromote_success counts the promoted pages");
	if (base != MAP_FAILED)
		munmap(base, len);
	numab_stop();
}
