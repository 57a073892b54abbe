/*
 * migrate_pages(2) between node sets and move_pages(2)'s status array
 * (issue 33 (d)).
 *
 * migrate_pages(2): "Pages not located in any node in old_nodes will not be
 * migrated.  As far as possible, the kernel maintains the relative topology
 * relationship inside old_nodes during the migration to new_nodes."  The
 * kernel's reading of "as far as possible" (do_migrate_pages(), whose
 * comment gives "[2,3,4] -> [3,4,5] moves everything. [0-7] -> [3,4,5]
 * moves only 0,1,2,6,7."): the n-th node of old_nodes goes to the
 * (n mod |new_nodes|)-th of new_nodes (node_remap()), and when the two sets
 * differ in size a node that is in new_nodes keeps its pages.  Each
 * scenario puts one region of pages on each of some nodes (BIND, policy
 * dropped again), calls migrate_pages once and checks every region.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "numab.h"
#include "policy.h"

#define REGION_PAGES 8
#define MAX_REGIONS 4

struct mscenario {
	const char *name;
	const char *from, *to;       /* ranks of the memory nodes */
	const char *regions;         /* a region on each of these ranks ... */
	const char *after;           /* ... is on these ranks afterwards */
	int min_mem;
	const char *mutant;          /* mm/mempolicy.c:do_migrate_pages */
};

static const struct mscenario mscenarios[] = {
	/* Equal sizes, overlapping, shifted up: each node to the next; the order of the moves
	 * must not carry a region twice (m0's pages must not follow m1's on to m2). */
	{ "m0-2 -> m1-3 (equal size, overlapping): every region one node up", "012", "123", "012", "123", 4,
	  "`if (!node_isset(dest, tmp)) break;` -> `if (1) break;`" },
	{ "m1-3 -> m0-2 (equal size, overlapping): every region one node down", "123", "012", "123", "012", 4,
	  "`if (!node_isset(dest, tmp)) break;` -> `if (0) break;`" },
	/* Different sizes: nodes of new_nodes keep their pages, m0 goes to new_nodes' first. */
	{ "m0-2 -> m1,m2 (3 to 2): m0 to m1, m1 and m2 keep theirs", "012", "12", "012", "112", 3,
	  "`(nodes_weight(*from) != nodes_weight(*to)) &&` -> `==`" },
	/* Fewer sources than destinations: node_remap() names the first. */
	{ "m0 -> m1,m2 (1 to 2): all to m1", "0", "12", "0", "1", 3,
	  "`d = node_remap(s, *from, *to);` -> `+ 1`" },
	/* Two sources to one: both to it; a region outside old_nodes stays. */
	{ "m0,m1 -> m2 (2 to 1): both to m2, m3's region stays", "01", "2", "013", "223", 4,
	  "`for_each_node_mask(s, tmp)` loop's `if (s == d) continue;` -> `if (1) continue;`" },
	/* Two nodes: the smallest overlap. */
	{ "m0,m1 -> m1 (2 to 1): m0 to m1, m1 keeps its own", "01", "1", "01", "11", 2,
	  "`&& (node_isset(s, *to))` -> `|| (node_isset(s, *to))`" },
};
#define NR_MSCENARIOS (int)(sizeof(mscenarios) / sizeof(mscenarios[0]))
#define NR_MOVE_ROWS 16
#define RACE_S 8.0
#define RACE_BYTE 0x5a

