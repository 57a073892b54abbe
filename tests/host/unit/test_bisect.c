/*
 * bisect: the exit code of a `git bisect run` step from a run's saved TAP
 * (good, bad, skip, abort and why), the step log and its build count.
 */
#include "analysis/bisect.h"
#include "cli/command.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run of mempolicy (and topology before it) as the runner saves it. */
static const char passing[] =
	"KTAP version 1\n1..2\n"
	"    # Subtest: topology\n    KTAP version 1\n    1..1\n    ok 1 nodes\nok 1 topology\n"
	"    # Subtest: mempolicy\n    KTAP version 1\n    1..3\n"
	"    ok 1 bind\n    ok 2 bulk weighted interleave 20,7\n"
	"    ok 3 bulk weighted interleave 1,1,1,1 # SKIP needs 4 memory nodes\n"
	"ok 2 mempolicy\n# numalab: done\n";

static const char bulk_fails[] =
	"KTAP version 1\n1..1\n"
	"    # Subtest: mempolicy\n    KTAP version 1\n    1..2\n"
	"    ok 1 bind\n    not ok 2 bulk weighted interleave 20,7\nnot ok 1 mempolicy\n";

static enum bisect_verdict judge(const char *test, const char *tap, int run_rc, char *why)
{
	struct bisect_test t;

	if (bisect_test_parse(test, &t))
		return -1;
	return bisect_verdict(&t, tap, strlen(tap), run_rc == EXIT_USAGE, why, 256);
}

UNIT_TEST(test_spec_parse)
{
	struct bisect_test t;

	CHECK_INT(bisect_test_parse("mempolicy", &t), 0);
	CHECK_STR(t.suite, "mempolicy");
	CHECK_STR(t.prefix, "");
	CHECK_INT(bisect_test_parse("mempolicy:bulk weighted", &t), 0);
	CHECK_STR(t.prefix, "bulk weighted");
	CHECK_INT(bisect_test_parse(":bulk", &t), -1);
	CHECK_INT(bisect_test_parse("mempolicy:", &t), -1);
	CHECK_INT(bisect_test_parse("", &t), -1);
}

UNIT_TEST(pass_is_good_fail_is_bad)
{
	char why[256];

	CHECK_INT(judge("mempolicy", passing, EXIT_PASS, why), BISECT_GOOD);
	CHECK_STR(why, "mempolicy passed");
	CHECK_INT(judge("mempolicy", bulk_fails, EXIT_FAIL, why), BISECT_BAD);
	CHECK_INT(judge("mempolicy:bulk", bulk_fails, EXIT_FAIL, why), BISECT_BAD);
	CHECK_STR(why, "mempolicy: subtest 'bulk weighted interleave 20,7' not ok");
}

UNIT_TEST(a_narrowed_test_ignores_other_subtests)
{
	char why[256];

	CHECK_INT(judge("mempolicy:bind", bulk_fails, EXIT_FAIL, why), BISECT_GOOD);
	CHECK_INT(judge("mempolicy:bulk", passing, EXIT_PASS, why), BISECT_GOOD);
	/* Only skipped subtests match: no verdict on this commit. */
	CHECK_INT(judge("mempolicy:bulk weighted interleave 1,1", passing, EXIT_PASS, why), BISECT_SKIP);
	/* No subtest has the name: the request is wrong for every commit. */
	CHECK_INT(judge("mempolicy:nosuch", passing, EXIT_PASS, why), BISECT_ABORT);
	/* A topology subtest of the same name does not count for mempolicy. */
	CHECK_INT(judge("mempolicy:nodes", passing, EXIT_PASS, why), BISECT_ABORT);
}

UNIT_TEST(crash_during_the_test_is_bad_before_it_is_skip)
{
	char why[256];
	const char crashed[] =
		"KTAP version 1\n1..1\n    # Subtest: mempolicy\n    ok 1 bind\n"
		"not ok 1 mempolicy # ERROR guest crashed: Kernel panic - not syncing: Oops\n";
	const char never_ran[] =
		"not ok 1 mempolicy # ERROR not run: the guest crashed before /init\n1..1\n";
	const char timed_out[] =
		"KTAP version 1\n1..1\n    # Subtest: mempolicy\nnot ok 1 mempolicy # TIMEOUT 300 s\n";

	CHECK_INT(judge("mempolicy", crashed, EXIT_FAIL, why), BISECT_BAD);
	CHECK(strstr(why, "Kernel panic") != NULL);
	CHECK_INT(judge("mempolicy", never_ran, EXIT_FAIL, why), BISECT_SKIP);
	CHECK_INT(judge("mempolicy", timed_out, EXIT_FAIL, why), BISECT_BAD);
	/* The narrowed subtest passed before the crash. */
	CHECK_INT(judge("mempolicy:bind", crashed, EXIT_FAIL, why), BISECT_GOOD);
}

UNIT_TEST(no_tap_skips_usage_aborts)
{
	char why[256];

	CHECK_INT(judge("mempolicy", "", EXIT_HARNESS, why), BISECT_SKIP);
	CHECK_INT(judge("mempolicy", "garbage\n", EXIT_HARNESS, why), BISECT_SKIP);
	CHECK_INT(judge("mempolicy", passing, EXIT_USAGE, why), BISECT_ABORT);
	CHECK_INT(judge("khugepaged", passing, EXIT_PASS, why), BISECT_ABORT);
	CHECK_INT(judge("mempolicy", "KTAP version 1\n1..1\nok 1 mempolicy # SKIP no NUMA\n", EXIT_PASS, why),
		  BISECT_SKIP);
}

