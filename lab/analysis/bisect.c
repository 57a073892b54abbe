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

/* The suite's subtests matching the prefix, by outcome. */
struct subtests {
	const struct bisect_test *t;
	int in_suite;
	int ok, bad, skip;
	char first_bad[128];
};

static void count_subtest(struct subtests *s, const char *line)
{
	struct tap_test t;

	if (!tap_parse_result(line, &t) || strncmp(t.name, s->t->prefix, strlen(s->t->prefix)))
		return;
	if (t.status == TAP_OK)
		s->ok++;
	else if (t.status == TAP_SKIP || t.status == TAP_TODO)
		s->skip++;
	else if (!s->bad++)
		snprintf(s->first_bad, sizeof(s->first_bad), "%s", t.name);
}

static void on_line(void *ctx, const char *line)
{
	struct subtests *s = ctx;

	if (!strncmp(line, "    # Subtest: ", 15))
		s->in_suite = !strcmp(line + 15, s->t->suite);
	else if (line[0] != ' ')
		s->in_suite = 0;
	else if (s->in_suite && s->t->prefix[0] &&
		 (!strncmp(line, "    ok ", 7) || !strncmp(line, "    not ok ", 11)))
		count_subtest(s, line + 4);
}

static const struct tap_test *find_suite(const struct tap_parser *p, const char *suite)
{
	for (int i = 0; i < p->nr_tests; i++)
		if (!strcmp(p->tests[i].name, suite))
			return &p->tests[i];
	return NULL;
}

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
		return snprintf(why, cap, "%s not ok (%d of its subtests failed)", suite, tt->sub_fail),
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
	struct tap_parser *p = xmalloc(sizeof(*p));
	struct subtests s = { .t = t };
	const struct tap_test *tt;
	enum bisect_verdict v;

	if (refused) {
		free(p);
		return snprintf(why, cap, "the run refused the request"), BISECT_ABORT;
	}
	tap_init(p);
	p->on_line = on_line;
	p->ctx = &s;
	tap_feed(p, tap, len);
	tap_end(p);
	if ((tt = find_suite(p, t->suite)))
		v = decide(tt, &s, why, cap);
	else if (p->nr_tests)
		v = (snprintf(why, cap, "the run has no test %s", t->suite), BISECT_ABORT);
	else
		v = (snprintf(why, cap, "no TAP at all: the guest never reached its tests"), BISECT_SKIP);
	free(p);
	return v;
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