static void run_mscenario(const struct nodes *n, const struct mscenario *s)
{
	char *regions[MAX_REGIONS] = { NULL };
	int nr = (int)strlen(s->regions), ok = 1, status[REGION_PAGES];
	unsigned long from = mem_mask(n, s->from), to = mem_mask(n, s->to);
	long left;

	for (int r = 0; ok && r < nr; r++)
		ok = (regions[r] = pages_on(n->mem[s->regions[r] - '0'], REGION_PAGES)) != NULL;
	if (ok) {
		left = p_migrate_pages(MAXNODE_LONG, &from, &to);
		if (left < 0) {
			ktap_diag("migrate_pages %s -> %s: %s", mask_str(from), mask_str(to), strerror(errno));
			ok = 0;
		} else if (left > 0) {
			/* The binary's own initramfs pages (ramfs pins them) count here; ours must move. */
			ktap_diag("migrate_pages: %ld pages of the task not moved", left);
		}
	}
	for (int r = 0; ok && r < nr; r++) {
		char what[64];

		snprintf(what, sizeof(what), "region %d (was on node %d)", r, n->mem[s->regions[r] - '0']);
		ok = pages_nodes(regions[r], REGION_PAGES, status) == 0 &&
		     all_on(status, REGION_PAGES, n->mem[s->after[r] - '0'], what);
	}
	for (int r = 0; r < nr; r++)
		unmap_pages(regions[r], REGION_PAGES);
	if (!ok)
		ktap_diag("kills mm/mempolicy.c:do_migrate_pages %s", s->mutant);
	ktap_ok(ok, "migrate_pages %s", s->name);
}

/*
 * move_pages(2) status without moving (nodes NULL): "-ENOENT The page is not present."
 * "-EFAULT This is a zero page or the memory area is not mapped by the process."
 * Kills mm/migrate.c:do_pages_stat_array `err = -ENOENT;` (no folio) -> `err = (-ENOENT) + 1;`
 * and `if (is_zero_folio(folio) || is_huge_zero_folio(folio))` -> `if (0)` (the zero page's
 * node reported).
 */
static int check_status(const struct nodes *n)
{
	size_t ps = (size_t)page_size();
	char *base = map_pages(4);
	void *pages[4];
	int status[4] = { 1, 1, 1, 1 }, ok;
	volatile char sink;

	if (!base)
		return 0;
	base[0] = 1;                          /* present */
	sink = base[ps];                      /* read only: the zero page */
	(void)sink;
	munmap(base + 3 * ps, ps);            /* page 2 untouched, page 3 unmapped */
	for (int i = 0; i < 4; i++)
		pages[i] = base + (size_t)i * ps;
	ok = p_move_pages(4, pages, NULL, status, 0) == 0;
	if (!ok || status[0] < 0 || status[1] != -EFAULT || status[2] != -ENOENT || status[3] != -EFAULT) {
		ktap_diag("status: %d %d %d %d (%s), want a node, -EFAULT, -ENOENT, -EFAULT", status[0],
			  status[1], status[2], status[3], strerror(errno));
		ok = 0;
	}
	(void)n;
	munmap(base, 3 * ps);
	return ok;
}

/*
 * move_pages with nodes: a page never touched gets -ENOENT ("The page is not present."), the
 * others move.  Kills mm/migrate.c:add_folio_for_migration `err = -ENOENT;` -> `(-ENOENT) - 1`.
 */
static int check_move_status(const struct nodes *n)
{
	size_t ps = (size_t)page_size();
	char *base = pages_on(n->mem[0], 2);
	void *pages[3];
	int nodes[3], status[3] = { 1, 1, 1 }, ok, extra;
	char *untouched = map_pages(1);

	if (!base || !untouched) {
		unmap_pages(base, 2);
		unmap_pages(untouched, 1);
		return 0;
	}
	pages[0] = base;
	pages[1] = untouched;
	pages[2] = base + ps;
	extra = n->mem[n->nr_mem - 1];
	nodes[0] = nodes[1] = nodes[2] = extra;
	ok = p_move_pages(3, pages, nodes, status, MPOL_MF_MOVE) >= 0 && status[0] == extra &&
	     status[1] == -ENOENT && status[2] == extra;
	if (!ok)
		ktap_diag("move_pages to node %d: status %d %d %d (%s), want %d -ENOENT %d", extra, status[0],
			  status[1], status[2], strerror(errno), extra, extra);
	unmap_pages(base, 2);
	unmap_pages(untouched, 1);
	return ok;
}

