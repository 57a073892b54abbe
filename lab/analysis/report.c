#include "analysis/report.h"
#include "results/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cell_status_name(enum cell_status s)
{
	static const char *const names[] = { "pass", "fail", "timeout", "error" };

	return s <= CELL_ERROR ? names[s] : "?";
}

/* The first test of status st in p, or NULL. */
static const struct tap_test *first_with(const struct tap_parser *p, enum tap_status st)
{
	for (int i = 0; i < p->nr_tests; i++)
		if (p->tests[i].status == st)
			return &p->tests[i];
	return NULL;
}

/* "N of M tests failed: a, b" */
static void failed_tests(const struct tap_parser *p, char *reason, size_t cap)
{
	struct tap_summary s;
	size_t len;

	tap_summarise(p, &s);
	len = (size_t)snprintf(reason, cap, "%d of %d tests failed", s.failed + s.timeout + s.errors,
			       s.tests);
	for (int i = 0, first = 1; i < p->nr_tests && len < cap; i++) {
		enum tap_status st = p->tests[i].status;

		if (st == TAP_OK || st == TAP_SKIP || st == TAP_TODO)
			continue;
		len += (size_t)snprintf(reason + len, cap - len, "%s%s", first ? ": " : ", ",
					p->tests[i].name);
		first = 0;
	}
	if (p->planned > p->nr_tests && len < cap)
		snprintf(reason + len, cap - len, " (%d planned, %d reported)", p->planned, p->nr_tests);
}

static enum cell_status judge_tap(const struct tap_parser *p, const char *end, char *reason,
				  size_t cap)
{
	const struct tap_test *t;

	if (!strcmp(end, "crashed")) {
		t = first_with(p, TAP_ERROR);
		snprintf(reason, cap, "guest crashed: %s", t ? t->reason : "see console.log");
		return CELL_FAIL;
	}
	if (!strcmp(end, "interrupted")) {
		snprintf(reason, cap, "interrupted");
		return CELL_ERROR;
	}
	if ((t = first_with(p, TAP_TIMEOUT)) || !strcmp(end, "timeout")) {
		snprintf(reason, cap, "%s%s%s", t ? t->name : "vm", t ? ": " : " timeout",
			 t ? t->reason : "");
		return CELL_TIMEOUT;
	}
	if ((t = first_with(p, TAP_ERROR))) {
		snprintf(reason, cap, "%s: %s", t->name, t->reason);
		return CELL_ERROR;
	}
	if (!p->version_seen && !p->nr_tests) {
		snprintf(reason, cap, "no TAP from the guest");
		return CELL_ERROR;
	}
	if (!tap_failed(p))
		return CELL_PASS;
	failed_tests(p, reason, cap);
	return CELL_FAIL;
}

enum cell_status report_classify(int exit_code, int watchdog, const char *end, const char *tap,
				 size_t tap_len, const char *last_log, char *reason, size_t cap)
{
	struct tap_parser *p;
	enum cell_status st;

	reason[0] = '\0';
	if (watchdog) {
		snprintf(reason, cap, "the matrix stopped `numalab run` at its deadline");
		return CELL_TIMEOUT;
	}
	if (exit_code == 2 || exit_code == 3) {
		snprintf(reason, cap, "%s%s", exit_code == 2 ? "bad input: " : "",
			 *last_log ? last_log : "numalab run exited 3");
		return CELL_ERROR;
	}
	if (exit_code > 3) {
		snprintf(reason, cap, "numalab run exited %d%s", exit_code,
			 exit_code > 128 ? " (killed by a signal)" : "");
		return CELL_ERROR;
	}
	p = xcalloc(1, sizeof(*p));
	tap_init(p);
	if (tap)
		tap_feed(p, tap, tap_len);
	tap_end(p);
	st = judge_tap(p, end ? end : "", reason, cap);
	free(p);
	if (exit_code == 0 && st != CELL_PASS)
		snprintf(reason + strlen(reason), cap - strlen(reason), " (though numalab run exited 0)");
	if (exit_code == 1 && st == CELL_PASS) {
		snprintf(reason, cap, "numalab run exited 1: %s", last_log);
		st = CELL_FAIL;
	}
	return st;
}

