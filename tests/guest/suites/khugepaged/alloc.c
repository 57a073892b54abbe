/*
 * The huge page of a collapse: allocated, charged and counted
 * (alloc_charge_folio() in mm/khugepaged.c), checked to the unit.
 *
 * The case runs in a memory cgroup of its own (cgroup v2, mounted here if
 * /init has not), with THP faults only for madvised ranges, so a range
 * faulted without MADV_HUGEPAGE stays in base pages until the test collapses
 * it.  Five parts printing two results each, and one printing one:
 *
 *   pmd     MADV_COLLAPSE of one PMD range: 0, one THP, contents intact;
 *           /proc/vmstat thp_collapse_alloc, hugepages-<PMD>kB/stats/
 *           collapse_alloc and the memcg's memory.stat thp_collapse_alloc
 *           each exactly +1.
 *           Kills: 8c635aac27df (count_mthp_stat(MTHP_STAT_COLLAPSE_ALLOC)
 *           removed), a8c4c4d7bcfd (memcg `if (is_pmd_order)` -> if (0)),
 *           12f8eb438728 / 14ee2209e989 / c21befa83119 (the memcg event
 *           removed / counted 2 / counted 0).
 *   mthp    khugepaged collapses the range into order-4 mTHPs (only that size
 *           enabled): the size's collapse_alloc rises, and neither vmstat's
 *           nor the memcg's thp_collapse_alloc moves (they count PMD
 *           collapses only).  With fail_page_alloc armed for khugepaged, its
 *           first mTHP allocation fails: the size's collapse_alloc_failed
 *           +1, vmstat's thp_collapse_alloc_failed unchanged.
 *           Kills: 3476f19c5f5d and db3d1557b297 (`if (is_pmd_order)` ->
 *           if (1) for THP_COLLAPSE_ALLOC, vmstat and memcg), 4e186080ef98
 *           (the same for THP_COLLAPSE_ALLOC_FAILED).
 *   fail    MADV_COLLAPSE with its one huge-page allocation failed by
 *           fail_page_alloc (this task only, order >= PMD order, once):
 *           ENOMEM, the range still base pages and intact, the guest alive;
 *           thp_collapse_alloc_failed and hugepages-<PMD>kB collapse_alloc_failed
 *           +1, no collapse_alloc.
 *           Kills: 0ae3422a4e38 (`if (!folio)` -> if (0): a NULL folio is
 *           used), c7d406bb27d5
 *           (`if (is_pmd_order)` -> if (0)), 9e7fa46174cf (the mTHP failure
 *           stat removed), 4246cbd20a8e / bda5cd60a8f8 (SCAN_ALLOC_HUGE_PAGE_FAIL
 *           -1 / +1: EAGAIN / EBUSY instead of ENOMEM).
 *   charge  memory.max leaves less than a PMD of headroom: MADV_COLLAPSE
 *           fails with EBUSY (SCAN_CGROUP_CHARGE_FAIL) every time, the range
 *           intact; LEAK_ROUNDS attempts leave MemFree where it was (within
 *           LEAK_SLACK_PMDS PMDs: the per-CPU lists may keep a freed one).
 *           Kills: 79a5ed2fa264 (folio_put removed: a PMD leaked per attempt),
 *           5be0060fac06 / b951968b56b5 (SCAN_CGROUP_CHARGE_FAIL -1 / +1:
 *           ENOMEM / EINVAL).
 *   sleep   khugepaged/alloc_sleep_millisecs is "how many milliseconds to
 *           wait in khugepaged if there's an hugepage allocation failure to
 *           throttle the next allocation attempt" (transhuge.rst).  With it
 *           at ALLOC_SLEEP_MS, two PMD ranges side by side wait for
 *           khugepaged, and fail_page_alloc fails its first huge page
 *           allocation (the lower range's): thp_collapse_alloc_failed +1
 *           (first result), and the next collapse, the upper range's,
 *           comes no sooner than ALLOC_SLEEP_MIN_MS after that failure,
 *           but does come (second).
 *           Kills: 5128b65cb50b (khugepaged_alloc_sleep()'s remove_wait_queue()
 *           removed: the wait entry on khugepaged's stack stays queued, and
 *           the wake-up of the setting written back goes through it: an
 *           oops).  The timing is there for the sleep itself.
 *   reclaim the case's memory cgroup squeezed below its own anonymous memory
 *           (zram swap on, memory.swap.max lifted for the part): this task
 *           reclaims, and cgroup-v2.rst's memory.stat counts it where it says,
 *           "pgscan_direct: Amount of scanned pages directly", not in
 *           "pgscan_khugepaged: Amount of scanned pages by khugepaged"
 *           (one result, a SKIP without a memcg or swap).
 *           Kills: e2a937c6b854 (current_is_khugepaged `==` -> `!=`: every
 *           task but khugepaged counted as khugepaged).
 *   Neither failure part can see `*foliop = NULL` removed (568e9cab8000,
 *   557a4985a99b): the callers' folio is NULL already on the lab kernel
 *   (CONFIG_INIT_STACK_ALL_ZERO), tests/guest/mutants.equivalent.
 *
 * fail_page_alloc (debugfs) and the memory controller are optional: parts
 * that need them skip with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"
#include "swap.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CG_DIR CG_ROOT "/numalab-khugepaged"
#define FAIL_DIR "/sys/kernel/debug/fail_page_alloc"
#define LEAK_ROUNDS 16
#define LEAK_SLACK_PMDS 4
#define COLLAPSE_RETRIES 4         /* collapse_range(): EAGAIN asked again, 20 ms apart */
#define NR_PARTS 5
#define NR_RECLAIM_ROWS 1
#define RECLAIM_SWAP_BYTES (64 << 20)
#define RECLAIM_WRITE_BYTES (32 << 20)
#define RECLAIM_HEADROOM_BYTES (8 << 20)
#define ALLOC_SLEEP_MS "2000"
#define ALLOC_SLEEP_MIN_MS 1500    /* the sleep, less what polling every 20 ms may misplace */