/*
 * move_pages with nodes, status per page: "-EFAULT This is a zero page or the memory area is
 * not mapped by the process."  Kills mm/migrate.c:__add_folio_for_migration
 * `if (is_zero_folio(folio) || is_huge_zero_folio(folio))` -> `if (0)` and its
 * `return -EFAULT;` -> `return (-EFAULT) - 1;`; add_folio_for_migration
 * `if (vma && vma_migratable(vma))` -> `||` (the hole's NULL vma dereferenced).
 */
static int check_move_efault(const struct nodes *n)
{
	size_t ps = (size_t)page_size();
	char *base = map_pages(2);
	void *pages[2];
	int nodes[2], status[2] = { 1, 1 }, ok;
	volatile char sink;

	if (!base)
		return 0;
	sink = base[0];                       /* read only: the zero page */
	(void)sink;
	munmap(base + ps, ps);                /* a hole */
	pages[0] = base;
	pages[1] = base + ps;
	nodes[0] = nodes[1] = n->mem[n->nr_mem - 1];
	ok = p_move_pages(2, pages, nodes, status, MPOL_MF_MOVE) == 0 && status[0] == -EFAULT &&
	     status[1] == -EFAULT;
	if (!ok)
		ktap_diag("move_pages: status %d %d (%s), want -EFAULT -EFAULT", status[0], status[1],
			  strerror(errno));
	munmap(base, ps);
	return ok;
}

/*
 * An error's status stays when later pages go to another node in one batch: [untouched -> m1,
 * A -> m0, B -> m0] is { -ENOENT, m0, m0 } ("The result of the move is reflected in status").
 * Kills mm/migrate.c:do_pages_move `current_node = NUMA_NO_NODE;` -> `(NUMA_NO_NODE) + 1`
 * (node 0 taken for the open batch: its start is not moved on, and m0's status written over
 * the error), so m0 must be node 0.
 */
static void check_status_kept(const struct nodes *n)
{
	const char *what = "move_pages: an error's status kept when the next pages go to node 0";
	size_t ps = (size_t)page_size();
	char *untouched, *base;
	void *pages[3];
	int nodes[3], status[3] = { 1, 1, 1 }, ok;

	if (n->nr_mem < 2 || n->mem[0] != 0) {
		ktap_skip(what, "needs two memory nodes, the first node 0");
		return;
	}
	untouched = map_pages(1);
	base = pages_on(n->mem[1], 2);
	ok = untouched && base;
	if (ok) {
		pages[0] = untouched;
		pages[1] = base;
		pages[2] = base + ps;
		nodes[0] = n->mem[1];
		nodes[1] = nodes[2] = 0;
		ok = p_move_pages(3, pages, nodes, status, MPOL_MF_MOVE) == 0 && status[0] == -ENOENT &&
		     status[1] == 0 && status[2] == 0;
		if (!ok)
			ktap_diag("status %d %d %d (%s), want -ENOENT 0 0", status[0], status[1], status[2],
				  strerror(errno));
	}
	unmap_pages(untouched, 1);
	unmap_pages(base, 2);
	ktap_ok(ok, "%s", what);
}

/*
 * A page the kernel holds and no LRU has: an io_uring's submission ring, mapped into the task
 * (vm_insert_pages()).  move_pages(2) "-EBUSY The page is currently busy and cannot be moved.
 * [...] another kernel subsystem is holding a reference to the page."  Kills
 * mm/migrate.c:__add_folio_for_migration `return -EBUSY;` -> `(-EBUSY) + 1`.
 */
#define NR_IO_URING_SETUP 425    /* the same on every architecture */
#define IO_URING_PARAMS_SIZE 120 /* struct io_uring_params, zeroed: the defaults */
#define IORING_OFF_SQ_RING 0

