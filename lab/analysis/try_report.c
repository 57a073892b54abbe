#include "analysis/try_report.h"
#include "analysis/compare_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME_FACTS_SHOWN 12     /* unchanged facts listed per shape in text; JSON/HTML list all */
#define NOT_JUDGED_SHOWN 6

static const char *const dir_words[] = { [TRY_DECREASES] = "decreases", [TRY_INCREASES] = "increases",
					 [TRY_UNCHANGED] = "unchanged" };

int try_claim_parse(const char *s, struct try_claim *claim, struct error *err)
{
	char metric[sizeof(claim->metric)], word[32], extra[2];

	memset(claim, 0, sizeof(*claim));
	if (sscanf(s, "%159s %31s %1s", metric, word, extra) == 2)
		for (int d = 0; d <= TRY_UNCHANGED; d++)
			if (!strcmp(word, dir_words[d])) {
				snprintf(claim->metric, sizeof(claim->metric), "%s", metric);
				claim->dir = (enum try_claim_dir)d;
				return 0;
			}
	return error_input(err, "--expect '%s': want 'METRIC decreases', 'METRIC increases' or "
			   "'METRIC unchanged' (METRIC as the suites name it, e.g. 'bulk_calls decreases')", s);
}

static const char *judged_name(enum try_judged j)
{
	static const char *const names[] = { [TRY_HOLDS] = "holds", [TRY_DOES_NOT_HOLD] = "does not hold",
					     [TRY_CANNOT_JUDGE] = "cannot be judged here" };

	return names[j];
}

static int is_perf(const struct cmp_metric *m)
{
	return m->direction != CMP_EITHER;
}

static int significant(const struct cmp_metric *m)
{
	return m->verdict == CMP_IMPROVED || m->verdict == CMP_REGRESSED || m->verdict == CMP_CHANGED;
}

static struct try_shape *shape_of(const struct try_report *r, const char *topology)
{
	for (size_t i = 0; i < r->nr_shapes; i++)
		if (!strcmp(r->shapes[i].topology, topology))
			return &r->shapes[i];
	return NULL;
}

/* 1: this metric is not judged in r (performance under TCG, or too few samples). */
static int not_judged(const struct try_report *r, const struct cmp_metric *m)
{
	const struct try_shape *s = shape_of(r, m->topology);

	return !m->welch_valid || (is_perf(m) && s && s->tcg);
}

static void add_shape(struct try_report *r, const char *topology)
{
	struct try_shape *s;

	if (shape_of(r, topology))
		return;
	r->shapes = xrealloc(r->shapes, (r->nr_shapes + 1) * sizeof(*r->shapes));
	s = &r->shapes[r->nr_shapes++];
	memset(s, 0, sizeof(*s));
	s->topology = topology;
	s->claims = xcalloc((size_t)(r->nr_claims ? r->nr_claims : 1), sizeof(*s->claims));
}

static void shape_cells(struct try_shape *s, const struct cmp_side *side)
{
	for (size_t i = 0; i < side->nr_cells; i++) {
		const struct cmp_cell *cell = &side->cells[i];

		if (strcmp(cell->topology, s->topology))
			continue;
		s->emulated |= !cell->host_numa;
		s->tcg |= !cell->accel || !strncmp(cell->accel, "tcg", 3);
	}
}

static int claim_matches(const struct try_claim *cl, const char *metric)
{
	size_t n = strlen(cl->metric);

	return !strncmp(metric, cl->metric, n) && (metric[n] == '\0' || metric[n] == '.');
}

static void metric_words(char *out, size_t cap, const struct cmp_metric *m)
{
	snprintf(out, cap, "%s%s%s %.4g -> %.4g (%+.1f%%, q %.2g)", m->test, m->test[0] ? " " : "",
		 m->metric, m->sa.mean, m->sb.mean, m->change_pct, m->q);
}

/* One claim on one shape. */
static void judge_claim(const struct try_report *r, const struct try_shape *s, const struct try_claim *cl,
			struct try_claim_result *out)
{
	size_t matched = 0, perf_emulated = 0, judged = 0, down = 0, up = 0;
	const struct cmp_metric *biggest = NULL, *against = NULL;
	char words[400];

