#include "analysis/compare_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- making untrusted text safe ---- */

/* Length of the valid UTF-8 sequence at s that is not a C1 control, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;

	if (s[0] < 0xc2 || s[0] > 0xf4 || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

void compare_report_clean(struct buf *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t used = 0;

	while (*p) {
		size_t len = *p < 0x80 ? 1 : utf8_len(p);
		int bad = len == 0 || *p < 0x20 || *p == 0x7f;

		if (bad)
			len = 1;
		if (max && used + (bad ? 1 : len) > max)
			break;
		if (bad)
			buf_add(out, "?", 1);
		else
			buf_add(out, p, len);
		used += bad ? 1 : len;
		p += len;
	}
}

/* Clean, then escape each byte listed in specials with its replacement. */
static void escaped(struct buf *out, const char *s, const char *specials, const char *const *with)
{
	struct buf clean = BUF_INIT;

	compare_report_clean(&clean, s, 0);
	for (const char *p = buf_str(&clean); *p; p++) {
		const char *hit = strchr(specials, *p);

		if (hit)
			buf_addstr(out, with[hit - specials]);
		else
			buf_add(out, p, 1);
	}
	buf_free(&clean);
}

void compare_report_html_text(struct buf *out, const char *s)
{
	static const char *const with[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };

	escaped(out, s, "&<>\"'", with);
}

void compare_report_json_str(struct buf *out, const char *s)
{
	static const char *const with[] = { "\\\"", "\\\\" };

	if (!s) {
		buf_addstr(out, "null");
		return;
	}
	buf_addstr(out, "\"");
	escaped(out, s, "\"\\", with);
	buf_addstr(out, "\"");
}

void compare_report_tap_text(struct buf *out, const char *s)
{
	static const char *const with[] = { "\\#", "\\\\" };

	escaped(out, s, "#\\", with);
}

/* ---- shared wording ---- */

static void row_label(struct buf *out, const char *topology, const char *suite, const char *test)
{
	buf_addf(out, "%s %s%s%s", topology, suite, test[0] ? "/" : "", test);
}

static const char *method(const struct comparison *c)
{
	return c->opts.bootstrap ? "bootstrap interval (uncorrected)"
	       : !c->opts.correct_bh ? "Welch's t-test, p (uncorrected)"
	       : "Welch's t-test, q (p adjusted by Benjamini-Hochberg over the metrics tested)";
}

static void counts(struct buf *out, const unsigned *n)
{
	buf_addf(out, "%u pass %u fail %u skip", n[CMP_PASS], n[CMP_FAIL], n[CMP_SKIP]);
}

static void change_text(struct buf *out, double pct)
{
	if (isnan(pct))
		buf_addstr(out, "-");
	else if (isinf(pct))
		buf_addf(out, "%s from 0", pct > 0 ? "up" : "down");
	else
		buf_addf(out, "%+.1f%%", pct);
}

static void summary_line(const struct comparison *c, struct buf *out)
{
	buf_addf(out, "%zu functional %s; %zu %s: %zu regressed, %zu changed, "
		 "%zu improved, %zu with too few samples to test (n < 2 on a side)",
		 c->nr_functional, plural(c->nr_functional, "difference", "differences"), c->nr_metrics,
		 plural(c->nr_metrics, "metric", "metrics"), c->nr_regressed, c->nr_changed,
		 c->nr_improved, c->nr_few);
}

/* ---- text ---- */

#define LABEL_WIDTH 58

static void text_metric(const struct cmp_metric *m, struct buf *out)
{
	struct buf label = BUF_INIT, cut = BUF_INIT;

	row_label(&label, m->topology, m->suite, m->test);
	buf_addf(&label, " %s", m->metric);
	compare_report_clean(&cut, buf_str(&label), LABEL_WIDTH);
	buf_addf(out, "  %-11s %-*s A %.4g+-%.2g (n %zu)  B %.4g+-%.2g (n %zu)  ",
		 cmp_verdict_name(m->verdict), LABEL_WIDTH, buf_str(&cut), m->sa.mean, m->sa.stddev,
		 m->sa.n, m->sb.mean, m->sb.stddev, m->sb.n);
	change_text(out, m->change_pct);
	if (m->welch_valid)
		buf_addf(out, "  p %.3g q %.3g", m->p, m->q);
	if (m->ci_valid)
		buf_addf(out, "  CI [%+.1f%%, %+.1f%%]", m->ci_lo, m->ci_hi);
	buf_addstr(out, "\n");
	buf_free(&label);
	buf_free(&cut);
}