static void check_busy(const struct nodes *n)
{
	const char *what = "move_pages a page of an io_uring ring: -EBUSY";
	size_t ps = (size_t)page_size();
	char params[IO_URING_PARAMS_SIZE] = { 0 };
	int fd = (int)syscall(NR_IO_URING_SETUP, 4, params), status = 1, here = -1, to;
	void *ring = fd < 0 ? MAP_FAILED :
		mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);

	if (ring == MAP_FAILED || n->nr_mem < 2 || pages_nodes(ring, 1, &here) || here < 0) {
		ktap_skip(what, "no io_uring (%s), or one memory node", fd < 0 ? strerror(errno) : "mapped");
	} else {
		to = here == n->mem[0] ? n->mem[1] : n->mem[0];
		if (p_move_pages(1, &ring, &to, &status, MPOL_MF_MOVE) || status != -EBUSY)
			ktap_diag("ring page on node %d to node %d: status %d (%s), want -EBUSY", here, to,
				  status, strerror(errno));
		ktap_ok(status == -EBUSY, "%s", what);
	}
	if (ring != MAP_FAILED)
		munmap(ring, ps);
	if (fd >= 0)
		close(fd);
}

int expect_move_errno(int node, int want, const char *what)
{
	char *page = map_pages(1);
	void *pages[1] = { page };
	int status = 1, ok;

	if (page)
		page[0] = 1;
	ok = expect_errno(page ? p_move_pages(1, pages, &node, &status, MPOL_MF_MOVE) : 0, want, what);
	unmap_pages(page, 1);
	return ok;
}

/*
 * A page shared with a child (fork, the child sleeping): move_pages(2) "-EACCES The page is
 * mapped by multiple processes and can be moved only if MPOL_MF_MOVE_ALL is specified."; with
 * MPOL_MF_MOVE_ALL it moves (we are root: CAP_SYS_NICE).
 */
