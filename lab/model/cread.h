/*
 * cread: C source read as tokens, the function definitions among them and
 * the variables a function declares: what mutant.h draws mutants from and
 * what `numalab mutate` asks which functions a file defines.  It reads
 * only, changes nothing.  Pure: text in, tokens and extents out.
 *
 * No preprocessing and no types beyond the declarations it can read:
 * comments, string and character literals are skipped as units,
 * preprocessor lines (continuations included) are dropped, and lines in
 * #if branches are read like any other (both twins of an #if/#else
 * definition are found).  Token offsets index the text given; lines count
 * from 1.
 */
#ifndef LAB_CREAD_H
#define LAB_CREAD_H

#include <stddef.h>

#define CREAD_NAME_MAX 64

/* ---- tokens ---- */

enum ctok_kind { CTOK_IDENT, CTOK_NUMBER, CTOK_STRING, CTOK_PUNCT };

struct ctok {
	enum ctok_kind kind;
	size_t off, len;   /* in the text read */
	int line;
};

struct ctoks {
	struct ctok *t;
	int nr, cap;
};

/*
 * The tokens of s (len bytes, need not be NUL terminated) appended to *v
 * (zeroed first by the caller; ctoks_free() it).  A punctuator is one of
 * the multi-character operators a mutant reads or writes (->, ++, <=, &&,
 * +=, ...) or else one character; a string or character literal is one
 * CTOK_STRING token, quotes included.
 */
void ctoks_read(const char *s, size_t len, struct ctoks *v);
void ctoks_free(struct ctoks *v);

/* Token t of s reads text exactly. */
int ctok_is(const char *s, const struct ctok *t, const char *text);

/* The token closing the bracket ( [ { at index i (forward), or -1 if it is never closed. */
int ctok_match_forward(const char *s, const struct ctoks *v, int i);
/* The token opening the bracket ) ] } closed at index i (backward), or -1. */
int ctok_match_backward(const char *s, const struct ctoks *v, int i);

/* ---- function definitions ---- */

/* A function definition of the file: its name's line, its body's braces' lines (1-based). */
struct c_function {
	char name[CREAD_NAME_MAX];   /* longer names are cut */
	int name_line, open_line, close_line;
};

/* A definition and where it lies in the tokens: the indexes of its brackets. */
struct c_extent {
	struct c_function f;
	int params_open, params_close, body_open, body_close;
};

/*
 * The function definitions among v (the tokens of s), in file order, into
 * *out (free() it), their number in *nr.  A definition is a name and its
 * parameters in parentheses followed by a brace at file scope (attribute
 * macros such as __releases(x) between them are skipped).
 */
void c_extents(const char *s, const struct ctoks *v, struct c_extent **out, int *nr);

/* The same from text (len bytes), without the token indexes. */
void c_functions(const char *text, size_t len, struct c_function **out, int *nr);

/* ---- variables in scope ---- */

/* A variable a declaration introduces: "u64 *" is type "u64 *" ("static" dropped). */
struct c_var {
	char name[CREAD_NAME_MAX];
	char type[128];
	int depth;   /* brace depth of its scope: 1 parameters and the body's outermost block */
};

/* The variables of one function seen so far; more than 256 are not recorded. */
struct c_vars {
	struct c_var v[256];
	int nr;
};

/* The parameters of the definition e into sv (depth 1); those not understood are left out. */
void c_read_params(const char *s, const struct ctoks *v, const struct c_extent *e, struct c_vars *sv);

/*
 * Tokens [a, b) (a statement, b its ';') look like a declaration: a type
 * keyword first, two identifiers in a row, or "type *name" (a product is
 * never a statement of its own).
 */
int c_looks_like_declaration(const char *s, const struct ctoks *v, int a, int b);

/*
 * The variables of one declarator list, tokens [a, b) (b: its ';' or a
 * parameter's end), into sv at depth: every "stars NAME" that ends at '=',
 * ',' or b.  Arrays and function pointers are not understood: left out.
 */
void c_read_declaration(const char *s, const struct ctoks *v, int a, int b, int depth,
			struct c_vars *sv);

#endif
