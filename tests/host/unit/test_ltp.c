/*
 * test_ltp: LTP's result lines as TAP results (lab/model/ltp.h), as /init
 * nests a `format ltp` suite's output: golden files in
 * tests/host/unit/golden/ltp/ (sample.out, LTP's output of both APIs, in;
 * sample.ktap, the nested lines /init prints, out), the lines that are not
 * results, and the counts every TAP reader takes from them.
 *
 * UPDATE_GOLDEN=1 rewrites the golden file instead of comparing (review the
 * diff before committing it).
 */
#include "model/ltp.h"
#include "results/tap.h"
#include "unit.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "tests/host/unit/golden/ltp"

/* What /init's relay prints for a `format ltp` suite's output (images/init/run.c). */
static void nest(const char *out, struct buf *ktap)
{
	char line[4200], result[4300];
	int n = 0;

	buf_addstr(ktap, "    KTAP version 1\n");
	for (const char *p = out; *p; ) {
		size_t len = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (ltp_tap_result(line, n + 1, result, sizeof(result)))
			buf_addf(ktap, "    %s\n", result), n++;
		else
			buf_addf(ktap, "    # %s\n", line);
		p += len + (p[len] == '\n');
	}
	buf_addf(ktap, "    1..%d\n", n);
}

UNIT_TEST(sample_golden)
{
	char *in = xprintf("%s/sample.out", GOLDEN_DIR), *golden = xprintf("%s/sample.ktap", GOLDEN_DIR);
	struct buf out = BUF_INIT, ktap = BUF_INIT;
	struct error err;

	CHECK_INT(read_file(in, &out, &err), 0);
	nest(buf_str(&out), &ktap);
	unit_golden(golden, buf_str(&ktap), ktap.len);
	buf_free(&out);
	buf_free(&ktap);
	free(in);
	free(golden);
}

/* Each type as its result, the location its name, the message its reason. */
UNIT_TEST(result_lines)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "mbind01.c:253: TPASS: Test passed", "ok 7 mbind01.c:253 # TPASS: Test passed" },
		{ "a.c:1: TFAIL: Node 1 allocated 9, expected 16", "not ok 7 a.c:1 # TFAIL: Node 1 allocated 9, expected 16" },
		{ "tst_device.c:450: TBROK: Failed to acquire device",
		  "not ok 7 tst_device.c:450 # ERROR TBROK: Failed to acquire device" },
		{ "a.c:101: TCONF: This arch 'x86_64' is not supported",
		  "ok 7 a.c:101 # SKIP TCONF: This arch 'x86_64' is not supported" },
		{ "tst_test.c:9: TWARN: cleanup failed", "not ok 7 tst_test.c:9 # TWARN: cleanup failed" },
		{ "a.c:3: TPASS: ", "ok 7 a.c:3 # TPASS: " },
		{ "move_pages01    1  TPASS  :  Test passed", "ok 7 move_pages01 1 # TPASS: Test passed" },
		{ "move_pages02\t 12  TFAIL  :  x.c:9: move_pages failed: errno=EFAULT(14): Bad address",
		  "not ok 7 move_pages02 12 # TFAIL: x.c:9: move_pages failed: errno=EFAULT(14): Bad address" },
		{ "a.c:5: \033[1;31mTFAIL: \033[0mred", "not ok 7 a.c:5 # TFAIL: red" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[256] = "";

		CHECK_INT(ltp_tap_result(cases[i].line, 7, out, sizeof(out)), 1);
		CHECK_STR(out, cases[i].want);
	}
}

/* Information, LTP's summary, TAP and near misses stay output: they are no result. */
UNIT_TEST(not_results)
{
	static const char *const lines[] = {
		"tst_test.c:1900: TINFO: LTP version: 20250130",
		"tst_test.c:1900: TDEBUG: detail",
		"move_pages03    2  TINFO  :  not a result",
		"Summary:",
		"passed   4",
		"ok 1 TAP is not LTP's",
		"a.c: TPASS: no line number",
		"a.c:12 TPASS: no colon after the line",
		"a.c:12: TPASSED: not a type",
		"a.c:12: tpass: lower case",
		"a.c:12: TPASS no colon after the type",
		"move_pages01 x TPASS : no number",
		"move_pages01 1 TPASS no colon",
		"move_pages01 1",
		": TFAIL: no file",
		"",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char out[64] = "untouched";

		CHECK_INT(ltp_tap_result(lines[i], 1, out, sizeof(out)), 0);
		CHECK_STR(out, "untouched");
	}
}

/* A cut takes a long message or a long location, never the directive (found by fuzz_ltp). */
UNIT_TEST(cut_to_fit)
{
	char line[5000], out[64];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "a.c:1: TFAIL: ", 14);
	CHECK_INT(ltp_tap_result(line, 1, out, sizeof(out)), 1);
	CHECK_INT((int)strlen(out), (int)sizeof(out) - 1);
	CHECK(!strncmp(out, "not ok 1 a.c:1 # TFAIL: xxx", 27));
	memset(line, 'y', sizeof(line) - 1);
	memcpy(line + 200, ".c:9: TCONF: why", 17);
	CHECK_INT(ltp_tap_result(line, 1, out, sizeof(out)), 1);
	CHECK_INT((int)strlen(out), (int)sizeof(out) - 1);
	CHECK(!strncmp(out, "ok 1 yyy", 8));
	CHECK(strstr(out, "y # SKIP TCONF: why") != NULL);
}

/*
 * Under its suite, every result counts as a leaf, as flat TAP and the run's
 * summary count them: TPASS passed, TCONF skipped, TFAIL/TBROK/TWARN failed,
 * and the skip carries its reason.
 */
UNIT_TEST(counted_as_leaves)
{
	char *in = xprintf("%s/sample.out", GOLDEN_DIR);
	struct buf out = BUF_INIT, ktap = BUF_INIT;
	struct tap_parser p;
	struct tap_summary s;
	struct error err;

	CHECK_INT(read_file(in, &out, &err), 0);
	buf_addstr(&ktap, "KTAP version 1\n1..1\n    # Subtest: sample\n");
	nest(buf_str(&out), &ktap);
	buf_addstr(&ktap, "not ok 1 sample # exit 7\n");
	tap_init(&p);
	tap_feed(&p, ktap.data, ktap.len);
	tap_end(&p);
	tap_summarise(&p, &s);
	CHECK_INT(s.failed, 1);
	CHECK_INT(s.subtests_passed, 4);
	CHECK_INT(s.subtests_failed, 3);
	CHECK_INT(s.subtests_skipped, 2);
	CHECK_INT(p.garbage_lines, 0);
	buf_free(&out);
	buf_free(&ktap);
	free(in);
}

int main(void)
{
	static const struct unit_case cases[] = {
		UNIT_CASE(sample_golden),
		UNIT_CASE(result_lines),
		UNIT_CASE(not_results),
		UNIT_CASE(cut_to_fit),
		UNIT_CASE(counted_as_leaves),
	};

	return unit_run(__FILE__, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
