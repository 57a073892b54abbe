/*
 * test_flat: the one walk of nested KTAP (tap_walk) and what is built from
 * it: flat TAP 13 and JUnit, against golden files in tests/host/unit/golden/flat/
 * (NAME.ktap in; NAME.flat, NAME.cell.flat, NAME.cell.xml out), and
 * flat.tap == `numalab tap flatten matrix.tap` for made-up matrices.
 *
 * UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review the
 * diff before committing it).
 */
#include "analysis/report.h"
#include "results/tap.h"
#include "unit.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "tests/host/unit/golden/flat"

static void compare_golden(const char *name, struct buf *got)
{
	char *golden = xprintf("%s/%s", GOLDEN_DIR, name);

	unit_golden(golden, buf_str(got), got->len);
	free(golden);
}

static void load(const char *name, struct buf *b)
{
	char *path = xprintf("%s/%s", GOLDEN_DIR, name);
	struct error err;

	if (read_file(path, b, &err)) {
		printf("#   %s\n", err.msg);
		CHECK(0);
	}
	free(path);
}

/* The leaves as "depth|suite/suite|name|STATUS|reason|yaml" lines. */
static void leaf_line(void *ctx, const struct tap_node *l)
{
	struct buf *b = ctx;

	buf_addf(b, "%d|", l->depth);
	for (int i = 0; i < l->depth; i++)
		buf_addf(b, "%s%s", i ? "/" : "", l->suites[i]);
	buf_addf(b, "|%s|%s|%s|", l->t->name, tap_status_name(l->t->status), l->t->reason);
	for (const char *y = l->yaml ? l->yaml : ""; *y; y++)
		buf_add(b, *y == '\n' ? "$" : y, 1);
	buf_addstr(b, "\n");
}

static void walk_text(const char *text, struct buf *out)
{
	static const struct tap_walk_ops ops = { .on_leaf = leaf_line };

	tap_walk(text, strlen(text), &ops, out);
}

UNIT_TEST(walk_names_leaves_by_path)
{
	struct buf b = BUF_INIT;

	walk_text("KTAP version 1\n1..2\n"
		  "    # Subtest: a\n    1..2\n    ok 1 x\n    ok 2 y # SKIP why\nok 1 a\n"
		  "    # Subtest: b\n    1..1\n"
		  "        # Subtest: c\n        1..1\n        not ok 1 z\n    not ok 1 c\n"
		  "not ok 2 b\n", &b);
	/* b and c failed through z: they are no leaves of their own */
	CHECK_STR(buf_str(&b), "1|a|x|OK||\n1|a|y|SKIP|why|\n2|b/c|z|NOT OK||\n");
	buf_free(&b);
}

UNIT_TEST(walk_keeps_a_suites_own_verdict_when_its_leaves_do_not_tell_it)
{
	struct buf b = BUF_INIT;

	walk_text("    # Subtest: t\n    ok 1 x\nnot ok 1 t # TIMEOUT vm timeout\n"
		  "    # Subtest: u\n    ok 1 x\nnot ok 2 u\n"
		  "    # Subtest: v\n    not ok 1 x # ERROR cut\nnot ok 3 v # ERROR cut\n"
		  "    # Subtest: w\n    1..0 # SKIP nothing here\nok 4 w # SKIP nothing here\n", &b);
	CHECK_STR(buf_str(&b), "1|t|x|OK||\n0||t|TIMEOUT|vm timeout|\n"
			       "1|u|x|OK||\n0||u|NOT OK||\n"
			       "1|v|x|ERROR|cut|\n"
			       "0||w|SKIP|nothing here|\n");
	buf_free(&b);
}

UNIT_TEST(walk_yaml_block_comes_with_its_leaf)
{
	struct buf b = BUF_INIT;

	walk_text("    # Subtest: w\n    ok 1 r\n      ---\n      time_s: 2\n        deeper: 1\n      ...\n"
		  "    ok 2 s\n      ---\n      cut: short\n"
		  "    ok 3 t\n    ---\n    not yaml of t\nok 1 w\n", &b);
	/* s's block lacks its "...": the next result ends it; t's is at the wrong indent */
	CHECK_STR(buf_str(&b), "1|w|r|OK||time_s: 2$  deeper: 1$\n1|w|s|OK||cut: short$\n1|w|t|OK||\n");
	buf_free(&b);
}

