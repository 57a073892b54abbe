/*
 * The matrix without VMs: parsing and its file:line errors, expansion,
 * exclusion, repetition, timeouts, sharding, the shipped matrix files, cell
 * verdicts, the merged KTAP (with hostile cell TAP), JUnit escaping, and the
 * parallel child runner on real (tiny) children.
 */
#include "model/matrix.h"
#include "base/parallel.h"
#include "base/proc.h"
#include "analysis/report.h"
#include "results/tap.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *text, struct matrix *m, struct error *err)
{
	return matrix_parse("matrices/t.matrix", text, strlen(text), m, err);
}

static const char base[] =
	"# a comment\n"
	"topology 2node cxl   # two shapes\n"
	"kernel debian stock\n"
	"kernel madv = debian transparent_hugepage=madvise  numa_balancing=enable\n"
	"suite topology mempolicy\n";

UNIT_TEST(expansion_order_and_ids)
{
	struct matrix m;
	struct matrix_cell *cells;
	struct error err;
	int n;

	CHECK_INT(parse(base, &m, &err), 0);
	CHECK_INT(m.nr_topos, 2);
	CHECK_INT(m.nr_kernels, 3);
	CHECK_STR(m.kernels[2].label, "madv");
	CHECK_STR(m.kernels[2].spec, "debian");
	CHECK_STR(m.kernels[2].append, "transparent_hugepage=madvise numa_balancing=enable");
	CHECK_INT(m.kernels[2].line, 4);
	matrix_expand(&m, &cells, &n);
	CHECK_INT(n, 2 * 3 * 2);
	CHECK_STR(cells[0].id, "2node.debian.topology.r1");
	CHECK_STR(cells[1].id, "2node.debian.mempolicy.r1");
	CHECK_STR(cells[2].id, "2node.stock.topology.r1");
	CHECK_STR(cells[5].id, "2node.madv.mempolicy.r1");
	CHECK_STR(cells[11].id, "cxl.madv.mempolicy.r1");
	for (int i = 0; i < n; i++) {
		CHECK_INT(cells[i].index, i);
		CHECK_INT(cells[i].timeout_s, 0);
	}
	free(cells);
	matrix_free(&m);
}

/* Patch files are read from the matrix file's folder unless absolute. */
UNIT_TEST(patches_are_relative_to_the_matrix_file)
{
	static const char text[] = "topology 2node\nkernel stock\nkernel fixed = stock\n"
				   "patch fixed 0001-a.patch /tmp/0002-b.patch\nsuite mempolicy\n";
	struct matrix m;
	struct error err;

	CHECK_INT(matrix_parse("out/try/try.matrix", text, strlen(text), &m, &err), 0);
	CHECK_INT((int)m.kernels[0].patches.nr, 0);
	CHECK_INT((int)m.kernels[1].patches.nr, 2);
	CHECK_STR(m.kernels[1].patches.items[0], "out/try/0001-a.patch");
	CHECK_STR(m.kernels[1].patches.items[1], "/tmp/0002-b.patch");
	CHECK_INT(m.kernels[1].patch_line, 4);
	matrix_free(&m);
}

UNIT_TEST(exclude_repeat_timeout_last_match_wins)
{
	struct matrix m;
	struct matrix_cell *cells;
	struct error err;
	char text[2048];
	int n;

	snprintf(text, sizeof(text), "%s%s", base,
		 "exclude kernel=stock suite=mempolicy\n"
		 "exclude topology=c* kernel=madv\n"
		 "repeat 3 suite=mempolicy\n"
		 "repeat 2 suite=mempolicy kernel=madv\n"
		 "timeout 600\n"
		 "timeout 900 topology=cxl\n"
		 "accel tcg\n"
		 "accel auto kernel=stock\n");
	CHECK_INT(parse(text, &m, &err), 0);
	matrix_expand(&m, &cells, &n);
	/* 2node: debian topo + 3 mempolicy, stock topo, madv topo + 2 mempolicy; cxl: debian 1+3, stock 1 */
	CHECK_INT(n, 4 + 1 + 3 + 4 + 1);
	CHECK_STR(cells[0].id, "2node.debian.topology.r1");
	CHECK_STR(cells[3].id, "2node.debian.mempolicy.r3");
	CHECK_STR(cells[4].id, "2node.stock.topology.r1");
	CHECK_STR(cells[7].id, "2node.madv.mempolicy.r2");
	CHECK_STR(cells[12].id, "cxl.stock.topology.r1");
	CHECK_INT(cells[0].timeout_s, 600);
	CHECK_INT(cells[12].timeout_s, 900);
	CHECK_INT(cells[0].accel, MATRIX_ACCEL_TCG);
	CHECK_INT(cells[4].accel, MATRIX_ACCEL_AUTO);
	CHECK_STR(matrix_accel_name(cells[0].accel), "tcg");
	for (int i = 0; i < n; i++)
		CHECK(!strstr(cells[i].id, "stock.mempolicy") && !strstr(cells[i].id, "cxl.madv"));
	free(cells);
	matrix_free(&m);
}

