/*
 * test_tap: the KTAP parser against well-formed, truncated and hostile guest
 * streams.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/tap.h"
#include "unit.h"

/* Every line on_line saw, each followed by '\n'. */
struct lines {
	int n;
	char text[16384];
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;
	size_t len = strlen(l->text);

	l->n++;
	snprintf(l->text + len, sizeof(l->text) - len, "%s\n", line);
}

static void feed(struct tap_parser *p, const char *s)
{
	tap_feed(p, s, strlen(s));
}

static void start(struct tap_parser *p, struct lines *l)
{
	tap_init(p);
	memset(l, 0, sizeof(*l));
	p->on_line = collect;
	p->ctx = l;
}

static const char nested[] =
	"KTAP version 1\n"
	"# guest.kernel: 7.2.13+deb14-amd64\n"
	"1..3\n"
	"    # Subtest: topology\n"
	"    KTAP version 1\n"
	"    1..3\n"
	"    ok 1 nodes\n"
	"    not ok 2 distances\n"
	"    ok 3 hmat # SKIP no CPU-less node\n"
	"not ok 1 topology\n"
	"    # Subtest: mempolicy-basic\n"
	"    KTAP version 1\n"
	"    1..2\n"
	"    ok 1 bind\n"
	"        # Subtest: deeper\n"
	"        not ok 1 only text at depth 2\n"
	"    ok 2 interleave\n"
	"ok 2 mempolicy-basic\n"
	"    # Subtest: hotplug\n"
	"    1..1\n"
	"    ok 1 add # todo flaky\n"
	"ok 3 hotplug # SKIP no memory hotplug\n"
	"# numalab: done\n";

UNIT_TEST(nested_pass_fail_skip)
{
	struct tap_parser p;
	struct lines l;
	struct tap_summary s;

	start(&p, &l);
	feed(&p, nested);
	tap_end(&p);
	CHECK_INT(p.version_seen, 1);
	CHECK_INT(p.planned, 3);
	CHECK_INT(p.nr_tests, 3);
	CHECK_INT(p.garbage_lines, 0);
	CHECK_INT(p.done, 1);
	CHECK_INT(l.n, 23);
	CHECK_STR(l.text, nested);
	CHECK_STR(p.tests[0].name, "topology");
	CHECK_INT(p.tests[0].number, 1);
	CHECK_INT(p.tests[0].status, TAP_NOT_OK);
	CHECK_INT(p.tests[0].sub_planned, 3);
	CHECK_INT(p.tests[0].sub_pass, 1);
	CHECK_INT(p.tests[0].sub_fail, 1);
	CHECK_INT(p.tests[0].sub_skip, 1);
	CHECK_STR(p.tests[1].name, "mempolicy-basic");
	CHECK_INT(p.tests[1].status, TAP_OK);
	CHECK_INT(p.tests[1].sub_planned, 2);
	CHECK_INT(p.tests[1].sub_pass, 2);	/* the depth-2 "not ok" is not counted */
	CHECK_INT(p.tests[1].sub_fail, 0);
	CHECK_INT(p.tests[2].number, 3);
	CHECK_INT(p.tests[2].status, TAP_SKIP);
	CHECK_STR(p.tests[2].reason, "no memory hotplug");
	CHECK_INT(p.tests[2].sub_skip, 1);	/* its TODO subtest */
	CHECK_STR(tap_info_get(&p, "kernel"), "7.2.13+deb14-amd64");
	CHECK_INT(tap_failed(&p), 1);
	tap_summarise(&p, &s);
	CHECK_INT(s.tests, 3);
	CHECK_INT(s.passed, 1);
	CHECK_INT(s.failed, 1);
	CHECK_INT(s.skipped, 1);
	CHECK_INT(s.subtests_passed, 3);
	CHECK_INT(s.subtests_failed, 1);
	CHECK_INT(s.subtests_skipped, 2);
}

