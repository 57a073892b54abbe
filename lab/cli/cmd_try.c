/* numalab try: from a patch to a verdict in one command (docs/try.md). */
#include "cli/command.h"
#include "cli/options.h"
#include "drive/matrix_run.h"
#include "drive/try.h"
#include "model/matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY_MAX_CLAIMS 16

static const char usage[] =
	"usage: numalab try PATCH... [options]\n"
	"\n"
	"Does the patch do what it claims on these NUMA shapes, and does it break\n"
	"anything?  Builds the base kernel and base + PATCHes (format-patch files,\n"
	"an mbox series, a mail quoting the patch) for every arch the shapes need,\n"
	"runs the suites on every shape for both kernels (a matrix: parallel,\n"
	"resumable with the same --out), compares base with patched per shape, and\n"
	"leads the report with the verdict: the claims (--expect), tests that pass\n"
	"on base and fail patched with what they printed, metrics that changed\n"
	"significantly, behaviour that differs but is not a number, and what could\n"
	"not be judged.  OUT gets report.txt, try.tap, try.json and try.html (one\n"
	"page, no scripts, no network), the patches and the matrix's cells.\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 no regression, 1 a regression (a test broken, a judged metric\n"
	"regressed, a claim that does not hold), 2 bad input, 3 harness error or\n"
	"incomplete (also when interrupted: the same command resumes).\n";

struct claims {
	struct try_claim items[TRY_MAX_CLAIMS];
	int nr;
};

static int expect_option(void *value, const char *arg, struct error *err)
{
	struct claims *c = value;

	if (c->nr == TRY_MAX_CLAIMS)
		return error_input(err, "--expect: at most %d claims", TRY_MAX_CLAIMS);
	return try_claim_parse(arg, &c->items[c->nr++], err);
}

static int shard_option(void *value, const char *arg, struct error *err)
{
	struct try_opts *o = value;

	return matrix_shard_parse(arg, &o->shard, &o->nr_shards, err);
}

int cmd_try(int argc, char **argv)
{
	struct try_opts o = { .base = "stock", .topos = "2node,4node", .suites = "topology,mempolicy,khugepaged",
			      .nr_shards = 1, .show = { command_show_on_stdout, NULL } };
	static struct command_sink sink = { NULL, "numalab try: " };
	struct claims claims = { .nr = 0 };
	const char *kcidb = NULL;
	char out_buf[256];
	enum try_verdict v;
	struct error err;
	int rc, first;
	const struct opt opts[] = {
		OPT_STRING("base", &o.base, "stock|RECIPE|DIR",
			   "the kernel the patches go on: a recipe (kernels/recipes/)\n"
			   "or a kernel source tree, built as it is (default stock)"),
		OPT_STRING("topos", &o.topos, "LIST", "shapes, comma-separated (default 2node,4node)"),
		OPT_STRING("suites", &o.suites, "LIST", "guest suites, comma-separated\n(default topology,mempolicy,khugepaged)"),
		OPT_INT("repeat", &o.repeat, "N", 1, 100,
			"runs per kernel and shape, 1..100 (default 3: the fewest\n"
			"at which the statistics can speak)"),
		OPT_INT("jobs", &o.jobs, "N", 1, MATRIX_MAX_JOBS, "cells at once (default: as cores and memory allow)"),
		OPT_STRING("out", &o.out, "DIR", "output directory (default results/try-TIME); the same DIR resumes"),
		OPT_CALLBACK("expect", &claims, "'METRIC decreases|increases|unchanged'", expect_option,
			     "the patch's claim, judged first (repeatable), e.g.\n"
			     "--expect 'bulk_calls decreases'"),
		OPT_CHOICE("accel", &o.accel, "auto|tcg|kvm", "auto|tcg|kvm", "the cells' accelerator (default auto)"),
		OPT_LAVA(&o.lava.url, &o.lava.device_type, &o.lava.artifacts),
		OPT_DOUBLE("threshold", &o.threshold_pct, "PCT", 0, HUGE_VAL,
			   "smallest change of a mean that counts (default 5)"),
		OPT_DOUBLE_OPEN("alpha", &o.alpha, "P", 0, 1, "significance level for q, 0 < P < 1 (default 0.05)"),
		OPT_CALLBACK("shard", &o, "I/N", shard_option,
			     "run only the cells k with k % N == I (the report covers\n"
			     "the cells OUT holds)"),
		OPT_STRING("kcidb", &kcidb, "FILE",
			   "also write the cells' results as KCIDB JSON at the end,\n"
			   "the patched checkout with its patchset_hash (docs/kcidb.md)"),
		OPT_FLAG("report", &o.report_only,
			 "build and run nothing: judge and write what OUT holds\n"
			 "(e.g. after copying the shards' OUT/shard-* into it)"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "try", .usage = usage, .opts = opts, .tail = tail };

	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	if ((rc = command_lava_check("try", &o.lava)) >= 0)
		return rc;
	if (first == argc)
		return command_usage_error("try", "which patches? e.g. `numalab try kernels/patches/wi-carryover/*.patch`");
	if (!o.out)
		command_stamped_out(out_buf, sizeof(out_buf), "try");
	o.out = o.out ? o.out : out_buf;
	o.patches = argv + first;
	o.nr_patches = argc - first;
	o.claims = claims.items;
	o.nr_claims = claims.nr;
	/* Steps on stdout, in order with the cells' lines and the report. */
	sink.steps = stdout;
	command_set_sink(&sink);
	if (try_run(&o, &v, &err))
		return command_fail("try", &err);
	if (kcidb && (rc = command_kcidb_write("try", o.out, kcidb)))
		return rc;
	return command_exit_try(v);
}
