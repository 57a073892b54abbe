/*
 * The step-trace replay (tests/guest/suites/mempolicy/replay.h), the oracle
 * of the guest's bulk sweep and page-cache tests: fed the trace that Linux
 * 7.2's weighted-interleave code would produce (its arithmetic transcribed
 * below: weighted_interleave_nodes() and the pre-"simplify"
 * alloc_pages_bulk_weighted_interleave()), it finds nothing wrong for the
 * sweep's map sizes; with the mutant the sweep was written for
 * (`delta > weight` -> `>=`) it finds a mismatch.
 */
#include <string.h>

#include "replay.h"
#include "unit.h"

#define NO_NODE -1

/* The kernel's side: the task's state and the trace it leaves. */
struct kernel {
	unsigned weights[WI_MAX_NODES];
	int il_prev;               /* MAX_NUMNODES - 1 after set_mempolicy: "none" here */
	unsigned il_weight;
	int mutant;                /* delta >= weight */
	struct step_event ev[4096];
	int nev;
};

static void emit(struct kernel *k, enum step_kind kind, int node, long nr)
{
	if (k->nev < (int)(sizeof(k->ev) / sizeof(k->ev[0])))
		k->ev[k->nev++] = (struct step_event){ kind, node, nr };
}

static int next_node_in(const struct kernel *k, int node)
{
	for (int i = 1; i <= WI_MAX_NODES; i++) {
		int n = node < 0 ? i - 1 : (node + i) % WI_MAX_NODES;

		if (k->weights[n])
			return n;
	}
	return NO_NODE;
}

static int in_mask(const struct kernel *k, int node)
{
	return node >= 0 && k->weights[node];
}

static void wi_nodes(struct kernel *k)
{
	int node = k->il_prev;

	if (!k->il_weight || !in_mask(k, node)) {
		node = next_node_in(k, node);
		k->il_prev = node;
		k->il_weight = k->weights[node];
	}
	k->il_weight--;
	emit(k, STEP_PAGE, node, 0);
}

static void wi_bulk(struct kernel *k, unsigned long nr_pages)
{
	unsigned long rem = nr_pages, rounds, delta, total = 0, allocated = 0;
	int node = k->il_prev, prev, resume;
	unsigned weight = k->il_weight, resume_weight, nnodes = 0;

	emit(k, STEP_BULK, NO_NODE, (long)nr_pages);
	if (weight && in_mask(k, node)) {
		unsigned long pages = rem < weight ? rem : weight;

		emit(k, STEP_NODE_RUN, node, (long)pages);
		allocated += pages;
		if (rem <= weight) {
			k->il_weight -= (unsigned)rem;
			return;
		}
		rem -= weight;
	}
	k->il_weight = 0;
	prev = node;
	for (int i = 0; i < WI_MAX_NODES; i++) {
		total += k->weights[i];
		nnodes += k->weights[i] != 0;
	}
	rounds = rem / total;
	delta = rem % total;
	resume = next_node_in(k, prev);
	resume_weight = k->weights[resume];
	for (unsigned i = 0; i < nnodes; i++) {
		unsigned long pages;

		node = next_node_in(k, prev);
		weight = k->weights[node];
		pages = weight * rounds;
		if (k->mutant ? delta >= weight : delta > weight) {
			pages += weight;
			delta -= weight;
		} else if (delta) {
			pages += delta;
			resume = node;
			resume_weight = weight - (unsigned)delta;
			delta = 0;
		}
		if (!pages)
			break;
		emit(k, STEP_NODE_RUN, node, (long)pages);
		allocated += pages;
		if (allocated == nr_pages)
			break;
		prev = node;
	}
	k->il_prev = resume;
	k->il_weight = resume_weight;
}

/* One vmalloc'ed map: a failed high-order attempt per order, then batches of <= 100. */
static void map(struct kernel *k, unsigned long n)
{
	for (unsigned long o = n; o > 1; o >>= 1)
		wi_nodes(k);
	for (unsigned long done = 0; done < n; done += 100)
		wi_bulk(k, n - done < 100 ? n - done : 100);
}

/* Maps of 9..112 pages in turn over weights (a, b); 0 if the replay saw no mismatch. */
static int run(unsigned a, unsigned b, int mutant)
{
	static struct kernel k;
	struct replay r;

	memset(&k, 0, sizeof(k));
	k.weights[0] = a;
	k.weights[1] = b;
	k.il_prev = NO_NODE;
	k.mutant = mutant;
	replay_init(&r, k.weights);
	for (unsigned long n = 9; n <= 112; n++) {
		k.nev = 0;
		map(&k, n);
		for (int i = 0; i < k.nev; i++)
			if (replay_event(&r, &k.ev[i]))
				return -1;
	}
	return r.in_batch ? -1 : 0;
}

UNIT_TEST(kernel_arithmetic_replays_clean)
{
	for (unsigned a = 1; a <= 3; a++)
		for (unsigned b = 1; b <= 3; b++)
			CHECK_INT(run(a, b, 0), 0);
}

UNIT_TEST(delta_ge_weight_mutant_is_caught)
{
	int caught = 0;

	for (unsigned a = 1; a <= 3; a++)
		for (unsigned b = 1; b <= 3; b++)
			caught += run(a, b, 1) != 0;
	CHECK(caught > 0);
}

UNIT_TEST(a_step_inside_a_batch_leaves_the_model_alone)
{
	unsigned w[WI_MAX_NODES] = { 2, 1 };
	struct replay r;
	const struct step_event ev[] = {
		{ STEP_BULK, NO_NODE, 3 }, { STEP_NODE_RUN, 0, 2 },
		{ STEP_PAGE, 1, 0 },          /* the weights' kmalloc refilling a slab */
		{ STEP_NODE_RUN, 1, 1 }, { STEP_PAGE, 0, 0 },
	};

	replay_init(&r, w);
	for (unsigned i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		CHECK_INT(replay_event(&r, &ev[i]), 0);
	CHECK_INT(r.inner_steps, 1);
	CHECK_INT(r.placed[0], 2);
	CHECK_INT(r.placed[1], 1);
}

UNIT_TEST(wrong_step_and_short_batch_fail)
{
	unsigned w[WI_MAX_NODES] = { 1, 1 };
	struct replay r;
	const struct step_event wrong = { STEP_PAGE, 1, 0 };
	const struct step_event batch = { STEP_BULK, NO_NODE, 4 }, run1 = { STEP_NODE_RUN, 0, 2 };

	replay_init(&r, w);
	CHECK_INT(replay_event(&r, &wrong), -1);  /* a fresh policy starts at node 0 */
	replay_init(&r, w);
	CHECK_INT(replay_event(&r, &batch), 0);
	CHECK_INT(replay_event(&r, &run1), 0);
	CHECK_INT(replay_event(&r, &batch), -1);  /* the first asked for 2 of 4 pages */
}

UNIT_MAIN(UNIT_CASE(kernel_arithmetic_replays_clean),
	  UNIT_CASE(delta_ge_weight_mutant_is_caught),
	  UNIT_CASE(a_step_inside_a_batch_leaves_the_model_alone),
	  UNIT_CASE(wrong_step_and_short_batch_fail))
