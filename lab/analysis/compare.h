/*
 * compare: two result trees -> per-test and per-metric verdicts (data only;
 * lab/analysis/compare_report.h prints them, docs/compare.md explains them).
 *
 * A side is any directory tree: every directory below it (or it itself)
 * holding both a `tap` and a `meta` file is a cell (docs/results.md), so a
 * run directory, a results root or a matrix output directory all work.
 * Symbolic links are not followed; the walk is sorted, so outputs are stable.
 * A cell whose run's state file (one level up) says anything but
 * "complete" is skipped (a matrix's set-aside attempt, an interrupted run)
 * and noted.  Filters (a meta `kernel` name, a glob of the cell's path)
 * make two kernels or variants of one matrix directory sides A and B.
 *
 * From each cell's sanitised TAP (lab/results/tap.h does the sanitising):
 *   - every result at depth 0 (a suite, "ok 1 workloads") and depth 1 (its
 *     tests, "ok 3 mcf local thp") is a status: pass, fail (not ok, TIMEOUT,
 *     ERROR) or skip (SKIP, TODO); a name repeated in a suite gets " [2]"...
 *   - a TAP YAML block under a depth-1 result (two spaces in from it) gives
 *     metrics: "key: NUMBER", and "key: {a: N, b: M}" as key.a, key.b;
 *     anything else (strings, "0x.." in quotes) is not a metric;
 *   - "# metric: NAME NUMBER [(comment)]" lines in a suite are metrics of the
 *     suite itself (their test name is "");
 *   - "# metric: NAME WORDS" whose WORDS are not one number ("0-3 -> 0") are
 *     facts: behaviour compared as text, their distinct values per side;
 *   - the other diagnostic lines a test printed after the suite's previous
 *     result are its detail when it fails (the last 12 lines): what the
 *     test said was wrong.
 * Rows are keyed by (topology, suite, test[, metric]); every cell of a side
 * with the same key is a repetition.  The placement is part of the test name
 * ("mcf local thp"); placement is that part, split out for the reports.
 *
 * compare_run() refuses (-1, ERROR_INPUT) when the cells of a topology differ
 * in meta `backend` (absent: qemu), `qemu`, the accelerator (`accel`, first
 * word: tcg/kvm), `host_numa` or the guest's shape (guest: nodes_online,
 * nodeN.cpus, nodeN.distance), or when the sides share no topology; the
 * error names the key and both values.  With force the differences become
 * notes instead.  Notes (every report prints them) also say, per topology,
 * whether NUMA was emulated (no `host_numa` meta key, or "none": today every
 * direct-backend run), when a side pools kernels or kernel command lines,
 * and which cells were skipped.
 *
 * A metric's verdict: significant when its Welch p-value (with
 * opts.correct_bh: adjusted for the number of metrics tested, Benjamini-
 * Hochberg q) is below alpha -- or, with opts.bootstrap, when the
 * bootstrap interval excludes 0 (uncorrected) -- AND the change of the mean
 * is at least threshold_pct.  Its direction comes from its name:
 * "*_per_s", "score", "ratios.*" higher is better; other "*_s" lower is
 * better; anything else (counters) is CHANGED either way.  Fewer than two
 * samples on a side gives FEW_SAMPLES: no test is possible.
 */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

struct cmp_options {
	double threshold_pct;      /* minimum |% change| that counts (default 5) */
	double alpha;              /* significance level (default 0.05) */
	int bootstrap;             /* decide by the bootstrap interval, not Welch's p */
	int correct_bh;            /* decide by Benjamini-Hochberg's q, not p itself (default 0:
				      one metric of interest, as bisect has; the CLI sets it) */
	unsigned iterations;       /* bootstrap resamples (default 10000) */
	uint64_t seed;             /* bootstrap PRNG seed (default 1) */
	int force;                 /* compare despite differing qemu/accel/topology */
	struct cmp_filter {
		const char *kernel;        /* only cells of this meta kernel name; NULL: all */
		const char *cells;         /* only cells whose path below the root matches this
					      fnmatch() glob ('*' spans '/'); NULL: all */
	} filter_a, filter_b;
};
void cmp_options_default(struct cmp_options *o);

struct cmp_cell {
	char *dir;
	char *topology, *kernel, *backend, *qemu, *accel;
	char *cmdline;             /* the guest's kernel command line */
	char *host_numa;           /* NULL (absent or "none"): emulated NUMA */
	char *shape;               /* the guest's nodes, CPUs and distances, one line */
	char *run_state;           /* the run's state file, NULL if none */
};

struct cmp_obs;                    /* private: one status or metric value of one cell */