struct counts {
	long vm_alloc, vm_failed;        /* /proc/vmstat thp_collapse_alloc{,_failed} */
	long size_alloc, size_failed;    /* hugepages-<size>kB/stats/collapse_alloc{,_failed} */
	long memcg_alloc;                /* memory.stat thp_collapse_alloc (-1: no memcg) */
};

/* ------------------------------------------------------------------ helpers */

char *pmd_range_map(size_t pmd, char **map)
{
	*map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)*map + pmd - 1) & ~(uintptr_t)(pmd - 1));
}

char pmd_range_value(size_t i)
{
	return (char)(i * 7 + 1);
}

void pmd_range_fill_page(char *huge, size_t i)
{
	huge[i * (size_t)page_size()] = pmd_range_value(i);
}

int pmd_range_intact(const char *huge, size_t pmd, size_t nr_filled)
{
	size_t ps = (size_t)page_size();

	for (size_t i = 0; i < pmd / ps; i++)
		if (huge[i * ps] != (i < nr_filled ? pmd_range_value(i) : 0))
			return 0;
	return 1;
}

int reads_zero(const char *at, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (at[i]) {
			ktap_diag("byte %zu reads %#x after the collapse", i, (unsigned char)at[i]);
			return 0;
		}
	return 1;
}

int collapse_range(void *addr, size_t len)
{
	int rc;

	for (int i = 0;; i++) {
		rc = madvise(addr, len, MADV_COLLAPSE);
		if (!rc || errno != EAGAIN || i == COLLAPSE_RETRIES)
			return rc;
		ktap_diag("MADV_COLLAPSE: EAGAIN, trying again");
		usleep(20 * 1000);
	}
}

#define X86_PMD_PAGES 512   /* 2 MB of 4 KB pages */

int pmd_rounds(int x86_pmds)
{
	long want = (long)x86_pmds * X86_PMD_PAGES / (pmd_size() / page_size());

	return want > 0 ? (int)want : 1;
}

int page_node(const void *addr)
{
	void *page = (void *)addr;
	int status = -1;

	if (syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0))
		return -1;
	return status;
}

int thp_knob_set(struct thp_knob *k, const char *path, const char *val)
{
	snprintf(k->path, sizeof(k->path), "%s", path);
	k->was[0] = '\0';
	if (thp_setting(path, k->was, sizeof(k->was)))
		return -1;
	return sys_write(path, val);
}

