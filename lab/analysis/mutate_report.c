#include "analysis/mutate_report.h"
#include "analysis/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A survivor the equivalents file lists is equivalent; a listed one that was killed, killed. */
static int listed(const struct mutate_report *r, int i)
{
	return r->eq && mutant_equivalent_find(r->eq, r->mutants[i].id) != NULL;
}

static int is_equivalent(const struct mutate_report *r, int i)
{
	return r->results[i].status == MUTANT_SURVIVED && listed(r, i);
}

static int in_scope(const struct mutant *m, const char *file, const char *function)
{
	return (!file || !strcmp(m->file, file)) && (!function || !strcmp(m->function, function));
}

void mutate_score_of(const struct mutate_report *r, const char *file, const char *function,
		     struct mutate_score *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < r->nr; i++) {
		if (!in_scope(&r->mutants[i], file, function))
			continue;
		s->total++;
		switch (r->results[i].status) {
		case MUTANT_KILLED:
			s->killed++;
			s->wrongly_listed += listed(r, i);
			break;
		case MUTANT_SURVIVED:
			if (listed(r, i))
				s->equivalent++;
			else
				s->survived++;
			break;
		case MUTANT_UNCOMPILABLE:
			s->uncompilable++;
			break;
		case MUTANT_SAME_OBJECT:
			s->same_object++;
			break;
		case MUTANT_NOT_RUN:
			s->not_run++;
			break;
		}
	}
}

/* killed / (killed + survived) in percent; -1 when no mutant was judged. */
static double score_pct(const struct mutate_score *s)
{
	return s->killed + s->survived ? 100.0 * s->killed / (s->killed + s->survived) : -1;
}

/* 95%: the interval the reports give. */
#define MUTATE_Z 1.959964

void mutate_estimate_of(const struct mutate_report *r, const char *file, struct mutate_estimate *e)
{
	double killed = 0, judged = 0, squares = 0;

	memset(e, 0, sizeof(*e));
	e->exact = 1;
	if (r->sample) {
		for (int h = 0; h < r->sample->nr; h++) {
			const struct mutant_stratum *st = &r->sample->strata[h];

			if (file && strcmp(st->file, file))
				continue;
			e->population += st->population;
			e->sampled += st->sampled;
			e->exact &= st->sampled == st->population;
		}
	}
	for (int i = 0; i < r->nr; i++) {
		const struct mutant_stratum *st = r->sample ? mutant_stratum_of(r->sample, &r->mutants[i]) : NULL;
		int status = r->results[i].status;
		double w = st && st->sampled ? (double)st->population / st->sampled : 1;

		if (!in_scope(&r->mutants[i], file, NULL))
			continue;
		if (!r->sample) {
			e->population++;
			e->sampled++;
		}
		if (status != MUTANT_KILLED && !(status == MUTANT_SURVIVED && !listed(r, i)))
			continue;
		killed += status == MUTANT_KILLED ? w : 0;
		judged += w;
		squares += w * w;
	}
	e->score = e->lo = e->hi = -1;
	if (judged <= 0)
		return;
	e->score = 100 * killed / judged;
	if (e->exact) {
		e->lo = e->hi = e->score;
		return;
	}
	stats_wilson(killed / judged, judged * judged / squares, MUTATE_Z, &e->lo, &e->hi);
	e->lo *= 100;
	e->hi *= 100;
}

/* "93.1%", "93.1% [85.2%, 97.0%]" or "-". */
static void estimate_text(char *out, size_t cap, const struct mutate_estimate *e)
{
	if (e->score < 0)
		snprintf(out, cap, "-");
	else if (e->exact)
		snprintf(out, cap, "%.1f%%", e->score);
	else
		snprintf(out, cap, "%.1f%% [%.1f%%, %.1f%%]", e->score, e->lo, e->hi);
}

/* ---- order ---- */

static const struct mutate_report *sort_ctx;

static int by_place(const void *a, const void *b)
{
	const struct mutant *x = &sort_ctx->mutants[*(const int *)a], *y = &sort_ctx->mutants[*(const int *)b];
	int c = strcmp(x->file, y->file);

	if (!c)
		c = x->line - y->line;
	return c ? c : strcmp(x->id, y->id);
}

/* Mutant indexes by file and line (free() it). */
static int *in_order(const struct mutate_report *r)
{
	int *idx = xcalloc((size_t)r->nr + 1, sizeof(*idx));

	for (int i = 0; i < r->nr; i++)
		idx[i] = i;
	sort_ctx = r;
	qsort(idx, (size_t)r->nr, sizeof(*idx), by_place);
	return idx;
}

