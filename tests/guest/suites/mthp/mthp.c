/*
 * mthp: multi-size transparent huge pages (anonymous) on every node, for
 * each size the kernel offers in /sys/kernel/mm/transparent_hugepage/
 * hugepages-<size>kB with an anonymous `enabled` knob (the PMD size too;
 * 16K..2M on x86, 64K..32M with LoongArch's 16K pages).  With only that size enabled:
 *
 *  - placed: one touch of a size-aligned range mbind()-ed to node N faults
 *    one folio of that size on N: the range's pages are physically
 *    contiguous, the first a compound head, the rest its tails, the page
 *    after not (/proc/self/pagemap + /proc/kpageflags), all on N, and the
 *    size's stats/anon_fault_alloc grew;
 *  - migrated whole: move_pages() of the range to the next memory node
 *    gives one folio of that size there, and stats/split did not grow;
 *  - collapsed: base pages faulted on the first node with every size off,
 *    then MADV_HUGEPAGE with only this size on: khugepaged (max_ptes_none
 *    0, 50 ms scans) makes one folio of that size of them on that node, and
 *    stats/collapse_alloc grew.  Kernels that collapse to the PMD size only
 *    (no per-size collapse_alloc counter) SKIP the smaller sizes;
 *  - every chunk, shared, mixed: khugepaged's mTHP collapse across a PMD,
 *    past a page shared with a child, and past a folio already of the
 *    size (their functions say what each checks and kills).
 *
 * Each size's stats/ counters are printed as diagnostics at the end.
 *
 * Fails on: a kernel without CONFIG_TRANSPARENT_HUGEPAGE (no sizes: one
 * failed result, not a skip: every lab shape must offer THP); the mutant
 * `orders = ... & 0` in alloc_anon_folio() (mm/memory.c: faults fall back
 * to base pages, no head/tail pages; in the mutants recipe); a migration that splits large folios
 * (the mutant sending every large folio down migrate_pages_batch()'s split
 * path: stats/split grows, the target holds base pages); the mutant
 * `orders = BIT(HPAGE_PMD_ORDER);` in collapse_possible_orders()
 * (mm/khugepaged.c, in the mutants recipe: every size below the PMD stays
 * uncollapsed, collapse_alloc 0 after 30 s).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define KHUGEPAGED_DIR THP_DIR "/khugepaged"
#define NODE_DIR "/sys/devices/system/node"
#define MAX_SIZES 16
#define MAX_NODES 64
#define MPOL_BIND 2
#define MPOL_MF_MOVE (1 << 1)
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define COLLAPSE_S 30
#define MIXED_MOVE_TRIES 40
#define MIXED_MOVE_GAP_US 50000
#define ZERO_INDEX 1               /* collapse_shared()'s page that is only read */

static long sizes_kb[MAX_SIZES];
static char saved_enabled[MAX_SIZES][32];
static int nr_sizes;
static int nodes[MAX_NODES], nr_nodes;
static size_t page;

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static void size_path(long kb, const char *file, char *path, size_t cap)
{
	snprintf(path, cap, THP_DIR "/hugepages-%ldkB/%s", kb, file);
}

static int read_sizes(void)
{
	DIR *d = opendir(THP_DIR);
	struct dirent *e;
	char path[160];
	long kb;

	/* Sizes without an enabled knob are page-cache only (8kB on x86). */
	while (d && (e = readdir(d)))
		if (sscanf(e->d_name, "hugepages-%ldkB", &kb) == 1 && nr_sizes < MAX_SIZES &&
		    (size_path(kb, "enabled", path, sizeof(path)), sys_exists(path)))
			sizes_kb[nr_sizes++] = kb;
	if (d)
		closedir(d);
	qsort(sizes_kb, (size_t)nr_sizes, sizeof(sizes_kb[0]), cmp_long);
	return nr_sizes;
}

static long long stat_of(long kb, const char *name)
{
	char path[160], file[64];
	long v;

	snprintf(file, sizeof(file), "stats/%s", name);
	size_path(kb, file, path, sizeof(path));
	return sys_read_long(path, &v) ? -1 : v;
}

