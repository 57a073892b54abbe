/*
 * test_mutant: the mutant generator (model/mutant.h) on a kernel-style
 * fixture (tests/host/unit/mutate/sample.c) against golden files, its
 * diffs, the lines a patch adds, the equivalents file, and the reports of
 * analysis/mutate_report.h on fixed results (golden/mutate/report.*).
 * UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
 */
#include "unit.h"
#include "analysis/mutate_report.h"
#include "analysis/stats.h"
#include "model/mutant.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLE "tests/host/unit/mutate/sample.c"
#define GOLDEN "tests/host/unit/golden/mutate/"

static char *sample(size_t *len)
{
	char *text = unit_slurp(SAMPLE, len);

	CHECK(text != NULL);
	if (!text) {
		*len = 0;
		return xstrdup("");
	}
	return text;
}

static void generate(const char *text, size_t len, const struct mutant_scope *sc, struct mutant_list *l)
{
	struct error err;

	CHECK_INT(mutant_generate(SAMPLE, text, len, sc, l, &err), 0);
}

UNIT_TEST(mutants_golden)
{
	size_t len = 0;
	char *text = sample(&len);
	struct mutant_scope all = { 0 };
	struct mutant_list l = { 0 };
	struct buf got = BUF_INIT;

	generate(text, len, &all, &l);
	for (int i = 0; i < l.nr; i++) {
		const struct mutant *m = &l.items[i];

		buf_addf(&got, "%s %s:%d %s %s [%s]\n\t%s\n", m->id, m->function, m->line, m->file,
			 mutant_op_name(m->op), m->what, m->repl);
	}
	unit_golden(GOLDEN "sample.mutants", got.data, got.len);
	buf_free(&got);
	mutant_list_free(&l);
	free(text);
}

/* Each operator leaves what it must alone: comments, strings, assertions, declarations. */
UNIT_TEST(mutants_avoid)
{
	size_t len = 0;
	char *text = sample(&len);
	struct mutant_scope all = { 0 };
	struct mutant_list l = { 0 };
	int seen[MUTANT_ARGUMENT + 1] = { 0 };

	generate(text, len, &all, &l);
	for (int i = 0; i < l.nr; i++) {
		const struct mutant *m = &l.items[i];

		seen[m->op]++;
		CHECK(m->line != 2 && m->line != 4 && m->line != 15);   /* comment, macro, string */
		CHECK(m->line != 25);                                   /* WARN_ON() */
		CHECK(!(m->line == 13 && m->op == MUTANT_REMOVE));      /* a declaration */
		CHECK(strlen(m->id) == MUTANT_ID_LEN);
		CHECK(strcmp(m->orig, m->repl));
		for (int k = 0; k < i; k++)
			CHECK(strcmp(l.items[k].id, m->id));
	}
	for (int op = 0; op <= MUTANT_ARGUMENT; op++)
		CHECK(seen[op] > 0);
	mutant_list_free(&l);
	free(text);
}

UNIT_TEST(scope_functions_and_lines)
{
	size_t len = 0;
	char *text = sample(&len);
	const char *names[] = { "find_target" }, *bad[] = { "nope" };
	int lines[] = { 23, 24, 40 };
	struct mutant_scope fn = { .functions = names, .nr_functions = 1 };
	struct mutant_scope ln = { .lines = lines, .nr_lines = 3 };
	struct mutant_scope unknown = { .functions = bad, .nr_functions = 1 };
	struct mutant_list l = { 0 };
	struct error err;

	generate(text, len, &fn, &l);
	CHECK(l.nr > 0);
	for (int i = 0; i < l.nr; i++)
		CHECK_STR(l.items[i].function, "find_target");
	mutant_list_free(&l);
	generate(text, len, &ln, &l);
	CHECK(l.nr > 0);
	for (int i = 0; i < l.nr; i++)
		CHECK(l.items[i].line == 23 || l.items[i].line == 24 || l.items[i].line == 40);
	mutant_list_free(&l);
	CHECK_INT(mutant_generate(SAMPLE, text, len, &unknown, &l, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "no function nope") != NULL);
	mutant_list_free(&l);
	free(text);
}