/* One testcase (JUnit) or flat TAP line: a leaf of the cell's TAP, or one made up for the cell. */
struct tcase {
	int depth;                  /* enclosing tests */
	const char *const *suites;  /* their names (tap.h's walk) */
	const char *name;
	enum tap_status status;
	const char *reason;         /* its directive's */
	const char *comment;        /* its result's comment ("exit 2"), "" none */
	const char *why;            /* one line: tap_reason(), or the made-up verdict's reason */
	const char *yaml;           /* its TAP YAML block, NULL none */
	const char *output;         /* what it printed (tap.h), "" none */
	const char *diags;          /* its own diagnostic lines, "" none */
	int made_up;                /* the cell's own verdict, which its TAP does not show */
};

typedef void (*case_fn)(void *ctx, const struct tcase *tc);

struct walk {
	case_fn fn;
	void *ctx;
	int failed, harness;    /* failing testcases; of those, TIMEOUT/ERROR ones */
	struct buf trailing;    /* diagnostics after the last top-level result: a made-up case's */
};

/* What report_tap() writes for a cell with no TAP, and so what its testcases come from. */
static const char no_tap[] = "KTAP version 1\n# no TAP from this cell\n1..0\n";

static void emit(struct walk *w, const struct tcase *tc)
{
	if (tap_status_failing(tc->status))
		w->failed++;
	if (tc->status == TAP_TIMEOUT || tc->status == TAP_ERROR)
		w->harness++;
	w->fn(w->ctx, tc);
}

static void walk_leaf(void *ctx, const struct tap_node *l)
{
	char why[TAP_LINE_MAX + 1];
	struct tcase tc = { l->depth, l->suites, l->t->name, l->t->status, l->t->reason, l->comment,
			    why, l->yaml, l->output, l->diags, 0 };

	tap_reason(l, why, sizeof(why));
	emit(ctx, &tc);
}

/*
 * A made-up case stands where the cell's own result stands in report_tap()'s
 * stream, so it has what that result's own diagnostics would be there: those
 * after the cell's last top-level result or "# Subtest:" line.
 */
static void top_level_result(void *ctx, const struct tap_node *n)
{
	struct buf *trailing = &((struct walk *)ctx)->trailing;

	if (n->depth == 0) {
		trailing->len = 0;
		buf_add(trailing, "", 0);   /* buf_str() reads "" again */
	}
}

static void note_trailing(void *ctx, const struct tap_node *n)
{
	if (strncmp(n->text, TAP_SUBTEST, strlen(TAP_SUBTEST)))   /* as tap.h's own diagnostics */
		buf_addf(&((struct walk *)ctx)->trailing, "%s\n", n->text);
}

static const struct tap_walk_ops leaves = {
	.on_suite = top_level_result,
	.on_suite_end = top_level_result,
	.on_test = top_level_result,
	.on_diag = note_trailing,
	.on_leaf = walk_leaf,
};

/* Every testcase of cell c, in order, to fn: the leaves of its TAP (tap_walk). */
static void walk_cell(const struct report_cell *c, case_fn fn, void *ctx)
{
	struct walk w = { fn, ctx, 0, 0, BUF_INIT };
	char reason[sizeof(((struct tap_test *)0)->reason)];
	struct tcase synth = { 0, NULL, "", TAP_NOT_OK, reason, "", reason, NULL, "", "", 1 };
	int has_tap = c->tap && c->tap_len;

	/* As long as a TAP reason: report_tap() writes it on the cell's line. */
	snprintf(reason, sizeof(reason), "%s", c->reason ? c->reason : "");

	tap_walk(has_tap ? c->tap : no_tap, has_tap ? c->tap_len : strlen(no_tap), &leaves, &w);
	synth.diags = buf_str(&w.trailing);
	synth.output = synth.diags;
	/* The cell's verdict must show among its testcases even when its TAP does not. */
	if (c->status == CELL_FAIL && !w.failed) {
		synth.name = "cell";
		emit(&w, &synth);
	} else if ((c->status == CELL_TIMEOUT || c->status == CELL_ERROR) && !w.harness) {
		synth.name = "harness";
		synth.status = c->status == CELL_TIMEOUT ? TAP_TIMEOUT : TAP_ERROR;
		emit(&w, &synth);
	}
	buf_free(&w.trailing);
}