UNIT_TEST(parse_errors_name_file_and_line)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "kernel debian\nsuite topology\n", "t.matrix: no topology line; add e.g. `topology 2node`" },
		{ "topology 2node\nsuite topology\n", "t.matrix: no kernel line" },
		{ "topology 2node\nkernel debian\n", "t.matrix: no suite line" },
		{ "topology 2node\ntopolgy 4node\n", "t.matrix:2: unknown statement 'topolgy'" },
		{ "topology 2node 2node\n", "t.matrix:1: topology '2node' is already declared on line 1" },
		{ "topology a.b\n", "t.matrix:1: topology name 'a.b' must be" },
		{ "kernel /boot/vmlinuz\n", "t.matrix:1: kernel name '/boot/vmlinuz' must be 1..63 of [A-Za-z0-9_+-]; label a path" },
		{ "kernel x =\n", "t.matrix:1: `kernel LABEL = SPEC [ARG...]` needs a SPEC" },
		{ "kernel a b = c\n", "t.matrix:1: '=' only follows the first word" },
		{ "patch x fix.patch\n", "t.matrix:1: patch for kernel 'x', which no earlier `kernel` line declares" },
		{ "kernel x = stock\npatch x\n", "t.matrix:2: patch takes LABEL FILE..." },
		{ "kernel x = stock\npatch x a.patch\npatch x b.patch\n",
		  "t.matrix:3: kernel 'x' has its patches on line 2 already" },
		{ "\n\nsuite\n", "t.matrix:3: suite takes one or more names" },
		{ "exclude\n", "t.matrix:1: exclude takes KEY=GLOB" },
		{ "exclude arch=la*\n", "t.matrix:1: 'arch=la*' is not KEY=GLOB" },
		{ "exclude suite=a suite=b\n", "t.matrix:1: suite= given twice" },
		{ "repeat 0\n", "t.matrix:1: repeat '0' must be a whole number 1..100" },
		{ "repeat\n", "t.matrix:1: repeat takes N" },
		{ "timeout 10s\n", "t.matrix:1: timeout '10s' must be a whole number 1..86400" },
		{ "accel hvf\n", "t.matrix:1: accel takes auto, tcg or kvm" },
		{ "host qemu+ssh://h/system\n", "t.matrix:1: host takes `URI capacity N`" },
		{ "host h1 capacity 2\n", "t.matrix:1: host 'h1' is not a libvirt URI" },
		{ "host local capacity 2\nhost local capacity 1\n", "t.matrix:2: host local is already declared on line 1" },
		{ "host local capacity 0\n", "t.matrix:1: capacity '0' must be a whole number 1..256" },
		{ "topology 2node\nkernel debian\nsuite topology\nexclude suite=topolgy\n",
		  "t.matrix:4: suite=topolgy matches no declared suite; check the spelling" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct matrix m;
		struct error err = { 0 };

		CHECK_INT(parse(bad[i].text, &m, &err), -1);
		if (!strstr(err.msg, bad[i].want))
			printf("#   case %zu: \"%s\" lacks \"%s\"\n", i, err.msg, bad[i].want);
		CHECK(strstr(err.msg, bad[i].want) != NULL);
		CHECK(m.topos == NULL && m.nr_rules == 0);
	}
}

