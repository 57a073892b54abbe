/*
 * test_skip_reason: the line /init takes a skip's reason from (init.h's
 * skip_reason()), for a test that exits with its skip code: LTP's TCONF,
 * kselftest's SKIP lines, and lines that only look like them.
 */
#include <string.h>

#include "init.h"
#include "unit.h"

/* The reason line gives, or "-" for none. */
static const char *reason_of(const char *line)
{
	static char reason[64];

	strcpy(reason, "-");
	skip_reason(line, reason, sizeof(reason));
	return reason;
}

UNIT_TEST(ltp_tconf)
{
	CHECK_STR(reason_of("tst_test.c:1739: TCONF: This arch 'x86_64' is not supported for test!"),
		  "This arch 'x86_64' is not supported for test!");
	CHECK_STR(reason_of("set_mempolicy01    1  TCONF  :  mbind.c:30: no NUMA"), "mbind.c:30: no NUMA");
	CHECK_STR(reason_of("TCONF: first thing said"), "first thing said");
	/* Not the tag: a word containing it, the tag without its colon, LTP's summary. */
	CHECK_STR(reason_of("xTCONF: glued"), "-");
	CHECK_STR(reason_of("counting TCONF results"), "-");
	CHECK_STR(reason_of("skipped  1"), "-");
	CHECK_STR(reason_of("tst_test.c:1: TCONF:"), "-");
}

UNIT_TEST(kselftest_skip_lines)
{
	CHECK_STR(reason_of("ok 3 hugetlb # SKIP no hugepages"), "no hugepages");
	CHECK_STR(reason_of("1..0 # SKIP need root"), "need root");
	CHECK_STR(reason_of("# SKIP: missing /dev/foo"), "missing /dev/foo");
	CHECK_STR(reason_of("SKIP: Need root privileges"), "Need root privileges");
	CHECK_STR(reason_of("# [SKIP] ksm not built"), "ksm not built");
	CHECK_STR(reason_of("SKIP no THP"), "no THP");
	/* A bare tag gives nothing: the reason before it stays. */
	CHECK_STR(reason_of("[SKIP]"), "-");
	CHECK_STR(reason_of("ok 1 a # SKIP"), "-");
	CHECK_STR(reason_of("SKIPPING nothing"), "-");
	CHECK_STR(reason_of("ok 1 passed"), "-");
}

UNIT_TEST(long_reasons_are_cut)
{
	char line[200], reason[16];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "TCONF: ", 7);
	CHECK(skip_reason(line, reason, sizeof(reason)) == 1);
	CHECK_STR(reason, "xxxxxxxxxxxxxxx");
}

UNIT_MAIN(UNIT_CASE(ltp_tconf), UNIT_CASE(kselftest_skip_lines), UNIT_CASE(long_reasons_are_cut))
