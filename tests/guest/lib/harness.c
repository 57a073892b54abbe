/* harness: self-registered cases, one forked child each, with a timeout (harness.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "harness.h"

#define FAULT_ENV "NUMALAB_FAULT"
#define CASE_TIMEOUT_ENV "NUMALAB_CASE_TIMEOUT"

static struct guest_case *first_case, **last_case = &first_case;

void guest_case_register(struct guest_case *c)
{
	c->next = NULL;
	*last_case = c;
	last_case = &c->next;
}

void guest_header(void)
{
	int total = 0;

	for (struct guest_case *c = first_case; c; c = c->next) {
		c->planned = c->plan();
		if (c->planned < 0)
			c->planned = 0;
		total += c->planned;
	}
	ktap_header(total);
}

static unsigned case_timeout(const struct guest_case *c)
{
	const char *env = getenv(CASE_TIMEOUT_ENV);
	char *end;
	unsigned long s;

	if (env) {
		s = strtoul(env, &end, 10);
		if (s > 0 && s <= 86400 && !*end)
			return (unsigned)s;
	}
	return c->timeout_s ? c->timeout_s : GUEST_TIMEOUT_DEFAULT;
}

struct case_child {
	const struct guest_case *c;
	int first;
};

static void run_in_child(void *ctx)
{
	const struct case_child *cc = ctx;
	const char *fault = getenv(FAULT_ENV);

	if (cc->first && fault && !strcmp(fault, "case-segv")) {
		signal(SIGSEGV, SIG_DFL);   /* whatever handler the suite (or a sanitizer) set */
		raise(SIGSEGV);
	}
	cc->c->run(cc->c);
	fflush(stdout);
	_exit(0);
}

/* Why the case printed fewer results than it planned, as a TAP directive. */
static void why_short(int timed_out, unsigned timeout_s, int status, int printed, int planned,
		      char *buf, size_t size)
{
	if (timed_out)
		snprintf(buf, size, "TIMEOUT %us", timeout_s);
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "crashed by signal %d", WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, size, "ended after %d of %d results", printed, planned);
}

static void run_case(const struct guest_case *c, int first)
{
	struct case_child cc = { c, first };
	struct child_spec spec = { .in_child = run_in_child, .ctx = &cc, .timeout_s = case_timeout(c) };
	unsigned timeout_s = spec.timeout_s;
	int before = ktap_results(), printed, status = 0, timed_out = 0;
	char why[64];

	switch (child_deadline(&spec, &status)) {
	case CHILD_NOT_RUN:
		ktap_diag("%s: fork: %s", c->name, strerror(errno));
		status = 1 << 8;   /* as if it exited 1 before its results */
		break;
	case CHILD_TIMED_OUT:
		timed_out = 1;
		break;
	case CHILD_EXITED:
		break;
	}
	printed = ktap_results() - before;
	if (WIFSIGNALED(status) && !timed_out)
		ktap_diag("%s: killed by signal %d (%s)", c->name, WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
	if (printed < c->planned) {
		why_short(timed_out, timeout_s, status, printed, c->planned, why, sizeof(why));
		ktap_ok(0, "%s # %s", c->name, why);
		for (int i = printed + 2; i <= c->planned; i++)
			ktap_ok(0, "%s (result %d of %d) # not run", c->name, i, c->planned);
	} else if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status)) {
		why_short(timed_out, timeout_s, status, printed, c->planned, why, sizeof(why));
		ktap_diag("%s: %s after all its results", c->name, why);
		ktap_fail_outside();
	}
	if (printed > c->planned) {
		ktap_diag("%s: printed %d results, planned %d", c->name, printed, c->planned);
		ktap_fail_outside();
	}
}

void guest_run(void)
{
	int first = 1, isolated = !ktap_share_counts();

	if (!isolated)
		ktap_diag("mmap for the counts: %s; the cases run in this process", strerror(errno));
	for (struct guest_case *c = first_case; c; c = c->next, first = 0) {
		if (isolated)
			run_case(c, first);
		else
			c->run(c);
	}
}
