/*
 * numalab bisect-run: one step of `git bisect run`: build HEAD of a kernel
 * git tree with a recipe's config, boot it, run one test, exit with the
 * verdict git bisect understands (lab/analysis/bisect.h).
 */
#include "analysis/bisect.h"
#include "cli/command.h"
#include "cli/cmd_bisect_run.h"
#include "kernel/kbuild.h"
#include "base/interrupt.h"
#include "base/git.h"
#include "drive/run.h"
#include "model/labdata.h"
#include "model/topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: numalab bisect-run --ksrc DIR --topo NAME --test SUITE[:PREFIX] [options]\n"
	"\n"
	"A `git bisect run` step: build HEAD of the kernel git tree DIR with the\n"
	"recipe's base, fragments and patches (incrementally, through the kernel\n"
	"build cache), boot it on the topology, run the guest test SUITE (only its\n"
	"subtests whose names start with PREFIX decide, when given) and exit\n"
	"  0 good, 1 bad (failed, timed out, or the kernel crashed during the test),\n"
	"  125 skip (did not build, did not boot to the test, the lab failed),\n"
	"  128 abort (bad request: unknown test, recipe or topology).\n"
	"Each step is appended to the log with its verdict and why.\n"
	"\n"
	"A performance regression instead: --metric [TEST:]NAME runs the suite\n"
	"--repeat times and compares the metric with the runs in --baseline DIR\n"
	"(the good commit's, made by --record DIR) as `numalab compare` does: bad\n"
	"when it regressed significantly (--alpha) by at least --threshold percent.\n"
	"\n";

static const char tail[] =
	"\n"
	"`make lab-bisect` / `numalab bisect` drive it (docs/bisect.md).\n";

void step_opts_init(struct step_opts *so)
{
	*so = (struct step_opts){ .recipe = "stock", .rev = "HEAD", .repeat = 3, .threshold = 5,
				  .alpha = 0.05 };
}

