/*
 * try_report: the verdict of `numalab try` on a comparison of the base
 * kernel's cells (side A) with the patched kernel's (side B), and the
 * outputs that lead with it: text, TAP, JSON, HTML (docs/try.md).
 *
 * try_judge() fills, per shape (topology) and overall, in this order:
 *  1. the patch's claims (--expect "METRIC decreases|increases|unchanged"):
 *     holds, does not hold, or cannot be judged here (and why);
 *  2. functional changes: tests that pass on base and fail patched
 *     (broken; a test gone from the patched side counts too), and fixed
 *     ones, each with the diagnostic lines it printed (compare.h: detail);
 *  3. metrics that changed significantly (compare.h's verdicts), with
 *     direction, size and q;
 *  4. behaviour that differs but is not a number (compare.h: facts);
 *  5. what could not be judged: fewer than two samples on a side, and
 *     performance metrics (times, rates, scores) measured under TCG, where
 *     they time the emulator rather than the kernel.
 *
 * A regression -- the verdict that makes `numalab try` exit 1 -- is a
 * broken or gone test, a judged performance metric that regressed, or a
 * claim that does not hold.  Counters that changed either way are
 * reported, not judged: whether fewer calls is right is the claim's to say.
 *
 * A claim's metric matches a metric of that name or any below it
 * ("bulk_calls" matches "bulk_calls.map2_45_pages").  On a shape it holds
 * when at least one matching metric moved significantly the claimed way
 * and none the other way ("unchanged": none moved); it cannot be judged
 * when no matching metric has two samples a side, or when it is a
 * performance metric and the shape's NUMA is emulated (no host_numa).
 * Overall it holds when it holds on every shape that could judge it.
 *
 * Pure: reads only the comparison and the identity; writers append to a
 * buffer (compare_report.h makes every string from results safe).
 */
#ifndef LAB_TRY_REPORT_H
#define LAB_TRY_REPORT_H

#include <stddef.h>

#include "analysis/compare.h"
#include "base/util.h"

enum try_claim_dir { TRY_DECREASES, TRY_INCREASES, TRY_UNCHANGED };

struct try_claim {
	char metric[160];
	enum try_claim_dir dir;
};

/* "bulk_calls decreases" (or increases, unchanged): 0, or -1 with err (ERROR_INPUT) saying the form. */
int try_claim_parse(const char *s, struct try_claim *claim, struct error *err) LAB_MUST_CHECK;

enum try_judged { TRY_HOLDS, TRY_DOES_NOT_HOLD, TRY_CANNOT_JUDGE };

struct try_claim_result {
	enum try_judged judged;
	char why[704];              /* the metrics and numbers that decided, or why it cannot be judged */
};

/* Who was compared: every output carries it. */
struct try_identity {
	const char *title;          /* "numalab try: 2 patches on stock" */
	struct strvec kernels;      /* "base x86_64: stock recipe-key K (SOURCE)", one per side and arch */
	struct strvec patches;      /* "SUBJECT (FILE, sha256:HEX)", in order */
	struct strvec shapes;       /* topology names, in order */
	int repeat;                 /* runs per side and shape */
	const char *repeat_why;     /* why that many */
};

struct try_shape {
	const char *topology;
	int emulated;               /* a cell of the shape has no host_numa */
	int tcg;                    /* a cell of the shape ran under TCG */
	size_t broken, fixed, regressed, improved, changed, facts_differ;
	size_t not_judged, few_samples;   /* not judged in all; of them, for fewer than 2 samples a side */
	struct try_claim_result *claims;   /* one per claim */
	int regression;
};

struct try_report {
	const struct comparison *c;
	const struct try_identity *id;
	const struct try_claim *claims;
	int nr_claims;
	/* try_judge() fills the rest */
	struct try_shape *shapes;   /* in id->shapes order, then any other topology of c */
	size_t nr_shapes;
	struct try_claim_result *overall;  /* one per claim */
	int regression;
};

void try_judge(struct try_report *r);
void try_report_free(struct try_report *r);

void try_report_text(const struct try_report *r, struct buf *out);
void try_report_tap(const struct try_report *r, struct buf *out);
void try_report_json(const struct try_report *r, struct buf *out);
void try_report_html(const struct try_report *r, struct buf *out);

#endif