UNIT_TEST(walk_a_test_cannot_rename_itself_or_open_siblings)
{
	struct buf b = BUF_INIT;

	walk_text("    # Subtest: real\n    # Subtest: fake\n    ok 1 x\n"
		  "    # Subtest: fake2\n    ok 2 y\nok 1 real\n", &b);
	CHECK_STR(buf_str(&b), "1|real|x|OK||\n1|real|y|OK||\n");
	buf_free(&b);
}

UNIT_TEST(walk_is_bounded_and_survives_garbage)
{
	struct buf b = BUF_INIT, deep = BUF_INIT, yaml = BUF_INIT;

	/* Deeper than TAP_WALK_DEPTH: ignored; results without Subtest lines get "" levels. */
	for (int d = TAP_WALK_DEPTH + 2; d > 0; d--)
		buf_addf(&deep, "%*sok 1 at %d\n", 4 * d, "", d);
	buf_addstr(&deep, "ok 1 top\n");
	walk_text(buf_str(&deep), &b);
	CHECK(strstr(buf_str(&b), "7|//////|at 7|OK||\n") != NULL);
	CHECK(strstr(buf_str(&b), "at 8") == NULL);
	CHECK(strstr(buf_str(&b), "|top|") == NULL);
	/* A YAML block past TAP_YAML_MAX is cut, not overflowed. */
	buf_addstr(&yaml, "ok 1 big\n  ---\n");
	for (int i = 0; i < 2 * TAP_YAML_MAX / 16; i++)
		buf_addstr(&yaml, "  key: 123456789\n");
	buf_addstr(&yaml, "  ...\nok 2 after\n");
	b.len = 0;
	walk_text(buf_str(&yaml), &b);
	CHECK(strstr(buf_str(&b), "0||big|OK||key: 123456789$") != NULL);
	CHECK(b.len < TAP_YAML_MAX + 100);
	CHECK(strstr(buf_str(&b), "\n0||after|OK||\n") != NULL);
	b.len = 0;
	walk_text("\x1b[31mok 1 \xff\n    ok\n     ok 1 x\n\tok 2\nnot ok\nok 3 fine \xff\n", &b);
	CHECK_STR(buf_str(&b), "0||fine ?|OK||\n");
	buf_free(&b);
	buf_free(&deep);
	buf_free(&yaml);
}

/* Every callback as one line: "S depth path name", "E|T depth path name STATUS {comment} [yaml]", "D depth path text". */
static void node_path(struct buf *b, const struct tap_node *n, int upto)
{
	for (int i = 0; i < upto; i++)
		buf_addf(b, "%s%s", i ? "/" : "", n->suites[i]);
}

static void on_suite(void *ctx, const struct tap_node *n)
{
	buf_addf(ctx, "S %d ", n->depth);
	node_path(ctx, n, n->depth);
	buf_addf(ctx, " %s|%s\n", n->text, n->suites[n->depth]);
}

static void on_result(struct buf *b, char kind, const struct tap_node *n)
{
	buf_addf(b, "%c %d ", kind, n->depth);
	node_path(b, n, n->depth);
	buf_addf(b, " %s %s {%s}", n->t->name, tap_status_name(n->t->status), n->comment);
	if (kind == 'E')
		buf_addf(b, " <%s>", n->suites[n->depth]);
	if (n->yaml) {
		buf_addstr(b, " [");
		for (const char *y = n->yaml; *y; y++)
			buf_add(b, *y == '\n' ? "$" : y, 1);
		buf_addstr(b, "]");
	}
	buf_addstr(b, "\n");
}

static void on_suite_end(void *ctx, const struct tap_node *n)
{
	on_result(ctx, 'E', n);
}

static void on_test(void *ctx, const struct tap_node *n)
{
	on_result(ctx, 'T', n);
}

static void on_diag(void *ctx, const struct tap_node *n)
{
	buf_addf(ctx, "D %d ", n->depth);
	node_path(ctx, n, n->depth);
	buf_addf(ctx, " %s\n", n->text);
}

static const struct tap_walk_ops all_ops = { on_suite, on_suite_end, on_test, on_diag, NULL };

static void walk_all(const char *text, struct buf *out)
{
	tap_walk(text, strlen(text), &all_ops, out);
}