static size_t count_skip_changes(const struct comparison *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr_tests; i++)
		n += c->tests[i].change == CMP_TEST_SKIPS;
	return n;
}

/* The functional differences (failing = 1) or the skip changes (0). */
static void text_tests(const struct comparison *c, int failing, struct buf *out)
{
	for (size_t i = 0; i < c->nr_tests; i++) {
		const struct cmp_test *t = &c->tests[i];
		struct buf line = BUF_INIT;

		if (t->change == CMP_TEST_SAME || cmp_change_fails(t->change) != failing)
			continue;
		buf_addf(&line, "  %-12s ", cmp_change_name(t->change));
		row_label(&line, t->topology, t->suite, t->test);
		buf_addstr(&line, "  A: ");
		counts(&line, t->a);
		buf_addstr(&line, "  B: ");
		counts(&line, t->b);
		if (t->why_b || t->why_a)
			buf_addf(&line, "  (%s)", t->why_b ? t->why_b : t->why_a);
		compare_report_clean(out, buf_str(&line), 240);
		buf_addstr(out, "\n");
		compare_report_text_detail(out, t->detail_b ? t->detail_b : t->detail_a, "      | ");
		buf_free(&line);
	}
}

void compare_report_text_detail(struct buf *out, const char *detail, const char *prefix)
{
	for (const char *l = detail ? detail : ""; *l; l = next_line(l)) {
		char *line = xprintf("%.*s", (int)strcspn(l, "\n"), l);

		buf_addstr(out, prefix);
		compare_report_clean(out, line, 200);
		buf_addstr(out, "\n");
		free(line);
	}
}

void compare_report_fact_values(struct buf *out, const struct strvec *v)
{
	for (size_t i = 0; i < v->nr; i++)
		buf_addf(out, "%s\"%s\"", i ? ", " : "", v->items[i]);
	if (!v->nr)
		buf_addstr(out, "-");
}

/* Facts that differ (differing = 1) or every one. */
static void text_facts(const struct comparison *c, struct buf *out)
{
	buf_addf(out, "\nBehaviour that is not a number (%zu %s, %zu differ):\n", c->nr_facts,
		 plural(c->nr_facts, "fact", "facts"), c->nr_facts_differ);
	for (size_t i = 0; i < c->nr_facts; i++) {
		const struct cmp_fact *f = &c->facts[i];
		struct buf line = BUF_INIT;

		buf_addf(&line, "  %-8s ", f->differs ? "differs" : "same");
		row_label(&line, f->topology, f->suite, f->test);
		buf_addf(&line, " %s  A: ", f->name);
		compare_report_fact_values(&line, &f->a);
		buf_addstr(&line, "  B: ");
		compare_report_fact_values(&line, &f->b);
		compare_report_clean(out, buf_str(&line), 300);
		buf_addstr(out, "\n");
		buf_free(&line);
	}
}

void compare_report_text(const struct comparison *c, int all, struct buf *out)
{
	size_t shown = 0;

	buf_addstr(out, "numalab compare: A ");
	compare_report_clean(out, c->a.root, 0);
	buf_addf(out, " (%zu %s), B ", c->a.nr_cells, plural(c->a.nr_cells, "cell", "cells"));
	compare_report_clean(out, c->b.root, 0);
	buf_addf(out, " (%zu %s)\n", c->b.nr_cells, plural(c->b.nr_cells, "cell", "cells"));
	for (size_t i = 0; i < c->notes.nr; i++) {
		buf_addstr(out, "note: ");
		compare_report_clean(out, c->notes.items[i], 0);
		buf_addstr(out, "\n");
	}
	buf_addf(out, "significant: %s at alpha %g and a change of at least %g%%\n\n", method(c),
		 c->opts.alpha, c->opts.threshold_pct);
	buf_addf(out, "Functional differences: %zu\n", c->nr_functional);
	text_tests(c, 1, out);
	if (count_skip_changes(c)) {
		buf_addf(out, "Skipped on one side, passed on the other (not counted): %zu\n",
			 count_skip_changes(c));
		text_tests(c, 0, out);
	}
	buf_addf(out, "\nMetrics (%s):\n", all ? "all" : "regressed, changed or improved; --all for every one");
	for (size_t i = 0; i < c->nr_metrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (all || m->verdict == CMP_REGRESSED || m->verdict == CMP_CHANGED || m->verdict == CMP_IMPROVED) {
			text_metric(m, out);
			shown++;
		}
	}
	if (!shown)
		buf_addstr(out, "  (none)\n");
	if (c->nr_facts)
		text_facts(c, out);
	buf_addstr(out, "\n");
	summary_line(c, out);
	buf_addstr(out, "\n");
}