UNIT_TEST(directives)
{
	struct tap_parser p;
	static const enum tap_status want[] = {
		TAP_OK, TAP_NOT_OK, TAP_SKIP, TAP_TODO, TAP_TIMEOUT,
		TAP_ERROR, TAP_SKIP, TAP_OK, TAP_TODO, TAP_OK,
	};

	tap_init(&p);
	feed(&p, "TAP version 14\n1..10\n"
		 "ok 1 - plain\n"
		 "not ok 2 broken\n"
		 "ok 3 skipped # SKIP not here\n"
		 "not ok 4 known # TODO fix later\n"
		 "not ok 5 slow #  TIMEOUT  30 s  \n"
		 "not ok 6 harness # ERROR no binary\n"
		 "ok 7 lower # skip lower case\n"
		 "ok 8 note # just a comment\n"
		 "not ok 9 # todo\n"
		 "ok 10 x # SKIPPED is no directive\n");
	CHECK_INT(p.nr_tests, 10);
	CHECK_INT(p.garbage_lines, 0);
	for (int i = 0; i < p.nr_tests && i < 10; i++) {
		CHECK_INT(p.tests[i].number, i + 1);
		CHECK_INT(p.tests[i].status, want[i]);
	}
	CHECK_STR(p.tests[0].name, "plain");
	CHECK_STR(p.tests[2].reason, "not here");
	CHECK_STR(p.tests[3].reason, "fix later");
	CHECK_STR(p.tests[4].name, "slow");
	CHECK_STR(p.tests[4].reason, "30 s");
	CHECK_STR(p.tests[5].reason, "no binary");
	CHECK_STR(p.tests[6].reason, "lower case");
	CHECK_STR(p.tests[7].name, "note");
	CHECK_STR(p.tests[7].reason, "");
	CHECK_STR(p.tests[8].name, "");
	CHECK_STR(p.tests[9].name, "x");
	CHECK_INT(tap_failed(&p), 1);

	tap_init(&p);
	feed(&p, "1..3\nok 1 a\nok 2 b # SKIP\nnot ok 3 c # TODO\n");
	CHECK_INT(tap_failed(&p), 0);
}

UNIT_TEST(garbage_mixed_in)
{
	struct tap_parser p;

	tap_init(&p);
	feed(&p, "KTAP version 1\n"
		 "1..5x\n"
		 "1..2\n"
		 "hello world\n"
		 "  ok 1 two-space\n"
		 "   three spaces\n"
		 "\tok 1 tab\n"
		 "okay 1\n"
		 "ok x name\n"
		 "ok 12x name\n"
		 "not  ok 1 double-space\n"
		 "\n"
		 "Bail out!\n"
		 "ok 1 a\n"
		 "[    1.234] kernel: something\n"
		 "TAP version 12\n"
		 "KTAP version 2\n"
		 "ok 2 b\n");
	CHECK_INT(p.garbage_lines, 14);
	CHECK_INT(p.nr_tests, 2);
	CHECK_STR(p.tests[0].name, "a");
	CHECK_STR(p.tests[1].name, "b");
	CHECK_INT(p.planned, 2);
	CHECK_INT(tap_failed(&p), 0);
}

/* A stream with every awkward case, so chunk boundaries fall on them. */
static const char nasty[] =
	"KTAP version 1\r\n"
	"# guest.cpus: 4\r\n"
	"1..3\n"
	"    # Subtest: a\r\n"
	"    ok 1 x\x1b[31mred\x1b[0m\n"
	"    not ok 2 n\0ul\r\r\n"
	"ok 1 a\n"
	"ok 2 caf\xc3\xa9 \xff\xc3(\n"
	"junk \x01\x02\x7f\n"
	"    # Subtest: long\n"
	"    ok 1 "
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"not ok 9 past the limit, dropped\n"
	"not ok 3 long # TIMEOUT 30 s\n"
	"# numalab: done";		/* no final newline: tap_end parses it */

static void parse_in_chunks(struct tap_parser *p, struct lines *l, size_t chunk)
{
	start(p, l);
	for (size_t at = 0; at < sizeof(nasty) - 1; at += chunk)
		tap_feed(p, nasty + at, chunk < sizeof(nasty) - 1 - at ? chunk : sizeof(nasty) - 1 - at);
	tap_end(p);
}

static void check_same(const struct tap_parser *a, const struct lines *la,
		       const struct tap_parser *b, const struct lines *lb)
{
	CHECK_INT(b->planned, a->planned);
	CHECK_INT(b->nr_tests, a->nr_tests);
	CHECK_INT(b->nr_info, a->nr_info);
	CHECK_INT(b->garbage_lines, a->garbage_lines);
	CHECK_INT(b->done, a->done);
	CHECK(!memcmp(a->tests, b->tests, sizeof(a->tests)));
	CHECK(!memcmp(a->info, b->info, sizeof(a->info)));
	CHECK_INT(lb->n, la->n);
	CHECK_STR(lb->text, la->text);
}

