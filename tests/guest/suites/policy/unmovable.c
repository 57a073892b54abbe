/*
 * move_pages(2) with a page the kernel cannot move: its return value.
 *
 * move_pages(2) RETURN VALUE: "If positive value is returned, it is the
 * number of nonmigrated pages" ("if they were the result of nonfatal
 * reasons (since Linux 4.17)").  Since 5984fabb6e82 ("mm: move_pages:
 * report the number of non-attempted pages") the pages the call gave up on
 * without trying count too: the call stops at the first batch that failed.
 *
 * The unmovable page: one vmsplice(2)d into a pipe nobody reads, whose
 * buffer holds a reference the migration cannot account for (the man
 * page's "another kernel subsystem is holding a reference to the page").
 * Its status is not checked: the man page says -EBUSY, Linux leaves it
 * unwritten when a batch fails (move_pages_and_store_status()); not a row.
 * Reading the pipe drops the reference, and the page moves again ("Try
 * again later").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ktap.h"
#include "policy.h"

#define NR_UNMOVABLE_ROWS 5

struct pipe_ref {
	int pipefd[2];
};

/* A reference on page held by a pipe buffer until pipe_ref_drop(); 0, or -1 (diag printed). */
static int pipe_ref_take(struct pipe_ref *p, char *page)
{
	struct iovec iov = { page, (size_t)page_size() };

	if (pipe(p->pipefd)) {
		ktap_diag("pipe: %s", strerror(errno));
		return -1;
	}
	if (vmsplice(p->pipefd[1], &iov, 1, 0) != (ssize_t)iov.iov_len) {
		ktap_diag("vmsplice: %s", strerror(errno));
		close(p->pipefd[0]);
		close(p->pipefd[1]);
		return -1;
	}
	return 0;
}

static void pipe_ref_drop(struct pipe_ref *p)
{
	char buf[4096];

	close(p->pipefd[1]);
	while (read(p->pipefd[0], buf, sizeof(buf)) > 0)
		;
	close(p->pipefd[0]);
}

/* move_pages of base's pages i (order[]) to nodes[]: its return value, with a diag on -1. */
static long move_some(char *base, const int *order, const int *nodes, int nr, int *status)
{
	void *pages[4];
	long rc;

	for (int i = 0; i < nr; i++) {
		pages[i] = base + (size_t)order[i] * (size_t)page_size();
		status[i] = INT32_MIN;
	}
	rc = p_move_pages((unsigned long)nr, pages, nodes, status, MPOL_MF_MOVE);
	if (rc < 0)
		ktap_diag("move_pages: %s", strerror(errno));
	return rc;
}

static int want_rc(long rc, long want, const char *what)
{
	if (rc != want)
		ktap_diag("%s: move_pages returned %ld, want %ld", what, rc, want);
	return rc == want;
}

/* Where page i of base is; -1 on failure. */
static int node_of(char *base, int i)
{
	int status;

	return pages_nodes(base + (size_t)i * (size_t)page_size(), 1, &status) ? -1 : status;
}

int unmovable_plan(const struct nodes *n)
{
	(void)n;
	return NR_UNMOVABLE_ROWS;
}

void unmovable_run(const struct nodes *n)
{
	/* Page 0 pinned; 1..3 movable.  All on m0 (here), moved to m1 (there). */
	int here = n->mem[0], there = n->nr_mem > 1 ? n->mem[1] : -1, status[4];
	char *base = there >= 0 ? pages_on(here, 4) : NULL;
	struct pipe_ref p;
	int ok = base && pipe_ref_take(&p, base) == 0;

	if (there < 0) {
		for (int i = 0; i < NR_UNMOVABLE_ROWS; i++)
			ktap_skip("move_pages with a pinned page", "one memory node");
		return;
	}
	/* Kills mm/migrate.c:__add_folio_for_migration `if (folio_nid(folio) == node) return 0;`
	 * -> `if (0)` (the page already there isolated, its migration failing). */
	ktap_ok(ok && want_rc(move_some(base, (int[]){ 0 }, (int[]){ here }, 1, status), 0,
			      "pinned, already there") && status[0] == here,
		"move_pages a pinned page to the node it is on: 0, its node");
	/* Kills mm/migrate.c:move_pages_and_store_status `return err;` -> `return (err) - 1;`. */
	ktap_ok(ok && want_rc(move_some(base, (int[]){ 1, 0, 2 }, (int[]){ there, there, there }, 3, status),
			      1, "one batch") &&
		node_of(base, 1) == there && node_of(base, 2) == there && node_of(base, 0) == here,
		"move_pages 3 pages, one pinned: returns 1, the other two moved");
	/* Page 1 (now there) goes back here: a second batch.  The first fails, so page 1 is
	 * not tried and counts.  Kills mm/migrate.c:move_pages_and_store_status
	 * `if (err > 0) err += nr_pages - i;` -> `if (0)`. */
	ktap_ok(ok && want_rc(move_some(base, (int[]){ 0, 1 }, (int[]){ there, here }, 2, status), 2,
			      "two batches") && node_of(base, 1) == there,
		"move_pages a pinned page, then one to another node: returns 2, the second not tried");
	/* Page 1 is already there: it counts as done, page 3 (not tried) does not.  Kills
	 * mm/migrate.c:do_pages_move `if (err > 0) err--;` ("accounted for page i") -> `if (0)`. */
	ktap_ok(ok && want_rc(move_some(base, (int[]){ 0, 1, 3 }, (int[]){ there, there, there }, 3, status),
			      2, "a page already there") && status[1] == there && node_of(base, 3) == here,
		"move_pages a pinned page, one already there, one more: returns 2");
	if (ok)
		pipe_ref_drop(&p);
	/* The failed batch went back to the LRU: once the pipe is read the page moves.  Kills
	 * mm/migrate.c:do_move_pages_to_node `if (err) putback_movable_pages(pagelist);` ->
	 * `if (0)` (the page left isolated: -EBUSY for ever). */
	ktap_ok(ok && want_rc(move_some(base, (int[]){ 0 }, (int[]){ there }, 1, status), 0, "unpinned") &&
		status[0] == there,
		"move_pages the page once the pipe is read: moved");
	unmap_pages(base, 4);
}
