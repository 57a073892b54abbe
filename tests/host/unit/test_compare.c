/*
 * compare + report: small result trees written here, compared: pairing of
 * repetitions, functional differences first, verdicts, refusals across
 * qemu/accel/topology, the emulated-NUMA note, and hostile guest names
 * escaped in every output.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/compare_report.h"
#include "unit.h"

static char *root;

static const char meta_2node[] =
	"topology: 2node (topologies/2node.topo)\n"
	"kernel: debian 7.2.13-1\n"
	"qemu: QEMU emulator version 7.2.22\n"
	"accel: tcg: /dev/kvm: No such file or directory\n"
	"guest: nodes_online: 0-1\n"
	"guest: node0.cpus: 0-1\n"
	"guest: node0.distance: 10 21\n"
	"guest: node1.cpus: 2-3\n"
	"guest: node1.distance: 21 10\n";

/* root/SIDE/run-REP/2node.debian with meta and a workloads TAP. */
static void cell(const char *side, int rep, const char *meta, double time_s, int gups_ok,
		 const char *extra_tests)
{
	char *dir = xprintf("%s/%s/run-%d/2node.debian", root, side, rep);
	char *tap = xprintf(
		"KTAP version 1\n1..2\n"
		"    # Subtest: workloads\n    KTAP version 1\n    1..3\n"
		"    ok 1 mcf local thp\n      ---\n      time_s: %.4f\n      ops_per_s: %.1f\n"
		"      numa_hit: {node0: 100, node1: 0}\n      checksum: \"0x12\"\n      ...\n"
		"    %s 2 gups remote nothp\n"
		"    ok 3 stream interleave thp # SKIP no THP\n"
		"%s"
		"ok 1 workloads\n"
		"    # Subtest: khugepaged\n    KTAP version 1\n    1..1\n"
		"    ok 1 khugepaged collapsed 2M on node 0\n"
		"    # metric: node0.collapse_wait_s %.2f\n"
		"    # metric: node0.khugepaged_last_cpu 3 -> 1\n"
		"    # metric: bulk_calls.map1 7 (7 calls)\n"
		"ok 2 khugepaged\n",
		time_s, 1000 / time_s, gups_ok ? "ok" : "not ok", extra_tests, time_s);
	char *state = xprintf("%s/%s/run-%d", root, side, rep);

	unit_put(dir, "meta", meta);
	unit_put(dir, "tap", tap);
	unit_put(state, "state", "complete\n");
	free(dir);
	free(tap);
	free(state);
}

static void clean_root(void)
{
	if (root) {
		remove_tree(root);
		free(root);
	}
	root = unit_scratch("compare");
}

static int run(struct comparison *c, int force, struct error *err)
{
	struct cmp_options o;
	char *a = xprintf("%s/A", root), *b = xprintf("%s/B", root);
	int rc;

	cmp_options_default(&o);
	o.force = force;
	o.iterations = 1000;
	rc = compare_run(c, a, b, &o, err);
	free(a);
	free(b);
	return rc;
}

static const struct cmp_metric *metric(const struct comparison *c, const char *test, const char *name)
{
	for (size_t i = 0; i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].test, test) && !strcmp(c->metrics[i].metric, name))
			return &c->metrics[i];
	return NULL;
}

static const struct cmp_test *test_row(const struct comparison *c, const char *suite, const char *test)
{
	for (size_t i = 0; i < c->nr_tests; i++)
		if (!strcmp(c->tests[i].suite, suite) && !strcmp(c->tests[i].test, test))
			return &c->tests[i];
	return NULL;
}

