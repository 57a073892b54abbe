/*
 * MADV_COLLAPSE and khugepaged's own limits.
 *
 * transhuge.rst: max_ptes_none "specifies how many empty (none/zero) pages
 * are allowed when collapsing a group of small pages into one large page",
 * a limit of khugepaged's scan.  madvise(2) MADV_COLLAPSE: "MADV_COLLAPSE is
 * independent of any sysfs [...] setting under
 * /sys/kernel/mm/transparent_hugepage, both in terms of determining THP
 * eligibility, and allocation semantics", "Unmapped pages will have their
 * data directly initialized to 0 in the new hugepage.  However, for every
 * eligible hugepage-aligned/sized region to be collapsed, at least one page
 * must currently be backed by physical memory."
 *
 * So with khugepaged/max_ptes_none at 0, MADV_COLLAPSE of an anonymous PMD
 * with one page written still collapses it: madvise returns 0, the range is
 * a THP (AnonHugePages), the page keeps its data and the rest reads 0.
 * Kills mm/khugepaged.c:collapse_max_ptes_none `if (!cc->is_khugepaged)` ->
 * `if (0)` (MADV_COLLAPSE held to khugepaged's limit: EINVAL).
 *
 * The same sentence's other half: a PMD range with no page resident cannot
 * be collapsed, and madvise(2) fails.  Its errno is one of madvise(2)'s
 * ERRORS that fits: not EAGAIN ("temporarily unavailable": nothing will
 * change), ENOMEM (no allocation was tried) or EBUSY (no cgroup charge), so
 * EINVAL, the kernel's answer for "error intrinsic to specified memory
 * range".  Kills madvise_collapse_errno's `return -EINVAL` -> `+ 1`
 * (0537acb4dc20: EISDIR, which madvise(2) does not list).
 *
 * madvise(2) also lists "ENOMEM (for MADV_COLLAPSE) Not enough memory": a
 * PMD range of written base pages, MADV_COLLAPSE while this task's slab
 * allocations fail (failslab; the collapse's own state is the first on
 * stock, a debug kernel's bookkeeping may come before it) fails with ENOMEM
 * and leaves the pages as they were; asked again, it collapses.  Kills
 * madvise_collapse's `if (!cc)` -> `if (0)` (00b5bf046565: the NULL state
 * written to, the guest oopses).  SKIP
 * without failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS).
 *
 * A PMD range only read, every page of it the shared zero page (base pages:
 * THP at madvise while it is read), is backed by physical memory in every
 * page, and reads 0: MADV_COLLAPSE answers 0, the range is a THP, and it
 * still reads 0.  Kills collapse_max_ptes_none's MADV_COLLAPSE `return
 * HPAGE_PMD_NR` -> `- 1` (0e1c4d21480b: 512 zero-page PTEs are one past
 * that limit, so the range is refused with EBUSY).
 *
 * madvise(2) MADV_COLLAPSE: "Perform a best-effort synchronous collapse of
 * the native pages mapped by the memory range into Transparent Huge Pages",
 * and 0 is success: a range of SEVERAL_PMDS PMDs of written base pages,
 * one call, answers 0 with every one of its PMDs a THP holding its pages'
 * data.  Kills madvise_collapse's `collapse_single_pmd(addr, ...)` ->
 * `(hstart, ...)` (f2fdfccf5ef1: the first PMD collapsed again and again,
 * counted as done each time, the others left as base pages).
 *
 * A tmpfs's own limit: tmpfs.rst's size= is "the limit of allocated bytes
 * for this tmpfs instance", and the holes MADV_COLLAPSE fills are
 * allocated bytes.  On a tmpfs of one PMD, a file whose PMD is half written
 * and half holes, the rest of the tmpfs taken by another file: MADV_COLLAPSE
 * of the file's mapping fails (-1), and the file is as it was, its written
 * pages with their data, its holes still holes (st_blocks), not PMD-mapped.
 * The collapse gets as far as charging the holes (shmem_charge()) and rolls
 * back.  Kills collapse_file's rollback loop `list_for_each_entry_safe(folio,
 * tmp, ...)` iterating with new_folio (c2397d801d33: the new folio's
 * pointer overwritten, the guest oopses).  FULL_ROUNDS attempts leave
 * MemFree where it was (within two PMDs): kills the rollback's
 * `folio_put(new_folio)` -> `folio_put(tmp)` (efbacdb1ac46: the huge page
 * allocated for the collapse never freed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define MAX_PTES_NONE KHP_DIR "/max_ptes_none"
#define WRITTEN_BYTE 0x6b
#define NR_LIMITS_ROWS 7
#define SEVERAL_PMDS 3            /* the row names it: "three" */
#define FULL_DIR "/run/numalab-khugepaged-full"
#define FULL_BYTE 0x4d
#define FULL_ROUNDS 8
#define LEAK_CALLS 4000
/* A quarter of what the mutant leaks per call on x86 (a collapse_control is kmalloc-512 there). */
#define LEAK_BYTES_PER_CALL 128