UNIT_TEST(hostile_input_is_rejected_cleanly)
{
	static const char nul[] = "topology 2node\0\nkernel debian\nsuite topology\n";
	char longline[4000];
	struct matrix m;
	struct error err;

	CHECK_INT(matrix_parse("x.matrix", nul, sizeof(nul) - 1, &m, &err), -1);
	CHECK(strstr(err.msg, "x.matrix:1: NUL byte") != NULL);
	memset(longline, 'a', sizeof(longline));
	CHECK_INT(matrix_parse("x.matrix", longline, sizeof(longline), &m, &err), -1);
	CHECK(strstr(err.msg, "x.matrix:1: line longer than") != NULL);
	/* Not NUL terminated: the parser must stay within len. */
	CHECK_INT(matrix_parse("x.matrix", "topology 2nodeXXXX", 14, &m, &err), -1);
	CHECK(strstr(err.msg, "no kernel line") != NULL);
}

UNIT_TEST(hosts_parse)
{
	struct matrix m;
	struct error err;
	char text[1024];

	snprintf(text, sizeof(text), "%shost qemu+ssh://lab1/system capacity 4\nhost local capacity 1\n", base);
	CHECK_INT(parse(text, &m, &err), 0);
	CHECK_INT(m.nr_hosts, 2);
	CHECK_STR(m.hosts[0].uri, "qemu+ssh://lab1/system");
	CHECK_INT(m.hosts[0].capacity, 4);
	matrix_free(&m);
}

UNIT_TEST(shards_partition_the_cells)
{
	struct matrix m;
	struct matrix_cell *all, *part;
	struct error err;
	int n, seen[64] = { 0 };

	CHECK_INT(parse(base, &m, &err), 0);
	matrix_expand(&m, &all, &n);
	for (int s = 0; s < 5; s++) {
		int k;

		matrix_expand(&m, &part, &k);
		k = matrix_shard(part, k, s, 5);
		CHECK_INT(k, n / 5 + (s < n % 5));
		for (int i = 0; i < k; i++) {
			CHECK_INT(part[i].index % 5, s);
			CHECK_STR(part[i].id, all[part[i].index].id);
			seen[part[i].index]++;
			if (i)
				CHECK(part[i].index > part[i - 1].index);
		}
		free(part);
	}
	for (int i = 0; i < n; i++)
		CHECK_INT(seen[i], 1);
	free(all);
	matrix_free(&m);
}

UNIT_TEST(shard_option)
{
	struct error err;
	int i, n;

	CHECK_INT(matrix_shard_parse("2/4", &i, &n, &err), 0);
	CHECK_INT(i, 2);
	CHECK_INT(n, 4);
	CHECK_INT(matrix_shard_parse("0/1", &i, &n, &err), 0);
	CHECK_INT(matrix_shard_parse("4/4", &i, &n, &err), -1);
	CHECK(strstr(err.msg, "0 <= I < N") != NULL);
	CHECK_INT(matrix_shard_parse("1/0", &i, &n, &err), -1);
	CHECK_INT(matrix_shard_parse("-1/2", &i, &n, &err), -1);
	CHECK_INT(matrix_shard_parse("1/2x", &i, &n, &err), -1);
	CHECK_INT(matrix_shard_parse("1", &i, &n, &err), -1);
}

static int load(const char *path, struct matrix *m)
{
	FILE *f = fopen(path, "r");
	char text[16384];
	size_t len = f ? fread(text, 1, sizeof(text), f) : 0;
	struct error err;
	int rc;

	if (f)
		fclose(f);
	rc = matrix_parse(path, text, len, m, &err);
	if (rc)
		printf("#   %s\n", err.msg);
	return rc;
}

static int has_cell(const struct matrix_cell *cells, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(cells[i].id, id))
			return 1;
	return 0;
}

