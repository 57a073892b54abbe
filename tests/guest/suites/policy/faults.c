/*
 * NUMA balancing's account of a task's hinting faults, as /proc/PID/sched
 * shows it (kernel/sched/debug.c, sched_show_numa()): numa_pages_migrated
 * and a line per node, "numa_faults node=N
 * task_private=P task_shared=S ...".  include/linux/sched.h: these are the
 * "Exponential decaying average of faults on a per-node basis.  Scheduling
 * placement decisions are made based on these counts"; a fault is private
 * when the task that takes it is the one that took the page's last one
 * (or the page's first), and counted for the node the page is on once the
 * fault is handled (task_numa_fault()'s mem_node).  cgroup-v2.rst:
 * numa_pages_migrated is the "Number of pages migrated by NUMA balancing".
 *
 * Each row runs in a child of its own, so the counts start from nothing (a
 * new task has no numa_faults) and hold only what the row made: a THP of
 * HPAGE_PMD_NR pages, which every hinting fault on it counts whole, beside
 * the few base pages (stack, data) the child writes.  A second thread
 * idles in the THP rows, since the scanner skips a folio on the node a
 * single-threaded process runs on (folio_can_map_prot_numa()).
 *
 * The hinting fault also restores the PMD writable when the THP is the
 * process's alone (can_change_pmd_writable(), "mm/mprotect: try avoiding
 * write faults for exclusive anonymous pages when changing protection",
 * v5.19): the write that took it goes on without a second, write fault,
 * counted in getrusage(2)'s ru_minflt ("page faults serviced without any I/O
 * activity").
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "ktap.h"
#include "numab.h"
#include "policy.h"
#include "sys.h"

#define FAULTS_S 30.0
#define SHARED_S 45.0             /* a scan pass per round, a few rounds: 12 s on a loaded host */
#define SLICE_S 0.2
#define CHILD_S 70
#define NO_THP 2                  /* a child's exit status: no THP could be had */
#define WRITABLE_ROUNDS 3
#define WRITABLE_S 50.0

/* The largest of each count over the reads of a row. */
static void stats_max(struct numab_stats *max, const struct numab_stats *s)
{
	for (int i = 0; i < MAX_NODES; i++) {
		if (s->priv[i] > max->priv[i])
			max->priv[i] = s->priv[i];
		if (s->shared[i] > max->shared[i])
			max->shared[i] = s->shared[i];
	}
}

/* A THP's pages: what one hinting fault on it counts (an eighth is more than a child's base pages). */
static long thp_pages(void)
{
	return pmd_size() / page_size();
}

static void *idle_thread(void *arg)
{
	char c;

	return (void *)(long)read(*(int *)arg, &c, 1);
}

struct thp_child {
	const struct nodes *n;
	int cpu_node, thp_node;       /* pinned to the one, the THP faulted on the other (or the same) */
	int thp_node_has_cpu;         /* thp_node is a top-tier node with CPUs, not a CPU-less one */
};

/*
 * The child of both THP rows: pinned to cpu_node with a THP on thp_node, it writes the THP
 * until the THP is on cpu_node and cpu_node's private count holds it (a placement after the
 * fault), for FAULTS_S at most; its exit status 0 when the counts are as they should be.
 */
