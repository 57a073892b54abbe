/*
 * khugepaged's controls as transhuge.rst ("Khugepaged controls") and
 * sysfs.rst describe them.
 *
 *   files      every file of khugepaged/ reads as one decimal and a newline
 *              (sysfs.rst: "show() methods should return the number of bytes
 *              printed into the buffer"; defrag 0 or 1); each writable one
 *              takes back the whole buffer it read ("userspace processes
 *              should first read the entire file, modify the values it
 *              wishes to change, then write the entire buffer back") and
 *              reads it back the same (its own multi-digit value: a store
 *              parsing another base, max_ptes_swap_store's kstrtoul base 10
 *              -> 11, a571b2859dd1, reads "64" as 70), takes
 *              new values with the write's full count ("store() should
 *              return the number of bytes used from the buffer"), reads
 *              them back, and refuses a word that is no number with EINVAL
 *              ("If a bad value comes through, be sure to return an
 *              error"; write(2): EINVAL).  max_ptes_none takes 0 and
 *              HPAGE_PMD_NR - 1 ("For mTHP collapse, only 0 or
 *              (HPAGE_PMD_NR - 1) are supported"), scan_sleep_millisecs 0
 *              ("you can set this to 0").  Kills, in mm/khugepaged.c, the
 *              `sysfs_emit(...)` -> `+ 1` / `- 1` of every show (e.g.
 *              63153b7f15bb max_ptes_none_show: a NUL read after the
 *              newline; 5243f6321778 scan_sleep_millisecs_show: the newline
 *              lost), the stores' `return count` -> `- 1` / `+ 1`
 *              (7897719e35b4, 1c2b682ad41a: a short or long write),
 *              __sleep_millisecs_store's assignment removed (b4cbbd5dd81f),
 *              max_ptes_shared_store's `- 1` (e665d1853e47),
 *              max_ptes_swap_store's kstrtoul `- 1` (f249a48fdf5d: every
 *              value refused), max_ptes_none_store's `>` -> `>=`
 *              (bed3e22b7922: HPAGE_PMD_NR - 1 refused) and
 *              pages_to_scan_store's `-EINVAL` -> `- 1` (7a5ffe1e029d:
 *              ENFILE).
 *   start/stop "khugepaged will be automatically started when any THP size
 *              is enabled (either of the per-size anon control or the
 *              top-level control are set to "always" or "madvise"), and
 *              it'll be automatically shutdown when all THP sizes are
 *              disabled": no khugepaged thread with every THP setting at
 *              never (kills hugepage_enabled `if (hugepage_global_enabled())`
 *              -> `if (1)`, 030dc6ae9811), one again when only the PMD
 *              size's own anon control is "always" (kills anon_hpage_enabled
 *              `if (READ_ONCE(huge_anon_orders_always))` -> `if (0)`,
 *              788f9ff71fd5), and when it is "madvise" (kills its
 *              `if (READ_ONCE(huge_anon_orders_madvise))` -> `if (0)`,
 *              e64a5c197cd9).
 *   idle       with nothing to scan khugepaged sleeps: its CPU time grows by
 *              less than half the wall time (scan_sleep_millisecs 0 is
 *              the documented way "to run khugepaged at 100% utilization
 *              of one core", so any other value is not that).  Kills
 *              khugepaged_wait_work `if (hugepage_enabled())` -> `if (0)`
 *              (617d5910b039: khugepaged spins once its list is empty).
 *   wake       a new scan_sleep_millisecs applies at once, not when the sleep
 *              begun with the old one ends: transhuge.rst's "how many
 *              milliseconds to wait in khugepaged between each pass" is
 *              the setting now in the file (writing it wakes khugepaged:
 *              __sleep_millisecs_store()).  khugepaged sleeps 120 s
 *              between passes over a process it has not finished (one
 *              PMD range a pass, pages_to_scan 1), then 10 ms is
 *              written: a full scan must follow within WAKE_WAIT_S.
 *              Kills khugepaged_should_wakeup's `||` -> `&&`
 *              (93e22db923e6: the wait ends only at its timeout) and
 *              __sleep_millisecs_store's `khugepaged_sleep_expire = 0`
 *              or wake_up_interruptible() removed.
 *   shmem never shmem_enabled (global and the PMD size's) at never: "Do not
 *              allocate huge pages.  Note that madvise(..., MADV_COLLAPSE)
 *              can still cause transparent huge pages to be obtained", so
 *              khugepaged, walking the process for an anonymous
 *              MADV_HUGEPAGE range beside it, makes no huge page of a
 *              written memfd mapping: ShmemHugePages stays as it was and the
 *              mapping is not PMD-mapped.  Kills collapse_possible's
 *              `return collapse_possible_orders(...)` -> `- 1`
 *              (1949c3364587: no order allowed reads as true, and
 *              khugepaged collapses the memfd's page cache).
 *   nohugepage MADV_NOHUGEPAGE under THP always keeps a written PMD off
 *              THPs (nohugepage_row(); kills ebe74232dd92).
 * The slot, none-limit, none-default and swap-limit rows say what they check
 * above their functions.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"
#include "swap.h"

#define NR_START_STOP_ROWS 3
#define NR_START_FAILED_ROWS 1
#define NR_IDLE_ROWS 1
#define NR_SHMEM_NEVER_ROWS 1
#define NR_WAKE_ROWS 1
#define NR_NONE_LIMIT_ROWS 1
#define NR_NONE_DEFAULT_ROWS 1
#define NR_SLOT_ROWS 1
#define NR_EXIT_ROWS 1
#define NR_ENTER_ROWS 1
#define NR_STOP_COLLECTS_ROWS 1
#define NR_SWAP_LIMIT_ROWS 1
#define NR_NOHUGEPAGE_ROWS 1
#define SWAP_LIMIT_PAGES 8        /* shmem pages paged out, over max_ptes_swap 1 */
#define SLOT_CACHE "/sys/kernel/slab/mm_slot"
#define SLOT_CHILDREN 256          /* processes registered with khugepaged, then gone */
#define SLOT_AT_ONCE 8
#define SLOT_PMDS 4
#define FAIL_NTH "/proc/thread-self/fail-nth"
#define FAIL_NTH_MAX 256           /* fault-injection sites one write of enabled may meet */
#define CURSOR_PMDS 128           /* PMD ranges of the process khugepaged's cursor is to stop in */
#define CURSOR_TRIES 5
#define CURSOR_SCAN_US 1000000    /* khugepaged scanning without sleep before it is sent to sleep */
#define ENTER_CHILDREN 32         /* fresh processes that map nothing khugepaged may collapse */
#define EXIT_CHILDREN 64           /* processes registered with khugepaged and gone while it sleeps */
#define EXIT_SLEEP_MS "600000"
#define EXIT_SETTLE_US 2000000     /* for the pass that writing scan_sleep_millisecs starts */
#define MM_STRUCT_CACHE "/sys/kernel/slab/mm_struct"
#define NO_SLOT_CACHE "no " SLOT_CACHE " (a kernel that merges the caches, or SLUB without sysfs)"
#define MM_STRUCT_SLACK 2
#define WAKE_SLEEP_MS "120000"
#define WAKE_RANGES 4             /* PMD ranges of the process khugepaged is in the middle of */
#define WAKE_SETTLE_S 12          /* past a sleep begun with the default 10 s */
#define WAKE_WAIT_S 30
/*
 * A full scan ends with the last process on khugepaged's list, which this one joins last,
 * and a process leaves the list once all its VMAs were walked: one full scan is enough,
 * and the only one sure to come (with the list empty khugepaged waits).
 */