int value_knob_set(struct thp_knob *k, const char *path, const char *val)
{
	snprintf(k->path, sizeof(k->path), "%s", path);
	if (sys_read(path, k->was, sizeof(k->was))) {
		k->was[0] = '\0';
		return -1;
	}
	return sys_write(path, val);
}

void thp_knob_restore(const struct thp_knob *k)
{
	if (k->was[0] && sys_write(k->path, k->was))
		ktap_diag("cannot restore %s to %s: %s", k->path, k->was, strerror(errno));
}

static void size_dir(char *buf, size_t n, long bytes)
{
	snprintf(buf, n, THP_DIR "/hugepages-%ldkB", bytes / 1024);
}

long size_stat(long bytes, const char *name)
{
	char path[192], dir[128];
	long v;

	size_dir(dir, sizeof(dir), bytes);
	snprintf(path, sizeof(path), "%s/stats/%s", dir, name);
	return sys_read_long(path, &v) ? -1 : v;
}

static void read_counts(struct counts *c, long size, int memcg)
{
	c->vm_alloc = vmstat("thp_collapse_alloc");
	c->vm_failed = vmstat("thp_collapse_alloc_failed");
	c->size_alloc = size_stat(size, "collapse_alloc");
	c->size_failed = size_stat(size, "collapse_alloc_failed");
	c->memcg_alloc = memcg ? file_key_value(CG_DIR "/memory.stat", "thp_collapse_alloc") : -1;
}

static void diag_deltas(const char *what, const struct counts *b, const struct counts *a, long size)
{
	ktap_diag("%s: vmstat thp_collapse_alloc %+ld, thp_collapse_alloc_failed %+ld; hugepages-%ldkB "
		  "collapse_alloc %+ld, collapse_alloc_failed %+ld; memcg thp_collapse_alloc %+ld", what,
		  a->vm_alloc - b->vm_alloc, a->vm_failed - b->vm_failed, size / 1024, a->size_alloc - b->size_alloc,
		  a->size_failed - b->size_failed, a->memcg_alloc - b->memcg_alloc);
}

static int log2_of(long v)
{
	int n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

static struct memcg_controller controller;

/*
 * This case's memory cgroup, entered; 1, or 0 (the reason in diag) when there is none.
 * memcg_leave() undoes it, whatever it returned.
 */
static int memcg_enter(void)
{
	char pid[32];

	if (!sys_exists(CG_ROOT "/cgroup.controllers") &&
	    mount("cgroup2", CG_ROOT, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		ktap_diag("cannot mount cgroup2 on " CG_ROOT ": %s", strerror(errno));
		return 0;
	}
	/* Absent controller: the child's memory.max tells. */
	memcg_controller_enable(&controller);
	if (mkdir(CG_DIR, 0755) && errno != EEXIST) {
		ktap_diag("mkdir " CG_DIR ": %s", strerror(errno));
		return 0;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (!sys_exists(CG_DIR "/memory.max") || sys_write(CG_DIR "/cgroup.procs", pid)) {
		ktap_diag("no memory cgroup to run in (" CG_DIR "/memory.max: %s)",
			  sys_exists(CG_DIR "/memory.max") ? "present" : "absent");
		return 0;
	}
	/* No swap for this cgroup: a charge must not succeed by swapping the range out. */
	if (sys_exists(CG_DIR "/memory.swap.max"))
		sys_write(CG_DIR "/memory.swap.max", "0");
	return 1;
}

static void memcg_leave(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	sys_write(CG_ROOT "/cgroup.procs", pid);
	rmdir(CG_DIR);
	memcg_controller_restore(&controller);
}

/*
 * fail_page_alloc armed: the next allocations of order >= min_order by the task(s) with
 * make-it-fail fail, times of them (fault-injection.rst: -1 for no limit).
 */
static int fail_arm(int min_order, const char *times)
{
	char order[16];
	static const char *const knobs[][2] = {
		{ "task-filter", "Y" }, { "ignore-gfp-wait", "N" }, { "ignore-gfp-highmem", "N" },
		{ "verbose", "0" }, { "interval", "1" }, { "space", "0" }, { "probability", "100" },
	};
	char path[128];

	snprintf(order, sizeof(order), "%d", min_order);
	if (sys_write(FAIL_DIR "/min-order", order) || sys_write(FAIL_DIR "/times", times))
		return -1;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), FAIL_DIR "/%s", knobs[i][0]);
		if (sys_write(path, knobs[i][1]))
			return -1;
	}
	return 0;
}