static void check_shared(const struct nodes *n)
{
	char *base = n->nr_mem > 1 ? pages_on(n->mem[0], 1) : NULL;
	int to = n->mem[n->nr_mem - 1], status = 1, ok1 = 0, ok2 = 0;
	void *pages[1] = { base };
	pid_t child = -1;
	int pipefd[2];
	char c;

	if (n->nr_mem < 2) {
		ktap_skip("move_pages a shared page without MOVE_ALL: -EACCES", "one memory node");
		ktap_skip("move_pages a shared page with MOVE_ALL: moved", "one memory node");
		return;
	}
	if (base && pipe(pipefd) == 0) {
		child = fork();
		if (child == 0) {
			close(pipefd[0]);
			if (write(pipefd[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(pipefd[1]);
		if (child > 0 && read(pipefd[0], &c, 1) == 1) {
			/* Kills mm/migrate.c:__add_folio_for_migration
			 * `if (folio_maybe_mapped_shared(folio) && !migrate_all)` -> `if (0)`. */
			ok1 = p_move_pages(1, pages, &to, &status, MPOL_MF_MOVE) >= 0 && status == -EACCES;
			if (!ok1)
				ktap_diag("shared page, MPOL_MF_MOVE: status %d (%s), want -EACCES", status,
					  strerror(errno));
			/* Kills mm/migrate.c:__add_folio_for_migration
			 * `folio_maybe_mapped_shared(folio) && !migrate_all` -> `||`. */
			status = 1;
			ok2 = p_move_pages(1, pages, &to, &status, MPOL_MF_MOVE_ALL) >= 0 && status == to;
			if (!ok2)
				ktap_diag("shared page, MPOL_MF_MOVE_ALL: status %d (%s), want %d", status,
					  strerror(errno), to);
		}
		close(pipefd[0]);
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
	}
	unmap_pages(base, 1);
	ktap_ok(ok1, "move_pages a shared page without MOVE_ALL: -EACCES");
	ktap_ok(ok2, "move_pages a shared page with MOVE_ALL: moved");
}

/*
 * migrate_pages(2) and move_pages(2) of a kernel thread (kthreadd, pid 2): it has no memory of
 * its own to move, and Linux refuses it with EINVAL rather than report 0 pages not moved.  Kills
 * mm/mempolicy.c:kernel_migrate_pages `err = -EINVAL;` removed (the task without an mm: 0).
 */
static void check_kthread(const struct nodes *n)
{
	const char *what = "migrate_pages of a kernel thread (kthreadd)";
	const char *what_move = "move_pages of a kernel thread (kthreadd)";
	unsigned long mask = 1UL << n->mem[0];
	void *page = NULL;
	int status = 1;
	char comm[32];

	if (sys_read("/proc/2/comm", comm, sizeof(comm)) || strcmp(comm, "kthreadd")) {
		ktap_skip(what, "pid 2 is not kthreadd here");
		ktap_skip(what_move, "pid 2 is not kthreadd here");
		return;
	}
	expect_errno(syscall(SYS_migrate_pages, 2, MAXNODE_LONG, &mask, &mask), EINVAL, what);
	/* The same for move_pages(2): find_mm_struct() finds no mm.  Kills mm/migrate.c:find_mm_struct
	 * `mm = ERR_PTR(-EINVAL);` -> `(ERR_PTR(-EINVAL)) + 1` (2554ecd60fef: a pointer that is no
	 * error, used as the mm). */
	expect_errno(syscall(SYS_move_pages, 2, 1, &page, NULL, &status, 0), EINVAL, what_move);
}

/* A node of n other than node (the last memory node, or the first when node is it). */
static int other_node(const struct nodes *n, int node)
{
	return n->mem[n->nr_mem - 1] != node ? n->mem[n->nr_mem - 1] : n->mem[0];
}

/* move_pages(2) of pid: one page, nodes NULL (a query) when to < 0; its status, or INT_MIN on error. */
static int move_of(pid_t pid, void *page, int to)
{
	int status = INT_MIN;

	if (syscall(SYS_move_pages, pid, 1, &page, to < 0 ? NULL : &to, &status, to < 0 ? 0 : MPOL_MF_MOVE) < 0)
		return INT_MIN;
	return status;
}

/*
 * move_pages(2) of another process: "pid is the ID of the process in which pages are to be
 * moved" and "To move pages in another process requires the following privileges: ... the
 * caller must be privileged (CAP_SYS_NICE) or the real or effective user ID of the calling
 * process must match the real or saved-set user ID of the target process".  A child writes its
 * own copy of a page mapped before the fork; we (root) query it, move it to another node, and
 * the child's own query (pid 0) must then see it there.  Kills mm/migrate.c:find_mm_struct
 * `*mem_nodes = cpuset_mems_allowed(task);` removed (an empty mask: -EACCES) and its
 * `mm = get_task_mm(task);` -> `mm = NULL` (-EINVAL).
 */
static int check_other_process(const struct nodes *n)
{
	char *page = mmap(NULL, (size_t)page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int up[2] = { -1, -1 }, down[2] = { -1, -1 }, was = INT_MIN, moved = INT_MIN, seen = INT_MIN, to = -1;
	pid_t child = -1;
	char c = 'x';

	if (page == MAP_FAILED || pipe(up) || pipe(down)) {
		ktap_diag("mmap or pipe: %s", strerror(errno));
		goto out;
	}
	child = fork();
	if (child == 0) {
		int mine;

		page[0] = 1;
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(1);
		mine = move_of(0, page, -1);
		_exit(write(up[1], &mine, sizeof(mine)) == sizeof(mine) ? 0 : 1);
	}
	if (child < 0 || read(up[0], &c, 1) != 1)
		goto out;
	was = move_of(child, page, -1);
	to = was >= 0 ? other_node(n, was) : -1;
	moved = to >= 0 ? move_of(child, page, to) : INT_MIN;
	if (write(down[1], &c, 1) != 1 || read(up[0], &seen, sizeof(seen)) != sizeof(seen))
		seen = INT_MIN;
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0)
			close(up[i]);
		if (down[i] >= 0)
			close(down[i]);
	}
	if (page != MAP_FAILED)
		munmap(page, (size_t)page_size());
	if (was < 0 || moved != to || seen != to)
		ktap_diag("the child's page: on %d, status %d after the move to %d, the child sees it on %d (%s)",
			  was, moved, to, seen, strerror(errno));
	return was >= 0 && moved == to && seen == to;
}

/*
 * move_pages(2) of the caller's own pid is a move of the caller's pages, as with pid 0.
 * Kills mm/migrate.c:find_mm_struct `mm = ERR_PTR(security_task_movememory(task));` ->
 * `(ERR_PTR(...)) - 1` (18890b17492b: an error pointer for every pid but 0).
 */
static int check_own_pid(const struct nodes *n)
{
	char *page = map_pages(1);
	int was, to, moved;

	if (!page)
		return 0;
	page[0] = 1;
	was = move_of(0, page, -1);
	to = was >= 0 ? other_node(n, was) : -1;
	moved = to >= 0 ? move_of(getpid(), page, to) : INT_MIN;
	if (moved != to || move_of(0, page, -1) != to)
		ktap_diag("move_pages(getpid()) of a page on %d to %d: status %d (%s)", was, to, moved,
			  strerror(errno));
	unmap_pages(page, 1);
	return was >= 0 && moved == to;
}

/*
 * move_pages(2) "EPERM ... the caller attempted to move pages of a process belonging to
 * another user but did not have privilege to do so (CAP_SYS_NICE)": a child that became
 * nobody (uid and gid 65534, no capabilities left) asks for our pages.  Kills
 * mm/migrate.c:find_mm_struct `if (!ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS))` ->
 * `if (0)`.
 */
static int check_other_user(void)
{
	char *page = map_pages(1);
	pid_t parent = getpid(), child;
	int status = -1;

	if (!page)
		return 0;
	page[0] = 1;
	child = fork();
	if (child == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		_exit(move_of(parent, page, -1) == INT_MIN && errno == EPERM ? 0 : 1);
	}
	if (child > 0)
		waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		ktap_diag("nobody's move_pages of root's page: child status %#x (1: not EPERM, 2: setuid failed)",
			  status);
	unmap_pages(page, 1);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct mprotect_loop {
	char *huge;
	volatile int stop;
	long rounds;
};

/* Read-only and back to read-write, over and over, until stop. */
static void *mprotect_loop(void *arg)
{
	struct mprotect_loop *m = arg;
	size_t pmd = (size_t)pmd_size();

	while (!m->stop && !mprotect(m->huge, pmd, PROT_READ) && !mprotect(m->huge, pmd, PROT_READ | PROT_WRITE))
		m->rounds++;
	return NULL;
}

/*
 * A THP moved between two nodes with move_pages(2) for RACE_S while a second thread
 * mprotect()s it read-only and back: 1 if every move succeeded, the THP's bytes are all
 * RACE_BYTE after, and the thread went round, 0 if not, -1 without a THP.  mprotect(2)
 * changes "the access protections for the calling process's memory pages" whatever they are
 * doing meanwhile: a THP being migrated is mapped by a migration entry for the copy, and the
 * protection must reach the new PMD (change_non_present_huge_pmd()).
 */
static int thp_move_under_mprotect(int a, int b)
{
	char *map, *huge = thp_on(a, &map);
	size_t pmd = (size_t)pmd_size();
	struct mprotect_loop m = { .huge = huge };
	long moves = 0, bad = -1;
	int to = b, status = -1, ok = 0;
	void *page = huge;
	pthread_t thread;
	double t0;

	if (!huge) {
		if (map)
			munmap(map, 2 * pmd);
		return -1;
	}
	memset(huge, RACE_BYTE, pmd);
	errno = pthread_create(&thread, NULL, mprotect_loop, &m);
	if (errno) {
		ktap_diag("no mprotect thread: %s", strerror(errno));
		munmap(map, 2 * pmd);
		return 0;
	}
	for (t0 = numab_now(); numab_now() - t0 < RACE_S; to = to == a ? b : a, moves++)
		/* A move the mprotect() thread got in the way of may report the page not moved
		 * (a positive count, status -EAGAIN or -EBUSY): the next one tries again. */
		if (p_move_pages(1, &page, &to, &status, MPOL_MF_MOVE) < 0 ||
		    (status != to && status != -EAGAIN && status != -EBUSY)) {
			ktap_diag("move_pages of the THP to node %d: %s, status %d", to, strerror(errno), status);
			break;
		}
	m.stop = 1;
	pthread_join(thread, NULL);
	for (size_t i = 0; i < pmd && bad < 0; i++)
		if (huge[i] != RACE_BYTE)
			bad = (long)i;
	ok = numab_now() - t0 >= RACE_S && bad < 0 && m.rounds > 0;
	ktap_diag("%ld moves, %ld mprotect rounds in %.0f s%s", moves, m.rounds, RACE_S,
		  bad >= 0 ? ", and a byte changed" : "");
	if (bad >= 0)
		ktap_diag("byte %ld reads %#x, want %#x", bad, (unsigned char)huge[bad], RACE_BYTE);
	munmap(map, 2 * pmd);
	return ok;
}

int move_plan(const struct nodes *n)
{
	(void)n;
	return NR_MSCENARIOS + NR_MOVE_ROWS;
}

void move_run(const struct nodes *n)
{
	for (int i = 0; i < NR_MSCENARIOS; i++) {
		char name[256];

		snprintf(name, sizeof(name), "migrate_pages %s", mscenarios[i].name);
		if (n->nr_mem < mscenarios[i].min_mem)
			ktap_skip(name, "fewer than %d memory nodes", mscenarios[i].min_mem);
		else
			run_mscenario(n, &mscenarios[i]);
	}
	ktap_ok(check_status(n), "move_pages query: a node, -EFAULT (zero page), -ENOENT, -EFAULT (unmapped)");
	ktap_ok(check_move_status(n), "move_pages: an untouched page -ENOENT, the others moved");
	check_shared(n);
	/* move_pages(2) "ENODEV One of the target nodes is not online."
	 * Kills mm/migrate.c:do_pages_move `if (!node_state(node, N_MEMORY))` -> `if (0)`. */
	expect_move_errno(62, ENODEV, "move_pages to node 62 (offline)");
	ktap_ok(check_move_efault(n), "move_pages with nodes: a zero page -EFAULT, a hole -EFAULT");
	check_status_kept(n);
	check_busy(n);
	/* move_pages(2) "EINVAL Flags other than MPOL_MF_MOVE and MPOL_MF_MOVE_ALL was specified".
	 * Kills mm/migrate.c:kernel_move_pages `if (flags & ~(MPOL_MF_MOVE|MPOL_MF_MOVE_ALL))` ->
	 * `if (0)` and its `return -EINVAL;` -> `(-EINVAL) + 1`. */
	expect_errno(p_move_pages(0, NULL, NULL, NULL, MPOL_MF_STRICT), EINVAL,
		     "move_pages with MPOL_MF_STRICT");
	/* "ESRCH Process does not exist."  Kills mm/migrate.c:kernel_move_pages
	 * `return PTR_ERR(mm);` -> `(PTR_ERR(mm)) - 1`. */
	expect_errno(syscall(SYS_move_pages, INT_MAX, 0, NULL, NULL, NULL, 0), ESRCH,
		     "move_pages of a pid that does not exist");
	check_kthread(n);
	if (n->nr_mem < 2) {
		ktap_skip("move_pages of another process's page: queried and moved", "one memory node");
		ktap_skip("move_pages of the caller's own pid: as pid 0", "one memory node");
	} else {
		ktap_ok(check_other_process(n), "move_pages of another process's page: queried and moved");
		ktap_ok(check_own_pid(n), "move_pages of the caller's own pid: as pid 0");
	}
	ktap_ok(check_other_user(), "move_pages of another user's process without CAP_SYS_NICE: EPERM");
	/* Kills mm/huge_memory.c:change_huge_pmd `if (thp_migration_supported() &&
	 * pmd_is_valid_softleaf(*pmd))` -> `if (0)` (109bc2d0bf8e: a migration entry taken for a
	 * present PMD and rewritten as one). */
	if (n->nr_mem < 2) {
		ktap_skip("move_pages of a THP back and forth under mprotect: moved, contents kept",
			  "one memory node");
	} else {
		int r = thp_move_under_mprotect(n->mem[0], n->mem[n->nr_mem - 1]);

		if (r < 0)
			ktap_skip("move_pages of a THP back and forth under mprotect: moved, contents kept",
				  "no THP could be faulted on node %d", n->mem[0]);
		else
			ktap_ok(r, "move_pages of a THP back and forth under mprotect: moved, contents kept");
	}
}