UNIT_TEST(walk_calls_back_suites_tests_yaml_and_diagnostics)
{
	struct buf b = BUF_INIT;

	walk_all("KTAP version 1\n# guest.kernel: 7.2\n1..2\n"
		 "    # Subtest: mempolicy\n    KTAP version 1\n    1..2\n"
		 "    # metric: bind_ns 120\n"
		 "    ok 1 - bind # SKIP no node 1\n"
		 "    not ok 2 interleave # exit=1\n      ---\n      time_s: 1.5\n      map: {a: 1}\n      ...\n"
		 "        # Subtest: deep\n        ok 1 leaf\n    ok 3 deep\n"
		 "not ok 1 mempolicy\n"
		 "    # Subtest: tiering\n    1..0 # SKIP no tiers\n"
		 "ok 2 tiering # SKIP no tiers\n  ---\n  why: none\n  ...\n"
		 "# numalab: done\n", &b);
	CHECK_STR(buf_str(&b),
		  "D 0  # guest.kernel: 7.2\n"
		  "S 0  mempolicy|mempolicy\n"
		  "D 1 mempolicy # metric: bind_ns 120\n"
		  "T 1 mempolicy bind SKIP {SKIP no node 1}\n"
		  "T 1 mempolicy interleave NOT OK {exit=1} [time_s: 1.5$map: {a: 1}$]\n"
		  "S 1 mempolicy deep|deep\n"
		  "T 2 mempolicy/deep leaf OK {}\n"
		  "E 1 mempolicy deep OK {} <deep>\n"
		  "E 0  mempolicy NOT OK {} <mempolicy>\n"
		  "S 0  tiering|tiering\n"
		  "E 0  tiering SKIP {SKIP no tiers} <tiering> [why: none$]\n"
		  "D 0  # numalab: done\n");
	buf_free(&b);
}

/* The streaming walker over a parser's lines says what the one-shot walk says. */
UNIT_TEST(walker_over_a_stream_is_the_walk)
{
	static const char text[] = "    # Subtest: a\n    ok 1 x\n      ---\n      k: 1\n"
				   "      ...\n    # note\nok 1 a\n    # Subtest: b\n    not ok 1 y";
	struct buf whole = BUF_INIT, streamed = BUF_INIT;
	struct tap_parser *p = xcalloc(1, sizeof(*p));
	struct tap_walker *w = tap_walker_new(&all_ops, &streamed);

	walk_all(text, &whole);
	tap_init(p);
	p->on_line = (void (*)(void *, const char *))tap_walker_line;
	p->ctx = w;
	for (size_t i = 0; i < sizeof(text) - 1; i += 5)   /* fed in pieces, lines cut anywhere */
		tap_feed(p, text + i, sizeof(text) - 1 - i < 5 ? sizeof(text) - 1 - i : 5);
	tap_end(p);
	tap_walker_end(w);
	CHECK_STR(buf_str(&streamed), buf_str(&whole));
	/* the last result has no depth-0 result after it: it is a test of the open suite b */
	CHECK(strstr(buf_str(&whole), "T 1 b y NOT OK {}\n") != NULL);
	free(p);
	buf_free(&whole);
	buf_free(&streamed);
}

/* A test's own output cannot open suites, end them or forge YAML for another. */
UNIT_TEST(walk_of_hostile_text)
{
	struct buf b = BUF_INIT, big = BUF_INIT;

	walk_all("    # Subtest: real\n    # Subtest: forged\n    ok 1 x\n"
		 "   ok 2 three spaces\n     ok 3 five\n\tok 4 tab\n"
		 "    ok 5 \x1b[2Jclear\n      ---\n    ...\n      k: v\nok 1 real\n"
		 "  ---\n  after: the suite's end\n", &b);
	CHECK_STR(buf_str(&b),
		  "S 0  real|real\n"
		  "D 1 real # Subtest: forged\n"
		  "T 1 real x OK {}\n"
		  /* 3, 5 spaces and a tab are no depth; the block cut by "    ..." stays empty */
		  "T 1 real ?[2Jclear OK {} []\n"
		  "E 0  real OK {} <real> [after: the suite's end$]\n");
	/* Stale names never leak: a level closed and not reopened reads "". */
	b.len = 0;
	walk_all("    # Subtest: s\n        ok 1 deep\n    ok 1 mid\nok 1 s\n    # late diag\n"
		 "        ok 1 orphan\n", &b);
	CHECK(strstr(buf_str(&b), "D 1  # late diag\n") != NULL);
	CHECK(strstr(buf_str(&b), "T 2 / orphan OK {}\n") != NULL);
	/* Many levels, long lines: bounded, no callback past TAP_WALK_DEPTH. */
	for (int d = 0; d < TAP_WALK_DEPTH + 4; d++)
		buf_addf(&big, "%*s# Subtest: %0*d\n", 4 * (d + 1), "", 2000, d);
	b.len = 0;
	walk_all(buf_str(&big), &b);
	for (const char *l = buf_str(&b); *l; l = next_line(l)) {
		int depth = -1;

		CHECK(sscanf(l, "S %d", &depth) == 1);
		CHECK(depth >= 0 && depth < TAP_WALK_DEPTH);
		CHECK(strcspn(l, "\n") < TAP_LINE_MAX * 2);
	}
	buf_free(&b);
	buf_free(&big);
}

