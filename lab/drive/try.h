/*
 * try: `numalab try PATCH...` end to end (docs/try.md): does this patch do
 * what it claims on these NUMA shapes, and does it break anything?
 *
 *  1. The inputs are checked before anything runs: every patch file parses
 *     (model/patch.h: format-patch, mbox series, quoted mails), the base is
 *     a kernel built from source (a recipe or a source tree), the shapes and
 *     suites exist.  Bad input is ERROR_INPUT naming the file or option.
 *  2. OUT/inputs records what this output is a try of (base, shapes,
 *     suites, repetitions, each patch's sha256); OUT/patches/ keeps copies
 *     of the patches.  Running again with the same OUT and the same inputs
 *     resumes; other inputs are ERROR_INPUT (a new --out, or the same
 *     arguments).
 *  3. For every arch the shapes need, the base kernel and base + patches
 *     are built in this process (kbuild.h: the second incrementally in the
 *     first's work tree), their progress through progress.h; a patch that
 *     does not apply is ERROR_INPUT naming it and the hunk.  OUT/identity
 *     records the kernels and patches for the reports.
 *  4. OUT/try.matrix (kernels `base` and `patched`, the second with a
 *     `patch` line) runs as a matrix (matrix_run.h) into OUT/matrix, or
 *     OUT/shard-I-of-N with a shard: cells in parallel, resumable.
 *  5. Every finished cell below OUT is compared, base (A) against patched
 *     (B) (compare.h, Benjamini-Hochberg q), judged (try_report.h), and
 *     written: OUT/report.txt, try.tap, try.json, try.html; the text goes
 *     to show.  With a shard, the report covers the cells present in OUT
 *     (copy the other shards' OUT/shard-* in and use --report for all).
 *
 * SIGINT/SIGTERM stop the build or the cells; OUT is left to resume, no
 * verdict is written and *v is TRY_INCOMPLETE.
 */
#ifndef LAB_TRY_H
#define LAB_TRY_H

#include "analysis/try_report.h"
#include "drive/matrix_run.h"

#define TRY_DEFAULT_REPEAT 3

struct try_opts {
	char *const *patches;        /* files, in order */
	int nr_patches;
	const char *base;            /* a recipe name ("stock") or a kernel source tree */
	const char *topos;           /* comma-separated topology names */
	const char *suites;          /* comma-separated guest suites */
	int repeat;                  /* runs per kernel and shape; 0: TRY_DEFAULT_REPEAT */
	int jobs;                    /* cells at once; 0: as the matrix chooses */
	int shard, nr_shards;        /* nr_shards 1: all */
	const char *out;
	const char *accel;           /* NULL: auto */
	const struct try_claim *claims;
	int nr_claims;
	double threshold_pct, alpha; /* compare.h's; 0: its defaults */
	int report_only;             /* compare and write what OUT holds; build and run nothing */
	struct matrix_lava lava;     /* url: the cells as LAVA jobs (matrix_run.h) */
	struct matrix_show show;     /* the cells' lines and the report's text */
};

enum try_verdict {
	TRY_NO_REGRESSION,
	TRY_REGRESSION,              /* try_report.h's regression */
	TRY_INCOMPLETE,              /* interrupted, or cells that did not run: no verdict */
};

/* 0 and *v, or -1 with err (ERROR_INPUT: the user's to fix; ERROR_HARNESS). */
int try_run(const struct try_opts *o, enum try_verdict *v, struct error *err) LAB_MUST_CHECK;

#endif
