/*
 * Bulk weighted interleave swept systematically (issue 18), not by a few
 * hand-picked sequences: for each family of small shapes (two nodes with
 * weights 1..3, one node of several, three nodes with weights 1..2, a
 * non-adjacent pair of four), every weight vector, and per vector maps
 * chosen until every class of bulk batch has been met:
 *
 *   a map's first batch (after its failed high-order attempts, bulk.c): each
 *   place in the round it can start from x each remainder of its size
 *   modulo the round (0: zero remainder; a remainder that ends exactly at a
 *   node boundary; one equal to a weight);
 *   a later batch of the same map (maps of 100 + k pages: a 100-page batch,
 *   then k): each place x k = 1 .. 2 x round, so the carried weight covers
 *   the batch (k < weight), ends with it (k == weight) or not, and the
 *   round count is 0, 1 or 2.
 *
 * Each map's allocations are read back from a kernel trace (steptrace.h):
 * every single-page step (the high-order attempts, slab and page-table pages
 * the kernel takes under the policy) and every batch, replayed against the
 * reference model (replay.h): a batch must ask each node for the model's
 * pages, and the state it leaves must give the model's node to the next
 * step or batch.  Nothing is tolerated: with every step seen there is no
 * "hidden" step to allow for.
 *
 * Mutant it was written for: in alloc_pages_bulk_weighted_interleave(),
 * `if (delta > weight)` -> `if (delta >= weight)` (a remainder ending exactly
 * at a node resumes from the wrong node: the next map's first step says so).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "mempolicy.h"
#include "replay.h"
#include "steptrace.h"
#include "bulkframe.h"
#include "weights.h"

#define MAX_ROUND 9
#define MAX_LATER (2 * MAX_ROUND)
#define MAX_EVENTS 4096
#define FIRST_MAP 9                /* smaller maps are kmalloc'ed, not vmalloc'ed */
#define CHUNK 100                  /* vm_area_alloc_pages(): pages per batch */

struct family {
	const char *name;
	int idx[3];                /* indexes into the memory nodes */
	int nr;
	unsigned max_weight;
	int needs;                 /* memory nodes the guest must have */
};

static const struct family families[] = {
	{ "two nodes, weights 1..3", { 0, 1 }, 2, 3, 2 },
	{ "one node of several (a subset), weight 1..3", { 1 }, 1, 3, 2 },
	{ "three nodes, weights 1..2", { 0, 1, 2 }, 3, 2, 3 },
	{ "nodes 2nd and 4th (a non-adjacent subset), weights 1..3", { 1, 3 }, 2, 3, 4 },
};
#define NR_FAMILIES (int)(sizeof(families) / sizeof(families[0]))

struct coverage {
	unsigned round;
	unsigned char first[MAX_ROUND][MAX_ROUND];       /* [place][size % round] */
	unsigned char later[MAX_ROUND][MAX_LATER + 1];   /* [place][size], size 1 .. 2 round */
	int left;                                        /* classes not met yet */
};

static unsigned ilog2_ul(unsigned long n)
{
	unsigned l = 0;

	while (n >>= 1)
		l++;
	return l;
}

static void coverage_init(struct coverage *c, unsigned round)
{
	memset(c, 0, sizeof(*c));
	c->round = round;
	c->left = (int)(round * round + round * 2 * round);
}

static void meet(struct coverage *c, int first, unsigned place, long nr)
{
	unsigned char *cell = NULL;

	if (first)
		cell = &c->first[place][(unsigned long)nr % c->round];
	else if (nr >= 1 && nr <= 2 * (long)c->round)
		cell = &c->later[place][nr];
	if (cell && !*cell) {
		*cell = 1;
		c->left--;
	}
}

/* The next map's size: one that meets a class not met yet from the model's state. */
static unsigned long choose(const struct coverage *c, const struct wi_model *m, unsigned *seed)
{
	for (unsigned k = 1; k <= 2 * c->round; k++) {
		struct wi_model t = *m;
		unsigned long n = CHUNK + k, dummy[WI_MAX_NODES] = { 0 };

		for (unsigned i = 0; i < ilog2_ul(n); i++)
			wi_model_page(&t);
		wi_model_bulk(&t, CHUNK, dummy);
		if (!c->later[replay_position(&t)][k])
			return n;
	}
	for (unsigned long n = FIRST_MAP; n <= CHUNK; n++) {
		struct wi_model t = *m;

		for (unsigned i = 0; i < ilog2_ul(n); i++)
			wi_model_page(&t);
		if (!c->first[replay_position(&t)][n % c->round])
			return n;
	}
	/* Everything reachable from here is met: move on to another place. */
	*seed = *seed * 1103515245u + 12345u;
	return FIRST_MAP + (*seed >> 16) % (CHUNK - FIRST_MAP + 1);
}

