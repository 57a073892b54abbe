/*
 * mutate_report: the score of a `numalab mutate` run and its reports
 * (docs/mutate.md): text, TAP, JSON and HTML, pure builders pinned by
 * golden files (tests/host/unit/golden/mutate/).
 *
 * The score counts a mutant killed when a test failed, the guest crashed
 * or timed out.  Left out of it: mutants that do not compile, mutants
 * whose object file is the original's (same-object: no test can see them),
 * and survivors listed in the equivalents file.  score = killed / (killed
 * + survived), per function and overall.  A listed mutant that was killed
 * counts as killed and the report says its listing is wrong.
 */
#ifndef LAB_MUTATE_REPORT_H
#define LAB_MUTATE_REPORT_H

#include "base/util.h"
#include "model/mutant.h"
#include "results/mutant_result.h"

struct mutate_report {
	const char *title;                    /* "mm/mempolicy.c, kernel stock, 4node, tests ..." */
	const struct mutant *mutants;         /* any order: the reports sort by file and line */
	const struct mutant_result *results;  /* [nr] */
	const char *const *diffs;             /* [nr]: each mutant's diff */
	int nr;
	const struct mutant_equivalents *eq;  /* may be NULL */
	const char *equivalents_path;         /* named in the reports; may be NULL */
};

struct mutate_score {
	int total, killed, survived, equivalent, same_object, uncompilable, not_run;
	int wrongly_listed;   /* listed as equivalent, yet killed */
};

/* The score of function (NULL: every mutant) of r. */
void mutate_score_of(const struct mutate_report *r, const char *function, struct mutate_score *s);


/* The reports, appended to out. */
void mutate_report_text(const struct mutate_report *r, struct buf *out);
void mutate_report_tap(const struct mutate_report *r, struct buf *out);
void mutate_report_json(const struct mutate_report *r, struct buf *out);
void mutate_report_html(const struct mutate_report *r, struct buf *out);

#endif