static void fail_disarm(void)
{
	sys_write(FAIL_DIR "/probability", "0");
	sys_write(FAIL_DIR "/times", "1");
	sys_write(FAIL_DIR "/min-order", "1");
}

static int make_it_fail(int pid, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/make-it-fail", pid);
	return sys_write(path, on ? "1" : "0");
}

/* A PMD range faulted in base pages, every page written. */
static char *faulted_range(size_t pmd, char **map)
{
	char *huge = pmd_range_map(pmd, map);

	if (!huge) {
		ktap_diag("mmap: %s", strerror(errno));
		return NULL;
	}
	for (size_t i = 0; i < pmd / (size_t)page_size(); i++)
		pmd_range_fill_page(huge, i);
	if (smaps_anon_huge(huge) != 0) {
		ktap_diag("the range was faulted as a THP (AnonHugePages %lld): THP is not madvise-only",
			  smaps_anon_huge(huge));
		munmap(*map, 2 * pmd);
		return NULL;
	}
	return huge;
}

/* -------------------------------------------------------------------- parts */

static void part_pmd(size_t pmd, int memcg)
{
	struct counts b, a;
	char *map, *huge = faulted_range(pmd, &map);
	int rc = -1, err = 0, thp = 0, intact = 0, counted;

	read_counts(&b, (long)pmd, memcg);
	if (huge) {
		rc = collapse_range(huge, pmd);
		err = errno;
		thp = smaps_anon_huge(huge) == (long long)pmd;
		intact = pmd_range_intact(huge, pmd, pmd / (size_t)page_size());
	}
	read_counts(&a, (long)pmd, memcg);
	if (rc)
		ktap_diag("MADV_COLLAPSE: %s", strerror(err));
	diag_deltas("one PMD collapse", &b, &a, (long)pmd);
	ktap_ok(huge && !rc && thp && intact, "MADV_COLLAPSE of one PMD range: 0, one THP, contents intact");
	counted = a.vm_alloc - b.vm_alloc == 1 && a.size_alloc - b.size_alloc == 1 && a.vm_failed == b.vm_failed &&
		  (!memcg || a.memcg_alloc - b.memcg_alloc == 1);
	ktap_ok(huge && !rc && counted, "one PMD collapse counted once: vmstat thp_collapse_alloc +1, "
		"hugepages-%zukB collapse_alloc +1%s", pmd / 1024, memcg ? ", memcg thp_collapse_alloc +1" :
		" (no memcg here)");
	if (huge)
		munmap(map, 2 * pmd);
}

