/*
 * numalab bisect: find the commit that broke a test: `git bisect start BAD
 * GOOD`, `git bisect run numalab bisect-run ...`, then a summary and
 * `git bisect reset`, whatever happened.
 */
#include "analysis/bisect.h"
#include "cli/command.h"
#include "base/git.h"
#include "cli/cmd_bisect.h"
#include "base/proc.h"
#include "results/results.h"
#include "base/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: numalab bisect --ksrc DIR --good REV --bad REV --topo NAME --test SPEC\n"
	"                      [--recipe NAME] [--timeout S] [--out DIR]\n"
	"                      [--metric [TEST:]NAME [--repeat N] [--threshold P] [--alpha A]]\n"
	"\n"
	"Bisect the kernel git tree DIR between GOOD and BAD: each step builds the\n"
	"commit with the recipe's config (incrementally), boots the topology and runs\n"
	"the test (SUITE or SUITE:PREFIX, see `numalab bisect-run --help`).  Steps,\n"
	"their runs and bisect.log (each verdict and why, kernel builds counted) go\n"
	"to OUT/<run-id>/.  The tree is `git bisect reset` at the end.\n"
	"\n"
	"With --metric, a performance regression: GOOD is built and run --repeat\n"
	"times first (the baseline); each step runs as often and is bad when the\n"
	"metric regressed by at least --threshold percent (default 5) at\n"
	"significance --alpha (default 0.05), as `numalab compare` decides.\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 the first bad commit was found, 1 it could not be narrowed to one\n"
	"commit, 2 bad request, 3 harness error.\n";

/* git ARGS in the tree; its output's first line into out ("" if it failed). */
static int git_line(const char *ksrc, const char **args, char *out, size_t cap)
{
	struct error ignored;
	int rc = git_capture(&(struct git){ .dir = ksrc }, args, out, cap, &ignored);

	out[strcspn(out, "\n")] = '\0';
	return rc;
}

/* "--NAME=V" with V the shortest %g that reads back as v: the step gets the value bisect checked. */
static void push_double(struct strvec *argv, const char *name, double v)
{
	char text[64];

	for (int digits = 1; digits <= 17; digits++) {
		snprintf(text, sizeof(text), "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			break;
	}
	strvec_pushf(argv, "--%s=%s", name, text);
}

void bisect_step_argv(const struct bisect_opts *bo, const char *record, struct strvec *argv)
{
	const struct step_opts *so = &bo->step;

	strvec_pushf(argv, "%s/numalab", lab_root());
	strvec_push(argv, "bisect-run");
	strvec_push(argv, "--ksrc");
	strvec_push(argv, bo->ksrc);
	strvec_push(argv, "--topo");
	strvec_push(argv, so->topo);
	strvec_push(argv, "--test");
	strvec_push(argv, so->test);
	strvec_push(argv, "--recipe");
	strvec_push(argv, so->recipe);
	strvec_push(argv, "--out");
	strvec_push(argv, bo->dir);
	strvec_push(argv, "--log");
	strvec_push(argv, bo->log);
	if (so->timeout_s)
		strvec_pushf(argv, "--timeout=%d", so->timeout_s);
	if (!so->metric)
		return;
	strvec_pushf(argv, "--metric=%s", so->metric);
	strvec_pushf(argv, "--repeat=%d", so->repeat);
	push_double(argv, "threshold", so->threshold);
	push_double(argv, "alpha", so->alpha);
	if (record) {
		strvec_pushf(argv, "--record=%s", record);
		strvec_pushf(argv, "--rev=%s", bo->good);
	} else {
		strvec_pushf(argv, "--baseline=%s/baseline", bo->dir);
	}
}

/* How long an interrupted step may take to stop its build or guest and log. */
#define BISECT_STEP_GRACE_S 10

/* Run argv with stdout appended to OUT/git-bisect.log, stderr to ours. */
static int run_logged(const struct bisect_opts *bo, struct strvec *argv, struct error *err)
{
	char *out = xprintf("%s/git-bisect.log", bo->dir);
	struct proc p;
	int rc = -1, fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		error_set(err, "cannot write %s: %s", out, strerror(errno));
	else {
		proc_init(&p, strvec_argv(argv));
		p.out = fd;
		p.err = 2;
		/* On Ctrl-C or SIGTERM the step (bisect-run, alone or under git in git's
		 * process group) must stop its own kernel build and QEMU: SIGKILL would
		 * leave their process groups running.  git dies of the SIGTERM at once;
		 * the step, orphaned, gets the time to log its "interrupted" verdict. */
		p.interrupt_signal = SIGTERM;
		p.grace_s = BISECT_STEP_GRACE_S;
		if (!proc_start(&p, err))
			rc = proc_wait(&p, err);
		close(fd);
	}
	free(out);
	return rc;
}

/* The metric's baseline: GOOD built and run --repeat times into OUT/baseline. */
static int record_baseline(const struct bisect_opts *bo, struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	char *dir = xprintf("%s/baseline", bo->dir);
	int rc;

	bisect_step_argv(bo, dir, &argv);
	rc = run_logged(bo, &argv, err);
	if (rc > 0)
		error_set(err, "measuring the baseline at %s failed (bisect-run exited %d); see %s",
			  bo->good, rc, bo->log);
	strvec_clear(&argv);
	free(dir);
	return rc ? -1 : 0;
}

/* git bisect run with bisect-run as the script.  Returns its exit code, -1 (err). */
static int bisect_run(const struct bisect_opts *bo, struct error *err)
{
	const char *args[] = { "bisect", "run", NULL };
	struct strvec argv = STRVEC_INIT;
	int rc;

	git_argv(&(struct git){ .dir = bo->ksrc }, args, &argv);
	bisect_step_argv(bo, NULL, &argv);
	rc = run_logged(bo, &argv, err);
	strvec_clear(&argv);
	return rc;
}

static void append_log(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			fprintf(stderr, "numalab bisect: cannot append to %s: %s\n", path, strerror(errno));
		close(fd);
	}
}

