/*
 * The kernel's own khugepaged selftest, as a nested KTAP subtest.
 *
 * The selftest prints "# Run test: DESC (CONTEXT:MEMORY)" per case, then
 * steps that end in OK, Fail or Skip (in ANSI colours), and a "1..N" plan;
 * its exit status is not per case.  Each case becomes one nested result: not
 * ok if a step failed, SKIP (with the step's text) if one was skipped.  A
 * case that needs swap fails in a guest without swap: that is reported as a
 * SKIP with the reason, and so is a case where the program bails out unable
 * to allocate (collapse_compound_extreme wants 2048 PMD THPs in turn: 64 GiB
 * on 32M PMDs).  Cases it never reached after that are SKIPs naming where it
 * stopped.
 */
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

#include "khugepaged.h"
#include "ktap.h"

#define MAX_CASES 128
#define SELFTEST_TIMEOUT_S 900

struct st_case {
	char name[160];
	char why[160];             /* the failing or skipped step */
	int failed, skipped;
	int out_of_memory;         /* it bailed out failing to allocate: the guest is too small */
};

struct st_run {
	struct st_case cases[MAX_CASES];
	int nr, planned;
	char step[160];            /* the current step's message */
	char last_line[160];
};

/* Drop ANSI colour sequences and trailing blanks in place. */
static void plain(char *s)
{
	char *out = s;

	for (char *in = s; *in; in++) {
		if (*in == '\033') {
			while (*in && *in != 'm')
				in++;
			if (!*in)
				break;
			continue;
		}
		if (*in != '\r')
			*out++ = *in;
	}
	while (out > s && (out[-1] == ' ' || out[-1] == '\n'))
		out--;
	*out = '\0';
}

static int ends_with(const char *s, const char *word)
{
	size_t n = strlen(s), w = strlen(word);

	return n >= w && !strcmp(s + n - w, word) && (n == w || s[n - w - 1] == ' ' || s[n - w - 1] == '.');
}

static void parse_line(struct st_run *r, char *line)
{
	struct st_case *c = r->nr ? &r->cases[r->nr - 1] : NULL;
	const char *run = strstr(line, "Run test: ");
	int n;

	plain(line);
	if (*line)
		snprintf(r->last_line, sizeof(r->last_line), "%.159s", line);
	if (sscanf(line, "1..%d", &n) == 1) {
		r->planned = n;
	} else if (run && r->nr < MAX_CASES) {
		c = &r->cases[r->nr++];
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%.159s", run + 10);
	} else if (c && !strncmp(line, "Bail out! ", 10) && !c->failed) {
		/* The program gives up here: the case failed, and nothing after it runs. */
		c->failed = 1;
		c->out_of_memory = strstr(line, "allocate") != NULL;
		snprintf(c->why, sizeof(c->why), "%.159s", line);
	} else if (c && ends_with(line, "Fail") && !c->failed) {
		c->failed = 1;
		snprintf(c->why, sizeof(c->why), "%.159s", line);
	} else if (c && ends_with(line, "Skip") && !c->failed && !c->skipped) {
		c->skipped = 1;
		snprintf(c->why, sizeof(c->why), "%.159s", line);
	}
}

static int have_swap(void)
{
	char buf[512];

	/* /proc/swaps has a header line; any second line is an active swap area. */
	return !sys_read("/proc/swaps", buf, sizeof(buf)) && strchr(buf, '\n');
}

/* Run the selftest, parsing its output as it comes; returns its wait status. */
static int run_selftest(struct st_run *r)
{
	int fds[2], status = -1;
	char buf[4096], line[1024];
	size_t len = 0;
	pid_t pid;
	time_t deadline = time(NULL) + SELFTEST_TIMEOUT_S;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)KSELFTEST, NULL };

		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execv(KSELFTEST, argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		ssize_t n;

		if (time(NULL) > deadline) {
			kill(pid, SIGKILL);
			snprintf(r->last_line, sizeof(r->last_line), "timed out after %d s", SELFTEST_TIMEOUT_S);
		}
		if (poll(&p, 1, 1000) <= 0)
			continue;
		if ((n = read(fds[0], buf, sizeof(buf))) <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n' || len == sizeof(line) - 1) {
				line[len] = '\0';
				parse_line(r, line);
				len = 0;
			} else {
				line[len++] = buf[i];
			}
		}
	}
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

static void print_nested(const struct st_run *r, int swap)
{
	int total = r->planned > r->nr ? r->planned - 1 : r->nr;   /* its plan counts one setup step */

	printf("    # Subtest: kernel selftest mm/khugepaged\n    KTAP version 1\n    1..%d\n", total);
	for (int i = 0; i < total; i++) {
		const struct st_case *c = &r->cases[i];

		if (i >= r->nr)
			printf("    ok %d case %d # SKIP not reached: the selftest stopped after \"%s\"\n",
			       i + 1, i + 1, r->last_line);
		else if (c->failed && c->out_of_memory)
			printf("    ok %d %s # SKIP the guest has too little memory for it (%s)\n", i + 1,
			       c->name, c->why);
		else if (c->failed && strstr(c->name, "swap") && !swap)
			printf("    ok %d %s # SKIP needs swap, the guest has none (%s)\n", i + 1, c->name, c->why);
		else if (c->failed)
			printf("    not ok %d %s\n    # failed step: %s\n", i + 1, c->name, c->why);
		else if (c->skipped)
			printf("    ok %d %s # SKIP %s\n", i + 1, c->name, c->why);
		else
			printf("    ok %d %s\n", i + 1, c->name);
	}
	fflush(stdout);
}

int selftest_plan(void)
{
	return 1;
}

void selftest_run(void)
{
	static struct st_run r;
	int status, failed = 0, swap = have_swap();

	if (access(KSELFTEST, X_OK)) {
		ktap_skip("kernel selftest mm/khugepaged", "not in this image: only kernels built by "
			  "the lab from source carry their selftests (kernels/recipes)");
		return;
	}
	status = run_selftest(&r);
	print_nested(&r, swap);
	for (int i = 0; i < r.nr; i++)
		failed += r.cases[i].failed && !r.cases[i].out_of_memory &&
			  (swap || !strstr(r.cases[i].name, "swap"));
	ktap_diag("metric: kselftest_khugepaged.cases_run %d", r.nr);
	ktap_diag("selftest exit status %d%s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		  WIFSIGNALED(status) ? " (killed)" : "");
	ktap_ok(!failed && r.nr > 0, "kernel selftest mm/khugepaged (%d cases run, %d failed)", r.nr, failed);
}
