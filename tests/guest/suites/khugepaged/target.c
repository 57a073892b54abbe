/*
 * Where khugepaged puts a collapse, and where khugepaged itself may run.
 *
 * The rule for the node (collapse_find_target_node()): the huge page goes to
 * the node that holds the most of the range's pages; on a tie, the first
 * (lowest) of the tied nodes.  Three ranges of one PMD, their base pages
 * spread over the first (lo) and last (hi) memory node: 3/4 on lo, 3/4 on
 * hi, half and half.  Each is faulted on one node under a task MPOL_BIND
 * (the VMA has no policy), every 4th (or 2nd) page moved to the other node
 * with move_pages(), handed to khugepaged with MADV_HUGEPAGE, and after the
 * collapse every page must be on the expected node.
 *
 * Mutant it was written for: in collapse_find_target_node(),
 * `if (cc->node_load[nid] > max_value)` -> `>=` (a tie goes to the last
 * tied node): the half-and-half range then lands on hi.
 *
 * khugepaged's allowed CPUs: the stock kernel never moves khugepaged; seed
 * 001 (kernels/patches/khugepaged-numa) moves it to the collapse node's CPUs,
 * and not at all when that node has none.  A rule that both satisfy and a
 * wrong kernel breaks, judged over all three collapses at the end (so the
 * order of the collapses does not matter):
 *   - after each collapse the allowed CPUs are what they were before, or
 *     exactly the CPUs of the collapse node (never some other set);
 *   - a collapse onto a CPU-less node never changes them;
 *   - if any collapse moved them, the kernel claims to follow the collapse
 *     node, and then every collapse onto a node with CPUs must leave them
 *     at exactly that node's CPUs.
 * A kernel that never moves khugepaged passes (that is stock's behaviour);
 * one that moves it to the wrong node, onto a CPU-less node's "CPUs", or
 * only sometimes, fails.  Mutant (on top of seed 001): `cpumask_of_node(node)`
 * -> `cpumask_of_node(node + 1)`.
 */
#include <errno.h>
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

#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define MPOL_MF_MOVE (1 << 1)
#define NR_SPREADS 3

struct spread {
	const char *name;
	int every;                 /* every `every`-th page goes to the other node */
	int majority_hi;           /* 1: the moved pages are the minority on lo */
};

static const struct spread spreads[NR_SPREADS] = {
	{ "3/4 of the pages on node lo", 4, 0 },
	{ "3/4 of the pages on node hi", 4, 1 },
	{ "half the pages on each node (a tie)", 2, 0 },
};

struct collapse_seen {
	int node;                  /* the collapse node the rule expects */
	int has_cpus;
	char node_cpus[64], before[64], after[64];
	int collapsed;
};

static long set_policy(int mode, unsigned long mask)
{
	return syscall(SYS_set_mempolicy, mode, &mask, sizeof(mask) * CHAR_BIT + 1);
}

/* Fault the range's pages on `first`, then move every `every`-th one to `second`. */
static int spread_pages(char *huge, size_t nr, int first, int second, int every)
{
	size_t ps = (size_t)page_size(), moved = 0;
	void **pages = calloc(nr, sizeof(*pages));
	int *nodes = calloc(nr, sizeof(*nodes)), *status = calloc(nr, sizeof(*status)), ok = 0;

	if (!pages || !nodes || !status || set_policy(MPOL_BIND, 1UL << first)) {
		ktap_diag("set_mempolicy MPOL_BIND node %d: %s", first, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < nr; i++)
		huge[i * ps] = (char)i;
	set_policy(MPOL_DEFAULT, 0);
	for (size_t i = 0; i < nr; i += (size_t)every) {
		pages[moved] = huge + i * ps;
		nodes[moved++] = second;
	}
	if (syscall(SYS_move_pages, 0, moved, pages, nodes, status, MPOL_MF_MOVE) < 0) {
		ktap_diag("move_pages to node %d: %s", second, strerror(errno));
		goto out;
	}
	ok = 1;
	for (size_t i = 0; ok && i < moved; i++)
		if (status[i] != second) {
			ktap_diag("page %zu did not move to node %d (status %d)", i * (size_t)every, second, status[i]);
			ok = 0;
		}
out:
	free(pages);
	free(nodes);
	free(status);
	return ok;
}

/* Every page of the range on node (the data intact); -1 if unreadable. */
static int all_on(char *huge, size_t nr, int node, int *first_off)
{
	size_t ps = (size_t)page_size();
	void **pages = calloc(nr, sizeof(*pages));
	int *status = calloc(nr, sizeof(*status)), ok = pages && status ? 1 : -1;

	for (size_t i = 0; ok > 0 && i < nr; i++)
		pages[i] = huge + i * ps;
	if (ok > 0 && syscall(SYS_move_pages, 0, nr, pages, NULL, status, 0))
		ok = -1;
	for (size_t i = 0; ok > 0 && i < nr; i++)
		if (status[i] != node || huge[i * ps] != (char)i) {
			*first_off = status[i];
			ok = 0;
		}
	free(pages);
	free(status);
	return ok;
}

static void node_cpus(int node, char *buf, size_t size)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (sys_read(path, buf, size))
		buf[0] = '\0';
}