UNIT_TEST(guest_cannot_fake_a_subtest_of_another_suite)
{
	char why[256];
	/* A line indented by 8 is a nested subtest's, not mempolicy's own. */
	const char tap[] =
		"KTAP version 1\n1..1\n    # Subtest: mempolicy\n    ok 1 bind\n"
		"        not ok 1 bulk fake\nok 1 mempolicy\n";

	CHECK_INT(judge("mempolicy:bulk", tap, EXIT_PASS, why), BISECT_ABORT);
}

UNIT_TEST(log_counts_steps_and_builds)
{
	char path[] = "/tmp/numalab-bisect-log.XXXXXX";
	int fd = mkstemp(path), steps, builds;
	struct bisect_step s = { .commit = "0123456789abcdef0123456789abcdef01234567",
				 .subject = "mm: x", .built = 1, .build_s = 40, .run_dir = "/r",
				 .verdict = BISECT_BAD, .why = "mempolicy not ok" };
	struct buf text = BUF_INIT;
	struct error err;

	close(fd);
	unlink(path);
	CHECK_INT(bisect_log_step(path, &s, &err), 0);
	s.built = 0;
	s.verdict = BISECT_GOOD;
	CHECK_INT(bisect_log_step(path, &s, &err), 0);
	s.built = 1;
	CHECK_INT(bisect_log_step(path, &s, &err), 0);
	CHECK_INT(read_file(path, &text, &err), 0);
	bisect_log_count(buf_str(&text), &steps, &builds);
	CHECK_INT(steps, 3);
	CHECK_INT(builds, 2);
	CHECK(strstr(buf_str(&text), "step 3: 0123456789ab mm: x\n  kernel: built in 40.0 s "
				     "(kernel builds so far: 2)\n") != NULL);
	CHECK(strstr(buf_str(&text), "  verdict: bad (mempolicy not ok)\n") != NULL);
	buf_free(&text);
	unlink(path);
}

UNIT_TEST(build_budget)
{
	CHECK_INT(bisect_build_budget(1), 1);
	CHECK_INT(bisect_build_budget(2), 2);
	CHECK_INT(bisect_build_budget(7), 4);
	CHECK_INT(bisect_build_budget(8), 4);
	CHECK_INT(bisect_build_budget(9), 5);
}

static struct cmp_metric row(const char *test, const char *metric, enum cmp_verdict v)
{
	return (struct cmp_metric){ .topology = "2node", .suite = "workloads", .test = (char *)test,
				    .metric = (char *)metric, .verdict = v, .change_pct = -12.5,
				    .sa = { .n = 3, .mean = 8 }, .sb = { .n = 3, .mean = 7 }, .p = 0.01 };
}

UNIT_TEST(metric_verdicts_follow_compare)
{
	struct cmp_metric rows[3];
	struct comparison c = { .metrics = rows, .nr_metrics = 3 };
	char why[256];

	rows[0] = row("stream local thp", "bandwidth_mb_per_s", CMP_SAME);
	rows[1] = row("stream remote thp", "bandwidth_mb_per_s", CMP_REGRESSED);
	rows[2] = row("gups local thp", "updates_per_s", CMP_IMPROVED);
	/* Any test's row of that name: the regressed one decides. */
	CHECK_INT(bisect_metric_verdict(&c, "bandwidth_mb_per_s", why, sizeof(why)), BISECT_BAD);
	CHECK(strstr(why, "stream remote thp bandwidth_mb_per_s: regressed, -12.5%") != NULL);
	CHECK_INT(bisect_metric_verdict(&c, "stream local thp:bandwidth_mb_per_s", why, sizeof(why)),
		  BISECT_GOOD);
	CHECK_INT(bisect_metric_verdict(&c, "updates_per_s", why, sizeof(why)), BISECT_GOOD);
	CHECK_INT(bisect_metric_verdict(&c, "nosuch", why, sizeof(why)), BISECT_ABORT);
	CHECK_INT(bisect_metric_verdict(&c, "other test:bandwidth_mb_per_s", why, sizeof(why)),
		  BISECT_ABORT);
	rows[1].verdict = CMP_FEW_SAMPLES;
	CHECK_INT(bisect_metric_verdict(&c, "bandwidth_mb_per_s", why, sizeof(why)), BISECT_SKIP);
	rows[1].verdict = CMP_ONLY_A;
	CHECK_INT(bisect_metric_verdict(&c, "bandwidth_mb_per_s", why, sizeof(why)), BISECT_SKIP);
	rows[0].verdict = CMP_CHANGED;
	CHECK_INT(bisect_metric_verdict(&c, "bandwidth_mb_per_s", why, sizeof(why)), BISECT_BAD);
}

UNIT_MAIN(UNIT_CASE(test_spec_parse),
	  UNIT_CASE(pass_is_good_fail_is_bad),
	  UNIT_CASE(a_narrowed_test_ignores_other_subtests),
	  UNIT_CASE(crash_during_the_test_is_bad_before_it_is_skip),
	  UNIT_CASE(no_tap_skips_usage_aborts),
	  UNIT_CASE(guest_cannot_fake_a_subtest_of_another_suite),
	  UNIT_CASE(log_counts_steps_and_builds),
	  UNIT_CASE(build_budget),
	  UNIT_CASE(metric_verdicts_follow_compare))