#define SHMEM_NEVER_SCANS 1
#define VALUE_MAX 32
#define BAD_VALUE "lab\n"
#define IDLE_SCAN_SLEEP_MS "100"
#define IDLE_SETTLE_S 2           /* passes enough to drop every finished mm from the list */
#define IDLE_MEASURE_S 2

/* A file of khugepaged/: read-only (the counters) or a setting. */
struct control {
	const char *name;
	int writable;
	int binary;                   /* 0 or 1 only (defrag) */
};

static const struct control controls[] = {
	{ "pages_to_scan", 1, 0 },   { "scan_sleep_millisecs", 1, 0 }, { "alloc_sleep_millisecs", 1, 0 },
	{ "max_ptes_none", 1, 0 },   { "max_ptes_swap", 1, 0 },        { "max_ptes_shared", 1, 0 },
	{ "defrag", 1, 1 },          { "pages_collapsed", 0, 0 },      { "full_scans", 0, 0 },
};
#define NR_CONTROLS (sizeof(controls) / sizeof(controls[0]))

/*
 * Bytes of AnonHugePages after writing every page of a fresh PMD-aligned PMD with THP at
 * always, the area given advice first (0: none); -1 if it cannot be mapped.
 */
static long long huge_after_advice(size_t pmd, int advice)
{
	char *map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *huge;
	long long bytes;

	if (map == MAP_FAILED)
		return -1;
	huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (advice && madvise(map, 2 * pmd, advice))
		ktap_diag("madvise %d: %s", advice, strerror(errno));
	memset(huge, 1, pmd);
	bytes = smaps_anon_huge(map);
	munmap(map, 2 * pmd);
	return bytes;
}

/*
 * madvise(2) MADV_NOHUGEPAGE: "Ensures that memory in the address range specified by addr and
 * length will not be backed by transparent hugepages".  With THP at always, a PMD written
 * whole after MADV_NOHUGEPAGE has no AnonHugePages, where the same without advice has (else a
 * SKIP: no THP to be had).  Kills mm/khugepaged.c:hugepage_madvise's `*vm_flags |=
 * VM_NOHUGEPAGE` removed (ebe74232dd92: the advice only drops VM_HUGEPAGE, and the range is
 * faulted as a THP).
 */
static void nohugepage_row(void)
{
	const char *row = "MADV_NOHUGEPAGE under THP always: the range is not backed by a THP";
	size_t pmd = (size_t)pmd_size();
	struct thp_knob top;
	long long plain, advised;

	if (thp_knob_set(&top, THP_DIR "/enabled", "always")) {
		ktap_skip(row, "cannot set THP to always: %s", strerror(errno));
		return;
	}
	plain = huge_after_advice(pmd, 0);
	advised = huge_after_advice(pmd, MADV_NOHUGEPAGE);
	thp_knob_restore(&top);
	ktap_diag("AnonHugePages of a written PMD under THP always: %lld without advice, %lld after MADV_NOHUGEPAGE",
		  plain, advised);
	if (plain <= 0)
		ktap_skip(row, "no THP even without the advice");
	else
		ktap_ok(advised == 0, "%s", row);
}

int controls_plan(void)
{
	return (int)NR_CONTROLS + 1 + NR_START_STOP_ROWS + NR_START_FAILED_ROWS + NR_IDLE_ROWS + NR_WAKE_ROWS + NR_SHMEM_NEVER_ROWS +
	       NR_NONE_LIMIT_ROWS + NR_SLOT_ROWS + NR_EXIT_ROWS + NR_ENTER_ROWS + NR_STOP_COLLECTS_ROWS + NR_NONE_DEFAULT_ROWS + NR_SWAP_LIMIT_ROWS +
	       NR_NOHUGEPAGE_ROWS;
}

/* write(2) of len bytes of val to path once: its return, or -1 with errno set. */
static ssize_t write_once(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, len);
	close(fd);
	return n;
}

/* 1 if the len bytes of buf are one decimal and a newline (0 or 1 only if binary). */
static int one_decimal_line(const char *buf, ssize_t len, int binary)
{
	ssize_t digits = 0;

	while (digits < len && isdigit((unsigned char)buf[digits]))
		digits++;
	if (binary && !(digits == 1 && (buf[0] == '0' || buf[0] == '1')))
		return 0;
	return digits > 0 && digits <= 20 && len == digits + 1 && buf[digits] == '\n';
}

/* Write "val\n"; 1 if the write took all of it and the file reads back exactly that. */
static int takes(const char *path, const char *val)
{
	char want[VALUE_MAX + 2], got[VALUE_MAX + 2];
	size_t len = (size_t)snprintf(want, sizeof(want), "%s\n", val);
	ssize_t n = write_once(path, want, len), r;

	if (n != (ssize_t)len) {
		ktap_diag("%s: write of \"%s\\n\" returned %zd of %zu%s%s", path, val, n, len, n < 0 ? ": " : "",
			  n < 0 ? strerror(errno) : "");
		return 0;
	}
	r = sys_read_bytes(path, got, sizeof(got));
	if (r != (ssize_t)len || memcmp(got, want, len)) {
		ktap_diag("%s reads %zd bytes \"%.*s\" after \"%s\" was written", path, r, r > 0 ? (int)r - 1 : 0,
			  got, val);
		return 0;
	}
	return 1;
}

#define MAX_VALUES 2

/* The values a control must take besides its own, as text: *nr of them. */
static void values_of(const struct control *c, long was, char vals[MAX_VALUES][VALUE_MAX], int *nr)
{
	long v[MAX_VALUES];
	int n = 0;

	if (c->binary) {
		v[n++] = !was;
	} else if (!strcmp(c->name, "max_ptes_none")) {
		v[n++] = 0;
		v[n++] = pmd_size() / page_size() - 1;
	} else if (!strncmp(c->name, "max_ptes_", 9)) {
		/* Under every default; a store of value - 1 would read back 4294967295 for 0. */
		v[n++] = 0;
		v[n++] = 1;
	} else {
		if (!strcmp(c->name, "scan_sleep_millisecs"))
			v[n++] = 0;
		v[n++] = was + 1;
	}
	for (int i = 0; i < n; i++)
		snprintf(vals[i], VALUE_MAX, "%ld", v[i]);
	*nr = n;
}

