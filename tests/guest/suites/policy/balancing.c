/*
 * Automatic NUMA balancing and the policies that allow it.
 *
 * sysctl/kernel.rst numa_balancing: "Memory is moved automatically to
 * nodes that access it often" (NUMA_BALANCING_NORMAL, 1), by "periodically
 * unmapping pages and later trapping a page fault.  At the time of the page
 * fault, it is determined if the data being accessed should be migrated to
 * a local memory node."  set_mempolicy(2) MPOL_F_NUMA_BALANCING: "When mode
 * is MPOL_BIND, enable the kernel NUMA balancing for the task"; so without
 * it a BIND task's pages are not moved by it.
 *
 * Pinned to a CPU of the first memory node with CPUs (local), the test puts
 * pages on the last memory node (far) and writes them without a pause; the
 * pages must come to local within BALANCE_S seconds, or (the BIND task
 * without the flag) still be on far after STAY_S.  The THP rows move a PMD
 * folio (do_huge_pmd_numa_page()), or leave one that is local already:
 * there the data is not "migrated to a local memory node", it is on one.
 * Either is a SKIP where no THP can be had.
 *
 * The hinting fault also decides whether the PMD it restores may be
 * writable: can_change_pmd_writable(), which mprotect()'s change_huge_pmd()
 * asks too.  fork(2): "memory writes [...] performed by one of the
 * processes do not affect the other": a THP shared with a child after fork
 * must stay copy-on-write through an mprotect(PROT_READ) /
 * mprotect(PROT_READ|PROT_WRITE) round trip.  (Through a hinting fault it
 * cannot be tried: the scanner skips shared copy-on-write folios.)
 * change_huge_pmd() also write-protects a THP for userfaultfd:
 * admin-guide/mm/userfaultfd.rst, "Write Protect Notifications": after
 * UFFDIO_WRITEPROTECT with UFFDIO_WRITEPROTECT_MODE_WP, a write is a fault
 * the uffd reader sees with UFFD_PAGEFAULT_FLAG_WP, and the writer goes on
 * once the range is unprotected.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "numab.h"
#include "policy.h"

#define BALANCE_PAGES 32
#define BALANCE_S 30.0
#define STAY_S 6.0
#define SLICE_S 0.2
#define COW_OLD 0x11
#define COW_NEW 0x22
#define UFFD_WAIT_MS 10000
#define SCAN_PASSES 3               /* the THP's VMA is scanned in the first two */
#define SPIN_PAGES 16                /* what the task writes while a THP lies untouched */
#define SPLICE_PAGES 16            /* of a THP, in a pipe: its default capacity */
#define THP_LOOKS 3              /* base pages of a THP whose node is asked: first, middle, last */

/* The first page of each BALANCE_PAGES region (or the THP's looks): all on node? */
static int region_on(char *base, size_t len, size_t nr_looks, int node)
{
	int status[BALANCE_PAGES];
	void *pages[BALANCE_PAGES];
	size_t step = len / nr_looks;

	for (size_t i = 0; i < nr_looks; i++) {
		pages[i] = base + i * step + (i == nr_looks - 1 ? step - (size_t)page_size() : 0);
		status[i] = -1;
	}
	if (p_move_pages(nr_looks, pages, NULL, status, 0))
		return 0;
	for (size_t i = 0; i < nr_looks; i++)
		if (status[i] != node)
			return 0;
	return 1;
}

/*
 * Write base's len bytes from local until they are all on local (want_moved) or for STAY_S
 * (!want_moved): 1 if they ended where wanted.  A diag says how long it took or where they are.
 */
static int balance(char *base, size_t len, size_t nr_looks, int local, int far, int want_moved,
		   const char *what)
{
	double t0 = numab_now(), limit = want_moved ? BALANCE_S : STAY_S;
	int moved = 0;

	while (!moved && numab_now() - t0 < limit) {
		numab_touch_for(base, len, (size_t)page_size(), SLICE_S);
		moved = region_on(base, len, nr_looks, local);
	}
	if (moved)
		ktap_diag("%s: on node %d after %.1f s (AnonHugePages %lld)", what, local,
			  numab_now() - t0, smaps_anon_huge(base));
	else
		ktap_diag("%s: %s on node %d after %.1f s", what, region_on(base, len, nr_looks, far) ?
			  "all still" : "not all", far, numab_now() - t0);
	return moved == want_moved && (want_moved || region_on(base, len, nr_looks, far));
}