static void part_mthp(size_t pmd, int memcg, int have_fail)
{
	long msize = page_size() << MTHP_ORDER;
	long nr_chunks = (long)pmd / msize;
	char mdir[128], pdir[128], path[192];
	struct thp_knob pmd_knob = { "", "" }, m_knob = { "", "" };
	struct counts b = { 0 }, a = { 0 };
	char *map = MAP_FAILED, *huge = NULL;
	int pid = khugepaged_thread_pid(), armed = 0, ok = 0;
	double start;

	size_dir(mdir, sizeof(mdir), msize);
	size_dir(pdir, sizeof(pdir), (long)pmd);
	snprintf(path, sizeof(path), "%s/enabled", mdir);
	if (pid < 0 || !sys_exists(path)) {
		const char *why = pid < 0 ? "no khugepaged thread" : "the kernel has no mTHP sizes";

		ktap_skip("khugepaged mTHP collapse counters", "%s", why);
		ktap_skip("khugepaged mTHP allocation failure counters", "%s", why);
		return;
	}
	snprintf(path, sizeof(path), "%s/enabled", pdir);
	if (thp_knob_set(&pmd_knob, path, "never"))
		ktap_diag("cannot set %s to never: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/enabled", mdir);
	if (thp_knob_set(&m_knob, path, "madvise"))
		ktap_diag("cannot set %s to madvise: %s", path, strerror(errno));
	huge = pmd_range_map(pmd, &map);
	if (!huge || madvise(huge, pmd, MADV_NOHUGEPAGE)) {
		ktap_diag("mmap/MADV_NOHUGEPAGE: %s", strerror(errno));
		huge = NULL;
		goto report;
	}
	for (size_t i = 0; i < pmd / (size_t)page_size(); i++)
		pmd_range_fill_page(huge, i);
	read_counts(&b, msize, memcg);
	if (have_fail) {
		armed = !fail_arm(MTHP_ORDER, "1") && !make_it_fail(pid, 1);
		if (!armed)
			ktap_diag("cannot arm fail_page_alloc for khugepaged: %s", strerror(errno));
	}
	if (madvise(huge, pmd, MADV_HUGEPAGE)) {
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		goto report;
	}
	/* Every chunk collapsed at least once (and, armed, the one failure seen). */
	start = now();
	do {
		usleep(20000);
		read_counts(&a, msize, memcg);
	} while ((a.size_alloc - b.size_alloc < nr_chunks || (armed && a.size_failed == b.size_failed)) &&
		 now() - start < COLLAPSE_WAIT_S);
	/* Collapses of the PTE-mapped mTHPs keep being tried: a few more passes with everything in place. */
	usleep(200000);
	read_counts(&a, msize, memcg);
	ktap_diag("metric: alloc.mthp_collapse_wait_s %.2f", now() - start);
	ok = 1;
report:
	if (armed) {
		make_it_fail(pid, 0);
		fail_disarm();
	}
	if (!ok)
		read_counts(&a, msize, memcg);
	diag_deltas("khugepaged mTHP collapse", &b, &a, msize);
	ktap_ok(ok && a.size_alloc - b.size_alloc >= nr_chunks && a.vm_alloc == b.vm_alloc &&
		(!memcg || a.memcg_alloc == b.memcg_alloc) && smaps_anon_huge(huge) == 0 &&
		pmd_range_intact(huge, pmd, pmd / (size_t)page_size()),
		"khugepaged collapses into %ldkB mTHPs: hugepages-%ldkB collapse_alloc >= +%ld, "
		"vmstat%s thp_collapse_alloc unchanged, contents intact", msize / 1024, msize / 1024, nr_chunks,
		memcg ? " and memcg" : "");
	if (!have_fail)
		ktap_skip("khugepaged mTHP allocation failure counters", "no %s (CONFIG_FAIL_PAGE_ALLOC, "
			  "CONFIG_FAULT_INJECTION_DEBUG_FS)", FAIL_DIR);
	else
		ktap_ok(ok && armed && a.size_failed - b.size_failed == 1 && a.vm_failed == b.vm_failed,
			"a failed %ldkB mTHP allocation in khugepaged: hugepages-%ldkB collapse_alloc_failed +1, "
			"vmstat thp_collapse_alloc_failed unchanged", msize / 1024, msize / 1024);
	if (map != MAP_FAILED)
		munmap(map, 2 * pmd);
	thp_knob_restore(&m_knob);
	thp_knob_restore(&pmd_knob);
}