	for (size_t i = 0; i < r->c->nr_metrics; i++) {
		const struct cmp_metric *m = &r->c->metrics[i];

		if (strcmp(m->topology, s->topology) || !claim_matches(cl, m->metric))
			continue;
		matched++;
		if (is_perf(m) && s->emulated) {
			perf_emulated++;
			continue;
		}
		/* Fewer than two samples on a side: not judged (the why below says so). */
		if (!m->welch_valid)
			continue;
		judged++;
		if (!significant(m))
			continue;
		if (m->change_pct < 0)
			down++;
		else
			up++;
		if ((cl->dir == TRY_DECREASES) == (m->change_pct < 0) && cl->dir != TRY_UNCHANGED) {
			if (!biggest || fabs(m->change_pct) > fabs(biggest->change_pct))
				biggest = m;
		} else if (!against || fabs(m->change_pct) > fabs(against->change_pct)) {
			against = m;
		}
	}
	if (!matched) {
		out->judged = TRY_CANNOT_JUDGE;
		snprintf(out->why, sizeof(out->why), "no metric %s on this shape", cl->metric);
		return;
	}
	if (!judged) {
		out->judged = TRY_CANNOT_JUDGE;
		snprintf(out->why, sizeof(out->why), "%s", perf_emulated ?
			 "a performance metric, and this shape's NUMA is emulated: no real node latencies" :
			 "fewer than two samples on a side (--repeat 2 or more)");
		return;
	}
	if (cl->dir == TRY_UNCHANGED ? !down && !up : cl->dir == TRY_DECREASES ? down && !up : up && !down) {
		out->judged = TRY_HOLDS;
		if (biggest)
			metric_words(words, sizeof(words), biggest);
		snprintf(out->why, sizeof(out->why), "%zu of %zu %s %s %s%s%s", cl->dir == TRY_UNCHANGED ?
			 judged : down + up, judged, cl->metric, plural(judged, "metric", "metrics"),
			 cl->dir == TRY_UNCHANGED ? "did not move" :
			 cl->dir == TRY_DECREASES ? "fell" : "rose", biggest ? ", most " : "", biggest ? words : "");
		return;
	}
	out->judged = TRY_DOES_NOT_HOLD;
	if (against)
		metric_words(words, sizeof(words), against);
	snprintf(out->why, sizeof(out->why), "%s%s", against ? "against it: " : "", against ? words :
		 "no matching metric moved significantly");
}