/* BALANCE_PAGES pages on far, balanced under task policy mode/mask (MPOL_DEFAULT: none). */
static int pages_row(int local, int far, int mode, unsigned long mask, int want_moved, const char *what)
{
	size_t len = BALANCE_PAGES * (size_t)page_size();
	char *base = pages_on(far, BALANCE_PAGES);
	int ok = base != NULL;

	if (ok && mode != MPOL_DEFAULT && set_task(mode, mask)) {
		ktap_diag("%s: set_mempolicy: %s", what, strerror(errno));
		ok = 0;
	}
	ok = ok && balance(base, len, BALANCE_PAGES, local, far, want_moved, what);
	reset_task();
	unmap_pages(base, BALANCE_PAGES);
	return ok;
}

/* The mm's NUMA scan passes so far (mm->numa_scan_seq); -1 if unreadable. */
static long scan_passes(void)
{
	struct numab_stats s;

	return numab_stats(&s) ? -1 : s.scan_seq;
}

/*
 * A THP on far that nothing touches, while the task writes SPIN_PAGES other pages until the
 * scanner has finished SCAN_PASSES passes over the address space (BALANCE_S at most; it runs
 * from the task's ticks, so a loaded host slows it): 1 if numa_huge_pte_updates rose by
 * exactly 1, 0 if not, -1 without a THP.  cgroup-v2.rst: numa_pte_updates is the "Number of
 * pages whose page table entries are modified by NUMA balancing to produce NUMA hinting faults
 * on access"; a THP's PMD is modified once, and later passes find it PROT_NONE already (and a
 * VMA the task does not touch is scanned only in its first two passes anyway,
 * vma_is_accessed()).  A fixed 6 s instead saw no pass at all once in 15 runs with three
 * guests on the 2 cores.  The count starts before the THP is faulted: begun after the other
 * pages faulted in, it misses a pass that marked the THP meanwhile (+0, once in 12 runs on
 * cxl under load).
 */
static int thp_scanned_once(int far)
{
	long long scanned = vmstat("numa_huge_pte_updates"), delta;
	long passes = scan_passes(), done = 0;
	char *map, *huge = thp_on(far, &map);
	char *spin = pages_on(far, SPIN_PAGES);
	double t0 = numab_now();
	int ok = -1;

	if (huge && spin) {
		while ((done = scan_passes() - passes) < SCAN_PASSES && numab_now() - t0 < BALANCE_S)
			numab_touch_for(spin, SPIN_PAGES * (size_t)page_size(), (size_t)page_size(), SLICE_S);
		delta = vmstat("numa_huge_pte_updates") - scanned;
		ok = delta == 1;
		if (!ok)
			ktap_diag("numa_huge_pte_updates %+lld over %ld scan passes (%.1f s) for one untouched THP",
				  delta, done, numab_now() - t0);
	}
	if (spin)
		unmap_pages(spin, SPIN_PAGES);
	if (map)
		munmap(map, 2 * (size_t)pmd_size());
	return ok;
}

/* A second thread that waits on a pipe: the process is no longer single-threaded. */
static void *idle_thread(void *arg)
{
	char c;

	return (void *)(long)read(*(int *)arg, &c, 1);
}

/*
 * A THP on local, written from local until the scanner has made a THP's PMD a hinting fault
 * (numa_huge_pte_updates) and STAY_S after: 1 if it is still a THP on local and no THP migrated,
 * 0 if not, -1 without a THP.  Its writes follow every scan at once, so the hinting fault is
 * taken on it.  The scanner leaves alone a folio on the node a single-threaded process runs on
 * (folio_can_map_prot_numa()), so a second thread idles meanwhile.
 */
