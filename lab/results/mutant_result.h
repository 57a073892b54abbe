/*
 * mutant_result: what became of one mutant of `numalab mutate`
 * (docs/mutate.md), as OUT/mutants/ID/result holds it, both directions.
 *
 * The file is "KEY VALUE" lines (status, why, build_s, run_s, run_dir,
 * guest), written atomically once the mutant has a verdict: a mutant without
 * the file is run again when resuming.
 */
#ifndef LAB_MUTANT_RESULT_H
#define LAB_MUTANT_RESULT_H

#include "base/util.h"

enum mutant_status {
	MUTANT_NOT_RUN,        /* no result yet (interrupted, or beyond --limit) */
	MUTANT_KILLED,         /* a test failed, the guest crashed or timed out */
	MUTANT_SURVIVED,       /* every test passed */
	MUTANT_UNCOMPILABLE,   /* the mutated file did not compile: dropped */
	MUTANT_SAME_OBJECT,    /* its object file is the original's: not booted, equivalent */
};

struct mutant_result {
	enum mutant_status status;
	char why[sizeof(((struct error *)0)->msg)];   /* killed: the failed tests or the guest's end; else "" or a note */
	double build_s, run_s;  /* < 0: not measured */
	char run_dir[4096];     /* the run's results directory; "" none */
	char guest[65];         /* the key of the guest binaries that judged it; "" not booted, or
				   a result from before keys were kept */
};

/* "killed", "survived", "uncompilable", "same-object", "not-run". */
const char *mutant_status_name(enum mutant_status s);

/* Write r to path (atomically).  0, or -1 with err. */
int mutant_result_write(const char *path, const struct mutant_result *r, struct error *err) LAB_MUST_CHECK;

/*
 * Read path into r.  0; 1 when there is no file (r: MUTANT_NOT_RUN); -1 with
 * err (ERROR_HARNESS) when it is unreadable or not a result.
 */
int mutant_result_read(const char *path, struct mutant_result *r, struct error *err) LAB_MUST_CHECK;

#endif