/* Every result as "name|reason|output|diags", newlines as '$'. */
static void add_escaped(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_add(b, *s == '\n' ? "$" : s, 1);
}

static void output_line(void *ctx, const struct tap_node *n)
{
	char why[256];

	tap_reason(n, why, sizeof(why));
	buf_addf(ctx, "%s|%s|", n->t->name, why);
	add_escaped(ctx, n->output);
	buf_addstr(ctx, "|");
	add_escaped(ctx, n->diags);
	buf_addstr(ctx, "\n");
}

static const struct tap_walk_ops output_ops = { .on_test = output_line, .on_suite_end = output_line };

UNIT_TEST(walk_gives_each_result_its_output_and_reason)
{
	static const char text[] =
		"# guest.kernel: 7.2\n1..4\n"
		"    # Subtest: s\n    1..2\n    # about a\n    ok 1 a\n      ---\n      k: 1\n      ...\n"
		"    # metric: x 1\n    # want 2, got 3\n    not ok 2 b\n"
		"    # s exited with status 1\nnot ok 1 s # exit 1\n"
		"    # Subtest: ltp\n    # tst_test.c:1: TINFO: version\n    # f.c:9: TBROK: no loop\n"
		"        deeper\nnot ok 2 ltp # exit 2\n"
		"    # Subtest: quiet\n    # Subtest: forged\nnot ok 3 quiet # signal 9\n"
		"    # Subtest: skipper\n    # totals: pass:0\n    # the why\nok 4 skipper # SKIP\n";
	struct buf b = BUF_INIT, big = BUF_INIT;

	tap_walk(text, strlen(text), &output_ops, &b);
	CHECK_STR(buf_str(&b),
		  /* a test's own lines since its previous sibling; not the guest view before */
		  "a||# about a$|# about a$\n"
		  /* a failure's reason: its first diagnostic that is not the lab's bookkeeping */
		  "b|want 2, got 3|# metric: x 1$# want 2, got 3$|# metric: x 1$# want 2, got 3$\n"
		  /* a suite: all it printed; its own diagnostics only those after its last result */
		  "s|s exited with status 1|1..2$# about a$ok 1 a$  ---$  k: 1$  ...$# metric: x 1$"
		  "# want 2, got 3$not ok 2 b$# s exited with status 1$|# s exited with status 1$\n"
		  /* LTP's first TBROK before its TINFO; deeper lines are output, not diagnostics */
		  "ltp|f.c:9: TBROK: no loop|# tst_test.c:1: TINFO: version$# f.c:9: TBROK: no loop$    deeper$|"
		  "# tst_test.c:1: TINFO: version$# f.c:9: TBROK: no loop$\n"
		  /* nothing said: the comment /init wrote; a forged header is output only */
		  "quiet|signal 9|# Subtest: forged$|\n"
		  /* a SKIP without a reason: its first diagnostic */
		  "skipper|the why|# totals: pass:0$# the why$|# totals: pass:0$# the why$\n");
	/* Bounded: past TAP_OUTPUT_MAX a test's lines are dropped, its result still comes. */
	buf_addstr(&big, "    # Subtest: big\n");
	for (int i = 0; i < TAP_OUTPUT_MAX / 32 + 10; i++)
		buf_addstr(&big, "    # 0123456789012345678901234\n");
	buf_addstr(&big, "not ok 1 big\n");
	b.len = 0;
	tap_walk(buf_str(&big), big.len, &output_ops, &b);
	CHECK(b.len > TAP_OUTPUT_MAX && b.len < 2 * TAP_OUTPUT_MAX + 100);
	CHECK(!strncmp(buf_str(&b), "big|0123456789012345678901234|#", 31));
	buf_free(&b);
	buf_free(&big);
}