void try_judge(struct try_report *r)
{
	const struct comparison *c = r->c;

	for (size_t i = 0; i < r->id->shapes.nr; i++)
		add_shape(r, r->id->shapes.items[i]);
	for (size_t i = 0; i < c->nr_tests; i++)
		add_shape(r, c->tests[i].topology);
	for (size_t i = 0; i < r->nr_shapes; i++) {
		shape_cells(&r->shapes[i], &c->a);
		shape_cells(&r->shapes[i], &c->b);
	}
	for (size_t i = 0; i < c->nr_tests; i++) {
		struct try_shape *s = shape_of(r, c->tests[i].topology);

		s->broken += c->tests[i].change == CMP_TEST_BROKEN || c->tests[i].change == CMP_TEST_GONE;
		s->fixed += c->tests[i].change == CMP_TEST_FIXED;
	}
	for (size_t i = 0; i < c->nr_metrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		struct try_shape *s = shape_of(r, m->topology);

		if (!s)
			continue;
		if (not_judged(r, m)) {
			s->not_judged++;
			s->few_samples += !m->welch_valid;
			continue;
		}
		s->regressed += m->verdict == CMP_REGRESSED;
		s->improved += m->verdict == CMP_IMPROVED;
		s->changed += m->verdict == CMP_CHANGED;
	}
	for (size_t i = 0; i < c->nr_facts; i++) {
		struct try_shape *s = shape_of(r, c->facts[i].topology);

		if (s)
			s->facts_differ += c->facts[i].differs;
	}
	r->overall = xcalloc((size_t)(r->nr_claims ? r->nr_claims : 1), sizeof(*r->overall));
	for (int k = 0; k < r->nr_claims; k++) {
		struct try_claim_result *o = &r->overall[k];
		size_t holds = 0, fails = 0, len = 0;

		for (size_t i = 0; i < r->nr_shapes; i++) {
			struct try_shape *s = &r->shapes[i];

			judge_claim(r, s, &r->claims[k], &s->claims[k]);
			holds += s->claims[k].judged == TRY_HOLDS;
			fails += s->claims[k].judged == TRY_DOES_NOT_HOLD;
		}
		o->judged = fails ? TRY_DOES_NOT_HOLD : holds ? TRY_HOLDS : TRY_CANNOT_JUDGE;
		/* The shapes that decided, each with its reason. */
		for (size_t i = 0; i < r->nr_shapes && len < sizeof(o->why); i++) {
			const struct try_shape *s = &r->shapes[i];

			if (s->claims[k].judged == o->judged)
				len += (size_t)snprintf(o->why + len, sizeof(o->why) - len, "%s%s: %s",
							len ? "; " : "", s->topology, s->claims[k].why);
		}
	}
	for (size_t i = 0; i < r->nr_shapes; i++) {
		struct try_shape *s = &r->shapes[i];

		s->regression = s->broken || s->regressed;
		for (int k = 0; k < r->nr_claims; k++)
			s->regression |= s->claims[k].judged == TRY_DOES_NOT_HOLD;
		r->regression |= s->regression;
	}
}

void try_report_free(struct try_report *r)
{
	for (size_t i = 0; i < r->nr_shapes; i++)
		free(r->shapes[i].claims);
	free(r->shapes);
	free(r->overall);
	r->shapes = NULL;
	r->overall = NULL;
	r->nr_shapes = 0;
}

static const char *verdict_words(int regression)
{
	return regression ? "REGRESSION" : "no regression";
}

static void claim_text(struct buf *out, const struct try_claim *cl)
{
	buf_addf(out, "%s %s", cl->metric, dir_words[cl->dir]);
}

/* ---- text ---- */

static void text_line(struct buf *out, const char *prefix, const char *s)
{
	buf_addstr(out, prefix);
	compare_report_clean(out, s, 300);
	buf_addstr(out, "\n");
}

static void text_identity(const struct try_report *r, struct buf *out)
{
	const struct try_identity *id = r->id;

	for (size_t i = 0; i < id->kernels.nr; i++)
		text_line(out, "  kernel ", id->kernels.items[i]);
	for (size_t i = 0; i < id->patches.nr; i++) {
		buf_addf(out, "  patch %zu/%zu: ", i + 1, id->patches.nr);
		compare_report_clean(out, id->patches.items[i], 300);
		buf_addstr(out, "\n");
	}
	buf_addstr(out, "  shapes:");
	for (size_t i = 0; i < id->shapes.nr; i++)
		buf_addf(out, " %s", id->shapes.items[i]);
	buf_addf(out, "; %d %s per kernel and shape (%s)\n", id->repeat, plural((size_t)id->repeat, "run", "runs"),
		 id->repeat_why);
	for (size_t i = 0; i < r->c->notes.nr; i++)
		text_line(out, "  note: ", r->c->notes.items[i]);
}

static void text_test(struct buf *out, const struct cmp_test *t)
{
	struct buf line = BUF_INIT;

	buf_addf(&line, "    %s%s%s  base: %u pass %u fail, patched: %u pass %u fail", t->suite,
		 t->test[0] ? "/" : "", t->test, t->a[CMP_PASS], t->a[CMP_FAIL], t->b[CMP_PASS], t->b[CMP_FAIL]);
	if (t->why_b || t->why_a)
		buf_addf(&line, " (%s)", t->why_b ? t->why_b : t->why_a);
	text_line(out, "", buf_str(&line));
	compare_report_text_detail(out, t->detail_b ? t->detail_b : t->detail_a, "      | ");
	buf_free(&line);
}