static void thp_child(void *arg)
{
	const struct thp_child *c = arg;
	long want = thp_pages(), noise = want / 8;
	struct numab_stats s, max = { 0 };
	int go[2], on = -1, ok = 1;
	double t0 = numab_now();
	long long failed = vmstat("thp_migration_fail");
	pthread_t idler;
	char *map, *huge;

	if (pin_to_node(c->cpu_node) || pipe(go) || pthread_create(&idler, NULL, idle_thread, &go[0]))
		_exit(1);
	huge = thp_on(c->thp_node, &map);
	if (!huge)
		_exit(NO_THP);
	do {
		numab_touch_for(huge, (size_t)pmd_size(), (size_t)page_size(), SLICE_S);
		if (numab_stats(&s)) {
			ktap_diag("no NUMA balancing statistics in /proc/self/sched");
			_exit(1);
		}
		stats_max(&max, &s);
		pages_nodes(huge, 1, &on);
	} while (!(on == c->cpu_node && s.priv[c->cpu_node] >= want / 2) && numab_now() - t0 < FAULTS_S);
	ktap_diag("after %.1f s: THP on node %d, numa_pages_migrated %ld, node %d private %ld (%ld at most), "
		  "shared %ld at most", numab_now() - t0, on, s.migrated, c->cpu_node, s.priv[c->cpu_node],
		  max.priv[c->cpu_node], max.shared[c->cpu_node]);
	if (on != c->cpu_node || s.priv[c->cpu_node] < want / 2) {
		ktap_diag("node %d's private count never held the THP's %ld pages", c->cpu_node, want);
		ok = 0;
	}
	if (max.shared[c->cpu_node] >= noise) {
		ktap_diag("a THP only this task writes counted shared on node %d: %ld", c->cpu_node,
			  max.shared[c->cpu_node]);
		ok = 0;
	}
	/*
	 * No node that never held the THP may count its faults.  The source may count those
	 * taken before it moves: a fault whose migration failed, and in mode 1 the first
	 * fault on a page of a lower tier (should_numa_migrate_memory() waits for a second
	 * one there).  A top-tier source counts none: the first fault of a young task moves
	 * the page ("Allow first faults ... to migrate immediately early in the lifetime of
	 * a task"), and the migrating fault counts on the node it moved the page to.
	 */
	int source_may_count = !c->thp_node_has_cpu || vmstat("thp_migration_fail") != failed;

	for (int k = 0; k < c->n->nr_mem; k++) {
		int node = c->n->mem[k];

		if (node == c->cpu_node || (node == c->thp_node && source_may_count))
			continue;
		if (max.priv[node] + max.shared[node] >= noise) {
			ktap_diag("node %d, %s, counted %ld private and %ld shared", node,
				  node == c->thp_node ? "the THP's top-tier source, which no migration failed on"
						      : "which holds none of the THP",
				  max.priv[node], max.shared[node]);
			ok = 0;
		}
	}
	/* A base page the child wrote before it was pinned may move: not a THP's worth. */
	if (c->thp_node == c->cpu_node ? s.migrated >= noise : s.migrated < want) {
		ktap_diag("numa_pages_migrated %ld, want %s", s.migrated, c->thp_node == c->cpu_node ?
			  "a few base pages at most: the THP stays" : "the THP's pages at least");
		ok = 0;
	}
	_exit(ok ? 0 : 1);
}

/* A child run: 1 if it exited 0, 0 if not, -1 if it had no THP. */
static int in_child(void (*fn)(void *), void *arg)
{
	struct child_spec spec = { .in_child = fn, .ctx = arg, .timeout_s = CHILD_S };
	int status = 0;
	enum child_end end = child_deadline(&spec, &status);

	if (end != CHILD_EXITED || !WIFEXITED(status)) {
		ktap_diag("the row's child %s", end == CHILD_TIMED_OUT ? "timed out" : "did not exit");
		return 0;
	}
	return WEXITSTATUS(status) == NO_THP ? -1 : WEXITSTATUS(status) == 0;
}

/*
 * In a row's child: pinned to cpu_node, a THP faulted on thp_node whose policy is
 * BIND|MPOL_F_NUMA_BALANCING over mask, and the task's own policy BIND over every memory node,
 * so the THP is all the scanner marks (task_numa_work() skips a VMA whose policy lacks
 * MPOL_F_MOF): a hinting fault this task takes is one on the THP, never one on its stack.
 * The THP; the child exits (NO_THP, or 1 with a diag) when it cannot be had.
 */
static char *thp_scanned_alone(const struct thp_child *c, int thp_node, unsigned long mask, char **map)
{
	char *huge;

	if (pin_to_node(c->cpu_node))
		_exit(1);
	huge = thp_on(thp_node, map);
	if (!huge)
		_exit(NO_THP);
	if (p_mbind(huge, (size_t)pmd_size(), MPOL_BIND | MPOL_F_NUMA_BALANCING, &mask, MAXNODE_LONG, 0) ||
	    set_task(MPOL_BIND, all_mem(c->n))) {
		ktap_diag("the THP's BIND|MPOL_F_NUMA_BALANCING, the task's BIND: %s", strerror(errno));
		_exit(1);
	}
	return huge;
}

