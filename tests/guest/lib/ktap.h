/*
 * ktap: what every guest test binary needs: KTAP output on stdout, and the
 * small readers for sysfs/procfs of sys.h, included here.
 *
 * A test prints ktap_header(n), then exactly n results (ktap_ok/ktap_skip),
 * then calls ktap_exit().  The lab's suites leave the header and the count
 * to harness.h: their cases register themselves and print only results.  Every line is flushed as it is printed: /init
 * relays the test's stdout line by line and kills the test on timeout, so
 * nothing may sit in a stdio buffer.
 *
 * Exit status follows kselftest: 0 all passed or skipped, 1 any failed or
 * fewer results than planned, 4 (KSFT_SKIP) every result was a skip.
 */
#ifndef NUMALAB_KTAP_H
#define NUMALAB_KTAP_H

/* Every test reads sysfs too: the readers come with the KTAP writer. */
#include "sys.h"

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

/* "KTAP version 1" and "1..nr_tests". */
void ktap_header(int nr_tests);

/* Instead of ktap_header(): the whole test cannot run here; "1..0 # SKIP reason", exit KSFT_SKIP. */
_Noreturn void ktap_skip_all(const char *reason_fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* "ok N description" or "not ok N description"; returns cond. */
int ktap_ok(int cond, const char *description_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "ok N name # SKIP reason": this check cannot run on this shape. */
void ktap_skip(const char *name, const char *reason_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A diagnostic line: "# ...". */
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For the harness (harness.h): keep the counts in shared memory, so the
 * results of forked children count; 0, or -1 (errno set).
 */
int ktap_share_counts(void);
/* Results printed so far. */
int ktap_results(void);
/* Fail the test without a result line of its own (the plan is full). */
void ktap_fail_outside(void);

/* "# totals: ..." and exit with the status described above. */
_Noreturn void ktap_exit(void);

#endif
