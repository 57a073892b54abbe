/*
 * matrix_run: a matrix file run as `numalab run` children (docs/matrix.md):
 * its names checked against the project (topologies, suites, kernels), its
 * cells planned (shard, memory, libvirt hosts), recipe kernels built first,
 * one at a time, finished cells kept when resuming and partial ones set
 * aside, the cells run in parallel (parallel.h) and the outputs written
 * (report.h); and the outputs of shards merged.
 *
 * Nothing is printed: the report (a cell's whole log when it ends, then its
 * line; the summary) goes to the caller's matrix_show, in order with the
 * matrix's own progress() lines ("resuming ...", "kernel X for Y ready");
 * a problem worked around (a build failed, a state not written) is a
 * warning().  SIGINT/SIGTERM/SIGHUP stop the cells and leave the output's
 * state `interrupted`; the same call with the same out resumes.
 */
#ifndef LAB_MATRIX_RUN_H
#define LAB_MATRIX_RUN_H

#include <stddef.h>

#include "base/util.h"

enum matrix_run_mode {
	MATRIX_RUN,
	MATRIX_DRY_RUN,       /* list the cells and their commands */
	MATRIX_ARCHES,        /* print the guest arches the cells need */
};

/* Where the report goes: text in order, as it comes (text NULL: nowhere). */
struct matrix_show {
	void (*text)(void *ctx, const char *text, size_t len);
	void *ctx;
};

/* What the cells of a matrix (or of merged shards) add up to (docs/exit-codes.md). */
enum matrix_verdict {
	MATRIX_PASSED,       /* every cell passed */
	MATRIX_FAILED,       /* a cell failed: a test, or its guest kernel crashed */
	MATRIX_INCOMPLETE,   /* none failed, but one timed out, hit a harness error or was not run */
};

/* The most cells at once (--jobs of matrix and try): each is one child, under proc.h's PROC_MAX_LIVE. */
#define MATRIX_MAX_JOBS 256

/*
 * The cells as LAVA jobs (`numalab run --lava`, docs/lava.md): url NULL runs
 * them here.  The token reaches the cells in the environment
 * ($NUMALAB_LAVA_TOKEN), never on their command lines.
 */
struct matrix_lava {
	const char *url, *device_type, *artifacts;
};

struct matrix_run_opts {
	const char *file;     /* the matrix file (labdata.h resolves a NAME) */
	const char *out;      /* the output directory */
	enum matrix_run_mode mode;
	int jobs;             /* cells at once, 1..MATRIX_MAX_JOBS; 0: as cores and memory allow */
	int shard, nr_shards; /* run cells k with k % nr_shards == shard */
	int quiet;            /* no cell logs, only a line per cell */
	const char *resume_out;   /* the --out that resumes, in the interrupted line (NULL: out) */
	struct matrix_lava lava;  /* url NULL: the cells run here */
	struct matrix_show show;
};

struct matrix;
struct matrix_cell;
struct strvec;

/*
 * The `numalab run` command line of cell c of m, appended to argv: its
 * results under dir, host an index into m's hosts (-1: this machine), a
 * LAVA job when lava (may be NULL) has a url.  A
 * contract with cmd_run.c's parser: tests/host/unit/test_options.c parses it
 * back with run_options_parse().
 */
void matrix_cell_argv(const struct matrix *m, const struct matrix_cell *c, const char *dir, int host,
		      const struct matrix_lava *lava, struct strvec *argv);

/*
 * Run (or with mode, list) the matrix.  0 and *v when its cells ran (or
 * were listed: MATRIX_PASSED), or -1 with err: ERROR_INPUT for a bad matrix
 * file or a name the project does not have (nothing created), ERROR_HARNESS
 * when the output could not be set up or written (*v then still says what
 * the cells did, if they ran).
 */
int matrix_run(const struct matrix_run_opts *o, enum matrix_verdict *v, struct error *err) LAB_MUST_CHECK;

/*
 * Merge the outputs (cells.list + cells/) of dirs into out, in cell order,
 * the summary to sh.  0 and *v, or -1 with err (ERROR_INPUT: a dir is not a
 * matrix output, or two hold the same cell).
 */
int matrix_merge(char *const *dirs, int n, const char *out, const struct matrix_show *sh,
		 enum matrix_verdict *v, struct error *err) LAB_MUST_CHECK;

#endif