/* Only size kb (0: none) set to mode, every other size never. */
static int only_size(long kb, const char *mode)
{
	char path[160];
	int rc = 0;

	for (int i = 0; i < nr_sizes; i++) {
		size_path(sizes_kb[i], "enabled", path, sizeof(path));
		if (sys_write(path, sizes_kb[i] == kb ? mode : "never")) {
			ktap_diag("write %s: %s", path, strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

static void save_enabled(int restore)
{
	char path[160];

	for (int i = 0; i < nr_sizes; i++) {
		size_path(sizes_kb[i], "enabled", path, sizeof(path));
		if (restore)
			sys_write(path, saved_enabled[i]);
		else if (thp_setting(path, saved_enabled[i], sizeof(saved_enabled[i])))
			snprintf(saved_enabled[i], sizeof(saved_enabled[i]), "never");
	}
}

/* A size-aligned, size-long range inside a fresh mapping of twice that. */
struct range {
	char *map, *base;
	size_t len, n;
};

static int range_map(struct range *r, size_t len)
{
	r->len = len;
	r->n = len / page;
	r->map = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->map == MAP_FAILED) {
		ktap_diag("mmap %zu: %s", 2 * len, strerror(errno));
		return -1;
	}
	r->base = (char *)(((uintptr_t)r->map + len - 1) & ~(uintptr_t)(len - 1));
	return 0;
}

static void range_unmap(struct range *r)
{
	if (r->map && r->map != MAP_FAILED)
		munmap(r->map, 2 * r->len);
}

static int bind_to(struct range *r, int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_mbind, r->base, r->len, MPOL_BIND, &mask, sizeof(mask) * CHAR_BIT + 1, 0)) {
		ktap_diag("mbind node %d: %s", node, strerror(errno));
		return -1;
	}
	return 0;
}

static int pread_u64(int fd, uint64_t index, uint64_t *v)
{
	return pread(fd, v, sizeof(*v), (off_t)(index * sizeof(*v))) == sizeof(*v) ? 0 : -1;
}

/*
 * The page frame mapped at addr (pm: /proc/self/pagemap) and its flags (kf:
 * /proc/kpageflags): 0; -1 when the page is not present; -2 when its flags
 * cannot be read.
 */
static int frame_of(int pm, int kf, const char *addr, uint64_t *pfn, uint64_t *flags)
{
	uint64_t e;

	if (pread_u64(pm, (uintptr_t)addr / page, &e) || !(e >> 63 & 1))
		return -1;
	*pfn = e & ((UINT64_C(1) << 55) - 1);
	return pread_u64(kf, *pfn, flags) ? -2 : 0;
}

/* Is the range one folio of exactly its size, every page on node?  Says why not. */
static int range_is_folio_on(const struct range *r, int node)
{
	static void *pages[8192];
	static int status[8192];
	int pm = open("/proc/self/pagemap", O_RDONLY), kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t pfn, pfn0 = 0, flags;
	int ok = pm >= 0 && kf >= 0 && r->n <= sizeof(pages) / sizeof(pages[0]);

	if (!ok)
		ktap_diag("cannot read /proc/self/pagemap and /proc/kpageflags: %s", strerror(errno));
	for (size_t i = 0; ok && i < r->n; i++) {
		uint64_t want = i ? KPF_COMPOUND_TAIL : KPF_COMPOUND_HEAD;
		int frame;

		pages[i] = r->base + i * page;
		frame = frame_of(pm, kf, pages[i], &pfn, &flags);
		if (frame == -1) {
			ktap_diag("page %zu of %zu is not present", i, r->n);
			ok = 0;
			break;
		}
		if (!i)
			pfn0 = pfn;
		if (frame || pfn != pfn0 + i || !(flags >> want & 1)) {
			ktap_diag("page %zu of %zu is not the %s of one folio", i, r->n, i ? "tail" : "head");
			ok = 0;
		}
	}
	if (ok && !pread_u64(kf, pfn0 + r->n, &flags) && (flags >> KPF_COMPOUND_TAIL & 1)) {
		ktap_diag("the folio is larger than %zu pages", r->n);
		ok = 0;
	}
	if (ok && syscall(SYS_move_pages, 0, r->n, pages, NULL, status, 0)) {
		ktap_diag("move_pages (query): %s", strerror(errno));
		ok = 0;
	}
	for (size_t i = 0; ok && i < r->n; i++)
		if (status[i] != node) {
			ktap_diag("page %zu of %zu is on node %d, not node %d", i, r->n, status[i], node);
			ok = 0;
		}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return ok;
}

static int move_range(const struct range *r, int node)
{
	static void *pages[8192];
	static int target[8192], status[8192];

	for (size_t i = 0; i < r->n; i++) {
		pages[i] = r->base + i * page;
		target[i] = node;
	}
	if (syscall(SYS_move_pages, 0, r->n, pages, target, status, MPOL_MF_MOVE)) {
		ktap_diag("move_pages to node %d: %s", node, strerror(errno));
		return -1;
	}
	return 0;
}

/* 1 if the page at addr is present with /proc/kpageflags bit kpf set, else 0.  (Quiet: for polling.) */
static int page_has_flag(const char *addr, int kpf)
{
	int pm = open("/proc/self/pagemap", O_RDONLY), kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t pfn, flags;
	int set = pm >= 0 && kf >= 0 && !frame_of(pm, kf, addr, &pfn, &flags) && (flags >> kpf & 1);

	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return set;
}

/* Is the range's first page mapped to a compound head? */
static int first_page_is_head(const struct range *r)
{
	return page_has_flag(r->base, KPF_COMPOUND_HEAD);
}

static void place_and_migrate(long kb, int node, int next)
{
	long long alloc0 = stat_of(kb, "anon_fault_alloc"), split0 = stat_of(kb, "split");
	struct range r = { 0 };
	int placed = 0, moved = 0;

	if (!only_size(kb, "always") && !range_map(&r, (size_t)kb << 10) && !bind_to(&r, node)) {
		r.base[0] = 1;     /* one fault maps the whole folio */
		placed = range_is_folio_on(&r, node) && stat_of(kb, "anon_fault_alloc") > alloc0;
		if (placed && !move_range(&r, next))
			moved = range_is_folio_on(&r, next) && stat_of(kb, "split") == split0;
	}
	range_unmap(&r);
	ktap_ok(placed, "mthp %ldkB faulted on node %d as one folio", kb, node);
	if (placed)
		ktap_ok(moved, "mthp %ldkB migrated whole node %d -> %d", kb, node, next);
	else
		ktap_skip("mthp migrate", "no %ldkB folio was placed on node %d", kb, node);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * khugepaged only scans PMD ranges inside a VMA: the range is a whole PMD
 * bound to node, with its first kb populated; max_ptes_none 0 leaves the
 * PMD collapse no room, so only the kb-sized one can happen.
 */
static void collapse(long kb, long pmd_kb, int node)
{
	long long before = stat_of(kb, "collapse_alloc");
	struct range pmd = { 0 }, r;
	int ok = 0, collapsed = 0;
	double t0 = now_s();

	if (before < 0) {
		ktap_skip("mthp collapse", "the kernel has no hugepages-%ldkB/stats/collapse_alloc: "
			  "its khugepaged does not collapse to this size", kb);
		return;
	}
	if (!only_size(0, "never") && !range_map(&pmd, (size_t)pmd_kb << 10) && !bind_to(&pmd, node)) {
		r = pmd;
		r.len = (size_t)kb << 10;
		r.n = r.len / page;
		for (size_t i = 0; i < r.n; i++)
			r.base[i * page] = 1;
		if (!only_size(kb, "madvise") && !madvise(pmd.base, pmd.len, MADV_HUGEPAGE)) {
			/*
			 * collapse_alloc counts the new folio when it is
			 * allocated, before the copy and the new mapping: the
			 * range is one folio only once page 0 maps a head
			 * (32M on LoongArch took longer than one look, 0.1 s).
			 */
			while (now_s() - t0 < COLLAPSE_S &&
			       !((collapsed = stat_of(kb, "collapse_alloc") > before) && first_page_is_head(&r)))
				usleep(50000);
			ok = collapsed && range_is_folio_on(&r, node);
			ktap_diag("%ldkB: collapse_alloc %lld -> %lld after %.1f s", kb, before,
				  stat_of(kb, "collapse_alloc"), now_s() - t0);
		}
	}
	range_unmap(&pmd);
	ktap_ok(ok, "khugepaged collapsed %ldkB of base pages into one folio on node %d", kb, node);
}

/* The smallest size below the PMD of at least min_pages base pages, in kB; 0 if none. */
static long smallest_below(long pmd_kb, size_t min_pages)
{
	for (int s = 0; s < nr_sizes; s++)
		if (sizes_kb[s] < pmd_kb && ((size_t)sizes_kb[s] << 10) / page >= min_pages)
			return sizes_kb[s];
	return 0;
}

/*
 * A range of one smaller size (the smallest of 8 pages or more) with its upper half shared
 * with a child (fork, then the parent writes its lower half again: those pages its own).
 * transhuge.rst, collapse_exceed_shared_pte: "For non-PMD orders this occurs if a mTHP range
 * contains at least one shared PTE": khugepaged makes no folio of it and counts that; once
 * the child is gone it collapses the range into one folio on the node.  khugepaged has
 * isolated the lower half when it meets the first shared page and must give those pages
 * back.  Kills mm/khugepaged.c:release_pte_pages' `pfn = pte_pfn(pteval)` -> `- 1`
 * (34a9d13ff501: other pages unlocked and put back, the range's own left locked and off
 * the LRU: no collapse later, if the guest lives).  Page 1 is only read (the shared zero
 * page; max_ptes_none at HPAGE_PMD_NR - 1 for the case lets the collapse take it as
 * empty), so giving back passes over a zero pfn too: kills release_pte_pages' `if
 * (is_zero_pfn(pfn))` -> `if (0)` (51eeafacfd23: the zero page put back as a folio).
 */
static void collapse_shared(long pmd_kb, int node)
{
	const char *rows[2] = { "khugepaged leaves a small-size range with a page shared with a child: "
				"no folio, counted in collapse_exceed_shared_pte",
				"... and collapses it into one folio once the child is gone" };
	struct range pmd = { 0 }, r;
	long kb = smallest_below(pmd_kb, 8);
	long long before;
	int go[2] = { -1, -1 }, counted = 0, ok = 0;
	volatile char zero_sink;
	char none[24], none_was[24] = "";
	pid_t child = -1;
	double t0;

	if (!kb || (before = stat_of(kb, "collapse_exceed_shared_pte")) < 0) {
		for (int i = 0; i < 2; i++)
			ktap_skip(rows[i], "no size below the PMD of 8 pages or more with "
				  "stats/collapse_exceed_shared_pte");
		return;
	}
	if (only_size(0, "never") || range_map(&pmd, (size_t)pmd_kb << 10) || bind_to(&pmd, node) || pipe(go))
		goto out;
	r = pmd;
	r.len = (size_t)kb << 10;
	r.n = r.len / page;
	for (size_t i = 0; i < r.n; i++)
		if (i == ZERO_INDEX)
			zero_sink = r.base[i * page];
		else
			r.base[i * page] = 1;
	(void)zero_sink;
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(go[0]);
	go[0] = -1;
	if (child < 0)
		goto out;
	for (size_t i = 0; i < r.n / 2; i++)
		if (i != ZERO_INDEX)
			r.base[i * page] = 2;
	snprintf(none, sizeof(none), "%ld", pmd_kb * 1024 / (long)page - 1);
	if (sys_read(KHUGEPAGED_DIR "/max_ptes_none", none_was, sizeof(none_was)) ||
	    sys_write(KHUGEPAGED_DIR "/max_ptes_none", none) || only_size(kb, "madvise") ||
	    madvise(pmd.base, pmd.len, MADV_HUGEPAGE))
		goto out;
	t0 = now_s();
	while (now_s() - t0 < COLLAPSE_S && !(counted = stat_of(kb, "collapse_exceed_shared_pte") > before))
		usleep(50000);
	ktap_diag("%ldkB with its upper half shared: collapse_exceed_shared_pte %lld -> %lld after %.1f s", kb,
		  before, stat_of(kb, "collapse_exceed_shared_pte"), now_s() - t0);
	ktap_ok(counted && !first_page_is_head(&r), "%s", rows[0]);
	close(go[1]);
	go[1] = -1;
	waitpid(child, NULL, 0);
	child = -1;
	t0 = now_s();
	while (now_s() - t0 < COLLAPSE_S && !first_page_is_head(&r))
		usleep(50000);
	ok = range_is_folio_on(&r, node);
	for (size_t i = 0; ok && i < r.n; i++)
		if (r.base[i * page] != (i == ZERO_INDEX ? 0 : i < r.n / 2 ? 2 : 1)) {
			ktap_diag("page %zu reads %d after the collapse", i, r.base[i * page]);
			ok = 0;
		}
	ktap_ok(ok, "%s", rows[1]);
	sys_write(KHUGEPAGED_DIR "/max_ptes_none", none_was);
	range_unmap(&pmd);
	return;
out:
	if (none_was[0])
		sys_write(KHUGEPAGED_DIR "/max_ptes_none", none_was);
	ktap_diag("the shared range: %s", strerror(errno));
	for (int i = 0; i < 2; i++)
		if (go[i] >= 0)
			close(go[i]);
	if (child > 0)
		waitpid(child, NULL, 0);
	range_unmap(&pmd);
	for (int i = 0; i < 2; i++)
		ktap_ok(0, "%s", rows[i]);
}

/*
 * A whole PMD range of base pages with only the smallest size below the PMD enabled:
 * khugepaged "collapses sequences of basic pages into huge pages of either PMD size or
 * mTHP" (transhuge.rst), every size-aligned sequence of the range, not just the first.
 * The second and the last chunk are checked.  Kills mm/khugepaged.c:max_order_from_offset's
 * `min_t(...)` -> `- 1` (4f3d19cc2d2f: after a collapse at offset 0 the walk tries only
 * smaller orders at the next offsets and leaves them alone).
 */
static void collapse_every_chunk(long pmd_kb, int node)
{
	const char *row = "khugepaged collapses every chunk of a populated PMD range into small-size folios";
	struct range pmd = { 0 }, second, last;
	long kb = smallest_below(pmd_kb, 4);
	int ok = 0;
	double t0 = now_s();

	if (!kb || stat_of(kb, "collapse_alloc") < 0) {
		ktap_skip(row, "no size below the PMD of 4 pages or more that khugepaged collapses to");
		return;
	}
	if (!only_size(0, "never") && !range_map(&pmd, (size_t)pmd_kb << 10) && !bind_to(&pmd, node)) {
		for (size_t i = 0; i < pmd.n; i++)
			pmd.base[i * page] = 1;
		second = last = pmd;
		second.len = last.len = (size_t)kb << 10;
		second.n = last.n = second.len / page;
		second.base = pmd.base + second.len;
		last.base = pmd.base + pmd.len - last.len;
		if (!only_size(kb, "madvise") && !madvise(pmd.base, pmd.len, MADV_HUGEPAGE)) {
			while (now_s() - t0 < COLLAPSE_S && !(first_page_is_head(&second) && first_page_is_head(&last)))
				usleep(50000);
			ok = range_is_folio_on(&second, node) && range_is_folio_on(&last, node);
			ktap_diag("%ldkB chunks of a PMD: the second %s, the last %s after %.1f s", kb,
				  first_page_is_head(&second) ? "a folio" : "not", first_page_is_head(&last) ? "a folio" : "not",
				  now_s() - t0);
		}
	}
	range_unmap(&pmd);
	ktap_ok(ok, "%s", row);
}

/*
 * move_pages(2) of the n pages at base to node, asked again while a page is busy (-EBUSY),
 * MIXED_MOVE_TRIES times: 1 once every page is there, else 0 (diag printed).
 */
static int moved_all(char *base, size_t n, int node)
{
	void *pages[8];
	int target[8], status[8], busy = 0;

	for (size_t i = 0; i < n && i < 8; i++) {
		pages[i] = base + i * page;
		target[i] = node;
	}
	for (int t = 0; t < MIXED_MOVE_TRIES; t++) {
		int there = 0;

		busy = 0;
		if (syscall(SYS_move_pages, 0, n, pages, target, status, MPOL_MF_MOVE) < 0) {
			ktap_diag("move_pages to node %d: %s", node, strerror(errno));
			return 0;
		}
		for (size_t i = 0; i < n; i++) {
			there += status[i] == node;
			busy += status[i] == -EBUSY;
		}
		if (there == (int)n)
			return 1;
		usleep(MIXED_MOVE_GAP_US);
	}
	ktap_diag("move_pages to node %d: %d of %zu pages still busy after %d tries", node, busy, n,
		  MIXED_MOVE_TRIES);
	return 0;
}

/*
 * A range of the size of 8 pages (t) whose first half is one folio of the size of 4 pages
 * (small) and whose second half is what stays mapped of a folio of size t (faulted whole,
 * its first half MADV_DONTNEED-ed and faulted again as small), then MADV_HUGEPAGE with only
 * t enabled.  khugepaged makes no t folio of it (a page of it is in a folio of that size
 * already) after it has taken the small folio off the LRU, and must give that one back.
 * After two full scans every page holds its data ("collapses sequences of basic pages into
 * huge pages", transhuge.rst: a collapse, or none, keeps the contents), and with a second
 * memory node move_pages(2) moves every page there: "-EBUSY The page is currently busy and
 * cannot be moved.  Try again later", so it is asked again for MIXED_MOVE_TRIES tries,
 * MIXED_MOVE_GAP_US apart, and a page still busy then fails the row.  Kills
 * mm/khugepaged.c:release_pte_pages' `list_for_each_entry_safe(folio, tmp, ...)` ->
 * `(folio, folio, ...)` (8067df4252ff: the walk steps past the list's only folio before
 * putting it back, which stays locked and off the LRU for good, so it never moves).
 */
static void collapse_mixed(long pmd_kb, int node, int next)
{
	const char *row = "khugepaged leaves a range of a smaller folio and part of one of its size: data kept, pages movable";
	long small = smallest_below(pmd_kb, 4), t = smallest_below(pmd_kb, 8);
	struct range pmd = { 0 }, lower;
	long scans0 = -1, scans = -1;
	int ok = 0, set_up = 0;
	double t0;

	if (!small || t != 2 * small || ((size_t)small << 10) / page != 4 || stat_of(t, "collapse_alloc") < 0) {
		ktap_skip(row, "no sizes of 4 and 8 pages below the PMD that khugepaged collapses to");
		return;
	}
	if (!only_size(0, "never") && !range_map(&pmd, (size_t)pmd_kb << 10) && !bind_to(&pmd, node) &&
	    !only_size(t, "always")) {
		lower = pmd;
		lower.len = (size_t)small << 10;
		lower.n = 4;
		for (size_t i = 0; i < 8; i++)
			pmd.base[i * page] = (char)(i + 1);
		if (!madvise(pmd.base, lower.len, MADV_DONTNEED) && !only_size(small, "always")) {
			for (size_t i = 0; i < 4; i++)
				pmd.base[i * page] = (char)(i + 11);
			set_up = first_page_is_head(&lower) && page_has_flag(pmd.base + 5 * page, KPF_COMPOUND_TAIL);
		}
	}
	if (!set_up) {
		ktap_skip(row, "no %ldkB folio beside part of a %ldkB one (%s)", small, t, strerror(errno));
		only_size(0, "never");
		range_unmap(&pmd);
		return;
	}
	if (!only_size(t, "madvise") && !sys_read_long(KHUGEPAGED_DIR "/full_scans", &scans0) &&
	    !madvise(pmd.base, pmd.len, MADV_HUGEPAGE)) {
		t0 = now_s();
		while (now_s() - t0 < COLLAPSE_S && !sys_read_long(KHUGEPAGED_DIR "/full_scans", &scans) &&
		       scans < scans0 + 2)
			usleep(50000);
		ok = scans >= scans0 + 2;
		ktap_diag("full_scans %ld -> %ld in %.1f s", scans0, scans, now_s() - t0);
		for (size_t i = 0; ok && i < 8; i++)
			if (pmd.base[i * page] != (char)(i < 4 ? i + 11 : i + 1)) {
				ktap_diag("page %zu reads %d", i, pmd.base[i * page]);
				ok = 0;
			}
		if (ok && next >= 0)
			ok = moved_all(pmd.base, 8, next);
	}
	only_size(0, "never");
	range_unmap(&pmd);
	ktap_ok(ok, "%s", row);
}

static void print_stats(long kb)
{
	static const char *const names[] = { "anon_fault_alloc", "anon_fault_fallback", "split",
					     "split_failed", "collapse_alloc", "swpout" };
	char line[256] = "";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s=%lld", names[i],
			 stat_of(kb, names[i]));
	ktap_diag("hugepages-%ldkB/stats:%s", kb, line);
}

struct knob {
	const char *path, *value;
	char old[32];
};

static struct knob knobs[] = {
	{ KHUGEPAGED_DIR "/max_ptes_none", "0", "" },
	{ KHUGEPAGED_DIR "/scan_sleep_millisecs", "50", "" },
	{ KHUGEPAGED_DIR "/alloc_sleep_millisecs", "50", "" },
	{ THP_DIR "/defrag", "madvise", "" },
};

static void knobs_set(int set)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		char *v = knobs[i].old;

		if (set && (!strcmp(knobs[i].path, THP_DIR "/defrag") ?
			    thp_setting(knobs[i].path, v, sizeof(knobs[i].old)) :
			    sys_read(knobs[i].path, v, sizeof(knobs[i].old))))
			v[0] = '\0';
		if (v[0])
			sys_write(knobs[i].path, set ? knobs[i].value : v);
	}
}