static void text_metric(struct buf *out, const struct cmp_metric *m)
{
	char line[600];

	snprintf(line, sizeof(line), "    %-9s %s%s%s %.4g -> %.4g (%+.1f%%, n %zu/%zu, q %.2g)%s",
		 cmp_verdict_name(m->verdict), m->test, m->test[0] ? " " : "", m->metric, m->sa.mean, m->sb.mean,
		 m->change_pct, m->sa.n, m->sb.n, m->q, m->direction == CMP_EITHER ? " [counter]" : "");
	text_line(out, "", line);
}

static void text_fact(struct buf *out, const struct cmp_fact *f)
{
	struct buf line = BUF_INIT;

	buf_addf(&line, "    %s %s%s%s: base ", f->suite, f->test, f->test[0] ? " " : "", f->name);
	compare_report_fact_values(&line, &f->a);
	buf_addstr(&line, ", patched ");
	compare_report_fact_values(&line, &f->b);
	text_line(out, "", buf_str(&line));
	buf_free(&line);
}

static void text_shape(const struct try_report *r, const struct try_shape *s, struct buf *out)
{
	const struct comparison *c = r->c;
	size_t same = 0, shown = 0;

	buf_addf(out, "\n== %s (%s NUMA%s): %s\n", s->topology, s->emulated ? "EMULATED" : "host-backed",
		 s->tcg ? ", TCG" : "", verdict_words(s->regression));
	for (int k = 0; k < r->nr_claims; k++) {
		buf_addstr(out, "  claim ");
		claim_text(out, &r->claims[k]);
		buf_addf(out, ": %s: ", judged_name(s->claims[k].judged));
		text_line(out, "", s->claims[k].why);
	}
	buf_addf(out, "  tests that pass on base and fail patched: %zu\n", s->broken);
	for (size_t i = 0; i < c->nr_tests; i++)
		if (!strcmp(c->tests[i].topology, s->topology) &&
		    (c->tests[i].change == CMP_TEST_BROKEN || c->tests[i].change == CMP_TEST_GONE))
			text_test(out, &c->tests[i]);
	if (s->fixed) {
		buf_addf(out, "  tests that fail on base and pass patched: %zu\n", s->fixed);
		for (size_t i = 0; i < c->nr_tests; i++)
			if (!strcmp(c->tests[i].topology, s->topology) && c->tests[i].change == CMP_TEST_FIXED)
				text_test(out, &c->tests[i]);
	}
	buf_addf(out, "  metrics that changed significantly: %zu (%zu regressed, %zu improved, %zu counters changed)\n",
		 s->regressed + s->improved + s->changed, s->regressed, s->improved, s->changed);
	for (size_t i = 0; i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].topology, s->topology) && significant(&c->metrics[i]) &&
		    !not_judged(r, &c->metrics[i]))
			text_metric(out, &c->metrics[i]);
	buf_addf(out, "  behaviour that is not a number: %zu differ\n", s->facts_differ);
	for (size_t i = 0; i < c->nr_facts; i++)
		if (!strcmp(c->facts[i].topology, s->topology)) {
			if (c->facts[i].differs)
				text_fact(out, &c->facts[i]);
			else
				same++;
		}
	if (same) {
		buf_addf(out, "  the same on both: %zu\n", same);
		for (size_t i = 0; i < c->nr_facts && shown < SAME_FACTS_SHOWN; i++)
			if (!strcmp(c->facts[i].topology, s->topology) && !c->facts[i].differs) {
				text_fact(out, &c->facts[i]);
				shown++;
			}
	}
	buf_addf(out, "  not judged: %zu %s", s->not_judged, plural(s->not_judged, "metric", "metrics"));
	if (s->not_judged)
		buf_addf(out, ": %zu with fewer than two samples a side, %zu times, rates or scores "
			 "under TCG (they time the emulator, not the kernel)", s->few_samples,
			 s->not_judged - s->few_samples);
	buf_addstr(out, "\n");
	shown = 0;
	for (size_t i = 0; i < c->nr_metrics && shown < NOT_JUDGED_SHOWN; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (!strcmp(m->topology, s->topology) && not_judged(r, m) && significant(m)) {
			text_metric(out, m);
			shown++;
		}
	}
}