/* ---- TAP ---- */

void compare_report_tap(const struct comparison *c, struct buf *out)
{
	size_t n = 0;

	buf_addstr(out, "TAP version 13\n# numalab compare: A ");
	compare_report_tap_text(out, c->a.root);
	buf_addstr(out, ", B ");
	compare_report_tap_text(out, c->b.root);
	buf_addstr(out, "\n");
	for (size_t i = 0; i < c->notes.nr; i++) {
		buf_addstr(out, "# note: ");
		compare_report_tap_text(out, c->notes.items[i]);
		buf_addstr(out, "\n");
	}
	buf_addf(out, "1..%zu\n", c->nr_tests + c->nr_metrics);
	for (size_t i = 0; i < c->nr_tests; i++) {
		const struct cmp_test *t = &c->tests[i];
		struct buf label = BUF_INIT;

		buf_addf(out, "%s %zu - functional ", cmp_change_fails(t->change) ? "not ok" : "ok", ++n);
		row_label(&label, t->topology, t->suite, t->test);
		buf_addf(&label, ": %s (A ", cmp_change_name(t->change));
		counts(&label, t->a);
		buf_addstr(&label, ", B ");
		counts(&label, t->b);
		buf_addstr(&label, ")");
		compare_report_tap_text(out, buf_str(&label));
		buf_addstr(out, "\n");
		buf_free(&label);
	}
	for (size_t i = 0; i < c->nr_metrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		struct buf label = BUF_INIT;

		buf_addf(out, "%s %zu - ", cmp_verdict_fails(m->verdict) ? "not ok" : "ok", ++n);
		row_label(&label, m->topology, m->suite, m->test);
		buf_addf(&label, " %s: %s ", m->metric, cmp_verdict_name(m->verdict));
		change_text(&label, m->change_pct);
		if (m->welch_valid)
			buf_addf(&label, " p %.3g q %.3g", m->p, m->q);
		compare_report_tap_text(out, buf_str(&label));
		if (m->verdict == CMP_FEW_SAMPLES)
			buf_addf(out, " # SKIP too few samples to test (A n %zu, B n %zu)", m->sa.n, m->sb.n);
		buf_addstr(out, "\n");
		buf_free(&label);
	}
	buf_addstr(out, "# ");
	summary_line(c, out);
	buf_addstr(out, "\n");
}

/* ---- JSON ---- */

static void json_num(struct buf *out, double v)
{
	if (isfinite(v))
		buf_addf(out, "%.15g", v);
	else
		buf_addstr(out, "null");
}

static void json_side(const struct cmp_side *s, struct buf *out)
{
	buf_addstr(out, "{\"root\": ");
	compare_report_json_str(out, s->root);
	buf_addstr(out, ", \"cells\": [");
	for (size_t i = 0; i < s->nr_cells; i++) {
		const struct cmp_cell *cell = &s->cells[i];

		buf_addstr(out, i ? ",\n    {\"dir\": " : "\n    {\"dir\": ");
		compare_report_json_str(out, cell->dir);
		buf_addstr(out, ", \"topology\": ");
		compare_report_json_str(out, cell->topology);
		buf_addstr(out, ", \"kernel\": ");
		compare_report_json_str(out, cell->kernel);
		buf_addstr(out, ", \"backend\": ");
		compare_report_json_str(out, cell->backend);
		buf_addstr(out, ", \"qemu\": ");
		compare_report_json_str(out, cell->qemu);
		buf_addstr(out, ", \"accel\": ");
		compare_report_json_str(out, cell->accel);
		buf_addstr(out, ", \"host_numa\": ");
		compare_report_json_str(out, cell->host_numa);
		buf_addf(out, ", \"emulated_numa\": %s, \"run_state\": ", cell->host_numa ? "false" : "true");
		compare_report_json_str(out, cell->run_state);
		buf_addstr(out, "}");
	}
	buf_addstr(out, "]}");
}

