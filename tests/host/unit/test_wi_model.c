/*
 * The weighted-interleave reference model (tests/guest/lib/wi_model.h): page by
 * page order, carryover of a partly used weight between allocations, and
 * bulk placement equal to the same number of single pages, for many weight
 * vectors, masks and sizes.
 */
#include <stdio.h>
#include <string.h>

#include "wi_model.h"
#include "unit.h"

static void weights2(unsigned w[WI_MAX_NODES], unsigned a, unsigned b)
{
	memset(w, 0, sizeof(unsigned) * WI_MAX_NODES);
	w[0] = a;
	w[1] = b;
}

UNIT_TEST(pages_follow_the_weights)
{
	unsigned w[WI_MAX_NODES];
	struct wi_model m;
	int got[8], want[8] = { 0, 0, 0, 1, 0, 0, 0, 1 };

	weights2(w, 3, 1);
	wi_model_init(&m, w);
	for (int i = 0; i < 8; i++)
		got[i] = wi_model_page(&m);
	CHECK(!memcmp(got, want, sizeof(got)));
}

UNIT_TEST(carryover_between_allocations)
{
	unsigned w[WI_MAX_NODES];
	unsigned long count[WI_MAX_NODES] = { 0 };
	struct wi_model m;
	unsigned rem;
	int node;

	weights2(w, 3, 1);
	wi_model_init(&m, w);
	wi_model_bulk(&m, 2, count);            /* 0 0 */
	CHECK_INT(count[0], 2);
	CHECK_INT(count[1], 0);
	wi_model_next(&m, &node, &rem);
	CHECK_INT(node, 0);                      /* one unit left on node 0 */
	CHECK_INT(rem, 1);
	memset(count, 0, sizeof(count));
	wi_model_bulk(&m, 3, count);            /* 0 | 1 | 0 */
	CHECK_INT(count[0], 2);
	CHECK_INT(count[1], 1);
	wi_model_next(&m, &node, &rem);
	CHECK_INT(node, 0);
	CHECK_INT(rem, 2);
	memset(count, 0, sizeof(count));
	wi_model_bulk(&m, 2 + 4 * 5 + 1, count); /* finish 0, five rounds, then node 1 */
	CHECK_INT(count[0], 2 + 15);
	CHECK_INT(count[1], 5 + 1);
	wi_model_next(&m, &node, &rem);
	CHECK_INT(node, 0);                      /* node 1's weight is used up: on to 0 */
	CHECK_INT(rem, 3);
}

UNIT_TEST(fresh_policy_starts_at_the_first_node)
{
	unsigned w[WI_MAX_NODES] = { 0 };
	struct wi_model m;
	unsigned rem;
	int node;

	w[2] = 5;
	w[5] = 2;
	wi_model_init(&m, w);
	wi_model_next(&m, &node, &rem);
	CHECK_INT(node, 2);
	CHECK_INT(rem, 5);
	CHECK_INT(wi_model_round(&m), 7);
	for (int i = 0; i < 5; i++)
		CHECK_INT(wi_model_page(&m), 2);
	CHECK_INT(wi_model_page(&m), 5);
	/* Node 5 leaves the mask: the remaining unit is not used. */
	m.weights[5] = 0;
	CHECK_INT(wi_model_page(&m), 2);
}

UNIT_TEST(empty_mask)
{
	unsigned w[WI_MAX_NODES] = { 0 };
	unsigned long count[WI_MAX_NODES] = { 0 };
	struct wi_model m;

	wi_model_init(&m, w);
	CHECK_INT(wi_model_page(&m), -1);
	wi_model_bulk(&m, 10, count);
	CHECK_INT(count[0], 0);
}

/* Bulk == the same pages one by one, in counts and in the state left behind. */
UNIT_TEST(bulk_equals_page_by_page)
{
	unsigned long seed = 12345;
	int bad = 0;

	for (int trial = 0; trial < 2000 && !bad; trial++) {
		unsigned w[WI_MAX_NODES] = { 0 };
		unsigned long bulk[WI_MAX_NODES] = { 0 }, single[WI_MAX_NODES] = { 0 };
		struct wi_model a, b;
		int nodes = 1 + (int)((seed = seed * 6364136223846793005UL + 1) >> 60) % 8;

		for (int i = 0; i < nodes; i++)
			w[i * 3 % WI_MAX_NODES] = 1 + (unsigned)((seed = seed * 6364136223846793005UL + 1) >> 59);
		wi_model_init(&a, w);
		wi_model_init(&b, w);
		for (int step = 0; step < 6; step++) {
			unsigned long n = (seed = seed * 6364136223846793005UL + 1) >> 55;
			int na, nb;
			unsigned ra, rb;

			wi_model_bulk(&a, n, bulk);
			for (unsigned long i = 0; i < n; i++)
				single[wi_model_page(&b)]++;
			wi_model_next(&a, &na, &ra);
			wi_model_next(&b, &nb, &rb);
			if (memcmp(bulk, single, sizeof(bulk)) || na != nb || ra != rb) {
				printf("#   trial %d step %d: n=%lu differs\n", trial, step, n);
				bad = 1;
			}
		}
	}
	CHECK_INT(bad, 0);
}

UNIT_MAIN(UNIT_CASE(pages_follow_the_weights),
	  UNIT_CASE(carryover_between_allocations),
	  UNIT_CASE(fresh_policy_starts_at_the_first_node),
	  UNIT_CASE(empty_mask),
	  UNIT_CASE(bulk_equals_page_by_page))