static void control_row(const struct control *c)
{
	char path[200], row[200], buf[VALUE_MAX + 2], vals[MAX_VALUES][VALUE_MAX];
	ssize_t len;
	int ok, nr;

	snprintf(path, sizeof(path), KHP_DIR "/%s", c->name);
	snprintf(row, sizeof(row), "khugepaged/%s reads as %s and a newline%s", c->name,
		 c->binary ? "0 or 1" : "one decimal", c->writable ? ", takes its own and new values back" : "");
	len = sys_read_bytes(path, buf, sizeof(buf));
	if (len < 0) {
		ktap_skip(row, "%s: %s", path, strerror(errno));
		return;
	}
	ok = one_decimal_line(buf, len, c->binary);
	if (!ok)
		ktap_diag("%s reads %zd bytes, not one %s and a newline: \"%.*s\"", path, len,
			  c->binary ? "0 or 1" : "decimal", (int)len, buf);
	if (ok && c->writable) {
		long was = strtol(buf, NULL, 10);
		char own[VALUE_MAX];

		/*
		 * Its own value written and read back: the multi-digit ones are the
		 * test of the number base (max_ptes_swap_store()'s kstrtoul base 10
		 * -> 11 reads "64" as 70, a571b2859dd1; 0 and 1 read the same).
		 */
		snprintf(own, sizeof(own), "%.*s", (int)len - 1, buf);
		ok = takes(path, own);
		values_of(c, was, vals, &nr);
		for (int i = 0; i < nr; i++)
			ok &= takes(path, vals[i]);
		if (write_once(path, buf, (size_t)len) != len)
			ktap_diag("cannot put %s back to %.*s", path, (int)len - 1, buf);
	}
	ktap_ok(ok, "%s", row);
}

/* Every writable control refuses a word that is no number, with EINVAL, and keeps its value. */
static void refusal_row(void)
{
	int ok = 1;

	for (size_t i = 0; i < NR_CONTROLS; i++) {
		char path[200], before[VALUE_MAX + 2], after[VALUE_MAX + 2];
		ssize_t n, b, a;

		if (!controls[i].writable)
			continue;
		snprintf(path, sizeof(path), KHP_DIR "/%s", controls[i].name);
		b = sys_read_bytes(path, before, sizeof(before));
		errno = 0;
		n = write_once(path, BAD_VALUE, strlen(BAD_VALUE));
		if (n >= 0 || errno != EINVAL) {
			ktap_diag("%s: writing \"lab\" returned %zd (%s), not -1 EINVAL", path, n, strerror(errno));
			ok = 0;
		}
		a = sys_read_bytes(path, after, sizeof(after));
		if (b < 0 || a != b || memcmp(before, after, (size_t)a)) {
			ktap_diag("%s changed on a refused write", path);
			ok = 0;
		}
	}
	ktap_ok(ok, "every writable khugepaged control refuses a word that is no number with EINVAL");
}

/* khugepaged's thread within a second of a setting (kthread_stop() returned; /proc may lag). */
static int thread_becomes(int running)
{
	for (int i = 0; i < 50; i++) {
		if ((khugepaged_thread_pid() >= 0) == running)
			return 1;
		usleep(20 * 1000);
	}
	return 0;
}

int thp_all_off(struct thp_knob k[MAX_THP_KNOBS], int *nr)
{
	DIR *d = opendir(THP_DIR);
	struct dirent *e;
	char path[200];

	*nr = 0;
	if (!thp_knob_set(&k[*nr], THP_DIR "/enabled", "never"))
		(*nr)++;
	if (!thp_knob_set(&k[*nr], THP_DIR "/shmem_enabled", "never"))
		(*nr)++;
	while (d && (e = readdir(d)) && *nr + 2 <= MAX_THP_KNOBS) {
		if (strncmp(e->d_name, "hugepages-", 10))
			continue;
		snprintf(path, sizeof(path), THP_DIR "/%.100s/enabled", e->d_name);
		if (sys_exists(path) && !thp_knob_set(&k[*nr], path, "never"))
			(*nr)++;
		snprintf(path, sizeof(path), THP_DIR "/%.100s/shmem_enabled", e->d_name);
		if (sys_exists(path) && !thp_knob_set(&k[*nr], path, "never"))
			(*nr)++;
	}
	if (d)
		closedir(d);
	return thread_becomes(0);
}

void thp_all_restore(const struct thp_knob k[MAX_THP_KNOBS], int nr)
{
	for (int i = nr - 1; i >= 0; i--)
		thp_knob_restore(&k[i]);
}

static void start_stop_rows(void)
{
	struct thp_knob knobs[MAX_THP_KNOBS], pmd_anon;
	char path[200];
	int nr, stopped, started = 0, started_madvise = 0;

	stopped = thp_all_off(knobs, &nr);
	ktap_ok(stopped, "no khugepaged thread with every THP size at never");
	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ldkB/enabled", pmd_size() / 1024);
	if (thp_knob_set(&pmd_anon, path, "always")) {
		ktap_diag("cannot set %s: %s", path, strerror(errno));
	} else {
		started = thread_becomes(1);
		thp_knob_restore(&pmd_anon);
	}
	if (!thread_becomes(0))
		ktap_diag("khugepaged did not stop with every THP size at never again");
	else if (thp_knob_set(&pmd_anon, path, "madvise"))
		ktap_diag("cannot set %s: %s", path, strerror(errno));
	else {
		started_madvise = thread_becomes(1);
		thp_knob_restore(&pmd_anon);
	}
	thp_all_restore(knobs, nr);
	if (!thread_becomes(1))
		ktap_diag("khugepaged did not come back with the THP settings restored");
	ktap_ok(started, "khugepaged runs with only the PMD size's anon control at always");
	ktap_ok(started_madvise, "khugepaged runs with only the PMD size's anon control at madvise");
}

/*
 * One write of "madvise" to enabled with its nth fault-injection site failing (fail_nth_fd,
 * /proc/thread-self/fail-nth open): 1 if that fault was injected (the file reads back 0,
 * fault-injection.rst), 0 if the write met fewer sites, -1 if fail-nth cannot be used.
 */
static int enable_failing_nth(int fail_nth_fd, int n)
{
	char text[16];
	int len = snprintf(text, sizeof(text), "%d", n), fd = open(THP_DIR "/enabled", O_WRONLY | O_CLOEXEC);
	ssize_t left;

	if (fd < 0 || pwrite(fail_nth_fd, text, (size_t)len, 0) != len) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (write(fd, "madvise", 7) < 0 && errno != ENOMEM)
		ktap_diag("enabled with site %d failing: %s", n, strerror(errno));
	left = pread(fail_nth_fd, text, sizeof(text) - 1, 0);
	if (pwrite(fail_nth_fd, "0", 1, 0) != 1)
		ktap_diag("cannot clear fail-nth: %s", strerror(errno));
	close(fd);
	if (left <= 0)
		return -1;
	text[left] = '\0';
	return atoi(text) == 0;
}