static void json_key(struct buf *out, const char *topology, const char *suite, const char *test,
		     const char *placement)
{
	buf_addstr(out, "{\"topology\": ");
	compare_report_json_str(out, topology);
	buf_addstr(out, ", \"suite\": ");
	compare_report_json_str(out, suite);
	buf_addstr(out, ", \"test\": ");
	compare_report_json_str(out, test);
	buf_addstr(out, ", \"placement\": ");
	compare_report_json_str(out, placement);
}

static void json_counts(struct buf *out, const unsigned *n, const char *why, const char *detail)
{
	buf_addf(out, "{\"pass\": %u, \"fail\": %u, \"skip\": %u, \"why\": ", n[CMP_PASS], n[CMP_FAIL],
		 n[CMP_SKIP]);
	compare_report_json_str(out, why);
	buf_addstr(out, ", \"detail\": [");
	for (const char *l = detail ? detail : ""; *l; l = next_line(l)) {
		char *line = xprintf("%.*s", (int)strcspn(l, "\n"), l);

		buf_addstr(out, l == detail ? "" : ", ");
		compare_report_json_str(out, line);
		free(line);
	}
	buf_addstr(out, "]}");
}

void compare_report_json_test(const struct cmp_test *t, struct buf *out)
{
	json_key(out, t->topology, t->suite, t->test, t->placement);
	buf_addf(out, ", \"change\": \"%s\", \"a\": ", cmp_change_name(t->change));
	json_counts(out, t->a, t->why_a, t->detail_a);
	buf_addstr(out, ", \"b\": ");
	json_counts(out, t->b, t->why_b, t->detail_b);
	buf_addstr(out, "}");
}

static void json_values(struct buf *out, const struct strvec *v)
{
	buf_addstr(out, "[");
	for (size_t i = 0; i < v->nr; i++) {
		buf_addstr(out, i ? ", " : "");
		compare_report_json_str(out, v->items[i]);
	}
	buf_addstr(out, "]");
}

void compare_report_json_fact(const struct cmp_fact *f, struct buf *out)
{
	json_key(out, f->topology, f->suite, f->test, NULL);
	buf_addstr(out, ", \"fact\": ");
	compare_report_json_str(out, f->name);
	buf_addf(out, ", \"differs\": %s, \"a\": ", f->differs ? "true" : "false");
	json_values(out, &f->a);
	buf_addstr(out, ", \"b\": ");
	json_values(out, &f->b);
	buf_addstr(out, "}");
}

static void json_sample(struct buf *out, const double *x, size_t n, double mean, double median,
			double stddev, double min, double max)
{
	buf_addf(out, "{\"n\": %zu, \"mean\": ", n);
	json_num(out, n ? mean : NAN);
	buf_addstr(out, ", \"median\": ");
	json_num(out, n ? median : NAN);
	buf_addstr(out, ", \"stddev\": ");
	json_num(out, n > 1 ? stddev : NAN);
	buf_addstr(out, ", \"min\": ");
	json_num(out, n ? min : NAN);
	buf_addstr(out, ", \"max\": ");
	json_num(out, n ? max : NAN);
	buf_addstr(out, ", \"values\": [");
	for (size_t i = 0; i < n; i++) {
		buf_addstr(out, i ? ", " : "");
		json_num(out, x[i]);
	}
	buf_addstr(out, "]}");
}