UNIT_TEST(byte_at_a_time_same_as_all_at_once)
{
	static struct tap_parser whole, one, seven;
	static struct lines lw, l1, l7;

	parse_in_chunks(&whole, &lw, sizeof(nasty));
	CHECK_INT(whole.planned, 3);
	CHECK_INT(whole.nr_tests, 3);
	CHECK_INT(whole.garbage_lines, 1);
	CHECK_INT(whole.done, 1);
	CHECK_INT(whole.tests[0].sub_pass, 1);
	CHECK_INT(whole.tests[0].sub_fail, 1);
	CHECK_INT(whole.tests[2].status, TAP_TIMEOUT);
	CHECK_INT(whole.tests[2].sub_pass, 1);
	CHECK_STR(tap_info_get(&whole, "cpus"), "4");
	CHECK_INT(lw.n, 13);
	parse_in_chunks(&one, &l1, 1);
	check_same(&whole, &lw, &one, &l1);
	parse_in_chunks(&seven, &l7, 7);
	check_same(&whole, &lw, &seven, &l7);
}

UNIT_TEST(truncated_plan_gives_not_run_errors)
{
	static const char *const names[] = { "topology", "mempolicy-basic", "hotplug" };
	struct tap_parser p;
	struct tap_summary s;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	tap_init(&p);
	feed(&p, "KTAP version 1\n1..3\n"
		 "    # Subtest: topology\n    1..1\n    ok 1 nodes\nok 1 topology\n");
	tap_end(&p);
	CHECK_INT(tap_failed(&p), 1);	/* two planned tests have no result */
	tap_close(&p, TAP_ERROR, "kernel panic", names, 3, f);
	fclose(f);
	CHECK_STR(out, "not ok 2 mempolicy-basic # ERROR not run: kernel panic\n"
		       "not ok 3 hotplug # ERROR not run: kernel panic\n");
	CHECK_INT(p.nr_tests, 3);
	CHECK_INT(p.tests[1].number, 2);
	CHECK_INT(p.tests[1].status, TAP_ERROR);
	CHECK_STR(p.tests[1].reason, "not run: kernel panic");
	CHECK_STR(p.tests[2].name, "hotplug");
	tap_summarise(&p, &s);
	CHECK_INT(s.passed, 1);
	CHECK_INT(s.errors, 2);
	free(out);
}

UNIT_TEST(truncated_pending_test_times_out)
{
	static const char *const names[] = { "topology", "mempolicy-basic", "hotplug" };
	static struct tap_parser p, again;
	static struct lines l, la;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	start(&p, &l);
	feed(&p, "KTAP version 1\n1..3\nok 1 topology\n"
		 "    # Subtest: mempolicy-basic\n    1..2\n    ok 1 bind\n"
		 "    not ok 2 interl");
	tap_close(&p, TAP_TIMEOUT, "vm timeout after 300 s", names, 3, f);
	fclose(f);
	CHECK_STR(out, "not ok 2 mempolicy-basic # TIMEOUT vm timeout after 300 s\n"
		       "not ok 3 hotplug # ERROR not run: vm timeout after 300 s\n");
	CHECK_INT(p.nr_tests, 3);
	CHECK_INT(p.tests[1].number, 2);
	CHECK_INT(p.tests[1].status, TAP_TIMEOUT);
	CHECK_INT(p.tests[1].sub_pass, 1);
	CHECK_INT(p.tests[1].sub_fail, 1);	/* the cut last line still counted */
	CHECK_INT(p.tests[2].status, TAP_ERROR);

	/* The saved stream plus the added lines reads back the same. */
	start(&again, &la);
	feed(&again, l.text);
	feed(&again, out);
	CHECK_INT(again.garbage_lines, 0);
	CHECK_INT(again.nr_tests, 3);
	CHECK(!memcmp(again.tests, p.tests, sizeof(p.tests)));
	free(out);
}