struct vector_result {
	int maps;
	long hidden_max, hidden, inner;
};

/* One weight vector over nodes[]: maps until every class is met; 1 if all matched. */
static int sweep_vector(const int *nodes, const unsigned *w, int nr, struct vector_result *res)
{
	static struct step_event ev[MAX_EVENTS];
	unsigned weights[WI_MAX_NODES] = { 0 }, seed = 1, round = 0;
	unsigned long mask = 0;
	struct coverage cov;
	struct replay r;
	int ok = 1, budget;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < nr; i++) {
		weights[nodes[i]] = w[i];
		mask |= 1UL << nodes[i];
		round += w[i];
	}
	coverage_init(&cov, round);
	budget = 4 * cov.left + 16;
	replay_init(&r, weights);
	steptrace_take(NULL, 0);
	if (sys_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, mask)) {
		ktap_diag("set_mempolicy: %s", strerror(errno));
		return 0;
	}
	while (ok && cov.left > 0 && res->maps < budget) {
		unsigned long n = choose(&cov, &r.m, &seed);
		long steps_before = r.steps, pages = 0;
		int fd = bulk_map_create(n), nev, first = 1;

		res->maps++;
		if (fd < 0) {
			ktap_diag("map of %lu pages: bpf(BPF_MAP_CREATE): %s", n, strerror(errno));
			ok = 0;
			break;
		}
		nev = steptrace_take(ev, MAX_EVENTS);
		close(fd);
		for (int i = 0; ok && i < nev; i++) {
			if (ev[i].kind == STEP_BULK && !r.in_batch) {
				meet(&cov, first, replay_position(&r.m), ev[i].nr);
				first = 0;
				pages += ev[i].nr;
			}
			if (replay_event(&r, &ev[i])) {
				ktap_diag("map %d (%lu pages): %s", res->maps, n, r.why);
				ok = 0;
			}
		}
		if (ok && (nev < 0 || pages != (long)n || r.in_batch)) {
			ktap_diag("map %d (%lu pages): the trace shows %ld pages in batches%s", res->maps, n,
				  pages, nev < 0 ? " (unreadable)" : r.in_batch ? ", the last one unfinished" : "");
			ok = 0;
		}
		/* Steps beyond the map's own failed high-order attempts: the kernel's, seen. */
		if (ok && r.steps - steps_before - (long)ilog2_ul(n) > res->hidden_max)
			res->hidden_max = r.steps - steps_before - (long)ilog2_ul(n);
		if (ok)
			res->hidden += r.steps - steps_before - (long)ilog2_ul(n);
	}
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	res->inner = r.inner_steps;
	if (ok && cov.left > 0) {
		ktap_diag("%d classes of batch not met in %d maps", cov.left, res->maps);
		ok = 0;
	}
	return ok;
}

/*
 * Maps of the given sizes under MPOL_WEIGHTED_INTERLEAVE over the nodes
 * with a weight, each step and batch replayed (mempolicy.h).  Like
 * sweep_vector() without the coverage: the sizes are the caller's.
 */
