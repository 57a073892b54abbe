/*
 * bzip2-like: block sorting (the Burrows-Wheeler transform's suffix sort).
 *
 * bzip2 sorts every rotation of a block by its leading bytes with radix
 * passes over big arrays of suffix indices, writing each element to one of
 * 65536 buckets: streaming reads and widely scattered writes.  Here the
 * block is repetitive text (literal runs and back-references, as real input
 * has), each suffix gets its first 8 bytes (cyclic) as a 64-bit key, and an
 * LSD radix sort of (key, index) pairs in four 16-bit passes orders them
 * stably; the BWT column is then the byte before each sorted suffix.
 *
 * Self-check: the keys come out in order, equal keys by ascending index
 * (stability); each key is the 8 bytes at its index, read again from the
 * block; the indices are a permutation (no index twice); and the BWT column
 * has the block's byte histogram (it is a permutation of the block).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "workloads.h"

#define SEED 0x627a697032UL        /* "bzip2" */
#define DIGITS 4                   /* 16-bit digits of a 64-bit key */
#define BUCKETS 65536

struct bzip {
	uint8_t *block, *bwt;
	uint64_t *key, *key_tmp;
	uint32_t *idx, *idx_tmp;
	uint32_t (*count)[BUCKETS];
	size_t n;
};

/* The 8 bytes at i, wrapping around the block, most significant first. */
static uint64_t suffix_key(const struct bzip *b, size_t i)
{
	uint64_t k = 0;

	for (int j = 0; j < 8; j++)
		k = k << 8 | b->block[(i + (size_t)j) % b->n];
	return k;
}

/* Literal runs from a skewed alphabet and copies of earlier text. */
static void fill_block(struct bzip *b, uint64_t *rng)
{
	static const char alphabet[] = "eeeeeettttaaaooiinnsshhrrdlucmfwypvbgkqjxz  \n";
	size_t pos = 0;

	while (pos < b->n) {
		size_t len;

		if (pos < 64 || rng_below(rng, 4) == 0) {
			len = 1 + rng_below(rng, 16);
			for (size_t i = 0; i < len && pos < b->n; i++)
				b->block[pos++] = (uint8_t)alphabet[rng_below(rng, sizeof(alphabet) - 1)];
		} else {
			size_t dist = 1 + rng_below(rng, pos < 32768 ? pos : 32768);

			len = 4 + rng_below(rng, 60);
			for (size_t i = 0; i < len && pos < b->n; i++, pos++)
				b->block[pos] = b->block[pos - dist];
		}
	}
}

static void *bzip_setup(struct wl_run *r)
{
	struct bzip *b = arena_alloc(r->arena, sizeof(*b), 64);
	size_t per_byte = 2 * sizeof(uint64_t) + 2 * sizeof(uint32_t) + 2;
	uint64_t rng = SEED;

	if (!b)
		return wl_fail(r, "arena too small"), NULL;
	b->count = arena_alloc(r->arena, DIGITS * sizeof(*b->count), 64);
	b->n = (arena_left(r->arena, 64) - 6 * 64) / per_byte;
	if (b->n > UINT32_MAX)
		b->n = UINT32_MAX;
	b->key = arena_alloc(r->arena, b->n * sizeof(uint64_t), 64);
	b->key_tmp = arena_alloc(r->arena, b->n * sizeof(uint64_t), 64);
	b->idx = arena_alloc(r->arena, b->n * sizeof(uint32_t), 64);
	b->idx_tmp = arena_alloc(r->arena, b->n * sizeof(uint32_t), 64);
	b->block = arena_alloc(r->arena, b->n, 64);
	b->bwt = arena_alloc(r->arena, b->n, 64);
	if (!b->count || !b->key || !b->key_tmp || !b->idx || !b->idx_tmp || !b->block || !b->bwt ||
	    b->n < 16)
		return wl_fail(r, "arena too small for a block of %zu bytes", b->n), NULL;
	fill_block(b, &rng);
	snprintf(r->shape, sizeof(r->shape), "block=%zu passes=%d buckets=%d", b->n, DIGITS, BUCKETS);
	return b;
}

/* One stable counting pass on digit d from (key, idx) into (key_tmp, idx_tmp). */
static void radix_pass(struct bzip *b, int d)
{
	uint32_t *count = b->count[d], sum = 0;
	int shift = 16 * d;

	for (size_t bucket = 0; bucket < BUCKETS; bucket++) {
		uint32_t c = count[bucket];

		count[bucket] = sum;
		sum += c;
	}
	for (size_t i = 0; i < b->n; i++) {
		uint32_t at = count[b->key[i] >> shift & 0xffff]++;

		b->key_tmp[at] = b->key[i];
		b->idx_tmp[at] = b->idx[i];
	}
}

static void swap_buffers(struct bzip *b)
{
	uint64_t *k = b->key;
	uint32_t *i = b->idx;

	b->key = b->key_tmp;
	b->key_tmp = k;
	b->idx = b->idx_tmp;
	b->idx_tmp = i;
}

static void bzip_kernel(void *state, struct wl_run *r)
{
	struct bzip *b = state;

	memset(b->count, 0, DIGITS * sizeof(*b->count));
	for (size_t i = 0; i < b->n; i++) {
		b->key[i] = suffix_key(b, i);
		b->idx[i] = (uint32_t)i;
		for (int d = 0; d < DIGITS; d++)
			b->count[d][b->key[i] >> (16 * d) & 0xffff]++;
	}
	for (int d = 0; d < DIGITS; d++) {
		radix_pass(b, d);
		swap_buffers(b);
	}
	for (size_t i = 0; i < b->n; i++)
		b->bwt[i] = b->block[(b->idx[i] + b->n - 1) % b->n];
	r->ops = b->n;
}

static int bzip_check(void *state, struct wl_run *r)
{
	struct bzip *b = state;
	uint8_t *seen = (uint8_t *)b->key_tmp;     /* scratch now */
	uint64_t hist[256] = { 0 }, digest = b->n;

	memset(seen, 0, b->n);
	for (size_t i = 0; i < b->n; i++) {
		if (b->idx[i] >= b->n || seen[b->idx[i]]++)
			return wl_fail(r, "index %u at %zu repeats or is out of range", b->idx[i], i);
		if (b->key[i] != suffix_key(b, b->idx[i]))
			return wl_fail(r, "key at %zu is not the suffix at %u", i, b->idx[i]);
		if (i && (b->key[i - 1] > b->key[i] || (b->key[i - 1] == b->key[i] && b->idx[i - 1] > b->idx[i])))
			return wl_fail(r, "suffixes %zu and %zu out of order", i - 1, i);
		hist[b->block[i]]++;
		hist[b->bwt[i]]--;
		digest += (uint64_t)b->bwt[i] * (i + 1);
	}
	for (int c = 0; c < 256; c++)
		if (hist[c])
			return wl_fail(r, "the BWT column is not a permutation of the block (byte %d)", c);
	r->checksum = digest;
	return 1;
}

const struct workload wl_bzip2 = { "bzip2", bzip_setup, bzip_kernel, bzip_check };