UNIT_TEST(pairs_repetitions_and_lists_functional_differences_first)
{
	static const double a_times[] = { 1.00, 1.02, 0.99 }, b_times[] = { 1.30, 1.31, 1.29 };
	struct comparison c;
	struct error err;
	const struct cmp_metric *m;
	const struct cmp_test *t;

	clean_root();
	for (int r = 0; r < 3; r++) {
		cell("A", r, meta_2node, a_times[r], 1, "    ok 4 only in a\n");
		cell("B", r, meta_2node, b_times[r], r != 1, "    ok 4 only in b\n");
	}
	CHECK(!run(&c, 0, &err));
	CHECK_INT(c.a.nr_cells, 3);
	CHECK_INT(c.b.nr_cells, 3);
	/* Broken first, then gone and new; the unchanged after them. */
	CHECK_INT(c.tests[0].change, CMP_TEST_BROKEN);
	CHECK_STR(c.tests[0].test, "gups remote nothp");
	CHECK_STR(c.tests[0].placement, "remote nothp");
	CHECK_INT(c.tests[0].a[CMP_PASS], 3);
	CHECK_INT(c.tests[0].b[CMP_FAIL], 1);
	CHECK_INT(c.tests[1].change, CMP_TEST_GONE);
	CHECK_INT(c.tests[2].change, CMP_TEST_NEW);
	CHECK_INT(c.nr_functional, 3);
	t = test_row(&c, "workloads", "stream interleave thp");
	CHECK(t && t->change == CMP_TEST_SAME && t->a[CMP_SKIP] == 3);
	CHECK(t && t->why_a && !strcmp(t->why_a, "SKIP no THP"));
	t = test_row(&c, "workloads", "");
	CHECK(t && t->change == CMP_TEST_SAME && t->a[CMP_PASS] == 3);
	/* time_s up 29%: lower is better, so a regression; ops_per_s down: also one. */
	m = metric(&c, "mcf local thp", "time_s");
	CHECK(m && m->verdict == CMP_REGRESSED && m->sa.n == 3 && m->sb.n == 3);
	CHECK(m && fabs(m->change_pct - 100 * (1.30 - 3.01 / 3) / (3.01 / 3)) < 1e-9);
	CHECK(m && m->welch_valid && m->p < 1e-4 && m->ci_valid && m->ci_lo > 25 && m->ci_hi < 35);
	CHECK(m && m->q == m->p);    /* no correction unless asked for */
	CHECK(m && fabs(m->sa.median - 1.00) < 1e-12);
	m = metric(&c, "mcf local thp", "ops_per_s");
	CHECK(m && m->verdict == CMP_REGRESSED && m->direction == CMP_HIGHER_BETTER);
	/* Maps become per-key metrics; a constant counter stays the same; strings are not metrics. */
	m = metric(&c, "mcf local thp", "numa_hit.node0");
	CHECK(m && m->verdict == CMP_SAME && m->direction == CMP_EITHER && m->p == 1);
	CHECK(!metric(&c, "mcf local thp", "checksum"));
	/* "# metric:" lines belong to the suite; "3 -> 1" is not a value; a comment after one is fine. */
	m = metric(&c, "", "node0.collapse_wait_s");
	CHECK(m && !strcmp(m->suite, "khugepaged") && m->direction == CMP_LOWER_BETTER);
	CHECK(!metric(&c, "", "node0.khugepaged_last_cpu"));
	m = metric(&c, "", "bulk_calls.map1");
	CHECK(m && m->verdict == CMP_SAME);
	CHECK_INT(compare_result(&c), COMPARE_CHANGED);
	compare_free(&c);
	/* Benjamini-Hochberg over the six metrics tested raises q above p, not past alpha. */
	{
		struct cmp_options o;
		char *a = xprintf("%s/A", root), *b = xprintf("%s/B", root);

		cmp_options_default(&o);
		o.correct_bh = 1;
		CHECK(!compare_run(&c, a, b, &o, &err));
		m = metric(&c, "mcf local thp", "time_s");
		CHECK(m && m->q > m->p && m->q < 1e-3 && m->verdict == CMP_REGRESSED);
		compare_free(&c);
		free(a);
		free(b);
	}
}

