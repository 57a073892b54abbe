/*
 * GUPS (HPCC RandomAccess): random read-modify-write of one big table.
 *
 * Every update XORs a pseudo-random 64-bit value into the table word it
 * selects: one dependent-free random access per update, so the rate is set
 * by TLB reach and memory latency, not by compute.  The values come from
 * HPCC's LFSR (shift left, XOR POLY = 7 on carry).  Unlike HPCC the table is every word of
 * the working set, not a power of two, so the index is the high half of
 * the value scaled to the table (multiply-shift) instead of a mask.
 *
 * Self-check, as HPCC verifies: running the same update sequence again
 * undoes it (x ^ v ^ v == x), so afterwards every word must hold its
 * initial value, its own index.  The checksum is taken before the undo.
 */
#include <inttypes.h>
#include <stdio.h>

#include "workloads.h"

#define SEED UINT64_C(0x0123456789abcdef)
#define POLY UINT64_C(0x0000000000000007)
#define UPDATES_PER_WORD 2

struct gups {
	uint64_t *table;
	size_t words;
	uint64_t updates;
};

static uint64_t lfsr_next(uint64_t ran)
{
	return ran << 1 ^ ((int64_t)ran < 0 ? POLY : 0);
}

static size_t slot(const struct gups *g, uint64_t ran)
{
	return (size_t)((ran >> 32) * (uint64_t)g->words >> 32);
}

static void update_all(struct gups *g)
{
	uint64_t ran = SEED;

	for (uint64_t u = 0; u < g->updates; u++) {
		ran = lfsr_next(ran);
		g->table[slot(g, ran)] ^= ran;
	}
}

static void *gups_setup(struct wl_run *r)
{
	struct gups *g = arena_alloc(r->arena, sizeof(*g), 64);

	if (!g)
		return wl_fail(r, "arena too small"), NULL;
	g->words = (arena_left(r->arena, 64) - 64) / sizeof(uint64_t);
	if (g->words > UINT32_MAX)
		g->words = UINT32_MAX;    /* the multiply-shift index covers 32 bits */
	g->table = arena_alloc(r->arena, g->words * sizeof(uint64_t), 64);
	if (!g->table || !g->words)
		return wl_fail(r, "arena too small for a table"), NULL;
	g->updates = (uint64_t)g->words * UPDATES_PER_WORD;
	for (size_t i = 0; i < g->words; i++)
		g->table[i] = i;
	snprintf(r->shape, sizeof(r->shape), "words=%zu updates=%" PRIu64, g->words, g->updates);
	return g;
}

static void gups_kernel(void *state, struct wl_run *r)
{
	struct gups *g = state;

	update_all(g);
	r->ops = g->updates;
}

static int gups_check(void *state, struct wl_run *r)
{
	struct gups *g = state;
	uint64_t digest = 0;

	for (size_t i = 0; i < g->words; i++)
		digest += g->table[i] * (2 * i + 1);
	update_all(g);
	for (size_t i = 0; i < g->words; i++)
		if (g->table[i] != i)
			return wl_fail(r, "word %zu holds %#" PRIx64 " after the undo pass", i, g->table[i]);
	r->checksum = digest;
	return 1;
}

const struct workload wl_gups = { "gups", gups_setup, gups_kernel, gups_check };
