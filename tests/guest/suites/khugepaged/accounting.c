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
 *   shmem      a memfd PMD with every page written as a base page,
 *              collapsed by MADV_COLLAPSE: proc.rst's meminfo Shmem ("Total
 *              memory used by shared memory (shmem) and tmpfs") and Cached
 *              ("In-memory cache for files [...] as well as tmpfs & shmem")
 *              as they were: Shmem within a quarter PMD (other tasks' tmpfs
 *              files, 144 kB seen), Cached's part beyond Shmem within an
 *              eighth (the tmpfs noise moves both), and Cached, which holds
 *              the shmem pages, never below Shmem;
 *              ShmemHugePages ("shared memory (shmem) and tmpfs allocated
 *              with huge pages") up by the PMD.  Kills collapse_file's
 *              `lruvec_stat_mod_folio(new_folio, NR_FILE_PAGES, ...)`
 *              removed (4a7fbbc9f380: the old pages taken out of Cached,
 *              the THP never put in; after the suite's earlier shmem
 *              collapses meminfo shows Cached clamped at 0).
 *   shmem-trace the same collapse traced: huge_memory's
 *              mm_khugepaged_collapse_file event (include/trace/events/
 *              huge_memory.h: "hpage_pfn=") names the THP the collapse made,
 *              the PFN pagemap shows at the range (pagemap.rst: "Bits 0-54
 *              page frame number (PFN) if present").  Kills collapse_file's
 *              freeing loop `list_for_each_entry_safe(folio, tmp, ...)` with
 *              new_folio as its cursor (4d35484a1ebb: the event then reads
 *              a folio pointer made from the list head).
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
 *   reserve-size  and it is at least the rule set_recommended_min_free_kbytes()
 *              states: two pageblocks per zone up to ZONE_NORMAL ("Ensure
 *              2 pageblocks are free"), plus MIGRATE_PCPTYPES squared of
 *              them ("at least two pageblocks are almost free of another
 *              type ... There are 3 MIGRATE_TYPES"), but no more than 5% of
 *              the low memory ("don't ever allow to reserve more than 5% of
 *              the lowmem"), taken as 4% of MemTotal (the kernel counts the
 *              free buffer pages, a little less).  Pageblock size from
 *              /proc/pagetypeinfo, zones from /proc/zoneinfo.  Kills its
 *              `recommended_min <<= (PAGE_SHIFT-10)` -> `- 11` (e2f83a6eff5b:
 *              half the reserve in kB, still above the default).  And it is
 *              at most the larger of the default (the value with THP off)
 *              and the rule capped at 5% of MemTotal (the free buffer pages
 *              are fewer): kills the same shift -> `- 9` (2760932b117e: the
 *              reserve doubled, 10% of the guests' memory).
 *   swapin     MADV_COLLAPSE of a written PMD range with one page in
 *              SWAP_STRIDE paged out (MADV_PAGEOUT onto zram): 0, one THP,
 *              contents intact (MADV_COLLAPSE ignores max_ptes_swap and swaps
 *              them in), and the swap they held is given back: SwapFree and
 *              SwapCached (proc(5): "Memory that once was swapped out, is
 *              swapped back in but still also is in the swapfile") where they
 *              were before the page-out.  Kills __collapse_huge_page_swapin's
 *              `ret = do_swap_page(&vmf)` -> `+ 1` (cfa9f99a3600: each
 *              swap-in read as VM_FAULT_OOM, so the collapse gives up).
 *   swapcache  the same range, its paged-out pages read back while a
 *              forked child still held their swap entries (so they come in
 *              through the swap cache and stay there once the child is
 *              gone): MADV_COLLAPSE replaces them, and SwapCached and
 *              SwapFree are back where they were before the page-out.  Kills
 *              __collapse_huge_page_copy_succeeded's `free_swap_cache(src)`
 *              removed (7efff5c81989: the replaced pages stay in the swap
 *              cache, holding their slots; zram's swap-in bypasses the
 *              cache, so the swapin row cannot see it).
 *   swapin-trace  the same collapse traced: huge_memory's
 *              mm_collapse_huge_page_swapin event (include/trace/events/
 *              huge_memory.h) reports swapped_in= the pages paged out.
 *              Kills __collapse_huge_page_swapin's `swapped_in = 0` -> `1`
 *              (677c04c76cfe: one more than were swapped in).
 *   mthp-swap  khugepaged with only the MTHP_ORDER size enabled
 *              (max_ptes_none HPAGE_PMD_NR - 1, which mTHP collapse scales to
 *              the size) over the same range: every chunk holds a swap PTE,
 *              and transhuge.rst's collapse_exceed_swap_pte says "For non-PMD
 *              orders this occurs if a mTHP range contains at least one swap
 *              PTE": the counter rises by EXCEED_PASSES chunks' worth, the
 *              paged-out pages stay swapped out, the contents intact, and
 *              MemFree loses less than a quarter of the folios the attempts
 *              allocated (each is freed again).  Kills collapse_huge_page's
 *              `if (folio) folio_put(folio)` -> `if (0)` (6d04a6bb01d9: every
 *              failed attempt leaks its folio, 8 MB here).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"
#include "swap.h"

#define NR_ACCOUNTING_ROWS 9
#define MIGRATE_PCPTYPES 3
#define TRACING "/sys/kernel/tracing"
#define SWAPIN_EVENT TRACING "/events/huge_memory/mm_collapse_huge_page_swapin"
#define COLLAPSE_FILE_EVENT TRACING "/events/huge_memory/mm_khugepaged_collapse_file"
#define SHMEM_TRACE_ROW "mm_khugepaged_collapse_file reports hpage_pfn= the THP the shmem collapse made"
#define MIN_FREE_KBYTES "/proc/sys/vm/min_free_kbytes"
#define SWAP_BYTES (64 << 20)
#define SWAP_STRIDE (1 << MTHP_ORDER)   /* one page per mTHP chunk */
#define PAGEOUT_TRIES 4
#define EXCEED_PASSES 4
#define SWAPIN_ROW "MADV_COLLAPSE swaps paged-out pages in: one THP, contents intact, swap and swap cache given back"
#define SWAPCACHE_ROW "MADV_COLLAPSE of pages held in the swap cache gives their swap back"
#define SWAPIN_TRACE_ROW "mm_collapse_huge_page_swapin reports swapped_in= the pages swapped in"
#define MTHP_SWAP_ROW "khugepaged leaves an mTHP range with a swap PTE alone: collapse_exceed_swap_pte counted, " \
		      "still swapped, no folio leaked"

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

/* event (its tracefs directory) on for this task, the buffer emptied; 0, or -1 (why in diag). */
static int trace_on(const char *event, struct thp_knob *tracing_on)
{
	char filter[48], filter_path[160], enable_path[160];
	int fd;

	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	snprintf(filter_path, sizeof(filter_path), "%s/filter", event);
	snprintf(enable_path, sizeof(enable_path), "%s/enable", event);
	if (sys_write(filter_path, filter) || sys_write(enable_path, "1") ||
	    value_knob_set(tracing_on, TRACING "/tracing_on", "1")) {
		ktap_diag("cannot enable %s: %s", event, strerror(errno));
		return -1;
	}
	fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* event off again, its filter cleared, tracing_on as it was. */
static void trace_off(const char *event, const struct thp_knob *tracing_on)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/enable", event);
	sys_write(path, "0");
	snprintf(path, sizeof(path), "%s/filter", event);
	sys_write(path, "0");
	thp_knob_restore(tracing_on);
}

/* meminfo's Shmem, Cached and ShmemHugePages in kB. */
struct shmem_view {
	long shmem, cached, huge;
};

static void shmem_view_read(struct shmem_view *v)
{
	v->shmem = meminfo_kb("Shmem");
	v->cached = meminfo_kb("Cached");
	v->huge = meminfo_kb("ShmemHugePages");
}

/* The hpage_pfn= of the last mm_khugepaged_collapse_file event in the buffer; -1 if none. */
static long long collapse_file_traced_pfn(void)
{
	FILE *f = fopen(TRACING "/trace", "re");
	char line[512];
	long long pfn = -1;

	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " mm_khugepaged_collapse_file:");

		if (p && (p = strstr(p, "hpage_pfn=")))
			pfn = strtoll(p + strlen("hpage_pfn="), NULL, 16);
	}
	if (f)
		fclose(f);
	return pfn;
}

static void shmem_row(void)
{
	const char *row = "MADV_COLLAPSE of a written shmem PMD leaves Shmem and Cached as they were, ShmemHugePages up by it";
	size_t pmd = (size_t)pmd_size();
	long pmd_kb = (long)(pmd >> 10), shmem_slack_kb = pmd_kb / 4, other_slack_kb = pmd_kb / 8;
	struct shmem_view before, after;
	struct thp_knob tracing_on = { "", "" };
	long long traced_pfn = -1;
	int fd, ok = 0, collapsed, tracing = sys_exists(COLLAPSE_FILE_EVENT "/enable");
	char *map, *huge = shmem_written("numalab-accounting", pmd, &fd, &map);

	if (!huge) {
		ktap_skip(row, "the memfd: %s", strerror(errno));
		ktap_skip(SHMEM_TRACE_ROW, "the memfd: %s", strerror(errno));
		if (map)
			munmap(map, 2 * pmd);
		if (fd >= 0)
			close(fd);
		return;
	}
	shmem_view_read(&before);
	tracing = tracing && !trace_on(COLLAPSE_FILE_EVENT, &tracing_on);
	collapsed = !collapse_range(huge, pmd);
	if (tracing) {
		traced_pfn = collapse_file_traced_pfn();
		trace_off(COLLAPSE_FILE_EVENT, &tracing_on);
	}
	if (!collapsed) {
		ktap_diag("MADV_COLLAPSE: %s", strerror(errno));
	} else {
		shmem_view_read(&after);
		ktap_diag("kB before, after MADV_COLLAPSE: Shmem %ld, %ld; Cached %ld, %ld; ShmemHugePages %ld, %ld",
			  before.shmem, after.shmem, before.cached, after.cached, before.huge, after.huge);
		ok = before.shmem >= 0 && before.cached >= before.shmem && after.cached >= after.shmem &&
		     labs(after.shmem - before.shmem) <= shmem_slack_kb &&
		     labs((after.cached - after.shmem) - (before.cached - before.shmem)) <= other_slack_kb &&
		     after.huge - before.huge == pmd_kb && shmem_reads_values(huge, pmd);
	}
	ktap_ok(ok, "%s", row);
	if (!sys_exists(COLLAPSE_FILE_EVENT "/enable")) {
		ktap_skip(SHMEM_TRACE_ROW, "no " COLLAPSE_FILE_EVENT " (CONFIG_TRACEPOINTS, tracefs)");
	} else {
		ktap_diag("mm_khugepaged_collapse_file hpage_pfn=%#llx; pagemap's PFN at the range %#llx", traced_pfn,
			  page_pfn(huge));
		ktap_ok(collapsed && traced_pfn >= 0 && traced_pfn == page_pfn(huge), SHMEM_TRACE_ROW);
	}
	munmap(map, 2 * pmd);
	close(fd);
}

/* Populated zones up to ZONE_NORMAL (DMA, DMA32, Normal) in /proc/zoneinfo; -1 if unreadable. */
static int low_zones(void)
{
	FILE *f = fopen("/proc/zoneinfo", "re");
	char line[256], name[32] = "";
	long present;
	int nr = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %*d, zone %31s", name) == 1)
			continue;
		if (sscanf(line, " present %ld", &present) == 1 && present > 0 &&
		    (!strcmp(name, "DMA") || !strcmp(name, "DMA32") || !strcmp(name, "Normal")))
			nr++;
	}
	fclose(f);
	return nr;
}

static void reserve_size_row(long on, long off)
{
	const char *row = "min_free_kbytes with THP enabled is the kernel's pageblock reserve, or 5% of low memory";
	long block = file_key_value("/proc/pagetypeinfo", "Pages per block"), total = meminfo_kb("MemTotal");
	long zones = low_zones(), rule_kb, want_kb, cap_kb;

	if (block <= 0 || zones <= 0 || total <= 0) {
		ktap_skip(row, "cannot read /proc/pagetypeinfo's \"Pages per block\", /proc/zoneinfo or MemTotal");
		return;
	}
	rule_kb = block * zones * (2 + MIGRATE_PCPTYPES * MIGRATE_PCPTYPES) * (page_size() / 1024);
	want_kb = rule_kb < total / 25 ? rule_kb : total / 25;
	cap_kb = rule_kb < total / 20 ? rule_kb : total / 20;
	if (off > cap_kb)
		cap_kb = off;
	ktap_diag("pageblocks of %ld pages, %ld zones: %ld kB by the rule, 4%% of MemTotal %ld kB, "
		  "at most %ld kB; min_free_kbytes %ld", block, zones, rule_kb, total / 25, cap_kb, on);
	ktap_ok(on >= want_kb && on <= cap_kb, "%s", row);
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
	thp_all_restore(knobs, nr);
	sys_read_long(MIN_FREE_KBYTES, &again);
	if (!stopped) {
		ktap_skip(row, "khugepaged still runs with every THP setting at never");
		return;
	}
	ktap_diag("min_free_kbytes %ld with THP as it was, %ld with THP off, %ld with THP back", on, off, again);
	ktap_diag("metric: reserve.min_free_kbytes_thp %ld", on);
	ktap_ok(off > 0 && on > off && again > off, "%s", row);
	reserve_size_row(on, off);
}

/*
 * The nr pages at huge written, then every SWAP_STRIDE-th paged out, with
 * the task on one CPU: MADV_PAGEOUT drains only this CPU's LRU batch, and a
 * page still in another CPU's batch would stay.  1 if pagemap shows them all
 * swapped out.
 */
static int fill_and_page_out(char *huge, size_t nr)
{
	size_t ps = (size_t)page_size();
	cpu_set_t was;
	int pinned = cpu_pin_here(&was), all = 0;

	for (size_t i = 0; i < nr; i++)
		pmd_range_fill_page(huge, i);
	for (int t = 0; t < PAGEOUT_TRIES && !all; t++) {
		all = 1;
		for (size_t i = 0; i < nr; i += SWAP_STRIDE) {
			if (page_swapped(huge + i * ps) != 1 && madvise(huge + i * ps, ps, MADV_PAGEOUT))
				ktap_diag("MADV_PAGEOUT: %s", strerror(errno));
			all = all && page_swapped(huge + i * ps) == 1;
		}
	}
	if (pinned)
		cpu_unpin(&was);
	if (!all)
		ktap_diag("MADV_PAGEOUT left some of every %d-th page resident", SWAP_STRIDE);
	return all;
}

static int all_swapped(const char *huge, size_t nr)
{
	for (size_t i = 0; i < nr; i += SWAP_STRIDE)
		if (page_swapped(huge + i * (size_t)page_size()) != 1)
			return 0;
	return 1;
}

/*
 * A PMD range of base pages, every SWAP_STRIDE-th paged out; NULL (why in
 * diag) if not.  THP is at madvise (accounting_run()) and the VMA is not
 * MADV_HUGEPAGE: faults give base pages, and khugepaged leaves it alone, so
 * only the row's own MADV_COLLAPSE swaps pages in (khugepaged doing it at the
 * same time turned this task's swap-in back with a locked page, EAGAIN).
 */
static char *swapped_range(size_t pmd, char **map)
{
	char *huge = pmd_range_map(pmd, map);

	if (!huge) {
		ktap_diag("mmap: %s", strerror(errno));
		return NULL;
	}
	if (!fill_and_page_out(huge, pmd / (size_t)page_size())) {
		munmap(*map, 2 * pmd);
		return NULL;
	}
	return huge;
}

/*
 * swapped_range()'s range collapsed by MADV_COLLAPSE: 1 if it is one THP with
 * its contents intact; SwapFree and SwapCached (kB) right after the collapse
 * in *free and *cached.
 */
static int collapse_swapped(char *huge, size_t pmd, long *free, long *cached)
{
	if (collapse_range(huge, pmd)) {
		ktap_diag("MADV_COLLAPSE: %s", strerror(errno));
		return 0;
	}
	*free = meminfo_kb("SwapFree");
	*cached = meminfo_kb("SwapCached");
	return smaps_anon_huge(huge) == (long long)pmd && pmd_range_intact(huge, pmd, pmd / (size_t)page_size());
}


/*
 * The sum of the swapin events' swapped_in= in the buffer; in *failed the
 * number of events whose ret= is not SCAN_SUCCEED (1, mm/khugepaged.c's
 * enum scan_result); the event off again.  -1: no event.
 */
static long swapin_trace_off(const struct thp_knob *tracing_on, int *failed)
{
	FILE *f = fopen(TRACING "/trace", "re");
	char line[512];
	long sum = -1;

	*failed = 0;
	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " mm_collapse_huge_page_swapin:"), *ret = p ? strstr(p, "ret=") : NULL;

		if (p && (p = strstr(p, "swapped_in=")) && ret) {
			sum = (sum < 0 ? 0 : sum) + atol(p + strlen("swapped_in="));
			*failed += atoi(ret + strlen("ret=")) != 1;
		}
	}
	if (f)
		fclose(f);
	trace_off(SWAPIN_EVENT, tracing_on);
	return sum;
}

static void swapin_row(size_t pmd)
{
	const char *row = SWAPIN_ROW;
	size_t nr = pmd / (size_t)page_size();
	long free0 = meminfo_kb("SwapFree"), cached0 = meminfo_kb("SwapCached"), free1, free2 = -1, cached2 = -1;
	long slack_kb = (long)(nr / SWAP_STRIDE) * page_size() / 1024 / 2;
	long traced = -1;
	char *map, *huge = swapped_range(pmd, &map);
	struct thp_knob tracing_on = { "", "" };
	int ok = 0, failed = 0, tracing = sys_exists(SWAPIN_EVENT "/enable");

	if (!huge) {
		ktap_ok(0, "%s", row);
		ktap_ok(0, SWAPIN_TRACE_ROW);
		return;
	}
	free1 = meminfo_kb("SwapFree");
	tracing = tracing && !trace_on(SWAPIN_EVENT, &tracing_on);
	ok = collapse_swapped(huge, pmd, &free2, &cached2);
	if (tracing)
		traced = swapin_trace_off(&tracing_on, &failed);
	munmap(map, 2 * pmd);
	ktap_diag("SwapFree kB: %ld before, %ld paged out, %ld collapsed; SwapCached kB: %ld before, %ld collapsed",
		  free0, free1, free2, cached0, cached2);
	ktap_ok(ok && free1 < free0 && free0 - free2 <= slack_kb && cached2 - cached0 <= slack_kb, "%s", row);
	if (!sys_exists(SWAPIN_EVENT "/enable")) {
		ktap_skip(SWAPIN_TRACE_ROW, "no " SWAPIN_EVENT " (CONFIG_TRACEPOINTS, tracefs)");
		return;
	}
	ktap_diag("mm_collapse_huge_page_swapin: swapped_in=%ld in all, %d events not SCAN_SUCCEED; %zu pages paged out",
		  traced, failed, nr / SWAP_STRIDE);
	/*
	 * A swap-in the page lock turned back (VM_FAULT_RETRY: another task
	 * bringing the same page in) ends that attempt (SCAN_PAGE_LOCK, EAGAIN)
	 * and collapse_range() asks again; the other task may bring the rest in
	 * meanwhile (khugepaged did, on stock+debug, before swapped_range() kept
	 * it away: one page in the failed attempt's event, none in the next).
	 * Without such a failure the count is exact; with one it can only be at
	 * most the pages paged out, each being swapped in once.
	 */
	ktap_ok(ok && traced >= 0 && (failed ? traced <= (long)(nr / SWAP_STRIDE) : traced == (long)(nr / SWAP_STRIDE)),
		SWAPIN_TRACE_ROW);
}

static void swapcache_row(size_t pmd)
{
	size_t nr = pmd / (size_t)page_size(), ps = (size_t)page_size();
	long nr_kb = (long)(nr / SWAP_STRIDE) * (long)ps / 1024;
	long free0 = meminfo_kb("SwapFree"), cached0 = meminfo_kb("SwapCached"), cached1 = -1, free2 = -1, cached2 = -1;
	char *map, *huge = swapped_range(pmd, &map);
	int go[2] = { -1, -1 }, ok = 0;
	pid_t child = -1;

	if (huge && !pipe(go))
		child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		_exit(read(go[0], &c, 1) < 0);
	}
	if (child > 0) {
		volatile char sink = 0;

		/* Read faults on entries the child shares: in through the swap cache, and kept there. */
		for (size_t i = 0; i < nr; i += SWAP_STRIDE)
			sink += huge[i * ps];
		(void)sink;
		close(go[1]);
		go[1] = -1;
		waitpid(child, NULL, 0);
		cached1 = meminfo_kb("SwapCached");
		ok = collapse_swapped(huge, pmd, &free2, &cached2);
	}
	for (int i = 0; i < 2; i++)
		if (go[i] >= 0)
			close(go[i]);
	if (huge)
		munmap(map, 2 * pmd);
	ktap_diag("SwapCached kB: %ld before, %ld read back (%ld paged out), %ld collapsed; SwapFree kB: %ld before, "
		  "%ld collapsed", cached0, cached1, nr_kb, cached2, free0, free2);
	/*
	 * Without pages in the swap cache first the row would check nothing.  Not all of them
	 * stay there (76 kB of 128 on 4node): those that do must go with the collapse.
	 */
	ktap_ok(ok && cached1 > cached0 && (cached2 - cached0) * 2 < cached1 - cached0 && free0 - free2 <= nr_kb / 2,
		SWAPCACHE_ROW);
}