/* A crash report after every result: one more failing result of its own. */
UNIT_TEST(error_after_a_complete_stream)
{
	static const char *const names[] = { "sanitizer" };
	struct tap_parser p;
	struct tap_summary s;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	tap_init(&p);
	feed(&p, "KTAP version 1\n1..1\n    # Subtest: sanitizer\n    1..1\n    ok 1 provoked\n"
		 "ok 1 sanitizer\n# numalab: done\n");
	CHECK_INT(tap_failed(&p), 0);
	tap_close(&p, TAP_ERROR, "kernel sanitizer: BUG: KASAN: slab-out-of-bounds", names, 1, f);
	fflush(f);
	CHECK_INT(out_len, 0);	/* nothing was open */
	tap_add_error(&p, "console", "kernel sanitizer: BUG: KASAN: slab-out-of-bounds\x1b[0m", f);
	fclose(f);
	CHECK_STR(out, "not ok 2 console # ERROR kernel sanitizer: BUG: KASAN: slab-out-of-bounds?[0m\n");
	CHECK_INT(tap_failed(&p), 1);
	tap_summarise(&p, &s);
	CHECK_INT(s.passed, 1);
	CHECK_INT(s.errors, 1);
	free(out);
}

UNIT_TEST(close_without_plan)
{
	static const char *const names[] = { "a", "b" };
	struct tap_parser p;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	tap_init(&p);
	feed(&p, "KTAP version 1\n    # Subtest: a\n");
	/* OK means ERROR; the reason quotes the guest's console, escapes and all. */
	tap_close(&p, TAP_OK, "kernel \x1b[1mpanic\r", names, 2, f);
	fclose(f);
	CHECK_STR(out, "not ok 1 a # ERROR kernel ?[1mpanic?\n"
		       "not ok 2 b # ERROR not run: kernel ?[1mpanic?\n"
		       "1..2\n");
	CHECK_INT(p.planned, 2);
	CHECK_INT(p.tests[0].status, TAP_ERROR);
	free(out);
}

UNIT_TEST(result_matches_pending_by_name)
{
	struct tap_parser p;
	struct tap_summary s;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	tap_init(&p);
	feed(&p, "    # Subtest: a\n    ok 1 a1\nok 1 b\n    ok 1 late\n");
	CHECK_INT(p.nr_tests, 2);
	CHECK_INT(p.tests[0].status, TAP_PENDING);
	CHECK_INT(p.tests[0].sub_pass, 1);
	CHECK_STR(p.tests[1].name, "b");
	CHECK_INT(p.tests[1].status, TAP_OK);
	CHECK_INT(p.garbage_lines, 1);	/* "late": the block ended with "ok 1 b" */
	CHECK_INT(tap_failed(&p), 1);
	tap_summarise(&p, &s);
	CHECK_INT(s.failed, 1);
	tap_close(&p, TAP_TIMEOUT, "vm timeout after 10 s", NULL, 0, f);
	fclose(f);
	CHECK_STR(out, "not ok 2 a # TIMEOUT vm timeout after 10 s\n1..2\n");
	free(out);
}

UNIT_TEST(overlong_lines_cut)
{
	static char buf[4 * TAP_LINE_MAX];
	struct tap_parser p;
	static struct lines l;
	char *at = buf;
	char want_name[sizeof(p.tests[0].name)];

	at += sprintf(at, "ok 1 ");
	memset(at, 'a', 2000);
	at += 2000;
	at += sprintf(at, "ok 9 fake\n");
	memset(at, 'y', TAP_LINE_MAX);		/* exactly the limit: kept whole */
	at += TAP_LINE_MAX;
	*at++ = '\n';
	memset(at, 'z', TAP_LINE_MAX + 1);	/* one over: the last byte dropped */
	at += TAP_LINE_MAX + 1;
	sprintf(at, "\nok 2 b\n");
	start(&p, &l);
	feed(&p, buf);
	CHECK_INT(l.n, 4);
	CHECK_INT(strcspn(l.text, "\n"), TAP_LINE_MAX);
	CHECK_INT(strcspn(l.text + TAP_LINE_MAX + 1, "\n"), TAP_LINE_MAX);
	CHECK_INT(strcspn(l.text + 2 * (TAP_LINE_MAX + 1), "\n"), TAP_LINE_MAX);
	CHECK_STR(l.text + 3 * (TAP_LINE_MAX + 1), "ok 2 b\n");
	CHECK_INT(p.nr_tests, 2);
	memset(want_name, 'a', sizeof(want_name) - 1);
	want_name[sizeof(want_name) - 1] = '\0';
	CHECK_STR(p.tests[0].name, want_name);
	CHECK_INT(p.tests[1].number, 2);
	CHECK_INT(p.garbage_lines, 2);
}

