/*
 * parallel: run many child commands at once, at most `jobs` at a time
 * (after git's run_processes_parallel).
 *
 * Contract:
 *  - next() is asked for a task whenever a slot is free: it fills argv and
 *    the path of the task's log and returns PARALLEL_START, or
 *    PARALLEL_WAIT when nothing can start now (the caller's resources are
 *    busy: only while some task runs; asked again shortly), or
 *    PARALLEL_DONE.
 *  - Each child's stdout and stderr go to its own log file (truncated), so
 *    nothing interleaves; finished() is called once per task after the
 *    child was reaped, with the whole log on disk.  A task that could not
 *    start reports code -1 and the reason in err.
 *  - A child that outlives its deadline (timeout_s > 0) gets SIGTERM, then
 *    SIGKILL after grace_s; finished() sees timed_out.
 *  - When interrupted() turns non-zero (a signal arrived), no new task
 *    starts, every running child gets SIGTERM (so it can record that it
 *    was interrupted; proc_kill_all() from the caller's signal handler
 *    sends it SIGTERM too, not SIGKILL), then SIGKILL after grace_s;
 *    finished() sees interrupted, also for a child that the same signal
 *    ended before it was asked to stop.  Every child is reaped before
 *    parallel_run() returns.
 */
#ifndef LAB_PARALLEL_H
#define LAB_PARALLEL_H

#include <stddef.h>
#include "base/util.h"

enum { PARALLEL_START, PARALLEL_WAIT, PARALLEL_DONE };

struct parallel_task {
	struct strvec argv;
	char log[4096];
	int timeout_s;          /* 0: none */
	void *data;             /* the caller's */
};

struct parallel_end {
	int code;               /* as proc_wait(); -1: could not start (err) */
	int timed_out;
	int interrupted;        /* stopped because the run was interrupted */
	double elapsed_s;
	const struct error *err;
};

struct parallel {
	int jobs;
	int grace_s;
	int (*next)(void *ctx, struct parallel_task *task);
	void (*finished)(void *ctx, struct parallel_task *task, const struct parallel_end *end);
	int (*interrupted)(void);   /* may be NULL */
	void *ctx;
	/* May be NULL: shown each running task every round (~0.1 s), to follow its log. */
	void (*running)(void *ctx, struct parallel_task *task);
};

/* Run every task.  Returns 0, or 1 if interrupted (all children reaped). */
int parallel_run(const struct parallel *pp);

#endif
