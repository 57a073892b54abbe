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
 *   text   the terminal: notes, functional differences (each failure with
 *          the diagnostic lines its test printed), the metrics that changed
 *          (all with all = 1), the facts (behaviour that is not a number), a
 *          summary line
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

#include <stddef.h>

#include "analysis/compare.h"
#include "base/util.h"

void compare_report_text(const struct comparison *c, int all, struct buf *out);
void compare_report_tap(const struct comparison *c, struct buf *out);
void compare_report_json(const struct comparison *c, struct buf *out);
void compare_report_html(const struct comparison *c, struct buf *out);

/* s made printable (see above) and cut to at most max bytes (0: no limit), appended. */
void compare_report_clean(struct buf *out, const char *s, size_t max);

/*
 * The pieces of the four writers, for reports that embed a comparison
 * (analysis/try_report.h).  Each makes its strings safe as above.
 */
void compare_report_html_text(struct buf *out, const char *s);        /* escaped text */
void compare_report_json_str(struct buf *out, const char *s);         /* "quoted"; NULL: null */
void compare_report_tap_text(struct buf *out, const char *s);         /* # and \ escaped */
/* <!DOCTYPE ...> through <body>: the CSP that forbids scripts and fetches, the style sheet. */
void compare_report_html_head(struct buf *out, const char *title);
/* A metric's table row: verdict, key, A, B, change, p (q), CI, chart. */
void compare_report_html_metric(const struct cmp_metric *m, struct buf *out);
/* A test's why cell: its directive and the failure's diagnostic lines. */
void compare_report_html_why(struct buf *out, const struct cmp_test *t);
/* The facts of topology (NULL: all) as a table. */
void compare_report_html_facts(const struct comparison *c, const char *topology, struct buf *out);
/* One test, metric or fact as a JSON object. */
void compare_report_json_test(const struct cmp_test *t, struct buf *out);
void compare_report_json_metric(const struct cmp_metric *m, struct buf *out);
void compare_report_json_fact(const struct cmp_fact *f, struct buf *out);
/* Each line of detail ('\n' between) after prefix, made printable. */
void compare_report_text_detail(struct buf *out, const char *detail, const char *prefix);
/* A fact's values: "a", "b" ("-": none). */
void compare_report_fact_values(struct buf *out, const struct strvec *v);

#endif
