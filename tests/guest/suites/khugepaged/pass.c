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
 *
 * The same for an anonymous mapping of PASS_PMDS PMDs, written as base pages
 * (MADV_NOHUGEPAGE meanwhile) and then MADV_HUGEPAGE: its AnonHugePages grow
 * by one PMD a pass.  Kills collapse_scan_pmd's per-PTE `cc->progress++`
 * removed (33831509500c: an anonymous PMD range scanned counts as nothing,
 * so one pass collapses every range of the mapping).
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

/* The THPs of one kind of mapping the row counts, and how its ranges are made. */
struct pass_kind {
	const char *row;
	int shmem;   /* shmem_enabled at advise while khugepaged collapses it */
	/* The PASS_PMDS PMDs, every page written as a base page, handed to khugepaged: 0 or -1. */
	int (*prepare)(size_t pmd, int *fd, char **map, char **at);
	/* How many PMDs of THP the kind counts now (at: the range, once prepared). */
	long (*thps)(const char *at, size_t pmd);
};

/* ShmemHugePages in PMDs. */
static long shmem_thps(const char *at, size_t pmd)
{
	(void)at;
	return meminfo_kb("ShmemHugePages") / (long)(pmd >> 10);
}

/* The range's AnonHugePages in PMDs (smaps of its VMA: no other process counts). */
static long anon_thps(const char *at, size_t pmd)
{
	return at ? (long)(smaps_anon_huge(at) / (long long)pmd) : 0;
}

/* A fresh mapping of PASS_PMDS + 1 PMDs (*map) and the PMD-aligned start in it: NULL on failure. */
static char *pass_area(size_t pmd, char **map)
{
	*map = mmap(NULL, (PASS_PMDS + 1) * pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return NULL;
	}
	return (char *)(((uintptr_t)*map + pmd - 1) & ~(uintptr_t)(pmd - 1));
}

/* The memfd of the header, shared at the area's start, MADV_HUGEPAGE under shmem_enabled advise. */
static int shmem_prepare(size_t pmd, int *fd, char **map, char **at)
{
	size_t len = PASS_PMDS * pmd;
	struct thp_knob knob;
	int knob_set = !thp_knob_set(&knob, SHMEM_ENABLED, "never");
	char *area = pass_area(pmd, map);

	*at = NULL;
	*fd = memfd_create("numalab-pass", 0);
	if (area && *fd >= 0 && !ftruncate(*fd, (off_t)len) &&
	    mmap(area, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0) != MAP_FAILED) {
		*at = area;
		for (size_t i = 0; i < len / (size_t)page_size(); i++)
			pmd_range_fill_page(area, i);
	}
	if (knob_set)
		thp_knob_restore(&knob);
	return *at ? 0 : -1;
}

/* Private anonymous memory at the area's start: written under MADV_NOHUGEPAGE, then MADV_HUGEPAGE. */
static int anon_prepare(size_t pmd, int *fd, char **map, char **at)
{
	size_t len = PASS_PMDS * pmd;
	char *area = pass_area(pmd, map);

	*fd = -1;
	*at = NULL;
	if (!area || mmap(area, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
			     MAP_FAILED || madvise(area, len, MADV_NOHUGEPAGE))
		return -1;
	for (size_t i = 0; i < len / (size_t)page_size(); i++)
		pmd_range_fill_page(area, i);
	*at = area;
	return 0;
}

/* 1 if the kind's THPs reached want PMDs within wait_s; *when is when. */
static int thps_reach(const struct pass_kind *k, const char *at, size_t pmd, long want, double wait_s,
		      double *when)
{
	double start = now();

	while (k->thps(at, pmd) < want && now() - start < wait_s)
		usleep(PASS_POLL_US);
	*when = now();
	return k->thps(at, pmd) >= want;
}

int pass_plan(void)
{
	return 2;
}

/* One row of the header for kind k, with pages_to_scan and scan_sleep_millisecs set. */
static void pass_row(const struct pass_kind *k, size_t pmd)
{
	struct thp_knob shmem = { 0 };
	char *map = NULL, *at = NULL;
	long base, quiet = -1;
	int fd = -1, ok = 0;
	double first = 0, last;   /* when the first THP came, when the wait for all ended */

	/*
	 * khugepaged_do_scan() reads pages_to_scan once a pass: a pass begun before the write
	 * (the suite's tuning: eight PMDs' worth, 10 ms apart) may still collapse several of the
	 * ranges at once (2 of 3 once on cxl-3tier).  The sleep after it is the new one.
	 */
	sleep(PASS_SETTLE_S);
	base = k->thps(NULL, pmd);
	if (k->prepare(pmd, &fd, &map, &at)) {
		ktap_diag("the mapping: %s", strerror(errno));
	} else if ((k->shmem && thp_knob_set(&shmem, SHMEM_ENABLED, "advise")) ||
		   madvise(at, PASS_PMDS * pmd, MADV_HUGEPAGE)) {
		ktap_diag("shmem_enabled advise, MADV_HUGEPAGE: %s", strerror(errno));
	} else if (!thps_reach(k, at, pmd, base + 1, PASS_WAIT_S, &first)) {
		ktap_diag("no THP in %d s", PASS_WAIT_S);
	} else {
		usleep(PASS_QUIET_MS * 1000);
		quiet = k->thps(at, pmd) - base;
		ktap_diag("%ld of %d PMD ranges collapsed %d ms after the first", quiet, PASS_PMDS, PASS_QUIET_MS);
		if (quiet == 1) {
			ok = thps_reach(k, at, pmd, base + PASS_PMDS, PASS_WAIT_S, &last);
			ktap_diag("%ld of %d %.1f s after the first", k->thps(at, pmd) - base, PASS_PMDS, last - first);
		}
	}
	thp_knob_restore(&shmem);
	if (map)
		munmap(map, (PASS_PMDS + 1) * pmd);
	if (fd >= 0)
		close(fd);
	ktap_ok(ok, "%s", k->row);
}

void pass_run(void)
{
	static const struct pass_kind kinds[] = {
		{ "khugepaged collapses one shmem PMD range a pass at pages_to_scan of one PMD",
		  1, shmem_prepare, shmem_thps },
		{ "khugepaged collapses one anonymous PMD range a pass at pages_to_scan of one PMD",
		  0, anon_prepare, anon_thps },
	};
	size_t pmd = (size_t)pmd_size();
	char pages[32], pmd_shmem[160];
	struct thp_knob scan = { 0 }, sleep_ms = { 0 }, pmd_knob = { 0 };

	snprintf(pages, sizeof(pages), "%zu", pmd / (size_t)page_size());
	snprintf(pmd_shmem, sizeof(pmd_shmem), THP_DIR "/hugepages-%zukB/shmem_enabled", pmd >> 10);
	if (value_knob_set(&scan, KHP_DIR "/pages_to_scan", pages) ||
	    value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", PASS_SLEEP_MS)) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			ktap_skip(kinds[i].row, "cannot set pages_to_scan and scan_sleep_millisecs: %s",
				  strerror(errno));
		thp_knob_restore(&scan);
		return;
	}
	if (sys_exists(pmd_shmem) && thp_knob_set(&pmd_knob, pmd_shmem, "inherit"))
		ktap_diag("cannot set %s to inherit: %s", pmd_shmem, strerror(errno));
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		pass_row(&kinds[i], pmd);
	thp_knob_restore(&pmd_knob);
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&scan);
}