UNIT_TEST(control_bytes_and_cr)
{
	static const char in[] = "ok 1 a\x1b[31mred\x1b[0m\n"
				 "ok 2 n\0ul\r\n"
				 "ok 3 t\tab\x7f\x08\r\n"
				 "ok 4 b\rc\r\n"
				 "\tok 5 tab\n"
				 "\x1b[2Jok 6 x\n";
	struct tap_parser p;
	struct lines l;

	start(&p, &l);
	tap_feed(&p, in, sizeof(in) - 1);
	CHECK_STR(l.text, "ok 1 a?[31mred?[0m\n"
			  "ok 2 n?ul\n"
			  "ok 3 t\tab??\n"
			  "ok 4 b?c\n"
			  "\tok 5 tab\n"
			  "?[2Jok 6 x\n");
	CHECK_INT(p.nr_tests, 4);
	CHECK_STR(p.tests[0].name, "a?[31mred?[0m");
	CHECK_STR(p.tests[1].name, "n?ul");
	CHECK_STR(p.tests[2].name, "t ab??");   /* a tab in the TAP, a space in the name */
	CHECK_STR(p.tests[3].name, "b?c");
	CHECK_INT(p.garbage_lines, 2);
}

UNIT_TEST(invalid_utf8)
{
	struct tap_parser p;
	struct lines l;
	static char cut[TAP_LINE_MAX + 8];

	start(&p, &l);
	feed(&p, "ok 1 caf\xc3\xa9 \xf0\x9f\x98\x80\n"	/* valid: kept */
		 "ok 2 \xff\xfe\x80\n"			/* never valid bytes */
		 "ok 3 \xc3(\n"				/* cut short */
		 "ok 4 \xc0\xaf\n"			/* overlong '/' */
		 "ok 5 \xed\xa0\x80\n"			/* surrogate */
		 "ok 6 \xc2\x9b" "31m\n"		/* C1 CSI */
		 "ok 7 \xf4\x90\x80\x80\n"		/* past U+10FFFF */
		 "ok 8 \xbf\xbf\n");			/* continuation as lead */
	CHECK_STR(l.text, "ok 1 caf\xc3\xa9 \xf0\x9f\x98\x80\n"
			  "ok 2 ???\n"
			  "ok 3 ?(\n"
			  "ok 4 ??\n"
			  "ok 5 ???\n"
			  "ok 6 ??31m\n"
			  "ok 7 ????\n"
			  "ok 8 ??\n");
	CHECK_INT(p.nr_tests, 8);

	/* A cut through a character leaves no stray lead byte. */
	start(&p, &l);
	memset(cut, 'x', TAP_LINE_MAX - 1);
	strcpy(cut + TAP_LINE_MAX - 1, "\xc3\xa9\n");
	feed(&p, cut);
	CHECK_INT(strlen(l.text), TAP_LINE_MAX + 1);
	CHECK_INT(l.text[TAP_LINE_MAX - 1], '?');
}

UNIT_TEST(name_cut_at_character_boundary)
{
	struct tap_parser p;
	char line[256];
	size_t max = sizeof(p.tests[0].name) - 1;

	tap_init(&p);
	snprintf(line, sizeof(line), "ok 1 %0*d\xc3\xa9\n", (int)max - 1, 0);
	feed(&p, line);	/* 'é' would straddle the limit: left out */
	snprintf(line, sizeof(line), "ok 2 %0*d\xc3\xa9\n", (int)max - 2, 0);
	feed(&p, line);	/* 'é' ends exactly at the limit: kept */
	CHECK_INT(strlen(p.tests[0].name), max - 1);
	CHECK_INT(strlen(p.tests[1].name), max);
	CHECK_STR(p.tests[1].name + max - 2, "\xc3\xa9");
}