void try_report_text(const struct try_report *r, struct buf *out)
{
	buf_addf(out, "%s: %s\n", r->id->title, verdict_words(r->regression));
	text_identity(r, out);
	if (r->nr_claims) {
		buf_addstr(out, "\nThe patch's claims:\n");
		for (int k = 0; k < r->nr_claims; k++) {
			buf_addstr(out, "  ");
			claim_text(out, &r->claims[k]);
			buf_addf(out, ": %s (%s)\n", judged_name(r->overall[k].judged), r->overall[k].why);
		}
	}
	for (size_t i = 0; i < r->nr_shapes; i++)
		text_shape(r, &r->shapes[i], out);
	buf_addf(out, "\n%s: %s (%s)\n", r->id->title, verdict_words(r->regression),
		 r->regression ? "exit 1" : "exit 0");
}

/* ---- TAP: a result per claim, then per shape its tests and its metrics ---- */

void try_report_tap(const struct try_report *r, struct buf *out)
{
	const struct comparison *c = r->c;
	int n = 0;

	buf_addstr(out, "TAP version 13\n# ");
	compare_report_tap_text(out, r->id->title);
	buf_addstr(out, "\n");
	for (size_t i = 0; i < r->id->kernels.nr; i++) {
		buf_addstr(out, "# kernel ");
		compare_report_tap_text(out, r->id->kernels.items[i]);
		buf_addstr(out, "\n");
	}
	for (size_t i = 0; i < r->id->patches.nr; i++) {
		buf_addstr(out, "# patch ");
		compare_report_tap_text(out, r->id->patches.items[i]);
		buf_addstr(out, "\n");
	}
	for (size_t i = 0; i < c->notes.nr; i++) {
		buf_addstr(out, "# note: ");
		compare_report_tap_text(out, c->notes.items[i]);
		buf_addstr(out, "\n");
	}
	buf_addf(out, "1..%zu\n", (size_t)r->nr_claims + 2 * r->nr_shapes);
	for (int k = 0; k < r->nr_claims; k++) {
		buf_addf(out, "%s %d - claim ", r->overall[k].judged == TRY_DOES_NOT_HOLD ? "not ok" : "ok", ++n);
		claim_text(out, &r->claims[k]);
		buf_addf(out, ": %s%s", judged_name(r->overall[k].judged),
			 r->overall[k].judged == TRY_CANNOT_JUDGE ? " # SKIP " : " (");
		compare_report_tap_text(out, r->overall[k].why);
		buf_addstr(out, r->overall[k].judged == TRY_CANNOT_JUDGE ? "\n" : ")\n");
	}
	for (size_t i = 0; i < r->nr_shapes; i++) {
		const struct try_shape *s = &r->shapes[i];

		buf_addf(out, "%s %d - %s tests: %zu broken, %zu fixed\n", s->broken ? "not ok" : "ok", ++n,
			 s->topology, s->broken, s->fixed);
		for (size_t t = 0; t < c->nr_tests; t++) {
			const struct cmp_test *ct = &c->tests[t];

			if (strcmp(ct->topology, s->topology) || (ct->change != CMP_TEST_BROKEN && ct->change != CMP_TEST_GONE))
				continue;
			buf_addstr(out, "# broken: ");
			compare_report_tap_text(out, ct->suite);
			buf_addstr(out, ct->test[0] ? "/" : " (the suite)");
			compare_report_tap_text(out, ct->test);
			buf_addstr(out, "\n");
		}
		buf_addf(out, "%s %d - %s metrics: %zu regressed, %zu improved, %zu counters changed, %zu not judged\n",
			 s->regressed ? "not ok" : "ok", ++n, s->topology, s->regressed, s->improved, s->changed,
			 s->not_judged);
	}
}

