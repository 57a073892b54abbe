/*
 * What a collapse and THP leave in the kernel's accounts.
 *
 *   rss        an anonymous PMD range with every page written, collapsed by
 *              MADV_COLLAPSE: the process's RssAnon (proc(5) / proc.rst:
 *              "size of resident anonymous memory") is the same before and
 *              after (the same memory stays resident, now one THP), and
 *              back where it was once the range is unmapped.  Kills
 *              mm/khugepaged.c:__collapse_huge_page_copy_succeeded
 *              `clear_ptes(..., nr_ptes)` -> `order` (fbbf16b0b922: nine PTEs
 *              cleared per page, eight of each nine pages then taken for
 *              empty: counted again and never released, 1.8 MB here).
 *   reserve    min_free_kbytes with THP enabled is above its value with every
 *              THP setting at never: the kernel raises it "to help
 *              transparent hugepage allocations" (its own words when it
 *              overrides a user's value; set_recommended_min_free_kbytes()
 *              keeps two pageblocks per zone free for fragmentation
 *              avoidance) and gives the default back when THP is off.
 *              transhuge.rst does not say so: the kernel's message is the
 *              contract.  Kills set_recommended_min_free_kbytes
 *              `if (!hugepage_enabled())` -> `if (1)` (d5a02ba14144: the
 *              default kept with THP on).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define NR_ACCOUNTING_ROWS 2
#define MIN_FREE_KBYTES "/proc/sys/vm/min_free_kbytes"

int accounting_plan(void)
{
	return NR_ACCOUNTING_ROWS;
}

static long rss_anon_kb(void)
{
	return file_key_value("/proc/self/status", "RssAnon");
}

static void rss_row(void)
{
	const char *row = "MADV_COLLAPSE of a written PMD leaves RssAnon as it was, and munmap gives it back";
	size_t pmd = (size_t)pmd_size(), nr = pmd / (size_t)page_size();
	/* RssAnon is exact (summed over CPUs); the slack is for this process's own pages (stack, stdio). */
	long slack_kb = (long)(pmd >> 10) / 8, before, filled, collapsed, unmapped;
	char *map, *huge = pmd_range_map(pmd, &map);
	int ok = 0;

	if (!huge) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	before = rss_anon_kb();
	/* Base pages at the fault, then the VMA eligible again: MADV_COLLAPSE respects VM_NOHUGEPAGE. */
	if (madvise(map, 2 * pmd, MADV_NOHUGEPAGE))
		ktap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
	for (size_t i = 0; i < nr; i++)
		pmd_range_fill_page(huge, i);
	if (madvise(map, 2 * pmd, MADV_HUGEPAGE))
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
	filled = rss_anon_kb();
	if (collapse_range(huge, pmd)) {
		ktap_diag("MADV_COLLAPSE: %s", strerror(errno));
	} else if (smaps_anon_huge(map) != (long long)pmd) {
		ktap_diag("AnonHugePages %lld after MADV_COLLAPSE", smaps_anon_huge(map));
	} else {
		collapsed = rss_anon_kb();
		ok = pmd_range_intact(huge, pmd, nr);
		munmap(map, 2 * pmd);
		map = NULL;
		unmapped = rss_anon_kb();
		ktap_diag("RssAnon kB: %ld before, %ld written, %ld collapsed, %ld unmapped", before, filled,
			  collapsed, unmapped);
		ok = ok && before >= 0 && labs(collapsed - filled) <= slack_kb && unmapped - before <= slack_kb;
	}
	if (map)
		munmap(map, 2 * pmd);
	ktap_ok(ok, "%s", row);
}

static void reserve_row(void)
{
	const char *row = "min_free_kbytes with THP enabled is above its value with THP off";
	struct thp_knob knobs[MAX_THP_KNOBS];
	long on = -1, off = -1, again = -1;
	int nr, stopped;

	sys_read_long(MIN_FREE_KBYTES, &on);
	stopped = thp_all_off(knobs, &nr);
	sys_read_long(MIN_FREE_KBYTES, &off);
	for (int i = nr - 1; i >= 0; i--)
		thp_knob_restore(&knobs[i]);
	sys_read_long(MIN_FREE_KBYTES, &again);
	if (!stopped) {
		ktap_skip(row, "khugepaged still runs with every THP setting at never");
		return;
	}
	ktap_diag("min_free_kbytes %ld with THP as it was, %ld with THP off, %ld with THP back", on, off, again);
	ktap_diag("metric: reserve.min_free_kbytes_thp %ld", on);
	ktap_ok(off > 0 && on > off && again > off, "%s", row);
}

void accounting_run(void)
{
	rss_row();
	reserve_row();
}
