/*
 * Plain MPOL_INTERLEAVE through the bulk allocator, step by step, and the
 * same inside a child cpuset (issue 18).
 *
 * vmalloc under a task policy (a BPF array map, fail_page_alloc steering it
 * onto the bulk path: bulk.c) hands alloc_pages_bulk_interleave() batches of
 * at most 100 pages.  It splits a batch of nr pages over the policy's nn
 * nodes, one interleave_nodes() step each: the first nr % nn nodes get
 * nr / nn + 1 pages, the others nr / nn; the nn steps bring il_prev round
 * to where it was.  The step trace (steptrace.h) shows every step and every
 * run asked of a node, so each is checked exactly: a single step (the
 * kernel's own allocations included) goes to the node after il_prev in the
 * mask, a batch's runs to the next nodes with those sizes.  Map sizes cover
 * every remainder mod 2, 3 and 4 and a map of several batches.
 * Kills 1bf7b5d490ba (`nodes = nodes_weight(pol->nodes);` removed) and
 * 2a6427ebc4fb (`delta = nr_pages - nodes * nr_pages_per_node;` removed).
 *
 * In a child cpuset (cgroup v2, cpuset.mems = the policy's nodes) cpusets
 * are enabled, so interleave_nodes()'s read_mems_allowed_retry() really
 * compares its cookie: kills 1e26494650f7 (`cpuset_mems_cookie =
 * read_mems_allowed_begin();` removed: the uninitialised cookie never
 * matches, the step loops).
 *
 * Weighted interleave in the same cpuset (weights 3,1,2 over its mems, each
 * step and batch replayed: sweep_maps()): alloc_pages_bulk_weighted_
 * interleave() reads the policy's nodes in a read_mems_allowed_begin() /
 * retry() loop, which only compares anything while cpusets are enabled, and
 * moving the task into a cpuset whose mems differ from its own bumps its
 * mems_allowed_seq (cpuset_change_task_nodemask()), so a cookie that is
 * not the one read never matches again and the batch loops for ever.
 * Kills a728b483c10b and b4f9bd5ee9a7 (the cookie +1 / -1), 40373bc7c01d
 * (the retry given weight_total, 0, for the cookie) and d94f0fee7f15 (the
 * cookie's assignment removed).  On shapes with two memory nodes the cpuset
 * keeps both, the sequence does not move and only the replay is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "mempolicy.h"
#include "steptrace.h"
#include "bulkframe.h"
#include "weights.h"

#define MAX_EVENTS 4096

/* Remainders 0..3 of every node count up to 4 (all > 32 KiB), then 100 + 100 + 13. */
static const unsigned long sizes[] = { 9, 10, 11, 12, 13, 213 };
#define NR_SIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static int next_in(unsigned long mask, int node)
{
	for (int i = 1; i <= MAX_NODES; i++) {
		int c = (node + i) % MAX_NODES;

		if (c >= 0 && (mask >> c & 1))
			return c;
	}
	return -1;
}

struct il_check {
	unsigned long mask;
	int nn, prev;              /* the kernel's il_prev as the steps move it */
	int in_batch, run;
	long batch, left;
	char why[160];
};

static int il_event(struct il_check *c, const struct step_event *e)
{
	long want;

	switch (e->kind) {
	case STEP_PAGE:
		if (e->node != next_in(c->mask, c->prev)) {
			snprintf(c->why, sizeof(c->why), "a step went to node %d, after node %d want %d",
				 e->node, c->prev, next_in(c->mask, c->prev));
			return -1;
		}
		c->prev = e->node;
		return 0;
	case STEP_BULK:
		c->in_batch = 1;
		c->batch = c->left = e->nr;
		c->run = 0;
		return 0;
	case STEP_NODE_RUN:
		if (!c->in_batch)
			return 0;
		want = c->batch / c->nn + (c->run < c->batch % c->nn);
		if (e->node != c->prev || e->nr != want) {
			snprintf(c->why, sizeof(c->why),
				 "batch of %ld, run %d: %ld pages on node %d, want %ld on node %d", c->batch,
				 c->run, e->nr, e->node, want, c->prev);
			return -1;
		}
		c->left -= e->nr;
		if (++c->run == c->nn) {
			c->in_batch = 0;
			if (c->left) {
				snprintf(c->why, sizeof(c->why), "batch of %ld: %ld pages not asked for",
					 c->batch, c->left);
				return -1;
			}
		}
		return 0;
	case STEP_FILE:
		return 0;
	}
	return 0;
}