UNIT_TEST(fake_plans_and_wrong_depths)
{
	struct tap_parser p;

	tap_init(&p);
	feed(&p, "KTAP version 1\n1..2\n"
		 "    ok 1 orphan\n"		/* no test open: garbage */
		 "    1..5\n"			/* likewise */
		 "    # Subtest: a\n"
		 "    1..2\n"
		 "    1..9\n"			/* second nested plan: garbage */
		 "    ok 1 a1\n"
		 "        not ok 1 deep\n"	/* depth 2: text only */
		 "    # numalab: done\n"		/* not at depth 0 */
		 "    # guest.fake: x\n"		/* likewise */
		 "ok 1 a\n"
		 "    not ok 2 late\n"		/* a is finished: garbage */
		 "1..7\n"			/* fake plan: garbage */
		 "1..1 # also fake\n"
		 "ok 2 b\n");
	CHECK_INT(p.planned, 2);
	CHECK_INT(p.garbage_lines, 6);
	CHECK_INT(p.nr_tests, 2);
	CHECK_INT(p.tests[0].sub_planned, 2);
	CHECK_INT(p.tests[0].sub_pass, 1);
	CHECK_INT(p.tests[0].sub_fail, 0);
	CHECK_INT(p.tests[1].sub_planned, -1);
	CHECK_INT(p.done, 0);
	CHECK_INT(p.nr_info, 0);
	CHECK(tap_info_get(&p, "fake") == NULL);
	CHECK_INT(tap_failed(&p), 0);
}

/* A test printing "# Subtest: X" (relayed one level in) cannot open a phantom test. */
UNIT_TEST(a_test_cannot_forge_tests)
{
	struct tap_parser p;

	tap_init(&p);
	feed(&p, "KTAP version 1\n1..2\n"
		 "    # Subtest: topology\n"
		 "    KTAP version 1\n"
		 "    1..1\n"
		 "    # Subtest: ../../evil\n"	/* the test's own text */
		 "    ok 1 nodes\n"
		 "ok 1 topology\n"
		 "    # Subtest: mempolicy\n"
		 "    # Subtest: mempolicy\n"
		 "ok 2 mempolicy\n");
	CHECK_INT(p.nr_tests, 2);
	CHECK_STR(p.tests[0].name, "topology");
	CHECK_INT(p.tests[0].sub_pass, 1);
	CHECK_STR(p.tests[1].name, "mempolicy");
	CHECK_INT(tap_failed(&p), 0);
}

UNIT_TEST(info_lines)
{
	struct tap_parser p;
	char line[512];

	tap_init(&p);
	feed(&p, "# guest.kernel: 7.2.13+deb14-amd64\n"
		 "# guest.cpus:   4   \n"
		 "# guest.empty:\n"
		 "# guest.kernel: spoofed\n"
		 "# guest.: nokey\n"
		 "# guest.no-colon\n"
		 "# guest.a key: spaced\n"
		 "# numalab: done   \n");
	snprintf(line, sizeof(line), "# guest.long: %0300d\n", 0);
	feed(&p, line);
	snprintf(line, sizeof(line), "# guest.%047d: fits\n# guest.%048d: too long\n", 1, 2);
	feed(&p, line);
	CHECK_INT(p.nr_info, 5);
	CHECK_STR(p.info[4].value, "fits");
	CHECK_STR(tap_info_get(&p, "kernel"), "7.2.13+deb14-amd64");
	CHECK_STR(tap_info_get(&p, "cpus"), "4");
	CHECK_STR(tap_info_get(&p, "empty"), "");
	CHECK(tap_info_get(&p, "missing") == NULL);
	CHECK_INT(strlen(tap_info_get(&p, "long")), sizeof(p.info[0].value) - 1);
	CHECK_INT(p.garbage_lines, 0);
	CHECK_INT(p.done, 1);

	tap_init(&p);
	for (int i = 0; i < TAP_MAX_INFO + 10; i++) {
		snprintf(line, sizeof(line), "# guest.k%d: v%d\n", i, i);
		feed(&p, line);
	}
	CHECK_INT(p.nr_info, TAP_MAX_INFO);
	CHECK_STR(tap_info_get(&p, "k63"), "v63");
	CHECK(tap_info_get(&p, "k64") == NULL);
}

