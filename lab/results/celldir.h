/*
 * celldir: one matrix cell's directory, OUT/cells/ID/ (docs/matrix.md):
 *
 *   log        the child's stdout and stderr (`numalab run ... --out OUT/cells/ID`)
 *   exit       `exit: N`, `time_s: S`, `watchdog: yes|no` (stopped at its
 *              deadline), `interrupted: yes|no` (stopped because the matrix
 *              was); written once the child was reaped
 *   RUN-ID/    the run's directory (docs/results.md): state, TOPO.KERNEL/{tap,meta,...}
 *
 * A cell is finished when its run's state is `complete`; a re-run with the
 * same OUT keeps it.  Anything else found there is a partial attempt, moved
 * to OUT/partial/ID.N by celldir_set_aside() before the cell runs again.
 */
#ifndef LAB_CELLDIR_H
#define LAB_CELLDIR_H

#include <stddef.h>

#include "base/util.h"

#define CELL_LOG_FILE "log"
/* `exit`: `key: value` lines as meta (meta.h reads them), with these keys. */
#define CELL_EXIT_FILE "exit"
#define CELL_EXIT_CODE "exit"
#define CELL_EXIT_TIME "time_s"
#define CELL_EXIT_WATCHDOG "watchdog"
#define CELL_EXIT_INTERRUPTED "interrupted"

struct celldir {
	int exists;             /* the directory is there */
	int finished;           /* a run whose state is complete */
	char run_cell[4096];    /* RUN-ID/TOPO.KERNEL/ of that run (else of any run); "" none */
	int exit_code;          /* from `exit`; -1 none */
	double time_s;          /* from `exit`; -1 unknown */
	int watchdog;           /* the matrix had to stop it at its deadline */
	int interrupted;        /* the matrix stopped it when interrupted */
	char end[32];           /* the run's meta `end:` ("" unknown) */
	char last_log[256];     /* the log's last non-empty line */
	struct buf tap;         /* the run's tap file; empty if none */
};

/* Look at dir (OUT/cells/ID).  Never fails: what is missing stays unknown. */
void celldir_load(const char *dir, struct celldir *c);
void celldir_free(struct celldir *c);

/* Move OUT/cells/ID to OUT/partial/ID.N (first free N). */
int celldir_set_aside(const char *out, const char *id, char *moved_to, size_t cap,
		      struct error *err) LAB_MUST_CHECK;

int celldir_write_exit(const char *dir, int code, double time_s, int watchdog, int interrupted,
		       struct error *err) LAB_MUST_CHECK;

#endif