/* Every map size under MPOL_INTERLEAVE over mask; the trace armed, make-it-fail on. */
static int il_maps(unsigned long mask)
{
	static struct step_event ev[MAX_EVENTS];
	struct il_check c = { .mask = mask, .prev = MAX_NODES - 1 };

	for (int b = 0; b < MAX_NODES; b++)
		c.nn += (int)(mask >> b & 1);
	steptrace_take(NULL, 0);
	if (sys_set_mempolicy(MPOL_INTERLEAVE, mask)) {
		ktap_diag("set_mempolicy(MPOL_INTERLEAVE, %s): %s", mask_str(mask), strerror(errno));
		return 0;
	}
	for (int k = 0; k < NR_SIZES; k++) {
		int fd = bulk_map_create(sizes[k]), nev;
		long pages = 0;

		if (fd < 0) {
			ktap_diag("map of %lu pages: bpf(BPF_MAP_CREATE): %s", sizes[k], strerror(errno));
			sys_set_mempolicy(MPOL_DEFAULT, 0);
			return 0;
		}
		nev = steptrace_take(ev, MAX_EVENTS);
		close(fd);
		for (int i = 0; i < nev; i++) {
			if (ev[i].kind == STEP_BULK)
				pages += ev[i].nr;
			if (il_event(&c, &ev[i])) {
				ktap_diag("map of %lu pages over %s: %s", sizes[k], mask_str(mask), c.why);
				sys_set_mempolicy(MPOL_DEFAULT, 0);
				return 0;
			}
		}
		if (nev < 0 || pages != (long)sizes[k] || c.in_batch) {
			ktap_diag("map of %lu pages: the trace shows %ld pages in batches%s", sizes[k], pages,
				  c.in_batch ? ", the last one unfinished" : "");
			sys_set_mempolicy(MPOL_DEFAULT, 0);
			return 0;
		}
	}
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	return 1;
}

int ilbulk_plan(const struct nodes *n)
{
	(void)n;
	return 3;
}

/* Weighted interleave over mask's nodes, weights 3,1,2,3,...; run in the child cpuset. */
static int wi_maps(const struct nodes *n, unsigned long mask)
{
	unsigned weights[WI_MAX_NODES] = { 0 }, got;
	int k = 0;

	for (int i = 0; i < n->nr_mem; i++) {
		if (!(mask >> n->mem[i] & 1))
			continue;
		weights[n->mem[i]] = 1 + (unsigned)(k++ + 2) % 3;
		if (wi_set(n->mem[i], weights[n->mem[i]], &got) || got != weights[n->mem[i]])
			return 0;
	}
	return sweep_maps(weights, sizes, NR_SIZES);
}

void ilbulk_run(const struct nodes *n)
{
	const char *why = bulk_unsupported(n), *cs_why = NULL;
	const char *wi_name = "bulk weighted interleave in a child cpuset: each step and batch as the model";
	unsigned long all = 0, sub = 0;
	struct bulk_frame frame = { 0 };

	for (int k = 0; k < n->nr_mem; k++) {
		all |= 1UL << n->mem[k];
		if (k || n->nr_mem < 3)
			sub |= 1UL << n->mem[k];   /* all but the first node, when two remain */
	}
	if (!why)
		why = bulk_frame_begin(n, &frame);
	if (!why && sys_write("/proc/self/make-it-fail", "1"))
		why = "cannot write /proc/self/make-it-fail";
	if (why) {
		ktap_skip("bulk interleave, every remainder", "%s", why);
		ktap_skip("bulk interleave in a child cpuset", "%s", why);
		ktap_skip(wi_name, "%s", why);
	} else {
		ktap_ok(il_maps(all), "bulk interleave over %s, every remainder: each step and run exact",
			mask_str(all));
		cs_why = cpuset_enter("numalab-mempolicy", sub);
		if (cs_why) {
			ktap_skip("bulk interleave in a child cpuset", "%s", cs_why);
			ktap_skip(wi_name, "%s", cs_why);
		} else {
			ktap_ok(il_maps(sub), "bulk interleave in a child cpuset (mems %s): each step and run exact",
				mask_str(sub));
			ktap_ok(wi_maps(n, sub), "%s", wi_name);
		}
		cpuset_leave();
	}
	if (bulk_frame_end(&frame))
		ktap_diag("the trace missed events: a mismatch above may be the probe's");
}
