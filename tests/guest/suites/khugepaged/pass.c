/*
 * khugepaged's pass, as transhuge.rst sets it: "how many pages khugepaged
 * should scan at each pass" (pages_to_scan) and "how many milliseconds to
 * wait in khugepaged between each pass" (scan_sleep_millisecs).
 *
 * A memfd of PASS_PMDS PMDs, every page written as a base page, mapped
 * shared and MADV_HUGEPAGE under shmem_enabled advise, so khugepaged
 * collapses it; pages_to_scan one PMD's worth of pages, scan_sleep_millisecs
 * PASS_SLEEP_MS.  A PMD range of the file scanned is that many pages
 * scanned, so one pass collapses at most one of them: once ShmemHugePages
 * shows the first THP it shows no second one PASS_QUIET_MS later (less
 * than the sleep), and all PASS_PMDS come within PASS_WAIT_S.  Kills
 * collapse_scan_file's `if (result == SCAN_PTE_MAPPED_HUGEPAGE)` -> `if (1)`
 * (9a6c83ab1389: every shmem PMD range counted as one page scanned, so one
 * pass collapses them all).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define PASS_PMDS 3
#define PASS_SLEEP_MS "4000"
#define PASS_QUIET_MS 1500
#define PASS_WAIT_S COLLAPSE_WAIT_S
#define PASS_POLL_US 10000
#define PASS_SETTLE_S 2

/* ShmemHugePages in PMDs. */
static long shmem_thps(size_t pmd)
{
	return meminfo_kb("ShmemHugePages") / (long)(pmd >> 10);
}

/* The memfd of the header, mapped at a PMD-aligned address (*map, PASS_PMDS + 1 PMDs): its start or NULL. */
static char *pass_file(size_t pmd, int *fd, char **map)
{
	size_t len = PASS_PMDS * pmd;
	struct thp_knob knob;
	int knob_set = !thp_knob_set(&knob, SHMEM_ENABLED, "never");
	char *at = NULL;

	*fd = memfd_create("numalab-pass", 0);
	*map = mmap(NULL, len + pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*fd >= 0 && *map != MAP_FAILED && !ftruncate(*fd, (off_t)len)) {
		at = (char *)(((uintptr_t)*map + pmd - 1) & ~(uintptr_t)(pmd - 1));
		if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0) == MAP_FAILED)
			at = NULL;
		for (size_t i = 0; at && i < len / (size_t)page_size(); i++)
			pmd_range_fill_page(at, i);
	}
	if (*map == MAP_FAILED)
		*map = NULL;
	if (knob_set)
		thp_knob_restore(&knob);
	return at;
}

/* 1 if ShmemHugePages reached want PMDs within wait_s; *at is when. */
static int thps_reach(size_t pmd, long want, double wait_s, double *at)
{
	double start = now();

	while (shmem_thps(pmd) < want && now() - start < wait_s)
		usleep(PASS_POLL_US);
	*at = now();
	return shmem_thps(pmd) >= want;
}

int pass_plan(void)
{
	return 1;
}

void pass_run(void)
{
	const char *row = "khugepaged collapses one shmem PMD range a pass at pages_to_scan of one PMD";
	size_t pmd = (size_t)pmd_size();
	char pages[32], pmd_shmem[160], *map = NULL, *at;
	struct thp_knob scan = { 0 }, sleep_ms = { 0 }, shmem = { 0 }, pmd_knob = { 0 };
	long base, quiet = -1;
	int fd = -1, ok = 0;
	double first = 0, last;   /* when the first THP came, when the wait for all ended */

	snprintf(pages, sizeof(pages), "%zu", pmd / (size_t)page_size());
	snprintf(pmd_shmem, sizeof(pmd_shmem), THP_DIR "/hugepages-%zukB/shmem_enabled", pmd >> 10);
	if (value_knob_set(&scan, KHP_DIR "/pages_to_scan", pages) ||
	    value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", PASS_SLEEP_MS)) {
		ktap_skip(row, "cannot set pages_to_scan and scan_sleep_millisecs: %s", strerror(errno));
		thp_knob_restore(&scan);
		return;
	}
	if (sys_exists(pmd_shmem) && thp_knob_set(&pmd_knob, pmd_shmem, "inherit"))
		ktap_diag("cannot set %s to inherit: %s", pmd_shmem, strerror(errno));
	/*
	 * khugepaged_do_scan() reads pages_to_scan once a pass: a pass begun before the write
	 * (the suite's tuning: eight PMDs' worth, 10 ms apart) may still collapse several of the
	 * ranges at once (2 of 3 once on cxl-3tier).  The sleep after it is the new one.
	 */
	sleep(PASS_SETTLE_S);
	base = shmem_thps(pmd);
	if (!(at = pass_file(pmd, &fd, &map))) {
		ktap_diag("the memfd: %s", strerror(errno));
	} else if (thp_knob_set(&shmem, SHMEM_ENABLED, "advise") || madvise(at, PASS_PMDS * pmd, MADV_HUGEPAGE)) {
		ktap_diag("shmem_enabled advise, MADV_HUGEPAGE: %s", strerror(errno));
	} else if (!thps_reach(pmd, base + 1, PASS_WAIT_S, &first)) {
		ktap_diag("no shmem THP in %d s", PASS_WAIT_S);
	} else {
		usleep(PASS_QUIET_MS * 1000);
		quiet = shmem_thps(pmd) - base;
		ktap_diag("%ld of %d PMD ranges collapsed %d ms after the first", quiet, PASS_PMDS, PASS_QUIET_MS);
		if (quiet == 1) {
			ok = thps_reach(pmd, base + PASS_PMDS, PASS_WAIT_S, &last);
			ktap_diag("%ld of %d %.1f s after the first", shmem_thps(pmd) - base, PASS_PMDS, last - first);
		}
	}
	thp_knob_restore(&shmem);
	thp_knob_restore(&pmd_knob);
	if (map)
		munmap(map, (PASS_PMDS + 1) * pmd);
	if (fd >= 0)
		close(fd);
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&scan);
	ktap_ok(ok, "%s", row);
}
