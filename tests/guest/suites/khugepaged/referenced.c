/*
 * khugepaged and pages the kernel marked accessed.
 *
 * khugepaged collapses ranges in use: it leaves alone one no page of which
 * was referenced since it was last aged.  What "referenced" means is
 * idle_page_tracking.rst's: "A page is considered referenced if it has been
 * recently accessed via a process address space, in which case one or more
 * PTEs it is mapped to will have the Accessed bit set, or marked accessed
 * explicitly by the kernel [...] when [...] a page is accessed by a device
 * driver using get_user_pages()".  Either way the range is in use.
 *
 * A PMD range of written base pages, aged by MADV_COLD (madvise(2): "Deactivate
 * a given range of pages", which clears their Accessed bits and their
 * referenced state), then read whole through /proc/self/mem, which takes
 * its pages with get_user_pages and marks them accessed without touching a
 * PTE: every page referenced the second way only.  Handed to khugepaged
 * (MADV_HUGEPAGE), the range is collapsed within COLLAPSE_WAIT_S, its data
 * intact.  Kills mm/khugepaged.c:__collapse_huge_page_isolate's
 * `folio_test_referenced(folio) ||` -> `&&` (93430423a620: only a page with
 * its Accessed bit set, or young for idle tracking, counts, so the isolation
 * finds none referenced and every collapse of the range is given up).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"
#include "mpol.h"

#define REFERENCED_POLL_US 20000

/*
 * The per-CPU batches of folios on their way to the LRU emptied: MADV_COLD leaves a folio
 * that is not on the LRU yet as it is, Accessed bit included.  migrate_pages(2) from this
 * task's nodes to the same nodes moves nothing, and drains them all first
 * (lru_cache_disable()).
 */
static void drain_lru_batches(void)
{
	unsigned long mems = 0;

	if (syscall(SYS_get_mempolicy, NULL, &mems, sizeof(mems) * CHAR_BIT, NULL, MPOL_F_MEMS_ALLOWED) ||
	    syscall(SYS_migrate_pages, 0, sizeof(mems) * CHAR_BIT, &mems, &mems) < 0)
		ktap_diag("get_mempolicy, migrate_pages (to drain): %s", strerror(errno));
}

/*
 * Every page of the PMD at huge read through /proc/self/mem (proc(5): "access the pages
 * of a process's memory through open(2), read(2), and lseek(2)"), which takes each page
 * with get_user_pages: 0, or -1 (diag printed).  Not process_vm_readv(2): the lab's
 * kernels leave it out (CONFIG_CROSS_MEMORY_ATTACH).
 */
static int read_through_kernel(const char *huge, size_t pmd)
{
	char *copy = malloc(pmd);
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	ssize_t got = copy && fd >= 0 ? pread(fd, copy, pmd, (off_t)(uintptr_t)huge) : -1;
	int ok = got == (ssize_t)pmd;

	for (size_t i = 0; ok && i < pmd / (size_t)page_size(); i++)
		ok = copy[i * (size_t)page_size()] == pmd_range_value(i);
	if (!ok)
		ktap_diag("reading the range from /proc/self/mem: %zd of %zu bytes (%s), or a page read wrong",
			  got, pmd, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(copy);
	return ok ? 0 : -1;
}

int referenced_plan(void)
{
	return 1;
}

void referenced_run(void)
{
	const char *row = "khugepaged collapses a range referenced only through get_user_pages (/proc/self/mem)";
	size_t pmd = (size_t)pmd_size(), nr = pmd / (size_t)page_size();
	char *map, *huge = pmd_range_map(pmd, &map);
	double start;
	int ok = 0;

	if (!huge) {
		ktap_skip(row, "mmap: %s", strerror(errno));
		return;
	}
	if (madvise(map, 2 * pmd, MADV_NOHUGEPAGE))
		ktap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
	for (size_t i = 0; i < nr; i++)
		pmd_range_fill_page(huge, i);
	drain_lru_batches();
	if (madvise(huge, pmd, MADV_COLD) || read_through_kernel(huge, pmd) ||
	    madvise(map, 2 * pmd, MADV_HUGEPAGE)) {
		ktap_diag("MADV_COLD, MADV_HUGEPAGE: %s", strerror(errno));
	} else {
		/* Polled through smaps only: a load from the range would set an Accessed bit. */
		start = now();
		while (smaps_anon_huge(huge) != (long long)pmd && now() - start < COLLAPSE_WAIT_S)
			usleep(REFERENCED_POLL_US);
		ktap_diag("AnonHugePages %lld after %.1f s", smaps_anon_huge(huge), now() - start);
		ok = smaps_anon_huge(huge) == (long long)pmd && pmd_range_intact(huge, pmd, nr);
	}
	munmap(map, 2 * pmd);
	ktap_ok(ok, "%s", row);
}