/* ---- JSON ---- */

void try_report_json(const struct try_report *r, struct buf *out)
{
	const struct comparison *c = r->c;
	const struct strvec *lists[] = { &r->id->kernels, &r->id->patches, &r->id->shapes };
	static const char *const list_names[] = { "kernels", "patches", "shapes" };

	buf_addstr(out, "{\n  \"title\": ");
	compare_report_json_str(out, r->id->title);
	buf_addf(out, ",\n  \"verdict\": \"%s\", \"exit\": %d,\n", r->regression ? "regression" : "no regression",
		 r->regression);
	for (size_t l = 0; l < 3; l++) {
		buf_addf(out, "  \"%s\": [", list_names[l]);
		for (size_t i = 0; i < lists[l]->nr; i++) {
			buf_addstr(out, i ? ", " : "");
			compare_report_json_str(out, lists[l]->items[i]);
		}
		buf_addstr(out, "],\n");
	}
	buf_addf(out, "  \"repeat\": %d, \"repeat_why\": ", r->id->repeat);
	compare_report_json_str(out, r->id->repeat_why);
	buf_addstr(out, ",\n  \"notes\": [");
	for (size_t i = 0; i < c->notes.nr; i++) {
		buf_addstr(out, i ? ", " : "");
		compare_report_json_str(out, c->notes.items[i]);
	}
	buf_addstr(out, "],\n  \"claims\": [");
	for (int k = 0; k < r->nr_claims; k++) {
		buf_addstr(out, k ? ",\n    " : "\n    ");
		buf_addf(out, "{\"metric\": ");
		compare_report_json_str(out, r->claims[k].metric);
		buf_addf(out, ", \"claim\": \"%s\", \"judged\": \"%s\", \"why\": ", dir_words[r->claims[k].dir],
			 judged_name(r->overall[k].judged));
		compare_report_json_str(out, r->overall[k].why);
		buf_addstr(out, "}");
	}
	buf_addstr(out, "],\n  \"shapes\": [");
	for (size_t i = 0; i < r->nr_shapes; i++) {
		const struct try_shape *s = &r->shapes[i];
		int first = 1;

		buf_addstr(out, i ? ",\n    {" : "\n    {");
		buf_addstr(out, "\"topology\": ");
		compare_report_json_str(out, s->topology);
		buf_addf(out, ", \"emulated_numa\": %s, \"tcg\": %s, \"verdict\": \"%s\", \"broken\": %zu, "
			 "\"fixed\": %zu, \"regressed\": %zu, \"improved\": %zu, \"changed\": %zu, "
			 "\"facts_differ\": %zu, \"not_judged\": %zu,\n     \"claims\": [",
			 s->emulated ? "true" : "false", s->tcg ? "true" : "false",
			 s->regression ? "regression" : "no regression", s->broken, s->fixed, s->regressed,
			 s->improved, s->changed, s->facts_differ, s->not_judged);
		for (int k = 0; k < r->nr_claims; k++) {
			buf_addf(out, "%s{\"judged\": \"%s\", \"why\": ", k ? ", " : "", judged_name(s->claims[k].judged));
			compare_report_json_str(out, s->claims[k].why);
			buf_addstr(out, "}");
		}
		buf_addstr(out, "],\n     \"tests\": [");
		for (size_t t = 0; t < c->nr_tests; t++)
			if (!strcmp(c->tests[t].topology, s->topology) && c->tests[t].change != CMP_TEST_SAME) {
				buf_addstr(out, first ? "\n      " : ",\n      ");
				compare_report_json_test(&c->tests[t], out);
				first = 0;
			}
		buf_addstr(out, "],\n     \"metrics\": [");
		first = 1;
		for (size_t m = 0; m < c->nr_metrics; m++)
			if (!strcmp(c->metrics[m].topology, s->topology)) {
				buf_addstr(out, first ? "\n      " : ",\n      ");
				compare_report_json_metric(&c->metrics[m], out);
				first = 0;
			}
		buf_addstr(out, "],\n     \"facts\": [");
		first = 1;
		for (size_t f = 0; f < c->nr_facts; f++)
			if (!strcmp(c->facts[f].topology, s->topology)) {
				buf_addstr(out, first ? "\n      " : ",\n      ");
				compare_report_json_fact(&c->facts[f], out);
				first = 0;
			}
		buf_addstr(out, "]}");
	}
	buf_addstr(out, "]\n}\n");
}