/* Sorting by id is the run order; the same text gives the same ids. */
UNIT_TEST(ids_deterministic)
{
	size_t len = 0;
	char *text = sample(&len);
	struct mutant_scope all = { 0 };
	struct mutant_list a = { 0 }, b = { 0 };

	generate(text, len, &all, &a);
	generate(text, len, &all, &b);
	mutant_sort_by_id(&a);
	CHECK_INT(a.nr, b.nr);
	for (int i = 1; i < a.nr; i++)
		CHECK(strcmp(a.items[i - 1].id, a.items[i].id) < 0);
	mutant_sort_by_id(&b);
	for (int i = 0; i < a.nr && i < b.nr; i++)
		CHECK_STR(a.items[i].id, b.items[i].id);
	mutant_list_free(&a);
	mutant_list_free(&b);
	free(text);
}

UNIT_TEST(diff_of_a_mutant)
{
	size_t len = 0;
	char *text = sample(&len);
	struct mutant_scope all = { 0 };
	struct mutant_list l = { 0 };
	struct buf d = BUF_INIT;
	const struct mutant *m = NULL;

	generate(text, len, &all, &l);
	for (int i = 0; i < l.nr && !m; i++)
		if (l.items[i].line == 23 && l.items[i].op == MUTANT_REMOVE)
			m = &l.items[i];
	CHECK(m != NULL);
	if (m) {
		mutant_diff(m, text, len, &d);
		CHECK_STR(buf_str(&d), "--- a/" SAMPLE "\n+++ b/" SAMPLE "\n@@ -20,7 +20,7 @@\n"
			  " \t\tnode = next_node_in(prev, pol->nodes);\n"
			  " \twhile (skip-- > 0)\n"
			  " \t\tnode = next_node_in(node, pol->nodes);\n"
			  "-\tpol->last = node;\n"
			  "+\t;\n"
			  " \tpol->count++;\n"
			  " \tWARN_ON(node >= MAX_NUMNODES);\n"
			  " \tif (total > 3 &&\n");
	}
	buf_free(&d);
	mutant_list_free(&l);
	free(text);
}

UNIT_TEST(added_lines)
{
	size_t len = 0;
	char *diff = unit_slurp("tests/host/unit/mutate/added.diff", &len);
	int *lines = NULL, nr = 0;

	CHECK(diff != NULL);
	mutant_added_lines(diff, SAMPLE, &lines, &nr);
	CHECK_INT(nr, 2);
	if (nr == 2) {
		CHECK_INT(lines[0], 23);
		CHECK_INT(lines[1], 24);
	}
	mutant_added_lines(diff, "mm/other.c", &lines, &nr);
	CHECK_INT(nr, 3);
	if (nr == 3)
		CHECK_INT(lines[2], 2);
	free(lines);
	free(diff);
}

UNIT_TEST(equivalents_file)
{
	const char ok[] = "# why each cannot be told apart\n\n0123456789ab  the loop bound is never reached\n"
			  "ba9876543210\tthe value is rounded away\n";
	struct mutant_equivalents eq;
	struct error err;

	CHECK_INT(mutant_equivalents_parse("eq", ok, sizeof(ok) - 1, &eq, &err), 0);
	CHECK_INT(eq.nr, 2);
	CHECK(mutant_equivalent_find(&eq, "0123456789ab") != NULL);
	CHECK_STR(mutant_equivalent_find(&eq, "0123456789ab")->reason, "the loop bound is never reached");
	CHECK_INT(mutant_equivalent_find(&eq, "ba9876543210")->line, 4);
	CHECK(mutant_equivalent_find(&eq, "000000000000") == NULL);
	mutant_equivalents_free(&eq);

	CHECK_INT(mutant_equivalents_parse("eq", "0123 short\n", 11, &eq, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "eq:1:") != NULL);
	CHECK_INT(mutant_equivalents_parse("eq", "\n0123456789ab\n", 14, &eq, &err), -1);
	CHECK(strstr(err.msg, "eq:2: mutant 0123456789ab has no reason") != NULL);
	CHECK_INT(mutant_equivalents_parse("eq", "0123456789ab a\n0123456789ab b\n", 30, &eq, &err), -1);
	CHECK(strstr(err.msg, "eq:2:") && strstr(err.msg, "already listed on line 1"));
	CHECK_INT(mutant_equivalents_parse("eq", "0123456789AB upper\n", 19, &eq, &err), -1);
	/* A reason the reports would cut short is refused, not cut. */
	{
		char line[700];
		int n = snprintf(line, sizeof(line), "0123456789ab %0600d\n", 0);

		CHECK_INT(mutant_equivalents_parse("eq", line, (size_t)n, &eq, &err), -1);
		CHECK(strstr(err.msg, "eq:1: mutant 0123456789ab's reason is 600 bytes") != NULL);
	}
}