void compare_report_json_metric(const struct cmp_metric *m, struct buf *out)
{
	json_key(out, m->topology, m->suite, m->test, m->placement);
	buf_addstr(out, ", \"metric\": ");
	compare_report_json_str(out, m->metric);
	buf_addf(out, ", \"direction\": \"%s\", \"verdict\": \"%s\", \"a\": ",
		 cmp_direction_name(m->direction), cmp_verdict_name(m->verdict));
	json_sample(out, m->a, m->sa.n, m->sa.mean, m->sa.median, m->sa.stddev, m->sa.min, m->sa.max);
	buf_addstr(out, ", \"b\": ");
	json_sample(out, m->b, m->sb.n, m->sb.mean, m->sb.median, m->sb.stddev, m->sb.min, m->sb.max);
	buf_addstr(out, ", \"change_pct\": ");
	json_num(out, m->change_pct);
	buf_addstr(out, ", \"welch\": ");
	if (m->welch_valid) {
		buf_addstr(out, "{\"t\": ");
		json_num(out, m->t);
		buf_addstr(out, ", \"df\": ");
		json_num(out, m->df);
		buf_addstr(out, ", \"p\": ");
		json_num(out, m->p);
		buf_addstr(out, ", \"q\": ");
		json_num(out, m->q);
		buf_addstr(out, "}");
	} else {
		buf_addstr(out, "null");
	}
	buf_addstr(out, ", \"bootstrap_ci_pct\": ");
	if (m->ci_valid) {
		buf_addstr(out, "[");
		json_num(out, m->ci_lo);
		buf_addstr(out, ", ");
		json_num(out, m->ci_hi);
		buf_addstr(out, "]");
	} else {
		buf_addstr(out, "null");
	}
	buf_addstr(out, "}");
}

void compare_report_json(const struct comparison *c, struct buf *out)
{
	int emulated = 0;

	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < (side ? c->b.nr_cells : c->a.nr_cells); i++)
			emulated |= !(side ? c->b.cells : c->a.cells)[i].host_numa;
	buf_addf(out, "{\n  \"options\": {\"threshold_pct\": %.17g, \"alpha\": %.17g, \"method\": \"%s\", "
		 "\"correction\": \"%s\", \"iterations\": %u, \"seed\": %llu, \"force\": %s},\n",
		 c->opts.threshold_pct, c->opts.alpha, c->opts.bootstrap ? "bootstrap" : "welch",
		 !c->opts.correct_bh || c->opts.bootstrap ? "none" : "benjamini-hochberg",
		 c->opts.iterations, (unsigned long long)c->opts.seed, c->opts.force ? "true" : "false");
	buf_addf(out, "  \"emulated_numa\": %s,\n  \"notes\": [", emulated ? "true" : "false");
	for (size_t i = 0; i < c->notes.nr; i++) {
		buf_addstr(out, i ? ",\n    " : "\n    ");
		compare_report_json_str(out, c->notes.items[i]);
	}
	buf_addstr(out, "],\n  \"a\": ");
	json_side(&c->a, out);
	buf_addstr(out, ",\n  \"b\": ");
	json_side(&c->b, out);
	buf_addf(out, ",\n  \"summary\": {\"functional\": %zu, \"metrics\": %zu, \"regressed\": %zu, "
		 "\"changed\": %zu, \"improved\": %zu, \"few_samples\": %zu, \"exit\": %d},\n  \"tests\": [",
		 c->nr_functional, c->nr_metrics, c->nr_regressed, c->nr_changed, c->nr_improved,
		 c->nr_few, compare_result(c) == COMPARE_CHANGED);   /* "exit": what `numalab compare` exits with */
	for (size_t i = 0; i < c->nr_tests; i++) {
		const struct cmp_test *t = &c->tests[i];

		buf_addstr(out, i ? ",\n    " : "\n    ");
		compare_report_json_test(t, out);
	}
	buf_addstr(out, "],\n  \"metrics\": [");
	for (size_t i = 0; i < c->nr_metrics; i++) {
		buf_addstr(out, i ? ",\n    " : "\n    ");
		compare_report_json_metric(&c->metrics[i], out);
	}
	buf_addstr(out, "],\n  \"facts\": [");
	for (size_t i = 0; i < c->nr_facts; i++) {
		buf_addstr(out, i ? ",\n    " : "\n    ");
		compare_report_json_fact(&c->facts[i], out);
	}
	buf_addstr(out, "]\n}\n");
}

/* ---- HTML ---- */

static const char html_style[] =
	"<style>\n"
	"body{font:14px sans-serif;margin:1.5em;color:#222}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:middle}\n"
	"td.n{text-align:right;font-family:monospace}\n"
	".notes{border:2px solid #c60;background:#fff4e5;padding:.3em 1em}\n"
	".regressed,.changed,.broken,.fixed,.gone,.new{background:#fdd}\n"
	".improved{background:#dfd}\n"
	"svg text{font:10px sans-serif}\n"
	"pre{margin:0;font-size:12px;white-space:pre-wrap}\n"
	".verdict{font-size:18px;padding:.4em 1em;border:2px solid #888}\n"
	".verdict.bad{border-color:#c00;background:#fdd}.verdict.good{border-color:#080;background:#dfd}\n"
	"</style></head><body>\n";