UNIT_TEST(shipped_matrices)
{
	struct matrix m;
	struct matrix_cell *cells;
	int n;

	CHECK_INT(load("matrices/smoke.matrix", &m), 0);
	matrix_expand(&m, &cells, &n);
	CHECK_INT(n, 2);
	CHECK_STR(cells[0].id, "2node.debian.topology.r1");
	free(cells);
	matrix_free(&m);

	CHECK_INT(load("matrices/nightly.matrix", &m), 0);
	matrix_expand(&m, &cells, &n);
	CHECK(n > 30);
	CHECK(has_cell(cells, n, "2node.stock.mempolicy.r1"));
	CHECK(has_cell(cells, n, "2node.stock.mempolicy.r2"));
	CHECK(has_cell(cells, n, "8node.wi-carryover.workloads.r1"));
	CHECK(has_cell(cells, n, "la-3c5000l.khugepaged-numa.khugepaged.r1"));
	CHECK(!has_cell(cells, n, "la-2node.stock.workloads.r1"));
	CHECK(!has_cell(cells, n, "2node.khugepaged-numa.mempolicy.r1"));
	CHECK(has_cell(cells, n, "la-2node.stock+debug.khugepaged.r1"));
	CHECK(has_cell(cells, n, "cxl.stock+debug.topology.r1"));
	CHECK(!has_cell(cells, n, "8node.stock+debug.topology.r1"));
	CHECK(!has_cell(cells, n, "2node.stock+debug.workloads.r1"));
	/* tiering on the shapes with CPU-less HMAT nodes only, mthp on every shape. */
	CHECK(has_cell(cells, n, "cxl.stock.tiering.r1"));
	CHECK(has_cell(cells, n, "cxl-3tier.stock.tiering.r1"));
	CHECK(!has_cell(cells, n, "2node.stock.tiering.r1"));
	CHECK(!has_cell(cells, n, "la-2node.stock.tiering.r1"));
	CHECK(!has_cell(cells, n, "cxl-3tier.stock.mempolicy.r1"));
	CHECK(has_cell(cells, n, "cxl-switch.stock.tiering.r1"));
	CHECK(!has_cell(cells, n, "cxl-switch.stock.mempolicy.r1"));
	/* the HMAT tier-rule shapes: topology and tiering, stock only. */
	CHECK(has_cell(cells, n, "cxl-mismatch.stock.tiering.r1"));
	CHECK(has_cell(cells, n, "cxl-partial-hmat.stock.topology.r1"));
	CHECK(!has_cell(cells, n, "cxl-partial-hmat.stock.policy.r1"));
	CHECK(!has_cell(cells, n, "cxl-mismatch.stock+debug.tiering.r1"));
	CHECK(has_cell(cells, n, "la-3c5000l.stock.mthp.r1"));
	CHECK(has_cell(cells, n, "8node.stock.mthp.r1"));
	/* policy on every shape, stock and debug only. */
	CHECK(has_cell(cells, n, "cxl-3tier.stock.policy.r1"));
	CHECK(has_cell(cells, n, "la-2node.stock+debug.policy.r1"));
	CHECK(!has_cell(cells, n, "4node.wi-carryover.policy.r1"));
	free(cells);
	matrix_free(&m);

	/* contract: three of each; the debug kernel on 4node only. */
	CHECK_INT(load("matrices/contract.matrix", &m), 0);
	matrix_expand(&m, &cells, &n);
	CHECK_INT(n, 102);
	CHECK(has_cell(cells, n, "cxl-switch.stock.tiering.r2"));
	CHECK(has_cell(cells, n, "cxl-mismatch.stock.tiering.r3"));
	CHECK(!has_cell(cells, n, "cxl-partial-hmat.stock.khugepaged.r1"));
	CHECK(has_cell(cells, n, "la-2node.stock.khugepaged.r3"));
	CHECK(has_cell(cells, n, "4node.stock+debug.khugepaged.r1"));
	CHECK(has_cell(cells, n, "la-3c5000l.stock.policy.r3"));
	CHECK(has_cell(cells, n, "cxl-3tier.stock.tiering.r3"));
	CHECK(!has_cell(cells, n, "8node.stock.tiering.r1"));
	CHECK(has_cell(cells, n, "4node.stock+debug.policy.r3"));
	CHECK(!has_cell(cells, n, "cxl.stock+debug.policy.r1"));
	free(cells);
	matrix_free(&m);
}

static const char good_tap[] =
	"KTAP version 1\n"
	"1..1\n"
	"    # Subtest: topology\n"
	"    KTAP version 1\n"
	"    1..3\n"
	"    ok 1 nodes\n"
	"    ok 2 hmat # SKIP no HMAT\n"
	"    ok 3 distances\n"
	"ok 1 topology\n"
	"# numalab: done\n";

