/*
 * tap: a streaming parser for the guest's TAP (KTAP version 1, nested).
 *
 * The guest's /init prints (on its own channel, see docs/architecture.md):
 *
 *   KTAP version 1
 *   # guest.kernel: 7.2.13+deb14-amd64          <- guest view, key: value
 *   1..2
 *       # Subtest: topology                     <- a test starts (depth 1)
 *       KTAP version 1
 *       1..3
 *       ok 1 nodes
 *       not ok 2 distances
 *       ok 3 hmat # SKIP no CPU-less node
 *   not ok 1 topology
 *   ...
 *   # numalab: done                             <- init finished cleanly
 *
 * Guest output is untrusted: any bytes are accepted, lines longer than
 * TAP_LINE_MAX are cut (the rest dropped up to the newline), a trailing CR is
 * dropped, and every other control byte but tab (NUL, CR, ESC, DEL) and
 * every byte of invalid UTF-8 or of a C1 control is replaced by '?' before a
 * line is stored or passed on, so no escape sequence survives; tabs reach
 * on_line as they are, and become spaces for the parser.  Garbage lines are
 * counted and ignored, and all storage is bounded.
 *
 * Depth is the leading spaces / 4 (KTAP indents by exactly four; any other
 * count, or a tab, makes the line garbage).  Only depth 0 (results of whole
 * tests) and depth 1 (their subtests) are parsed; deeper lines only reach
 * on_line.  Depth-1 lines count into the test their "# Subtest: NAME" opened;
 * without one they are garbage.  A "# Subtest:" line while a test is open
 * (before its depth-0 result) is that test's own output, relayed by /init,
 * not a new test: a test cannot forge others.  Only the first plan of a
 * level counts.
 */
#ifndef LAB_TAP_H
#define LAB_TAP_H

#include <stddef.h>
#include <stdio.h>

#define TAP_LINE_MAX 1024
#define TAP_MAX_TESTS 128
#define TAP_MAX_INFO 64

enum tap_status {
	TAP_PENDING,      /* announced (Subtest line) but no result line yet */
	TAP_OK,
	TAP_NOT_OK,
	TAP_SKIP,         /* ok/not ok ... # SKIP reason */
	TAP_TODO,         /* not ok ... # TODO reason (does not fail the run) */
	TAP_TIMEOUT,      /* not ok ... # TIMEOUT reason */
	TAP_ERROR,        /* not ok ... # ERROR reason (harness trouble) */
};

struct tap_test {
	int number;                 /* as printed; 0 while pending */
	char name[96];
	enum tap_status status;
	char reason[160];           /* directive text after SKIP/TODO/TIMEOUT/ERROR */
	int sub_planned;            /* the nested plan, -1 if none seen */
	int sub_pass, sub_fail, sub_skip;   /* TODO counts as skip; TIMEOUT, ERROR as fail */
};

struct tap_info {
	char key[48];
	char value[208];
};

struct tap_parser {
	/* Called with each complete, sanitised line (no newline); may be NULL. */
	void (*on_line)(void *ctx, const char *line);
	void *ctx;

	int planned;                /* top-level plan N from "1..N"; -1 none yet */
	int nr_tests;
	struct tap_test tests[TAP_MAX_TESTS];
	int nr_info;
	struct tap_info info[TAP_MAX_INFO];
	int done;                   /* "# numalab: done" seen */
	int version_seen;           /* "KTAP version 1" / "TAP version 13/14" seen */
	int garbage_lines;          /* lines that were not TAP */
	int tests_dropped;          /* results not stored: TAP_MAX_TESTS reached */

	/* private */
	int cur;                    /* index of the test taking depth-1 lines, -1 none */
	char line[TAP_LINE_MAX + 1];    /* the partial line */
	size_t line_len;
};

/* Clears everything, on_line and ctx included: set those afterwards. */
void tap_init(struct tap_parser *p);

/* Feed any bytes; complete lines are parsed as they arrive. */
void tap_feed(struct tap_parser *p, const char *data, size_t len);

/* The stream ended: parse a final partial line if any. */
void tap_end(struct tap_parser *p);