UNIT_TEST(same_results_pass_and_single_runs_cannot_be_tested)
{
	struct comparison c;
	struct error err;
	struct buf tap = BUF_INIT;

	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "");
	cell("A", 1, meta_2node, 1.01, 1, "");
	cell("B", 0, meta_2node, 1.005, 1, "");
	cell("B", 1, meta_2node, 1.0, 1, "");
	CHECK(!run(&c, 0, &err));
	CHECK_INT(c.nr_functional, 0);
	CHECK_INT(metric(&c, "mcf local thp", "time_s")->verdict, CMP_SAME);
	CHECK_INT(compare_result(&c), COMPARE_SAME);
	compare_free(&c);
	/* One run a side: no test possible, reported as such, and it does not fail. */
	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "");
	cell("B", 0, meta_2node, 2.0, 1, "");
	CHECK(!run(&c, 0, &err));
	CHECK_INT(metric(&c, "mcf local thp", "time_s")->verdict, CMP_FEW_SAMPLES);
	CHECK_INT(compare_result(&c), COMPARE_SAME);
	compare_report_tap(&c, &tap);
	CHECK(strstr(buf_str(&tap), "# SKIP too few samples") != NULL);
	CHECK(strstr(buf_str(&tap), "not ok") == NULL);
	CHECK(strstr(buf_str(&tap), "1..") != NULL);
	buf_free(&tap);
	compare_free(&c);
}

/* A's meta with one line replaced (key: value). */
static char *meta_with(const char *key, const char *line)
{
	struct buf b = BUF_INIT;
	char *out;

	for (const char *p = meta_2node; *p; p = next_line(p)) {
		size_t len = strcspn(p, "\n");

		if (!strncmp(p, key, strlen(key)))
			buf_addf(&b, "%s\n", line);
		else
			buf_addf(&b, "%.*s\n", (int)len, p);
	}
	out = xstrdup(buf_str(&b));
	buf_free(&b);
	return out;
}

static void expect_refusal(const char *key, const char *line, const char *want)
{
	char *meta = meta_with(key, line);
	struct comparison c;
	struct error err;

	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "");
	cell("B", 0, meta, 1.0, 1, "");
	CHECK_INT(run(&c, 0, &err), -1);
	if (!strstr(err.msg, want))
		printf("#   error '%s' does not name '%s'\n", err.msg, want);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strstr(err.msg, "--force") != NULL);
	compare_free(&c);
	/* --force compares, and the difference is a note of every report. */
	CHECK(!run(&c, 1, &err));
	CHECK(c.notes.nr > 0 && strstr(c.notes.items[0], "(--force)") && strstr(c.notes.items[0], want));
	compare_free(&c);
	free(meta);
}

UNIT_TEST(refuses_across_qemu_accel_and_topology)
{
	expect_refusal("qemu:", "qemu: QEMU emulator version 10.0.2",
		       "meta 'qemu' differs: 'QEMU emulator version 7.2.22'");
	expect_refusal("qemu:", "qemu: QEMU emulator version 10.0.2", "'QEMU emulator version 10.0.2'");
	expect_refusal("accel:", "accel: kvm: probe booted", "meta 'accel' differs: 'tcg' (A ");
	expect_refusal("topology:", "topology: 4node (topologies/4node.topo)",
		       "meta 'topology' differs: no topology in common (A: 2node; B: 4node)");
	expect_refusal("guest: node1.distance", "guest: node1.distance: 31 10",
		       "node1.distance: 21 10' (A ");
	expect_refusal("kernel:", "kernel: debian 7.2.13-1\nhost_numa: 0=0 1=1",
		       "meta 'host_numa' differs: '(none)'");
	/* The direct backend's --host-nodes cells (backend qemu) against emulated ones. */
	expect_refusal("kernel:", "kernel: debian 7.2.13-1\nhost_numa: guest0=host0,guest1=host1",
		       "meta 'host_numa' differs: '(none)'");
	expect_refusal("kernel:", "kernel: debian 7.2.13-1\nbackend: libvirt",
		       "meta 'backend' differs: 'qemu' (A ");
}