static void count_case(void *ctx, const struct tcase *tc)
{
	struct report_counts *n = ctx;

	n->tests++;
	if (tc->status == TAP_OK)
		n->passed++;
	else if (tc->status == TAP_SKIP || tc->status == TAP_TODO)
		n->skipped++;
	else if (tc->status == TAP_TIMEOUT || tc->status == TAP_ERROR)
		n->errors++;
	else
		n->failed++;
}

void report_count(const struct report_cell *c, struct report_counts *out)
{
	memset(out, 0, sizeof(*out));
	walk_cell(c, count_case, out);
}

/* Printable ASCII of s, one line. */
static void add_line(struct buf *out, const char *s)
{
	for (; s && *s; s++)
		buf_add(out, (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? s : "?", 1);
}

static void indent_line(void *ctx, const char *line)
{
	buf_addf(ctx, "    %s\n", line);
}

void report_tap(const struct report_cell *cells, int n, const char *title, struct buf *out)
{
	buf_addstr(out, "KTAP version 1\n# numalab matrix: ");
	add_line(out, title);
	buf_addf(out, "\n1..%d\n", n);
	for (int i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		struct tap_parser *tap = xcalloc(1, sizeof(*tap));

		buf_addf(out, "    " TAP_SUBTEST "%s\n", c->id);
		tap_init(tap);
		tap->on_line = indent_line;
		tap->ctx = out;
		if (c->tap && c->tap_len)
			tap_feed(tap, c->tap, c->tap_len);
		else
			tap_feed(tap, no_tap, strlen(no_tap));
		tap_end(tap);
		free(tap);
		buf_addf(out, "%s %d %s", c->status == CELL_PASS ? "ok" : "not ok", i + 1, c->id);
		if (c->status == CELL_TIMEOUT || c->status == CELL_ERROR) {
			buf_addstr(out, c->status == CELL_TIMEOUT ? " # TIMEOUT " : " # ERROR ");
			add_line(out, c->reason);
		}
		buf_addstr(out, "\n");
		if (c->status == CELL_FAIL && c->reason && *c->reason) {
			buf_addstr(out, "# ");
			add_line(out, c->reason);
			buf_addstr(out, "\n");
		}
	}
}

/* ---- flat TAP ---- */

struct flat {
	struct buf *out;
	const char *prefix;     /* the cell's id, NULL none */
	int n;
};

/* A path part: TAP reads '#' as the start of a directive unless escaped. */
static void flat_name(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '#' || *s == '\\')
			buf_addstr(out, "\\");
		buf_add(out, s, 1);
	}
}

/*
 * A cell's made-up verdict is the cell's own line, as report_tap() writes it
 * (`not ok N ID`, `# TIMEOUT why`), so flattening matrix.tap gives flat.tap.
 */
