/*
 * mcf-like: pointer chasing over network-simplex arc and node records.
 *
 * mcf spends its time walking arcs (64-byte records) and reading their end
 * nodes' potentials to price them: dependent loads with no locality.  Here
 * the arcs are linked into one random cycle (Sattolo's shuffle) and the
 * kernel walks it PASSES times; each step prices the arc (reduced cost =
 * cost - potential(tail) + potential(head)), counts a negative price in the
 * arc's flow, and bumps its head node's depth (a read-modify-write of a
 * second random record).
 *
 * Self-check, by a linear scan instead of the chase: the walk took exactly
 * PASSES * arcs steps (one cycle through every arc), the chased sum of
 * prices is PASSES times the scanned sum, every arc's flow is PASSES when
 * its price is negative and 0 otherwise, and each node's depth is PASSES
 * times its in-degree.
 */
#include <inttypes.h>
#include <stdio.h>

#include "workloads.h"

#define SEED 0x6d6366UL            /* "mcf" */
#define ARCS_PER_NODE 8
#define PASSES 1
#define MAX_COST 10000

struct mcf_node {
	int64_t potential;
	int64_t depth;
	struct mcf_node *pred;
	int64_t number;
};

struct mcf_arc {
	struct mcf_arc *next;      /* the cycle the kernel follows */
	struct mcf_node *tail, *head;
	int64_t cost;
	int64_t flow;
	int64_t ident;             /* during setup: the permutation */
	int64_t org_cost;
	int64_t pad;
};

struct mcf {
	struct mcf_node *nodes;
	struct mcf_arc *arcs;
	size_t nr_nodes, nr_arcs;
	uint64_t steps;
	int64_t price_sum;
};

static int64_t price(const struct mcf_arc *a)
{
	return a->cost - a->tail->potential + a->head->potential;
}

/* Sattolo's shuffle: a uniformly random permutation that is one cycle. */
static void link_one_cycle(struct mcf *m, uint64_t *rng)
{
	for (size_t i = 0; i < m->nr_arcs; i++)
		m->arcs[i].ident = (int64_t)i;
	for (size_t i = m->nr_arcs - 1; i > 0; i--) {
		size_t j = rng_below(rng, i);
		int64_t tmp = m->arcs[i].ident;

		m->arcs[i].ident = m->arcs[j].ident;
		m->arcs[j].ident = tmp;
	}
	for (size_t i = 0; i < m->nr_arcs; i++) {
		m->arcs[i].next = &m->arcs[m->arcs[i].ident];
		m->arcs[i].ident = (int64_t)i;
	}
}

static void *mcf_setup(struct wl_run *r)
{
	size_t per_node = sizeof(struct mcf_node) + ARCS_PER_NODE * sizeof(struct mcf_arc);
	struct mcf *m = arena_alloc(r->arena, sizeof(*m), 64);
	uint64_t rng = SEED;

	if (!m)
		return wl_fail(r, "arena too small"), NULL;
	*m = (struct mcf){ 0 };    /* a later rep gets the previous rep's bytes */
	m->nr_nodes = (arena_left(r->arena, 64) - 128) / per_node;
	m->nr_arcs = m->nr_nodes * ARCS_PER_NODE;
	m->nodes = arena_alloc(r->arena, m->nr_nodes * sizeof(*m->nodes), 64);
	m->arcs = arena_alloc(r->arena, m->nr_arcs * sizeof(*m->arcs), 64);
	if (m->nr_nodes < 2 || !m->nodes || !m->arcs)
		return wl_fail(r, "arena too small for %zu nodes", m->nr_nodes), NULL;
	for (size_t i = 0; i < m->nr_nodes; i++)
		m->nodes[i] = (struct mcf_node){ .potential = (int64_t)rng_below(&rng, MAX_COST),
						 .number = (int64_t)i };
	for (size_t i = 0; i < m->nr_arcs; i++) {
		struct mcf_arc *a = &m->arcs[i];

		a->tail = &m->nodes[rng_below(&rng, m->nr_nodes)];
		a->head = &m->nodes[rng_below(&rng, m->nr_nodes)];
		a->cost = a->org_cost = (int64_t)rng_below(&rng, MAX_COST);
		a->flow = 0;
	}
	link_one_cycle(m, &rng);
	snprintf(r->shape, sizeof(r->shape), "nodes=%zu arcs=%zu passes=%d", m->nr_nodes, m->nr_arcs,
		 PASSES);
	return m;
}

static void mcf_kernel(void *state, struct wl_run *r)
{
	struct mcf *m = state;
	struct mcf_arc *start = &m->arcs[0];

	for (int pass = 0; pass < PASSES; pass++) {
		struct mcf_arc *a = start;

		do {
			int64_t p = price(a);

			a->flow += p < 0;
			a->head->depth++;
			m->price_sum += p;
			m->steps++;
			a = a->next;
		} while (a != start);
	}
	r->ops = m->steps;
}

static int mcf_check(void *state, struct wl_run *r)
{
	struct mcf *m = state;
	int64_t sum = 0;
	uint64_t negative = 0;

	if (m->steps != (uint64_t)PASSES * m->nr_arcs)
		return wl_fail(r, "the chase took %" PRIu64 " steps, want %zu: not one cycle", m->steps,
			       (size_t)PASSES * m->nr_arcs);
	for (size_t i = 0; i < m->nr_arcs; i++) {
		struct mcf_arc *a = &m->arcs[i];
		int64_t p = price(a);

		if (a->flow != (p < 0 ? PASSES : 0))
			return wl_fail(r, "arc %zu: flow %" PRId64 " for price %" PRId64, i, a->flow, p);
		a->head->depth -= PASSES;
		sum += p;
		negative += p < 0;
	}
	for (size_t i = 0; i < m->nr_nodes; i++)
		if (m->nodes[i].depth)
			return wl_fail(r, "node %zu: depth off its in-degree by %" PRId64, i, m->nodes[i].depth);
	if (m->price_sum != PASSES * sum)
		return wl_fail(r, "chased price sum %" PRId64 ", scanned %" PRId64 " x %d", m->price_sum, sum,
			       PASSES);
	r->checksum = mix(mix((uint64_t)sum, negative), m->nr_arcs);
	return 1;
}

const struct workload wl_mcf = { "mcf", mcf_setup, mcf_kernel, mcf_check };
