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
 *
 * A sampled run (sample != NULL, model/mutant.h's mutant_sample) scores
 * the whole population from the sample: each judged mutant of a function
 * stands for population / sampled of its function's mutants, the score is
 * the weighted share killed, and its 95% interval Wilson's
 * (analysis/stats.h) at Kish's effective sample size (sum w)^2 / sum w^2.
 * Proportional allocation makes the weights nearly equal, so the
 * effective size is nearly the number judged.  A census (every mutant of
 * the scope ran) has an exact score.
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
	const struct mutant_sample *sample;   /* the sample mutants is; NULL: every mutant of the request */
};

struct mutate_score {
	int total, killed, survived, equivalent, same_object, uncompilable, not_run;
	int wrongly_listed;   /* listed as equivalent, yet killed */
};

/* The counts of function of file in r (NULL: any). */
void mutate_score_of(const struct mutate_report *r, const char *file, const char *function,
		     struct mutate_score *s);

/* The score of file (NULL: all files) of r, as an estimate of its whole population's. */
struct mutate_estimate {
	int population, sampled;   /* the scope's mutants, and those in the sample */
	int exact;                 /* a census: no interval */
	double score, lo, hi;      /* percent; score < 0 when none was judged */
};
void mutate_estimate_of(const struct mutate_report *r, const char *file, struct mutate_estimate *e);


/* The reports, appended to out. */
void mutate_report_text(const struct mutate_report *r, struct buf *out);
void mutate_report_tap(const struct mutate_report *r, struct buf *out);
void mutate_report_json(const struct mutate_report *r, struct buf *out);
void mutate_report_html(const struct mutate_report *r, struct buf *out);

#endif