static void part_fail(size_t pmd, int memcg, int have_fail)
{
	struct counts b, a;
	char *map = NULL, *huge;
	int rc = -1, err = 0, armed, still_small, intact;

	if (!have_fail) {
		const char *why = "no " FAIL_DIR " (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS)";

		ktap_skip("MADV_COLLAPSE with its huge page allocation failed", "%s", why);
		ktap_skip("failed huge page allocation counters", "%s", why);
		return;
	}
	huge = faulted_range(pmd, &map);
	read_counts(&b, (long)pmd, memcg);
	armed = huge && !fail_arm(log2_of((long)pmd / page_size()), "1") && !make_it_fail(getpid(), 1);
	if (armed) {
		rc = collapse_range(huge, pmd);
		err = errno;
	} else {
		ktap_diag("cannot arm fail_page_alloc: %s", strerror(errno));
	}
	make_it_fail(getpid(), 0);
	fail_disarm();
	read_counts(&a, (long)pmd, memcg);
	still_small = huge && smaps_anon_huge(huge) == 0;
	intact = huge && pmd_range_intact(huge, pmd, pmd / (size_t)page_size());
	ktap_diag("MADV_COLLAPSE returned %d (%s)", rc, rc ? strerror(err) : "success");
	diag_deltas("failed allocation", &b, &a, (long)pmd);
	ktap_ok(armed && rc == -1 && err == ENOMEM && still_small && intact,
		"MADV_COLLAPSE with its huge page allocation failed: ENOMEM, still base pages, contents intact");
	ktap_ok(armed && a.vm_failed - b.vm_failed == 1 && a.size_failed - b.size_failed == 1 &&
		a.vm_alloc == b.vm_alloc && a.size_alloc == b.size_alloc,
		"failed huge page allocation counted once: thp_collapse_alloc_failed +1, "
		"hugepages-%zukB collapse_alloc_failed +1, no collapse_alloc", pmd / 1024);
	if (huge)
		munmap(map, 2 * pmd);
}

/* The first moment (polled every 20 ms, COLLAPSE_WAIT_S at most) the VMA at addr holds a THP; -1 if never. */
static double thp_at(const char *addr, size_t pmd, double since)
{
	while (now() - since < COLLAPSE_WAIT_S) {
		if (smaps_anon_huge(addr) >= (long long)pmd)
			return now();
		usleep(20000);
	}
	return -1;
}

static void part_alloc_sleep(size_t pmd, int memcg, int have_fail)
{
	const char *row = "khugepaged waits alloc_sleep_millisecs after a failed allocation, then goes on";
	struct counts b = { 0 }, a = { 0 };
	struct thp_knob sleep_ms = { "", "" };
	char *map = MAP_FAILED, *lower = NULL;
	int pid = khugepaged_thread_pid(), armed = 0;
	double start, failed_at = -1, next_at = -1;

	if (!have_fail || pid < 0) {
		const char *why = pid < 0 ? "no khugepaged thread" : "no " FAIL_DIR;

		ktap_skip("khugepaged's failed huge page allocation counted", "%s", why);
		ktap_skip(row, "%s", why);
		return;
	}
	/* Two aligned PMD ranges in one VMA: khugepaged walks the lower one first. */
	map = mmap(NULL, 3 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map != MAP_FAILED && !madvise(map, 3 * pmd, MADV_NOHUGEPAGE)) {
		lower = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
		for (size_t i = 0; i < 2 * pmd / (size_t)page_size(); i++)
			pmd_range_fill_page(lower, i);
	}
	if (!lower) {
		ktap_diag("mmap: %s", strerror(errno));
	} else if (value_knob_set(&sleep_ms, KHP_DIR "/alloc_sleep_millisecs", ALLOC_SLEEP_MS)) {
		ktap_diag("cannot set %s: %s", sleep_ms.path, strerror(errno));
	} else if (fail_arm(log2_of((long)pmd / page_size()), "1") || make_it_fail(pid, 1)) {
		ktap_diag("cannot arm fail_page_alloc for khugepaged: %s", strerror(errno));
	} else {
		armed = 1;
		read_counts(&b, (long)pmd, memcg);
		if (madvise(map, 3 * pmd, MADV_HUGEPAGE))
			ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		start = now();
		do {
			read_counts(&a, (long)pmd, memcg);
			if (a.vm_failed > b.vm_failed)
				failed_at = now();
			else
				usleep(20000);
		} while (failed_at < 0 && now() - start < COLLAPSE_WAIT_S);
		if (failed_at > 0)
			next_at = thp_at(lower, pmd, failed_at);
		read_counts(&a, (long)pmd, memcg);
	}
	if (armed) {
		make_it_fail(pid, 0);
		fail_disarm();
	}
	/* Written back, the setting also wakes khugepaged's wait queue (the mutant's stale entry). */
	thp_knob_restore(&sleep_ms);
	ktap_diag("thp_collapse_alloc_failed %+ld, thp_collapse_alloc %+ld; the first THP %.2f s after the failure "
		  "(-1: none)", a.vm_failed - b.vm_failed, a.vm_alloc - b.vm_alloc, next_at < 0 ? -1 : next_at - failed_at);
	ktap_ok(armed && failed_at > 0 && a.vm_failed - b.vm_failed == 1,
		"khugepaged's failed huge page allocation counted: thp_collapse_alloc_failed +1");
	ktap_ok(armed && failed_at > 0 && next_at > 0 && (next_at - failed_at) * 1000 >= ALLOC_SLEEP_MIN_MS,
		"%s", row);
	if (map != MAP_FAILED)
		munmap(map, 3 * pmd);
}

