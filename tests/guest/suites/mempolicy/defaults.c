/*
 * Weighted interleave before any weight was set (issue 18).
 *
 * Without HMAT bandwidths the kernel keeps no weight state at all (wi_state
 * is NULL): every reader then assumes weight 1 and auto mode, each by its own
 * default (get_il_weight(), weighted_interleave_nid(), the bulk code), and
 * the first sysfs write builds the state from nothing (node_store()'s
 * no-old-state branch).  Those defaults are gone as soon as anybody writes a
 * weight, and sysfs state outlives a case, so this case runs first in the
 * suite (main.c) and checks, in order:
 *   - every nodeN reads 1 and auto reads true
 *     (kills 17d0340007d5: get_il_weight's `u8 weight = 1` -> 2);
 *   - mbind(MPOL_WEIGHTED_INTERLEAVE) over all memory nodes places faults in
 *     a plain rotation, page by page (the VMA path, weighted_interleave_nid()
 *     with no table; kills 0f38cf3088ac: `weight = table ? table[nid] : 1`
 *     -> `: 2`, two pages per node from a total that counted one);
 *   - the bulk allocator under the boot weights (maps vmalloc'ed under the
 *     task policy, every step and batch replayed against the model with
 *     sweep_maps()): alloc_pages_bulk_weighted_interleave()'s own no-state
 *     branch, its table of 1s, which no other case reaches, since every
 *     bulk case writes weights first.  Kills dda5cee176c5 (`if (state)` ->
 *     `if (1)`: the NULL state's table copied, an oops), d882d1ca8054 (that
 *     branch's rcu_read_unlock() removed: the preempt count leaks, "BUG:
 *     scheduling while atomic"), 911ded3e0b2c (`i = 0` -> 1: node 0's
 *     weight is kmalloc's leftover byte), 84d8e8947198 (`weights[i] = 1`
 *     -> 0: a total of 0, divide error), 962f734bcf0f (that assignment
 *     removed: kmalloc's leftovers, here a divide error too) and
 *     a61da93019c1 (-> 2: the batch leaves one page of weight on its last
 *     node where the model moves on);
 *   - the first write of one node's weight leaves every other node at 1 and
 *     auto false (kills 2611e4650451: node_store's `iw_table[i] = 1` -> 0).
 * With HMAT (cxl) the state exists from boot: the first and last checks then
 * skip, the rotation is checked with whatever weights are set only when
 * they are all 1, the bulk maps with the weights HMAT gave.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "mempolicy.h"
#include "steptrace.h"
#include "weights.h"

#define ROUNDS 4
#define BULK_NAME "bulk weighted interleave under the boot weights: each step and batch as the model"

/* Every remainder of up to 4 nodes of weight 1 (maps > 32 KiB), then 100 + 100 + 13 pages. */
static const unsigned long bulk_sizes[] = { 9, 10, 11, 12, 13, 213 };
#define NR_BULK_SIZES (int)(sizeof(bulk_sizes) / sizeof(bulk_sizes[0]))