void compare_report_html_head(struct buf *out, const char *title)
{
	buf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "style-src 'unsafe-inline'\">\n<title>");
	compare_report_html_text(out, title);
	buf_addstr(out, "</title>\n");
	buf_addstr(out, html_style);
}



#define CHART_W 260
#define CHART_X0 18
#define CHART_PLOT (CHART_W - CHART_X0 - 8)

struct chart_scale {
	double lo, range;
};

static double chart_x(const struct chart_scale *s, double v)
{
	return CHART_X0 + (v - s->lo) / s->range * CHART_PLOT;
}

static void chart_extend(struct chart_scale *s, double *hi, const double *x, size_t n, double mean,
			 double sd)
{
	for (size_t i = 0; i < n; i++) {
		s->lo = x[i] < s->lo ? x[i] : s->lo;
		*hi = x[i] > *hi ? x[i] : *hi;
	}
	if (n) {
		s->lo = mean - sd < s->lo ? mean - sd : s->lo;
		*hi = mean + sd > *hi ? mean + sd : *hi;
	}
}

/* One side's bar (0 to the mean), its +-1 stddev error bar and its samples at height y. */
static void chart_side(struct buf *out, const struct chart_scale *s, const char *name, int y,
		       const char *fill, const double *x, size_t n, double mean, double sd)
{
	double base = chart_x(s, s->lo > 0 ? s->lo : 0), at = chart_x(s, mean);
	double lo = chart_x(s, mean - sd), hi = chart_x(s, mean + sd);

	buf_addf(out, "<text x=\"2\" y=\"%d\">%s</text>", y + 9, name);
	if (!n)
		return;
	buf_addf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\"/>",
		 at < base ? at : base, y, fabs(at - base), fill);
	buf_addf(out, "<path d=\"M%.1f %dH%.1fM%.1f %dV%dM%.1f %dV%d\" stroke=\"#000\" fill=\"none\"/>",
		 lo, y + 6, hi, lo, y + 2, y + 10, hi, y + 2, y + 10);
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "<circle cx=\"%.1f\" cy=\"%d\" r=\"2\" fill=\"#000\" fill-opacity=\".5\"/>",
			 chart_x(s, x[i]), y + 6);
}

/* A metric's inline SVG (A and B: mean bar, +-1 sd whiskers, samples). */
static void html_chart(const struct cmp_metric *m, struct buf *out)
{
	struct chart_scale s = { 0, 0 };
	double hi = 0;

	chart_extend(&s, &hi, m->a, m->sa.n, m->sa.mean, m->sa.stddev);
	chart_extend(&s, &hi, m->b, m->sb.n, m->sb.mean, m->sb.stddev);
	s.range = hi - s.lo > 0 ? hi - s.lo : 1;
	buf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"34\" "
		 "viewBox=\"0 0 %d 34\" role=\"img\"><title>", CHART_W, CHART_W);
	compare_report_html_text(out, m->metric);
	buf_addf(out, ": A %.4g &#177; %.2g (n %zu), B %.4g &#177; %.2g (n %zu); axis %.4g to %.4g</title>",
		 m->sa.mean, m->sa.stddev, m->sa.n, m->sb.mean, m->sb.stddev, m->sb.n, s.lo, hi);
	chart_side(out, &s, "A", 3, "#8ab", m->a, m->sa.n, m->sa.mean, m->sa.stddev);
	chart_side(out, &s, "B", 19, "#da8", m->b, m->sb.n, m->sb.mean, m->sb.stddev);
	buf_addstr(out, "</svg>");
}

static void html_cell(struct buf *out, const char *s)
{
	buf_addstr(out, "<td>");
	compare_report_html_text(out, s);
	buf_addstr(out, "</td>");
}

static void html_label(struct buf *out, const char *topology, const char *suite, const char *test);