static void flat_case(void *ctx, const struct tcase *tc)
{
	struct flat *f = ctx;
	struct buf *out = f->out;

	buf_addf(out, "%s %d - ", tc->status == TAP_OK || tc->status == TAP_SKIP ? "ok" : "not ok", ++f->n);
	if (f->prefix)
		flat_name(out, f->prefix);
	for (int i = 0; i < tc->depth; i++) {
		buf_addstr(out, i || f->prefix ? "/" : "");
		flat_name(out, tc->suites[i]);
	}
	if (!tc->made_up) {
		buf_addstr(out, tc->depth || f->prefix ? "/" : "");
		flat_name(out, tc->name);
	}
	/* TIMEOUT and ERROR are no TAP 13 directives: consumers see a failure, with the word. */
	if (tc->status != TAP_OK && tc->status != TAP_NOT_OK) {
		buf_addf(out, " # %s%s", tap_status_name(tc->status), *tc->reason ? " " : "");
		if (tc->made_up)
			add_line(out, tc->reason);
		else
			buf_addstr(out, tc->reason);
	} else if (*tc->comment) {	/* /init's "# exit 2", "# signal 9" */
		buf_addf(out, " # %s", tc->comment);
	}
	buf_addstr(out, "\n");
	if (tc->yaml) {
		buf_addstr(out, "  ---\n");
		for (const char *l = tc->yaml; *l; l = next_line(l))
			buf_addf(out, "  %.*s\n", (int)strcspn(l, "\n"), l);
		buf_addstr(out, "  ...\n");
	}
	/* After the block, which must follow its result: what the test said, as TAP 13 diagnostics. */
	for (const char *l = tc->diags; *l; l = next_line(l))
		buf_addf(out, "%.*s\n", (int)strcspn(l, "\n"), l);
}

void report_flat_tap(const struct report_cell *cells, int n, struct buf *out)
{
	struct flat f = { out, NULL, 0 };

	buf_addstr(out, "TAP version 13\n");
	for (int i = 0; i < n; i++) {
		f.prefix = cells[i].id;
		walk_cell(&cells[i], flat_case, &f);
	}
	buf_addf(out, "1..%d\n", f.n);
}

void report_flatten(const char *tap, size_t len, struct buf *out)
{
	struct flat f = { out, NULL, 0 };
	struct walk w = { flat_case, &f, 0, 0, BUF_INIT };

	buf_addstr(out, "TAP version 13\n");
	tap_walk(tap, len, &leaves, &w);
	buf_free(&w.trailing);
	buf_addf(out, "1..%d\n", f.n);
}