static void mthp_swap_row(size_t pmd)
{
	const char *row = MTHP_SWAP_ROW;
	long msize = page_size() << MTHP_ORDER, nr_chunks = (long)pmd / msize, target = EXCEED_PASSES * nr_chunks;
	size_t nr = pmd / (size_t)page_size();
	struct thp_knob pmd_knob = { "", "" }, m_knob = { "", "" }, none = { "", "" };
	char path[192], limit[32], *map = NULL, *huge = NULL;
	long exceed0 = -1, exceed = -1, free0 = -1, free1 = -1;
	int ok = 0, swapped = 0, intact = 0;
	double start;

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ldkB/enabled", msize / 1024);
	if (khugepaged_thread_pid() < 0 || !sys_exists(path) || size_stat(msize, "collapse_exceed_swap_pte") < 0) {
		ktap_skip(row, "%s", khugepaged_thread_pid() < 0 ? "no khugepaged thread"
								 : "the kernel has no mTHP collapse counters");
		return;
	}
	snprintf(limit, sizeof(limit), "%zu", nr - 1);
	if (thp_knob_set(&m_knob, path, "madvise") || value_knob_set(&none, KHP_DIR "/max_ptes_none", limit)) {
		ktap_diag("cannot set %s / max_ptes_none: %s", path, strerror(errno));
		goto restore;
	}
	snprintf(path, sizeof(path), THP_DIR "/hugepages-%zukB/enabled", pmd / 1024);
	if (thp_knob_set(&pmd_knob, path, "never")) {
		ktap_diag("cannot set %s to never: %s", path, strerror(errno));
		goto restore;
	}
	huge = swapped_range(pmd, &map);
	if (!huge)
		goto restore;
	exceed0 = size_stat(msize, "collapse_exceed_swap_pte");
	free0 = meminfo_kb("MemFree");
	if (madvise(map, 2 * pmd, MADV_HUGEPAGE)) {
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		goto restore;
	}
	start = now();
	do {
		usleep(20000);
		exceed = size_stat(msize, "collapse_exceed_swap_pte");
	} while (exceed - exceed0 < target && now() - start < COLLAPSE_WAIT_S);
	free1 = meminfo_kb("MemFree");
	/* khugepaged stopped first: the checks below swap the pages in. */
	madvise(map, 2 * pmd, MADV_NOHUGEPAGE);
	ktap_diag("metric: accounting.mthp_swap_wait_s %.2f", now() - start);
	swapped = all_swapped(huge, nr);
	intact = pmd_range_intact(huge, pmd, nr);
	ok = 1;
restore:
	if (map)
		munmap(map, 2 * pmd);
	thp_knob_restore(&pmd_knob);
	thp_knob_restore(&none);
	thp_knob_restore(&m_knob);
	ktap_diag("hugepages-%ldkB collapse_exceed_swap_pte %+ld (%ld wanted); MemFree %ld kB before, %ld kB after; "
		  "paged-out pages %s swapped out", msize / 1024, exceed - exceed0, target, free0, free1,
		  swapped ? "still" : "no longer");
	ktap_ok(ok && exceed - exceed0 >= target && swapped && intact && free0 - free1 < target * msize / 1024 / 4,
		"%s", row);
}

void accounting_run(void)
{
	char why[128];
	size_t pmd = (size_t)pmd_size();
	struct thp_knob top;

	rss_row();
	shmem_row();
	reserve_row();
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	if (swap_zram_on(SWAP_BYTES, why, sizeof(why))) {
		ktap_skip(SWAPIN_ROW, "no swap: %s", why);
		ktap_skip(SWAPIN_TRACE_ROW, "no swap: %s", why);
		ktap_skip(SWAPCACHE_ROW, "no swap: %s", why);
		ktap_skip(MTHP_SWAP_ROW, "no swap: %s", why);
	} else {
		swapin_row(pmd);
		swapcache_row(pmd);
		mthp_swap_row(pmd);
		swap_zram_off();
	}
	thp_knob_restore(&top);
}