/* The cases (harness.h); main() saves and sets the knobs around them. */
GUEST_CASE(place_and_migrate, nr_sizes * 2 * nr_nodes)
{
	for (int s = 0; s < nr_sizes; s++)
		for (int i = 0; i < nr_nodes; i++)
			place_and_migrate(sizes_kb[s], nodes[i], nodes[(i + 1) % nr_nodes]);
}

/*
 * Each size waits up to COLLAPSE_S for khugepaged: a kernel that collapses
 * none (the mutants recipe) must still get a verdict for every size, where
 * the default timeout cut 8 sizes off after 6.
 */
GUEST_CASE_TIMEOUT(collapse, nr_sizes, MAX_SIZES * COLLAPSE_S)
{
	for (int s = 0; s < nr_sizes; s++)
		collapse(sizes_kb[s], pmd_size() / 1024, nodes[0]);
}

/* Every chunk of a PMD range, not only the first (collapse_every_chunk()). */
GUEST_CASE_TIMEOUT(collapse_every_chunk, 1, COLLAPSE_S + 60)
{
	collapse_every_chunk(pmd_size() / 1024, nodes[0]);
}

/* The isolation khugepaged undoes when it meets a shared page (collapse_shared()). */
GUEST_CASE_TIMEOUT(collapse_shared, 2, 2 * COLLAPSE_S + 60)
{
	collapse_shared(pmd_size() / 1024, nodes[0]);
}