void compare_report_html_why(struct buf *out, const struct cmp_test *t)
{
	const char *why = t->why_b ? t->why_b : t->why_a, *detail = t->detail_b ? t->detail_b : t->detail_a;

	buf_addstr(out, "<td>");
	compare_report_html_text(out, why ? why : "");
	if (detail) {
		buf_addstr(out, "<pre>");
		for (const char *l = detail; *l; l = next_line(l)) {
			char *line = xprintf("%.*s", (int)strcspn(l, "\n"), l);

			compare_report_html_text(out, line);
			buf_addstr(out, "\n");
			free(line);
		}
		buf_addstr(out, "</pre>");
	}
	buf_addstr(out, "</td>");
}

void compare_report_html_facts(const struct comparison *c, const char *topology, struct buf *out)
{
	struct buf tmp = BUF_INIT;

	buf_addstr(out, "<table><tr><th></th><th>topology</th><th>suite</th><th>test</th><th>fact</th>"
		   "<th>A</th><th>B</th></tr>\n");
	for (size_t i = 0; i < c->nr_facts; i++) {
		const struct cmp_fact *f = &c->facts[i];

		if (topology && strcmp(f->topology, topology))
			continue;
		buf_addf(out, "<tr class=\"%s\"><td>%s</td>", f->differs ? "changed" : "same",
			 f->differs ? "differs" : "same");
		html_label(out, f->topology, f->suite, f->test);
		html_cell(out, f->name);
		compare_report_fact_values(&tmp, &f->a);
		html_cell(out, buf_str(&tmp));
		tmp.len = 0;
		compare_report_fact_values(&tmp, &f->b);
		html_cell(out, buf_str(&tmp));
		tmp.len = 0;
		buf_addstr(out, "</tr>\n");
	}
	buf_addstr(out, "</table>\n");
	buf_free(&tmp);
}

static void html_label(struct buf *out, const char *topology, const char *suite, const char *test)
{
	html_cell(out, topology);
	html_cell(out, suite);
	html_cell(out, test);
}

/* The functional differences (failing = 1) or the skip changes (0), under a heading. */
static void html_tests(const struct comparison *c, int failing, const char *heading, size_t n,
		       struct buf *out)
{
	struct buf tmp = BUF_INIT;

	buf_addf(out, "<h2>%s (%zu)</h2>\n", heading, n);
	if (!n)
		return;
	buf_addstr(out, "<table><tr><th>change</th><th>topology</th><th>suite</th><th>test</th>"
		   "<th>A</th><th>B</th><th>why</th></tr>\n");
	for (size_t i = 0; i < c->nr_tests; i++) {
		const struct cmp_test *t = &c->tests[i];

		if (t->change == CMP_TEST_SAME || cmp_change_fails(t->change) != failing)
			continue;
		buf_addf(out, "<tr class=\"%s\"><td>%s</td>", cmp_change_name(t->change),
			 cmp_change_name(t->change));
		html_label(out, t->topology, t->suite, t->test);
		counts(&tmp, t->a);
		html_cell(out, buf_str(&tmp));
		buf_free(&tmp);
		counts(&tmp, t->b);
		html_cell(out, buf_str(&tmp));
		buf_free(&tmp);
		compare_report_html_why(out, t);
		buf_addstr(out, "</tr>\n");
	}
	buf_addstr(out, "</table>\n");
}

void compare_report_html_metric(const struct cmp_metric *m, struct buf *out)
{
	buf_addf(out, "<tr class=\"%s\"><td>%s</td>", cmp_verdict_name(m->verdict),
		 cmp_verdict_name(m->verdict));
	html_label(out, m->topology, m->suite, m->test);
	html_cell(out, m->metric);
	buf_addf(out, "<td class=\"n\">%.4g &#177; %.2g (%zu)</td><td class=\"n\">%.4g &#177; %.2g (%zu)</td>"
		 "<td class=\"n\">", m->sa.mean, m->sa.stddev, m->sa.n, m->sb.mean, m->sb.stddev, m->sb.n);
	change_text(out, m->change_pct);
	buf_addstr(out, "</td><td class=\"n\">");
	if (m->welch_valid)
		buf_addf(out, "%.3g (%.3g)", m->p, m->q);
	buf_addstr(out, "</td><td class=\"n\">");
	if (m->ci_valid)
		buf_addf(out, "%+.1f%% .. %+.1f%%", m->ci_lo, m->ci_hi);
	buf_addstr(out, "</td><td>");
	html_chart(m, out);
	buf_addstr(out, "</td></tr>\n");
}

