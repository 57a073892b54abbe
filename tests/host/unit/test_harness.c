/*
 * The guest case harness (tests/guest/lib/harness.h) on the host: the plan
 * is the cases' sum, each case runs in its own child, and one that crashes,
 * hangs, exits or returns early is one "not ok" (its missing results "not
 * run") while the cases after it still run; the suite's exit status.
 * And the one child rule (child.h): what a case forks dies with it, at its
 * timeout and when it ends; /init's kill reaches every group of a test's
 * session.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "harness.h"
#include "unit.h"

/* The grandchildren the cases fork, shared with the test (mapped by run_suite(), before its fork). */
static pid_t *grandchildren;

/* Fork a process that lives until killed, off the suite's stdout (whose EOF the test waits for). */
static pid_t fork_sleeper(int own_group)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (own_group)
			setpgid(0, 0);
		close(STDOUT_FILENO);
		for (;;)
			pause();
	}
	return pid;
}

GUEST_TEST(passes)
{
	grandchildren[0] = fork_sleeper(0);   /* left behind: killed when the case ends */
	ktap_ok(1, "first check");
}

GUEST_CASE(segv_mid, 3)
{
	ktap_ok(1, "before the crash");
	signal(SIGSEGV, SIG_DFL);   /* the sanitizers' handler would exit instead */
	raise(SIGSEGV);
	ktap_ok(1, "after the crash");
}

GUEST_CASE_TIMEOUT(hangs, 2, 1)
{
	grandchildren[1] = fork_sleeper(0);   /* hangs too: killed with the case at its timeout */
	ktap_ok(1, "before the hang");
	pause();
}

GUEST_CASE(ends_early, 2) { ktap_skip("skipped check", "no such knob"); }
GUEST_TEST(exits) { exit(3); }

GUEST_TEST(crashes_after)
{
	ktap_ok(1, "all of crashes_after");
	signal(SIGABRT, SIG_DFL);
	abort();
}

GUEST_CASE(last, 2)
{
	ktap_ok(1, "last 1");
	ktap_ok(0, "last 2");
}

/* The suite run in a child with fault as NUMALAB_FAULT (NULL: none): its output, its exit status. */
static int run_suite(const char *fault, char *out, size_t cap)
{
	int fd[2], status = -1;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (!grandchildren) {
		grandchildren = mmap(NULL, 2 * sizeof(pid_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				     -1, 0);
		if (grandchildren == MAP_FAILED)
			return -1;
	}
	grandchildren[0] = grandchildren[1] = 0;
	if (pipe(fd))
		return -1;
	fflush(stdout);   /* the unit's own TAP is not the child's to print */
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		if (fault)
			setenv("NUMALAB_FAULT", fault, 1);
		guest_header();
		ktap_diag("setup done");
		guest_run();
		ktap_exit();
	}
	close(fd[1]);
	while (len < cap - 1 && (n = read(fd[0], out + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return status;
}

/* pid has ended (a zombie not yet reaped by whoever inherited it counts), within 5 s. */
static int ended(pid_t pid)
{
	char path[64], stat[256], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 500; i++) {
		if ((fd = open(path, O_RDONLY)) < 0)
			return 1;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		stat[n > 0 ? n : 0] = '\0';
		if ((p = strrchr(stat, ')')) && (p[2] == 'Z' || p[2] == 'X'))
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Each of pids (n) has ended; those that have not are killed, not left to the host. */
static void check_ended(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		CHECK(pids[i] > 0);
		if (pids[i] > 0 && !ended(pids[i])) {
			printf("#   process %d outlived what started it\n", (int)pids[i]);
			CHECK(0);
			kill(pids[i], SIGKILL);
		}
	}
}

UNIT_TEST(each_case_in_its_own_child)
{
	static char out[8192];
	int status = run_suite(NULL, out, sizeof(out));

	CHECK_STR(out, "KTAP version 1\n"
		       "1..12\n"
		       "# setup done\n"
		       "ok 1 first check\n"
		       "ok 2 before the crash\n"
		       "# segv_mid: killed by signal 11 (Segmentation fault)\n"
		       "not ok 3 segv_mid # crashed by signal 11\n"
		       "not ok 4 segv_mid (result 3 of 3) # not run\n"
		       "ok 5 before the hang\n"
		       "not ok 6 hangs # TIMEOUT 1s\n"
		       "ok 7 skipped check # SKIP no such knob\n"
		       "not ok 8 ends_early # ended after 1 of 2 results\n"
		       "not ok 9 exits # exited with status 3\n"
		       "ok 10 all of crashes_after\n"
		       "# crashes_after: killed by signal 6 (Aborted)\n"
		       "# crashes_after: crashed by signal 6 after all its results\n"
		       "ok 11 last 1\n"
		       "not ok 12 last 2\n"
		       "# totals: pass:5 fail:6 skip:1\n");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == KSFT_FAIL);
	/* The case's group: what it forked died with it, at its timeout and after it returned. */
	check_ended(grandchildren, 2);
}

UNIT_TEST(case_segv_fault_kills_the_first_case)
{
	static char out[8192];
	int status = run_suite("case-segv", out, sizeof(out));

	CHECK(strstr(out, "1..12\n# setup done\n# passes: killed by signal 11 (Segmentation fault)\n"
			  "not ok 1 passes # crashed by signal 11\nok 2 before the crash\n") != NULL);
	CHECK(strstr(out, "\nnot ok 12 last 2\n# totals: pass:4 fail:7 skip:1\n") != NULL);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == KSFT_FAIL);
	check_ended(&grandchildren[1], 1);
}

/*
 * /init starts a test with setsid(); the test's cases and their selftests
 * make process groups of their own (child_deadline()), which a killpg() of
 * the test's group misses: child_kill_session() reaches them.
 */
UNIT_TEST(a_session_is_killed_with_every_group_in_it)
{
	int fds[2], status = 0;
	pid_t test, nested = 0;

	CHECK_INT(pipe(fds), 0);
	fflush(stdout);
	test = fork();
	if (test == 0) {
		pid_t g;

		setsid();
		g = fork_sleeper(1);
		if (write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	CHECK(read(fds[0], &nested, sizeof(nested)) == sizeof(nested));
	close(fds[0]);
	CHECK(child_kill_session(test) >= 2);
	CHECK_INT(waitpid(test, &status, 0), test);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	check_ended(&nested, 1);
}

/* child_run() keeps what the program printed; a program past its deadline is ETIMEDOUT. */
UNIT_TEST(child_run_takes_stdout_and_times_out)
{
	char out[64];
	char *echo[] = { "/bin/sh", "-c", "echo one; echo two; printf three", NULL };
	char *hang[] = { "/bin/sh", "-c", "sleep 60 & wait", NULL };
	time_t start = time(NULL);
	int st = child_run(echo, out, sizeof(out), 10);

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR(out, "one\ntwo\nthree\n");
	errno = 0;
	CHECK_INT(child_run(hang, out, sizeof(out), 1), -1);
	CHECK_INT(errno, ETIMEDOUT);
	/* The shell's sleep held the pipe: killed with the shell's group, not waited for. */
	CHECK(time(NULL) - start < 10);
}

UNIT_MAIN(UNIT_CASE(each_case_in_its_own_child), UNIT_CASE(case_segv_fault_kills_the_first_case),
	  UNIT_CASE(a_session_is_killed_with_every_group_in_it),
	  UNIT_CASE(child_run_takes_stdout_and_times_out))