UNIT_TEST(every_output_says_numa_was_emulated)
{
	struct comparison c;
	struct error err;
	struct buf text = BUF_INIT, tap = BUF_INIT, json = BUF_INIT, html = BUF_INIT;
	char *hosted;

	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "");
	cell("B", 0, meta_2node, 1.0, 1, "");
	CHECK(!run(&c, 0, &err));
	compare_report_text(&c, 0, &text);
	compare_report_tap(&c, &tap);
	compare_report_json(&c, &json);
	compare_report_html(&c, &html);
	CHECK(strstr(buf_str(&text), "note: topology 2node: EMULATED NUMA (accel tcg)") != NULL);
	CHECK(strstr(buf_str(&tap), "# note: topology 2node: EMULATED NUMA") != NULL);
	CHECK(strstr(buf_str(&json), "\"emulated_numa\": true,\n") != NULL);
	CHECK(strstr(buf_str(&json), "EMULATED NUMA") != NULL);
	CHECK(strstr(buf_str(&html), "<li>topology 2node: EMULATED NUMA") != NULL);
	/* The HTML leads with the verdict; the note comes under it. */
	CHECK(strstr(buf_str(&html), "<h1>numalab compare: the same</h1>\n<p class=\"verdict\">0 functional "
		     "differences; ") != NULL);
	CHECK(strstr(buf_str(&html), "verdict") < strstr(buf_str(&html), "EMULATED NUMA"));
	CHECK(strstr(buf_str(&html), "(1 cell) &#8212; B:") != NULL);
	CHECK(strstr(buf_str(&text), " (1 cell), B ") != NULL);
	compare_free(&c);
	buf_free(&json);
	/* Host-backed on both sides: no emulation claim. */
	hosted = xprintf("%shost_numa: 0=0 1=1\n", meta_2node);
	clean_root();
	cell("A", 0, hosted, 1.0, 1, "");
	cell("B", 0, hosted, 1.0, 1, "");
	CHECK(!run(&c, 0, &err));
	compare_report_json(&c, &json);
	CHECK(strstr(buf_str(&json), "\"emulated_numa\": false,\n") != NULL);
	CHECK(strstr(buf_str(&json), "EMULATED") == NULL);
	CHECK(c.notes.nr == 1 && strstr(c.notes.items[0], "host_numa 0=0 1=1"));
	compare_free(&c);
	free(hosted);
	buf_free(&text);
	buf_free(&tap);
	buf_free(&json);
	buf_free(&html);
}

/* A failure's reason -- what the test said first, else /init's "exit N" -- reaches every report. */
UNIT_TEST(a_failure_shows_its_reason)
{
	static const char pass[] = "KTAP version 1\n1..2\n"
				   "    # Subtest: byo\nok 1 byo\n"
				   "    # Subtest: s\n    1..2\n    ok 1 a\n    ok 2 b\nok 2 s\n";
	static const char fail[] = "KTAP version 1\n1..2\n"
				   "    # Subtest: byo\n    # expected 16 pages on node 1, found 9 (N0=7)\n"
				   "    # byo exited with status 1\nnot ok 1 byo # exit 1\n"
				   "    # Subtest: s\n    1..2\n    # about a\n    ok 1 a\n"
				   "    # metric: x 1\n    not ok 2 b\nnot ok 2 s\n";
	struct comparison c;
	struct error err;
	struct buf text = BUF_INIT, html = BUF_INIT, json = BUF_INIT;
	const struct cmp_test *t;
	char *a, *b, *ra, *rb;

	clean_root();
	a = xprintf("%s/A/run/2node.debian", root);
	b = xprintf("%s/B/run/2node.debian", root);
	ra = xprintf("%s/A/run", root);
	rb = xprintf("%s/B/run", root);
	unit_put(a, "meta", meta_2node);
	unit_put(a, "tap", pass);
	unit_put(ra, "state", "complete\n");
	unit_put(b, "meta", meta_2node);
	unit_put(b, "tap", fail);
	unit_put(rb, "state", "complete\n");
	CHECK(!run(&c, 0, &err));
	t = test_row(&c, "byo", "");
	CHECK(t && t->change == CMP_TEST_BROKEN);
	CHECK(t && t->why_b && !strcmp(t->why_b, "expected 16 pages on node 1, found 9 (N0=7)"));
	CHECK(t && t->detail_b &&
	      !strcmp(t->detail_b, "expected 16 pages on node 1, found 9 (N0=7)\nbyo exited with status 1"));
	/* A test's nothing said: the exit; its metric lines are no reason. */
	t = test_row(&c, "s", "b");
	CHECK(t && t->change == CMP_TEST_BROKEN && !t->why_b && !t->detail_b);
	compare_report_text(&c, 0, &text);
	compare_report_html(&c, &html);
	compare_report_json(&c, &json);
	CHECK(strstr(buf_str(&text), "byo  A: 1 pass 0 fail 0 skip  B: 0 pass 1 fail 0 skip  "
				      "(expected 16 pages on node 1, found 9 (N0=7))\n") != NULL);
	CHECK(strstr(buf_str(&html), "<td>expected 16 pages on node 1, found 9 (N0=7)<pre>") != NULL);
	CHECK(strstr(buf_str(&json), "\"why\": \"expected 16 pages on node 1, found 9 (N0=7)\"") != NULL);
	CHECK(strstr(buf_str(&html), "<h1>numalab compare: changed</h1>") != NULL);
	compare_free(&c);
	free(a);
	free(b);
	free(ra);
	free(rb);
	buf_free(&text);
	buf_free(&html);
	buf_free(&json);
}