/*
 * transhuge.rst: "khugepaged will be automatically started when any THP size is enabled" -- the
 * next time too, after an enable that failed.  With every THP setting at never, "madvise" is
 * written to enabled with its nth fault-injection site failing (/proc/thread-self/fail-nth),
 * for n = 1, 2, ... until a write meets fewer than n sites; after each, "never" and then
 * "madvise" written plainly must stop and start the thread.  (Not "madvise" again at once:
 * enabled_store() starts khugepaged only when the mode changes, and a write that failed in
 * kthread_run() has already changed it, so 7.2 leaves enabled at madvise with no khugepaged
 * until the mode moves.)  Two n fail start_stop_khugepaged()'s kthread_run() (its two
 * allocations).  Kills its `khugepaged_thread = NULL` removed there (9f352e575bf4: the
 * error pointer kept, which the write of never hands to kthread_stop(): an oops).  SKIP
 * without fail-nth (CONFIG_FAULT_INJECTION).
 */
static void start_failed_row(void)
{
	const char *row = "khugepaged starts on an enable after one that failed: each fault of the write's "
			  "path, then a plain write";
	struct thp_knob knobs[MAX_THP_KNOBS];
	int fail_nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC), nr, n, injected = 1, started = 1;

	if (fail_nth_fd < 0) {
		ktap_skip(row, "no " FAIL_NTH " (CONFIG_FAULT_INJECTION): %s", strerror(errno));
		return;
	}
	if (!thp_all_off(knobs, &nr))
		ktap_diag("khugepaged still runs with every THP setting at never");
	for (n = 1; n <= FAIL_NTH_MAX && injected == 1 && started; n++) {
		injected = enable_failing_nth(fail_nth_fd, n);
		if (sys_write(THP_DIR "/enabled", "never") || !thread_becomes(0))
			ktap_diag("khugepaged did not stop with enabled at never: %s", strerror(errno));
		if (injected == 1) {
			started = !sys_write(THP_DIR "/enabled", "madvise") && thread_becomes(1);
			if (!started)
				ktap_diag("after the write with site %d failing, never, then madvise: khugepaged %s",
					  n, khugepaged_thread_pid() >= 0 ? "runs" : "does not run");
			if (sys_write(THP_DIR "/enabled", "never") || !thread_becomes(0))
				ktap_diag("khugepaged did not stop with enabled at never again");
		}
	}
	close(fail_nth_fd);
	thp_all_restore(knobs, nr);
	if (injected < 0)
		ktap_diag("cannot write or read " FAIL_NTH " at site %d: %s", n - 1, strerror(errno));
	if (started && injected == 0)
		ktap_diag("the write of enabled met %d fault-injection sites", n - 2);
	ktap_ok(started && injected == 0 && n > 2, "%s", row);
}

/* utime + stime (proc(5) fields 14 and 15) of pid in clock ticks, -1 if unreadable. */
static long cpu_ticks(int pid)
{
	long utime = proc_stat_field(pid, 14), stime = proc_stat_field(pid, 15);

	return utime < 0 || stime < 0 ? -1 : utime + stime;
}

static void idle_row(void)
{
	const char *row = "khugepaged with nothing to scan sleeps: under half a core";
	struct thp_knob sleep_ms;
	long hz = sysconf(_SC_CLK_TCK), before, after;
	int pid = khugepaged_thread_pid();

	if (pid < 0) {
		ktap_skip(row, "no khugepaged thread");
		return;
	}
	if (value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", IDLE_SCAN_SLEEP_MS)) {
		ktap_skip(row, "cannot set %s: %s", sleep_ms.path, strerror(errno));
		thp_knob_restore(&sleep_ms);
		return;
	}
	sleep(IDLE_SETTLE_S);
	before = cpu_ticks(pid);
	sleep(IDLE_MEASURE_S);
	after = cpu_ticks(pid);
	thp_knob_restore(&sleep_ms);
	ktap_diag("khugepaged used %ld of %ld clock ticks in %d s", after - before, hz * IDLE_MEASURE_S,
		  IDLE_MEASURE_S);
	ktap_ok(before >= 0 && after >= before && 2 * (after - before) < hz * IDLE_MEASURE_S, "%s", row);
}

/* Full scans from now until khugepaged has made nr more (COLLAPSE_WAIT_S at most); 1 if it did. */
static int full_scans_pass(int nr)
{
	long first, scans = -1;
	double start = now();

	if (sys_read_long(KHP_DIR "/full_scans", &first))
		return 0;
	while (now() - start < COLLAPSE_WAIT_S) {
		if (!sys_read_long(KHP_DIR "/full_scans", &scans) && scans >= first + nr)
			return 1;
		usleep(50 * 1000);
	}
	ktap_diag("khugepaged made %ld full scans in %d s", scans - first, COLLAPSE_WAIT_S);
	return 0;
}

/*
 * max_ptes_none at 0, held by khugepaged (transhuge.rst: it "specifies how many empty
 * (none/zero) pages are allowed when collapsing a group of small pages into one large
 * page"): a MADV_HUGEPAGE range with one page written is not collapsed in two full scans,
 * and the PMD size's stats/collapse_exceed_none_pte ("The number of collapse attempts that
 * failed due to exceeding the max_ptes_none threshold") rises.  Kills
 * mm/khugepaged.c:collapse_scan_pmd's `enabled_orders = collapse_possible_orders(...)` ->
 * `+ 1` (061973b172e4: an order bit more, so the scan takes KHUGEPAGED_MAX_PTES_LIMIT for
 * the limit and reads on; mthp_collapse() still refuses the PMD, uncounted).
 */
