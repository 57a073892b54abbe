/*
 * One THP per memory node: mbind() a PMD-aligned, PMD-size range to the node,
 * MADV_HUGEPAGE, fault it, then move_pages() it to the next memory node.
 * "Whole" means the range is still one huge page after the move: a THP
 * the kernel could not migrate as such is split and moved as base pages,
 * and smaps' AnonHugePages for the range drops to 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"
#include "thp.h"

#define MPOL_BIND 2
#define MPOL_MF_MOVE (1 << 1)
#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

struct thp_region {
	char *map;                 /* the mmap()ed 2 * pmd bytes */
	char *huge;                /* its PMD-aligned pmd bytes */
	size_t pmd, page;
	unsigned long nr_pages;    /* base pages in one PMD */
	void **pages;
	int *status;
	int *target;
};

static int memory_node_after(const struct topology *t, int node)
{
	for (int i = 1; i <= t->nr_nodes; i++) {
		int next = (node + i) % t->nr_nodes;

		if (t->nodes[next].mem_bytes)
			return next;
	}
	return node;
}

static int nr_memory_nodes(const struct topology *t)
{
	int n = 0;

	for (int i = 0; i < t->nr_nodes; i++)
		n += t->nodes[i].mem_bytes != 0;
	return n;
}

int thp_plan(const struct topology *t)
{
	return 2 * nr_memory_nodes(t);
}

static int region_alloc(struct thp_region *r, size_t pmd)
{
	memset(r, 0, sizeof(*r));
	r->pmd = pmd;
	r->page = (size_t)page_size();
	r->nr_pages = pmd / r->page;
	r->map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->map == MAP_FAILED) {
		ktap_diag("mmap %zu bytes: %s", 2 * pmd, strerror(errno));
		return -1;
	}
	r->huge = (char *)(((uintptr_t)r->map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	r->pages = calloc(r->nr_pages, sizeof(*r->pages));
	r->status = calloc(r->nr_pages, sizeof(*r->status));
	r->target = calloc(r->nr_pages, sizeof(*r->target));
	if (!r->pages || !r->status || !r->target) {
		ktap_diag("out of memory");
		return -1;
	}
	for (unsigned long i = 0; i < r->nr_pages; i++)
		r->pages[i] = r->huge + i * r->page;
	return 0;
}

static void region_free(struct thp_region *r)
{
	if (r->map && r->map != MAP_FAILED)
		munmap(r->map, 2 * r->pmd);
	free(r->pages);
	free(r->status);
	free(r->target);
}

/* Is the range one THP with every base page on node?  Says why not. */
static int region_is_thp_on(struct thp_region *r, int node)
{
	long long huge = smaps_anon_huge(r->huge);
	unsigned long off = 0;

	if (syscall(SYS_move_pages, 0, r->nr_pages, r->pages, NULL, r->status, 0)) {
		ktap_diag("move_pages (query): %s", strerror(errno));
		return 0;
	}
	while (off < r->nr_pages && r->status[off] == node)
		off++;
	if (off < r->nr_pages)
		ktap_diag("page %lu of %lu is on node %d, not node %d", off, r->nr_pages,
			  r->status[off], node);
	if (huge != (long long)r->pmd)
		ktap_diag("AnonHugePages %lld bytes, want one %zu-byte THP", huge, r->pmd);
	return off == r->nr_pages && huge == (long long)r->pmd;
}

static int fault_on(struct thp_region *r, int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_mbind, r->huge, r->pmd, MPOL_BIND, &mask, sizeof(mask) * CHAR_BIT + 1, 0)) {
		ktap_diag("mbind node %d: %s", node, strerror(errno));
		return 0;
	}
	if (madvise(r->huge, r->pmd, MADV_HUGEPAGE)) {
		ktap_diag("madvise(MADV_HUGEPAGE): %s", strerror(errno));
		return 0;
	}
	r->huge[0] = 1;            /* one fault maps the whole PMD */
	return region_is_thp_on(r, node);
}

static int migrate_to(struct thp_region *r, int node)
{
	for (unsigned long i = 0; i < r->nr_pages; i++)
		r->target[i] = node;
	if (syscall(SYS_move_pages, 0, r->nr_pages, r->pages, r->target, r->status,
		    MPOL_MF_MOVE)) {
		ktap_diag("move_pages to node %d: %s", node, strerror(errno));
		return 0;
	}
	return region_is_thp_on(r, node);
}

static void check_node(const struct topology *t, int node, size_t pmd)
{
	unsigned long mib = (unsigned long)(pmd >> 20);
	struct thp_region r;
	int to = memory_node_after(t, node);
	int placed = 0, moved = 0;

	if (region_alloc(&r, pmd) == 0) {
		placed = fault_on(&r, node);
		moved = placed && migrate_to(&r, to);
	}
	region_free(&r);
	ktap_ok(placed, "thp %luM faulted on node %d", mib, node);
	if (!placed)
		ktap_skip("thp migrate", "no THP was placed on node %d", node);
	else
		ktap_ok(moved, "thp %luM migrated whole node %d -> %d", mib, node, to);
}

static void skip_all(const struct topology *t, const char *why)
{
	for (int i = 0; i < thp_plan(t); i++)
		ktap_skip("thp", "%s", why);
}

void check_thp(const struct topology *t)
{
	long pmd = pmd_size();
	char mode[32];

	if (pmd <= 0 || thp_setting(THP_ENABLED, mode, sizeof(mode))) {
		skip_all(t, "the kernel has no transparent huge pages");
		return;
	}
	if (strcmp(mode, "never") == 0 && sys_write(THP_ENABLED, "madvise")) {
		ktap_diag("enable THP (madvise): %s", strerror(errno));
		skip_all(t, "THP is off and cannot be switched to madvise");
		return;
	}
	for (int i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].mem_bytes)
			check_node(t, i, (size_t)pmd);
	if (strcmp(mode, "never") == 0)
		sys_write(THP_ENABLED, "never");
}
