/*
 * matrix_run: a matrix file run as `numalab run` children (docs/matrix.md):
 * its names checked against the project (topologies, suites, kernels), its
 * cells planned (shard, memory, libvirt hosts), recipe kernels built first,
 * one at a time, finished cells kept when resuming and partial ones set
 * aside, the cells run in parallel (parallel.h) and the outputs written
 * (report.h); and the outputs of shards merged.
 *
 * Progress goes to stdout (a cell's whole log when it ends, then one line),
 * errors to stderr.  SIGINT/SIGTERM/SIGHUP stop the cells and leave the
 * output's state `interrupted`; the same call with the same out resumes.
 */
#ifndef LAB_MATRIX_RUN_H
#define LAB_MATRIX_RUN_H

enum matrix_run_mode {
	MATRIX_RUN,
	MATRIX_DRY_RUN,       /* list the cells and their commands */
	MATRIX_ARCHES,        /* print the guest arches the cells need */
};

struct matrix_run_opts {
	const char *file;     /* the matrix file */
	const char *out;      /* the output directory */
	enum matrix_run_mode mode;
	int jobs;             /* cells at once; 0: as cores and memory allow */
	int shard, nr_shards; /* run cells k with k % nr_shards == shard */
	int quiet;            /* no cell logs, only a line per cell */
};

struct matrix;
struct matrix_cell;
struct strvec;

/*
 * The `numalab run` command line of cell c of m, appended to argv: its
 * results under dir, host an index into m's hosts (-1: this machine).  A
 * contract with cmd_run.c's parser: tests/unit/test_options.c parses it
 * back with run_options_parse().
 */
void matrix_cell_argv(const struct matrix *m, const struct matrix_cell *c, const char *dir, int host,
		      struct strvec *argv);

/* Returns an exit code (command.h, docs/exit-codes.md). */
int matrix_run(const struct matrix_run_opts *o);

/* Merge the outputs (cells.list + cells/) of dirs into out, in cell order. */
int matrix_merge(char *const *dirs, int n, const char *out);

#endif