/*
 * The child of the writable row: single-threaded and pinned to cpu_node, a THP on thp_node
 * bound there with MPOL_F_NUMA_BALANCING (scanned, never moved: mpol_misplaced() leaves a
 * BIND|MORON page alone for a CPU outside the mask).  A round: read the THP over and over until
 * a read faults (the scanner has made the PMD a hinting fault: numa_huge_pte_updates moved,
 * else the round does not count), then write it at once, counting the faults of the write
 * alone; a round whose THP the scanner marked twice does not count either (the write may have
 * met the second marking).  The reads keep the VMA among those the scanner visits (it skips one
 * the task has not faulted on lately, vma_is_accessed()).  The task's own policy is BIND, so
 * the scanner passes over every other VMA (task_numa_work() skips a VMA whose policy lacks
 * MPOL_F_MOF): a hinting fault on the stack in the read loop once passed for the THP's, and
 * the write then took the THP's (1 write fault, 2node, beside a mutate run).  Exit 0 after
 * WRITABLE_ROUNDS rounds whose writes took no fault.
 */
static void writable_child(void *arg)
{
	const struct thp_child *c = arg;
	size_t ps = (size_t)page_size();
	int rounds = 0, tries = 0;
	long long write_faults = 0;
	double t0 = numab_now();
	char *map, *huge;
	volatile char *at;

	huge = thp_scanned_alone(c, c->thp_node, 1UL << c->thp_node, &map);
	while (rounds < WRITABLE_ROUNDS && tries++ < 3 * WRITABLE_ROUNDS && numab_now() - t0 < WRITABLE_S) {
		long long marked = vmstat("numa_huge_pte_updates");
		long before = minor_faults(), after;

		at = huge + (size_t)tries * ps;
		long long updates;
		long write;

		at = huge + (size_t)tries * ps;
		while ((after = minor_faults()) == before && numab_now() - t0 < WRITABLE_S)
			(void)*at;
		/* The write at once: the scanner may mark the PMD again in a longer pause. */
		*at = 1;
		write = minor_faults() - after;
		updates = vmstat("numa_huge_pte_updates");
		if (after == before || updates == marked)
			continue;               /* no hinting fault on the THP this round */
		if (updates > marked + 1)
			continue;               /* marked again: the write may have met a new hinting fault */
		write_faults += write;
		rounds++;
	}
	ktap_diag("%d rounds of a hinting fault on the THP on node %d then a write: %lld write faults "
		  "(%.1f s)", rounds, c->thp_node, write_faults, numab_now() - t0);
	_exit(rounds >= WRITABLE_ROUNDS && write_faults == 0 ? 0 : 1);
}

/* Whose turn it is to take a hinting fault on the shared row's THP. */
enum turn { TURN_MAIN, TURN_SECOND, TURN_STOP };

struct second {
	volatile char *at;
	int node;
	unsigned long all;          /* every memory node */
	atomic_int turn;            /* an enum turn */
};

/* Read at until this thread takes a fault there (a hinting fault: the page is present), or until. */
static int hinting_fault(volatile char *at, double until)
{
	long before = minor_faults();

	while (minor_faults() == before && numab_now() < until)
		(void)*at;
	return minor_faults() != before;
}

/* The shared row's second thread: pinned to s->node, it takes a hinting fault on its turns. */
static void *second_thread(void *arg)
{
	struct second *s = arg;

	if (pin_to_node(s->node) || set_task(MPOL_BIND, s->all))
		s->turn = TURN_STOP;
	while (s->turn != TURN_STOP) {
		if (s->turn == TURN_SECOND && hinting_fault(s->at, numab_now() + SLICE_S))
			s->turn = TURN_MAIN;
		else if (s->turn != TURN_SECOND)
			usleep(1000);
	}
	return NULL;
}

