/*
 * child: the one way guest code runs a child with a deadline, and the one
 * rule for what dies with it, after the kernel's kselftest_harness.h
 * __run_test(): the child is a process group of its own (setpgid() on both
 * sides of the fork, so a kill right after fork() reaches it), and that
 * whole group is SIGKILLed when the deadline passes and, for what it left
 * behind, when the child has ended.  The guest harness runs each case so
 * (harness.h), the suites their selftests, /init each test (run.c).
 *
 * child_deadline() flushes stdout (nothing buffered is printed twice),
 * forks, and in the child restores the caller's signal mask and calls
 * spec->in_child(spec->ctx), which execs or _exit()s.  With spec->line,
 * the child's stdout (and its stderr with spec->with_stderr) goes to a
 * pipe, each of its lines handed to line(ctx, text) as it comes: '\n'
 * stripped, one longer than CHILD_LINE_MAX - 1 bytes in pieces, a last one
 * without '\n' too.  Without it the child writes where the caller does.
 * After timeout_s seconds the group is killed and the child reaped.
 * Returns CHILD_EXITED with *status as waitpid() gives it, CHILD_TIMED_OUT
 * (*status: the killed child's), or CHILD_NOT_RUN with errno (pipe, fork).
 *
 * A group the child makes of its own (a suite's case running a selftest
 * through child_deadline() in turn) is that call's to kill; what escapes
 * every group is still in /init's session of the test: child_kill_session().
 *
 * child_run() runs argv[0] (a path) with argv so, and keeps its stdout in
 * out (NUL-terminated, truncated to cap-1; its stderr goes to the test's
 * stderr): the exit status as waitpid() gives it, or -1 with errno set
 * when it could not be started or was killed for the timeout (ETIMEDOUT).
 */
#ifndef NUMALAB_CHILD_H
#define NUMALAB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#define CHILD_LINE_MAX 1024

struct child_spec {
	void (*in_child)(void *ctx);      /* execs or _exit()s; never returns */
	void *ctx;                        /* for in_child and line */
	unsigned timeout_s;
	void (*line)(void *ctx, char *text);   /* NULL: the output is not taken */
	int with_stderr;                  /* with line: stderr into the same pipe */
};

enum child_end { CHILD_EXITED, CHILD_TIMED_OUT, CHILD_NOT_RUN };

enum child_end child_deadline(const struct child_spec *spec, int *status);

int child_run(char *const argv[], char *out, size_t cap, int timeout_s);

/*
 * SIGKILL every process of session sid (a test that /init started with
 * setsid(): whatever groups it made, none leaves the session but by a
 * setsid() of its own), read from /proc, until none is left or a pass
 * kills nothing new.  Returns how many kill()s it sent.
 */
int child_kill_session(pid_t sid);

#endif
