/*
 * results: where a run's evidence goes (docs/results.md).
 *
 *   OUT/<run-id>/state            running | complete | interrupted
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

/* Create OUT/<run-id>/ with state "running"; run_dir receives its path. */
int results_new_run(const char *out, char *run_dir, size_t cap, struct error *err);

/* Replace the run's state file. */
int results_set_state(const char *run_dir, const char *state, struct error *err);

/* Create run_dir/cell/; cell_dir receives its path. */
int results_new_cell(const char *run_dir, const char *cell, char *cell_dir, size_t cap,
		     struct error *err);

/* Append "key: value" to a meta buffer, value made one printable line. */
void meta_add(struct buf *meta, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Quote an argv for display ('…' where needed), one line. */
void argv_to_line(char *const *argv, size_t n, struct buf *out);

#endif