/*
 * The child of the shared row: its main thread pinned to cpu_node with a THP there, a second
 * thread pinned to thp_node (another node with CPUs); they take hinting faults on the THP in
 * turn, so each fault of the main thread follows one of the other's, and is shared (sched.h:
 * private only when "the task that takes it is the one that took the page's last one").  In
 * turn, not both at once: under a loaded host one thread may take every fault of a free race
 * (1 shared page of 512 in 30 s, once).  The THP's VMA is the only one the scanner visits, so a
 * thread's fault is one on the THP: the threads' policy is BIND (the scanner skips a VMA whose
 * policy lacks MPOL_F_MOF, task_numa_work()), the THP's BIND|MPOL_F_NUMA_BALANCING over both
 * nodes (mpol_misplaced() then asks should_numa_migrate_memory(), which records the cpupid);
 * a hinting fault on a thread's stack passed for one on the THP before.  Exit 0 once the main
 * thread's shared counts (/proc/self/sched is the leader's) hold an eighth of the THP, within
 * SHARED_S.
 */
static void shared_child(void *arg)
{
	const struct thp_child *c = arg;
	long noise = thp_pages() / 8, shared = 0;
	struct numab_stats s, max = { 0 };
	struct second second = { .node = c->thp_node, .all = all_mem(c->n), .turn = TURN_MAIN };
	double t0 = numab_now();
	int rounds = 0;
	pthread_t thread;
	char *map, *huge;

	huge = thp_scanned_alone(c, c->cpu_node, 1UL << c->cpu_node | 1UL << c->thp_node, &map);
	second.at = huge;
	if (pthread_create(&thread, NULL, second_thread, &second))
		_exit(1);
	while (shared < noise && second.turn != TURN_STOP && numab_now() - t0 < SHARED_S) {
		second.turn = TURN_SECOND;
		while (second.turn == TURN_SECOND && numab_now() - t0 < SHARED_S)
			usleep(1000);
		if (second.turn != TURN_MAIN || !hinting_fault(huge, t0 + SHARED_S) || numab_stats(&s))
			break;
		rounds++;
		stats_max(&max, &s);
		shared = 0;
		for (int i = 0; i < MAX_NODES; i++)
			shared += max.shared[i];
	}
	second.turn = TURN_STOP;
	pthread_join(thread, NULL);
	ktap_diag("after %.1f s, %d rounds: shared faults %ld at most on the THP two threads on nodes %d and "
		  "%d fault on in turn (want %ld), node %d private %ld at most", numab_now() - t0, rounds, shared,
		  c->cpu_node, c->thp_node, noise, c->cpu_node, max.priv[c->cpu_node]);
	_exit(shared >= noise ? 0 : 1);
}

enum faults_row { ROW_LOCAL_THP, ROW_MOVED_THP, ROW_WRITABLE, ROW_SHARED_THP, NR_FAULTS_ROWS };

/* A row run by fn in a child on t: a SKIP when t has no nodes for it or the child had no THP. */
static void child_row(const char *row, void (*fn)(void *), struct thp_child *t)
{
	int r;

	if (t->cpu_node < 0 || t->thp_node < 0)
		ktap_skip(row, "needs two memory nodes, one with CPUs (%d memory nodes)", t->n->nr_mem);
	else if ((r = in_child(fn, t)) < 0)
		ktap_skip(row, "no THP could be faulted on node %d", t->thp_node);
	else
		ktap_ok(r, "%s", row);
}

int faults_plan(const struct nodes *n)
{
	(void)n;
	return NR_FAULTS_ROWS;
}

