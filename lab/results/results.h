/*
 * results: where a run's evidence goes (docs/results.md).  This folder owns
 * the result formats in both directions: the run directory and its `state`
 * (here), a cell's `meta` (meta.h), a matrix cell's directory (celldir.h)
 * and the nested KTAP in `tap` (tap.h).
 *
 *   OUT/<run-id>/state            running | complete | interrupted | error
 *   OUT/<run-id>/<cell>/tap       the guest's TAP, plus lines the runner added
 *   OUT/<run-id>/<cell>/console.log, qemu.log, meta
 *
 * A run id is unique (time + pid + a counter, created with mkdir), so two
 * runs never share a directory.  Small files are written atomically.
 */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <stddef.h>
#include "base/util.h"

#define RESULTS_TAP_FILE "tap"

/*
 * The `state` file of a run directory, and of a matrix's OUT (docs/matrix.md):
 * one of these words and a newline.  A run whose state is not complete is
 * no result to compare or to keep on resume.
 */
#define RUN_STATE_FILE "state"
#define RUN_STATE_RUNNING "running"
#define RUN_STATE_COMPLETE "complete"
#define RUN_STATE_INTERRUPTED "interrupted"
#define RUN_STATE_ERROR "error"       /* a harness error (exit 3): a cell may be incomplete */

/* Replace dir's state file (atomically). */
int run_state_set(const char *dir, const char *state, struct error *err) LAB_MUST_CHECK;

/* dir's state (its first line, cut to cap) into state; -1 with err when there is none. */
int run_state_get(const char *dir, char *state, size_t cap, struct error *err) LAB_MUST_CHECK;

/* Create OUT/<run-id>/ with state "running"; run_dir receives its path. */
int results_new_run(const char *out, char *run_dir, size_t cap, struct error *err) LAB_MUST_CHECK;

/* Create run_dir/cell/; cell_dir receives its path. */
int results_new_cell(const char *run_dir, const char *cell, char *cell_dir, size_t cap,
		     struct error *err) LAB_MUST_CHECK;

/* Quote an argv for display ('…' where needed), one line. */
void argv_to_line(char *const *argv, size_t n, struct buf *out);

#endif