UNIT_TEST(skips_incomplete_runs_filters_kernels_and_ignores_forged_suites)
{
	char *stock = meta_with("kernel:", "kernel: stock 7.2.13\nhost_numa: none");
	char *state, *a;
	struct cmp_options o;
	struct comparison c;
	struct error err;

	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "    # Subtest: fake\n    ok 9 forged\n");
	cell("A", 1, meta_2node, 1.0, 1, "");
	state = xprintf("%s/A/run-1", root);
	unit_put(state, "state", "interrupted\n");
	cell("B", 0, meta_2node, 1.0, 1, "");
	CHECK(!run(&c, 0, &err));
	CHECK_INT(c.a.nr_cells, 1);
	CHECK(c.notes.nr == 2 && strstr(c.notes.items[1], "side A: skipped ") &&
	      strstr(c.notes.items[1], "/A/run-1/2node.debian (run state 'interrupted')"));
	CHECK(test_row(&c, "workloads", "forged") != NULL);
	CHECK(test_row(&c, "fake", "forged") == NULL);
	compare_free(&c);
	/* Two kernels in one tree: --kernel-a/--kernel-b make them A and B. */
	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "");
	cell("A", 1, stock, 1.0, 0, "");
	cmp_options_default(&o);
	o.filter_a.kernel = "debian";
	o.filter_b.kernel = "stock";
	a = xprintf("%s/A", root);
	CHECK(!compare_run(&c, a, a, &o, &err));
	CHECK_INT(c.a.nr_cells, 1);
	CHECK_INT(c.b.nr_cells, 1);
	CHECK(c.b.cells[0].host_numa == NULL);    /* "none": emulated */
	CHECK_INT(c.tests[0].change, CMP_TEST_BROKEN);
	compare_free(&c);
	o.filter_b.kernel = "stoc";
	CHECK_INT(compare_run(&c, a, a, &o, &err), -1);
	CHECK(strstr(err.msg, "no result cells below it (directories with 'tap' and 'meta') with kernel stoc") != NULL);
	compare_free(&c);
	/* By path, as a matrix's cells/TOPO.LABEL.SUITE.rN directories; unfiltered, a note. */
	o.filter_a.kernel = o.filter_b.kernel = NULL;
	o.filter_a.cells = "run-0/*";
	o.filter_b.cells = "*-1/2node.*";
	CHECK(!compare_run(&c, a, a, &o, &err));
	CHECK(c.a.nr_cells == 1 && strstr(c.a.cells[0].dir, "/run-0/"));
	CHECK(c.b.nr_cells == 1 && strstr(c.b.cells[0].dir, "/run-1/"));
	CHECK_INT(c.tests[0].change, CMP_TEST_BROKEN);
	compare_free(&c);
	o.filter_a.cells = o.filter_b.cells = NULL;
	CHECK(!compare_run(&c, a, a, &o, &err));
	CHECK(c.notes.nr == 3 && strstr(c.notes.items[1], "side A pools the kernels debian 7.2.13-1, stock 7.2.13"));
	CHECK(strstr(c.notes.items[2], "side B pools the kernels"));
	compare_free(&c);
	free(a);
	free(state);
	free(stock);
}

