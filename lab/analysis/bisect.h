/*
 * bisect: the verdict of one `git bisect run` step, and the step log.
 *
 * `numalab bisect-run` (lab/cli/cmd_bisect_run.c) builds the commit at HEAD,
 * boots it and runs one test; this module turns what it saw into the exit
 * code git bisect understands, with the reason in words:
 *
 *   BISECT_GOOD  0    the test passed
 *   BISECT_BAD   1    the test failed, timed out, or the kernel crashed or
 *                     hung while it ran
 *   BISECT_SKIP  125  no verdict on this commit: the kernel did not build,
 *                     did not boot to the test, the test skipped itself, or
 *                     the lab itself failed
 *   BISECT_ABORT 128  stop bisecting: the request is wrong (unknown test,
 *                     bad recipe or topology), whatever the commit
 *
 * The test is SUITE (a guest test, e.g. mempolicy) or SUITE:PREFIX, which
 * narrows it to the suite's subtests whose names start with PREFIX.
 *
 * For a performance regression the step runs the suite several times and
 * compares one metric with the good commit's runs, by the statistics of
 * `numalab compare` (lab/analysis/compare.h): bad when it regressed (or, for a metric
 * without a better direction, changed) significantly and beyond the
 * threshold.
 */
#ifndef LAB_BISECT_H
#define LAB_BISECT_H

#include <stddef.h>
#include "analysis/compare.h"
#include "results/tap.h"
#include "base/util.h"

enum bisect_verdict {
	BISECT_GOOD = 0,
	BISECT_BAD = 1,
	BISECT_SKIP = 125,
	BISECT_ABORT = 128,
};

/* SUITE[:PREFIX] split; -1 if malformed. */
struct bisect_test {
	char suite[64];
	char prefix[96];       /* "" : the whole suite */
};
int bisect_test_parse(const char *spec, struct bisect_test *t);

/*
 * What the saved TAP of a run says about t.  tap is the cell's `tap` file
 * content (the guest's stream plus the runner's closing lines); refused
 * set when the run refused the request (bad input: the verdict is abort,
 * whatever the TAP).  why receives one line.
 */
enum bisect_verdict bisect_verdict(const struct bisect_test *t, const char *tap, size_t len,
				   int refused, char *why, size_t cap);

/*
 * The verdict on metric in c (A: the good commit's runs, B: this commit's).
 * metric is NAME (any test of the suite) or "TEST:NAME"; every matching row
 * must agree: one regressed row makes the commit bad.  No row with that name
 * on either side aborts (the request is wrong); a row only on A (this commit
 * did not produce it) or with too few samples skips.
 */
enum bisect_verdict bisect_metric_verdict(const struct comparison *c, const char *metric,
					  char *why, size_t cap);

const char *bisect_verdict_name(enum bisect_verdict v);

/*
 * Append one step to the log at path (created if missing), e.g.
 *
 *   step 3: 1a2b3c4d5e6f mm/mempolicy: skip extra call ...
 *     kernel: built in 52.1 s (kernel builds so far: 3)
 *     run: results/20261202-.../2node.stock
 *     verdict: bad (mempolicy: subtest 7 bulk weighted interleave ... not ok)
 *
 * builds_so_far counts the steps whose kernel had to be built (read from
 * the log before appending).  Returns 0, -1 with err.
 */
struct bisect_step {
	char commit[41];
	char subject[512];     /* as git prints it: what `git log` captures of it (cmd_bisect_run.c) */
	int built;             /* the kernel was built (not found in the cache) */
	double build_s;
	const char *run_dir;   /* "" when it did not run */
	enum bisect_verdict verdict;
	const char *why;
};
int bisect_log_step(const char *path, const struct bisect_step *s, struct error *err) LAB_MUST_CHECK;

/* Steps and kernel builds recorded in the log text. */
void bisect_log_count(const char *text, int *steps, int *builds);

/* The most builds a bisect of n commits may take: ceil(log2 n) + 1. */
int bisect_build_budget(int n);

#endif