struct cmp_side {
	char *root;
	char *only_kernel, *only_cells;   /* the filter (struct cmp_filter), or NULL */
	struct cmp_cell *cells;
	size_t nr_cells;
	struct strvec skipped;     /* cells of runs that did not complete: "DIR (run state 'X')" */
	struct cmp_obs *obs;
	size_t nr_obs, alloc_obs;
};

enum cmp_status { CMP_PASS, CMP_FAIL, CMP_SKIP, CMP_NR_STATUS };

enum cmp_change {
	CMP_TEST_SAME,
	CMP_TEST_BROKEN,           /* no failure on A, a failure on B */
	CMP_TEST_FIXED,            /* a failure on A, none on B */
	CMP_TEST_GONE,             /* only on A */
	CMP_TEST_NEW,              /* only on B */
	CMP_TEST_SKIPS,            /* no failures; skipped on one side, passed on the other */
};

struct cmp_test {
	char *topology, *suite, *test, *placement;   /* test "" for the suite's own result */
	unsigned a[CMP_NR_STATUS], b[CMP_NR_STATUS];  /* repetitions by status */
	char *why_a, *why_b;       /* the first failure's or skip's directive, or NULL */
	char *detail_a, *detail_b; /* the first failure's diagnostic lines ('\n' between), or NULL */
	enum cmp_change change;
};

/* Behaviour that is not a number: a suite's "# metric: NAME WORDS". */
struct cmp_fact {
	char *topology, *suite, *test, *name;
	struct strvec a, b;        /* the distinct values seen on each side, in order */
	int differs;               /* seen on both sides, and not the same set */
};

enum cmp_direction { CMP_LOWER_BETTER, CMP_HIGHER_BETTER, CMP_EITHER };

enum cmp_verdict {
	CMP_SAME, CMP_IMPROVED, CMP_REGRESSED, CMP_CHANGED, CMP_FEW_SAMPLES, CMP_ONLY_A, CMP_ONLY_B,
};

struct cmp_metric {
	char *topology, *suite, *test, *placement, *metric;
	enum cmp_direction direction;
	double *a, *b;             /* the samples */
	struct {
		size_t n;
		double mean, median, stddev, min, max;
	} sa, sb;
	double change_pct;         /* of the mean; +-INFINITY from 0, NAN when both absent */
	int welch_valid;
	double t, df, p;
	double q;                  /* p adjusted over all metrics tested (BH); = p without correct_bh */
	int ci_valid;
	double ci_lo, ci_hi;       /* bootstrap interval of change_pct at 1 - alpha */
	enum cmp_verdict verdict;
};

struct comparison {
	struct cmp_options opts;
	struct cmp_side a, b;
	struct cmp_test *tests;    /* functional differences first, then by key */
	size_t nr_tests;
	struct cmp_metric *metrics;   /* by key */
	size_t nr_metrics;
	struct cmp_fact *facts;       /* by key */
	size_t nr_facts, nr_facts_differ;
	struct strvec notes;       /* what every report must say about the comparison */
	size_t nr_functional, nr_regressed, nr_improved, nr_changed, nr_few;
};


/*
 * Load both roots and compare them into c (opts copied in).  -1 with err on
 * bad input or a refused comparison (both ERROR_INPUT), or when a cell
 * cannot be read (ERROR_HARNESS).  Free c with compare_free() either way.
 */
int compare_run(struct comparison *c, const char *root_a, const char *root_b,
		const struct cmp_options *opts, struct error *err) LAB_MUST_CHECK;

/* What the comparison found, as a whole (docs/compare.md: exit 0 or 1). */
enum compare_result {
	COMPARE_SAME,      /* no functional change, no metric regressed or changed */
	COMPARE_CHANGED,   /* a test changed functionally, or a metric regressed or changed */
};
enum compare_result compare_result(const struct comparison *c);

/* 1 for the verdicts and changes that make compare_result() COMPARE_CHANGED. */
int cmp_verdict_fails(enum cmp_verdict v);
int cmp_change_fails(enum cmp_change c);

const char *cmp_verdict_name(enum cmp_verdict v);
const char *cmp_change_name(enum cmp_change c);
const char *cmp_direction_name(enum cmp_direction d);

void compare_free(struct comparison *c);

/*
 * The metric parsing above, for other readers of the same results (KCIDB:
 * kcidb.h).  cmp_yaml_metrics(): fn gets each metric of a result's YAML
 * block (tap_node.yaml; NULL: none), in order.  cmp_metric_value(): 1 when
 * line (a diagnostic from its '#') is a metric, NAME into name (cut to
 * cap) and its value into *v; 0 for a fact or any other line.
 */
void cmp_yaml_metrics(const char *yaml, void (*fn)(void *ctx, const char *name, double v), void *ctx);
int cmp_metric_value(const char *line, char *name, size_t cap, double *v);

#endif