int limits_plan(void)
{
	return NR_LIMITS_ROWS;
}

/* 1 if the PMD at huge is a THP holding WRITTEN_BYTE in its first page and 0 elsewhere. */
static int collapsed_intact(char *huge, char *map, size_t pmd)
{
	size_t page = (size_t)page_size();

	if (smaps_anon_huge(map) != (long long)pmd) {
		ktap_diag("AnonHugePages %lld after MADV_COLLAPSE", smaps_anon_huge(map));
		return 0;
	}
	for (size_t i = 0; i < pmd; i++)
		if (huge[i] != (i < page ? WRITTEN_BYTE : 0)) {
			ktap_diag("byte %zu reads %#x after the collapse", i, (unsigned char)huge[i]);
			return 0;
		}
	return 1;
}

/*
 * MADV_COLLAPSE of a range that is a THP already: madvise(2) "the operation succeeds"
 * (nothing to do), and each call frees what it allocated for itself.  1 if LEAK_CALLS calls
 * all succeed and unreclaimable slab (meminfo SUnreclaim, every cache shrunk before each
 * reading) grew by less than LEAK_BYTES_PER_CALL per call.  Kills
 * mm/khugepaged.c:madvise_collapse `kfree(cc);` removed (0583a16a278a: a collapse_control
 * leaked per call, 2 MB here).
 */
static int collapse_no_leak(char *huge, size_t pmd)
{
	long before, after;   /* kB */
	int calls = 0;

	/* Freed objects KASAN's quarantine still holds (stock+debug) are not a leak: shrunk away. */
	slab_shrink_all();
	before = meminfo_kb("SUnreclaim");
	while (calls < LEAK_CALLS && !madvise(huge, pmd, MADV_COLLAPSE))
		calls++;
	slab_shrink_all();
	after = meminfo_kb("SUnreclaim");
	ktap_diag("metric: limits.leak_kb %ld (after %d calls)", after - before, calls);
	if (calls < LEAK_CALLS)
		ktap_diag("MADV_COLLAPSE call %d: %s", calls + 1, strerror(errno));
	return calls == LEAK_CALLS && before >= 0 && after - before < LEAK_CALLS * LEAK_BYTES_PER_CALL / 1024;
}

/*
 * pmd_range_map() with one page of the mapping outside the range written: a VMA that never
 * had a page (no anon_vma) is refused as a whole before any range is looked at, which would
 * leave the range's own answer untried.  The page is a base page (THP at madvise meanwhile):
 * under always, a mapping PMD-aligned would get a THP beside the range, which smaps counts
 * with it (seen with Debian's kernel).  NULL with errno set if mmap failed.
 */
static char *range_beside_a_page(size_t pmd, char **map)
{
	char *huge = pmd_range_map(pmd, map);
	struct thp_knob top;

	if (!huge)
		return NULL;
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	if (huge > *map)
		(*map)[0] = WRITTEN_BYTE;
	else
		huge[pmd] = WRITTEN_BYTE;
	thp_knob_restore(&top);
	return huge;
}

