/*
 * Moving pages between nodes: migrate_pages() moves every page of the task
 * from one node set to another; move_pages() puts each page on the node
 * asked for it and reports per-page status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "mempolicy.h"

#define NR_PAGES 32

/* A region faulted on node `from` (BIND), its policy dropped again. */
static char *region_on(int from, int *status)
{
	size_t len = NR_PAGES * (size_t)page_size();
	char *base = map_pages(NR_PAGES);

	if (!base)
		return NULL;
	if (sys_mbind(base, len, MPOL_BIND, 1UL << from)) {
		ktap_diag("mbind node %d: %s", from, strerror(errno));
		munmap(base, len);
		return NULL;
	}
	memset(base, 1, len);
	/* Back to default, so the policy does not hold the pages on `from`. */
	sys_mbind(base, len, MPOL_DEFAULT, 0);
	if (pages_nodes(base, NR_PAGES, status)) {
		munmap(base, len);
		return NULL;
	}
	return base;
}

static int all_on(const int *status, int node, const char *when)
{
	for (int i = 0; i < NR_PAGES; i++)
		if (status[i] != node) {
			ktap_diag("%s: page %d on node %d, want node %d", when, i, status[i], node);
			return 0;
		}
	return 1;
}

static void check_migrate_pages(int from, int to)
{
	int status[NR_PAGES], ok = 0;
	char *base = region_on(from, status);
	long left;

	if (base && all_on(status, from, "before migrate_pages")) {
		left = sys_migrate_pages(1UL << from, 1UL << to);
		if (left < 0)
			ktap_diag("migrate_pages: %s", strerror(errno));
		/*
		 * It moves the whole task: pages it cannot move (the binary's own
		 * pages in the initramfs, which ramfs pins) are counted here, ours
		 * must all have moved.
		 */
		else if (left > 0)
			ktap_diag("migrate_pages: %ld pages of the task not moved", left);
		ok = left >= 0 && pages_nodes(base, NR_PAGES, status) == 0 &&
		     all_on(status, to, "after migrate_pages");
	}
	if (base)
		munmap(base, NR_PAGES * (size_t)page_size());
	ktap_ok(ok, "migrate_pages node %d -> %d", from, to);
}

/* Page i goes to nodes[i % nr]: every node gets some, status says where each went. */
static void check_move_pages(const struct nodes *n)
{
	int status[NR_PAGES], target[NR_PAGES], ok = 0;
	void *pages[NR_PAGES];
	size_t ps = (size_t)page_size();
	char *base = region_on(n->mem[0], status);

	if (base) {
		for (int i = 0; i < NR_PAGES; i++) {
			pages[i] = base + (size_t)i * ps;
			target[i] = n->mem[i % n->nr_mem];
		}
		if (sys_move_pages(NR_PAGES, pages, target, status, MPOL_MF_MOVE))
			ktap_diag("move_pages: %s", strerror(errno));
		else
			ok = 1;
		for (int i = 0; ok && i < NR_PAGES; i++)
			if (status[i] != target[i]) {
				ktap_diag("page %d: status %d, asked for node %d", i, status[i], target[i]);
				ok = 0;
			}
		if (ok && pages_nodes(base, NR_PAGES, status) == 0)
			for (int i = 0; ok && i < NR_PAGES; i++)
				ok = status[i] == target[i];
		munmap(base, NR_PAGES * ps);
	}
	ktap_ok(ok, "move_pages spreads %d pages over nodes %d..%d", NR_PAGES, n->mem[0],
		n->mem[n->nr_mem - 1]);
}

int migrate_plan(const struct nodes *n)
{
	(void)n;
	return 3;
}

void migrate_run(const struct nodes *n)
{
	if (n->nr_mem < 2) {
		for (int i = 0; i < 3; i++)
			ktap_skip("migration", "one memory node: nowhere to move to");
		return;
	}
	check_migrate_pages(n->mem[0], n->mem[n->nr_mem - 1]);
	check_migrate_pages(n->mem[n->nr_mem - 1], n->mem[0]);
	check_move_pages(n);
}