/* ---- HTML: the verdict first, then per shape ---- */

static void html_li(struct buf *out, const char *s)
{
	buf_addstr(out, "<li>");
	compare_report_html_text(out, s);
	buf_addstr(out, "</li>\n");
}

static void html_shape(const struct try_report *r, const struct try_shape *s, struct buf *out)
{
	const struct comparison *c = r->c;
	size_t shown = 0;

	buf_addstr(out, "<h2>");
	compare_report_html_text(out, s->topology);
	buf_addf(out, " &#8212; %s</h2>\n<p>%s NUMA%s.</p>\n", verdict_words(s->regression),
		 s->emulated ? "EMULATED" : "Host-backed", s->tcg ? ", TCG" : "");
	if (r->nr_claims) {
		buf_addstr(out, "<ul>\n");
		for (int k = 0; k < r->nr_claims; k++) {
			struct buf tmp = BUF_INIT;

			claim_text(&tmp, &r->claims[k]);
			buf_addf(&tmp, ": %s: %s", judged_name(s->claims[k].judged), s->claims[k].why);
			html_li(out, buf_str(&tmp));
			buf_free(&tmp);
		}
		buf_addstr(out, "</ul>\n");
	}
	buf_addf(out, "<h3>Tests that pass on base and fail patched (%zu), and the reverse (%zu)</h3>\n",
		 s->broken, s->fixed);
	if (s->broken || s->fixed) {
		buf_addstr(out, "<table><tr><th>change</th><th>suite</th><th>test</th><th>base</th>"
			   "<th>patched</th><th>why: what the test printed</th></tr>\n");
		for (size_t i = 0; i < c->nr_tests; i++) {
			const struct cmp_test *t = &c->tests[i];

			if (strcmp(t->topology, s->topology) || (t->change != CMP_TEST_BROKEN &&
			    t->change != CMP_TEST_GONE && t->change != CMP_TEST_FIXED))
				continue;
			buf_addf(out, "<tr class=\"%s\"><td>%s</td><td>", cmp_change_name(t->change),
				 cmp_change_name(t->change));
			compare_report_html_text(out, t->suite);
			buf_addstr(out, "</td><td>");
			compare_report_html_text(out, t->test);
			buf_addf(out, "</td><td>%u pass %u fail</td><td>%u pass %u fail</td>", t->a[CMP_PASS],
				 t->a[CMP_FAIL], t->b[CMP_PASS], t->b[CMP_FAIL]);
			compare_report_html_why(out, t);
			buf_addstr(out, "</tr>\n");
		}
		buf_addstr(out, "</table>\n");
	}
	buf_addf(out, "<h3>Metrics that changed significantly (%zu)</h3>\n", s->regressed + s->improved + s->changed);
	buf_addstr(out, "<table><tr><th>verdict</th><th>topology</th><th>suite</th><th>test</th><th>metric</th>"
		   "<th>base mean &#177; sd (n)</th><th>patched mean &#177; sd (n)</th><th>change</th>"
		   "<th>p (q)</th><th>bootstrap CI</th><th>base vs patched</th></tr>\n");
	for (size_t i = 0; i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].topology, s->topology) && significant(&c->metrics[i]) &&
		    !not_judged(r, &c->metrics[i]))
			compare_report_html_metric(&c->metrics[i], out);
	buf_addstr(out, "</table>\n");
	buf_addf(out, "<h3>Behaviour that is not a number (%zu differ)</h3>\n", s->facts_differ);
	for (size_t i = 0; i < c->nr_facts; i++)
		if (!strcmp(c->facts[i].topology, s->topology)) {
			compare_report_html_facts(c, s->topology, out);
			break;
		}
	buf_addf(out, "<h3>Not judged (%zu %s)</h3>\n<p>%zu with fewer than two samples a side; %zu "
		 "times, rates or scores under TCG (they time the emulator, not the kernel).</p>\n<table>",
		 s->not_judged, plural(s->not_judged, "metric", "metrics"), s->few_samples,
		 s->not_judged - s->few_samples);
	for (size_t i = 0; i < c->nr_metrics && shown < 40; i++)
		if (!strcmp(c->metrics[i].topology, s->topology) && not_judged(r, &c->metrics[i])) {
			compare_report_html_metric(&c->metrics[i], out);
			shown++;
		}
	buf_addstr(out, "</table>\n");
}