static void none_limit_row(void)
{
	const char *row = "khugepaged holds max_ptes_none 0: one page written, no THP, counted in "
			  "stats/collapse_exceed_none_pte";
	size_t pmd = (size_t)pmd_size();
	struct thp_knob none, sleep_ms, top;
	long before = size_stat((long)pmd, "collapse_exceed_none_pte"), after;
	long long vm_before = vmstat("thp_scan_exceed_none_pte"), huge_bytes;
	char *map, *huge;
	int scanned;

	if (before < 0) {
		ktap_skip(row, "the kernel has no hugepages-%zukB/stats/collapse_exceed_none_pte", pmd >> 10);
		return;
	}
	if (!(huge = pmd_range_map(pmd, &map))) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	if (value_knob_set(&none, KHP_DIR "/max_ptes_none", "0") ||
	    value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", "10") ||
	    thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set max_ptes_none, scan_sleep_millisecs or enabled: %s", strerror(errno));
	/* A base page (no THP at the fault), then the range is khugepaged's to scan. */
	if (madvise(map, 2 * pmd, MADV_NOHUGEPAGE))
		ktap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
	pmd_range_fill_page(huge, 0);
	if (madvise(map, 2 * pmd, MADV_HUGEPAGE))
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
	scanned = full_scans_pass(2);
	after = size_stat((long)pmd, "collapse_exceed_none_pte");
	huge_bytes = smaps_anon_huge(huge);
	ktap_diag("max_ptes_none 0: AnonHugePages %lld, collapse_exceed_none_pte %+ld, "
		  "thp_scan_exceed_none_pte %+lld", huge_bytes, after - before,
		  vmstat("thp_scan_exceed_none_pte") - vm_before);
	thp_knob_restore(&top);
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&none);
	munmap(map, 2 * pmd);
	ktap_ok(scanned && huge_bytes == 0 && after > before, "%s", row);
}

/*
 * max_ptes_none as the kernel booted with it (each row before puts back what it set) is one
 * of the two values mTHP collapse supports (transhuge.rst: "For mTHP collapse, only 0 or
 * (HPAGE_PMD_NR - 1) are supported"; any other "will emit a warning").  Kills
 * mm/khugepaged.c:khugepaged_init's `khugepaged_max_ptes_none = KHUGEPAGED_MAX_PTES_LIMIT`
 * -> `- 1` (676e7f3a1ac0: a default of HPAGE_PMD_NR - 2).
 */
static void none_default_row(void)
{
	const char *row = "khugepaged/max_ptes_none boots at a value mTHP collapse supports: 0 or HPAGE_PMD_NR - 1";
	long none = -1, limit = pmd_size() / page_size() - 1;

	if (sys_read_long(KHP_DIR "/max_ptes_none", &none))
		ktap_diag("cannot read max_ptes_none: %s", strerror(errno));
	ktap_diag("max_ptes_none %ld at boot, HPAGE_PMD_NR - 1 is %ld", none, limit);
	ktap_ok(none == 0 || none == limit, "%s", row);
}

/* A child's life: SLOT_PMDS PMD ranges, one page each, MADV_HUGEPAGE, then gone after ms. */
static void short_life(size_t pmd, int ms)
{
	char *map = mmap(NULL, (SLOT_PMDS + 1) * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *huge;

	if (map == MAP_FAILED)
		_exit(1);
	huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	madvise(map, (SLOT_PMDS + 1) * pmd, MADV_NOHUGEPAGE);
	for (int i = 0; i < SLOT_PMDS; i++)
		huge[(size_t)i * pmd] = 1;
	madvise(map, (SLOT_PMDS + 1) * pmd, MADV_HUGEPAGE);
	usleep((useconds_t)ms * 1000);
	_exit(0);
}

/*
 * khugepaged's list of processes to scan forgets each one that is gone: after SLOT_CHILDREN
 * short-lived processes registered with it (MADV_HUGEPAGE), SLOT_AT_ONCE at a time while it
 * scans without sleeping, and two full scans, the mm_slot cache (one object per process on
 * the list; the lab kernels do not merge slab caches) holds what it held before, and the
 * mm_struct cache no more than MM_STRUCT_SLACK more.  Both counts are taken after this task
 * ran on every CPU (mm_structs_counted()): an idle CPU keeps the mm of the last process it
 * ran as its lazy one, gone or not (8node: 6 more without).  A process gone while khugepaged scans it stays on the list until
 * khugepaged moves past it (collect_mm_slot()): 256 exits give it many chances.  The oracle
 * is no leak: a gone process leaves nothing behind in the kernel.  Kills
 * mm/khugepaged.c:collect_mm_slot's `mm_slot_free(mm_slot_cache, slot)` removed
 * (b93f4902549e: each such slot leaked) and its `mmdrop(mm)` removed (1097a13ef3e8: the
 * slot freed, the process's mm_struct never).
 */
/*
 * The mm_struct cache's objects in use once this task has run on each CPU it may, so that no
 * CPU holds a gone process's mm as its lazy one; -1 if unknown.
 */
static long mm_structs_counted(void)
{
	cpu_set_t saved, one;

	if (!sched_getaffinity(0, sizeof(saved), &saved)) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &saved))
				continue;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (!sched_setaffinity(0, sizeof(one), &one))
				usleep(1000);
		}
		sched_setaffinity(0, sizeof(saved), &saved);
	}
	return slab_objects(MM_STRUCT_CACHE);
}

int idle_main(void)
{
	char byte = 1;

	if (write(STDOUT_FILENO, &byte, 1) != 1)
		return 1;
	while (read(STDIN_FILENO, &byte, 1) > 0)
		;
	return 0;
}

/*
 * `khugepaged --idle` started ENTER_CHILDREN times at once, each with its standard input the
 * read end of one pipe (it lives until the pipe's write end closes) and its standard output
 * the write end of another (one byte once it runs): the number that said they run.
 */
static int spawn_idle(pid_t pids[ENTER_CHILDREN], int *hold_fd)
{
	char *const argv[] = { "khugepaged", IDLE_ARG, NULL };
	int hold[2], ready[2], running = 0, spawned = 0;
	posix_spawn_file_actions_t actions;
	char byte;

	*hold_fd = -1;
	if (pipe2(hold, O_CLOEXEC) || pipe2(ready, O_CLOEXEC))
		return 0;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, hold[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&actions, ready[1], STDOUT_FILENO);
	for (int i = 0; i < ENTER_CHILDREN; i++) {
		if (posix_spawn(&pids[i], "/proc/self/exe", &actions, NULL, argv, NULL))
			pids[i] = -1;
		spawned += pids[i] > 0;
	}
	posix_spawn_file_actions_destroy(&actions);
	close(hold[0]);
	close(ready[1]);
	while (running < spawned && read(ready[0], &byte, 1) == 1)
		running++;
	close(ready[0]);
	*hold_fd = hold[1];
	return running;
}

/*
 * khugepaged takes on only processes it may collapse in: transhuge.rst, under enabled
 * "madvise", "only inside MADV_HUGEPAGE regions", and khugepaged_enter_vma() enters a
 * process only for a VMA collapse_possible() allows.  With enabled at madvise and every size
 * control at never, ENTER_CHILDREN fresh processes (their program's file mappings are the
 * VMAs khugepaged_enter_vma() is asked about) add no mm_slot object while they live.  A fresh
 * process, not a fork: a child of this task, registered by earlier rows, would be entered at
 * fork.  Kills khugepaged_enter_vma's `&& collapse_possible(...)` -> `||` (db2e705e78b3:
 * every new process entered while any THP size is enabled).
 */