static int thp_stays(int local)
{
	char *map, *huge = thp_on(local, &map);
	size_t pmd = (size_t)pmd_size();
	long long migrated = vmstat("thp_migration_success"), scanned = vmstat("numa_huge_pte_updates");
	double t0 = numab_now();
	int hinted, ok, go[2];
	pthread_t idler;

	if (!huge) {
		if (map)
			munmap(map, 2 * pmd);
		return -1;
	}
	if (pipe(go)) {
		ktap_diag("pipe: %s", strerror(errno));
		munmap(map, 2 * pmd);
		return 0;
	}
	errno = pthread_create(&idler, NULL, idle_thread, &go[0]);
	if (errno) {
		ktap_diag("no second thread: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		munmap(map, 2 * pmd);
		return 0;
	}
	while (!(hinted = vmstat("numa_huge_pte_updates") > scanned) && numab_now() - t0 < BALANCE_S)
		numab_touch_for(huge, pmd, (size_t)page_size(), SLICE_S);
	numab_touch_for(huge, pmd, (size_t)page_size(), STAY_S);
	ok = hinted && region_on(huge, pmd, THP_LOOKS, local) && smaps_anon_huge(map) == (long long)pmd &&
	     vmstat("thp_migration_success") == migrated;
	if (!ok)
		ktap_diag("THP on node %d: %s; %s on it after %.1f s, AnonHugePages %lld, "
			  "thp_migration_success %+lld", local, hinted ? "its PMD scanned" :
			  "no THP's PMD scanned", region_on(huge, pmd, THP_LOOKS, local) ? "still" : "not",
			  numab_now() - t0, smaps_anon_huge(map), vmstat("thp_migration_success") - migrated);
	if (write(go[1], "x", 1) != 1 || pthread_join(idler, NULL))
		ktap_diag("the idle thread did not end");
	close(go[0]);
	close(go[1]);
	munmap(map, 2 * pmd);
	return ok;
}

/*
 * A THP on node, the process's alone, mprotect()ed PROT_NONE and back to read-write: 1 if the
 * next write takes no fault (this thread's ru_minflt unchanged), 0 if not, -1 without a THP.
 * mprotect() makes an exclusive anonymous PMD writable at once (change_huge_pmd()'s
 * MM_CP_TRY_CHANGE_WRITABLE; "mm/mprotect: try avoiding write faults for exclusive anonymous
 * pages when changing protection", v5.19): getrusage(2)'s ru_minflt, "page faults serviced
 * without any I/O activity", stays.  A NUMA hinting fault in between (the scanner runs) spoils
 * a try: up to three.
 */
static int thp_mprotect_writable(int node)
{
	char *map, *huge = thp_on(node, &map);
	size_t pmd = (size_t)pmd_size();
	long faults, hints;
	int ok = 0;

	if (!huge) {
		if (map)
			munmap(map, 2 * pmd);
		return -1;
	}
	memset(huge, COW_OLD, pmd);
	for (int tries = 0; tries < 3; tries++) {
		if (mprotect(huge, pmd, PROT_NONE) || mprotect(huge, pmd, PROT_READ | PROT_WRITE)) {
			ktap_diag("mprotect: %s", strerror(errno));
			break;
		}
		hints = vmstat("numa_hint_faults");
		faults = minor_faults();
		huge[pmd / 2] = COW_NEW;
		faults = minor_faults() - faults;
		if (vmstat("numa_hint_faults") != hints)
			continue;
		ok = faults == 0;
		if (!ok)
			ktap_diag("the write after mprotect(PROT_READ|PROT_WRITE) took %ld faults", faults);
		break;
	}
	munmap(map, 2 * pmd);
	return ok;
}

/*
 * A THP on node written with COW_OLD and shared with a forked child, mprotect()ed read-only and
 * back; then the parent writes COW_NEW: 1 if the child still reads COW_OLD, 0 if not, -1
 * without a THP.
 */
static int thp_cow(int node)
{
	char *map, *huge = thp_on(node, &map);
	size_t pmd = (size_t)pmd_size();
	int go[2], status = -1;
	pid_t child;
	char c = 0;

	if (!huge || pipe(go)) {
		if (map)
			munmap(map, 2 * pmd);
		return huge ? 0 : -1;
	}
	memset(huge, COW_OLD, pmd);
	child = fork();
	if (child == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(huge[0] == COW_OLD && huge[pmd - 1] == COW_OLD ? 0 : 1);
	}
	close(go[0]);
	if (mprotect(huge, pmd, PROT_READ) || mprotect(huge, pmd, PROT_READ | PROT_WRITE))
		ktap_diag("mprotect: %s", strerror(errno));
	huge[0] = COW_NEW;
	huge[pmd - 1] = COW_NEW;
	if (write(go[1], "x", 1) != 1 || child < 0 || waitpid(child, &status, 0) != child)
		status = -1;
	close(go[1]);
	if (status)
		ktap_diag("the child read the parent's write (wait status %#x)", status);
	munmap(map, 2 * pmd);
	return status == 0;
}

/* The writer a write-protected THP must stop: its first and last bytes. */
static void *write_ends(void *arg)
{
	char *huge = arg;

	huge[0] = COW_NEW;
	huge[pmd_size() - 1] = COW_NEW;
	return NULL;
}

/*
 * A THP on node, written with COW_OLD and write-protected through userfaultfd; a thread writes
 * it: 1 if the uffd reader gets a UFFD_PAGEFAULT_FLAG_WP fault and, once the range is
 * unprotected, the write lands; 0 if not; -1 (why says) when this kernel or guest cannot try.
 */
static int thp_uffd_wp(int node, int mprotect_between, char *why, size_t cap)
{
	char *map, *huge = thp_on(node, &map);
	size_t pmd = (size_t)pmd_size();
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .range = { (unsigned long)huge, pmd }, .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .range = reg.range, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	struct pollfd pfd = { .events = POLLIN };
	struct uffd_msg msg;
	pthread_t writer;
	int uffd = -1, ok = -1;

	if (!huge) {
		snprintf(why, cap, "no THP could be faulted on node %d", node);
		goto out;
	}
	memset(huge, COW_OLD, pmd);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		snprintf(why, cap, "no userfaultfd write-protect of anonymous memory here: %s", strerror(errno));
		goto out;
	}
	ok = 0;
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp)) {
		ktap_diag("UFFDIO_WRITEPROTECT: %s", strerror(errno));
		goto out;
	}
	if (mprotect_between && (mprotect(huge, pmd, PROT_READ) || mprotect(huge, pmd, PROT_READ | PROT_WRITE))) {
		ktap_diag("mprotect: %s", strerror(errno));
		goto out;
	}
	errno = pthread_create(&writer, NULL, write_ends, huge);
	if (errno) {
		ktap_diag("no writer thread: %s", strerror(errno));
		goto out;
	}
	pfd.fd = uffd;
	if (poll(&pfd, 1, UFFD_WAIT_MS) == 1 && read(uffd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg))
		ok = msg.event == UFFD_EVENT_PAGEFAULT && (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP);
	else
		ktap_diag("no write-protect fault within %d s (the THP reads %#x: the write %s)", UFFD_WAIT_MS / 1000,
			  (unsigned char)huge[0], huge[0] == COW_NEW ? "went through" : "is stuck");
	wp.mode = 0;
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		ktap_diag("UFFDIO_WRITEPROTECT off: %s", strerror(errno));
	pthread_join(writer, NULL);
	if (huge[0] != COW_NEW || huge[pmd - 1] != COW_NEW) {
		ktap_diag("after the fault the THP reads %#x ... %#x", (unsigned char)huge[0],
			  (unsigned char)huge[pmd - 1]);
		ok = 0;
	}
