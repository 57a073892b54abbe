/*
 * mutant: single-line mutants of a C source file, drawn from the functions
 * cread.h finds in it, their diffs and ids, and the file of equivalent
 * mutants (docs/mutate.md).  Pure: text in, text out.
 *
 * The generator reads C with cread.h (tokens, function definitions, the
 * variables they declare) and makes one mutant per change of one line:
 *
 *   relational  <  <=  >  >=  ==  !=  each to its neighbour (< to <=, ...)
 *   logical     && to ||, || to &&
 *   constant    an integer literal N to N+1 and N-1 (N-1 only when N > 0)
 *   expression  `return E;` and `X = E;` to `(E) + 1` and `(E) - 1`
 *   condition   `if (C)` to `if (1)` and `if (0)`; `while (C)` to `while (0)`
 *   remove      a call statement `f(...);` or an assignment `X op= E;`,
 *               `X++;` replaced by `;` (assertion, warning, tracing and
 *               printing macros are left alone: removing them is equivalent)
 *   argument    a call's argument that is a plain variable, swapped for
 *               another variable in scope of the same declared type
 *               (parameters and locals the reader understood, up to two)
 *
 * Only what lies on one line is changed (a condition spanning lines is not
 * forced); a mutant that does not compile is the build's to find.  Lines in
 * #if branches are read like any other.
 *
 * Each mutant's id is the first 12 hex digits of the sha256 of
 * "FILE\nLINE\nOPERATOR\nMUTATED LINE": the same source gives the same ids
 * on every machine, and mutant_sort_by_id() gives the run order (spread
 * over the file, so --limit samples every function).
 */
#ifndef LAB_MUTANT_H
#define LAB_MUTANT_H

#include <stddef.h>
#include "base/util.h"
#include "model/cread.h"

#define MUTANT_ID_LEN 12
#define MUTANT_NAME_MAX CREAD_NAME_MAX   /* a function's name (cread.h) */

enum mutant_op {
	MUTANT_RELATIONAL,
	MUTANT_LOGICAL,
	MUTANT_CONSTANT,
	MUTANT_EXPRESSION,
	MUTANT_CONDITION,
	MUTANT_REMOVE,
	MUTANT_ARGUMENT,
};

/* "relational", "logical", ... as in the table above. */
const char *mutant_op_name(enum mutant_op op);

struct mutant {
	char id[MUTANT_ID_LEN + 1];
	char file[256];                 /* as given: "mm/mempolicy.c" */
	char function[MUTANT_NAME_MAX];
	int line;                       /* 1-based */
	enum mutant_op op;
	char what[160];                 /* "< to <=", "if (...) to if (0)", ... */
	char *orig, *repl;              /* the line before and after, no newline */
};

struct mutant_list {
	struct mutant *items;
	int nr, cap;
};

/*
 * Which lines to mutate: the bodies of the functions named in functions
 * (nr_functions 0: of every function), and of those only the lines listed
 * in lines when nr_lines > 0 (--patch-lines).
 */
struct mutant_scope {
	const char *const *functions;
	int nr_functions;
	const int *lines;
	int nr_lines;
};

/*
 * The mutants of text (the file's content, named file) in scope, appended
 * to list in line order, duplicates (the same line mutated to the same
 * text) dropped.  Returns 0, or -1 with err (ERROR_INPUT) when a function
 * of scope is not defined in text.
 */
int mutant_generate(const char *file, const char *text, size_t len, const struct mutant_scope *scope,
		    struct mutant_list *list, struct error *err) LAB_MUST_CHECK;

/* Run order: by id. */
void mutant_sort_by_id(struct mutant_list *list);
void mutant_list_free(struct mutant_list *list);

/*
 * A stratified sample (`numalab mutate --sample N --seed S`, docs/mutate.md):
 * the strata are the functions (file and name), each with its population
 * (its mutants before sampling) and how many of them were kept.  With n at
 * least the number of functions each function keeps one, and the rest of n
 * goes to the functions in proportion to their remaining mutants (largest
 * remainder, ties to the earlier function); with fewer, n is shared in
 * proportion to the populations and some functions keep none.  Within a
 * function the mutants kept are those whose sha256("SEED ID") sorts first:
 * the same list, n and seed keep the same mutants on every machine, and a
 * larger n keeps what a smaller one kept (almost always: proportional
 * shares are not monotone).
 */
struct mutant_stratum {
	char file[256];
	char function[MUTANT_NAME_MAX];
	int population, sampled;
};

struct mutant_sample {
	struct mutant_stratum *strata;    /* in the list's first-seen order of functions */
	int nr;
	int n;                            /* as asked */
	unsigned seed;
};

/*
 * Keep n (> 0) mutants of list as above; list stays in its order (of the
 * kept ones).  n >= list->nr keeps them all (a census: its score is exact).
 */
void mutant_sample(struct mutant_list *list, int n, unsigned seed, struct mutant_sample *out);
void mutant_sample_free(struct mutant_sample *s);
/* The stratum of m in s, or NULL. */
const struct mutant_stratum *mutant_stratum_of(const struct mutant_sample *s, const struct mutant *m);

/* The mutant as a unified diff of its file (3 lines of context) against text, appended to out. */
void mutant_diff(const struct mutant *m, const char *text, size_t len, struct buf *out);

/*
 * The new-file line numbers of the lines diff (a unified diff, patch.h's
 * patch.diff) adds to file, appended to *lines (realloc'ed), *nr counting.
 */
void mutant_added_lines(const char *diff, const char *file, int **lines, int *nr);

/*
 * The equivalent-mutants file: one "ID REASON" per line, '#' comments and
 * blank lines ignored; REASON (the rest of the line) is required and says
 * why no test can tell the mutant from the original.
 */
struct mutant_equivalent {
	char id[MUTANT_ID_LEN + 1];
	char reason[512];
	int line;
};

struct mutant_equivalents {
	struct mutant_equivalent *items;
	int nr;
};

/*
 * Parse text (len bytes, from path, named in messages).  Returns 0, or -1
 * with err (ERROR_INPUT) "PATH:LINE: what is wrong; the fix" (a bad id, no
 * reason, an id listed twice).
 */
int mutant_equivalents_parse(const char *path, const char *text, size_t len,
			     struct mutant_equivalents *eq, struct error *err) LAB_MUST_CHECK;
/* The entry for id, or NULL. */
const struct mutant_equivalent *mutant_equivalent_find(const struct mutant_equivalents *eq,
						       const char *id);
void mutant_equivalents_free(struct mutant_equivalents *eq);

#endif
