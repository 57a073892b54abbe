/*
 * run: one workload under one placement, with or without THP.
 *
 * A fresh arena is mapped, given its policy and THP advice before anything
 * touches it (so the workload's own first touches place every page), and
 * the workload is set up, timed and checked reps times in it.  Counters are
 * read around the whole run: the deltas cover the faults that placed the
 * arena.  The checksum must be the first one seen for this workload: the
 * data are the same under every placement, only their location differs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ktap.h"
#include "workloads.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int wl_fail(struct wl_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return 0;
}

struct timing {
	double setup_s, time_s, check_s;
	uint64_t ops;
};

/* Setup, kernel, check, reps times; 0 with why on the first failure. */
static int repeat(struct run_ctx *ctx, int wl_index, const struct workload *w,
		  struct arena *arena, struct wl_run *r, struct timing *tm)
{
	for (int rep = 0; rep < ctx->conf->reps; rep++) {
		double t0, t1, t2;
		void *state;

		arena_reset(arena);
		memset(r, 0, sizeof(*r));
		r->arena = arena;
		r->wss = ctx->wss;
		t0 = now_s();
		if (!(state = w->setup(r)))
			return 0;
		t1 = now_s();
		w->kernel(state, r);
		t2 = now_s();
		if (!w->check(state, r))
			return 0;
		tm->setup_s += t1 - t0;
		tm->time_s += t2 - t1;
		tm->check_s += now_s() - t2;
		tm->ops += r->ops;
		if (!ctx->have_checksum[wl_index]) {
			ctx->checksum[wl_index] = r->checksum;
			ctx->have_checksum[wl_index] = 1;
		} else if (ctx->checksum[wl_index] != r->checksum) {
			return wl_fail(r, "checksum %#" PRIx64 " differs from the first run's %#" PRIx64,
				       r->checksum, ctx->checksum[wl_index]);
		}
	}
	return 1;
}

static void print_metrics(const struct run_ctx *ctx, const struct placement *p, const struct wl_run *r,
			  const struct timing *tm, const struct page_sample *ps,
			  const struct counters *before, const struct counters *after)
{
	long long sampled[MAX_NODES];
	char map[512];
	int nr = 0, nodes[MAX_NODES];

	for (int node = 0; node < MAX_NODES; node++)
		if (ps->on_node[node]) {
			nodes[nr] = node;
			sampled[nr++] = ps->on_node[node];
		}
	node_map(map, sizeof(map), nodes, nr, sampled);
	yaml_begin();
	yaml_field("time_s", "%.3f", tm->time_s);
	yaml_field("ops_per_s", "%.1f", tm->time_s > 0 ? (double)tm->ops / tm->time_s : 0.0);
	yaml_field("reps", "%d", ctx->conf->reps);
	yaml_field("ops", "%" PRIu64, tm->ops);
	yaml_field("setup_s", "%.3f", tm->setup_s);
	yaml_field("check_s", "%.3f", tm->check_s);
	yaml_field("wss_bytes", "%zu", ctx->wss);
	yaml_field("shape", "%s", r->shape);
	yaml_field("checksum", "\"%#" PRIx64 "\"", r->checksum);
	yaml_field("cpu", "%d", ctx->sys->home_cpu);
	yaml_field("policy", "\"%s\"", p->policy);
	yaml_field("sampled_pages", "%s", map);
	if (ps->absent)
		yaml_field("sampled_absent", "%ld", ps->absent);
	yaml_field("anon_huge_bytes", "%ld", ps->huge_bytes);
	counters_print_delta(ctx->sys, before, after);
	yaml_end();
}

void run_one(struct run_ctx *ctx, int wl_index, const struct workload *w,
	     const struct placement *p, int thp, struct outcome *out)
{
	struct arena arena = { 0 };
	struct wl_run r = { 0 };
	struct timing tm = { 0 };
	struct page_sample ps = { 0 };
	struct counters before, after;
	char name[96], why[WHY_MAX] = "";
	int ok = 0;

	snprintf(name, sizeof(name), "%s %s %s", w->name, p->name, thp ? "thp" : "nothp");
	memset(out, 0, sizeof(*out));
	if (p->skip[0] || (thp && ctx->sys->thp_skip[0])) {
		out->status = OUT_SKIP;
		snprintf(out->skip, sizeof(out->skip), "%s", p->skip[0] ? p->skip : ctx->sys->thp_skip);
		ktap_skip(name, "%s", out->skip);
		return;
	}
	counters_read(ctx->sys, &before);
	if (arena_map(&arena, ctx->wss, ctx->sys->pmd > 0 ? (size_t)ctx->sys->pmd : 0))
		snprintf(why, sizeof(why), "mmap arena of %zu bytes: %s", ctx->wss,
			 strerror(errno));
	else if (!placement_apply(ctx->sys, p, &arena, thp, why, sizeof(why))) {
		if (!repeat(ctx, wl_index, w, &arena, &r, &tm))
			snprintf(why, sizeof(why), "%s", r.why);
		else
			ok = placement_verify(ctx->sys, p, &arena, thp, &ps, why, sizeof(why));
	}
	counters_read(ctx->sys, &after);
	arena_unmap(&arena);
	if (!ok)
		ktap_diag("%s: %s", name, why);
	ktap_ok(ok, "%s", name);
	out->status = ok ? OUT_PASS : OUT_FAIL;
	out->time_s = tm.time_s;
	out->ops_per_s = tm.time_s > 0 ? (double)tm.ops / tm.time_s : 0;
	if (ok)
		print_metrics(ctx, p, &r, &tm, &ps, &before, &after);
}