/* The lab's own list parses: every entry has a reason the reports print whole. */
UNIT_TEST(lab_equivalents)
{
	struct buf text = BUF_INIT;
	struct mutant_equivalents eq;
	struct error err;

	CHECK_INT(read_file("tests/guest/mutants.equivalent", &text, &err), 0);
	CHECK_INT(mutant_equivalents_parse("tests/guest/mutants.equivalent", text.data, text.len, &eq, &err), 0);
	if (eq.nr == 0)
		printf("#   %s\n", err.msg);
	CHECK(eq.nr > 0);
	mutant_equivalents_free(&eq);
	buf_free(&text);
}

/*
 * A result file read back is what was written; one from before guest keys
 * reads with none; a file without a status is refused.
 */
UNIT_TEST(result_file)
{
	char *dir = unit_scratch("mutant"), path[4200];
	struct mutant_result w = { .status = MUTANT_KILLED, .build_s = 21.5, .run_s = 8.25,
				   .why = "\"mempolicy/a case\"\nand more", .run_dir = "/r/x", .guest = "ab12" }, r;
	struct error err;

	snprintf(path, sizeof(path), "%s/result", dir);
	CHECK_INT(mutant_result_read(path, &r, &err), 1);
	CHECK_INT(r.status, MUTANT_NOT_RUN);
	CHECK_INT(mutant_result_write(path, &w, &err), 0);
	CHECK_INT(mutant_result_read(path, &r, &err), 0);
	CHECK_INT(r.status, MUTANT_KILLED);
	CHECK_STR(r.why, "\"mempolicy/a case\" and more");
	CHECK_STR(r.run_dir, "/r/x");
	CHECK_STR(r.guest, "ab12");
	CHECK(r.build_s > 21.4 && r.build_s < 21.6 && r.run_s > 8.1 && r.run_s < 8.4);
	CHECK_INT(write_file_atomic(path, "status survived\nrun_s 2.0\n", 25, &err), 0);
	CHECK_INT(mutant_result_read(path, &r, &err), 0);
	CHECK_INT(r.status, MUTANT_SURVIVED);
	CHECK_STR(r.guest, "");
	CHECK_INT(write_file_atomic(path, "why x\n", 6, &err), 0);
	CHECK_INT(mutant_result_read(path, &r, &err), -1);
	CHECK(strstr(err.msg, "no status line") != NULL);
	remove_tree(dir);
	free(dir);
}

