/*
 * test_proc: children and everything they start end with numalab (proc.h):
 * exit codes and signals pass through the namespace's shim, fds are kept,
 * group signals reach the child, and a descendant in a session of its own
 * dies when the child ends or the runner is SIGKILLed.
 */
#include "base/proc.h"
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Namespaces are what these tests are about; where none can be had the fallback runs. */
static int in_pidns(void)
{
	const char *argv[] = { "true", NULL };
	struct error err;
	struct proc p;

	proc_init(&p, argv);
	if (proc_start(&p, &err))
		return 0;
	if (proc_wait(&p, &err) < 0)
		return 0;
	return p.pidns;
}

/* Is a process whose argv has the word mark alive (a zombie counts as gone)? */
static int alive(const char *mark)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], buf[4096], state[300];
		ssize_t n;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
			buf[n] = '\0';
			if (strcmp(buf + i, mark))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
			state[0] = '\0';
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
				ssize_t m = read(fd, state, sizeof(state) - 1);

				state[m > 0 ? m : 0] = '\0';
				close(fd);
			}
			found = !strstr(state, ") Z ");
			break;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static int gone_within(const char *mark, double s)
{
	for (double end = now_s() + s; now_s() < end; usleep(20 * 1000))
		if (!alive(mark))
			return 1;
	return !alive(mark);
}

/* A sleep nobody else runs: "sleep 1000.PID1234". */
static void unique_sleep(char *mark, size_t cap, int n)
{
	snprintf(mark, cap, "1000.%d%d", (int)getpid(), n);
}

UNIT_TEST(exit_codes_and_signals_pass_through)
{
	const char *exit7[] = { "sh", "-c", "exit 7", NULL };
	const char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	struct error err;

	CHECK_INT(proc_run(exit7, NULL, 0, &err), 7);
	CHECK_INT(proc_run(killed, NULL, 0, &err), 128 + SIGTERM);
}

UNIT_TEST(exec_failure_is_reported)
{
	const char *argv[] = { "/nonexistent/numalab-test", NULL };
	struct error err;
	struct proc p;

	proc_init(&p, argv);
	CHECK_INT(proc_start(&p, &err), -1);
	CHECK_STR(err.msg, "cannot run /nonexistent/numalab-test: No such file or directory");
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* The child's own pid is the one the runner knows (run ids, temporary names). */
UNIT_TEST(the_child_knows_its_pid)
{
	const char *argv[] = { "sh", "-c", "echo $$", NULL };
	struct error err;
	struct proc p;
	char buf[32] = "";
	int fd = proc_start_reader(&p, argv, &err);
	pid_t pid = p.pid;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	CHECK_INT(proc_wait(&p, &err), 0);
	if (p.pidns)
		CHECK_INT(atoi(buf), (int)pid);
}

UNIT_TEST(kept_fds_reach_the_child)
{
	const char *argv[] = { "sh", "-c", "echo kept >&5", NULL };
	struct error err;
	struct proc p;
	int fds[2], keep[1];
	char buf[16] = "";

	CHECK_INT(pipe2(fds, O_CLOEXEC), 0);
	CHECK(dup2(fds[1], 5) == 5);
	fcntl(5, F_SETFD, FD_CLOEXEC);
	keep[0] = 5;
	proc_init(&p, argv);
	p.keep_fds = keep;
	p.nr_keep_fds = 1;
	CHECK_INT(proc_start(&p, &err), 0);
	close(5);
	close(fds[1]);
	CHECK_INT(proc_wait(&p, &err), 0);
	CHECK_INT((int)read(fds[0], buf, sizeof(buf) - 1), 5);
	CHECK_STR(buf, "kept\n");
	/* Nobody else holds the write end: the shim dropped its copies. */
	CHECK_INT((int)read(fds[0], buf, sizeof(buf)), 0);
	close(fds[0]);
}

/* The shim, as init, survives a group signal; the child handles it. */
UNIT_TEST(group_signals_reach_the_child)
{
	const char *argv[] = { "sh", "-c", "trap 'exit 3' TERM; echo up; while :; do sleep 0.05; done", NULL };
	const char *plain[] = { "sleep", "30", NULL };
	struct error err;
	struct proc p;
	char c;
	int fd = proc_start_reader(&p, argv, &err);

	CHECK(fd >= 0 && read(fd, &c, 1) == 1);
	proc_signal(&p, SIGTERM);
	CHECK_INT(proc_wait(&p, &err), 3);
	close(fd);
	proc_init(&p, plain);
	CHECK_INT(proc_start(&p, &err), 0);
	proc_signal(&p, SIGTERM);
	CHECK_INT(proc_wait(&p, &err), 128 + SIGTERM);
}

/* A descendant in a session of its own (no group kill reaches it) ends with the child. */
UNIT_TEST(a_detached_descendant_ends_with_the_child)
{
	char mark[64], *script;
	struct error err;

	if (!in_pidns()) {
		printf("# no PID namespace here: skipped\n");
		return;
	}
	unique_sleep(mark, sizeof(mark), 1);
	script = xprintf("setsid sleep %s </dev/null >/dev/null 2>&1 & sleep 0.2", mark);
	{
		const char *argv[] = { "sh", "-c", script, NULL };

		CHECK_INT(proc_run(argv, NULL, 0, &err), 0);
	}
	CHECK(gone_within(mark, 2));
	free(script);
}

/*
 * The issue: a runner SIGKILLed while its child's child runs (make's
 * sub-make) left that grandchild running.  The runner here is a fork of
 * the test that starts `sh -c 'setsid sleep MARK & wait'` and is killed.
 */
UNIT_TEST(a_sigkilled_runner_leaves_nothing)
{
	char mark[64], *script;
	int ready[2];
	pid_t runner;

	if (!in_pidns()) {
		printf("# no PID namespace here: skipped\n");
		return;
	}
	unique_sleep(mark, sizeof(mark), 2);
	script = xprintf("setsid sleep %s </dev/null >/dev/null 2>&1 & sleep 0.2; echo up; wait", mark);
	CHECK_INT(pipe(ready), 0);
	runner = fork();
	if (runner == 0) {
		const char *argv[] = { "sh", "-c", script, NULL };
		struct error err;
		struct proc p;

		close(ready[0]);
		proc_init(&p, argv);
		p.out = ready[1];
		if (proc_start(&p, &err))
			_exit(1);
		close(ready[1]);
		_exit(proc_wait(&p, &err) < 0);
	}
	close(ready[1]);
	{
		char c;

		CHECK(read(ready[0], &c, 1) == 1);
	}
	close(ready[0]);
	CHECK(alive(mark));
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	CHECK(gone_within(mark, 3));
	free(script);
}

UNIT_MAIN(UNIT_CASE(exit_codes_and_signals_pass_through),
	  UNIT_CASE(exec_failure_is_reported),
	  UNIT_CASE(the_child_knows_its_pid),
	  UNIT_CASE(kept_fds_reach_the_child),
	  UNIT_CASE(group_signals_reach_the_child),
	  UNIT_CASE(a_detached_descendant_ends_with_the_child),
	  UNIT_CASE(a_sigkilled_runner_leaves_nothing))
