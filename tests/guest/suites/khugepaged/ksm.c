/*
 * MADV_COLLAPSE of zero pages KSM mapped.
 *
 * ksm.rst: with use_zero_pages "empty pages [...] are merged with the kernel
 * zero page(s)", and ksm_zero_pages counts "how many zero pages that are
 * still mapped into processes were mapped by KSM when deduplicating", per
 * process in /proc/<pid>/ksm_stat.  madvise(2) MADV_COLLAPSE: "Perform a
 * best-effort synchronous collapse of the native pages mapped by the memory
 * range into Transparent Huge Pages".
 *
 * A PMD range of base pages written with zeroes, MADV_MERGEABLE, ksmd run
 * with use_zero_pages until this process's ksm_zero_pages covers the range;
 * then MADV_COLLAPSE: 0, the range is a THP reading 0, and no zero page of
 * the range is mapped any more, so ksm_zero_pages is back to 0.  Kills
 * mm/khugepaged.c:__collapse_huge_page_copy_succeeded's `if
 * (pte_none(pteval))` -> `if (1)` (821b86638463: the zero-page PTEs left in
 * the page table the collapse deposits, not cleared, and KSM's count not
 * given back).  SKIP without KSM (CONFIG_KSM).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define KSM_DIR "/sys/kernel/mm/ksm"
#define KSM_STAT "/proc/self/ksm_stat"
#define KSM_SLEEP_MS "10"
#define KSM_MERGE_WAIT_S 90   /* two full scans of the range under TCG, with room */
#define KSM_POLL_US 50000

/* The KSM settings the row changes, in the order they are set (restored in reverse). */
struct ksm_knobs {
	struct thp_knob run, zero, scan, sleep_ms;
};

/* ksmd scanning pages_to_scan pages every KSM_SLEEP_MS with use_zero_pages: 0, or -1 (diag printed). */
static int ksm_start(struct ksm_knobs *k, size_t pages)
{
	char scan[32];

	snprintf(scan, sizeof(scan), "%zu", pages);
	if (value_knob_set(&k->sleep_ms, KSM_DIR "/sleep_millisecs", KSM_SLEEP_MS) ||
	    value_knob_set(&k->scan, KSM_DIR "/pages_to_scan", scan) ||
	    value_knob_set(&k->zero, KSM_DIR "/use_zero_pages", "1") ||
	    value_knob_set(&k->run, KSM_DIR "/run", "1")) {
		ktap_diag("cannot start ksmd with use_zero_pages: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ksmd stopped (run 0 keeps what it merged, ksm.rst) and every setting put back. */
static void ksm_stop(const struct ksm_knobs *k)
{
	thp_knob_restore(&k->run);
	thp_knob_restore(&k->zero);
	thp_knob_restore(&k->scan);
	thp_knob_restore(&k->sleep_ms);
}

/* 1 once this process's ksm_zero_pages reaches want, within KSM_MERGE_WAIT_S. */
static int zero_pages_merged(long want)
{
	double start = now();

	while (file_key_value(KSM_STAT, "ksm_zero_pages") < want && now() - start < KSM_MERGE_WAIT_S)
		usleep(KSM_POLL_US);
	ktap_diag("ksm_zero_pages %ld of %ld after %.1f s", file_key_value(KSM_STAT, "ksm_zero_pages"), want,
		  now() - start);
	return file_key_value(KSM_STAT, "ksm_zero_pages") >= want;
}

int ksm_plan(void)
{
	return 1;
}

void ksm_run(void)
{
	const char *row = "MADV_COLLAPSE of KSM's zero pages: 0, a THP reading 0, ksm_zero_pages back to 0";
	size_t pmd = (size_t)pmd_size(), ps = (size_t)page_size(), nr = pmd / ps;
	struct ksm_knobs knobs = { 0 };
	char *map, *huge;
	long left = -1;
	int ok = 0;

	if (!sys_exists(KSM_DIR "/use_zero_pages") || !sys_exists(KSM_STAT)) {
		ktap_skip(row, "no KSM with use_zero_pages (CONFIG_KSM)");
		return;
	}
	if (!(huge = pmd_range_map(pmd, &map))) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	/* Base pages, each written (a zero-filled page of its own, not the zero page). */
	if (madvise(map, 2 * pmd, MADV_NOHUGEPAGE))
		ktap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
	for (size_t i = 0; i < nr; i++)
		*(volatile char *)(huge + i * ps) = 0;
	if (madvise(map, 2 * pmd, MADV_MERGEABLE)) {
		ktap_diag("MADV_MERGEABLE: %s", strerror(errno));
	} else if (!ksm_start(&knobs, 2 * nr) && zero_pages_merged((long)nr)) {
		/* ksmd stopped (ksm_stop() puts run back): the count below is the collapse's alone. */
		if (sys_write(KSM_DIR "/run", "0"))
			ktap_diag("cannot stop ksmd: %s", strerror(errno));
		if (madvise(map, 2 * pmd, MADV_HUGEPAGE) || collapse_range(huge, pmd)) {
			ktap_diag("MADV_HUGEPAGE, MADV_COLLAPSE: %s", strerror(errno));
		} else {
			left = file_key_value(KSM_STAT, "ksm_zero_pages");
			ktap_diag("after MADV_COLLAPSE: AnonHugePages %lld, ksm_zero_pages %ld", smaps_anon_huge(huge),
				  left);
			ok = smaps_anon_huge(huge) == (long long)pmd && reads_zero(huge, pmd) && left == 0;
		}
	}
	ksm_stop(&knobs);
	munmap(map, 2 * pmd);
	ktap_ok(ok, "%s", row);
}