/* A failed collapse that gives back a folio smaller than its target (collapse_mixed()). */
GUEST_CASE_TIMEOUT(collapse_mixed, 1, COLLAPSE_S + 60)
{
	collapse_mixed(pmd_size() / 1024, nodes[0], nr_nodes > 1 ? nodes[1] : -1);
}

int main(void)
{
	page = (size_t)page_size();
	if (node_list("has_memory", nodes, MAX_NODES, &nr_nodes) || !nr_nodes)
		ktap_skip_all("cannot read " NODE_DIR "/has_memory");
	if (!read_sizes()) {
		/* A shape always offers THP to the lab's kernels: no sizes is a failure. */
		ktap_header(1);
		ktap_ok(0, "mTHP sizes in " THP_DIR "/hugepages-*kB");
		ktap_diag("the kernel offers no THP sizes (no CONFIG_TRANSPARENT_HUGEPAGE, or older than 6.8)");
		ktap_exit();
	}
	guest_header();
	ktap_diag("%d sizes from %ldkB to %ldkB, pages of %zu bytes, %d memory nodes", nr_sizes,
		  sizes_kb[0], sizes_kb[nr_sizes - 1], page, nr_nodes);
	save_enabled(0);
	knobs_set(1);
	guest_run();
	for (int s = 0; s < nr_sizes; s++)
		print_stats(sizes_kb[s]);
	knobs_set(0);
	save_enabled(1);
	ktap_exit();
}