/*
 * After the stream ended for a harness reason (VM timeout, panic, crash),
 * close the results (ending the stream first, as tap_end): a test still
 * pending becomes status (TAP_TIMEOUT, anything else means TAP_ERROR) with
 * reason (not NULL; sanitised like guest text, as it may quote the guest's
 * console), numbered after the highest number seen; planned tests
 * never started are added as TAP_ERROR "not run: <reason>", named from
 * plan_names (n names, in plan order) when given.  When the guest printed no
 * plan, the plan is n (or the highest number seen, if larger).  Writes the TAP
 * lines it adds to out (may be NULL) so the saved stream stays well-formed,
 * ending with a "1..N" plan line when the guest printed none.
 */
void tap_close(struct tap_parser *p, enum tap_status status, const char *reason,
	       const char *const *plan_names, int n, FILE *out);

/*
 * After tap_close(): one more result for a finding about the run rather than
 * about a test (a sanitizer report on the console while every test had its
 * result): "not ok N name # ERROR reason", numbered after the highest number
 * seen, written to out (may be NULL).  It lies outside the guest's plan, so
 * any TAP consumer counts the run as failed; reason is sanitised as above.
 */
void tap_add_error(struct tap_parser *p, const char *name, const char *reason, FILE *out);

/* A test still pending counts as failed. */
struct tap_summary {
	int tests, passed, failed, skipped, todo, timeout, errors;
	int subtests_passed, subtests_failed, subtests_skipped;
};
void tap_summarise(const struct tap_parser *p, struct tap_summary *s);

/*
 * 1 if any test failed, timed out or errored (TODO and SKIP do not fail), and
 * also when a test is still pending, a planned test has no result, or a result
 * was dropped: the run cannot vouch for tests it has no verdict on.
 */
int tap_failed(const struct tap_parser *p);

/* The value of a "# guest.KEY: VALUE" line, or NULL. */
const char *tap_info_get(const struct tap_parser *p, const char *key);

/*
 * One result line without its indentation ("ok N [- ]name [# DIRECTIVE
 * reason]" or "not ok ..."): 1 with t's number, name, status and reason
 * filled, 0 if line is not a result.
 */
int tap_parse_result(const char *line, struct tap_test *t);

const char *tap_status_name(enum tap_status s);

/*
 * One walk of a whole nested KTAP text, at any depth, through the parser
 * above (its line splitting, sanitising and result lines): each leaf result
 * goes to fn, in order, named by its path.  Flat TAP, JUnit and the
 * matrix's counts all come from this walk (report.h), so they agree.
 *
 * A leaf is a result with no result nested under it.  A result that has
 * nested ones (a suite, a matrix cell) is reported too when its own verdict
 * says what they do not: it timed out or errored though no leaf under it
 * did, or it failed though no leaf under it did.  The path is the names of the enclosing tests, from
 * their "# Subtest: NAME" lines ("" when a level has none), then the
 * result's own name.  As in the parser, a "# Subtest:" line while the test
 * at that level is still open is that test's own text: a test cannot
 * rename itself or open a sibling.  Lines deeper than TAP_WALK_DEPTH levels
 * are ignored.  A leaf's TAP YAML block ("---" to "...", two spaces in from
 * its result line) comes with it, up to TAP_YAML_MAX bytes.
 */
#define TAP_WALK_DEPTH 8
#define TAP_YAML_MAX 8192

struct tap_leaf {
	int depth;                  /* number of enclosing tests; 0: a top-level result */
	const char *const *suites;  /* their names, outermost first */
	const struct tap_test *t;   /* number, name, status, reason */
	const char *yaml;           /* the block's lines, its indentation removed, each
	                             * ending in '\n' ("---" and "..." not included); NULL: none */
};

typedef void (*tap_leaf_fn)(void *ctx, const struct tap_leaf *leaf);

void tap_walk(const char *text, size_t len, tap_leaf_fn fn, void *ctx);

/* A leaf that fails the run (NOT OK, TIMEOUT, ERROR, PENDING). */
int tap_status_failing(enum tap_status s);

#endif
