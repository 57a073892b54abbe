/*
 * mutate: `numalab mutate` (docs/mutate.md): single-line mutants of kernel
 * functions (model/mutant.h), each built incrementally, booted and tested,
 * judged killed or survived, and the reports (analysis/mutate_report.h).
 *
 * The output directory OUT:
 *   request            what the mutants were made for (kernel key, files,
 *                      topology, tests): a resume must ask the same
 *   base/TOPO/         per topology of --topo (its name): result (the
 *                      unmutated kernel's run, mutant_result.h), passed
 *                      (the tests it passes: a mutant must pass them), run/
 *   base/objects       "FILE SHA256" of each mutated file's object
 *   mutants/ID/        mutant.diff, file (the source it mutates), log (the
 *                      child's), run/TOPO/ (its results on each topology it
 *                      booted on), result (mutant_result.h)
 *   slots/K/           the image the work tree K built last
 *   report.{txt,tap,json,html}
 *
 * Builds: the kernel's own work tree is left alone; work tree K
 * (kbuild_kernel_scratch(), slot "mutateK", K from o->slot on) is used by
 * one mutant at a time, the mutant a patch on top of the kernel's series (the tree
 * reverses the last one and applies the next: only the mutated file and
 * the link are redone).  No finished kernel goes into the kernel cache.
 *
 * Each mutant runs as a child `numalab mutate ... --mutant ID --slot K`
 * (parallel.h, up to jobs at once), so a mutant that upsets the runner
 * costs only its own result; the result file is written last, so an
 * interrupted run resumes with the same OUT where it stopped.  The base runs
 * and results keep the key of the guest binaries that judged them: after a
 * `make guest` the base runs again and the verdicts of the old binaries are
 * judged again (a child refuses a base of other binaries).  Nothing is
 * printed: per-mutant lines and the summary go to show, steps to progress().
 */
#ifndef LAB_MUTATE_H
#define LAB_MUTATE_H

#include <stddef.h>
#include "base/util.h"

struct mutate_show {
	void (*text)(void *ctx, const char *text, size_t len);
	void *ctx;
};

struct mutate_opts {
	const char *kernel;                /* a recipe ("stock") or a kernel source tree */
	const char *const *patches;        /* --patch files on top of it */
	int nr_patches;
	const char *const *files;          /* --file mm/F.c; none with patch_lines: the patches' .c files */
	int nr_files;
	const char *const *functions;      /* --function; none: every function of the files */
	int nr_functions;
	int patch_lines;                   /* only the lines the patches add */
	const char *topo;                  /* a topology, or "A,B,...": killed if any kills it */
	const char *tests;
	const char *accel;                 /* "auto" | "tcg" | "kvm" */
	int jobs;                          /* work trees at once, >= 1 */
	const char *const *ids;            /* --ids: only these mutants */
	int nr_ids;
	int limit;                         /* the first N mutants by id; 0: all */
	int sample;                        /* a stratified sample of N (model/mutant.h); 0: all */
	int seed;                          /* the sample's seed, >= 0 */
	int dry_run;                       /* list the mutants (show), build and run nothing */
	int timeout_s;                     /* per mutant's run; 0: 2 x the base run + 60 s */
	const char *out;
	const char *equivalents;           /* the equivalents file; NULL: the lab's (if present) */
	const char *const *self_argv;      /* "mutate" and its options (NULL-terminated): a child runs numalab + them + --mutant ID --slot K */
	struct mutate_show show;
	/* The first work tree (slots slot .. slot + jobs - 1); a child: run only mutant in slot. */
	const char *mutant;
	int slot;
};

/* What the mutants add up to (docs/exit-codes.md). */
enum mutate_verdict {
	MUTATE_ALL_KILLED,    /* every judged mutant was killed (or is listed as equivalent) */
	MUTATE_SURVIVORS,     /* a mutant survived that is not listed */
	MUTATE_INCOMPLETE,    /* none survived, but some have no result (errors) */
};

/* The lab's equivalents file, relative to the project root. */
#define MUTATE_EQUIVALENTS "tests/guest/mutants.equivalent"

/*
 * Run o (or, with o->mutant, that one mutant as a child).  0 and *v, or -1
 * with err: ERROR_INPUT for a bad request (kernel not built from source,
 * unknown function, bad equivalents file, an OUT made for another
 * request, the tests failing on the unmutated kernel), ERROR_HARNESS when
 * the lab failed.
 */
int mutate_run(const struct mutate_opts *o, enum mutate_verdict *v, struct error *err) LAB_MUST_CHECK;

#endif