out:
	if (uffd >= 0)
		close(uffd);
	if (map)
		munmap(map, 2 * pmd);
	return ok;
}

/* The rows, in the order they run: their names index rows[] (no count kept by hand). */
enum balancing_row {
	ROW_PAGES_MOVE, ROW_THP_MOVES, ROW_THP_STAYS, ROW_THP_SCANNED_ONCE, ROW_BIND_FLAG_MOVES,
	ROW_BIND_STAYS, ROW_THP_COW, ROW_THP_MPROTECT_WRITABLE, ROW_THP_UFFD_WP, ROW_THP_SPLICED,
	ROW_THP_UFFD_WP_MPROTECT, ROW_THP_SOFT_DIRTY, NR_BALANCING_ROWS
};

/*
 * A THP on far, SPLICE_PAGES of it handed to a pipe with vmsplice(2) (the pipe holds references
 * to those pages: a migration must leave the THP where it is), written from local until the
 * scanner has made its PMD a hinting fault and STAY_S after: 1 if every write went through
 * and the THP holds the last one, 0 if not, -1 without a THP.  mmap(2)'s memory stays the
 * process's to read and write whatever NUMA balancing does with it; the hinting fault finds the
 * THP misplaced, isolates it, and migrate_pages() fails on the pipe's references after it has
 * replaced the PMD by a migration entry and put a present PMD back: do_huge_pmd_numa_page()
 * retakes the PMD lock, sees the PMD changed and unlocks it.  Kills mm/huge_memory.c:
 * do_huge_pmd_numa_page's `spin_unlock(vmf->ptl)` there removed (3fc0f38b40c6: the next fault
 * on the PMD spins on its lock for ever).
 */