/* The reports on fixed results: one of each status, a listed survivor, a wrongly listed kill. */
UNIT_TEST(reports_golden)
{
	size_t len = 0;
	char *text = sample(&len);
	const char *names[] = { "find_target" };
	struct mutant_scope sc = { .functions = names, .nr_functions = 1 };
	struct mutant_list l = { 0 };
	struct mutant_result *res;
	struct mutant_equivalents eq;
	struct buf eqtext = BUF_INIT, out = BUF_INIT;
	const char **diffs;
	struct error err;
	static const enum mutant_status cycle[] = { MUTANT_KILLED, MUTANT_SURVIVED, MUTANT_KILLED,
						    MUTANT_UNCOMPILABLE, MUTANT_SAME_OBJECT, MUTANT_KILLED,
						    MUTANT_SURVIVED, MUTANT_NOT_RUN };

	generate(text, len, &sc, &l);
	mutant_sort_by_id(&l);
	CHECK(l.nr >= 8);
	res = xcalloc((size_t)l.nr, sizeof(*res));
	diffs = xcalloc((size_t)l.nr, sizeof(*diffs));
	for (int i = 0; i < l.nr; i++) {
		struct buf d = BUF_INIT;

		res[i].status = cycle[i % 8];
		res[i].build_s = 20 + i;
		res[i].run_s = res[i].status == MUTANT_KILLED || res[i].status == MUTANT_SURVIVED ? 15 : -1;
		if (res[i].status == MUTANT_KILLED)
			snprintf(res[i].why, sizeof(res[i].why), "mempolicy, \"case %d\"", i);
		mutant_diff(&l.items[i], text, len, &d);
		diffs[i] = xstrdup(buf_str(&d));
		buf_free(&d);
	}
	/* The second survivor is listed; so is the first kill (wrongly). */
	buf_addf(&eqtext, "%s the branch is dead in this fixture\n%s listed, but a test sees it\n",
		 l.items[6].id, l.items[0].id);
	CHECK_INT(mutant_equivalents_parse("eq", buf_str(&eqtext), eqtext.len, &eq, &err), 0);
	struct mutate_report r = { .title = "sample.c; kernel stock; topology 4node; tests mempolicy",
				   .mutants = l.items, .results = res, .diffs = diffs, .nr = l.nr, .eq = &eq,
				   .equivalents_path = "tests/guest/mutants.equivalent" };
	struct mutate_score s;

	mutate_score_of(&r, NULL, NULL, &s);
	CHECK_INT(s.total, l.nr);
	CHECK_INT(s.equivalent, 1);
	CHECK_INT(s.wrongly_listed, 1);
	CHECK_INT(s.killed + s.survived + s.equivalent + s.uncompilable + s.same_object + s.not_run, s.total);
	mutate_report_text(&r, &out);
	unit_golden(GOLDEN "report.txt", out.data, out.len);
	out.len = 0;
	mutate_report_tap(&r, &out);
	unit_golden(GOLDEN "report.tap", out.data, out.len);
	out.len = 0;
	mutate_report_json(&r, &out);
	unit_golden(GOLDEN "report.json", out.data, out.len);
	out.len = 0;
	mutate_report_html(&r, &out);
	unit_golden(GOLDEN "report.html", out.data, out.len);
	for (int i = 0; i < l.nr; i++)
		free((char *)diffs[i]);
	free(diffs);
	free(res);
	buf_free(&out);
	buf_free(&eqtext);
	mutant_equivalents_free(&eq);
	mutant_list_free(&l);
	free(text);
}

static int count_of(const struct mutant_list *l, const char *function)
{
	int n = 0;

	for (int i = 0; i < l->nr; i++)
		n += !strcmp(l->items[i].function, function);
	return n;
}

/* --sample: every function keeps one, the rest in proportion, the same mutants for the same seed. */
UNIT_TEST(stratified_sample)
{
	size_t len = 0;
	char *text = sample(&len);
	struct mutant_scope all = { 0 };
	struct mutant_list full = { 0 }, a = { 0 }, b = { 0 }, c = { 0 };
	struct mutant_sample sa, sb, sc;
	int population = 0, kept = 0, same = 0;

	generate(text, len, &all, &full);
	generate(text, len, &all, &a);
	generate(text, len, &all, &b);
	generate(text, len, &all, &c);
	mutant_sort_by_id(&a);
	mutant_sort_by_id(&b);
	mutant_sample(&a, 12, 1, &sa);
	mutant_sample(&b, 12, 1, &sb);
	mutant_sample(&c, 12, 2, &sc);
	CHECK_INT(sa.nr, 2);   /* the fixture's two functions */
	CHECK_INT(a.nr, 12);
	for (int h = 0; h < sa.nr; h++) {
		const struct mutant_stratum *st = &sa.strata[h];
		/* Proportional to what is left after the first: within one of the exact share. */
		double share = 1 + (12.0 - sa.nr) * (st->population - 1) / (full.nr - sa.nr);

		population += st->population;
		kept += st->sampled;
		CHECK(st->sampled >= 1 && st->sampled <= st->population);
		CHECK(st->sampled > share - 1 && st->sampled < share + 1);
		CHECK_INT(count_of(&a, st->function), st->sampled);
		CHECK_INT(count_of(&full, st->function), st->population);
	}
	CHECK_INT(population, full.nr);
	CHECK_INT(kept, 12);
	/* The same seed keeps the same mutants, in id order; another seed others. */
	CHECK_INT(b.nr, a.nr);
	for (int i = 0; i < a.nr && i < b.nr; i++)
		CHECK_STR(a.items[i].id, b.items[i].id);
	for (int i = 1; i < a.nr; i++)
		CHECK(strcmp(a.items[i - 1].id, a.items[i].id) < 0);
	for (int i = 0; i < a.nr && i < c.nr; i++)
		same += !strcmp(a.items[i].id, c.items[i].id);
	CHECK(same < a.nr);
	mutant_sample_free(&sa);
	mutant_sample_free(&sb);
	mutant_sample_free(&sc);
	/* Fewer than the functions: the larger one keeps it; all of them: a census. */
	mutant_list_free(&a);
	generate(text, len, &all, &a);
	mutant_sample(&a, 1, 1, &sa);
	CHECK_INT(a.nr, 1);
	CHECK_STR(a.items[0].function, "pick_node");
	CHECK_INT(sa.strata[0].sampled + sa.strata[1].sampled, 1);
	mutant_sample_free(&sa);
	mutant_list_free(&a);
	generate(text, len, &all, &a);
	mutant_sample(&a, full.nr + 5, 1, &sa);
	CHECK_INT(a.nr, full.nr);
	for (int h = 0; h < sa.nr; h++)
		CHECK_INT(sa.strata[h].sampled, sa.strata[h].population);
	mutant_sample_free(&sa);
	mutant_list_free(&a);
	mutant_list_free(&b);
	mutant_list_free(&c);
	mutant_list_free(&full);
	free(text);
}

