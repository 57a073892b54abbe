/*
 * MADV_COLLAPSE of shmem that something else holds: pages mlocked, a second
 * mapping write-protected through userfaultfd.  collapse_file() meets each
 * of them in the middle of its work.
 *
 *   mlocked    a memfd PMD written as mTHP-size folios (the shmem_enabled of
 *              the size MTHP_ORDER at always, every other size never),
 *              mlock()ed, then MADV_COLLAPSE: 0, PMD-mapped, the data kept.
 *              mlock(2) keeps the range in RAM and MADV_COLLAPSE "supports
 *              [...] shmem pages"; nothing in either lets a locked range
 *              refuse a collapse.  The mlocked folios sit on the
 *              unevictable list, and a large one is munlocked at once when
 *              collapse_file() unmaps it (no per-CPU batch holds it), so the
 *              collapse goes through and frees them: the kernel must clear
 *              their unevictable flag first.  The lab boots with
 *              check_pages=1, so a page freed with it set is "BUG: Bad page
 *              state".  Kills collapse_file's `folio_clear_unevictable(folio)`
 *              removed (5d0b314a4ffa).  SKIP without per-size shmem_enabled
 *              (shmem mTHP, Linux 6.11) or when the file got no mTHP.
 *   write-protected
 *              the memfd mapped twice, both PMD-aligned; the second mapping
 *              read (a page table of PTEs), registered with userfaultfd for
 *              write protection and write-protected (UFFDIO_WRITEPROTECT),
 *              then MADV_COLLAPSE through the first: 0, and every page of
 *              the second mapping still write-protected (pagemap.rst's bit
 *              57, "pte is uffd-wp write-protected"; userfaultfd.rst: the
 *              range stays write-protected until UFFDIO_WRITEPROTECT takes
 *              it off) and reading its data.  The collapse unmaps the pages
 *              and leaves write-protect markers in that table, so it must
 *              not retract the table as it does for other aligned mappings.
 *              Kills file_backed_vma_is_retractable's `if
 *              (userfaultfd_wp(vma))` -> `if (0)` (7b1d95a3a0e3: the table
 *              and its markers freed, writes no longer trap).  SKIP without
 *              write protection of shmem (UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
 *              not on LoongArch).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define NR_SHMEM_HELD_ROWS 2

/*
 * The mlocked row's file: every page written while only the mTHP size may back shmem.  Its
 * start, or NULL (*why says why: a SKIP if *skip, else a failure).
 */
static char *written_as_mthp(size_t pmd, int *fd, char **map, int *skip, char *why, size_t why_size)
{
	long msize = page_size() << MTHP_ORDER, allocs;
	char path[160], pmd_path[160];
	struct thp_knob top, size, pmd_size_knob;
	int set_pmd;
	char *huge = NULL;

	*skip = 1;
	*map = NULL;
	*fd = -1;
	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ldkB/shmem_enabled", msize / 1024);
	snprintf(pmd_path, sizeof(pmd_path), THP_DIR "/hugepages-%zukB/shmem_enabled", pmd / 1024);
	if (!sys_exists(path)) {
		snprintf(why, why_size, "no %s (shmem mTHP, Linux 6.11)", path);
		return NULL;
	}
	if (thp_knob_set(&top, SHMEM_ENABLED, "never") || thp_knob_set(&size, path, "always")) {
		snprintf(why, why_size, "cannot set shmem_enabled: %s", strerror(errno));
		thp_knob_restore(&top);
		return NULL;
	}
	set_pmd = !thp_knob_set(&pmd_size_knob, pmd_path, "never");
	allocs = size_stat(msize, "shmem_alloc");
	*fd = memfd_create("numalab-mlocked", 0);
	if (*fd >= 0 && !ftruncate(*fd, (off_t)pmd) && (huge = shmem_range_map(*fd, pmd, map)))
		for (size_t i = 0; i < pmd / (size_t)page_size(); i++)
			pmd_range_fill_page(huge, i);
	allocs = size_stat(msize, "shmem_alloc") - allocs;
	if (set_pmd)
		thp_knob_restore(&pmd_size_knob);
	thp_knob_restore(&size);
	thp_knob_restore(&top);
	if (!huge) {
		*skip = 0;
		snprintf(why, why_size, "the memfd: %s", strerror(errno));
	} else if (allocs < (long)(pmd / (size_t)msize)) {
		snprintf(why, why_size, "the file got %ld folios of %ld kB, not %zu", allocs, msize / 1024,
			 pmd / (size_t)msize);
		huge = NULL;
	}
	return huge;
}