static int thp_spliced(int local, int far)
{
	char *map, *huge = thp_on(far, &map);
	size_t pmd = (size_t)pmd_size();
	long long scanned = vmstat("numa_huge_pte_updates"), failed = vmstat("thp_migration_fail");
	struct iovec iov = { huge, SPLICE_PAGES * (size_t)page_size() };
	int pipefd[2] = { -1, -1 }, hinted = 0, ok = 0;
	double t0 = numab_now();

	if (!huge) {
		if (map)
			munmap(map, 2 * pmd);
		return -1;
	}
	if (pipe(pipefd) || vmsplice(pipefd[1], &iov, 1, 0) != (ssize_t)iov.iov_len) {
		ktap_diag("pipe or vmsplice: %s", strerror(errno));
		goto out;
	}
	while (!(hinted = vmstat("numa_huge_pte_updates") > scanned) && numab_now() - t0 < BALANCE_S)
		numab_touch_for(huge, pmd, (size_t)page_size(), SLICE_S);
	numab_touch_for(huge, pmd, (size_t)page_size(), STAY_S);
	memset(huge, COW_NEW, pmd);
	ok = hinted && huge[0] == COW_NEW && huge[pmd - 1] == COW_NEW;
	ktap_diag("a THP in a pipe on node %d, written from node %d: %s, %s on node %d after %.1f s, "
		  "thp_migration_fail %+lld", far, local, hinted ? "its PMD scanned" : "no THP's PMD scanned",
		  region_on(huge, pmd, THP_LOOKS, far) ? "still" : "not", far, numab_now() - t0,
		  vmstat("thp_migration_fail") - failed);
out:
	for (int i = 0; i < 2; i++)
		if (pipefd[i] >= 0)
			close(pipefd[i]);
	munmap(map, 2 * pmd);
	return ok;
}

/*
 * A THP on node, its soft-dirty bits cleared (clear_refs 4), mprotect()ed read-only and back to
 * read-write, then written: 1 if pagemap shows it soft-dirty after the write (and not before),
 * 0 if not, -1 without a THP.  soft-dirty.rst: writing 4 to clear_refs clears the bits, and a
 * write afterwards sets the page's bit; the kernel write-protects the PMD to see that write,
 * and an mprotect() round trip must not make it writable behind that.  Kills
 * mm/huge_memory.c:can_change_pmd_writable `if (pmd_needs_soft_dirty_wp(vma, pmd))` -> `if (0)`
 * (782427c8a0a0: the write goes through unseen, the bit stays clear).  -1 (a SKIP, why says
 * so) also where the kernel has no soft-dirty tracking (LoongArch: a fresh page reads clean).
 */
static int thp_soft_dirty(int node, char *why, size_t cap)
{
	char *map, *huge = thp_on(node, &map);
	size_t pmd = (size_t)pmd_size();
	int before = -1, after = -1;

	if (!huge) {
		snprintf(why, cap, "no THP could be faulted on node %d", node);
		if (map)
			munmap(map, 2 * pmd);
		return -1;
	}
	memset(huge, COW_OLD, pmd);
	/* A page just written is soft-dirty where the kernel tracks it at all (not LoongArch's). */
	if (page_soft_dirty(huge) != 1) {
		snprintf(why, cap, "a page just written is not soft-dirty: no soft-dirty tracking here");
		munmap(map, 2 * pmd);
		return -1;
	}
	if (sys_write("/proc/self/clear_refs", "4") == 0) {
		before = page_soft_dirty(huge);
		if (mprotect(huge, pmd, PROT_READ) || mprotect(huge, pmd, PROT_READ | PROT_WRITE))
			ktap_diag("mprotect: %s", strerror(errno));
		huge[0] = COW_NEW;
		after = page_soft_dirty(huge);
	} else {
		ktap_diag("clear_refs 4: %s", strerror(errno));
	}
	if (before != 0 || after != 1)
		ktap_diag("the THP's soft-dirty bit: %d after clear_refs, %d after the write (AnonHugePages %lld)",
			  before, after, smaps_anon_huge(map));
	munmap(map, 2 * pmd);
	return before == 0 && after == 1;
}