static const char failed_tap[] =
	"KTAP version 1\n"
	"1..2\n"
	"    # Subtest: mempolicy\n"
	"    1..2\n"
	"    ok 1 bind\n"
	"    not ok 2 weighted interleave\n"
	"not ok 1 mempolicy\n"
	"    # Subtest: topology\n"
	"    1..1\n"
	"    ok 1 nodes\n"
	"ok 2 topology\n"
	"# numalab: done\n";

static const char timeout_tap[] =
	"KTAP version 1\n"
	"1..1\n"
	"    # Subtest: mempolicy\n"
	"    1..2\n"
	"    ok 1 bind\n"
	"not ok 1 mempolicy # TIMEOUT vm timeout after 300 s\n";

static const char crash_tap[] =
	"KTAP version 1\n"
	"1..1\n"
	"not ok 1 khugepaged # ERROR kernel panic: Kernel panic - not syncing: Fatal exception\n";

UNIT_TEST(cell_verdicts)
{
	char why[512];

	CHECK_INT(report_classify(0, 0, "poweroff", good_tap, strlen(good_tap), "", why, sizeof(why)), CELL_PASS);
	CHECK_INT(report_classify(1, 0, "poweroff", failed_tap, strlen(failed_tap), "", why, sizeof(why)), CELL_FAIL);
	CHECK_STR(why, "1 of 2 tests failed: mempolicy");
	CHECK_INT(report_classify(1, 0, "timeout", timeout_tap, strlen(timeout_tap), "", why, sizeof(why)), CELL_TIMEOUT);
	CHECK_STR(why, "mempolicy: vm timeout after 300 s");
	CHECK_INT(report_classify(1, 0, "crashed", crash_tap, strlen(crash_tap), "", why, sizeof(why)), CELL_FAIL);
	CHECK(!strncmp(why, "guest crashed: kernel panic", 27));
	CHECK_INT(report_classify(1, 0, "interrupted", timeout_tap, strlen(timeout_tap), "", why, sizeof(why)), CELL_ERROR);
	CHECK_INT(report_classify(3, 0, "", NULL, 0, "numalab run: cannot start QEMU", why, sizeof(why)), CELL_ERROR);
	CHECK_STR(why, "numalab run: cannot start QEMU");
	CHECK_INT(report_classify(2, 0, "", NULL, 0, "numalab run: unknown test 'x'", why, sizeof(why)), CELL_ERROR);
	CHECK_STR(why, "bad input: numalab run: unknown test 'x'");
	CHECK_INT(report_classify(137, 0, "", NULL, 0, "", why, sizeof(why)), CELL_ERROR);
	CHECK_INT(report_classify(1, 1, "", NULL, 0, "", why, sizeof(why)), CELL_TIMEOUT);
	/* The exit file lost (-1): judged from the TAP alone. */
	CHECK_INT(report_classify(-1, 0, "poweroff", good_tap, strlen(good_tap), "", why, sizeof(why)), CELL_PASS);
	CHECK_INT(report_classify(-1, 0, "", "", 0, "", why, sizeof(why)), CELL_ERROR);
	CHECK_STR(why, "no TAP from the guest");
}

/* Every line of s checked by fn; the count of lines that fail it. */
static int count_lines(const char *s, int (*bad)(const char *line, size_t len))
{
	int n = 0;

	while (*s) {
		size_t len = strcspn(s, "\n");

		n += bad(s, len);
		s += len + (s[len] == '\n');
	}
	return n;
}

static int escapes(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] == '\033' || line[i] == '\r' || line[i] == '\0')
			return 1;
	return 0;
}