UNIT_TEST(hostile_names_are_escaped)
{
	static const char hostile[] =
		"    ok 4 <img src=x onerror=\"a('1')\">&amp; \x1b[31mred\\ #2\n"
		"      ---\n"
		"      <script>alert(\"x\\\")</script>: 5\n"
		"      ...\n";
	struct comparison c;
	struct error err;
	struct buf text = BUF_INIT, tap = BUF_INIT, json = BUF_INIT, html = BUF_INIT;

	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, hostile);
	cell("B", 0, meta_2node, 1.0, 1, hostile);
	CHECK(!run(&c, 0, &err));
	compare_report_text(&c, 1, &text);
	compare_report_tap(&c, &tap);
	compare_report_json(&c, &json);
	compare_report_html(&c, &html);
	/* The escape byte never reaches any output. */
	CHECK(!strchr(buf_str(&text), '\x1b') && !strchr(buf_str(&tap), '\x1b'));
	CHECK(!strchr(buf_str(&json), '\x1b') && !strchr(buf_str(&html), '\x1b'));
	CHECK(strstr(buf_str(&text), "?[31mred") != NULL);
	CHECK(strstr(buf_str(&html), "<script") == NULL);
	CHECK(strstr(buf_str(&html), "<img") == NULL);
	CHECK(strstr(buf_str(&html), "&lt;script&gt;alert(&quot;x\\&quot;)&lt;/script&gt;") != NULL);
	CHECK(strstr(buf_str(&html), "&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;amp;") != NULL);
	CHECK(strstr(buf_str(&json), "\"metric\": \"<script>alert(\\\"x\\\\\\\")</script>\"") != NULL);
	CHECK(strstr(buf_str(&json), "onerror=\\\"a('1')\\\">&amp; ?[31mred\\\\\"") != NULL);
	/* TAP: a '#' in a name must not start a directive. */
	CHECK(strstr(buf_str(&tap), "?[31mred\\\\: same") != NULL);
	CHECK(strstr(buf_str(&tap), "red\\\\ \\#2") == NULL);
	compare_free(&c);
	buf_free(&text);
	buf_free(&tap);
	buf_free(&json);
	buf_free(&html);
}

UNIT_TEST(clean_cuts_and_replaces)
{
	struct buf b = BUF_INIT;

	compare_report_clean(&b, "a\tb\xc2\x85" "c\xff" "d\xc3\xa9" "e", 0);
	CHECK_STR(buf_str(&b), "a?b??c?d\xc3\xa9" "e");    /* each byte of a C1 control, like lab/results/tap.h */
	buf_free(&b);
	compare_report_clean(&b, "ab\xc3\xa9", 3);    /* no half character */
	CHECK_STR(buf_str(&b), "ab");
	buf_free(&b);
}

UNIT_TEST(bad_input_is_named)
{
	struct comparison c;
	struct error err;
	char *empty;

	clean_root();
	cell("A", 0, meta_2node, 1.0, 1, "");
	CHECK_INT(run(&c, 0, &err), -1);
	CHECK(strstr(err.msg, "/B: No such file or directory") != NULL);
	compare_free(&c);
	empty = xprintf("%s/B/nothing", root);
	unit_put(empty, "notes", "x\n");
	CHECK_INT(run(&c, 0, &err), -1);
	CHECK(strstr(err.msg, "no result cells below it") != NULL);
	compare_free(&c);
	free(empty);
	empty = xprintf("%s/B/cell", root);
	unit_put(empty, "tap", "ok 1 x\n");
	unit_put(empty, "meta", "kernel: x\n");
	CHECK_INT(run(&c, 0, &err), -1);
	CHECK(strstr(err.msg, "/B/cell/meta:1: no 'topology:' line") != NULL);
	compare_free(&c);
	free(empty);
	remove_tree(root);
}

UNIT_MAIN(UNIT_CASE(pairs_repetitions_and_lists_functional_differences_first),
	  UNIT_CASE(same_results_pass_and_single_runs_cannot_be_tested),
	  UNIT_CASE(refuses_across_qemu_accel_and_topology),
	  UNIT_CASE(every_output_says_numa_was_emulated), UNIT_CASE(a_failure_shows_its_reason),
	  UNIT_CASE(skips_incomplete_runs_filters_kernels_and_ignores_forged_suites),
	  UNIT_CASE(hostile_names_are_escaped),
	  UNIT_CASE(clean_cuts_and_replaces), UNIT_CASE(bad_input_is_named))
