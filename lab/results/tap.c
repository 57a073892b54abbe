/*
 * tap: the streaming, bounded KTAP parser; tap.h says what is accepted.
 */
#include "results/tap.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* More digits than this cannot be held in an int: such a number is garbage. */
#define NUM_DIGITS_MAX 9

void tap_init(struct tap_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->planned = -1;
	p->cur = -1;
}

/*
 * Length of the UTF-8 sequence at s (left bytes available), or 0 when it is
 * invalid (bad lead or continuation, overlong, surrogate, past U+10FFFF, cut
 * short) or a C1 control, which some terminals obey like ESC.
 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	static const unsigned long min[] = { 0, 0, 0xa0, 0x800, 0x10000 };
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	unsigned long cp = s[0] & (0x7f >> len);

	if (s[0] < 0xc2 || s[0] > 0xf4 || len > left)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * The stored line reaches terminals, logs and reports: every ASCII control
 * but tab and every byte of bad UTF-8 becomes '?', which also defuses escape
 * sequences.  Tabs are plain text (a program's columns); the parsed copy
 * turns them into spaces (end_line()).
 */
static void sanitise(char *line, size_t len)
{
	unsigned char *s = (unsigned char *)line;

	for (size_t i = 0, n; i < len; i += n) {
		n = s[i] >= 0x80 ? utf8_len(s + i, len - i) : 1;
		if (!n || (s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f) {
			s[i] = '?';
			n = 1;
		}
	}
}

/*
 * Copies the first len bytes of s into dst (size bytes) without trailing
 * blanks; a cut backs off to a character boundary so the copy stays UTF-8.
 */
static void copy_text(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size) {
		len = size - 1;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	while (len && s[len - 1] == ' ')
		len--;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Reads the decimal at *s into *out and moves *s past it; 0 if none. */
static int take_num(const char **s, int *out)
{
	const char *c = *s;
	int n = 0;

	while (*c >= '0' && *c <= '9' && c - *s < NUM_DIGITS_MAX)
		n = n * 10 + (*c++ - '0');
	if (c == *s || (*c >= '0' && *c <= '9'))
		return 0;
	*s = c;
	*out = n;
	return 1;
}

static int is_version(const char *s)
{
	return !strcmp(s, "KTAP version 1") || !strcmp(s, "TAP version 13") ||
	       !strcmp(s, "TAP version 14");
}

/* "1..N", maybe with a comment (TAP's "1..0 # SKIP why"). */
static int parse_plan(const char *s, int *n)
{
	if (strncmp(s, "1..", 3))
		return 0;
	s += 3;
	return take_num(&s, n) && (*s == '\0' || !strncmp(s, " #", 2));
}

static const struct {
	const char *word;
	enum tap_status status;
} directives[] = {
	{ "SKIP", TAP_SKIP },
	{ "TODO", TAP_TODO },
	{ "TIMEOUT", TAP_TIMEOUT },
	{ "ERROR", TAP_ERROR },
};

/* The text after a result's '#': a directive, or else just a comment. */
static void parse_directive(const char *c, struct tap_test *t)
{
	c += strspn(c, " ");
	for (size_t i = 0; i < sizeof(directives) / sizeof(directives[0]); i++) {
		size_t n = strlen(directives[i].word);

		if (!strncasecmp(c, directives[i].word, n) && (c[n] == '\0' || c[n] == ' ')) {
			t->status = directives[i].status;
			c += n + strspn(c + n, " ");
			copy_text(t->reason, sizeof(t->reason), c, strlen(c));
			return;
		}
	}
}

/* "ok N [- ]name [# DIRECTIVE reason]" or "not ok ..."; 0 if s is neither. */
static int parse_result(const char *s, struct tap_test *t)
{
	int ok = !strncmp(s, "ok ", 3);
	const char *hash;

	if (!ok && strncmp(s, "not ok ", 7))
		return 0;
	s += ok ? 3 : 7;
	memset(t, 0, sizeof(*t));
	if (!take_num(&s, &t->number) || (*s && *s != ' '))
		return 0;
	s += strspn(s, " ");
	if (!strncmp(s, "- ", 2))	/* TAP 13's "ok 1 - name" */
		s += 2;
	hash = *s == '#' ? s : strstr(s, " #");
	copy_text(t->name, sizeof(t->name), s, hash ? (size_t)(hash - s) : strlen(s));
	t->status = ok ? TAP_OK : TAP_NOT_OK;
	if (hash)
		parse_directive(strchr(hash, '#') + 1, t);
	return 1;
}

/* A new pending test, or NULL when storage is full. */
static struct tap_test *add_test(struct tap_parser *p, const char *name)
{
	struct tap_test *t;

	if (p->nr_tests == TAP_MAX_TESTS)
		return NULL;
	t = &p->tests[p->nr_tests++];
	copy_text(t->name, sizeof(t->name), name, strlen(name));
	t->status = TAP_PENDING;
	t->sub_planned = -1;
	return t;
}

/* Without room the nested lines count nowhere, rather than into another test. */
static void announce(struct tap_parser *p, const char *name)
{
	struct tap_test *t = add_test(p, name);

	p->cur = t ? (int)(t - p->tests) : -1;
}

static struct tap_test *find_pending(struct tap_parser *p, const char *name)
{
	for (int i = p->nr_tests - 1; i >= 0; i--)
		if (p->tests[i].status == TAP_PENDING && !strcmp(p->tests[i].name, name))
			return &p->tests[i];
	return NULL;
}

/* A depth-0 result: it ends the nested block whatever its name. */
static void finish_test(struct tap_parser *p, const struct tap_test *r)
{
	struct tap_test *t = find_pending(p, r->name);

	p->cur = -1;
	if (!t)
		t = add_test(p, r->name);
	if (!t) {
		p->tests_dropped++;
		return;
	}
	t->number = r->number;
	t->status = r->status;
	memcpy(t->reason, r->reason, sizeof(t->reason));
}

static void count_sub(struct tap_test *t, enum tap_status s)
{
	if (s == TAP_OK)
		t->sub_pass++;
	else if (s == TAP_SKIP || s == TAP_TODO)	/* neither passed nor failed */
		t->sub_skip++;
	else
		t->sub_fail++;
}

static const struct tap_info *find_info(const struct tap_parser *p, const char *key,
					size_t len)
{
	for (int i = 0; i < p->nr_info; i++)
		if (strlen(p->info[i].key) == len && !memcmp(p->info[i].key, key, len))
			return &p->info[i];
	return NULL;
}

/*
 * "KEY: VALUE" after "# guest.".  /init prints the guest view once, before
 * any test runs, so the first line for a key wins.  A key that does not fit
 * is refused rather than cut, as cut keys could collide.
 */
static void add_info(struct tap_parser *p, const char *s)
{
	size_t klen = strcspn(s, ": ");
	struct tap_info *in;

	if (!klen || s[klen] != ':' || klen >= sizeof(p->info[0].key) ||
	    p->nr_info == TAP_MAX_INFO || find_info(p, s, klen))
		return;
	in = &p->info[p->nr_info++];
	copy_text(in->key, sizeof(in->key), s, klen);
	s += klen + 1;
	s += strspn(s, " ");
	copy_text(in->value, sizeof(in->value), s, strlen(s));
}

static void parse_top(struct tap_parser *p, const char *s)
{
	struct tap_test r;
	int n;

	if (is_version(s))
		p->version_seen = 1;
	else if (parse_plan(s, &n) && p->planned < 0)
		p->planned = n;
	else if (parse_result(s, &r))
		finish_test(p, &r);
	else if (!strcmp(s, "# numalab: done"))
		p->done = 1;
	else if (!strncmp(s, "# guest.", 8))
		add_info(p, s + 8);
	else if (s[0] != '#')		/* a later plan lands here too */
		p->garbage_lines++;
}

static void parse_sub(struct tap_parser *p, const char *s)
{
	struct tap_test *t = p->cur >= 0 ? &p->tests[p->cur] : NULL;
	struct tap_test r;
	int n;

	/* Only /init opens tests, between results: with one open, it is that test's own text. */
	if (!strncmp(s, TAP_SUBTEST, strlen(TAP_SUBTEST)) && !t) {
		announce(p, s + strlen(TAP_SUBTEST));
		return;
	}
	if (is_version(s) || s[0] == '#')	/* nested header, diagnostics */
		return;
	if (t && parse_plan(s, &n) && t->sub_planned < 0)
		t->sub_planned = n;
	else if (t && parse_result(s, &r))
		count_sub(t, r.status);
	else
		p->garbage_lines++;
}

static void parse_line(struct tap_parser *p, const char *s)
{
	size_t indent = strspn(s, " ");

	if (indent % 4)
		p->garbage_lines++;
	else if (indent == 0)
		parse_top(p, s);
	else if (indent == 4)
		parse_sub(p, s + 4);
}

static void end_line(struct tap_parser *p)
{
	size_t len = p->line_len;

	while (len && p->line[len - 1] == '\r')
		len--;
	p->line[len] = '\0';
	p->line_len = 0;
	sanitise(p->line, len);
	if (p->on_line)
		p->on_line(p->ctx, p->line);
	for (char *tab = p->line; (tab = strchr(tab, '\t')); )
		*tab = ' ';
	while (len && p->line[len - 1] == ' ')	/* trailing blanks mean nothing */
		p->line[--len] = '\0';
	parse_line(p, p->line);
}

void tap_feed(struct tap_parser *p, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			end_line(p);
		else if (p->line_len < TAP_LINE_MAX)
			p->line[p->line_len++] = data[i];
		/* else: past TAP_LINE_MAX, dropped up to the newline */
	}
}

void tap_end(struct tap_parser *p)
{
	if (p->line_len)
		end_line(p);
}

static int highest_number(const struct tap_parser *p)
{
	int max = 0;

	for (int i = 0; i < p->nr_tests; i++)
		if (p->tests[i].number > max)
			max = p->tests[i].number;
	return max;
}

static int has_number(const struct tap_parser *p, int number)
{
	for (int i = 0; i < p->nr_tests; i++)
		if (p->tests[i].number == number)
			return 1;
	return 0;
}

static void write_result(FILE *out, const struct tap_test *t)
{
	if (out)
		fprintf(out, "not ok %d%s%s # %s%s%s\n", t->number, *t->name ? " " : "",
			t->name, tap_status_name(t->status), *t->reason ? " " : "",
			t->reason);
}

/* The runner's reason may quote the guest's console: clean it like a line. */
static void set_reason(struct tap_test *t, const char *reason)
{
	copy_text(t->reason, sizeof(t->reason), reason, strlen(reason));
	sanitise(t->reason, strlen(t->reason));
	for (char *tab = t->reason; (tab = strchr(tab, '\t')); )
		*tab = ' ';   /* a stored field, like a parsed line's */
}

/* /init numbers its tests in order: a cut test is the one after the last. */
static void close_pending(struct tap_parser *p, enum tap_status status,
			  const char *reason, FILE *out)
{
	int next = highest_number(p) + 1;

	for (int i = 0; i < p->nr_tests; i++) {
		struct tap_test *t = &p->tests[i];

		if (t->status != TAP_PENDING)
			continue;
		t->number = next++;
		t->status = status;
		set_reason(t, reason);
		write_result(out, t);
	}
	p->cur = -1;
}

/*
 * Each planned number without a result becomes an ERROR test.  Every pass of
 * the loop skips a stored number or stores a test, and it stops when storage
 * is full, so even a plan of 999999999 costs little.
 */
static void add_not_run(struct tap_parser *p, const char *reason,
			const char *const *names, int n, FILE *out)
{
	char why[sizeof(p->tests[0].reason)];

	snprintf(why, sizeof(why), "not run: %s", reason);
	for (int number = 1; number <= p->planned; number++) {
		struct tap_test *t;

		if (has_number(p, number))
			continue;
		t = add_test(p, names && number <= n ? names[number - 1] : "");
		if (!t) {
			p->tests_dropped++;
			return;
		}
		t->number = number;
		t->status = TAP_ERROR;
		set_reason(t, why);
		write_result(out, t);
	}
}

void tap_close(struct tap_parser *p, enum tap_status status, const char *reason,
	       const char *const *plan_names, int n, FILE *out)
{
	int had_plan;

	tap_end(p);
	had_plan = p->planned >= 0;
	if (status != TAP_TIMEOUT)	/* a cut test can never have passed */
		status = TAP_ERROR;
	close_pending(p, status, reason, out);
	if (!had_plan)
		p->planned = n > highest_number(p) ? n : highest_number(p);
	add_not_run(p, reason, plan_names, n, out);
	if (!had_plan && out)		/* TAP allows the plan after the results */
		fprintf(out, "1..%d\n", p->planned);
}

void tap_add_error(struct tap_parser *p, const char *name, const char *reason, FILE *out)
{
	int number = highest_number(p) + 1;
	struct tap_test *t = add_test(p, name);

	if (!t) {
		p->tests_dropped++;
		return;
	}
	t->number = number;
	t->status = TAP_ERROR;
	set_reason(t, reason);
	write_result(out, t);
}

void tap_summarise(const struct tap_parser *p, struct tap_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->tests = p->nr_tests;
	for (int i = 0; i < p->nr_tests; i++) {
		const struct tap_test *t = &p->tests[i];

		switch (t->status) {
		case TAP_OK: s->passed++; break;
		case TAP_PENDING:
		case TAP_NOT_OK: s->failed++; break;
		case TAP_SKIP: s->skipped++; break;
		case TAP_TODO: s->todo++; break;
		case TAP_TIMEOUT: s->timeout++; break;
		case TAP_ERROR: s->errors++; break;
		}
		s->subtests_passed += t->sub_pass;
		s->subtests_failed += t->sub_fail;
		s->subtests_skipped += t->sub_skip;
	}
}

int tap_failed(const struct tap_parser *p)
{
	if (p->tests_dropped || p->planned > p->nr_tests)
		return 1;
	for (int i = 0; i < p->nr_tests; i++) {
		enum tap_status s = p->tests[i].status;

		if (s != TAP_OK && s != TAP_SKIP && s != TAP_TODO)
			return 1;
	}
	return 0;
}

const char *tap_info_get(const struct tap_parser *p, const char *key)
{
	const struct tap_info *in = find_info(p, key, strlen(key));

	return in ? in->value : NULL;
}

const char *tap_status_name(enum tap_status s)
{
	static const char *const names[] = {
		[TAP_PENDING] = "PENDING", [TAP_OK] = "OK",     [TAP_NOT_OK] = "NOT OK",
		[TAP_SKIP] = "SKIP",       [TAP_TODO] = "TODO", [TAP_TIMEOUT] = "TIMEOUT",
		[TAP_ERROR] = "ERROR",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* The lab's own lines among a test's diagnostics: no reason for anything. */
static int bookkeeping(const char *s)
{
	static const char *const starts[] = { "metric:", "totals:", "guest.", "numalab:" };

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(s, starts[i], strlen(starts[i])))
			return 1;
	return 0;
}

/* An LTP result tag saying what went wrong ("tst_device.c:450: TBROK: ..."). */
static int ltp_failure(const char *s, size_t len)
{
	for (const char *tag = s; (tag = strstr(tag, " T")) && tag < s + len; tag++)
		if (!strncmp(tag, " TFAIL:", 7) || !strncmp(tag, " TBROK:", 7))
			return 1;
	return 0;
}

/* The first own diagnostic that says something (tap.h), into buf; 0 if none. */
static int first_diag(const char *diags, char *buf, size_t cap)
{
	const char *first = NULL, *l;
	size_t first_len = 0, len;

	for (l = diags ? diags : ""; *l; l = next_line(l)) {
		const char *s = l + strspn(l, "#");

		s += strspn(s, " ");
		len = strcspn(s, "\n");
		if (!len || bookkeeping(s))
			continue;
		if (ltp_failure(s, len)) {
			first = s;
			first_len = len;
			break;
		}
		if (!first) {
			first = s;
			first_len = len;
		}
	}
	if (!first)
		return 0;
	copy_text(buf, cap, first, first_len);
	return 1;
}

void tap_reason(const struct tap_node *n, char *buf, size_t cap)
{
	const struct tap_test *t = n->t;

	buf[0] = '\0';
	if (!cap || t->status == TAP_OK)
		return;
	if (t->status != TAP_NOT_OK && t->status != TAP_PENDING && *t->reason) {
		copy_text(buf, cap, t->reason, strlen(t->reason));
		return;
	}
	if (first_diag(n->diags, buf, cap))
		return;
	if ((t->status == TAP_NOT_OK || t->status == TAP_PENDING) && n->comment)
		copy_text(buf, cap, n->comment, strlen(n->comment));
}

int tap_status_failing(enum tap_status s)
{
	return s == TAP_NOT_OK || s == TAP_TIMEOUT || s == TAP_ERROR || s == TAP_PENDING;
}

/* ---- the walk ---- */

struct tap_walker {
	const struct tap_walk_ops *ops;
	void *ctx;
	/* Level k: the suite whose results are at depth k+1. */
	int open[TAP_WALK_DEPTH];               /* its "# Subtest:" seen, or results under it */
	char suite[TAP_WALK_DEPTH][sizeof(((struct tap_test *)0)->name)];   /* "" when closed */
	const char *suites[TAP_WALK_DEPTH];
	int nested[TAP_WALK_DEPTH];             /* results deeper than k since its last result */
	int failed_below[TAP_WALK_DEPTH];       /* failing leaves reported under it */
	int harness_below[TAP_WALK_DEPTH];      /* of those, TIMEOUT and ERROR ones */
	/* The last result, held back until its YAML block (if any) is read. */
	int held, held_depth, held_ends_suite, held_leaf;
	int yaml_state;                         /* 0 none yet, 1 inside, 2 closed */
	struct tap_test result;
	char comment[TAP_LINE_MAX + 1];
	char yaml[TAP_YAML_MAX];
	size_t yaml_len;
	/*
	 * The lines since the current top-level test began (text, up to
	 * TAP_OUTPUT_MAX bytes), for results' output: mark[k] is the first line
	 * of the output of the next result at depth k; held_line the held
	 * result's own line.
	 */
	struct buf text;
	struct walk_line {
		size_t at;              /* offset in text */
		int depth;              /* leading spaces / 4, rounded down */
		int diag;               /* reported by on_diag */
	} *lines;
	size_t nr_lines, alloc_lines, held_line;
	size_t mark[TAP_WALK_DEPTH + 1];
	struct buf output, diags;   /* the released result's */
};

/* Empties b: buf_str() then reads "", not what it held. */
static void buf_empty(struct buf *b)
{
	b->len = 0;
	buf_add(b, "", 0);
}

/* Keeps line (depth: its indent / 4) for the output of the results it is part of. */
static void keep_line(struct tap_walker *w, const char *line, size_t indent)
{
	size_t len = strlen(line);

	if (w->text.len + len + 1 > TAP_OUTPUT_MAX)
		return;
	if (w->nr_lines == w->alloc_lines) {
		w->alloc_lines = w->alloc_lines ? 2 * w->alloc_lines : 64;
		w->lines = xrealloc(w->lines, w->alloc_lines * sizeof(*w->lines));
	}
	w->lines[w->nr_lines++] = (struct walk_line){ w->text.len, (int)(indent / 4), 0 };
	buf_add(&w->text, line, len);
	buf_add(&w->text, "\n", 1);
}

static const char *line_at(struct tap_walker *w, size_t i)
{
	return buf_str(&w->text) + w->lines[i].at;
}

/*
 * The next results at depth k and deeper begin their output here.  At
 * depth 0 nothing kept is anyone's any more: the lines are dropped.
 */
static void mark_from(struct tap_walker *w, int k)
{
	if (k == 0) {
		w->nr_lines = 0;
		buf_empty(&w->text);
	}
	for (int j = k; j <= TAP_WALK_DEPTH; j++)
		w->mark[j] = w->nr_lines;
}

/* The held result's output and own diagnostics (tap.h), into w->output and w->diags. */
static void collect_output(struct tap_walker *w)
{
	int d = w->held_depth, strip = -1;
	size_t end = w->held_line < w->nr_lines ? w->held_line : w->nr_lines;

	buf_empty(&w->output);
	buf_empty(&w->diags);
	for (size_t i = w->mark[d]; i < end; i++) {
		const struct walk_line *l = &w->lines[i];

		if ((l->depth > d || (l->diag && l->depth == d)) && (strip < 0 || l->depth < strip))
			strip = l->depth;
	}
	for (size_t i = w->mark[d]; i < end; i++) {
		const struct walk_line *l = &w->lines[i];
		const char *s = line_at(w, i);

		size_t len = strcspn(s, "\n") + 1;

		if (l->depth > d || (l->diag && l->depth == d))
			buf_add(&w->output, s + 4 * strip, len - 4 * (size_t)strip);
		/* A forged "# Subtest:" stays output, but as a diagnostic it could pass for a header. */
		if (l->diag && l->depth >= d && i >= w->mark[d + 1] &&
		    strncmp(s + 4 * l->depth, TAP_SUBTEST, strlen(TAP_SUBTEST)))
			buf_add(&w->diags, s + 4 * l->depth, len - 4 * (size_t)l->depth);
	}
}

static void release(struct tap_walker *w)
{
	const struct tap_walk_ops *o = w->ops;
	struct tap_node n = { w->held_depth, w->suites, &w->result, w->comment, NULL, NULL, NULL, NULL };

	if (!w->held)
		return;
	w->held = 0;
	if (w->yaml_state)
		n.yaml = w->yaml;
	collect_output(w);
	n.output = buf_str(&w->output);
	n.diags = buf_str(&w->diags);
	if (w->held_ends_suite ? o->on_suite_end : o->on_test)
		(w->held_ends_suite ? o->on_suite_end : o->on_test)(w->ctx, &n);
	if (w->held_leaf && o->on_leaf)
		o->on_leaf(w->ctx, &n);
	w->suite[w->held_depth][0] = '\0';	/* the suite it ended is closed now */
	mark_from(w, w->held_depth);		/* its YAML block included */
}

/* 1 if line (indent spaces in, rest s) belongs to the held result's YAML block. */
static int take_yaml(struct tap_walker *w, size_t indent, const char *s)
{
	size_t base = 4 * (size_t)w->held_depth + 2, n;

	if (!w->held || w->yaml_state == 2)
		return 0;
	if (w->yaml_state == 0) {
		if (indent != base || strcmp(s, "---"))
			return 0;
		w->yaml_state = 1;
		return 1;
	}
	if (indent < base || !*s)
		return 0;
	if (indent == base && !strcmp(s, "...")) {
		w->yaml_state = 2;
		return 1;
	}
	/* The block's own indentation is kept; past the bound, lines are dropped. */
	n = (size_t)snprintf(w->yaml + w->yaml_len, sizeof(w->yaml) - w->yaml_len, "%*s%s\n",
			     (int)(indent - base), "", s);
	if (w->yaml_len + n < sizeof(w->yaml))
		w->yaml_len += n;
	w->yaml[w->yaml_len] = '\0';
	return 1;
}

static int harness_status(enum tap_status s)
{
	return s == TAP_TIMEOUT || s == TAP_ERROR;
}

static void walk_result(struct tap_walker *w, int depth, const struct tap_test *t,
			const char *comment)
{
	int parent = w->nested[depth], failing = tap_status_failing(t->status);

	/* Results deeper than any Subtest line still need their levels. */
	for (int k = 0; k < depth; k++)
		if (!w->open[k]) {
			w->open[k] = 1;
			w->suite[k][0] = '\0';
		}
	w->held_ends_suite = w->open[depth];
	w->held_leaf = !parent || (harness_status(t->status) && !w->harness_below[depth]) ||
		       (failing && !w->failed_below[depth]);
	for (int k = depth; k < TAP_WALK_DEPTH; k++) {
		w->open[k] = w->nested[k] = w->failed_below[k] = w->harness_below[k] = 0;
		if (k > depth)
			w->suite[k][0] = '\0';
	}
	for (int k = 0; k < depth; k++) {
		w->nested[k] = 1;
		w->failed_below[k] += w->held_leaf && failing;
		w->harness_below[k] += w->held_leaf && harness_status(t->status);
	}
	w->held = 1;
	w->held_depth = depth;
	w->result = *t;
	snprintf(w->comment, sizeof(w->comment), "%s", comment);
	w->yaml_state = 0;
	w->yaml_len = 0;
	w->yaml[0] = '\0';
}

/* Where a result's comment starts, as parse_result() finds its '#'; "" none. */
static const char *result_comment(const char *s)
{
	const char *hash;

	s += !strncmp(s, "ok ", 3) ? 3 : 7;
	s += strspn(s, "0123456789");
	s += strspn(s, " ");
	if (!strncmp(s, "- ", 2))
		s += 2;
	hash = *s == '#' ? s : strstr(s, " #");
	if (!hash)
		return "";
	hash = strchr(hash, '#') + 1;
	return hash + strspn(hash, " ");
}

void tap_walker_line(struct tap_walker *w, const char *line)
{
	const struct tap_walk_ops *o = w->ops;
	char copy[TAP_LINE_MAX + 1], *s;
	struct tap_node n = { 0, w->suites, NULL, NULL, NULL, NULL, NULL, NULL };
	size_t indent, len, kept;
	int depth;
	struct tap_test t;

	/* on_line has the line before the parser's last touches: tabs, trailing blanks. */
	snprintf(copy, sizeof(copy), "%s", line);
	for (char *tab = copy; (tab = strchr(tab, '\t')); )
		*tab = ' ';
	for (len = strlen(copy); len && copy[len - 1] == ' '; )
		copy[--len] = '\0';
	indent = strspn(copy, " ");
	depth = (int)(indent / 4);
	s = copy + indent;
	if (take_yaml(w, indent, s)) {
		keep_line(w, copy, indent);
		return;
	}
	release(w);
	kept = w->nr_lines;
	keep_line(w, copy, indent);
	if (indent % 4 || depth >= TAP_WALK_DEPTH)
		return;
	if (depth > 0 && !strncmp(s, TAP_SUBTEST, strlen(TAP_SUBTEST)) && !w->open[depth - 1]) {
		w->open[depth - 1] = 1;
		copy_text(w->suite[depth - 1], sizeof(w->suite[0]), s + strlen(TAP_SUBTEST),
			  strlen(s + strlen(TAP_SUBTEST)));
		mark_from(w, depth - 1);
		n.depth = depth - 1;
		n.text = w->suite[depth - 1];
		if (o->on_suite)
			o->on_suite(w->ctx, &n);
	} else if (parse_result(s, &t)) {
		walk_result(w, depth, &t, result_comment(s));
		w->held_line = kept;    /* == nr_lines when past the bound: its output ends there */
	} else if (s[0] == '#') {
		if (kept < w->nr_lines)
			w->lines[kept].diag = 1;
		n.depth = depth;
		n.text = s;
		if (o->on_diag)
			o->on_diag(w->ctx, &n);
	}
}

struct tap_walker *tap_walker_new(const struct tap_walk_ops *ops, void *ctx)
{
	struct tap_walker *w = xcalloc(1, sizeof(*w));

	w->ops = ops;
	w->ctx = ctx;
	for (int k = 0; k < TAP_WALK_DEPTH; k++)
		w->suites[k] = w->suite[k];
	return w;
}

void tap_walker_end(struct tap_walker *w)
{
	if (!w)
		return;
	release(w);
	buf_free(&w->text);
	buf_free(&w->output);
	buf_free(&w->diags);
	free(w->lines);
	free(w);
}

static void walker_on_line(void *ctx, const char *line)
{
	tap_walker_line(ctx, line);
}

void tap_walk(const char *text, size_t len, const struct tap_walk_ops *ops, void *ctx)
{
	struct tap_walker *w = tap_walker_new(ops, ctx);
	struct tap_parser *p = xmalloc(sizeof(*p));

	tap_init(p);
	p->on_line = walker_on_line;
	p->ctx = w;
	tap_feed(p, text, len);
	tap_end(p);
	free(p);
	tap_walker_end(w);
}
