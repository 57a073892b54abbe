/*
 * mbind(2)'s flags on pages that are already there (issue 33 (e)):
 *
 *   "If MPOL_MF_STRICT is passed in flags and mode is not MPOL_DEFAULT, then
 *   the call fails with the error EIO if the existing pages in the memory
 *   range don't follow the policy."
 *   "If MPOL_MF_MOVE is specified in flags, then the kernel will attempt to
 *   move all the existing pages in the memory range so that they follow the
 *   policy.  Pages that are shared with other processes will not be moved."
 *   "If MPOL_MF_MOVE_ALL is passed in flags, then the kernel will attempt to
 *   move all existing pages in the memory range regardless of whether other
 *   processes use the pages."
 *
 * Each row faults a region on the first memory node, calls mbind once and
 * checks the return and where every page is.  Needs two memory nodes.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "policy.h"

#define NR_PAGES 16
#define NR_ROWS 11
#define MAX_MAP_COUNT "/proc/sys/vm/max_map_count"

/* mbind(mode, mask, flags) on a region faulted on `from`: 1 if it returned want_errno (0: success)
 * and then every page is on `stay_on` (>= 0) or on its interleave node over `mask` (-1). */
static int mbind_case(int from, int mode, unsigned long mask, unsigned flags, int want_errno, int stay_on,
		      int share)
{
	size_t ps = (size_t)page_size();
	char *base = pages_on(from, NR_PAGES);
	int status[NR_PAGES], ok = 0, got, nodes[MAX_NODES], nr = 0;
	pid_t child = -1;
	int pipefd[2] = { -1, -1 };
	char c;

	if (!base)
		return 0;
	for (int k = 0; k < MAX_NODES; k++)
		if (mask >> k & 1)
			nodes[nr++] = k;
	if (share) {
		if (pipe(pipefd))
			goto out;
		child = fork();
		if (child == 0) {
			if (write(pipefd[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		if (child < 0 || read(pipefd[0], &c, 1) != 1)
			goto out;
	}
	got = p_mbind(base, NR_PAGES * ps, mode, mask ? &mask : NULL, MAXNODE_LONG, flags) ? errno : 0;
	if (got != want_errno) {
		ktap_diag("mbind mode %d %s flags %#x: %s, want %s", mode, mask_str(mask), flags,
			  errno_name(got), errno_name(want_errno));
		goto out;
	}
	if (pages_nodes(base, NR_PAGES, status))
		goto out;
	ok = 1;
	for (int i = 0; ok && i < NR_PAGES; i++) {
		/* An anonymous private map's interleave index is its page's address / page size. */
		int want = stay_on >= 0 ? stay_on : nodes[((uintptr_t)base / ps + (size_t)i) % (size_t)nr];

		if (status[i] != want) {
			ktap_diag("page %d on node %d, want node %d", i, status[i], want);
			ok = 0;
		}
	}
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	unmap_pages(base, NR_PAGES);
	return ok;
}

/*
 * mbind on the middle page of a mapping splits its VMA in three; with vm.max_map_count already
 * reached it cannot: ENOMEM, as mmap(2) and mprotect(2) say of "the maximum number of
 * mappings" (mbind(2): "ENOMEM Insufficient kernel memory was available"), and the pages keep
 * no policy.  Kills mm/mempolicy.c:mbind_range `return PTR_ERR(vma);` -> `(PTR_ERR(vma)) - 1`
 * (EACCES).
 */
static int mbind_map_count(int node)
{
	size_t ps = (size_t)page_size();
	char *base = map_pages(3), old[32] = "";
	unsigned long mask = 1UL << node;
	int mode = -1, got = 0;
	long rc = -1;

	if (!base || sys_read(MAX_MAP_COUNT, old, sizeof(old))) {
		unmap_pages(base, 3);
		return 0;
	}
	/* One VMA is a count every process has reached: any split fails. */
	if (!sys_write(MAX_MAP_COUNT, "1")) {
		rc = p_mbind(base + ps, ps, MPOL_BIND, &mask, MAXNODE_LONG, 0);
		got = rc < 0 ? errno : 0;
		sys_write(MAX_MAP_COUNT, old);
	}
	if (p_get(&mode, NULL, 0, base + ps, MPOL_F_ADDR))
		mode = -1;
	if (got != ENOMEM || mode != MPOL_DEFAULT)
		ktap_diag("mbind with vm.max_map_count 1: %s, the page's policy %d (want ENOMEM, %d)",
			  rc < 0 ? errno_name(got) : "success", mode, MPOL_DEFAULT);
	unmap_pages(base, 3);
	return got == ENOMEM && mode == MPOL_DEFAULT;
}

/*
 * MOVE|STRICT on a PMD-size THP faulted on `from`: success and the THP on `to` ("fails with
 * the error EIO if some pages could not be moved" does not apply: it can move).  split: the
 * second half mprotect()ed first, so the THP is PTE-mapped and spans two VMAs, and the walk
 * meets the folio twice.  -1 when no THP could be had (a SKIP), else 1 or 0.
 */
static int mbind_thp(int from, int to, int split)
{
	size_t pmd = (size_t)pmd_size(), ps = (size_t)page_size();
	unsigned long mto = 1UL << to;
	char *map, *huge = thp_on(from, &map);
	void *looks[3];
	int status[3] = { -1, -1, -1 }, ok = -1;
	long rc;

	if (huge && !(split && mprotect(huge + pmd / 2, pmd / 2, PROT_READ))) {
		looks[0] = huge;
		looks[1] = huge + pmd / 2;
		looks[2] = huge + pmd - ps;
		rc = p_mbind(huge, pmd, MPOL_BIND, &mto, MAXNODE_LONG, MPOL_MF_MOVE | MPOL_MF_STRICT);
		ok = rc == 0 && !p_move_pages(3, looks, NULL, status, 0) && status[0] == to &&
		     status[1] == to && status[2] == to;
		if (!ok)
			ktap_diag("THP%s: mbind %s, its pages on %d %d %d, want %d", split ? " in two VMAs" : "",
				  rc ? errno_name(errno) : "success", status[0], status[1], status[2], to);
	}
	if (map)
		munmap(map, 2 * pmd);
	return ok;
}

/*
 * A hugetlb page (MAP_HUGETLB, one huge page reserved on each of from and to, the counts put
 * back after) faulted on from, then MOVE|STRICT to to: 1 if it ended as HUGETLB_MOVES says,
 * 0 if not, -1 (a SKIP) when no huge page could be reserved on both.  mbind(2)'s MOVE is for
 * "all the existing pages in the memory range"; hugetlb pages are among them (the walk's
 * queue_folios_hugetlb()) where the architecture can migrate them
 * (ARCH_ENABLE_HUGEPAGE_MIGRATION: x86_64, arm64, riscv).  Elsewhere (LoongArch) "the call fails
 * with the error EIO if some pages could not be moved", and the page stays.
 */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv)
#define HUGETLB_MOVES 1
#else
#define HUGETLB_MOVES 0
#endif
static int mbind_hugetlb(int from, int to)
{
	size_t huge = (size_t)pmd_size();
	struct node_hugepages h[2] = { { "", "" }, { "", "" } };
	int nodes[2] = { from, to }, reserved = 1, ok = -1, status = -1;
	unsigned long mfrom = 1UL << from, mto = 1UL << to;
	char *map = MAP_FAILED;
	void *page;

	for (int i = 0; i < 2; i++)
		if (node_hugepages_set(&h[i], nodes[i], 1) < 1)
			reserved = 0;
	if (reserved)
		map = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (map != MAP_FAILED) {
		ok = 0;
		page = map;
		if (p_mbind(map, huge, MPOL_BIND, &mfrom, MAXNODE_LONG, 0))
			ktap_diag("hugetlb page: mbind BIND node %d: %s", from, strerror(errno));
		else if (memset(map, 1, huge), p_move_pages(1, &page, NULL, &status, 0) || status != from)
			ktap_diag("hugetlb page faulted on node %d, want %d", status, from);
		else if ((p_mbind(map, huge, MPOL_BIND, &mto, MAXNODE_LONG, MPOL_MF_MOVE | MPOL_MF_STRICT) ? errno : 0) !=
			 (HUGETLB_MOVES ? 0 : EIO))
			ktap_diag("hugetlb page: mbind BIND node %d with MOVE|STRICT: %s, want %s", to, errno_name(errno),
				  HUGETLB_MOVES ? "success" : "EIO");
		else if (p_move_pages(1, &page, NULL, &status, 0) || status != (HUGETLB_MOVES ? to : from))
			ktap_diag("hugetlb page on node %d after mbind MOVE, want %d", status, HUGETLB_MOVES ? to : from);
		else
			ok = 1;
		munmap(map, huge);
	}
	for (int i = 0; i < 2; i++)
		node_hugepages_restore(&h[i]);
	return ok;
}

int mbind_plan(const struct nodes *n)
{
	(void)n;
	return NR_ROWS;
}

void mbind_run(const struct nodes *n)
{
	int a = n->mem[0], b = n->mem[n->nr_mem - 1], rc;
	unsigned long ma = 1UL << a, mb = 1UL << b;

	if (n->nr_mem < 2) {
		for (int i = 0; i < NR_ROWS; i++)
			ktap_skip("mbind MPOL_MF_STRICT/MOVE/MOVE_ALL", "one memory node");
		return;
	}
	/* STRICT, pages elsewhere: EIO, nothing moved.
	 * Kills mm/mempolicy.c:do_mbind `if (nr_failed && (flags & MPOL_MF_STRICT))` -> `if (0)`. */
	ktap_ok(mbind_case(a, MPOL_BIND, mb, MPOL_MF_STRICT, EIO, a, 0),
		"mbind BIND elsewhere with MPOL_MF_STRICT: EIO, pages stay");
	/* STRICT, pages already following the policy: success.
	 * Kills mm/mempolicy.c:do_mbind `if (nr_failed && (flags & MPOL_MF_STRICT))` -> `if (1)`. */
	ktap_ok(mbind_case(a, MPOL_BIND, ma, MPOL_MF_STRICT, 0, a, 0),
		"mbind BIND on the pages' node with MPOL_MF_STRICT: success");
	/* "mode is not MPOL_DEFAULT": MPOL_DEFAULT with STRICT does not check the pages.
	 * Kills mm/mempolicy.c:do_mbind `flags &= ~MPOL_MF_STRICT;` (for MPOL_DEFAULT) removed. */
	ktap_ok(mbind_case(a, MPOL_DEFAULT, 0, MPOL_MF_STRICT, 0, a, 0),
		"mbind MPOL_DEFAULT with MPOL_MF_STRICT: success");
	/* MOVE: the pages follow the policy.
	 * Kills mm/mempolicy.c:migrate_folio_add `list_add_tail(&folio->lru, foliolist);` removed. */
	ktap_ok(mbind_case(a, MPOL_BIND, mb, MPOL_MF_MOVE | MPOL_MF_STRICT, 0, b, 0),
		"mbind BIND elsewhere with MPOL_MF_MOVE|STRICT: every page moved");
	/* MOVE under INTERLEAVE over two other nodes: each page to the node its interleave index
	 * names, as a fault there would (a page already on a node of the policy follows it, so the
	 * pages start outside the mask).
	 * Kills mm/mempolicy.c:alloc_migration_target_by_mpol `ilx += src->index >> order;` removed. */
	if (n->nr_mem < 3)
		ktap_skip("mbind INTERLEAVE with MPOL_MF_MOVE: each page on its interleave node",
			  "fewer than 3 memory nodes");
	else
		ktap_ok(mbind_case(a, MPOL_INTERLEAVE, 1UL << n->mem[1] | mb, MPOL_MF_MOVE, 0, -1, 0),
			"mbind INTERLEAVE with MPOL_MF_MOVE: each page on its interleave node");
	/* Shared pages (a forked child maps them): MOVE leaves them ("will not be moved").
	 * Kills mm/mempolicy.c:migrate_folio_add
	 * `if ((flags & MPOL_MF_MOVE_ALL) || !folio_maybe_mapped_shared(folio))` -> `if (1)`. */
	ktap_ok(mbind_case(a, MPOL_BIND, mb, MPOL_MF_MOVE, 0, a, 1),
		"mbind BIND elsewhere with MPOL_MF_MOVE, pages shared: they stay");
	/* MOVE_ALL moves them "regardless of whether other processes use the pages" (root: CAP_SYS_NICE).
	 * Kills mm/mempolicy.c:migrate_folio_add `(flags & MPOL_MF_MOVE_ALL) ||` -> `&&`. */
	ktap_ok(mbind_case(a, MPOL_BIND, mb, MPOL_MF_MOVE_ALL, 0, b, 1),
		"mbind BIND elsewhere with MPOL_MF_MOVE_ALL, pages shared: moved");
	ktap_ok(mbind_map_count(b), "mbind splitting a VMA past vm.max_map_count: ENOMEM, no policy");
	/* Kills mm/mempolicy.c:alloc_migration_target_by_mpol `gfp = GFP_TRANSHUGE;` ->
	 * `(GFP_TRANSHUGE) + 1` (__GFP_DMA with __GFP_MOVABLE: no THP to move into, so the THP is
	 * split, which migrate_pages() counts as not moved: EIO). */
	/* Kills mm/mempolicy.c:queue_folios_hugetlb `if (!folio_isolate_hugetlb(folio, qp->pagelist))`
	 * -> `if (0)` (never queued, nothing moved, and success). */
	rc = mbind_hugetlb(a, b);
	if (rc < 0)
		ktap_skip("mbind BIND elsewhere with MPOL_MF_MOVE|STRICT on a hugetlb page",
			  "no huge page could be reserved on nodes %d and %d", a, b);
	else
		ktap_ok(rc, "mbind BIND elsewhere with MPOL_MF_MOVE|STRICT on a hugetlb page: %s",
			HUGETLB_MOVES ? "moved" : "EIO, it stays (no hugetlb migration on this architecture)");
	for (int split = 0; split < 2; split++) {
		const char *what = split ? "mbind BIND elsewhere with MPOL_MF_MOVE|STRICT on a THP in two "
					   "VMAs: success, moved" :
					   "mbind BIND elsewhere with MPOL_MF_MOVE|STRICT on a THP: success, moved";
		/* split kills mm/mempolicy.c:queue_folios_pte_range `qp->large = folio;` removed
		 * (the folio queued again from the second VMA, its isolation failing: EIO). */
		int ok = mbind_thp(a, b, split);

		if (ok < 0)
			ktap_skip(what, "no PMD-size THP on node %d", a);
		else
			ktap_ok(ok, "%s", what);
	}
}