static void enter_row(void)
{
	const char *row = "khugepaged takes on no process that has nothing it may collapse: no mm_slot "
			  "object for fresh processes under enabled madvise";
	struct thp_knob knobs[MAX_THP_KNOBS], top = { 0 };
	pid_t pids[ENTER_CHILDREN];
	long before = slab_objects(SLOT_CACHE), after = -1;
	int nr, running = 0, hold_fd = -1;

	if (before < 0) {
		ktap_skip(row, NO_SLOT_CACHE);
		return;
	}
	thp_all_off(knobs, &nr);
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set enabled to madvise: %s", strerror(errno));
	before = slab_objects(SLOT_CACHE);
	running = spawn_idle(pids, &hold_fd);
	after = slab_objects(SLOT_CACHE);
	if (hold_fd >= 0)
		close(hold_fd);
	for (int i = 0; i < ENTER_CHILDREN; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	thp_knob_restore(&top);
	thp_all_restore(knobs, nr);
	ktap_diag("mm_slot objects: %ld before, %ld with %d fresh processes running", before, after, running);
	ktap_ok(running == ENTER_CHILDREN && after - before <= 1, "%s", row);
}

/*
 * A process's exit takes it off khugepaged's list at once, not at khugepaged's next pass:
 * with khugepaged asleep (scan_sleep_millisecs EXIT_SLEEP_MS, once the pass that writing it
 * starts is over; this task registered first, so khugepaged has work and sleeps its full
 * time), EXIT_CHILDREN processes registered with it (MADV_HUGEPAGE) and gone leave the
 * mm_slot cache as it was.  __khugepaged_exit() frees a gone process's slot, and drops the
 * mm_struct it held, unless khugepaged is on that very slot.  The oracle is the slot row's:
 * a gone process leaves nothing behind, here without waiting for khugepaged, which at the
 * default 10 s a pass would otherwise hold every mm that exited meanwhile.  Kills
 * __khugepaged_exit's `slot = mm_slot_lookup(mm_slots_hash, mm)` removed (71b4f90d460f:
 * each slot, and the mm_struct it holds, left until a pass reaches it).
 */
static void exit_row(void)
{
	const char *row = "a process that exits leaves khugepaged's list at once: no mm_slot object left while "
			  "khugepaged sleeps";
	size_t pmd = (size_t)pmd_size();
	struct thp_knob sleep_ms = { 0 }, top = { 0 };
	long before = -1, after = -1;
	char *own = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int exited = 0;

	if (slab_objects(SLOT_CACHE) < 0 || own == MAP_FAILED) {
		ktap_skip(row, NO_SLOT_CACHE ", or no mapping: %s", strerror(errno));
		if (own != MAP_FAILED)
			munmap(own, 2 * pmd);
		return;
	}
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise") || madvise(own, 2 * pmd, MADV_HUGEPAGE) ||
	    value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", EXIT_SLEEP_MS))
		ktap_diag("cannot set enabled, MADV_HUGEPAGE or scan_sleep_millisecs: %s", strerror(errno));
	usleep(EXIT_SETTLE_US);
	before = slab_objects(SLOT_CACHE);
	for (int i = 0; i < EXIT_CHILDREN; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0)
			short_life(pmd, 0);
		exited += pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
	}
	after = slab_objects(SLOT_CACHE);
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&top);
	munmap(own, 2 * pmd);
	ktap_diag("mm_slot objects: %ld before, %ld after %d processes registered and gone", before, after, exited);
	ktap_ok(exited == EXIT_CHILDREN && before >= 0 && after - before <= 1, "%s", row);
}

/*
 * A child of CURSOR_PMDS PMD ranges (one page each; MAP_NORESERVE, as LoongArch's 32M PMDs
 * make them 4 GB), registered with MADV_HUGEPAGE, alive until hold closes: its pid once it
 * said it is ready, or -1 (then it is gone).
 */