/* The functions, in file order, as indexes of their first mutant; *nr of them (free() it). */
static int *functions(const struct mutate_report *r, const int *idx, int *nr)
{
	int *f = xcalloc((size_t)r->nr + 1, sizeof(*f));

	*nr = 0;
	for (int k = 0; k < r->nr; k++) {
		int seen = 0;

		for (int j = 0; j < *nr && !seen; j++)
			seen = in_scope(&r->mutants[f[j]], r->mutants[idx[k]].file, r->mutants[idx[k]].function);
		if (!seen)
			f[(*nr)++] = idx[k];
	}
	return f;
}

/* The files, in order, as indexes of their first mutant; *nr of them (free() it). */
static int *files(const struct mutate_report *r, const int *idx, int *nr)
{
	int *f = xcalloc((size_t)r->nr + 1, sizeof(*f));

	*nr = 0;
	for (int k = 0; k < r->nr; k++)
		if (!*nr || strcmp(r->mutants[f[*nr - 1]].file, r->mutants[idx[k]].file))
			f[(*nr)++] = idx[k];
	return f;
}

static void pct(char *out, size_t cap, const struct mutate_score *s)
{
	double p = score_pct(s);

	if (p < 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%.1f%%", p);
}

static const char *status_word(const struct mutate_report *r, int i)
{
	return is_equivalent(r, i) ? "equivalent" : mutant_status_name(r->results[i].status);
}

/* ---- text ---- */

static void score_row(struct buf *out, const char *name, const struct mutate_score *s)
{
	char p[16];

	pct(p, sizeof(p), s);
	buf_addf(out, "%-40s %7d %6d %8d %5d %8d %12d %7d %6s\n", name, s->total, s->killed, s->survived,
		 s->equivalent, s->same_object, s->uncompilable, s->not_run, p);
}

static void indented(struct buf *out, const char *text, const char *indent)
{
	for (const char *p = text; *p; p = next_line(p))
		buf_addf(out, "%s%.*s\n", indent, (int)strcspn(p, "\n"), p);
}

/* The per-file table: what the sample stands for, and the score with its interval. */
static void file_table(const struct mutate_report *r, const int *idx, struct buf *out)
{
	int nf, *fs = files(r, idx, &nf);

	buf_addf(out, "%-40s %10s %7s %6s %8s %5s  %s\n", "file", "population", "sampled", "killed", "survived",
		 "equiv", "score [95% interval]");
	for (int f = 0; f <= nf; f++) {
		const char *file = f < nf ? r->mutants[fs[f]].file : NULL;
		struct mutate_estimate e;
		struct mutate_score s;
		char t[64];

		if (f == nf && nf < 2)
			break;
		mutate_score_of(r, file, NULL, &s);
		mutate_estimate_of(r, file, &e);
		estimate_text(t, sizeof(t), &e);
		buf_addf(out, "%-40s %10d %7d %6d %8d %5d  %s\n", file ? file : "all", e.population, e.sampled,
			 s.killed, s.survived, s.equivalent, t);
	}
	free(fs);
}

/* How the score was reached: a census, or a sample of how many and which seed. */
static void method_line(const struct mutate_report *r, struct buf *out)
{
	struct mutate_estimate e;
	int covered = 0;

	mutate_estimate_of(r, NULL, &e);
	if (!r->sample || e.exact)
		return;
	for (int h = 0; h < r->sample->nr; h++)
		covered += r->sample->strata[h].sampled > 0;
	buf_addf(out, "sample: %d of %d mutants, stratified by function (%d of %d functions sampled), seed %u; "
		 "interval: Wilson's at 95%%, effective sample size of the weighted sample\n", e.sampled,
		 e.population, covered, r->sample->nr, r->sample->seed);
}

void mutate_report_text(const struct mutate_report *r, struct buf *out)
{
	int *idx = in_order(r), nf, *fs = functions(r, idx, &nf), n;
	struct mutate_estimate e;
	struct mutate_score s;
	char p[64];

	buf_addf(out, "numalab mutate: %s\n", r->title);
	buf_addf(out, "equivalents: %s\n", r->equivalents_path ? r->equivalents_path : "(none)");
	method_line(r, out);
	buf_addf(out, "\n%-40s %7s %6s %8s %5s %8s %12s %7s %6s\n", "function", "mutants", "killed", "survived",
		 "equiv", "same-obj", "uncompilable", "not-run", "score");
	for (int f = 0; f < nf; f++) {
		mutate_score_of(r, r->mutants[fs[f]].file, r->mutants[fs[f]].function, &s);
		score_row(out, r->mutants[fs[f]].function, &s);
	}
	mutate_score_of(r, NULL, NULL, &s);
	score_row(out, "all", &s);
	buf_addstr(out, "\n");
	file_table(r, idx, out);
	mutate_estimate_of(r, NULL, &e);
	estimate_text(p, sizeof(p), &e);
	buf_addf(out, "\nscore %s: %d killed of %d judged (%d survived, %d equivalent listed, %d same "
		 "object code, %d did not compile, %d not run)\n", p, s.killed, s.killed + s.survived,
		 s.survived, s.equivalent, s.same_object, s.uncompilable, s.not_run);
	n = 0;
	for (int k = 0; k < r->nr; k++) {
		int i = idx[k];
		const struct mutant *m = &r->mutants[i];

		if (r->results[i].status != MUTANT_SURVIVED || listed(r, i))
			continue;
		if (!n++)
			buf_addstr(out, "\nsurvivors:\n");
		buf_addf(out, "\n%s %s:%d %s: %s (%s)\n", m->id, m->file, m->line, m->function,
			 mutant_op_name(m->op), m->what);
		indented(out, r->diffs[i], "    ");
	}
	n = 0;
	for (int k = 0; k < r->nr; k++) {
		int i = idx[k];
		const struct mutant *m = &r->mutants[i];

		if (!listed(r, i))
			continue;
		if (!n++)
			buf_addstr(out, "\nlisted as equivalent:\n");
		buf_addf(out, "%s %s:%d %s: %s (%s): %s%s\n", m->id, m->file, m->line, m->function,
			 mutant_op_name(m->op), m->what, mutant_equivalent_find(r->eq, m->id)->reason,
			 r->results[i].status == MUTANT_KILLED ? "  [KILLED: the listing is wrong]" :
			 r->results[i].status == MUTANT_NOT_RUN ? "  [not run]" : "");
	}
	free(idx);
	free(fs);
}

/* ---- TAP ---- */

void mutate_report_tap(const struct mutate_report *r, struct buf *out)
{
	int *idx = in_order(r);

	struct mutate_estimate e;
	char p[64];

	mutate_estimate_of(r, NULL, &e);
	estimate_text(p, sizeof(p), &e);
	buf_addf(out, "TAP version 13\n1..%d\n# numalab mutate: %s\n# score %s of %d mutants (%d run)\n", r->nr,
		 r->title, p, e.population, e.sampled);
	for (int k = 0; k < r->nr; k++) {
		int i = idx[k];
		const struct mutant *m = &r->mutants[i];
		const struct mutant_result *res = &r->results[i];
		int bad = (res->status == MUTANT_SURVIVED && !listed(r, i)) || res->status == MUTANT_NOT_RUN;

		buf_addf(out, "%s %d - %s %s:%d %s %s (%s)", bad ? "not ok" : "ok", k + 1, m->id, m->file, m->line,
			 m->function, mutant_op_name(m->op), m->what);
		if (is_equivalent(r, i))
			buf_addf(out, " # SKIP equivalent: %s\n", mutant_equivalent_find(r->eq, m->id)->reason);
		else if (res->status == MUTANT_UNCOMPILABLE)
			buf_addstr(out, " # SKIP does not compile\n");
		else if (res->status == MUTANT_SAME_OBJECT)
			buf_addstr(out, " # SKIP same object code\n");
		else if (res->status == MUTANT_NOT_RUN)
			buf_addstr(out, " # no result\n");
		else
			buf_addf(out, " # %s\n", res->status == MUTANT_KILLED ? "killed" : "survived");
		if (res->status == MUTANT_KILLED && res->why[0])
			buf_addf(out, "# killed by: %s\n", res->why);
		if (bad && res->status == MUTANT_SURVIVED)
			indented(out, r->diffs[i], "# ");
	}
	free(idx);
}

/* ---- JSON ---- */

static void json_str(struct buf *out, const char *s)
{
	buf_addstr(out, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			buf_addf(out, "\\%c", *c);
		else if (*c == '\n')
			buf_addstr(out, "\\n");
		else if (*c == '\t')
			buf_addstr(out, "\\t");
		else if (*c < 0x20)
			buf_addf(out, "\\u%04x", *c);
		else
			buf_add(out, (const char *)c, 1);
	}
	buf_addstr(out, "\"");
}

static void json_score(struct buf *out, const struct mutate_score *s)
{
	double p = score_pct(s);

	buf_addf(out, "\"mutants\": %d, \"killed\": %d, \"survived\": %d, \"equivalent\": %d, "
		 "\"same_object\": %d, \"uncompilable\": %d, \"not_run\": %d, \"wrongly_listed\": %d, ",
		 s->total, s->killed, s->survived, s->equivalent, s->same_object, s->uncompilable, s->not_run,
		 s->wrongly_listed);
	if (p < 0)
		buf_addstr(out, "\"score_pct\": null");
	else
		buf_addf(out, "\"score_pct\": %.1f", p);
}

/* , "population": N, "sampled": N, "estimate_pct": X, "interval_pct": [LO, HI] | null */
static void json_estimate(struct buf *out, const struct mutate_report *r, const char *file)
{
	struct mutate_estimate e;

	mutate_estimate_of(r, file, &e);
	buf_addf(out, ", \"population\": %d, \"sampled\": %d, ", e.population, e.sampled);
	if (e.score < 0)
		buf_addstr(out, "\"estimate_pct\": null, \"interval_pct\": null");
	else if (e.exact)
		buf_addf(out, "\"estimate_pct\": %.1f, \"interval_pct\": null", e.score);
	else
		buf_addf(out, "\"estimate_pct\": %.1f, \"interval_pct\": [%.1f, %.1f]", e.score, e.lo, e.hi);
}

void mutate_report_json(const struct mutate_report *r, struct buf *out)
{
	int *idx = in_order(r), nf, *fs = functions(r, idx, &nf), nfile, *fl = files(r, idx, &nfile);
	struct mutate_score s;

	buf_addstr(out, "{\n  \"title\": ");
	json_str(out, r->title);
	buf_addstr(out, ",\n  \"equivalents\": ");
	if (r->equivalents_path)
		json_str(out, r->equivalents_path);
	else
		buf_addstr(out, "null");
	if (r->sample)
		buf_addf(out, ",\n  \"sample\": { \"n\": %d, \"seed\": %u, \"stratified_by\": \"function\", "
			 "\"interval\": \"wilson-95-kish\" }", r->sample->n, r->sample->seed);
	else
		buf_addstr(out, ",\n  \"sample\": null");
	mutate_score_of(r, NULL, NULL, &s);
	buf_addstr(out, ",\n  \"score\": { ");
	json_score(out, &s);
	json_estimate(out, r, NULL);
	buf_addstr(out, " },\n  \"files\": [");
	for (int f = 0; f < nfile; f++) {
		const char *file = r->mutants[fl[f]].file;

		mutate_score_of(r, file, NULL, &s);
		buf_addf(out, "%s\n    { \"name\": ", f ? "," : "");
		json_str(out, file);
		buf_addstr(out, ", ");
		json_score(out, &s);
		json_estimate(out, r, file);
		buf_addstr(out, " }");
	}
	buf_addstr(out, "\n  ],\n  \"functions\": [");
	for (int f = 0; f < nf; f++) {
		mutate_score_of(r, r->mutants[fs[f]].file, r->mutants[fs[f]].function, &s);
		buf_addf(out, "%s\n    { \"file\": ", f ? "," : "");
		json_str(out, r->mutants[fs[f]].file);
		buf_addstr(out, ", \"name\": ");
		json_str(out, r->mutants[fs[f]].function);
		buf_addstr(out, ", ");
		json_score(out, &s);
		buf_addstr(out, " }");
	}
	buf_addstr(out, "\n  ],\n  \"mutants\": [");
	for (int k = 0; k < r->nr; k++) {
		int i = idx[k];
		const struct mutant *m = &r->mutants[i];
		const struct mutant_result *res = &r->results[i];

		buf_addf(out, "%s\n    { \"id\": \"%s\", \"file\": ", k ? "," : "", m->id);
		json_str(out, m->file);
		buf_addf(out, ", \"line\": %d, \"function\": ", m->line);
		json_str(out, m->function);
		buf_addf(out, ", \"operator\": \"%s\", \"what\": ", mutant_op_name(m->op));
		json_str(out, m->what);
		buf_addf(out, ", \"status\": \"%s\", \"equivalent\": ", status_word(r, i));
		if (listed(r, i))
			json_str(out, mutant_equivalent_find(r->eq, m->id)->reason);
		else
			buf_addstr(out, "null");
		buf_addstr(out, ", \"why\": ");
		json_str(out, res->why);
		if (res->build_s >= 0)
			buf_addf(out, ", \"build_s\": %.1f", res->build_s);
		if (res->run_s >= 0)
			buf_addf(out, ", \"run_s\": %.1f", res->run_s);
		buf_addstr(out, ", \"diff\": ");
		json_str(out, r->diffs[i]);
		buf_addstr(out, " }");
	}
	buf_addstr(out, "\n  ]\n}\n");
	free(idx);
	free(fs);
	free(fl);
}

/* ---- HTML ---- */

static void html_text(struct buf *out, const char *s)
{
	for (const char *c = s; *c; c++) {
		if (*c == '<')
			buf_addstr(out, "&lt;");
		else if (*c == '>')
			buf_addstr(out, "&gt;");
		else if (*c == '&')
			buf_addstr(out, "&amp;");
		else if (*c == '"')
			buf_addstr(out, "&quot;");
		else
			buf_add(out, c, 1);
	}
}

static void html_row(struct buf *out, const char *name, const struct mutate_score *s)
{
	char p[16];

	pct(p, sizeof(p), s);
	buf_addstr(out, "<tr><td>");
	html_text(out, name);
	buf_addf(out, "</td><td>%d</td><td>%d</td><td class=\"%s\">%d</td><td>%d</td><td>%d</td><td>%d</td>"
		 "<td>%d</td><td>%s</td></tr>\n", s->total, s->killed, s->survived ? "bad" : "", s->survived,
		 s->equivalent, s->same_object, s->uncompilable, s->not_run, p);
}

/* The text report's sample line and file table, preformatted: one layout for both. */
static void html_files(const struct mutate_report *r, const int *idx, struct buf *out)
{
	struct buf t = BUF_INIT;

	method_line(r, &t);
	file_table(r, idx, &t);
	buf_addstr(out, "<pre>");
	html_text(out, buf_str(&t));
	buf_addstr(out, "</pre>\n");
	buf_free(&t);
}

void mutate_report_html(const struct mutate_report *r, struct buf *out)
{
	int *idx = in_order(r), nf, *fs = functions(r, idx, &nf);
	struct mutate_score s;

	buf_addstr(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>numalab mutate</title>\n"
		   "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}"
		   "td:first-child{text-align:left}.bad{color:#b00;font-weight:bold}"
		   "pre{background:#f4f4f4;padding:4px}</style></head><body>\n<h1>numalab mutate</h1>\n<p>");
	html_text(out, r->title);
	buf_addstr(out, "</p>\n");
	html_files(r, idx, out);
	buf_addstr(out, "<table>\n<tr><th>function</th><th>mutants</th><th>killed</th><th>survived</th>"
		   "<th>equivalent</th><th>same object</th><th>uncompilable</th><th>not run</th><th>score</th></tr>\n");
	for (int f = 0; f < nf; f++) {
		mutate_score_of(r, r->mutants[fs[f]].file, r->mutants[fs[f]].function, &s);
		html_row(out, r->mutants[fs[f]].function, &s);
	}
	mutate_score_of(r, NULL, NULL, &s);
	html_row(out, "all", &s);
	buf_addstr(out, "</table>\n<h2>Mutants</h2>\n");
	for (int k = 0; k < r->nr; k++) {
		int i = idx[k];
		const struct mutant *m = &r->mutants[i];
		const struct mutant_result *res = &r->results[i];
		int bad = res->status == MUTANT_SURVIVED && !listed(r, i);

		buf_addf(out, "<div id=\"%s\"><p%s><b>%s</b> ", m->id, bad ? " class=\"bad\"" : "", m->id);
		html_text(out, m->file);
		buf_addf(out, ":%d ", m->line);
		html_text(out, m->function);
		buf_addf(out, " %s (", mutant_op_name(m->op));
		html_text(out, m->what);
		buf_addf(out, "): %s", status_word(r, i));
		if (listed(r, i)) {
			buf_addstr(out, " &mdash; listed as equivalent: ");
			html_text(out, mutant_equivalent_find(r->eq, m->id)->reason);
		} else if (res->why[0]) {
			buf_addstr(out, " &mdash; ");
			html_text(out, res->why);
		}
		buf_addstr(out, "</p>");
		if (bad) {
			buf_addstr(out, "<pre>");
			html_text(out, r->diffs[i]);
			buf_addstr(out, "</pre>");
		}
		buf_addstr(out, "</div>\n");
	}
	buf_addstr(out, "</body></html>\n");
	free(idx);
	free(fs);
}