/* memory.stat's value of key in the case's cgroup, -1 if absent. */
static long memcg_stat(const char *key)
{
	return file_key_value(CG_DIR "/memory.stat", key);
}

static void part_reclaim(int memcg)
{
	const char *row = "reclaim by the task itself counted in memory.stat pgscan_direct, not pgscan_khugepaged";
	long current, direct = -1, khugepaged = -1, direct_after = -1, khugepaged_after = -1;
	char why[128], max[32], *map = MAP_FAILED;

	if (!memcg) {
		ktap_skip(row, "no memory cgroup here");
		return;
	}
	if (swap_zram_on(RECLAIM_SWAP_BYTES, why, sizeof(why))) {
		ktap_skip(row, "no swap: %s", why);
		return;
	}
	if (!sys_read_long(CG_DIR "/memory.current", &current))
		snprintf(max, sizeof(max), "%ld", current + RECLAIM_HEADROOM_BYTES);
	else
		max[0] = '\0';
	if (!max[0] || (sys_exists(CG_DIR "/memory.swap.max") && sys_write(CG_DIR "/memory.swap.max", "max")) ||
	    sys_write(CG_DIR "/memory.max", max)) {
		ktap_diag("cannot set the cgroup's limits: %s", strerror(errno));
	} else {
		direct = memcg_stat("pgscan_direct");
		khugepaged = memcg_stat("pgscan_khugepaged");
		map = mmap(NULL, RECLAIM_WRITE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			ktap_diag("mmap: %s", strerror(errno));
		else
			memset(map, 0x5a, RECLAIM_WRITE_BYTES);
		direct_after = memcg_stat("pgscan_direct");
		khugepaged_after = memcg_stat("pgscan_khugepaged");
	}
	sys_write(CG_DIR "/memory.max", "max");
	if (sys_exists(CG_DIR "/memory.swap.max"))
		sys_write(CG_DIR "/memory.swap.max", "0");
	if (map != MAP_FAILED)
		munmap(map, RECLAIM_WRITE_BYTES);
	swap_zram_off();
	ktap_diag("memory.stat pgscan_direct %+ld, pgscan_khugepaged %+ld over %d MB written under %d MB of headroom",
		  direct_after - direct, khugepaged_after - khugepaged, RECLAIM_WRITE_BYTES >> 20,
		  RECLAIM_HEADROOM_BYTES >> 20);
	ktap_ok(map != MAP_FAILED && direct >= 0 && khugepaged >= 0 && direct_after > direct &&
		khugepaged_after == khugepaged, "%s", row);
}

long meminfo_kb(const char *key)
{
	return file_key_value("/proc/meminfo", key);
}

static void part_charge(size_t pmd, int memcg)
{
	char *map = NULL, *huge, max[32];
	long current, free_before = 0, free_after = 0, drop_kb = 0;
	int busy = 0, attempts = 0, intact = 0, first_err = 0;

	if (!memcg) {
		ktap_skip("MADV_COLLAPSE over memory.max", "no memory cgroup here");
		ktap_skip("failed charges leak no memory", "no memory cgroup here");
		return;
	}
	huge = faulted_range(pmd, &map);
	if (huge && (sys_read_long(CG_DIR "/memory.current", &current) ||
		     (snprintf(max, sizeof(max), "%ld", current + (long)pmd / 2), sys_write(CG_DIR "/memory.max", max)))) {
		ktap_diag("cannot set memory.max: %s", strerror(errno));
		huge = NULL;
	}
	/* One attempt first: a PMD the per-CPU lists keep afterwards is not a leak. */
	for (int i = 0; huge && i <= LEAK_ROUNDS; i++) {
		int rc = collapse_range(huge, pmd);

		if (rc == -1 && errno == EBUSY)
			busy++;
		else if (!first_err)
			first_err = rc ? errno : -1;
		attempts++;
		if (i == 0)
			free_before = meminfo_kb("MemFree");
	}
	if (huge) {
		free_after = meminfo_kb("MemFree");
		drop_kb = free_before - free_after;
		intact = smaps_anon_huge(huge) == 0 && pmd_range_intact(huge, pmd, pmd / (size_t)page_size());
		sys_write(CG_DIR "/memory.max", "max");
	}
	if (first_err)
		ktap_diag("an attempt returned %s", first_err < 0 ? "success" : strerror(first_err));
	ktap_diag("MemFree %ld kB before %d failed charges, %ld kB after", free_before, LEAK_ROUNDS, free_after);
	/* The descriptions stay the same from run to run: numalab mutate matches results by them. */
	ktap_diag("EBUSY from %d of %d attempts; MemFree dropped %ld kB", busy, attempts, drop_kb);
	ktap_ok(huge && busy == attempts && intact,
		"MADV_COLLAPSE over memory.max fails with EBUSY every time, range intact");
	ktap_ok(huge && busy == attempts && drop_kb < LEAK_SLACK_PMDS * (long)pmd / 1024,
		"%d failed charges leak no huge page: MemFree within %d PMDs", LEAK_ROUNDS, LEAK_SLACK_PMDS);
	if (huge)
		munmap(map, 2 * pmd);
}

int alloc_plan(const struct topology *t)
{
	(void)t;
	return 2 * NR_PARTS + NR_RECLAIM_ROWS;
}

void alloc_run(const struct topology *t)
{
	struct thp_knob top;
	size_t pmd = (size_t)pmd_size();
	int memcg, have_fail = sys_exists(FAIL_DIR "/probability");

	(void)t;
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	memcg = memcg_enter();
	part_pmd(pmd, memcg);
	part_fail(pmd, memcg, have_fail);
	part_charge(pmd, memcg);
	part_mthp(pmd, memcg, have_fail);
	part_alloc_sleep(pmd, memcg, have_fail);
	part_reclaim(memcg);
	memcg_leave();
	thp_knob_restore(&top);
}

static int make_it_fail_fd = -1;

/* The `times` of the last failslab_arm(), for failslab_fired(). */
static long armed_times;

int failslab_arm(int only_marked, int not_sleeping, long times)
{
	char times_text[24];
	const char *const knobs[][2] = {
		{ "task-filter", "Y" }, { "cache-filter", only_marked ? "Y" : "N" },
		{ "ignore-gfp-wait", not_sleeping ? "Y" : "N" }, { "verbose", "0" }, { "interval", "1" },
		{ "space", "0" }, { "times", times_text }, { "probability", "100" },
	};
	char path[128];

	snprintf(times_text, sizeof(times_text), "%ld", times);
	armed_times = times;

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), FAILSLAB "/%s", knobs[i][0]);
		if (sys_write(path, knobs[i][1]))
			return -1;
	}
	make_it_fail_fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	return make_it_fail_fd < 0 || write(make_it_fail_fd, "1", 1) != 1 ? -1 : 0;
}

void failslab_disarm(void)
{
	if (make_it_fail_fd >= 0) {
		if (pwrite(make_it_fail_fd, "0", 1, 0) != 1)
			ktap_diag("cannot clear make-it-fail: %s", strerror(errno));
		close(make_it_fail_fd);
		make_it_fail_fd = -1;
	}
	sys_write(FAILSLAB "/probability", "0");
	sys_write(FAILSLAB "/cache-filter", "N");
}

int failslab_fired(void)
{
	long left = -1;

	return !sys_read_long(FAILSLAB "/times", &left) && left >= 0 && left < armed_times;
}

long bind_task(int node)
{
	unsigned long mask = node < 0 ? 0 : 1UL << node;

	/* uapi <linux/mempolicy.h>: MPOL_DEFAULT 0, MPOL_BIND 2. */
	return syscall(SYS_set_mempolicy, node < 0 ? 0 : 2, node < 0 ? NULL : &mask, sizeof(mask) * CHAR_BIT + 1);
}
