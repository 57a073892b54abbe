/* child: a child in a process group of its own, with a deadline (child.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

/* How often a child with a pipe is checked for having ended while its output is idle. */
#define EXIT_POLL_MS 100

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The group, and the child itself should it not have reached its setpgid() yet. */
static void kill_group(pid_t pid)
{
	killpg(pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* Cuts the pipe's bytes into lines for spec->line. */
struct lines {
	const struct child_spec *spec;
	char text[CHILD_LINE_MAX];
	size_t len;
};

static void lines_add(struct lines *l, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n' && l->len < sizeof(l->text) - 1) {
			l->text[l->len++] = buf[i];
			continue;
		}
		l->text[l->len] = '\0';
		l->spec->line(l->spec->ctx, l->text);
		l->len = 0;
		if (buf[i] != '\n')
			l->text[l->len++] = buf[i];
	}
}

static void lines_end(struct lines *l)
{
	if (l->len) {
		l->text[l->len] = '\0';
		l->spec->line(l->spec->ctx, l->text);
		l->len = 0;
	}
}

enum pipe_state { PIPE_EOF, PIPE_DATA, PIPE_IDLE };

/* Read what the pipe has within ms. */
static enum pipe_state read_some(int fd, struct lines *l, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return PIPE_IDLE;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? PIPE_IDLE : PIPE_EOF;
	lines_add(l, buf, (size_t)n);
	return n > 0 ? PIPE_DATA : PIPE_EOF;
}

/*
 * Until the child is reaped and its output (if taken) is drained, or the
 * deadline: 0 ended, -1 the deadline passed.  Once the child is reaped,
 * only leftovers of its group can hold the pipe open, and they are killed
 * next: an idle pipe then counts as drained.
 */
static int wait_child(pid_t pid, int fd, struct lines *l, double deadline, const sigset_t *chld,
		      int *status)
{
	int reaped = 0, eof = fd < 0;

	while (!reaped || !eof) {
		double left = deadline - now_s();

		if (!reaped) {
			pid_t r = waitpid(pid, status, WNOHANG);

			if (r == pid || (r < 0 && errno != EINTR)) {
				reaped = 1;
				continue;
			}
		}
		if (left <= 0 && !reaped)
			return -1;
		if (!eof) {
			int ms = (int)(left * 1000) + 1;
			enum pipe_state s = read_some(fd, l, reaped ? 0 : ms < EXIT_POLL_MS ? ms : EXIT_POLL_MS);

			eof = s == PIPE_EOF || (s == PIPE_IDLE && reaped);
		} else {
			struct timespec ts = { .tv_sec = (time_t)left };

			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			sigtimedwait(chld, NULL, &ts);
		}
	}
	return 0;
}

enum child_end child_deadline(const struct child_spec *spec, int *status)
{
	double deadline = now_s() + spec->timeout_s;
	struct lines l = { .spec = spec };
	int fds[2] = { -1, -1 }, timed_out;
	sigset_t chld, old_mask;
	pid_t pid;

	*status = 0;
	if (spec->line && pipe2(fds, O_CLOEXEC))
		return CHILD_NOT_RUN;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		if (spec->line) {
			dup2(fds[1], STDOUT_FILENO);
			if (spec->with_stderr)
				dup2(fds[1], STDERR_FILENO);
		}
		spec->in_child(spec->ctx);
		_exit(127);
	}
	if (fds[1] >= 0)
		close(fds[1]);
	if (pid < 0) {
		int e = errno;

		if (fds[0] >= 0)
			close(fds[0]);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		errno = e;
		return CHILD_NOT_RUN;
	}
	setpgid(pid, pid);   /* also here, so the group exists before the child runs */
	timed_out = wait_child(pid, fds[0], &l, deadline, &chld, status) < 0;
	kill_group(pid);     /* at the deadline: all of it; else what it left behind */
	if (timed_out)
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
	if (fds[0] >= 0) {
		lines_end(&l);
		close(fds[0]);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return timed_out ? CHILD_TIMED_OUT : CHILD_EXITED;
}

/* child_run(): its output kept in out. */
struct capture {
	char *const *argv;
	char *out;
	size_t cap, len;
};

static void exec_argv(void *ctx)
{
	struct capture *c = ctx;

	execv(c->argv[0], c->argv);
	dprintf(STDERR_FILENO, "exec %s: %s\n", c->argv[0], strerror(errno));
	_exit(127);
}

static void keep_line(void *ctx, char *text)
{
	struct capture *c = ctx;
	int n = snprintf(c->out + c->len, c->cap - c->len, "%s\n", text);

	c->len = n < 0 || (size_t)n >= c->cap - c->len ? c->cap - 1 : c->len + (size_t)n;
}

int child_run(char *const argv[], char *out, size_t cap, int timeout_s)
{
	struct capture c = { .argv = argv, .out = out, .cap = cap };
	struct child_spec spec = { .in_child = exec_argv, .ctx = &c, .timeout_s = (unsigned)timeout_s,
				   .line = keep_line };
	int status;

	out[0] = '\0';
	switch (child_deadline(&spec, &status)) {
	case CHILD_EXITED:
		return status;
	case CHILD_TIMED_OUT:
		errno = ETIMEDOUT;
		return -1;
	case CHILD_NOT_RUN:
		break;
	}
	return -1;
}

/* Process pid's session, and whether it is still running (not a zombie); -1: gone. */
static pid_t session_of(const char *pid, int *live)
{
	char path[64], stat[512], state;
	const char *p;
	int fd, ppid, pgrp, sid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	stat[n] = '\0';
	/* "PID (COMM) S PPID PGRP SESSION ...": COMM may hold ')' and blanks. */
	if (!(p = strrchr(stat, ')')) || sscanf(p + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4)
		return -1;
	*live = state != 'Z' && state != 'X';
	return sid;
}

int child_kill_session(pid_t sid)
{
	int sent = 0;

	/* A pass may race a fork: again until a pass finds nobody alive (bounded: a task stuck in D). */
	for (int pass = 0; pass < 50; pass++) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		int alive = 0;

		if (!d)
			break;
		while ((e = readdir(d))) {
			int live = 0;
			pid_t pid = (pid_t)atoi(e->d_name);

			if (pid > 0 && session_of(e->d_name, &live) == sid && live) {
				kill(pid, SIGKILL);
				sent++;
				alive++;
			}
		}
		closedir(d);
		if (!alive)
			break;
		usleep(2000);
	}
	return sent;
}