/* The outcome, appended to the log and printed.  Returns the exit code. */
static int summarise(const struct bisect_opts *bo, int nr_commits, int run_rc)
{
	const char *bad_args[] = { "rev-parse", "refs/bisect/bad", NULL };
	const char *skip_args[] = { "for-each-ref", "--format=%(objectname)", "refs/bisect/skip-*", NULL };
	char first_bad[64] = "", skipped[4096] = "", subject[512] = "", *out = xprintf("%s/git-bisect.log", bo->dir);
	struct buf steps_text = BUF_INIT, run_text = BUF_INIT, sum = BUF_INIT;
	struct error ignored;
	int steps = 0, builds = 0, found;

	git_line(bo->ksrc, bad_args, first_bad, sizeof(first_bad));
	git_line(bo->ksrc, skip_args, skipped, sizeof(skipped));
	if (read_file(bo->log, &steps_text, &ignored) || read_file(out, &run_text, &ignored)) {
		/* A log that is missing counts no steps and finds no first bad commit. */
	}
	bisect_log_count(buf_str(&steps_text), &steps, &builds);
	found = run_rc == 0 && strstr(buf_str(&run_text), "is the first bad commit") != NULL;
	if (found) {
		const char *args[] = { "log", "-1", "--format=%s", first_bad, NULL };

		git_line(bo->ksrc, args, subject, sizeof(subject));
		buf_addf(&sum, "first bad commit: %.12s %s\n", first_bad, subject);
	} else if (interrupt_caught()) {
		buf_addf(&sum, "interrupted: no verdict (the tree is reset; run the bisect again)\n");
	} else {
		buf_addf(&sum, "no single first bad commit (git bisect run exited %d; see %s)\n", run_rc, out);
	}
	buf_addf(&sum, "commits in GOOD..BAD: %d; steps: %d; kernel builds: %d (at most ceil(log2 %d)+1 = %d)\n",
		 nr_commits, steps, builds, nr_commits, bisect_build_budget(nr_commits));
	append_log(bo->log, buf_str(&sum));
	fputs(buf_str(&sum), stdout);
	printf("log: %s\n", bo->log);
	buf_free(&steps_text);
	buf_free(&run_text);
	buf_free(&sum);
	free(out);
	return found ? EXIT_PASS : EXIT_FAIL;
}

