/* child: run a program and capture its stdout (child.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int child_run(char *const argv[], char *out, size_t cap, int timeout_s)
{
	double deadline = now_s() + timeout_s;
	size_t len = 0;
	int fds[2], status, timed_out = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		dprintf(STDERR_FILENO, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		int left_ms = (int)((deadline - now_s()) * 1000);
		char chunk[512];
		ssize_t n;

		if (left_ms <= 0 || poll(&p, 1, left_ms) == 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < cap) {
			size_t take = (size_t)n < cap - 1 - len ? (size_t)n : cap - 1 - len;

			memcpy(out + len, chunk, take);
			len += take;
			out[len] = '\0';
		}
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (timed_out) {
		errno = ETIMEDOUT;
		return -1;
	}
	return status;
}
