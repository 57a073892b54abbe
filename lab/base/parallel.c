#include "base/parallel.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POLL_MS 100

struct slot {
	int busy;
	struct proc proc;
	struct parallel_task task;
	double start, term_at, kill_at;   /* 0: not due */
	int timed_out, interrupted;
};

static void finish(const struct parallel *pp, struct slot *s, int code, const struct error *err)
{
	struct parallel_end end = { code, s->timed_out, s->interrupted, now_s() - s->start, err };

	pp->finished(pp->ctx, &s->task, &end);
	strvec_clear(&s->task.argv);
	s->busy = 0;
}

static void start(const struct parallel *pp, struct slot *s)
{
	struct error err;
	int fd = open(s->task.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	s->busy = 1;
	s->start = now_s();
	s->term_at = s->task.timeout_s > 0 ? s->start + s->task.timeout_s : 0;
	s->kill_at = 0;
	s->timed_out = s->interrupted = 0;
	if (fd < 0) {
		error_set(&err, "cannot write %s: %s", s->task.log, strerror(errno));
		finish(pp, s, -1, &err);
		return;
	}
	proc_init(&s->proc, strvec_argv(&s->task.argv));
	s->proc.out = s->proc.err = fd;
	/* The signal handler's proc_kill_all(): the child records that it was interrupted. */
	s->proc.interrupt_signal = SIGTERM;
	if (proc_start(&s->proc, &err)) {
		close(fd);
		finish(pp, s, -1, &err);
		return;
	}
	close(fd);
}

/* SIGTERM now, SIGKILL after the grace period. */
static void stop(const struct parallel *pp, struct slot *s, double now)
{
	if (s->kill_at)
		return;
	proc_signal(&s->proc, SIGTERM);
	s->term_at = 0;
	s->kill_at = now + pp->grace_s;
}

/* Reap what ended, enforce deadlines; returns the number still running. */
static int tend(const struct parallel *pp, struct slot *slots, int interrupted)
{
	double now = now_s();
	int running = 0, code;

	for (int i = 0; i < pp->jobs; i++) {
		struct slot *s = &slots[i];

		if (!s->busy)
			continue;
		/* Before the reap: a child that ended at the signal was interrupted too. */
		s->interrupted |= interrupted && !s->timed_out;
		if (proc_poll(&s->proc, &code)) {
			/*
			 * And after it: a signal sent to the whole group (a
			 * terminal's Ctrl-C) can end a child that has no handler
			 * yet after this pass's interrupted() said no; this
			 * process's handler has run before the reap returned.
			 */
			s->interrupted |= pp->interrupted && pp->interrupted() && !s->timed_out;
			finish(pp, s, code, NULL);
			continue;
		}
		running++;
		if (pp->running)
			pp->running(pp->ctx, &s->task);
		if (s->term_at && now >= s->term_at)
			s->timed_out = 1;
		if (interrupted || s->timed_out)
			stop(pp, s, now);
		if (s->kill_at && now >= s->kill_at)
			proc_kill(&s->proc);
	}
	return running;
}

int parallel_run(const struct parallel *pp)
{
	struct slot *slots = xcalloc((size_t)pp->jobs, sizeof(*slots));
	int done = 0, interrupted = 0, running;

	for (;;) {
		interrupted = pp->interrupted && pp->interrupted();
		for (int i = 0; i < pp->jobs && !done && !interrupted; i++) {
			int what;

			if (slots[i].busy)
				continue;
			memset(&slots[i].task, 0, sizeof(slots[i].task));
			what = pp->next(pp->ctx, &slots[i].task);
			if (what == PARALLEL_START) {
				start(pp, &slots[i]);
				continue;
			}
			strvec_clear(&slots[i].task.argv);
			done = what == PARALLEL_DONE;
			break;
		}
		running = tend(pp, slots, interrupted);
		if (!running && (done || interrupted))
			break;
		/* A signal cuts the nap short (the handlers are not SA_RESTART). */
		poll(NULL, 0, POLL_MS);
	}
	free(slots);
	return interrupted ? 1 : 0;
}
