/*
 * The TAP parser over any bytes, cut in two feed() calls, then closed as
 * after a crash: every line it passes on or adds is printable (tabs allowed
 * in what it passes on; none in names, reasons, guest facts), the counts
 * stay within bounds, and the closed stream has a verdict for every test.
 * Then the same bytes flattened (tap_walk, report_flatten): printable lines,
 * one per leaf, numbered 1..N, each followed only by its YAML block and its
 * diagnostics, and the plan says N; and walked with every callback: depths
 * within TAP_WALK_DEPTH, every string printable (a result's output and
 * diagnostics line by line, bounded; diagnostics start with '#'), a suite's
 * end at the depth of an open suite.
 */
#include "fuzz.h"
#include "analysis/report.h"
#include "results/tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_flat(const uint8_t *data, size_t size)
{
	struct buf flat = BUF_INIT;
	char *text, *line, *nl;
	int results = 0, plan = -1;

	report_flatten((const char *)data, size, &flat);
	text = xstrdup(buf_str(&flat));
	FUZZ_CHECK(!strncmp(text, "TAP version 13\n", 15));
	for (line = text; *line; line = nl + 1) {
		int n;

		nl = strchr(line, '\n');
		FUZZ_CHECK(nl != NULL);
		*nl = '\0';
		FUZZ_CHECK(fuzz_printable(line));
		FUZZ_CHECK(plan < 0);   /* the plan is the last line */
		if (sscanf(line, "ok %d - ", &n) == 1 || sscanf(line, "not ok %d - ", &n) == 1)
			FUZZ_CHECK(n == ++results);
		else if (sscanf(line, "1..%d", &n) == 1)
			plan = n;
		else
			FUZZ_CHECK(!strcmp(line, "TAP version 13") || !strncmp(line, "  ", 2) ||
				   (line[0] == '#' && results > 0));
	}
	FUZZ_CHECK(plan == results);
	free(text);
	buf_free(&flat);
}

struct walk_check {
	int open[TAP_WALK_DEPTH];       /* suites opened and not yet ended, per level */
};

/* Lines each ending in '\n', printable; diagnostics (diag) each from its '#'. */
static void check_lines(const char *s, int diag)
{
	FUZZ_CHECK(s != NULL && strlen(s) <= TAP_OUTPUT_MAX);
	for (const char *l = s; *l; l = next_line(l)) {
		char *line = xprintf("%.*s", (int)strcspn(l, "\n"), l);

		FUZZ_CHECK(l[strlen(line)] == '\n');
		FUZZ_CHECK(fuzz_printable(line));
		FUZZ_CHECK(!diag || line[0] == '#');
		free(line);
	}
}

static void check_node(const struct tap_node *n)
{
	FUZZ_CHECK(n->depth >= 0 && n->depth < TAP_WALK_DEPTH);
	for (int i = 0; i < n->depth; i++)
		FUZZ_CHECK(fuzz_printable(n->suites[i]));
	if (n->t) {
		FUZZ_CHECK(fuzz_printable(n->t->name) && fuzz_printable(n->t->reason));
		FUZZ_CHECK(fuzz_printable(n->comment));
		FUZZ_CHECK(!n->yaml || strlen(n->yaml) < TAP_YAML_MAX);
		check_lines(n->output, 0);
		check_lines(n->diags, 1);
	}
	FUZZ_CHECK(!n->text || strlen(n->text) <= TAP_LINE_MAX);
}

static void walk_suite(void *ctx, const struct tap_node *n)
{
	struct walk_check *w = ctx;

	check_node(n);
	FUZZ_CHECK(n->text && !w->open[n->depth]);
	w->open[n->depth] = 1;
}

static void walk_result(void *ctx, const struct tap_node *n)
{
	struct walk_check *w = ctx;

	check_node(n);
	FUZZ_CHECK(n->t != NULL);
	for (int k = n->depth; k < TAP_WALK_DEPTH; k++)
		w->open[k] = 0;
}

static void walk_diag(void *ctx, const struct tap_node *n)
{
	(void)ctx;
	check_node(n);
	FUZZ_CHECK(n->text && n->text[0] == '#' && !n->t);
}

static void check_walk(const uint8_t *data, size_t size)
{
	static const struct tap_walk_ops ops = { walk_suite, walk_result, walk_result, walk_diag, NULL };
	struct walk_check w = { { 0 } };

	tap_walk((const char *)data, size, &ops, &w);
}

static void check_line(void *ctx, const char *line)
{
	(void)ctx;
	FUZZ_CHECK(strlen(line) <= TAP_LINE_MAX);
	FUZZ_CHECK(fuzz_text(line));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tap_parser p;
	static const char *const plan[] = { "topology", "mempolicy", "../../etc/passwd" };
	struct tap_summary sum;
	size_t cut = fuzz_split(&data, &size);
	char *added = NULL;
	size_t added_len = 0;
	FILE *out = open_memstream(&added, &added_len);

	tap_init(&p);
	p.on_line = check_line;
	tap_feed(&p, (const char *)data, cut);
	tap_feed(&p, (const char *)data + cut, size - cut);
	tap_close(&p, TAP_ERROR, "kernel panic: \033[31mfake\n1..9", plan, 3, out);
	fclose(out);
	for (char *line = added, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		FUZZ_CHECK(nl != NULL);   /* every added line is terminated */
		*nl = '\0';
		FUZZ_CHECK(fuzz_printable(line));
	}
	free(added);
	FUZZ_CHECK(p.nr_tests >= 0 && p.nr_tests <= TAP_MAX_TESTS);
	FUZZ_CHECK(p.nr_info >= 0 && p.nr_info <= TAP_MAX_INFO);
	for (int i = 0; i < p.nr_tests; i++) {
		FUZZ_CHECK(p.tests[i].status != TAP_PENDING);
		FUZZ_CHECK(fuzz_printable(p.tests[i].name));
		FUZZ_CHECK(fuzz_printable(p.tests[i].reason));
	}
	for (int i = 0; i < p.nr_info; i++)
		FUZZ_CHECK(fuzz_printable(p.info[i].key) && fuzz_printable(p.info[i].value));
	tap_summarise(&p, &sum);
	FUZZ_CHECK(sum.tests == sum.passed + sum.failed + sum.skipped + sum.todo + sum.timeout + sum.errors);
	check_flat(data, size);
	check_walk(data, size);
	return 0;
}
