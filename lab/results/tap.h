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

const char *tap_status_name(enum tap_status s);

/*
 * The walk: every reader of nested KTAP (flat TAP, JUnit and the matrix's
 * counts in report.h, compare, bisect, run's progress) goes through it, so
 * the layout rules live here only.  Lines come through the parser above (its
 * line splitting, sanitising, result lines); then:
 *
 *  - A line's depth is its leading spaces / 4 (a tab is one space); a
 *    line whose indent is not a multiple of 4 is ignored (YAML aside), and
 *    so are lines TAP_WALK_DEPTH or more levels deep.
 *  - "# Subtest: NAME" at depth d+1 opens level d: the suite whose own
 *    result comes at depth d (on_suite).  While that suite is open, another
 *    "# Subtest:" at the same depth is its own text, a diagnostic: a test
 *    cannot rename itself or open a sibling.  A result deeper than any
 *    Subtest line opens its levels unnamed ("").
 *  - A result at depth d closes level d and all deeper ones: it is a suite's
 *    end (on_suite_end) when level d was open (a Subtest line, or results
 *    nested under it), else a test (on_test).
 *  - A result's YAML block is "---" to "..." at 4d + 2 spaces, the lines in
 *    it indented at least that far (any indent past 4d + 2 is kept); up to
 *    TAP_YAML_MAX bytes of it are kept.  A block without its "..." ends at
 *    the first line outside it.  A result is reported once its block (if
 *    any) is read, with it.
 *  - Any other line starting with '#' is a diagnostic (on_diag), at its
 *    depth: "# guest.KEY: VALUE", "# metric: ...", a test's own output.
 *  - Plans, version lines and garbage reach no callback.
 *
 * A result's output: the lines since the previous result at its depth (or
 * its level's "# Subtest:" line), before its own line: its diagnostics at
 * its depth and every line deeper (a suite's nested KTAP), up to
 * TAP_OUTPUT_MAX bytes per top-level test.  Its own diagnostics are the
 * diagnostic lines of that span printed after the last result nested in it
 * (a suite's results have theirs), a forged "# Subtest:" line not among
 * them: what the test said about itself.
 *
 * on_leaf gets the results that stand for themselves in a flat list: a
 * leaf (a result with no result nested under it), and a result with nested
 * ones (a suite, a matrix cell) when its own verdict says what they do not:
 * it timed out or errored though no leaf under it did, or it failed though
 * no leaf under it did.
 *
 * Every callback may be NULL.  A node and what it points to live until the
 * callback returns.
 */
#define TAP_WALK_DEPTH 8
#define TAP_YAML_MAX 8192
#define TAP_SUBTEST "# Subtest: "
#define TAP_OUTPUT_MAX (1 << 20)

struct tap_node {
	int depth;                  /* enclosing suites; 0: the top level */
	const char *const *suites;  /* their names, outermost first ("" unnamed); on_suite
	                             * and on_suite_end: suites[depth] is the suite's own */
	const struct tap_test *t;   /* results: number, name, status, reason; else NULL */
	const char *comment;        /* results: the text after the result's '#', blanks
	                             * skipped, directive word included ("" none) */
	const char *yaml;           /* results: the block's lines, its indentation removed, each
	                             * ending in '\n' ("---" and "..." not included); NULL: none */
	const char *text;           /* on_suite: its name; on_diag: the line from its '#' */
	const char *output;         /* results: its output (above), each line ending in '\n',
	                             * indented from its shallowest line; "" none */
	const char *diags;          /* results: its own diagnostic lines, each from its '#' and
	                             * ending in '\n'; "" none */
};

struct tap_walk_ops {
	void (*on_suite)(void *ctx, const struct tap_node *n);
	void (*on_suite_end)(void *ctx, const struct tap_node *n);
	void (*on_test)(void *ctx, const struct tap_node *n);
	void (*on_diag)(void *ctx, const struct tap_node *n);
	void (*on_leaf)(void *ctx, const struct tap_node *n);
};

/* One whole text, start to end. */
void tap_walk(const char *text, size_t len, const struct tap_walk_ops *ops, void *ctx);

/*
 * The same walk over a stream whose lines a tap_parser already splits and
 * sanitises (run.c's live TAP): tap_walker_new(), then tap_walker_line()
 * with each line its on_line gets, then tap_walker_end(), which reports the
 * last held result and frees the walker.
 */
struct tap_walker;
struct tap_walker *tap_walker_new(const struct tap_walk_ops *ops, void *ctx);
void tap_walker_line(struct tap_walker *w, const char *line);
void tap_walker_end(struct tap_walker *w);

/*
 * Why a result is what it is, in one line, into buf (cap bytes; "" when
 * nothing says): a SKIP, TODO, TIMEOUT or ERROR its directive's reason; a
 * failure (and a directive without a reason) its first own diagnostic --
 * for LTP's output its first TFAIL or TBROK line, past the TINFO ones --
 * skipping the lab's bookkeeping lines (metric:, totals:, guest., numalab:);
 * else a failure's comment ("exit 2", "signal 9", as /init writes them).
 * A passed test has none.
 */
void tap_reason(const struct tap_node *n, char *buf, size_t cap);

/* A leaf that fails the run (NOT OK, TIMEOUT, ERROR, PENDING). */
int tap_status_failing(enum tap_status s);

#endif