void try_report_html(const struct try_report *r, struct buf *out)
{
	compare_report_html_head(out, r->id->title);
	buf_addstr(out, "<h1>");
	compare_report_html_text(out, r->id->title);
	buf_addf(out, "</h1>\n<p class=\"verdict %s\">%s</p>\n", r->regression ? "bad" : "good",
		 r->regression ? "REGRESSION: the patched kernel breaks a test, regresses a metric or "
		 "misses its claim" : "No regression: no test broken, no judged metric regressed, "
		 "no claim missed");
	if (r->nr_claims) {
		buf_addstr(out, "<h2>The patch's claims</h2>\n<table><tr><th>claim</th><th>judged</th>"
			   "<th>why</th></tr>\n");
		for (int k = 0; k < r->nr_claims; k++) {
			struct buf tmp = BUF_INIT;

			claim_text(&tmp, &r->claims[k]);
			buf_addf(out, "<tr class=\"%s\"><td>", r->overall[k].judged == TRY_DOES_NOT_HOLD ? "regressed" :
				 r->overall[k].judged == TRY_HOLDS ? "improved" : "same");
			compare_report_html_text(out, buf_str(&tmp));
			buf_addf(out, "</td><td>%s</td><td>", judged_name(r->overall[k].judged));
			compare_report_html_text(out, r->overall[k].why);
			buf_addstr(out, "</td></tr>\n");
			buf_free(&tmp);
		}
		buf_addstr(out, "</table>\n");
	}
	buf_addstr(out, "<h2>Shapes</h2>\n<table><tr><th>shape</th><th>verdict</th><th>broken</th><th>fixed</th>"
		   "<th>regressed</th><th>improved</th><th>counters changed</th><th>facts differ</th>"
		   "<th>not judged</th></tr>\n");
	for (size_t i = 0; i < r->nr_shapes; i++) {
		const struct try_shape *s = &r->shapes[i];

		buf_addf(out, "<tr class=\"%s\"><td>", s->regression ? "regressed" : "same");
		compare_report_html_text(out, s->topology);
		buf_addf(out, "%s</td><td>%s</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td>"
			 "<td>%zu</td><td>%zu</td></tr>\n", s->emulated ? " (emulated NUMA)" : "",
			 verdict_words(s->regression), s->broken, s->fixed, s->regressed, s->improved, s->changed,
			 s->facts_differ, s->not_judged);
	}
	buf_addstr(out, "</table>\n<h2>What was compared</h2>\n<div class=\"notes\"><ul>\n");
	for (size_t i = 0; i < r->id->kernels.nr; i++)
		html_li(out, r->id->kernels.items[i]);
	for (size_t i = 0; i < r->id->patches.nr; i++)
		html_li(out, r->id->patches.items[i]);
	for (size_t i = 0; i < r->c->notes.nr; i++)
		html_li(out, r->c->notes.items[i]);
	buf_addf(out, "<li>%d %s per kernel and shape (", r->id->repeat, plural((size_t)r->id->repeat, "run", "runs"));
	compare_report_html_text(out, r->id->repeat_why);
	buf_addstr(out, ")</li>\n</ul></div>\n");
	for (size_t i = 0; i < r->nr_shapes; i++)
		html_shape(r, &r->shapes[i], out);
	buf_addstr(out, "</body></html>\n");
}