UNIT_TEST(merged_tap_confines_hostile_cell_tap)
{
	static const char hostile[] =
		"KTAP version 1\n"
		"1..1\n"
		"not ok 1 mempolicy\n"
		"ok 2 2node.debian.topology.r1\n"          /* pretends to be the next cell's verdict */
		"ok 1 fake\r\nok 3 other\n"
		"\033[2K\033[1Aok 4 erased\n"
		"1..1\n"
		"    # Subtest: x\n"
		"# numalab: done";                          /* no final newline */
	struct report_cell cells[3] = {
		{ "2node.evil.mempolicy.r1", CELL_FAIL, "1 of 1 tests failed", hostile, sizeof(hostile) - 1, 3.0, NULL },
		{ "2node.debian.topology.r1", CELL_ERROR, "bad input: x\033]0;title\007", NULL, 0, -1, NULL },
		{ "2node.ok.topology.r1", CELL_PASS, "", good_tap, strlen(good_tap), 2.0, NULL },
	};
	struct buf out = BUF_INIT;
	struct tap_parser *p = calloc(1, sizeof(*p));

	report_tap(cells, 3, "t", &out);
	CHECK_INT(count_lines(buf_str(&out), escapes), 0);
	tap_init(p);
	tap_feed(p, out.data, out.len);
	tap_end(p);
	/* Exactly the three cells' verdicts at depth 0, whatever the guest wrote. */
	CHECK_INT(p->planned, 3);
	CHECK_INT(p->nr_tests, 3);
	CHECK_STR(p->tests[0].name, "2node.evil.mempolicy.r1");
	CHECK_INT(p->tests[0].status, TAP_NOT_OK);
	CHECK_STR(p->tests[1].name, "2node.debian.topology.r1");
	CHECK_INT(p->tests[1].status, TAP_ERROR);
	CHECK_STR(p->tests[1].reason, "bad input: x?]0;title?");
	CHECK_STR(p->tests[2].name, "2node.ok.topology.r1");
	CHECK_INT(p->tests[2].status, TAP_OK);
	CHECK(strstr(buf_str(&out), "\n    ok 2 2node.debian.topology.r1\n") != NULL);
	CHECK(strstr(buf_str(&out), "\n    ?[2K?[1Aok 4 erased\n") != NULL);
	CHECK(strstr(buf_str(&out), "\n    # numalab: done\nnot ok 1 2node.evil") != NULL);
	CHECK(strstr(buf_str(&out), "    KTAP version 1\n    # no TAP from this cell\n    1..0\n") != NULL);
	CHECK(strstr(buf_str(&out), "\n        ok 1 nodes\n") != NULL);
	free(p);
	buf_free(&out);
}

UNIT_TEST(xml_escaping)
{
	struct buf b = BUF_INIT;

	report_xml_escape(&b, "a<b>&\"c'\001\033\xff\xc3\xa9\xed\xa0\x80\xef\xbf\xbe");
	CHECK_STR(buf_str(&b), "a&lt;b&gt;&amp;&quot;c&apos;??\?\xc3\xa9??????");
	buf_free(&b);
}

UNIT_TEST(junit_lists_tests_and_harness_errors)
{
	struct report_cell cells[3] = {
		{ "c1", CELL_FAIL, "1 of 2 tests failed", failed_tap, strlen(failed_tap), 5.0, NULL },
		{ "c2<&>", CELL_ERROR, "kernel x build failed: \"<oops>\"", NULL, 0, -1, NULL },
		{ "c3", CELL_TIMEOUT, "mempolicy: vm timeout", timeout_tap, strlen(timeout_tap), 300.0, NULL },
	};
	struct report_counts k;
	struct buf x = BUF_INIT;

	report_count(&cells[0], &k);
	/* bind, weighted interleave (failed), nodes; mempolicy's own verdict is told by its subtest */
	CHECK_INT(k.tests, 3);
	CHECK_INT(k.passed, 2);
	CHECK_INT(k.failed, 1);
	report_count(&cells[1], &k);
	CHECK_INT(k.tests, 1);
	CHECK_INT(k.errors, 1);
	report_count(&cells[2], &k);
	CHECK_INT(k.tests, 2);
	CHECK_INT(k.errors, 1);
	report_junit(cells, 3, "m", &x);
	CHECK(strstr(buf_str(&x), "<testsuites name=\"m\" tests=\"6\" failures=\"1\" errors=\"2\" skipped=\"0\" time=\"305.0\">") != NULL);
	CHECK(strstr(buf_str(&x), "<testcase classname=\"c1.mempolicy\" name=\"weighted interleave\">\n"
			     "      <failure type=\"NOT OK\" message=\"failed\"/>") != NULL);
	CHECK(strstr(buf_str(&x), "<testsuite name=\"c2&lt;&amp;&gt;\"") != NULL);
	CHECK(strstr(buf_str(&x), "name=\"harness\">\n      <error type=\"ERROR\" message=\"kernel x build failed: &quot;&lt;oops&gt;&quot;\"/>") != NULL);
	CHECK(strstr(buf_str(&x), "<testcase classname=\"c3\" name=\"mempolicy\">\n      <error type=\"TIMEOUT\" message=\"vm timeout after 300 s\"/>") != NULL);
	buf_free(&x);
}

