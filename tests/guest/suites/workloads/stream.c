/*
 * STREAM triad: a[i] = b[i] + s * c[i] over three arrays.
 *
 * The bandwidth reference: three sequential streams (two read, one
 * written), no reuse, so the rate is set by memory bandwidth and the
 * placement of the pages, with THP only cutting TLB refills.  The arrays
 * share the working set in thirds; the triad runs TIMES times as STREAM
 * repeats its kernels.
 *
 * Self-check: the inputs are small integers (b[i] = i mod 1024, c[i] =
 * i mod 256, s = 3), so every a[i] is exact in double whatever the
 * compiler contracts, and must equal (i mod 1024) + 3 (i mod 256).
 */
#include <inttypes.h>
#include <stdio.h>

#include "workloads.h"

#define TIMES 30
#define SCALAR 3.0

struct stream {
	double *a, *b, *c;
	size_t n;
};

static double expected(size_t i)
{
	return (double)(i % 1024) + SCALAR * (double)(i % 256);
}

static void *stream_setup(struct wl_run *r)
{
	struct stream *s = arena_alloc(r->arena, sizeof(*s), 64);

	if (!s)
		return wl_fail(r, "arena too small"), NULL;
	s->n = (arena_left(r->arena, 64) - 3 * 64) / (3 * sizeof(double));
	s->a = arena_alloc(r->arena, s->n * sizeof(double), 64);
	s->b = arena_alloc(r->arena, s->n * sizeof(double), 64);
	s->c = arena_alloc(r->arena, s->n * sizeof(double), 64);
	if (!s->a || !s->b || !s->c || !s->n)
		return wl_fail(r, "arena too small for the arrays"), NULL;
	for (size_t i = 0; i < s->n; i++) {
		s->a[i] = 0;
		s->b[i] = (double)(i % 1024);
		s->c[i] = (double)(i % 256);
	}
	snprintf(r->shape, sizeof(r->shape), "elements=%zu arrays=3 times=%d", s->n, TIMES);
	return s;
}

static void stream_kernel(void *state, struct wl_run *r)
{
	struct stream *s = state;
	double *restrict a = s->a;
	const double *restrict b = s->b, *restrict c = s->c;

	for (int t = 0; t < TIMES; t++)
		for (size_t i = 0; i < s->n; i++)
			a[i] = b[i] + SCALAR * c[i];
	r->ops = (uint64_t)s->n * TIMES;
}

static int stream_check(void *state, struct wl_run *r)
{
	struct stream *s = state;
	uint64_t digest = s->n;

	for (size_t i = 0; i < s->n; i++) {
		if (s->a[i] != expected(i))
			return wl_fail(r, "a[%zu] = %g, want %g", i, s->a[i], expected(i));
		digest += (uint64_t)s->a[i] * (i + 1);
	}
	r->checksum = digest;
	return 1;
}

const struct workload wl_stream = { "stream", stream_setup, stream_kernel, stream_check };