static pid_t cursor_child(size_t pmd, int *hold_fd)
{
	int hold[2], ready[2];
	char byte = 0;
	pid_t pid;

	*hold_fd = -1;
	if (pipe2(hold, O_CLOEXEC))
		return -1;
	if (pipe2(ready, O_CLOEXEC)) {
		close(hold[0]);
		close(hold[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		size_t len = (CURSOR_PMDS + 1) * pmd;
		char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		char *huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));

		close(hold[1]);
		close(ready[0]);
		if (map == MAP_FAILED)
			_exit(1);
		madvise(map, len, MADV_NOHUGEPAGE);
		for (size_t i = 0; i < CURSOR_PMDS; i++)
			huge[i * pmd] = 1;
		if (madvise(map, len, MADV_HUGEPAGE) || write(ready[1], &byte, 1) != 1)
			_exit(1);
		while (read(hold[0], &byte, 1) > 0)
			;
		_exit(0);
	}
	close(hold[0]);
	close(ready[1]);
	if (pid > 0 && read(ready[0], &byte, 1) != 1) {
		ktap_diag("the cursor child did not map and register its ranges");
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	if (pid < 0)
		close(hold[1]);
	else
		*hold_fd = hold[1];
	return pid;
}

/*
 * khugepaged, when it stops, lets go of the process its scan stood in: a process that exits
 * while khugepaged's cursor is on its slot keeps the slot (__khugepaged_exit() leaves it to
 * khugepaged), and khugepaged's thread, stopping, frees it (collect_mm_slot() on the way
 * out).  The child's slot is seen come (the count one up once it runs) before it is relied on.  khugepaged scans without sleep, one PMD a pass, a child of CURSOR_PMDS ranges of
 * one page each that holds nearly all it has to scan: with the MTHP_ORDER size at madvise it
 * reads all of a range's PTEs (for the mTHP bitmap; PMD-only scans stop at the first none
 * PTE) and at max_ptes_none 0 collapses nothing.  Then it is sent to sleep and the child
 * exits.  If the mm_slot count did not drop (so the cursor was
 * on the child's slot; else the try is repeated, CURSOR_TRIES times), every THP setting goes
 * to never: with the thread gone the count must drop by that one slot.  The oracle is the
 * slot row's: a gone process leaves nothing behind.  Kills khugepaged()'s `slot =
 * khugepaged_scan.mm_slot` removed (f2659375b158: the slot and its mm_struct left on the
 * list while khugepaged is stopped).
 */
static void stop_collects_row(void)
{
	const char *row = "khugepaged, stopping, frees the slot of a process that exited while its scan stood there";
	size_t pmd = (size_t)pmd_size();
	struct thp_knob top = { 0 }, mthp = { 0 }, none = { 0 }, pages = { 0 }, sleep_ms = { 0 };
	struct thp_knob knobs[MAX_THP_KNOBS];
	char one_pmd[24], mthp_path[160];
	long spawned_at = -1, before = -1, at_exit = -1, stopped = -1;
	int tries = 0, held = 0, nr = 0, hold_fd;

	if (slab_objects(SLOT_CACHE) < 0) {
		ktap_skip(row, NO_SLOT_CACHE);
		return;
	}
	snprintf(one_pmd, sizeof(one_pmd), "%ld", pmd_size() / page_size());
	snprintf(mthp_path, sizeof(mthp_path), THP_DIR "/hugepages-%ldkB/enabled", (page_size() << MTHP_ORDER) / 1024);
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise") || thp_knob_set(&mthp, mthp_path, "madvise") ||
	    value_knob_set(&none, KHP_DIR "/max_ptes_none", "0") ||
	    value_knob_set(&pages, KHP_DIR "/pages_to_scan", one_pmd))
		ktap_diag("cannot set enabled, %s, max_ptes_none or pages_to_scan: %s", mthp_path, strerror(errno));
	for (; tries < CURSOR_TRIES && !held; tries++) {
		pid_t pid;

		spawned_at = slab_objects(SLOT_CACHE);
		if ((pid = cursor_child(pmd, &hold_fd)) < 0)
			break;
		if (value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", "0"))
			ktap_diag("cannot set scan_sleep_millisecs: %s", strerror(errno));
		usleep(CURSOR_SCAN_US);
		thp_knob_restore(&sleep_ms);
		if (value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", EXIT_SLEEP_MS))
			ktap_diag("cannot set scan_sleep_millisecs: %s", strerror(errno));
		usleep(EXIT_SETTLE_US);
		before = slab_objects(SLOT_CACHE);
		close(hold_fd);
		waitpid(pid, NULL, 0);
		at_exit = slab_objects(SLOT_CACHE);
		held = before == spawned_at + 1 && at_exit == before;
		if (held) {
			thp_all_off(knobs, &nr);
			stopped = slab_objects(SLOT_CACHE);
		}
		thp_knob_restore(&sleep_ms);
	}
	thp_all_restore(knobs, nr);
	thp_knob_restore(&pages);
	thp_knob_restore(&none);
	thp_knob_restore(&mthp);
	thp_knob_restore(&top);
	ktap_diag("mm_slot objects: %ld before the child, %ld with it, %ld after its exit, %ld with khugepaged "
		  "stopped (%d tries)", spawned_at, before, at_exit, stopped, tries);
	if (!held)
		ktap_skip(row, "khugepaged's cursor was never on the child's slot when it exited");
	else
		ktap_ok(stopped == at_exit - 1, "%s", row);
}

static void slot_row(void)
{
	const char *row = "khugepaged forgets processes that are gone: its mm_slot objects, and the mm_structs "
			  "they held, back to what they were";
	size_t pmd = (size_t)pmd_size();
	struct thp_knob sleep_ms = { 0 }, top = { 0 };
	long before = slab_objects(SLOT_CACHE), after, mm_before = mm_structs_counted(), mm_after;
	int spawned = 0, scanned;

	if (before < 0 || mm_before < 0) {
		ktap_skip(row, "no " SLOT_CACHE " or " MM_STRUCT_CACHE " (a kernel that merges the caches, or SLUB "
			  "without sysfs)");
		return;
	}
	if (value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", "0") ||
	    thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set scan_sleep_millisecs or enabled: %s", strerror(errno));
	for (int i = 0; i < SLOT_CHILDREN; i++) {
		pid_t pid;

		if (i >= SLOT_AT_ONCE)
			wait(NULL);
		pid = fork();
		if (pid == 0)
			short_life(pmd, i % 7 * 5);
		spawned += pid > 0;
	}
	while (wait(NULL) > 0)
		;
	scanned = full_scans_pass(2);
	after = slab_objects(SLOT_CACHE);
	mm_after = mm_structs_counted();
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&top);
	ktap_diag("mm_slot objects: %ld before, %ld after %d processes; mm_struct objects: %ld before, %ld after",
		  before, after, spawned, mm_before, mm_after);
	ktap_ok(scanned && spawned == SLOT_CHILDREN && after == before && mm_after - mm_before <= MM_STRUCT_SLACK,
		"%s", row);
}

static void wake_row(void)
{
	const char *row = "a new scan_sleep_millisecs applies at once: a full scan follows 10 ms written "
			  "over 120000";
	size_t pmd = (size_t)pmd_size(), len = (WAKE_RANGES + 1) * pmd;
	struct thp_knob sleep_ms = { 0 }, pages = { 0 }, none = { 0 };
	char *map, *range;
	long first = -1, scans = -1;
	double written = 0;
	int ok = 0;

	if (khugepaged_thread_pid() < 0) {
		ktap_skip(row, "no khugepaged thread");
		return;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		ktap_skip(row, "mmap of %zu bytes: %s", len, strerror(errno));
		return;
	}
	range = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	/* One base page a range (no THP at the fault), nothing to collapse (max_ptes_none 0). */
	if (value_knob_set(&pages, KHP_DIR "/pages_to_scan", "1") ||
	    value_knob_set(&none, KHP_DIR "/max_ptes_none", "0") ||
	    value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", WAKE_SLEEP_MS) ||
	    madvise(range, WAKE_RANGES * pmd, MADV_NOHUGEPAGE)) {
		ktap_diag("cannot set khugepaged's controls or MADV_NOHUGEPAGE: %s", strerror(errno));
	} else {
		for (size_t i = 0; i < WAKE_RANGES; i++)
			range[i * pmd] = 1;
		if (madvise(range, WAKE_RANGES * pmd, MADV_HUGEPAGE))
			ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		sleep(WAKE_SETTLE_S);
		if (!sys_read_long(KHP_DIR "/full_scans", &first) &&
		    !sys_write(KHP_DIR "/scan_sleep_millisecs", "10")) {
			written = now();
			while (now() - written < WAKE_WAIT_S && !ok) {
				ok = !sys_read_long(KHP_DIR "/full_scans", &scans) && scans > first;
				usleep(50 * 1000);
			}
		}
		ktap_diag("full_scans %ld -> %ld in %.1f s after 10 ms was written over " WAKE_SLEEP_MS,
			  first, scans, now() - written);
	}
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&none);
	thp_knob_restore(&pages);
	munmap(map, len);
	ktap_ok(ok, "%s", row);
}

static void shmem_never_row(void)
{
	const char *row = "khugepaged makes no shmem huge page with shmem_enabled never";
	size_t pmd = (size_t)pmd_size(), page = (size_t)page_size();
	struct thp_knob top, size, sleep_ms;
	char path[200], *anon_map = NULL, *anon, *map = MAP_FAILED, *huge;
	long before = meminfo_kb("ShmemHugePages"), after = -1;
	long long pmd_mapped = -1;
	int fd = memfd_create("numalab-shmem-never", 0), ok = 0, scanned = 0, top_set, size_set;

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ldkB/shmem_enabled", pmd_size() / 1024);
	top_set = !thp_knob_set(&top, THP_DIR "/shmem_enabled", "never");
	size_set = sys_exists(path) && !thp_knob_set(&size, path, "never");
	if (value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", "10"))
		ktap_diag("cannot set scan_sleep_millisecs: %s", strerror(errno));
	if (fd < 0 || ftruncate(fd, (off_t)(2 * pmd)) ||
	    (map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		ktap_diag("memfd: %s", strerror(errno));
	} else if (!top_set || !(anon = pmd_range_map(pmd, &anon_map))) {
		ktap_diag("cannot set shmem_enabled or map the anonymous range: %s", strerror(errno));
	} else {
		huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
		for (size_t i = 0; i < 2 * pmd; i += page)
			map[i] = 1;
		/* Then the anonymous range puts the process on khugepaged's list (anon_vma first). */
		anon[0] = 1;
		if (madvise(anon_map, 2 * pmd, MADV_HUGEPAGE))
			ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		scanned = full_scans_pass(SHMEM_NEVER_SCANS);
		for (size_t i = 0; i < pmd; i += page)
			huge[i]++;
		after = meminfo_kb("ShmemHugePages");
		pmd_mapped = smaps_bytes_at(huge, "ShmemPmdMapped");
		ktap_diag("ShmemHugePages %ld kB before, %ld kB after %d full scan; ShmemPmdMapped %lld", before,
			  after, SHMEM_NEVER_SCANS, pmd_mapped);
		ok = scanned && before >= 0 && after == before && pmd_mapped == 0;
	}
	if (map != MAP_FAILED)
		munmap(map, 2 * pmd);
	if (anon_map)
		munmap(anon_map, 2 * pmd);
	if (fd >= 0)
		close(fd);
	thp_knob_restore(&sleep_ms);
	if (size_set)
		thp_knob_restore(&size);
	if (top_set)
		thp_knob_restore(&top);
	ktap_ok(ok, "%s", row);
}

/*
 * max_ptes_swap held for shmem too: transhuge.rst, "max_ptes_swap specifies how many
 * pages can be brought in from swap when collapsing a group of pages into a transparent
 * huge page".  A memfd's PMD written in base pages, SWAP_LIMIT_PAGES of them paged out to
 * zram, max_ptes_swap 1, then shmem_enabled advise and MADV_HUGEPAGE: after
 * thp_scan_exceed_swap_pte rises and two more full scans, the pages are still on swap
 * (smaps Swap) and the range not PMD-mapped.  Kills mm/khugepaged.c:collapse_scan_file's
 * `result = SCAN_EXCEED_SWAP_PTE` removed (e0986bc2f70e: the scan stops but reports
 * success, and khugepaged collapses the range, swapping every page in).  SKIP without zram.
 */
static void swap_limit_row(void)
{
	const char *row = "khugepaged holds max_ptes_swap for shmem: a range with more pages on swap stays as it is";
	size_t pmd = (size_t)pmd_size(), ps = (size_t)page_size(), stride = pmd / ps / SWAP_LIMIT_PAGES;
	struct thp_knob top, size, swap_max, none, sleep_ms;
	char path[200], why[128], limit[32], *map = NULL, *huge = NULL;
	long long vm_before = vmstat("thp_scan_exceed_swap_pte"), swapped = -1, swapped_after = -1, pmd_mapped = -1;
	int fd = -1, ok = 0, counted = 0, size_set = 0;
	double start;

	if (swap_zram_on(64 << 20, why, sizeof(why))) {
		ktap_skip(row, "no swap: %s", why);
		return;
	}
	snprintf(path, sizeof(path), THP_DIR "/hugepages-%zukB/shmem_enabled", pmd >> 10);
	snprintf(limit, sizeof(limit), "%zu", pmd / ps - 1);
	if (thp_knob_set(&top, THP_DIR "/shmem_enabled", "never") ||
	    value_knob_set(&swap_max, KHP_DIR "/max_ptes_swap", "1") ||
	    value_knob_set(&none, KHP_DIR "/max_ptes_none", limit) ||
	    value_knob_set(&sleep_ms, KHP_DIR "/scan_sleep_millisecs", "10"))
		ktap_diag("cannot set shmem_enabled or a khugepaged control: %s", strerror(errno));
	size_set = sys_exists(path) && !thp_knob_set(&size, path, "inherit");
	fd = memfd_create("numalab-swap-limit", 0);
	if (fd < 0 || ftruncate(fd, (off_t)pmd) || !(huge = shmem_range_map(fd, pmd, &map))) {
		ktap_diag("memfd: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < pmd / ps; i++)
		pmd_range_fill_page(huge, i);
	for (size_t i = stride / 2; i < pmd / ps; i += stride)
		if (madvise(huge + i * ps, ps, MADV_PAGEOUT))
			ktap_diag("MADV_PAGEOUT: %s", strerror(errno));
	swapped = smaps_bytes_at(huge, "Swap");
	if (swapped < (long long)(2 * ps)) {
		ktap_diag("only %lld bytes of the range went to swap", swapped);
		goto out;
	}
	if (sys_write(THP_DIR "/shmem_enabled", "advise") || madvise(map, 2 * pmd, MADV_HUGEPAGE)) {
		ktap_diag("shmem_enabled advise / MADV_HUGEPAGE: %s", strerror(errno));
		goto out;
	}
	start = now();
	while (!(counted = vmstat("thp_scan_exceed_swap_pte") > vm_before) && now() - start < COLLAPSE_WAIT_S)
		usleep(20 * 1000);
	ok = counted && full_scans_pass(2);
	swapped_after = smaps_bytes_at(huge, "Swap");
	pmd_mapped = smaps_bytes_at(huge, "ShmemPmdMapped");
	ok = ok && swapped_after == swapped && pmd_mapped == 0;
out:
	ktap_diag("shmem on swap: %lld bytes before khugepaged, %lld after; ShmemPmdMapped %lld; "
		  "thp_scan_exceed_swap_pte %+lld", swapped, swapped_after, pmd_mapped,
		  vmstat("thp_scan_exceed_swap_pte") - vm_before);
	if (map)
		munmap(map, 2 * pmd);
	if (fd >= 0)
		close(fd);
	thp_knob_restore(&sleep_ms);
	thp_knob_restore(&none);
	thp_knob_restore(&swap_max);
	if (size_set)
		thp_knob_restore(&size);
	thp_knob_restore(&top);
	swap_zram_off();
	ktap_ok(ok, "%s", row);
}

void controls_run(void)
{
	none_default_row();
	for (size_t i = 0; i < NR_CONTROLS; i++)
		control_row(&controls[i]);
	refusal_row();
	start_stop_rows();
	start_failed_row();
	idle_row();
	wake_row();
	shmem_never_row();
	none_limit_row();
	swap_limit_row();
	nohugepage_row();
	enter_row();
	exit_row();
	stop_collects_row();
	slot_row();
}