static void html_cells(const struct cmp_side *s, const char *name, struct buf *out)
{
	for (size_t i = 0; i < s->nr_cells; i++) {
		const struct cmp_cell *cell = &s->cells[i];

		buf_addf(out, "<tr><td>%s</td>", name);
		html_cell(out, cell->dir);
		html_cell(out, cell->topology);
		html_cell(out, cell->kernel ? cell->kernel : "");
		html_cell(out, cell->backend);
		html_cell(out, cell->qemu ? cell->qemu : "");
		html_cell(out, cell->accel ? cell->accel : "");
		html_cell(out, cell->host_numa ? cell->host_numa : "none: emulated");
		buf_addstr(out, "</tr>\n");
	}
}

void compare_report_html(const struct comparison *c, struct buf *out)
{
	struct buf tmp = BUF_INIT;

	compare_report_html_head(out, "numalab compare");
	/* The verdict first: what a reader opens the page for; the caveats right under it. */
	buf_addf(out, "<h1>numalab compare: %s</h1>\n<p class=\"verdict\">",
		 compare_result(c) == COMPARE_SAME ? "the same" : "changed");
	summary_line(c, &tmp);
	compare_report_html_text(out, buf_str(&tmp));
	buf_free(&tmp);
	buf_addf(out, ". Significant: %s at alpha %g and a change of at least %g%%.</p>\n", method(c),
		 c->opts.alpha, c->opts.threshold_pct);
	buf_addstr(out, "<p>A: <code>");
	compare_report_html_text(out, c->a.root);
	buf_addf(out, "</code> (%zu %s) &#8212; B: <code>", c->a.nr_cells,
		 plural(c->a.nr_cells, "cell", "cells"));
	compare_report_html_text(out, c->b.root);
	buf_addf(out, "</code> (%zu %s)</p>\n<div class=\"notes\"><ul>\n", c->b.nr_cells,
		 plural(c->b.nr_cells, "cell", "cells"));
	for (size_t i = 0; i < c->notes.nr; i++) {
		buf_addstr(out, "<li>");
		compare_report_html_text(out, c->notes.items[i]);
		buf_addstr(out, "</li>\n");
	}
	buf_addstr(out, "</ul></div>\n");
	html_tests(c, 1, "Functional differences", c->nr_functional, out);
	html_tests(c, 0, "Skipped on one side, passed on the other (not counted)", count_skip_changes(c),
		   out);
	buf_addf(out, "<h2>Metrics (%zu)</h2>\n<p>Bars: mean; whiskers: &#177;1 standard deviation; "
		 "dots: the samples. Flagged metrics first.</p>\n<table><tr><th>verdict</th><th>topology</th>"
		 "<th>suite</th><th>test</th><th>metric</th><th>A mean &#177; sd (n)</th>"
		 "<th>B mean &#177; sd (n)</th><th>change</th><th>p (q)</th><th>bootstrap CI</th>"
		 "<th>A vs B</th></tr>\n", c->nr_metrics);
	for (int flagged = 1; flagged >= 0; flagged--)
		for (size_t i = 0; i < c->nr_metrics; i++) {
			enum cmp_verdict v = c->metrics[i].verdict;

			if ((v == CMP_REGRESSED || v == CMP_CHANGED || v == CMP_IMPROVED) == flagged)
				compare_report_html_metric(&c->metrics[i], out);
		}
	buf_addstr(out, "</table>\n");
	if (c->nr_facts) {
		buf_addf(out, "<h2>Behaviour that is not a number (%zu %s, %zu differ)</h2>\n", c->nr_facts,
			 plural(c->nr_facts, "fact", "facts"), c->nr_facts_differ);
		compare_report_html_facts(c, NULL, out);
	}
	buf_addstr(out, "<h2>Cells</h2>\n<table><tr><th>side</th><th>directory</th>"
		   "<th>topology</th><th>kernel</th><th>backend</th><th>qemu</th><th>accel</th><th>host NUMA</th></tr>\n");
	html_cells(&c->a, "A", out);
	html_cells(&c->b, "B", out);
	buf_addstr(out, "</table>\n</body></html>\n");
}