/* Commits in GOOD..BAD; 0 with err when that is not a range. */
static int count_commits(const struct bisect_opts *bo, struct error *err)
{
	char *range = xprintf("%s..%s", bo->good, bo->bad), count[64] = "";
	const char *args[] = { "rev-list", "--count", range, NULL };
	int n = git_line(bo->ksrc, args, count, sizeof(count)) ? 0 : atoi(count);

	free(range);
	if (n < 1)
		error_input(err, "%s..%s is not a range of commits of %s; give --good older than --bad",
			    bo->good, bo->bad, bo->ksrc);
	return n;
}

static int start(const struct bisect_opts *bo, struct error *err)
{
	const char *args[] = { "bisect", "start", bo->bad, bo->good, "--", NULL };
	char out[256];

	if (git_line(bo->ksrc, args, out, sizeof(out)))
		return error_input(err, "`git bisect start` failed in %s (a bisect in progress? uncommitted "
				   "changes?); see `git -C %s status`", bo->ksrc, bo->ksrc);
	return 0;
}

static int bisect(struct bisect_opts *bo)
{
	const char *reset_args[] = { "bisect", "reset", NULL };
	char reset_out[256], run_dir[4096];
	struct error err;
	int nr_commits = count_commits(bo, &err), rc;

	if (!nr_commits || start(bo, &err))
		return command_fail("bisect", &err);
	if (results_new_run(bo->out_abs, run_dir, sizeof(run_dir), &err)) {
		git_line(bo->ksrc, reset_args, reset_out, sizeof(reset_out));
		return command_fail("bisect", &err);
	}
	snprintf(bo->dir, sizeof(bo->dir), "%s", run_dir);
	snprintf(bo->log, sizeof(bo->log), "%s/bisect.log", bo->dir);
	rc = bo->step.metric && record_baseline(bo, &err) ? -1 : bisect_run(bo, &err);
	rc = rc < 0 ? command_fail("bisect", &err) : summarise(bo, nr_commits, rc);
	git_line(bo->ksrc, reset_args, reset_out, sizeof(reset_out));
	if (run_state_set(bo->dir, interrupt_caught() ? RUN_STATE_INTERRUPTED : RUN_STATE_COMPLETE, &err))
		rc = command_fail("bisect", &err);
	return interrupt_caught() ? EXIT_HARNESS : rc;
}

static int is_git_tree(const char *dir)
{
	char *dot = xprintf("%s/.git", dir);
	int yes = file_exists(dot);

	free(dot);
	return yes;
}

static int absolute(const char *path, char *out, size_t cap)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf(out, cap, "%s", path), 0;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	return snprintf(out, cap, "%s/%s", cwd, path) < (int)cap ? 0 : -1;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_opts bo;
	const char *ksrc = NULL;
	const struct opt opts[] = {
		OPT_STRING("ksrc", &ksrc, "DIR", "the kernel git tree to bisect (required)"),
		OPT_STRING("good", &bo.good, "REV", "a commit where the test passes (required)"),
		OPT_STRING("bad", &bo.bad, "REV", "a later commit where it fails (required)"),
		BISECT_STEP_OPTIONS(&bo.step),
		OPT_STRING("out", &bo.out, "DIR", "results root (default: results)"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "bisect", .usage = usage, .opts = opts, .tail = tail };
	int rc, first;

	memset(&bo, 0, sizeof(bo));
	step_opts_init(&bo.step);
	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	if (first < argc)
		return command_usage_error("bisect", "unexpected argument '%s'", argv[first]);
	if (!ksrc || !bo.good || !bo.bad || !bo.step.topo || !bo.step.test)
		return command_usage_error("bisect", "--ksrc, --good, --bad, --topo and --test are required");
	if (bisect_test_parse(bo.step.test, &bo.step.t))
		return command_usage_error("bisect", "--test %s: give SUITE or SUITE:PREFIX", bo.step.test);
	if (!realpath(ksrc, bo.ksrc) || !is_git_tree(bo.ksrc))
		return command_usage_error("bisect", "--ksrc %s: not a git tree; make one with "
					   "`numalab kernel git-tree`", ksrc);
	if (absolute(bo.out ? bo.out : "results", bo.out_abs, sizeof(bo.out_abs)))
		return command_usage_error("bisect", "--out %s: %s", bo.out, strerror(errno));
	if (file_exists(bo.step.topo) && realpath(bo.step.topo, bo.topo_path))
		bo.step.topo = bo.topo_path;
	interrupt_catch();
	return bisect(&bo);
}