int bisect_run_options_parse(int argc, char **argv, struct step_opts *so, struct error *err)
{
	const struct opt opts[] = {
		OPT_STRING("ksrc", &so->ksrc, "DIR", "the kernel git tree being bisected (required)"),
		BISECT_STEP_OPTIONS(so),
		OPT_STRING("rev", &so->rev, "REV", "build REV instead of HEAD"),
		OPT_STRING("out", &so->out, "DIR", "results root (default: results)"),
		OPT_STRING("log", &so->log, "FILE", "the step log (default: OUT/bisect.log)"),
		OPT_STRING("baseline", &so->baseline, "DIR", "the good commit's runs to compare with (--metric)"),
		OPT_STRING("record", &so->record, "DIR", "only run --repeat times into DIR (the baseline); exit 0"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "bisect-run", .usage = usage, .opts = opts, .tail = tail };
	struct buf help = BUF_INIT;
	int first = opt_parse(&spec, argc, argv, err);

	if (first == OPT_HELP) {   /* the help is this table's: print it here */
		opt_help(&spec, &help);
		fputs(buf_str(&help), stdout);
		buf_free(&help);
		return OPT_HELP;
	}
	if (first < 0)
		return -1;
	if (first < argc)
		return error_input(err, "unexpected argument '%s'", argv[first]);
	if (!so->ksrc || !so->topo || !so->test)
		return error_input(err, "--ksrc, --topo and --test are required");
	if (bisect_test_parse(so->test, &so->t))
		return error_input(err, "--test %s: give SUITE or SUITE:PREFIX", so->test);
	if (so->metric && !so->baseline == !so->record)
		return error_input(err, "--metric needs --baseline DIR (or --record DIR to make it)");
	if (!so->metric && (so->baseline || so->record))
		return error_input(err, "--baseline and --record go with --metric");
	return 0;
}

/* git bisect would take 2 for "bad": a request it cannot carry out aborts instead. */
static int abort_request(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int abort_request(const char *fmt, ...)
{
	va_list ap;

	fputs("numalab bisect-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; aborting the bisect\n", stderr);
	return BISECT_ABORT;
}

/* The commit id and subject of rev in the tree. */
static int describe(const char *ksrc, const char *rev, char *commit, char *subject, size_t cap,
		    struct error *err)
{
	char out[512];
	const char *args[] = { "log", "-1", "--format=%H %s", rev, "--", NULL };

	if (git_capture(&(struct git){ .dir = ksrc }, args, out, sizeof(out), err) || strlen(out) < 41)
		return error_set(err, "%s is not a commit of the git tree %s", rev, ksrc);
	snprintf(commit, 41, "%.40s", out);
	snprintf(subject, cap, "%s", out + 41);
	return 0;
}

static int log_dir(const char *log, struct error *err)
{
	char *dir = xprintf("%.*s", strrchr(log, '/') ? (int)(strrchr(log, '/') - log) : 1,
			    strrchr(log, '/') ? log : ".");
	int rc = mkdir_p(dir, err);

	free(dir);
	return rc;
}

static enum bisect_verdict judge_run(const struct step_opts *so, const struct run_outcome *res,
				     int refused, char *why, size_t cap)
{
	char *path = xprintf("%s/tap", res->cell_dir);
	struct buf tap = BUF_INIT;
	struct error ignored;
	enum bisect_verdict v;

	if (interrupt_caught())
		v = (snprintf(why, cap, "interrupted"), BISECT_ABORT);
	else if (!res->cell_dir[0] || read_file(path, &tap, &ignored))
		v = (snprintf(why, cap, "the lab could not run the guest"), BISECT_SKIP);
	else
		v = bisect_verdict(&so->t, buf_str(&tap), tap.len, refused, why, cap);
	buf_free(&tap);
	free(path);
	return v;
}

/* Pass/fail: one run of the suite. */
static enum bisect_verdict judge_test(const struct step_opts *so, const struct run_opts *o,
				      struct run_outcome *res, char *why, size_t cap)
{
	struct error err;
	int rc = command_run_cell(o, res, &err);

	if (rc == EXIT_HARNESS)
		fprintf(stderr, "numalab bisect-run: %s\n", err.msg);
	return judge_run(so, res, rc == EXIT_USAGE, why, cap);
}

/* Performance: --repeat runs into dir, then the metric against the baseline. */
static enum bisect_verdict judge_metric(const struct step_opts *so, struct run_opts *o,
					struct run_outcome *res, const char *dir, char *why, size_t cap)
{
	struct comparison c;
	struct cmp_options copts;
	struct error err;
	enum bisect_verdict v = BISECT_GOOD;

	o->out = dir;
	for (int i = 0; i < so->repeat && v == BISECT_GOOD; i++) {
		int rc = command_run_cell(o, res, &err);

		if (interrupt_caught())
			v = (snprintf(why, cap, "interrupted"), BISECT_ABORT);
		else if (rc == EXIT_USAGE)
			v = (snprintf(why, cap, "%s", err.msg), BISECT_ABORT);
		else if (rc == EXIT_HARNESS)
			v = (snprintf(why, cap, "run %d: %s", i + 1, err.msg), BISECT_SKIP);
	}
	if (v != BISECT_GOOD)
		return v;
	if (so->record)
		return snprintf(why, cap, "recorded %d runs as the baseline", so->repeat), BISECT_GOOD;
	cmp_options_default(&copts);
	copts.threshold_pct = so->threshold;
	copts.alpha = so->alpha;
	if (compare_run(&c, so->baseline, dir, &copts, &err))
		v = (snprintf(why, cap, "cannot compare with the baseline: %s", err.msg), BISECT_ABORT);
	else
		v = bisect_metric_verdict(&c, so->metric, why, cap);
	compare_free(&c);
	return v;
}

static int step(const struct step_opts *so, const char *arch)
{
	struct bisect_step s = { .run_dir = "" };
	struct run_outcome *res = xcalloc(1, sizeof(*res));
	struct kernel k;
	struct error err;
	char why[sizeof(((struct error *)0)->msg) + 64], log[4200], *dir = NULL;   /* why: err.msg and a prefix */

	if (describe(so->ksrc, so->rev, s.commit, s.subject, sizeof(s.subject), &err))
		return free(res), abort_request("%s", err.msg);
	snprintf(log, sizeof(log), "%s", so->log ? so->log : "");
	if (!so->log)
		snprintf(log, sizeof(log), "%s/bisect.log", so->out ? so->out : "results");
	fprintf(stderr, "numalab bisect-run: %.12s %s\n", s.commit, s.subject);
	if (kbuild_kernel_at(lab_root(), so->recipe, arch, so->ksrc, s.commit, &k, &err)) {
		snprintf(why, sizeof(why), "the kernel did not build: %s", err.msg);
		s.verdict = BISECT_SKIP;
		/* A build stopped by Ctrl-C says nothing about the commit. */
		if (interrupt_caught())
			s.verdict = (snprintf(why, sizeof(why), "interrupted"), BISECT_ABORT);
	} else {
		struct command_run_view view;
		struct run_opts o = { .topo = so->topo, .kernel_built = &k, .tests = so->t.suite,
				      .timeout_s = so->timeout_s, .out = so->out, .accel = "auto",
				      .view = command_run_view(&view, 0, 1) };

		s.built = k.built;
		s.build_s = k.build_s;
		if (so->metric) {
			dir = so->record ? xprintf("%s", so->record)
					 : xprintf("%s/step-%.12s", so->out ? so->out : "results", s.commit);
			s.verdict = judge_metric(so, &o, res, dir, why, sizeof(why));
			s.run_dir = dir;
		} else {
			s.verdict = judge_test(so, &o, res, why, sizeof(why));
			s.run_dir = res->cell_dir;
		}
	}
	s.why = why;
	fprintf(stderr, "numalab bisect-run: %.12s is %s: %s\n", s.commit,
		bisect_verdict_name(s.verdict), why);
	if (log_dir(log, &err) || bisect_log_step(log, &s, &err))
		fprintf(stderr, "numalab bisect-run: %s\n", err.msg);
	free(dir);
	free(res);
	return s.verdict;
}

/* The names the request gives, against the project: checked before building. */
static int check_request(struct step_opts *so, char *arch, size_t cap)
{
	struct topology topo;
	struct recipe r;
	struct error err;

	if (lab_topology_load(lab_root(), so->topo, &topo, &err))
		return abort_request("%s", err.msg);
	snprintf(arch, cap, "%s", topo_arch_name(topo.arch));
	if (recipe_load(lab_root(), so->recipe, &r, &err))
		return abort_request("%s", err.msg);
	return 0;
}

int cmd_bisect_run(int argc, char **argv)
{
	struct step_opts so;
	struct error err;
	char arch[16];
	int rc;

	step_opts_init(&so);
	rc = bisect_run_options_parse(argc, argv, &so, &err);
	if (rc == OPT_HELP)
		return EXIT_PASS;
	if (rc)
		return abort_request("%s", err.msg);
	if ((rc = check_request(&so, arch, sizeof(arch))))
		return rc;
	interrupt_catch();
	return step(&so, arch);
}