int sweep_maps(const unsigned weights[WI_MAX_NODES], const unsigned long *sizes, int nr)
{
	static struct step_event ev[MAX_EVENTS];
	unsigned long mask = 0;
	struct replay r;
	int ok = 1;

	for (int i = 0; i < WI_MAX_NODES; i++)
		if (weights[i])
			mask |= 1UL << i;
	replay_init(&r, weights);
	steptrace_take(NULL, 0);
	if (sys_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, mask)) {
		ktap_diag("set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, %s): %s", mask_str(mask), strerror(errno));
		return 0;
	}
	for (int k = 0; ok && k < nr; k++) {
		int fd = bulk_map_create(sizes[k]), nev;
		long pages = 0;

		if (fd < 0) {
			ktap_diag("map of %lu pages: bpf(BPF_MAP_CREATE): %s", sizes[k], strerror(errno));
			ok = 0;
			break;
		}
		nev = steptrace_take(ev, MAX_EVENTS);
		close(fd);
		for (int i = 0; ok && i < nev; i++) {
			if (ev[i].kind == STEP_BULK && !r.in_batch)
				pages += ev[i].nr;
			if (replay_event(&r, &ev[i])) {
				ktap_diag("map %d (%lu pages) over %s: %s", k + 1, sizes[k], mask_str(mask), r.why);
				ok = 0;
			}
		}
		if (ok && (nev < 0 || pages != (long)sizes[k] || r.in_batch)) {
			ktap_diag("map %d (%lu pages): the trace shows %ld pages in batches%s", k + 1, sizes[k],
				  pages, nev < 0 ? " (unreadable)" : r.in_batch ? ", the last one unfinished" : "");
			ok = 0;
		}
	}
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	return ok;
}

/* Every vector of the family: weights 1..max per node, the first node slowest. */
static int sweep_family(const struct nodes *n, const struct family *f, int *maps)
{
	int nodes[3], ok = 1, vectors = 1;
	struct vector_result total = { 0 }, res;

	for (int i = 0; i < f->nr; i++) {
		nodes[i] = n->mem[f->idx[i]];
		vectors *= (int)f->max_weight;
	}
	for (int v = 0; ok && v < vectors; v++) {
		unsigned w[3], got;
		int rest = v;

		for (int i = f->nr - 1; i >= 0; i--) {
			w[i] = 1 + (unsigned)(rest % (int)f->max_weight);
			rest /= (int)f->max_weight;
		}
		for (int i = 0; ok && i < f->nr; i++)
			if (wi_set(nodes[i], w[i], &got) || got != w[i])
				ok = 0;
		if (!ok)
			break;
		ok = sweep_vector(nodes, w, f->nr, &res);
		if (!ok) {
			char list[64];
			size_t len = 0;

			for (int i = 0; i < f->nr; i++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d:%u", i ? " " : "",
							nodes[i], w[i]);
			ktap_diag("weights %s: mismatch above", list);
		}
		total.maps += res.maps;
		total.hidden += res.hidden;
		total.inner += res.inner;
		if (res.hidden_max > total.hidden_max)
			total.hidden_max = res.hidden_max;
	}
	*maps = total.maps;
	ktap_diag("metric: sweep.%d%s.kernel_steps %ld (at most %ld in one map, %ld inside batches)", f->nr,
		  f->idx[0] ? "_subset" : "", total.hidden, total.hidden_max, total.inner);
	return ok;
}

int sweep_plan(const struct nodes *n)
{
	(void)n;
	return NR_FAMILIES;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sweep_run(const struct nodes *n)
{
	const char *why = bulk_unsupported(n);
	struct bulk_frame frame = { 0 };
	long missed;

	if (!why)
		why = bulk_frame_begin(n, &frame);
	if (!why && sys_write("/proc/self/make-it-fail", "1"))
		why = "cannot write /proc/self/make-it-fail";
	for (int i = 0; i < NR_FAMILIES; i++) {
		const struct family *f = &families[i];
		double start = now();
		int maps = 0, ok;

		if (why) {
			ktap_skip("bulk weighted interleave sweep", "%s", why);
			continue;
		}
		if (n->nr_mem < f->needs) {
			ktap_skip("bulk weighted interleave sweep", "%s needs %d memory nodes", f->name, f->needs);
			continue;
		}
		ok = sweep_family(n, f, &maps);
		ktap_diag("metric: sweep.%d%s.seconds %.2f", f->nr, f->idx[0] ? "_subset" : "", now() - start);
		/*
		 * The number of maps varies with the kernel's own steps: it stays out
		 * of the name, which `numalab mutate` matches against the base run.
		 */
		ktap_diag("metric: sweep.%d%s.maps %d", f->nr, f->idx[0] ? "_subset" : "", maps);
		ktap_ok(ok, "bulk weighted interleave sweep, %s: every place x remainder matched", f->name);
	}
	if ((missed = bulk_frame_end(&frame)))
		ktap_diag("the trace missed %ld events: a mismatch above may be the probe's", missed);
}
