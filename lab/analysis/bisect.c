/* bisect: a step's verdict from its saved TAP, and the step log. */
#include "analysis/bisect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bisect_test_parse(const char *spec, struct bisect_test *t)
{
	size_t n = strcspn(spec, ":");

	memset(t, 0, sizeof(*t));
	if (!n || n >= sizeof(t->suite) || strlen(spec + n) >= sizeof(t->prefix) + 1)
		return -1;
	memcpy(t->suite, spec, n);
	if (spec[n] && !spec[n + 1])
		return -1;
	snprintf(t->prefix, sizeof(t->prefix), "%s", spec[n] ? spec + n + 1 : "");
	return 0;
}

/* What the walk found of the suite: its result, and its subtests by outcome. */
struct subtests {
	const struct bisect_test *t;
	int tests;                      /* top-level results and suites seen */
	int found;                      /* the suite announced (1) or with its result (2) */
	struct tap_test result;         /* its result; TAP_PENDING while found < 2 */
	int sub_fail;                   /* failing subtests, any name */
	int ok, bad, skip;              /* subtests matching the prefix */
	char first_bad[128];
	/* Of the level-0 block being read (the counts above are copied at its result). */
	int block_fail, block_ok, block_bad, block_skip;
	char block_first_bad[128];
};

static void count_subtest(struct subtests *s, const struct tap_test *t)
{
	if (tap_status_failing(t->status))
		s->block_fail++;
	if (!s->t->prefix[0] || strncmp(t->name, s->t->prefix, strlen(s->t->prefix)))
		return;
	if (t->status == TAP_OK)
		s->block_ok++;
	else if (t->status == TAP_SKIP || t->status == TAP_TODO)
		s->block_skip++;
	else if (!s->block_bad++)
		snprintf(s->block_first_bad, sizeof(s->block_first_bad), "%s", t->name);
}

static void on_result(void *ctx, const struct tap_node *n)
{
	struct subtests *s = ctx;

	if (n->depth == 1) {
		count_subtest(s, n->t);
		return;
	}
	if (n->depth)
		return;
	s->tests++;
	if (s->found < 2 && !strcmp(n->t->name, s->t->suite)) {
		s->found = 2;
		s->result = *n->t;
		s->sub_fail = s->block_fail;
		s->ok = s->block_ok;
		s->bad = s->block_bad;
		s->skip = s->block_skip;
		memcpy(s->first_bad, s->block_first_bad, sizeof(s->first_bad));
	}
	s->block_fail = s->block_ok = s->block_bad = s->block_skip = 0;
	s->block_first_bad[0] = '\0';
}

/* A suite that never got its result still counts as found (no result). */
static void on_suite(void *ctx, const struct tap_node *n)
{
	struct subtests *s = ctx;

	if (n->depth)
		return;
	s->tests++;
	if (!s->found && !strcmp(n->text, s->t->suite)) {
		s->found = 1;
		snprintf(s->result.name, sizeof(s->result.name), "%s", n->text);
		s->result.status = TAP_PENDING;
	}
}

static const struct tap_walk_ops bisect_ops = {
	.on_suite = on_suite, .on_suite_end = on_result, .on_test = on_result,
};

/* The suite failed or crashed: does the narrowed test decide it? */
static enum bisect_verdict narrowed(const struct subtests *s, const char *suite, const char *what,
				    char *why, size_t cap)
{
	if (s->bad)
		return snprintf(why, cap, "%s: subtest '%s' not ok", suite, s->first_bad), BISECT_BAD;
	if (s->ok)
		return snprintf(why, cap, "%s: the %d subtests '%s*' passed (the suite %s)", suite, s->ok,
				s->t->prefix, what), BISECT_GOOD;
	return BISECT_SKIP;
}

static enum bisect_verdict decide(const struct tap_test *tt, const struct subtests *s,
				  char *why, size_t cap)
{
	const char *suite = tt->name;
	int narrow = s->t->prefix[0] != '\0';

	switch (tt->status) {
	case TAP_OK:
		if (!narrow)
			return snprintf(why, cap, "%s passed", suite), BISECT_GOOD;
		if (s->ok || s->bad)
			return narrowed(s, suite, "passed", why, cap);
		if (s->skip)
			return snprintf(why, cap, "%s: subtests '%s*' skipped", suite, s->t->prefix), BISECT_SKIP;
		return snprintf(why, cap, "%s has no subtest starting '%s'", suite, s->t->prefix), BISECT_ABORT;
	case TAP_SKIP:
	case TAP_TODO:
		return snprintf(why, cap, "%s skipped: %s", suite, tt->reason), BISECT_SKIP;
	case TAP_NOT_OK:
		if (narrow && (s->ok || s->bad))
			return narrowed(s, suite, "failed elsewhere", why, cap);
		if (narrow)
			return snprintf(why, cap, "%s failed before reaching '%s*'", suite, s->t->prefix),
			       BISECT_SKIP;
		return snprintf(why, cap, "%s not ok (%d of its subtests failed)", suite, s->sub_fail),
		       BISECT_BAD;
	case TAP_TIMEOUT:
	case TAP_ERROR:
		if (!strncmp(tt->reason, "not run", 7))
			return snprintf(why, cap, "%s never ran: %s", suite, tt->reason), BISECT_SKIP;
		if (narrow && s->ok && !s->bad)
			return narrowed(s, suite, "then broke", why, cap);
		return snprintf(why, cap, "%s %s: %s", suite, tt->status == TAP_TIMEOUT ? "timed out" :
				"was cut short", tt->reason), BISECT_BAD;
	case TAP_PENDING:
		break;
	}
	return snprintf(why, cap, "%s has no result", suite), BISECT_SKIP;
}