static void collapse_spread(const struct spread *s, int lo, int hi, size_t pmd, int pid,
			    struct collapse_seen *seen)
{
	char *map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	size_t nr = pmd / (size_t)page_size();
	int first = s->majority_hi ? hi : lo, second = s->majority_hi ? lo : hi, ok = 0, where = -1;
	double start;

	seen->node = s->majority_hi ? hi : lo;   /* a tie: lo, the lower node */
	node_cpus(seen->node, seen->node_cpus, sizeof(seen->node_cpus));
	seen->has_cpus = seen->node_cpus[0] != '\0';
	seen->collapsed = 0;
	if (map == MAP_FAILED || madvise(huge, pmd, MADV_NOHUGEPAGE)) {
		ktap_diag("mmap/madvise: %s", strerror(errno));
		goto report;
	}
	if (!spread_pages(huge, nr, first, second, s->every))
		goto report;
	khugepaged_cpus(pid, seen->before, sizeof(seen->before));
	if (madvise(huge, pmd, MADV_HUGEPAGE)) {
		ktap_diag("madvise(MADV_HUGEPAGE): %s", strerror(errno));
		goto report;
	}
	start = now();
	while (smaps_anon_huge(huge) != (long long)pmd && now() - start < COLLAPSE_WAIT_S)
		usleep(20000);
	/* The allowed CPUs change before the copy: read them once the PMD is in. */
	khugepaged_cpus(pid, seen->after, sizeof(seen->after));
	seen->collapsed = smaps_anon_huge(huge) == (long long)pmd;
	if (!seen->collapsed)
		ktap_diag("no collapse within %d s", COLLAPSE_WAIT_S);
	else if ((ok = all_on(huge, nr, seen->node, &where)) == 0)
		ktap_diag("the huge page is on node %d", where);
	else if (ok < 0)
		ktap_diag("move_pages (query): %s", strerror(errno));
	ktap_diag("metric: target.%c%d.collapse_wait_s %.2f", s->majority_hi ? 'h' : 'l', s->every, now() - start);
	ktap_diag("khugepaged may run on %s before, %s after; node %d's CPUs: %s", seen->before, seen->after,
		  seen->node, seen->has_cpus ? seen->node_cpus : "none");
report:
	ktap_ok(ok > 0, "khugepaged collapse of a range with %s (lo %d, hi %d): on node %d", s->name, lo, hi,
		seen->node);
	if (map != MAP_FAILED)
		munmap(map, 2 * pmd);
}

/* The allowed-CPU rule of the header over the collapses seen; 1 if it holds. */
static int cpus_rule(const struct collapse_seen *seen, int nr)
{
	int follows = 0, ok = 1;

	for (int i = 0; i < nr; i++)
		if (seen[i].collapsed && seen[i].has_cpus && strcmp(seen[i].before, seen[i].after) &&
		    !strcmp(seen[i].after, seen[i].node_cpus))
			follows = 1;
	for (int i = 0; i < nr; i++) {
		const struct collapse_seen *c = &seen[i];
		int same = !strcmp(c->before, c->after), at_node = c->has_cpus && !strcmp(c->after, c->node_cpus);

		if (!c->collapsed)
			continue;
		if (!same && !at_node) {
			ktap_diag("collapse %d onto node %d moved khugepaged from %s to %s, not to node %d's CPUs (%s)",
				  i + 1, c->node, c->before, c->after, c->node, c->has_cpus ? c->node_cpus : "none");
			ok = 0;
		} else if (follows && c->has_cpus && !at_node) {
			ktap_diag("the kernel moves khugepaged to the collapse node, but collapse %d onto node %d "
				  "left it on %s, not node %d's CPUs %s", i + 1, c->node, c->after, c->node,
				  c->node_cpus);
			ok = 0;
		}
	}
	ktap_diag("metric: target.khugepaged_follows_collapse_node %d", follows);
	return ok;
}

int target_plan(const struct topology *t)
{
	(void)t;
	return NR_SPREADS + 1;
}

void target_run(const struct topology *t)
{
	struct collapse_seen seen[NR_SPREADS];
	long pmd = pmd_size();
	int pid = khugepaged_thread_pid(), lo = -1, hi = -1, any = 0;
	const char *why = NULL;

	for (int i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].mem_bytes) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
	if (pmd <= 0 || pid < 0)
		why = pmd <= 0 ? "the kernel has no THP" : "no khugepaged thread";
	else if (lo == hi)
		why = "one memory node: a spread needs two";
	for (int i = 0; i < NR_SPREADS; i++) {
		if (why) {
			ktap_skip("khugepaged collapse node", "%s", why);
			continue;
		}
		collapse_spread(&spreads[i], lo, hi, (size_t)pmd, pid, &seen[i]);
		any |= seen[i].collapsed;
	}
	if (why || !any)
		ktap_skip("khugepaged's allowed CPUs after the collapses", "%s", why ? why : "no collapse happened");
	else
		ktap_ok(cpus_rule(seen, NR_SPREADS),
			"khugepaged's allowed CPUs: unchanged, or the collapse node's CPUs every time it has some");
}