UNIT_TEST(summary_table)
{
	struct report_cell cells[2] = {
		{ "2node.debian.topology.r1", CELL_PASS, "", good_tap, strlen(good_tap), 12.25, "cells/a" },
		{ "x", CELL_ERROR, "not run: interrupted", NULL, 0, -1, NULL },
	};
	struct buf b = BUF_INIT;

	report_summary(cells, 2, &b);
	CHECK_STR(buf_str(&b),
		  "cell                      result   pass  fail  skip     time  why / where\n"
		  "2node.debian.topology.r1  pass        2     0     1    12.2s  cells/a\n"
		  "x                         error       0     1     0        -  not run: interrupted\n"
		  "2 cells: 1 pass, 0 fail, 0 timeout, 1 error\n");
	buf_free(&b);
}

/* Deterministic mutations of a valid file: the parser (under ASan in make check) never crashes. */
UNIT_TEST(mutated_input_never_crashes)
{
	static const char alphabet[] = " \t\n#=*?[]-.+/:0123456789abcdefghijklmnopqrstuvwxyz\0\377";
	char text[2048], mutated[2048];
	unsigned int seed = 12345;
	int ok = 0;

	snprintf(text, sizeof(text), "%sexclude kernel=st* suite=m*\nrepeat 2 topology=cxl\ntimeout 60\n"
		 "host local capacity 2\n", base);
	for (int round = 0; round < 3000; round++) {
		size_t len = strlen(text);
		struct matrix m;
		struct matrix_cell *cells;
		struct error err;
		int n;

		memcpy(mutated, text, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			mutated[(seed >> 8) % len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		seed = seed * 1103515245u + 12345u;
		if (round % 7 == 0)
			len = (seed >> 8) % len;
		if (matrix_parse("f.matrix", mutated, len, &m, &err)) {
			CHECK(!strncmp(err.msg, "f.matrix", 8));
			continue;
		}
		ok++;
		matrix_expand(&m, &cells, &n);
		for (int i = 0; i < n; i++)
			CHECK(cells[i].topo < m.nr_topos && cells[i].kernel < m.nr_kernels && cells[i].suite < m.nr_suites);
		free(cells);
		matrix_free(&m);
	}
	CHECK(ok > 0);
}

/* --- parallel: real children */

struct seen {
	int started, finished, codes[8], timed_out[8];
	int max_running, running;
};

static const char *const programs[][4] = {
	{ "true", NULL }, { "false", NULL }, { "sleep", "30", NULL }, { "/nonexistent/x", NULL },
	{ "sh", "-c", "echo out; echo err >&2; exit 7", NULL },
};

static int next_task(void *ctx, struct parallel_task *t)
{
	struct seen *s = ctx;
	int i = s->started;

	if (i == (int)(sizeof(programs) / sizeof(programs[0])))
		return PARALLEL_DONE;
	for (int a = 0; programs[i][a]; a++)
		strvec_push(&t->argv, programs[i][a]);
	snprintf(t->log, sizeof(t->log), "/tmp/numalab-unit-parallel.%d.%d", (int)getpid(), i);
	t->timeout_s = i == 2 ? 1 : 0;
	t->data = (void *)(long)i;
	s->started++;
	if (++s->running > s->max_running)
		s->max_running = s->running;
	return PARALLEL_START;
}

static void task_done(void *ctx, struct parallel_task *t, const struct parallel_end *e)
{
	struct seen *s = ctx;
	int i = (int)(long)t->data;

	s->running--;
	s->finished++;
	s->codes[i] = e->code;
	s->timed_out[i] = e->timed_out;
	if (i == 3)
		CHECK(e->err && strstr(e->err->msg, "cannot run /nonexistent/x") != NULL);
	if (i == 4) {
		FILE *f = fopen(t->log, "r");
		char text[64] = "";

		CHECK(f && fread(text, 1, sizeof(text) - 1, f) > 0);
		CHECK_STR(text, "out\nerr\n");
		if (f)
			fclose(f);
	}
	unlink(t->log);
}

UNIT_TEST(parallel_runs_reaps_and_times_out)
{
	struct seen s = { 0 };
	struct parallel pp = { 2, 1, next_task, task_done, NULL, &s, NULL };

	CHECK_INT(parallel_run(&pp), 0);
	CHECK_INT(s.finished, 5);
	CHECK(s.max_running <= 2);
	CHECK_INT(s.codes[0], 0);
	CHECK_INT(s.codes[1], 1);
	CHECK_INT(s.codes[2], 128 + 15);   /* SIGTERM at its deadline */
	CHECK_INT(s.timed_out[2], 1);
	CHECK_INT(s.timed_out[0], 0);
	CHECK_INT(s.codes[3], -1);
	CHECK_INT(s.codes[4], 7);
}

/* A signal handler's proc_kill_all() lets a parallel child record its interruption. */
static const char *interrupt_log;
static int interrupt_code = -2, interrupt_seen;

static int next_trapping_task(void *ctx, struct parallel_task *t)
{
	int *started = ctx;

	if ((*started)++)
		return PARALLEL_DONE;
	strvec_push(&t->argv, "/bin/sh");
	strvec_push(&t->argv, "-c");
	strvec_push(&t->argv, "trap 'exit 42' TERM; echo ready; while :; do sleep 0.1; done");
	snprintf(t->log, sizeof(t->log), "%s", interrupt_log);
	return PARALLEL_START;
}

static void trapping_done(void *ctx, struct parallel_task *t, const struct parallel_end *e)
{
	(void)ctx;
	(void)t;
	interrupt_code = e->code;
	interrupt_seen = e->interrupted;
}

/* "A signal arrived" once the child's trap is set: what vm.c's handler does. */
static int interrupt_when_ready(void)
{
	static int fired;
	FILE *f = fired ? NULL : fopen(interrupt_log, "r");
	char line[16] = "";

	if (f) {
		if (fgets(line, sizeof(line), f) && !strcmp(line, "ready\n")) {
			proc_kill_all();
			fired = 1;
		}
		fclose(f);
	}
	return fired;
}

UNIT_TEST(parallel_interrupt_lets_children_record_it)
{
	char log[128];
	int started = 0;
	struct parallel pp = { 1, 10, next_trapping_task, trapping_done, interrupt_when_ready, &started, NULL };

	snprintf(log, sizeof(log), "/tmp/numalab-unit-interrupt.%d", (int)getpid());
	interrupt_log = log;
	CHECK_INT(parallel_run(&pp), 1);
	CHECK_INT(interrupt_code, 42);   /* SIGTERM, trapped; SIGKILL would be 137 */
	CHECK_INT(interrupt_seen, 1);
	unlink(log);
}

UNIT_MAIN(UNIT_CASE(expansion_order_and_ids), UNIT_CASE(patches_are_relative_to_the_matrix_file),
	  UNIT_CASE(exclude_repeat_timeout_last_match_wins),
	  UNIT_CASE(parse_errors_name_file_and_line), UNIT_CASE(hostile_input_is_rejected_cleanly),
	  UNIT_CASE(hosts_parse), UNIT_CASE(shards_partition_the_cells), UNIT_CASE(shard_option),
	  UNIT_CASE(shipped_matrices), UNIT_CASE(cell_verdicts), UNIT_CASE(merged_tap_confines_hostile_cell_tap),
	  UNIT_CASE(mutated_input_never_crashes), UNIT_CASE(xml_escaping), UNIT_CASE(junit_lists_tests_and_harness_errors), UNIT_CASE(summary_table),
	  UNIT_CASE(parallel_runs_reaps_and_times_out), UNIT_CASE(parallel_interrupt_lets_children_record_it))