enum bisect_verdict bisect_verdict(const struct bisect_test *t, const char *tap, size_t len,
				   int refused, char *why, size_t cap)
{
	struct subtests s = { .t = t };

	if (refused)
		return snprintf(why, cap, "the run refused the request"), BISECT_ABORT;
	tap_walk(tap, len, &bisect_ops, &s);
	if (s.found)
		return decide(&s.result, &s, why, cap);
	if (s.tests)
		return snprintf(why, cap, "the run has no test %s", t->suite), BISECT_ABORT;
	return snprintf(why, cap, "no TAP at all: the guest never reached its tests"), BISECT_SKIP;
}

static int metric_matches(const struct cmp_metric *m, const char *metric)
{
	const char *colon = strrchr(metric, ':');

	if (!colon)
		return !strcmp(m->metric, metric);
	return !strcmp(m->metric, colon + 1) && strlen(m->test) == (size_t)(colon - metric) &&
	       !strncmp(m->test, metric, colon - metric);
}

static void describe_metric(const struct cmp_metric *m, char *why, size_t cap)
{
	snprintf(why, cap, "%s%s%s: %s, %+.1f%% (mean %.4g -> %.4g, n %zu/%zu, p %.3g)", m->test,
		 m->test[0] ? " " : "", m->metric, cmp_verdict_name(m->verdict), m->change_pct,
		 m->sa.mean, m->sb.mean, m->sa.n, m->sb.n, m->p);
}

static enum bisect_verdict metric_row_verdict(const struct cmp_metric *m)
{
	if (m->verdict == CMP_REGRESSED || m->verdict == CMP_CHANGED)
		return BISECT_BAD;
	if (m->verdict == CMP_SAME || m->verdict == CMP_IMPROVED)
		return BISECT_GOOD;
	return BISECT_SKIP;
}

/* Of two rows' verdicts the worse decides: bad, then skip, then good. */
static int worse(enum bisect_verdict v, enum bisect_verdict than)
{
	static const int rank[] = { [BISECT_GOOD] = 0, [BISECT_SKIP] = 1, [BISECT_BAD] = 2 };

	return rank[v] > rank[than];
}

enum bisect_verdict bisect_metric_verdict(const struct comparison *c, const char *metric,
					  char *why, size_t cap)
{
	const struct cmp_metric *decisive = NULL;
	enum bisect_verdict v = BISECT_GOOD;

	for (size_t i = 0; i < c->nr_metrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (!metric_matches(m, metric))
			continue;
		if (!decisive || worse(metric_row_verdict(m), v)) {
			decisive = m;
			v = metric_row_verdict(m);
		}
	}
	if (!decisive)
		return snprintf(why, cap, "no metric '%s' in the runs", metric), BISECT_ABORT;
	describe_metric(decisive, why, cap);
	return v;
}

const char *bisect_verdict_name(enum bisect_verdict v)
{
	switch (v) {
	case BISECT_GOOD: return "good";
	case BISECT_BAD: return "bad";
	case BISECT_SKIP: return "skip";
	case BISECT_ABORT: return "abort";
	}
	return "?";
}

void bisect_log_count(const char *text, int *steps, int *builds)
{
	*steps = *builds = 0;
	for (const char *p = text; *p; p = next_line(p)) {
		*steps += !strncmp(p, "step ", 5);
		*builds += !strncmp(p, "  kernel: built", 15);
	}
}

int bisect_log_step(const char *path, const struct bisect_step *s, struct error *err)
{
	struct buf old = BUF_INIT, text = BUF_INIT;
	struct error ignored;
	int steps = 0, builds = 0, fd, rc = 0;

	if (!read_file(path, &old, &ignored))
		bisect_log_count(buf_str(&old), &steps, &builds);
	builds += s->built;
	buf_addf(&text, "step %d: %.12s %s\n", steps + 1, s->commit, s->subject);
	if (s->built)
		buf_addf(&text, "  kernel: built in %.1f s (kernel builds so far: %d)\n", s->build_s, builds);
	else
		buf_addf(&text, "  kernel: from the cache (kernel builds so far: %d)\n", builds);
	buf_addf(&text, "  run: %s\n  verdict: %s (%s)\n", s->run_dir[0] ? s->run_dir : "none",
		 bisect_verdict_name(s->verdict), s->why);
	/* One write of the whole step: an interrupted step never leaves half a record. */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text.data, text.len) != (ssize_t)text.len)
		rc = error_set(err, "cannot append to the bisect log %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	buf_free(&old);
	buf_free(&text);
	return rc;
}

int bisect_build_budget(int n)
{
	int log2 = 0;

	while ((1L << log2) < n)
		log2++;
	return log2 + 1;
}