/*
 * A sampled report: the weighted score and its interval, by hand.  Two
 * functions, f (10 mutants, 2 sampled, both killed) and g (30, 3 sampled,
 * 2 killed): weights 5 and 10; score (10 + 20) / (10 + 30) = 75%; effective
 * size 40^2 / (2*25 + 3*100) = 4.571.
 */
UNIT_TEST(sampled_score)
{
	struct mutant m[5] = { 0 };
	struct mutant_result res[5] = { 0 };
	struct mutant_stratum strata[2] = { { "mm/x.c", "f", 10, 2 }, { "mm/x.c", "g", 30, 3 } };
	struct mutant_sample smp = { strata, 2, 5, 7 };
	const char *diffs[5] = { "", "", "", "", "" };
	struct mutate_estimate e;
	double lo, hi;

	for (int i = 0; i < 5; i++) {
		snprintf(m[i].id, sizeof(m[i].id), "00000000000%d", i);
		snprintf(m[i].file, sizeof(m[i].file), "mm/x.c");
		snprintf(m[i].function, sizeof(m[i].function), "%s", i < 2 ? "f" : "g");
		m[i].line = i + 1;
		res[i].status = i == 4 ? MUTANT_SURVIVED : MUTANT_KILLED;
	}
	struct mutate_report r = { .title = "t", .mutants = m, .results = res, .diffs = diffs, .nr = 5,
				   .sample = &smp };

	mutate_estimate_of(&r, NULL, &e);
	CHECK_INT(e.population, 40);
	CHECK_INT(e.sampled, 5);
	CHECK(!e.exact);
	CHECK(fabs(e.score - 75) < 1e-9);
	stats_wilson(0.75, 1600.0 / 350, 1.959964, &lo, &hi);
	CHECK(fabs(e.lo - 100 * lo) < 1e-9 && fabs(e.hi - 100 * hi) < 1e-9);
	CHECK(e.lo < 75 && e.hi > 75 && e.lo > 30);
	struct buf out = BUF_INIT;
	mutate_report_text(&r, &out);
	unit_golden(GOLDEN "report-sample.txt", out.data, out.len);
	buf_free(&out);
	mutate_estimate_of(&r, "mm/y.c", &e);
	CHECK_INT(e.population, 0);
	CHECK(e.score < 0);
	/* Without a sample the same results are a census: 80%, exact. */
	r.sample = NULL;
	mutate_estimate_of(&r, NULL, &e);
	CHECK(e.exact && fabs(e.score - 80) < 1e-9 && e.lo == e.score);
}

UNIT_MAIN(UNIT_CASE(mutants_golden),
	  UNIT_CASE(mutants_avoid),
	  UNIT_CASE(scope_functions_and_lines),
	  UNIT_CASE(ids_deterministic),
	  UNIT_CASE(diff_of_a_mutant),
	  UNIT_CASE(added_lines),
	  UNIT_CASE(equivalents_file),
	  UNIT_CASE(lab_equivalents),
	  UNIT_CASE(result_file),
	  UNIT_CASE(reports_golden),
	  UNIT_CASE(stratified_sample),
	  UNIT_CASE(sampled_score))