/* A THP row's result: 1 or 0 as ktap_ok(); < 0 a SKIP saying why. */
static void thp_row(int result, const char *row, const char *why)
{
	if (result < 0)
		ktap_skip(row, "%s", why);
	else
		ktap_ok(result, "%s", row);
}

int balancing_plan(const struct nodes *n)
{
	(void)n;
	return NR_BALANCING_ROWS;
}

void balancing_run(const struct nodes *n)
{
	const char *rows[NR_BALANCING_ROWS] = {
		[ROW_PAGES_MOVE] = "NUMA balancing moves pages written from another node to it",
		[ROW_THP_MOVES] = "NUMA balancing moves a THP written from another node to it",
		[ROW_THP_STAYS] = "NUMA balancing leaves a THP written from its own node there, still a THP",
		[ROW_THP_SCANNED_ONCE] = "NUMA balancing makes an untouched THP's PMD a hinting fault once: "
					 "numa_huge_pte_updates +1",
		[ROW_BIND_FLAG_MOVES] = "NUMA balancing under BIND|MPOL_F_NUMA_BALANCING over both nodes: "
					"pages moved",
		[ROW_BIND_STAYS] = "NUMA balancing under BIND over both nodes without the flag: pages stay",
		[ROW_THP_COW] = "a THP shared with a child stays copy-on-write through mprotect RO and back to RW",
		[ROW_THP_MPROTECT_WRITABLE] = "a THP of the process's own, mprotect PROT_NONE and back to RW: "
					      "written without a fault",
		[ROW_THP_UFFD_WP] = "a THP write-protected with userfaultfd: a write is a WP fault, and lands "
				    "once unprotected",
		[ROW_THP_SPLICED] = "a THP a pipe holds pages of (vmsplice), written from another node: "
				    "every write goes through",
		[ROW_THP_UFFD_WP_MPROTECT] = "a THP write-protected with userfaultfd, mprotect RO and back to RW: "
					     "a write is still a WP fault",
		[ROW_THP_SOFT_DIRTY] = "a THP's soft-dirty bit cleared, mprotect RO and back to RW: the next "
				       "write sets it",
	};
	int local, far, wp;
	char no_local_thp[80], no_far_thp[80], why[160];
	char *map, *huge;

	if (numab_start("1")) {
		for (int i = 0; i < NR_BALANCING_ROWS; i++)
			ktap_skip(rows[i], "cannot set " NUMA_BALANCING_SYSCTL " to 1: %s", strerror(errno));
		return;
	}
	if (pin_local_far(n, &local, &far, NR_BALANCING_ROWS, "NUMA balancing")) {
		numab_stop();
		return;
	}
	/* Kills mm/migrate.c:migrate_misplaced_folio_prepare `if (!migrate_balanced_pgdat(pgdat,
	 * nr_pages))` -> `if (1)` (every target taken for full: nothing moves). */
	snprintf(no_local_thp, sizeof(no_local_thp), "no THP could be faulted on node %d", local);
	snprintf(no_far_thp, sizeof(no_far_thp), "no THP could be faulted on node %d", far);
	ktap_ok(pages_row(local, far, MPOL_DEFAULT, 0, 1, rows[ROW_PAGES_MOVE]), "%s", rows[ROW_PAGES_MOVE]);
	huge = thp_on(far, &map);
	/* Kills mm/huge_memory.c:do_huge_pmd_numa_page `if (!folio)` -> `if (1)` (the hinting fault
	 * only restores the PMD: the THP never migrates). */
	thp_row(huge ? balance(huge, (size_t)pmd_size(), THP_LOOKS, local, far, 1, rows[ROW_THP_MOVES]) : -1,
		rows[ROW_THP_MOVES], no_far_thp);
	if (map)
		munmap(map, 2 * (size_t)pmd_size());
	/* Kills mm/huge_memory.c:do_huge_pmd_numa_page `set_pmd_at(..., pmd)` -> `set_pmd_at(...,
	 * old_pmd)` (the PMD restored PROT_NONE: the write faults for ever), its
	 * `spin_unlock(vmf->ptl)` removed (the next fault on the PMD waits for ever) and
	 * `if (target_nid == NUMA_NO_NODE)` -> `if (0)` (a local THP sent to node -1). */
	thp_row(thp_stays(local), rows[ROW_THP_STAYS], no_local_thp);
	/* Kills mm/huge_memory.c:change_huge_pmd `if (pmd_protnone(*pmd)) goto unlock;` ->
	 * `if (0)` (a PROT_NONE PMD modified and counted again on the next pass). */
	snprintf(why, sizeof(why), "no THP and pages could be faulted on node %d", far);
	thp_row(thp_scanned_once(far), rows[ROW_THP_SCANNED_ONCE], why);
	/* Kills mm/mempolicy.c:mpol_misplaced `if (node_isset(thisnid, pol->nodes)) break;` ->
	 * `if (0)` (the MORON branch gives up) and sanitize_mpol_flags
	 * `*flags |= (MPOL_F_MOF | MPOL_F_MORON);` removed (the flag accepted, and ignored). */
	ktap_ok(pages_row(local, far, MPOL_BIND | MPOL_F_NUMA_BALANCING,
			  (1UL << local) | (1UL << far), 1, rows[ROW_BIND_FLAG_MOVES]), "%s", rows[ROW_BIND_FLAG_MOVES]);
	/* Two gates keep it: task_numa_work() skips a VMA whose policy lacks MPOL_F_MOF
	 * (vma_policy_mof()) and mpol_misplaced() gives up on one; both come from the flag
	 * (sanitize_mpol_flags()).  Fails on a kernel that sets MPOL_F_MOF | MPOL_F_MORON for
	 * every BIND policy, the flag or not. */
	ktap_ok(pages_row(local, far, MPOL_BIND, (1UL << local) | (1UL << far), 0, rows[ROW_BIND_STAYS]), "%s",
		rows[ROW_BIND_STAYS]);
	/* Kills mm/huge_memory.c:can_change_pmd_writable `page && PageAnon(page) &&
	 * PageAnonExclusive(page)` -> `||` (the shared THP made writable: no copy). */
	thp_row(thp_cow(local), rows[ROW_THP_COW], no_local_thp);
	/* Kills mm/huge_memory.c:change_huge_pmd can_change_pmd_writable(vma, addr, entry) ->
	 * (..., oldpmd) (a234019c7e78: the PROT_NONE PMD is never writable) and
	 * can_change_pmd_writable's `if (userfaultfd_huge_pmd_wp(vma, pmd))` -> `if (1)`
	 * (e2d5bd583a44: no PMD ever made writable there). */
	thp_row(thp_mprotect_writable(local), rows[ROW_THP_MPROTECT_WRITABLE], no_local_thp);
	/* Kills mm/huge_memory.c:change_huge_pmd `if (uffd_wp)` -> `if (0)` and its
	 * `entry = pmd_mkuffd_wp(entry);` removed (the THP left writable: the write goes through). */
	wp = thp_uffd_wp(local, 0, why, sizeof(why));
	thp_row(wp, rows[ROW_THP_UFFD_WP], why);
	/* userfaultfd.rst: the writer goes on once UFFDIO_WRITEPROTECT without MODE_WP "wakes up the
	 * thread"; an mprotect() round trip is no such call, and mprotect() to RW makes an exclusive
	 * THP writable at once only where no one asked for write faults.  Kills
	 * mm/huge_memory.c:can_change_pmd_writable `if (userfaultfd_huge_pmd_wp(vma, pmd))` ->
	 * `if (0)` (09189cde528d: the write goes through). */
	wp = thp_uffd_wp(local, 1, why, sizeof(why));
	thp_row(wp, rows[ROW_THP_UFFD_WP_MPROTECT], why);
	wp = thp_soft_dirty(local, why, sizeof(why));
	thp_row(wp, rows[ROW_THP_SOFT_DIRTY], why);
	thp_row(thp_spliced(local, far), rows[ROW_THP_SPLICED], no_far_thp);
	unpin();
	numab_stop();
}