UNIT_TEST(more_tests_than_storage)
{
	struct tap_parser p;
	char line[64];

	tap_init(&p);		/* no plan, so only the drops can fail the run */
	for (int i = 1; i < TAP_MAX_TESTS; i++) {
		snprintf(line, sizeof(line), "ok %d t%d\n", i, i);
		feed(&p, line);
	}
	/* The last slot is taken when the next test finds no room. */
	snprintf(line, sizeof(line), "    # Subtest: last\nok %d last\n", TAP_MAX_TESTS);
	feed(&p, line);
	feed(&p, "    # Subtest: extra\n    ok 1 s\n");
	CHECK_INT(p.tests[TAP_MAX_TESTS - 1].sub_pass, 0);
	CHECK_INT(p.garbage_lines, 1);
	for (int i = TAP_MAX_TESTS + 1; i <= 200; i++) {
		snprintf(line, sizeof(line), "ok %d more\n", i);
		feed(&p, line);
	}
	CHECK_INT(p.nr_tests, TAP_MAX_TESTS);
	CHECK_INT(p.tests_dropped, 200 - TAP_MAX_TESTS);
	CHECK_INT(p.tests[TAP_MAX_TESTS - 1].number, TAP_MAX_TESTS);
	CHECK_INT(p.tests[TAP_MAX_TESTS - 1].status, TAP_OK);
	CHECK_INT(tap_failed(&p), 1);	/* all ok, but 72 verdicts are lost */

	/* A huge plan cut short: bounded storage, no endless loop. */
	tap_init(&p);
	feed(&p, "1..999999999\nok 1 a\n");
	tap_close(&p, TAP_ERROR, "panic", NULL, 0, NULL);
	CHECK_INT(p.nr_tests, TAP_MAX_TESTS);
	CHECK_INT(p.tests[TAP_MAX_TESTS - 1].number, TAP_MAX_TESTS);
	CHECK_INT(p.tests_dropped, 1);
}

UNIT_TEST(numbers_outside_the_plan)
{
	struct tap_parser p;

	tap_init(&p);
	feed(&p, "1..2\nok 999999999 far\nok 1234567890 ten-digits\nok 2147483648 x\n");
	CHECK_INT(p.nr_tests, 1);
	CHECK_INT(p.tests[0].number, 999999999);
	CHECK_INT(p.garbage_lines, 2);
	tap_close(&p, TAP_ERROR, "panic", NULL, 0, NULL);
	CHECK_INT(p.nr_tests, 3);
	CHECK_INT(p.tests[1].number, 1);
	CHECK_STR(p.tests[1].name, "");
	CHECK_INT(p.tests[2].number, 2);
}

UNIT_TEST(versions)
{
	struct tap_parser p;

	tap_init(&p);
	feed(&p, "TAP version 12\nKTAP version 2\n");
	CHECK_INT(p.version_seen, 0);
	CHECK_INT(p.garbage_lines, 2);
	feed(&p, "TAP version 13\n");
	CHECK_INT(p.version_seen, 1);
	tap_init(&p);
	feed(&p, "TAP version 14\r\n");
	CHECK_INT(p.version_seen, 1);
}

UNIT_TEST(status_names)
{
	CHECK_STR(tap_status_name(TAP_PENDING), "PENDING");
	CHECK_STR(tap_status_name(TAP_OK), "OK");
	CHECK_STR(tap_status_name(TAP_NOT_OK), "NOT OK");
	CHECK_STR(tap_status_name(TAP_SKIP), "SKIP");
	CHECK_STR(tap_status_name(TAP_TODO), "TODO");
	CHECK_STR(tap_status_name(TAP_TIMEOUT), "TIMEOUT");
	CHECK_STR(tap_status_name(TAP_ERROR), "ERROR");
	CHECK_STR(tap_status_name((enum tap_status)99), "?");
}

UNIT_MAIN(UNIT_CASE(nested_pass_fail_skip), UNIT_CASE(directives),
	  UNIT_CASE(garbage_mixed_in), UNIT_CASE(byte_at_a_time_same_as_all_at_once),
	  UNIT_CASE(truncated_plan_gives_not_run_errors),
	  UNIT_CASE(truncated_pending_test_times_out), UNIT_CASE(error_after_a_complete_stream),
	  UNIT_CASE(close_without_plan),
	  UNIT_CASE(result_matches_pending_by_name), UNIT_CASE(overlong_lines_cut),
	  UNIT_CASE(control_bytes_and_cr), UNIT_CASE(invalid_utf8),
	  UNIT_CASE(name_cut_at_character_boundary), UNIT_CASE(fake_plans_and_wrong_depths),
	  UNIT_CASE(a_test_cannot_forge_tests),
	  UNIT_CASE(info_lines), UNIT_CASE(more_tests_than_storage),
	  UNIT_CASE(numbers_outside_the_plan), UNIT_CASE(versions), UNIT_CASE(status_names))
