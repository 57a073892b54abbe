/*
 * compare_report: a comparison (lab/analysis/compare.h) as text, TAP, JSON or HTML.
 *
 * Every writer appends to a buffer; the caller prints or writes it
 * (write_file_atomic).  All strings that came from results (test and
 * metric names are guest output: untrusted) or from the command line are
 * made safe for the format: control bytes, C1 controls and invalid UTF-8
 * become '?' everywhere; then HTML escapes & < > " ', JSON escapes " and \,
 * TAP escapes # and \.  Every writer prints the comparison's notes (emulated
 * NUMA, forced differences) before anything else.
 *
 *   text   the terminal: notes, functional differences, the metrics that
 *          changed (all with all = 1), a summary line
 *   tap    TAP 13: one result per test (not ok: a functional difference)
 *          and one per metric (not ok: regressed or changed; SKIP: fewer
 *          than two samples on a side)
 *   json   one object: options, sides and cells, notes, summary, tests,
 *          metrics with their samples; non-finite numbers are null
 *   html   one self-contained page (no scripts, no external resources; a
 *          Content-Security-Policy says so): notes, tests, and per metric an
 *          inline SVG of A and B (mean, +-1 stddev error bar, the samples)
 */
#ifndef LAB_COMPARE_REPORT_H
#define LAB_COMPARE_REPORT_H

#include "analysis/compare.h"
#include "base/util.h"

void compare_report_text(const struct comparison *c, int all, struct buf *out);
void compare_report_tap(const struct comparison *c, struct buf *out);
void compare_report_json(const struct comparison *c, struct buf *out);
void compare_report_html(const struct comparison *c, struct buf *out);

/* s made printable (see above) and cut to at most max bytes (0: no limit), appended. */
void compare_report_clean(struct buf *out, const char *s, size_t max);

#endif