/* Length of a well-formed UTF-8 sequence allowed in XML 1.0 at s, or 0. */
static size_t xml_utf8(const unsigned char *s)
{
	unsigned long cp;
	size_t len;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' ? 1 : 0;
	len = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? (s[0] < 0xf0 ? 3 : 0) : s[0] >= 0xc2 ? 2 : 0;
	if (!len)
		return 0;
	cp = s[0] & (0xff >> (len + 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

void report_xml_escape(struct buf *out, const char *s)
{
	while (s && *s) {
		size_t len = xml_utf8((const unsigned char *)s);

		if (*s == '&')
			buf_addstr(out, "&amp;");
		else if (*s == '<')
			buf_addstr(out, "&lt;");
		else if (*s == '>')
			buf_addstr(out, "&gt;");
		else if (*s == '"')
			buf_addstr(out, "&quot;");
		else if (*s == '\'')
			buf_addstr(out, "&apos;");
		else if (len)
			buf_add(out, s, len);
		else
			buf_addstr(out, "?");
		s += len ? len : 1;
	}
}

struct junit_cell {
	const char *id;
	struct buf cases;
	struct report_counts n;
};

static void junit_case(void *ctx, const struct tcase *tc)
{
	struct junit_cell *j = ctx;
	struct buf *b = &j->cases;
	const char *element = NULL;

	count_case(&j->n, tc);
	buf_addstr(b, "    <testcase classname=\"");
	report_xml_escape(b, j->id);
	for (int i = 0; i < tc->depth; i++) {
		buf_addstr(b, ".");
		report_xml_escape(b, tc->suites[i]);
	}
	buf_addstr(b, "\" name=\"");
	report_xml_escape(b, tc->name);
	buf_addstr(b, "\"");
	if (tc->status == TAP_SKIP || tc->status == TAP_TODO)
		element = "skipped";
	else if (tc->status == TAP_TIMEOUT || tc->status == TAP_ERROR)
		element = "error";
	else if (tc->status != TAP_OK)
		element = "failure";
	if (!element && !*tc->output) {
		buf_addstr(b, "/>\n");
		return;
	}
	buf_addstr(b, ">\n");
	if (element) {
		buf_addf(b, "      <%s type=\"%s\" message=\"", element, tap_status_name(tc->status));
		report_xml_escape(b, *tc->why || !tap_status_failing(tc->status) ? tc->why : "failed");
		buf_addstr(b, "\"/>\n");
	}
	if (*tc->output) {
		/* Escaped line by line: no CDATA section, so no "]]>" to end one early. */
		buf_addstr(b, "      <system-out>");
		for (const char *l = tc->output; *l; l = next_line(l)) {
			char *line = xprintf("%.*s", (int)strcspn(l, "\n"), l);

			report_xml_escape(b, line);
			buf_addstr(b, "\n");
			free(line);
		}
		buf_addstr(b, "</system-out>\n");
	}
	buf_addstr(b, "    </testcase>\n");
}

void report_junit(const struct report_cell *cells, int n, const char *name, struct buf *out)
{
	struct junit_cell *j = xcalloc((size_t)(n ? n : 1), sizeof(*j));
	struct report_counts all = { 0 };
	double time_s = 0;

	for (int i = 0; i < n; i++) {
		j[i].id = cells[i].id;
		walk_cell(&cells[i], junit_case, &j[i]);
		all.tests += j[i].n.tests;
		all.failed += j[i].n.failed;
		all.errors += j[i].n.errors;
		all.skipped += j[i].n.skipped;
		time_s += cells[i].time_s > 0 ? cells[i].time_s : 0;
	}
	buf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
	report_xml_escape(out, name);
	buf_addf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.1f\">\n",
		 all.tests, all.failed, all.errors, all.skipped, time_s);
	for (int i = 0; i < n; i++) {
		buf_addstr(out, "  <testsuite name=\"");
		report_xml_escape(out, cells[i].id);
		buf_addf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.1f\">\n",
			 j[i].n.tests, j[i].n.failed, j[i].n.errors, j[i].n.skipped,
			 cells[i].time_s > 0 ? cells[i].time_s : 0);
		buf_add(out, buf_str(&j[i].cases), j[i].cases.len);
		buf_addstr(out, "  </testsuite>\n");
		buf_free(&j[i].cases);
	}
	buf_addstr(out, "</testsuites>\n");
	free(j);
}

void report_summary(const struct report_cell *cells, int n, struct buf *out)
{
	int width = 4, by_status[CELL_ERROR + 1] = { 0 };

	for (int i = 0; i < n; i++)
		if ((int)strlen(cells[i].id) > width)
			width = (int)strlen(cells[i].id);
	buf_addf(out, "%-*s  %-7s %5s %5s %5s %8s  %s\n", width, "cell", "result", "pass", "fail",
		 "skip", "time", "why / where");
	for (int i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		struct report_counts k;

		report_count(c, &k);
		by_status[c->status]++;
		buf_addf(out, "%-*s  %-7s %5d %5d %5d ", width, c->id, cell_status_name(c->status),
			 k.passed, k.failed + k.errors, k.skipped);
		if (c->time_s >= 0)
			buf_addf(out, "%7.1fs  ", c->time_s);
		else
			buf_addf(out, "%8s  ", "-");
		add_line(out, c->status != CELL_PASS && c->reason && *c->reason ? c->reason : c->dir);
		buf_addstr(out, "\n");
	}
	buf_addf(out, "%d %s: %d pass, %d fail, %d timeout, %d error\n", n, plural((size_t)n, "cell", "cells"),
		 by_status[CELL_PASS],
		 by_status[CELL_FAIL], by_status[CELL_TIMEOUT], by_status[CELL_ERROR]);
}
