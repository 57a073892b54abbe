/*
 * progress: how library code tells the user what it is doing, without
 * owning the terminal.
 *
 * Contract:
 *  - Library code (everything below lab/cli/) never writes to stdout or
 *    stderr.  A long step says what it is doing with progress(), a problem
 *    it works around with warning(); failures go back as a struct error.
 *  - The CLI installs one sink (progress_set_sink) that decides where the
 *    lines go (the terminal, a log, nowhere) and how they look; with no
 *    sink installed the lines are dropped, which is what unit tests want.
 *  - A line is one message without a trailing newline; the sink may be
 *    called from any point of a single-threaded program, not from a signal
 *    handler.
 */
#ifndef LAB_PROGRESS_H
#define LAB_PROGRESS_H

enum progress_kind {
	PROGRESS_STEP,     /* what is happening now: "building stock for x86_64" */
	PROGRESS_WARNING,  /* something is off but the work goes on */
	PROGRESS_STATUS,   /* a transient line ("[  12s] building ..."), replaced by the next
			      one; "" takes it down.  A sink not on a terminal drops it. */
};

typedef void progress_sink_fn(void *ctx, enum progress_kind kind, const char *line);

/* Install sink (NULL: drop every line); returns nothing, replaces any earlier one. */
void progress_set_sink(progress_sink_fn *sink, void *ctx);

void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
