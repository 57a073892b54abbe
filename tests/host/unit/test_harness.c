/*
 * The guest case harness (tests/guest/lib/harness.h) on the host: the plan
 * is the cases' sum, each case runs in its own child, and one that crashes,
 * hangs, exits or returns early is one "not ok" (its missing results "not
 * run") while the cases after it still run; the suite's exit status.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "unit.h"

GUEST_TEST(passes) { ktap_ok(1, "first check"); }

GUEST_CASE(segv_mid, 3)
{
	ktap_ok(1, "before the crash");
	signal(SIGSEGV, SIG_DFL);   /* the sanitizers' handler would exit instead */
	raise(SIGSEGV);
	ktap_ok(1, "after the crash");
}

GUEST_CASE_TIMEOUT(hangs, 2, 1)
{
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
}

UNIT_TEST(case_segv_fault_kills_the_first_case)
{
	static char out[8192];
	int status = run_suite("case-segv", out, sizeof(out));

	CHECK(strstr(out, "1..12\n# setup done\n# passes: killed by signal 11 (Segmentation fault)\n"
			  "not ok 1 passes # crashed by signal 11\nok 2 before the crash\n") != NULL);
	CHECK(strstr(out, "\nnot ok 12 last 2\n# totals: pass:4 fail:7 skip:1\n") != NULL);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == KSFT_FAIL);
}

UNIT_MAIN(UNIT_CASE(each_case_in_its_own_child), UNIT_CASE(case_segv_fault_kills_the_first_case))