void faults_run(const struct nodes *n)
{
	const char *rows[NR_FAULTS_ROWS] = {
		[ROW_LOCAL_THP] = "NUMA balancing counts a task's faults on its local THP private on that node, "
				  "its pages not migrated",
		[ROW_MOVED_THP] = "NUMA balancing counts a THP it moved to a task: its pages migrated, faults "
				  "private on the new node",
		[ROW_WRITABLE] = "a THP's hinting fault leaves it writable: the write after it takes no fault",
		[ROW_SHARED_THP] = "NUMA balancing in mode 3 (normal and tiering) counts shared the faults on a "
				   "top-tier THP two threads on two nodes write",
	};
	int cpu[MAX_NODES], nr_cpu = 0, local = -1;
	struct thp_child t = { .n = n };

	if (numab_start("1")) {
		for (int i = 0; i < NR_FAULTS_ROWS; i++)
			ktap_skip(rows[i], "cannot set " NUMA_BALANCING_SYSCTL " to 1: %s", strerror(errno));
		return;
	}
	node_list("has_cpu", cpu, MAX_NODES, &nr_cpu);
	for (int k = 0; k < n->nr_mem && local < 0; k++)
		for (int i = 0; i < nr_cpu; i++)
			if (cpu[i] == n->mem[k])
				local = cpu[i];

	/* Kills mm/huge_memory.c:do_huge_pmd_numa_page `nid = folio_nid(folio)` -> `+ 1` (counted
	 * on the next node), its out_map task_numa_fault() removed (nothing counted), and its
	 * arguments last_cpupid -> flags (counted shared) and flags -> last_cpupid (a page's unset
	 * cpupid reads as TNF_MIGRATED: pages "migrated" that never moved). */
	t.cpu_node = t.thp_node = local;
	t.thp_node_has_cpu = 1;
	child_row(rows[ROW_LOCAL_THP], thp_child, &t);

	/* Kills mm/huge_memory.c:do_huge_pmd_numa_page's `flags |= TNF_MIGRATED` removed (0
	 * migrated), the migrated branch's task_numa_fault() removed, `nid = target_nid` -> `- 1`
	 * (counted on the node below the task's: the THP comes from neither, where there is one) and
	 * task_numa_fault(last_cpupid -> target_nid) (counted shared), and where the source has
	 * CPUs `nid = target_nid` removed (a1801151af6e: the moving fault counted on the source). */
	t.cpu_node = last_cpu_node(n);
	t.thp_node = -1;
	for (int k = 0; k < n->nr_mem && t.thp_node < 0; k++)
		if (n->mem[k] != t.cpu_node && n->mem[k] != t.cpu_node - 1)
			t.thp_node = n->mem[k];
	for (int k = 0; k < n->nr_mem && t.thp_node < 0; k++)
		if (n->mem[k] != t.cpu_node)
			t.thp_node = n->mem[k];
	t.thp_node_has_cpu = 0;
	for (int i = 0; i < nr_cpu; i++)
		t.thp_node_has_cpu |= cpu[i] == t.thp_node;
	child_row(rows[ROW_MOVED_THP], thp_child, &t);

	/* Kills mm/huge_memory.c:do_huge_pmd_numa_page can_change_pmd_writable(..., pmd) ->
	 * (..., old_pmd) (2904b50c1afe: old_pmd is PROT_NONE, never writable) and
	 * can_change_pmd_writable's `if (userfaultfd_huge_pmd_wp(vma, pmd))` -> `if (1)`
	 * (e2d5bd583a44): the write after each hinting fault faults again. */
	t.cpu_node = local;
	t.thp_node = -1;
	for (int k = n->nr_mem - 1; k >= 0 && t.thp_node < 0; k--)
		if (n->mem[k] != local)
			t.thp_node = n->mem[k];
	child_row(rows[ROW_WRITABLE], writable_child, &t);
	numab_stop();

	/*
	 * Memory tiering mode keeps a page's access time where its last cpupid was only on the
	 * slow tier (memory.c: "For memory tiering mode, cpupid of slow memory page is used to
	 * record page access time"); a top-tier page keeps its cpupid, and so normal balancing's
	 * private/shared account, in mode 3.  Kills mm/memory-tiers.c:folio_use_access_time's `&&`
	 * -> `||` (8649992ec2ea: every page's cpupid overwritten in tiering mode, every fault
	 * counted private).
	 */
	t.cpu_node = local;
	t.thp_node = -1;
	for (int i = 0; i < nr_cpu && t.thp_node < 0; i++)
		if (cpu[i] != local)
			t.thp_node = cpu[i];
	if (t.thp_node < 0) {
		ktap_skip(rows[ROW_SHARED_THP], "needs two memory nodes with CPUs");
	} else if (numab_start("3")) {
		ktap_skip(rows[ROW_SHARED_THP], "cannot set " NUMA_BALANCING_SYSCTL " to 3: %s", strerror(errno));
	} else {
		child_row(rows[ROW_SHARED_THP], shared_child, &t);
		numab_stop();
	}
}