/*
 * MADV_COLLAPSE of an anonymous PMD range never touched (no page table under it) beside a
 * written page (range_beside_a_page()): EINVAL.
 */
static void empty_range_row(void)
{
	const char *row = "MADV_COLLAPSE of a PMD range with no page resident fails with EINVAL";
	size_t pmd = (size_t)pmd_size();
	char *map, *huge = range_beside_a_page(pmd, &map);
	int ret, err;

	if (!huge) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	errno = 0;
	ret = madvise(huge, pmd, MADV_COLLAPSE);
	err = errno;
	ktap_diag("MADV_COLLAPSE of an untouched PMD: %d (%s)", ret, ret ? strerror(err) : "success");
	munmap(map, 2 * pmd);
	ktap_ok(ret == -1 && err == EINVAL, "%s", row);
}

/*
 * Pages 0..nr-1 at huge written with pmd_range_fill_page() as base pages: THP at madvise
 * meanwhile, since with always the first write would fault a THP.
 */
static void fill_base_pages(char *huge, size_t nr)
{
	struct thp_knob top;

	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	for (size_t i = 0; i < nr; i++)
		pmd_range_fill_page(huge, i);
	thp_knob_restore(&top);
}

/* The zero-page row of the header. */
static void zero_pages_row(void)
{
	const char *row = "MADV_COLLAPSE of a PMD range only read (the zero page everywhere): 0, a THP reading 0";
	size_t pmd = (size_t)pmd_size(), ps = (size_t)page_size();
	char *map, *huge = range_beside_a_page(pmd, &map);
	struct thp_knob top;
	volatile char sink;
	int ok = 0;

	if (!huge) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	/* Base zero pages: with enabled=always a read fault maps the huge zero page. */
	if (thp_knob_set(&top, THP_DIR "/enabled", "madvise"))
		ktap_diag("cannot set THP to madvise: %s", strerror(errno));
	for (size_t off = 0; off < pmd; off += ps)
		sink = huge[off];
	(void)sink;
	thp_knob_restore(&top);
	if (madvise(huge, pmd, MADV_COLLAPSE)) {
		ktap_diag("MADV_COLLAPSE of a range of zero pages: %s", strerror(errno));
	} else if (smaps_anon_huge(huge) != (long long)pmd) {
		ktap_diag("AnonHugePages %lld after MADV_COLLAPSE of zero pages answered 0", smaps_anon_huge(huge));
	} else {
		ok = reads_zero(huge, pmd);
	}
	munmap(map, 2 * pmd);
	ktap_ok(ok, "%s", row);
}

/* The ENOMEM row of the header. */
static void nomem_row(void)
{
	const char *row = "MADV_COLLAPSE while a slab allocation fails: ENOMEM, pages kept; again: collapsed";
	size_t pmd = (size_t)pmd_size(), nr = pmd / (size_t)page_size();
	char *map, *huge;
	int ret = 0, err = 0, ok = 0;

	if (!sys_exists(FAILSLAB "/probability")) {
		ktap_skip(row, "no " FAILSLAB " (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)");
		return;
	}
	if (!(huge = pmd_range_map(pmd, &map))) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	fill_base_pages(huge, nr);
	if (failslab_arm(0, 0, FAILSLAB_EVERY)) {
		ktap_diag("cannot arm failslab: %s", strerror(errno));
	} else {
		errno = 0;
		ret = madvise(huge, pmd, MADV_COLLAPSE);
		err = errno;
	}
	failslab_disarm();
	ktap_diag("MADV_COLLAPSE while failslab is armed: %d (%s)", ret, ret ? strerror(err) : "success");
	if (ret == -1 && err == ENOMEM) {
		if (smaps_anon_huge(huge) != 0 || !pmd_range_intact(huge, pmd, nr))
			ktap_diag("after ENOMEM: AnonHugePages %lld, or a page lost its data", smaps_anon_huge(huge));
		else if (collapse_range(huge, pmd))
			ktap_diag("MADV_COLLAPSE again: %s", strerror(errno));
		else
			ok = smaps_anon_huge(huge) == (long long)pmd && pmd_range_intact(huge, pmd, nr);
	}
	munmap(map, 2 * pmd);
	ktap_ok(ok, "%s", row);
}

