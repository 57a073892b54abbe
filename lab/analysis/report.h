/*
 * report: a matrix run's outputs built from its cells' results (pure, no
 * I/O; docs/matrix.md):
 *
 *  - report_tap(): one KTAP stream, each cell a nested subtest holding the
 *    cell's own TAP indented four more spaces, then the cell's verdict at
 *    depth 0: `ok N ID`, `not ok N ID`, `not ok N ID # TIMEOUT why` or
 *    `not ok N ID # ERROR why`.  A cell's TAP comes from the guest and is
 *    untrusted: it is re-sanitised line by line (tap.h) and only ever
 *    indented deeper, so it cannot end its own subtest or fake another
 *    cell's verdict.
 *  - report_junit(): JUnit XML, one <testsuite> per cell, one <testcase> per
 *    test result (the suite's subtests; a suite's own result when it has no
 *    subtests or failed for a reason of its own), text XML-escaped.  A
 *    failure's, error's or skip's message is its reason (tap_reason(): the
 *    directive's, else its first diagnostic, else /init's "exit 2"); what the
 *    test printed (tap.h's output) is its <system-out>.
 *  - report_flat_tap(): flat TAP 13, one line per testcase (the same ones as
 *    the JUnit), named by its path: `ok 7 - 4node.debian/mempolicy/mbind
 *    MPOL_BIND node 0`; for tap-driver.sh, prove and CI plugins, which read
 *    only a stream's top level.  SKIP and TODO are kept as directives;
 *    TIMEOUT and ERROR (not TAP 13 directives) as `not ok … # TIMEOUT why`;
 *    any other comment as it was (`not ok 3 - byo # exit 2`); a result's own
 *    diagnostics (tap.h) follow it, after its YAML block;
 *    a cell's made-up verdict is the cell's own line (`not ok 9 - ID # ERROR
 *    why`), so that flattening report_tap()'s stream gives the same text;
 *    '#' and '\' in names are escaped with '\'; each leaf's YAML block
 *    follows it.  The plan comes last.
 *  - report_summary(): a table of cells × result, pass/fail/skip, time.
 *
 * Testcases are the leaves of tap_walk() (tap.h), plus one made up for a
 * cell whose verdict its TAP does not show ("cell" failed, "harness" error).
 */
#ifndef LAB_REPORT_H
#define LAB_REPORT_H

#include <stddef.h>
#include "base/util.h"

enum cell_status {
	CELL_PASS,       /* every test passed or was skipped */
	CELL_FAIL,       /* a test failed, or the guest kernel crashed */
	CELL_TIMEOUT,    /* the VM or a test ran out of time */
	CELL_ERROR,      /* the lab could not run it: bad input, boot/build failure, interrupted */
};

struct report_cell {
	const char *id;
	enum cell_status status;
	const char *reason;     /* one line, why not pass; "" none */
	const char *tap;        /* the cell's TAP (untrusted); NULL: none */
	size_t tap_len;
	double time_s;          /* < 0: unknown */
	const char *dir;        /* its evidence, for the summary; may be NULL */
};

/*
 * A cell's verdict from what its run left: exit_code of `numalab run` (-1:
 * unknown, e.g. the matrix died first: judged from the TAP), watchdog (the
 * matrix had to stop it), end (meta's `end:`, "" unknown), its TAP and the
 * last line of its log.  A guest kernel crash is a FAIL (the kernel under
 * test broke); a VM or test timeout is a TIMEOUT; bad input, boot or build
 * failures and interruptions are ERRORs.  reason gets one line.
 */
enum cell_status report_classify(int exit_code, int watchdog, const char *end, const char *tap,
				 size_t tap_len, const char *last_log, char *reason, size_t cap);

/* Test counts of one cell, as report_junit() lists its testcases. */
struct report_counts {
	int tests, passed, failed, errors, skipped;
};
void report_count(const struct report_cell *c, struct report_counts *out);

void report_tap(const struct report_cell *cells, int n, const char *title, struct buf *out);
void report_junit(const struct report_cell *cells, int n, const char *name, struct buf *out);
void report_summary(const struct report_cell *cells, int n, struct buf *out);
void report_flat_tap(const struct report_cell *cells, int n, struct buf *out);
/* Any KTAP text flattened as report_flat_tap() does, without cells (numalab tap flatten). */
void report_flatten(const char *tap, size_t len, struct buf *out);

/* Append s XML-escaped (&<>"'); control bytes become '?'. */
void report_xml_escape(struct buf *out, const char *s);

const char *cell_status_name(enum cell_status s);

#endif