/* The mlocked row: 1 if it holds, 0 if not, -1 to SKIP (why says why). */
static int mlocked_collapses(size_t pmd, char *why, size_t why_size)
{
	int fd, skip, rc = -1;
	char *map, *huge = written_as_mthp(pmd, &fd, &map, &skip, why, why_size);
	long unevictable;

	if (!huge) {
		rc = skip ? -1 : 0;
		if (!skip)
			ktap_diag("%s", why);
	} else if (mlock(huge, pmd)) {
		snprintf(why, why_size, "mlock: %s", strerror(errno));
	} else {
		unevictable = meminfo_kb("Unevictable");
		rc = 0;
		if (collapse_range(huge, pmd))
			ktap_diag("MADV_COLLAPSE of the mlocked range: %s", strerror(errno));
		else if (smaps_bytes_at(huge, "ShmemPmdMapped") != (long long)pmd)
			ktap_diag("ShmemPmdMapped %lld after MADV_COLLAPSE of the mlocked range",
				  smaps_bytes_at(huge, "ShmemPmdMapped"));
		else
			rc = shmem_reads_values(huge, pmd);
		ktap_diag("Unevictable %ld kB while locked, before the collapse", unevictable);
		munlock(huge, pmd);
	}
	if (map)
		munmap(map, 2 * pmd);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* userfaultfd write protection on [at, at + len): the fd, or -1 (why says why: a SKIP). */
static int write_protect(char *at, size_t len, char *why, size_t why_size)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_HUGETLBFS_SHMEM };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)at, .len = len }, .mode = UFFDIO_REGISTER_MODE_WP,
	};
	struct uffdio_writeprotect wp = {
		.range = { .start = (uintptr_t)at, .len = len }, .mode = UFFDIO_WRITEPROTECT_MODE_WP,
	};
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		snprintf(why, why_size, "userfaultfd: %s", strerror(errno));
	else if (ioctl(uffd, UFFDIO_API, &api))
		snprintf(why, why_size, "UFFDIO_API with UFFD_FEATURE_WP_HUGETLBFS_SHMEM: %s (no write "
			 "protection of shmem)", strerror(errno));
	else if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		snprintf(why, why_size, "UFFDIO_REGISTER_MODE_WP of shmem: %s", strerror(errno));
	else if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		snprintf(why, why_size, "UFFDIO_WRITEPROTECT: %s", strerror(errno));
	else
		return uffd;
	if (uffd >= 0)
		close(uffd);
	return -1;
}

/* The number of pages of [at, at + len) pagemap shows write-protected by userfaultfd. */
static size_t wp_pages(const char *at, size_t len)
{
	size_t ps = (size_t)page_size(), n = 0;

	for (size_t off = 0; off < len; off += ps)
		n += page_uffd_wp(at + off) == 1;
	return n;
}

/* The write-protected row: 1 if it holds, 0 if not, -1 to SKIP (why says why). */
static int write_protect_kept(size_t pmd, char *why, size_t why_size)
{
	size_t nr = pmd / (size_t)page_size(), before, after;
	struct shmem_twice t;
	int uffd = -1, rc = 0;

	if (shmem_twice_open(&t, "numalab-write-protected", pmd) || !shmem_reads_values(t.second, pmd))
		goto out;
	if ((uffd = write_protect(t.second, pmd, why, why_size)) < 0) {
		rc = -1;
		goto out;
	}
	before = wp_pages(t.second, pmd);
	if (before != nr) {
		ktap_diag("%zu of %zu pages write-protected after UFFDIO_WRITEPROTECT", before, nr);
	} else if (collapse_range(t.first, pmd)) {
		ktap_diag("MADV_COLLAPSE through the other mapping: %s", strerror(errno));
	} else {
		after = wp_pages(t.second, pmd);
		rc = after == nr && shmem_reads_values(t.second, pmd);
		if (after != nr)
			ktap_diag("%zu of %zu pages still write-protected after the collapse", after, nr);
	}
out:
	if (uffd >= 0)
		close(uffd);
	shmem_twice_close(&t, pmd);
	return rc;
}

int shmem_held_plan(void)
{
	return NR_SHMEM_HELD_ROWS;
}

void shmem_held_run(void)
{
	const char *rows[NR_SHMEM_HELD_ROWS] = {
		"MADV_COLLAPSE of mlocked shmem mTHPs: success, PMD-mapped, data kept",
		"MADV_COLLAPSE of shmem keeps another mapping's userfaultfd write protection",
	};
	size_t pmd = (size_t)pmd_size();
	char why[256];
	int rc;

	if ((rc = mlocked_collapses(pmd, why, sizeof(why))) < 0)
		ktap_skip(rows[0], "%s", why);
	else
		ktap_ok(rc, "%s", rows[0]);
	if ((rc = write_protect_kept(pmd, why, sizeof(why))) < 0)
		ktap_skip(rows[1], "%s", why);
	else
		ktap_ok(rc, "%s", rows[1]);
}