/* The several-PMDs row of the header. */
static void several_pmds_row(void)
{
	const char *row = "MADV_COLLAPSE of three PMD ranges in one call: 0, each a THP with its data";
	size_t pmd = (size_t)pmd_size(), ps = (size_t)page_size(), nr = SEVERAL_PMDS * pmd / ps;
	char *map = mmap(NULL, (SEVERAL_PMDS + 1) * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	int ok = 0;

	if (map == MAP_FAILED) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	fill_base_pages(huge, nr);
	if (smaps_anon_huge(huge) != 0) {
		ktap_diag("AnonHugePages %lld before the collapse", smaps_anon_huge(huge));
	} else if (madvise(huge, SEVERAL_PMDS * pmd, MADV_COLLAPSE)) {
		ktap_diag("MADV_COLLAPSE of %d PMDs: %s", SEVERAL_PMDS, strerror(errno));
	} else {
		ok = smaps_anon_huge(huge) == (long long)(SEVERAL_PMDS * pmd);
		if (!ok)
			ktap_diag("AnonHugePages %lld after MADV_COLLAPSE of %d PMDs answered 0",
				  smaps_anon_huge(huge), SEVERAL_PMDS);
		for (size_t i = 0; ok && i < nr; i++)
			if (huge[i * ps] != pmd_range_value(i)) {
				ktap_diag("page %zu reads %#x after the collapse", i, (unsigned char)huge[i * ps]);
				ok = 0;
			}
	}
	munmap(map, (SEVERAL_PMDS + 1) * pmd);
	ktap_ok(ok, "%s", row);
}

/* The half-written file, the filler taking the rest; 0, or -1 (diag printed). */
static int fill_tmpfs(int fd, int filler, size_t pmd)
{
	static char page[1 << 16];
	size_t ps = (size_t)page_size();

	memset(page, FULL_BYTE, sizeof(page));
	if (ftruncate(fd, (off_t)pmd)) {
		ktap_diag("ftruncate: %s", strerror(errno));
		return -1;
	}
	for (size_t off = 0; off < pmd; off += 2 * ps)
		if (pwrite(fd, page, ps, (off_t)off) != (ssize_t)ps) {
			ktap_diag("writing the file: %s", strerror(errno));
			return -1;
		}
	while (write(filler, page, ps) == (ssize_t)ps)
		;
	if (errno != ENOSPC) {
		ktap_diag("filling the tmpfs: %s, not ENOSPC", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Every other page of the file's PMD holds FULL_BYTE, the rest reads 0: read(2)
 * of the file, since a fault on a hole of a shared mapping would allocate
 * the page, which the full tmpfs refuses (SIGBUS).
 */
static int half_written_intact(int fd, size_t pmd)
{
	size_t ps = (size_t)page_size();
	char byte;

	for (size_t off = 0; off < pmd; off += ps)
		if (pread(fd, &byte, 1, (off_t)off) != 1 || byte != (off / ps % 2 ? 0 : FULL_BYTE))
			return 0;
	return 1;
}

static void full_tmpfs_row(void)
{
	const char *row = "MADV_COLLAPSE of holes a full tmpfs cannot allocate fails, the file as it was";
	size_t pmd = (size_t)pmd_size();
	struct stat before = { 0 }, after = { 0 };
	char opts[64], *map = NULL, *huge = NULL;
	int fd = -1, filler = -1, mounted = 0, rc = 0, err = 0, ok = 0;

	snprintf(opts, sizeof(opts), "size=%zu,huge=never", pmd);
	if ((mkdir(FULL_DIR, 0700) && errno != EEXIST) || mount("tmpfs", FULL_DIR, "tmpfs", 0, opts)) {
		ktap_skip(row, "cannot mount a tmpfs of %zu bytes on " FULL_DIR ": %s", pmd, strerror(errno));
		rmdir(FULL_DIR);
		return;
	}
	mounted = 1;
	fd = open(FULL_DIR "/file", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	filler = open(FULL_DIR "/filler", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || filler < 0 || fill_tmpfs(fd, filler, pmd) || fstat(fd, &before)) {
		ktap_diag("the files: %s", strerror(errno));
	} else if (!(huge = shmem_range_map(fd, pmd, &map))) {
		ktap_diag("mmap: %s", strerror(errno));
	} else {
		long free_before = 0, free_after;
		int fails = 0;

		/* One attempt first: a huge page the per-CPU lists keep afterwards is not a leak. */
		for (int i = 0; i <= FULL_ROUNDS; i++) {
			if (collapse_range(huge, pmd)) {
				fails++;
				err = errno;
			}
			if (i == 0)
				free_before = meminfo_kb("MemFree");
		}
		rc = fails == FULL_ROUNDS + 1 ? -1 : 0;
		free_after = meminfo_kb("MemFree");
		ok = rc == -1 && !fstat(fd, &after) && after.st_blocks == before.st_blocks &&
		     half_written_intact(fd, pmd) && smaps_bytes_at(huge, "ShmemPmdMapped") == 0 &&
		     free_before - free_after < 2 * (long)(pmd >> 10);
		ktap_diag("MADV_COLLAPSE returned %d (%s); st_blocks %lld before, %lld after; ShmemPmdMapped %lld; "
			  "MemFree %ld kB before %d more attempts, %ld after", rc, rc ? strerror(err) : "success",
			  (long long)before.st_blocks, (long long)after.st_blocks, smaps_bytes_at(huge, "ShmemPmdMapped"),
			  free_before, FULL_ROUNDS, free_after);
	}
	if (map)
		munmap(map, 2 * pmd);
	if (fd >= 0)
		close(fd);
	if (filler >= 0)
		close(filler);
	if (mounted && umount(FULL_DIR))
		ktap_diag("umount " FULL_DIR ": %s", strerror(errno));
	rmdir(FULL_DIR);
	ktap_ok(ok, "%s", row);
}

void limits_run(void)
{
	empty_range_row();
	zero_pages_row();
	several_pmds_row();
	nomem_row();
	full_tmpfs_row();
	const char *row = "MADV_COLLAPSE ignores max_ptes_none 0: one page written, the PMD collapses";
	size_t pmd = (size_t)pmd_size();
	struct thp_knob none;
	char *map, *huge;
	int ok = 0;

	if (value_knob_set(&none, MAX_PTES_NONE, "0")) {
		ktap_skip(row, "cannot set %s: %s", MAX_PTES_NONE, strerror(errno));
		return;
	}
	map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
	} else {
		huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
		/* A base page faulted (not a THP at once), then the VMA eligible again:
		 * MADV_COLLAPSE respects VM_NOHUGEPAGE. */
		if (madvise(map, 2 * pmd, MADV_NOHUGEPAGE))
			ktap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
		memset(huge, WRITTEN_BYTE, (size_t)page_size());
		if (madvise(map, 2 * pmd, MADV_HUGEPAGE))
			ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
		if (smaps_anon_huge(map) > 0)
			ktap_diag("a THP before the collapse: AnonHugePages %lld", smaps_anon_huge(map));
		else if (madvise(huge, pmd, MADV_COLLAPSE))
			ktap_diag("MADV_COLLAPSE: %s", strerror(errno));
		else
			ok = collapsed_intact(huge, map, pmd);
		thp_knob_restore(&none);
		ktap_ok(ok, "%s", row);
		if (ok)
			ktap_ok(collapse_no_leak(huge, pmd), "MADV_COLLAPSE of a THP, %d times: success, no memory "
				"leaked", LEAK_CALLS);
		else
			ktap_skip("MADV_COLLAPSE of a THP leaks no memory", "no THP from the row before");
		munmap(map, 2 * pmd);
		return;
	}
	thp_knob_restore(&none);
	ktap_ok(ok, "%s", row);
	ktap_skip("MADV_COLLAPSE of a THP leaks no memory", "no mapping");
}