static int read_weights(const struct nodes *n, long *w)
{
	char path[128];

	for (int k = 0; k < n->nr_mem; k++) {
		snprintf(path, sizeof(path), WI_DIR "/node%d", n->mem[k]);
		if (sys_read_long(path, &w[k])) {
			ktap_diag("cannot read %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int all_ones(const struct nodes *n, const long *w, int except)
{
	for (int k = 0; k < n->nr_mem; k++)
		if (k != except && w[k] != 1) {
			ktap_diag("node%d reads weight %ld, want 1", n->mem[k], w[k]);
			return 0;
		}
	return 1;
}

/* Page i of a fresh mbind'ed map on the node after page i-1's, in mask order. */
static int check_rotation(const struct nodes *n)
{
	size_t nr = (size_t)(ROUNDS * n->nr_mem);
	unsigned long mask = 0;
	int status[ROUNDS * MAX_NODES], ok = 1, at = -1;
	char *base;

	for (int k = 0; k < n->nr_mem; k++)
		mask |= 1UL << n->mem[k];
	base = map_pages(nr);
	if (!base)
		return 0;
	if (sys_mbind(base, nr * (size_t)page_size(), MPOL_WEIGHTED_INTERLEAVE, mask)) {
		ktap_diag("mbind(MPOL_WEIGHTED_INTERLEAVE, %s): %s", mask_str(mask), strerror(errno));
		munmap(base, nr * (size_t)page_size());
		return 0;
	}
	for (size_t i = 0; i < nr; i++)
		base[i * (size_t)page_size()] = 1;
	if (pages_nodes(base, nr, status))
		ok = 0;
	for (int k = 0; ok && k < n->nr_mem; k++)
		if (n->mem[k] == status[0])
			at = k;
	if (ok && at < 0) {
		ktap_diag("page 0 on node %d, outside %s", status[0], mask_str(mask));
		ok = 0;
	}
	for (size_t i = 1; ok && i < nr; i++) {
		int want = n->mem[(at + (int)i) % n->nr_mem];

		if (status[i] != want) {
			ktap_diag("page %zu on node %d, want node %d (page 0 on node %d)", i, status[i], want,
				  status[0]);
			ok = 0;
		}
	}
	munmap(base, nr * (size_t)page_size());
	return ok;
}

/*
 * The bulk path under the weights as the kernel has them now (w[k] for
 * n->mem[k]); reported.  Not in bulk_frame_begin/end (bulkframe.h): their
 * weight save and restore writes every node's weight, and the last check
 * needs the first write of the boot to be its own.
 */
static void check_bulk(const struct nodes *n, const long *w)
{
	unsigned weights[WI_MAX_NODES] = { 0 };
	const char *why = bulk_unsupported(n);
	cpu_set_t one, old;
	int pinned = 0, armed = 0, failing = 0, ok = 0;

	for (int k = 0; k < n->nr_mem; k++)
		weights[n->mem[k]] = (unsigned)w[k];
	/* One CPU: the trace's per-CPU buffers then need no merging to keep the order. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (!why && (sched_getaffinity(0, sizeof(old), &old) || sched_setaffinity(0, sizeof(one), &one)))
		why = "cannot pin the task to one CPU";
	else if (!why)
		pinned = 1;
	if (!why && bulk_fault_arm())
		why = "cannot configure fail_page_alloc";
	if (!why && !(why = steptrace_arm()))
		armed = 1;
	if (!why && sys_write("/proc/self/make-it-fail", "1"))
		why = "cannot write /proc/self/make-it-fail";
	else if (!why)
		failing = 1;
	if (!why)
		ok = sweep_maps(weights, bulk_sizes, NR_BULK_SIZES);
	if (failing)
		sys_write("/proc/self/make-it-fail", "0");
	if (armed && steptrace_disarm() > 0)
		ktap_diag("the trace missed events: a mismatch above may be the probe's");
	bulk_fault_disarm();
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	if (why)
		ktap_skip(BULK_NAME, "%s", why);
	else
		ktap_ok(ok, BULK_NAME);
}

int defaults_plan(const struct nodes *n)
{
	(void)n;
	return 4;
}

void defaults_run(const struct nodes *n)
{
	long w[MAX_NODES];
	char mode[16] = "";
	unsigned got;
	int stateless, ok;

	if (n->nr_mem < 2 || !sys_exists(WI_DIR) || read_weights(n, w)) {
		for (int i = 0; i < 4; i++)
			ktap_skip("weighted interleave defaults", "%s",
				  n->nr_mem < 2 ? "one memory node" : "no readable " WI_DIR);
		return;
	}
	/* A kernel with HMAT bandwidths builds its state at boot: no defaults left to see. */
	stateless = !topo_has_hmat(n->topo);
	if (stateless) {
		ok = sys_read(WI_AUTO_PATH, mode, sizeof(mode)) == 0 && !strcmp(mode, "true");
		if (!ok)
			ktap_diag("%s reads \"%s\", want true before any write", WI_AUTO_PATH, mode);
		ktap_ok(all_ones(n, w, -1) && ok, "before any write: every node weight 1, auto true");
	} else {
		ktap_skip("before any write: every node weight 1, auto true",
			  "the topology declares HMAT bandwidth: weights exist from boot");
	}
	if (stateless || all_ones(n, w, -1))
		ktap_ok(check_rotation(n), "mbind weighted interleave, weights all 1: a plain rotation");
	else
		ktap_skip("mbind weighted interleave, weights all 1: a plain rotation",
			  "the boot weights are not all 1");
	/* Before the first write below: on a stateless kernel the bulk code's own table of 1s. */
	check_bulk(n, w);
	if (!stateless) {
		ktap_skip("the first weight written: the others 1, auto false",
			  "the topology declares HMAT bandwidth: weights exist from boot");
		return;
	}
	ok = wi_set(n->mem[0], 2, &got) == 0 && got == 2 && read_weights(n, w) == 0 &&
	     all_ones(n, w, 0);
	if (sys_read(WI_AUTO_PATH, mode, sizeof(mode)) || strcmp(mode, "false")) {
		ktap_diag("%s reads \"%s\" after a manual write, want false", WI_AUTO_PATH, mode);
		ok = 0;
	}
	/* Weights all 1 in manual mode place as the boot defaults did (auto without HMAT is refused). */
	if (wi_set(n->mem[0], 1, &got))
		ok = 0;
	ktap_ok(ok, "the first weight written: the others 1, auto false");
}