/* The golden run: flattened as any file, and as a run's one cell (flat TAP, JUnit). */
UNIT_TEST(golden_run)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct report_cell cell = { "4node.debian", CELL_TIMEOUT, "khugepaged: vm timeout after 300 s",
				    NULL, 0, 301.5, NULL };
	struct report_counts k;

	load("run.ktap", &in);
	report_flatten(buf_str(&in), in.len, &out);
	compare_golden("run.flat", &out);
	cell.tap = buf_str(&in);
	cell.tap_len = in.len;
	out.len = 0;
	report_flat_tap(&cell, 1, &out);
	compare_golden("run.cell.flat", &out);
	out.len = 0;
	report_junit(&cell, 1, "4node.debian", &out);
	compare_golden("run.cell.xml", &out);
	/* The counts every consumer sees: 14 leaves (TODO counts as a skip). */
	report_count(&cell, &k);
	CHECK_INT(k.tests, 14);
	CHECK_INT(k.passed, 6);
	CHECK_INT(k.failed, 4);
	CHECK_INT(k.errors, 2);
	CHECK_INT(k.skipped, 2);
	buf_free(&in);
	buf_free(&out);
}

UNIT_TEST(golden_matrix)
{
	struct buf in = BUF_INIT, out = BUF_INIT;

	load("matrix.ktap", &in);
	report_flatten(buf_str(&in), in.len, &out);
	compare_golden("matrix.flat", &out);
	buf_free(&in);
	buf_free(&out);
}

#define TOPOLOGY_TAP \
	"KTAP version 1\n1..2\n" \
	"    # Subtest: topology\n    1..2\n    ok 1 nodes\n    ok 2 hmat # SKIP no HMAT\nok 1 topology\n"
static const char pass_tap[] = TOPOLOGY_TAP;
static const char fail_tap[] = TOPOLOGY_TAP "    # Subtest: mempolicy\n    1..1\n    not ok 1 bind\nnot ok 2 mempolicy\n";
static const char cut_tap[] =
	"KTAP version 1\n1..1\n    # Subtest: mempolicy\n    ok 1 bind\n"
	"not ok 1 mempolicy # TIMEOUT vm timeout after 300 s\n";

/* Whatever the cells, flattening the matrix's KTAP gives its flat TAP. */
UNIT_TEST(flattened_matrix_tap_is_flat_tap)
{
	struct report_cell cells[] = {
		{ "a.pass", CELL_PASS, "", pass_tap, strlen(pass_tap), 1, NULL },
		{ "b.fail", CELL_FAIL, "1 of 2 tests failed", fail_tap, strlen(fail_tap), 2, NULL },
		{ "c.fail-no-failure", CELL_FAIL, "numalab run exited 1: x", pass_tap, strlen(pass_tap), 3, NULL },
		{ "d.error", CELL_ERROR, "kernel build failed: \"x\" \xc3\xa9", NULL, 0, -1, NULL },
		{ "e.timeout", CELL_TIMEOUT, "mempolicy: vm timeout after 300 s", cut_tap, strlen(cut_tap), 300, NULL },
		{ "f.watchdog", CELL_TIMEOUT, "the matrix stopped `numalab run` at its deadline", pass_tap,
		  strlen(pass_tap), 600, NULL },
	};
	int n = (int)(sizeof(cells) / sizeof(cells[0]));
	struct buf nested = BUF_INIT, flat = BUF_INIT, again = BUF_INIT;
	struct report_counts k;
	int tests = 0, lines = 0;

	report_tap(cells, n, "t", &nested);
	report_flat_tap(cells, n, &flat);
	report_flatten(buf_str(&nested), nested.len, &again);
	CHECK_STR(buf_str(&again), buf_str(&flat));
	for (int i = 0; i < n; i++) {
		report_count(&cells[i], &k);
		tests += k.tests;
	}
	for (const char *l = buf_str(&flat); *l; l = next_line(l))
		lines += !strncmp(l, "ok ", 3) || !strncmp(l, "not ok ", 7);
	CHECK_INT(lines, tests);
	compare_golden("cells.flat", &flat);
	buf_free(&nested);
	buf_free(&flat);
	buf_free(&again);
}

UNIT_MAIN(UNIT_CASE(walk_names_leaves_by_path),
	  UNIT_CASE(walk_keeps_a_suites_own_verdict_when_its_leaves_do_not_tell_it),
	  UNIT_CASE(walk_yaml_block_comes_with_its_leaf),
	  UNIT_CASE(walk_a_test_cannot_rename_itself_or_open_siblings),
	  UNIT_CASE(walk_is_bounded_and_survives_garbage),
	  UNIT_CASE(walk_calls_back_suites_tests_yaml_and_diagnostics),
	  UNIT_CASE(walker_over_a_stream_is_the_walk), UNIT_CASE(walk_of_hostile_text),
	  UNIT_CASE(walk_gives_each_result_its_output_and_reason), UNIT_CASE(golden_run),
	  UNIT_CASE(golden_matrix), UNIT_CASE(flattened_matrix_tap_is_flat_tap))
