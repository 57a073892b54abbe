#include "model/mutant.h"
#include "model/cread.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
	[MUTANT_RELATIONAL] = "relational", [MUTANT_LOGICAL] = "logical",
	[MUTANT_CONSTANT] = "constant",     [MUTANT_EXPRESSION] = "expression",
	[MUTANT_CONDITION] = "condition",   [MUTANT_REMOVE] = "remove",
	[MUTANT_ARGUMENT] = "argument",
};

const char *mutant_op_name(enum mutant_op op)
{
	return op_names[op];
}

/* ---- generation ---- */

struct gen {
	const char *file, *s;
	const struct ctoks *v;
	const char **line_start;   /* [line] -> its first byte; [last line + 1] -> the end */
	const char *function;
	const unsigned char *wanted;   /* [line] */
	struct mutant_list *list;
};

static size_t line_len(const struct gen *g, int line)
{
	const char *a = g->line_start[line], *end = g->line_start[line + 1];

	while (end > a && (end[-1] == '\n'))
		end--;
	return (size_t)(end - a);
}

static void id_of(struct mutant *m)
{
	struct sha256 h;
	unsigned char d[32];
	char hex[65];
	char *key = xprintf("%s\n%d\n%s\n%s", m->file, m->line, mutant_op_name(m->op), m->repl);

	sha256_init(&h);
	sha256_update(&h, key, strlen(key));
	sha256_final(&h, d);
	sha256_hex(d, hex);
	snprintf(m->id, sizeof(m->id), "%.*s", MUTANT_ID_LEN, hex);
	free(key);
}

/* The line of token range [a, b] with its bytes replaced by with. */
static void emit(struct gen *g, enum mutant_op op, int a, int b, const char *with, const char *what)
{
	int line = g->v->t[a].line;
	const char *ls = g->line_start[line];
	size_t n = line_len(g, line);
	size_t from = g->v->t[a].off - (size_t)(ls - g->s), to = g->v->t[b].off + g->v->t[b].len - (size_t)(ls - g->s);
	struct mutant *m;
	char *repl;

	if (g->v->t[b].line != line || !g->wanted[line] || to > n)
		return;
	repl = xprintf("%.*s%s%.*s", (int)from, ls, with, (int)(n - to), ls + to);
	if (strlen(repl) == n && !memcmp(repl, ls, n)) {
		free(repl);
		return;
	}
	for (int i = 0; i < g->list->nr; i++)
		if (g->list->items[i].line == line && !strcmp(g->list->items[i].file, g->file) &&
		    !strcmp(g->list->items[i].repl, repl)) {
			free(repl);
			return;
		}
	if (g->list->nr == g->list->cap) {
		g->list->cap = g->list->cap ? g->list->cap * 2 : 256;
		g->list->items = xrealloc(g->list->items, (size_t)g->list->cap * sizeof(*g->list->items));
	}
	m = &g->list->items[g->list->nr++];
	memset(m, 0, sizeof(*m));
	snprintf(m->file, sizeof(m->file), "%s", g->file);
	snprintf(m->function, sizeof(m->function), "%s", g->function);
	m->line = line;
	m->op = op;
	snprintf(m->what, sizeof(m->what), "%s", what);
	m->orig = xprintf("%.*s", (int)n, ls);
	m->repl = repl;
	id_of(m);
}

static char *tok_text(const struct gen *g, int k)
{
	return xprintf("%.*s", (int)g->v->t[k].len, g->s + g->v->t[k].off);
}

static char *range_text(const struct gen *g, int a, int b)
{
	return xprintf("%.*s", (int)(g->v->t[b].off + g->v->t[b].len - g->v->t[a].off), g->s + g->v->t[a].off);
}

static void relational_logical(struct gen *g, int k)
{
	static const char *const pairs[][2] = {
		{ "<", "<=" }, { "<=", "<" }, { ">", ">=" }, { ">=", ">" }, { "==", "!=" }, { "!=", "==" },
		{ "&&", "||" }, { "||", "&&" },
	};

	if (g->v->t[k].kind != CTOK_PUNCT)
		return;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (ctok_is(g->s, &g->v->t[k], pairs[i][0])) {
			char what[32];

			snprintf(what, sizeof(what), "%s to %s", pairs[i][0], pairs[i][1]);
			emit(g, i < 6 ? MUTANT_RELATIONAL : MUTANT_LOGICAL, k, k, pairs[i][1], what);
		}
}

static void constant(struct gen *g, int k)
{
	char digits[64], suffix[16], with[48], what[160];
	const char *t = g->s + g->v->t[k].off;
	size_t n = g->v->t[k].len, d;
	int hex = n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
	uint64_t val;
	char *end;

	if (g->v->t[k].kind != CTOK_NUMBER || n >= sizeof(digits))
		return;
	for (d = hex ? 2 : 0; d < n && (hex ? isxdigit((unsigned char)t[d]) : isdigit((unsigned char)t[d])); d++)
		;
	if (n - d >= sizeof(suffix) || strspn(t + d, "uUlL") < n - d || (!hex && t[0] == '0' && n > 1))
		return;   /* floats, octal: not integers this reads */
	snprintf(digits, sizeof(digits), "%.*s", (int)d, t);
	snprintf(suffix, sizeof(suffix), "%.*s", (int)(n - d), t + d);
	errno = 0;
	val = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || *end)
		return;
	for (int delta = 1; delta >= -1; delta -= 2) {
		if (delta < 0 && val == 0)
			continue;
		snprintf(with, sizeof(with), hex ? "0x%" PRIx64 "%s" : "%" PRIu64 "%s", val + (uint64_t)(int64_t)delta,
			 suffix);
		snprintf(what, sizeof(what), "%s to %s", digits, with);
		emit(g, MUTANT_CONSTANT, k, k, with, what);
	}
}

/* `return E;` (assign < 0) or `X = E;` (assign: its `=`) on one line, k the first token, semi its `;`. */
static void expression(struct gen *g, int k, int semi, int assign)
{
	int a = assign >= 0 ? assign + 1 : k + 1, b = semi - 1;
	char *e, *with;

	if (b < a || g->v->t[a].line != g->v->t[semi].line)
		return;
	e = range_text(g, a, b);
	if (a == b && (g->v->t[a].kind == CTOK_NUMBER || !strcmp(e, "NULL") || !strcmp(e, "true") ||
		       !strcmp(e, "false"))) {
		free(e);
		return;   /* a literal: the constant operator's; a bool or NULL plus one is no integer slip */
	}
	for (int delta = 1; delta >= -1; delta -= 2) {
		char what[160];

		with = xprintf("(%s) %c 1", e, delta > 0 ? '+' : '-');
		snprintf(what, sizeof(what), "%.60s to (%.60s) %c 1", e, e, delta > 0 ? '+' : '-');
		emit(g, MUTANT_EXPRESSION, a, b, with, what);
		free(with);
	}
	free(e);
}

static void condition(struct gen *g, int k)
{
	int open = k + 1, close, is_if = ctok_is(g->s, &g->v->t[k], "if");

	if (!(is_if || ctok_is(g->s, &g->v->t[k], "while")) || open >= g->v->nr || !ctok_is(g->s, &g->v->t[open], "("))
		return;
	close = ctok_match_forward(g->s, g->v, open);
	if (close < 0 || close == open + 1 || g->v->t[close].line != g->v->t[k].line)
		return;
	if (is_if)
		emit(g, MUTANT_CONDITION, open + 1, close - 1, "1", "if (...) to if (1)");
	emit(g, MUTANT_CONDITION, open + 1, close - 1, "0", is_if ? "if (...) to if (0)" : "while (...) to while (0)");
}

/* Calls whose removal no test can notice, or that only check. */
static int is_check_call(const char *name)
{
	static const char *const prefixes[] = {
		"BUG", "WARN", "VM_BUG", "VM_WARN", "BUILD_BUG", "lockdep_", "trace_", "pr_", "printk",
		"might_sleep", "dump_stack", "count_vm", "__count_vm", "mod_node_page_state",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static int is_assign_op(const char *s, const struct ctok *t)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ctok_is(s, t, ops[i]))
			return 1;
	return 0;
}

/* An lvalue this reads: '*'s, NAME, then ->NAME, .NAME, [..]; its end (the token after), or -1. */
static int lvalue_end(const struct gen *g, int k, int limit)
{
	while (k < limit && ctok_is(g->s, &g->v->t[k], "*"))
		k++;
	if (k >= limit || g->v->t[k].kind != CTOK_IDENT)
		return -1;
	for (k++; k < limit;) {
		if ((ctok_is(g->s, &g->v->t[k], "->") || ctok_is(g->s, &g->v->t[k], ".")) && k + 1 < limit &&
		    g->v->t[k + 1].kind == CTOK_IDENT)
			k += 2;
		else if (ctok_is(g->s, &g->v->t[k], "[") && ctok_match_forward(g->s, g->v, k) > 0)
			k = ctok_match_forward(g->s, g->v, k) + 1;
		else
			break;
	}
	return k;
}

/* while, if, for, switch, do, sizeof: keywords that look like calls. */
static int is_control(const struct gen *g, int k)
{
	static const char *const words[] = { "if", "while", "for", "switch", "do", "sizeof", "return" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (ctok_is(g->s, &g->v->t[k], words[i]))
			return 1;
	return 0;
}

/* A statement from k (its first token) to semi: removal, expression mutants. */
static void statement(struct gen *g, int k, int semi)
{
	int end;

	if (g->v->t[semi].line != g->v->t[k].line)
		return;
	if (ctok_is(g->s, &g->v->t[k], "return")) {
		expression(g, k, semi, -1);
		return;
	}
	if (is_control(g, k))
		return;
	if (g->v->t[k].kind == CTOK_IDENT && ctok_is(g->s, &g->v->t[k + 1], "(") &&
	    ctok_match_forward(g->s, g->v, k + 1) == semi - 1) {
		char *name = tok_text(g, k);

		if (!is_check_call(name))
			emit(g, MUTANT_REMOVE, k, semi, ";", "call statement removed");
		free(name);
		return;
	}
	end = lvalue_end(g, k, semi);
	if (end < 0)
		return;
	if (end + 1 == semi && (ctok_is(g->s, &g->v->t[end], "++") || ctok_is(g->s, &g->v->t[end], "--"))) {
		emit(g, MUTANT_REMOVE, k, semi, ";", "increment removed");
		return;
	}
	if (end < semi && is_assign_op(g->s, &g->v->t[end])) {
		emit(g, MUTANT_REMOVE, k, semi, ";", "assignment removed");
		if (ctok_is(g->s, &g->v->t[end], "="))
			expression(g, k, semi, end);
	}
}

static const struct c_var *find_var(const struct c_vars *sv, const char *name)
{
	for (int i = sv->nr - 1; i >= 0; i--)
		if (!strcmp(sv->v[i].name, name))
			return &sv->v[i];
	return NULL;
}

/* A call's '(' at open: each plain-variable argument swapped for up to two others of its type. */
static void arguments(struct gen *g, int open, const struct c_vars *sv)
{
	int close = ctok_match_forward(g->s, g->v, open), a = open + 1;

	if (close < 0 || g->v->t[close].line != g->v->t[open].line || open < 1 ||
	    g->v->t[open - 1].kind != CTOK_IDENT || is_check_call(g->s + g->v->t[open - 1].off) ||
	    ctok_is(g->s, &g->v->t[open - 1], "if") || ctok_is(g->s, &g->v->t[open - 1], "while") ||
	    ctok_is(g->s, &g->v->t[open - 1], "for") || ctok_is(g->s, &g->v->t[open - 1], "switch") ||
	    ctok_is(g->s, &g->v->t[open - 1], "return") || ctok_is(g->s, &g->v->t[open - 1], "sizeof"))
		return;
	for (int k = a, depth = 0; k <= close; k++) {
		if (k < close && (ctok_is(g->s, &g->v->t[k], "(") || ctok_is(g->s, &g->v->t[k], "[")))
			depth++;
		else if (k < close && (ctok_is(g->s, &g->v->t[k], ")") || ctok_is(g->s, &g->v->t[k], "]")))
			depth--;
		else if (k == close || (!depth && ctok_is(g->s, &g->v->t[k], ","))) {
			if (k == a + 1 && g->v->t[a].kind == CTOK_IDENT) {
				char *name = tok_text(g, a);
				const struct c_var *x = find_var(sv, name);
				int made = 0;

				for (int i = sv->nr - 1; x && i >= 0 && made < 2; i--) {
					char what[160];

					if (strcmp(sv->v[i].type, x->type) || !strcmp(sv->v[i].name, name) ||
					    find_var(sv, sv->v[i].name) != &sv->v[i])
						continue;
					/* Bounded to fit struct mutant's what[160] whole. */
					snprintf(what, sizeof(what), "argument %.40s to %.40s (%.60s)", name,
						 sv->v[i].name, x->type);
					emit(g, MUTANT_ARGUMENT, a, a, sv->v[i].name, what);
					made++;
				}
				free(name);
			}
			a = k + 1;
		}
	}
}

/* The statement starting at k ends at its ';' (parentheses balanced), or -1 at a brace first. */
static int statement_end(const struct gen *g, int k, int limit)
{
	for (int depth = 0; k < limit; k++) {
		if (ctok_is(g->s, &g->v->t[k], "(") || ctok_is(g->s, &g->v->t[k], "["))
			depth++;
		else if (ctok_is(g->s, &g->v->t[k], ")") || ctok_is(g->s, &g->v->t[k], "]"))
			depth--;
		else if (ctok_is(g->s, &g->v->t[k], "{") || ctok_is(g->s, &g->v->t[k], "}"))
			return -1;
		else if (!depth && ctok_is(g->s, &g->v->t[k], ";"))
			return k;
	}
	return -1;
}

/*
 * A token where a statement may start: after ; { } else, a label's ':' or
 * a loop macro's ')' ending their line (for_each_node_mask(...)), or a
 * control statement's ')'.
 */
static int starts_statement(const struct gen *g, int k)
{
	const struct ctok *p = &g->v->t[k - 1];
	int open, line_end = p->line != g->v->t[k].line;

	if (ctok_is(g->s, p, ";") || ctok_is(g->s, p, "{") || ctok_is(g->s, p, "}") || ctok_is(g->s, p, "else") ||
	    (line_end && (ctok_is(g->s, p, ":") || ctok_is(g->s, p, ")"))))
		return 1;
	if (!ctok_is(g->s, p, ")") || (open = ctok_match_backward(g->s, g->v, k - 1)) < 1)
		return 0;
	return ctok_is(g->s, &g->v->t[open - 1], "if") || ctok_is(g->s, &g->v->t[open - 1], "while") ||
	       ctok_is(g->s, &g->v->t[open - 1], "for");
}

static void function_mutants(struct gen *g, const struct c_extent *e)
{
	struct c_vars *sv = xcalloc(1, sizeof(*sv));
	int depth = 1;

	g->function = e->f.name;
	c_read_params(g->s, g->v, e, sv);
	for (int k = e->body_open + 1; k < e->body_close; k++) {
		const struct ctok *t = &g->v->t[k];

		if (ctok_is(g->s, t, "{")) {
			depth++;
			continue;
		}
		if (t->kind == CTOK_IDENT && k + 1 < e->body_close && ctok_is(g->s, &g->v->t[k + 1], "(")) {
			char *name = tok_text(g, k);
			int close = is_check_call(name) ? ctok_match_forward(g->s, g->v, k + 1) : -1;

			free(name);
			if (close > k) {   /* an assertion's condition is no code to mutate */
				k = close;
				continue;
			}
		}
		if (ctok_is(g->s, t, "}")) {
			depth--;
			while (sv->nr && sv->v[sv->nr - 1].depth > depth)
				sv->nr--;
			continue;
		}
		if (starts_statement(g, k)) {
			int semi = statement_end(g, k, e->body_close);

			if (semi > k && c_looks_like_declaration(g->s, g->v, k, semi) &&
			    !ctok_is(g->s, t, "return")) {
				/* Its initializers are mutated like expressions, then its names join the scope. */
				for (int i = k; i < semi; i++) {
					relational_logical(g, i);
					constant(g, i);
					if (ctok_is(g->s, &g->v->t[i], "(") && i > k)
						arguments(g, i, sv);
				}
				c_read_declaration(g->s, g->v, k, semi, depth, sv);
				k = semi;
				continue;
			}
			if (semi > k)
				statement(g, k, semi);
		}
		condition(g, k);
		relational_logical(g, k);
		constant(g, k);
		if (ctok_is(g->s, t, "("))
			arguments(g, k, sv);
	}
	free(sv);
}

int mutant_generate(const char *file, const char *text, size_t len, const struct mutant_scope *scope,
		    struct mutant_list *list, struct error *err)
{
	struct ctoks v = { 0 };
	struct c_extent *fx;
	int nr_fx, nr_lines = 1, rc = 0;
	const char **starts;
	unsigned char *wanted;
	struct gen g = { .file = file, .s = text, .v = &v, .list = list };

	for (size_t i = 0; i < len; i++)
		nr_lines += text[i] == '\n';
	starts = xcalloc((size_t)nr_lines + 2, sizeof(*starts));
	wanted = xcalloc((size_t)nr_lines + 2, 1);
	starts[1] = text;
	for (size_t i = 0, l = 1; i < len; i++)
		if (text[i] == '\n')
			starts[++l] = text + i + 1;
	starts[nr_lines + 1] = text + len;
	g.line_start = starts;
	g.wanted = wanted;
	ctoks_read(text, len, &v);
	c_extents(text, &v, &fx, &nr_fx);
	for (int f = 0; f < scope->nr_functions && !rc; f++) {
		int found = 0;

		for (int i = 0; i < nr_fx; i++)
			found |= !strcmp(fx[i].f.name, scope->functions[f]);
		if (!found)
			rc = error_input(err, "%s: no function %s is defined in it; give the name of a "
					 "function of the file (--function)", file, scope->functions[f]);
	}
	for (int i = 0; i < nr_fx && !rc; i++) {
		int named = !scope->nr_functions;

		for (int f = 0; f < scope->nr_functions; f++)
			named |= !strcmp(fx[i].f.name, scope->functions[f]);
		if (!named)
			continue;
		memset(wanted, 0, (size_t)nr_lines + 2);
		for (int l = fx[i].f.open_line; l <= fx[i].f.close_line; l++)
			wanted[l] = !scope->nr_lines;
		for (int l = 0; l < scope->nr_lines; l++)
			if (scope->lines[l] >= fx[i].f.open_line && scope->lines[l] <= fx[i].f.close_line)
				wanted[scope->lines[l]] = 1;
		function_mutants(&g, &fx[i]);
	}
	free(fx);
	ctoks_free(&v);
	free(starts);
	free(wanted);
	return rc;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct mutant *)a)->id, ((const struct mutant *)b)->id);
}

void mutant_sort_by_id(struct mutant_list *list)
{
	if (list->nr)
		qsort(list->items, (size_t)list->nr, sizeof(*list->items), by_id);
}

void mutant_list_free(struct mutant_list *list)
{
	for (int i = 0; i < list->nr; i++) {
		free(list->items[i].orig);
		free(list->items[i].repl);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

/* ---- stratified samples ---- */

static int same_stratum(const struct mutant_stratum *st, const struct mutant *m)
{
	return !strcmp(st->file, m->file) && !strcmp(st->function, m->function);
}

const struct mutant_stratum *mutant_stratum_of(const struct mutant_sample *s, const struct mutant *m)
{
	for (int h = 0; h < s->nr; h++)
		if (same_stratum(&s->strata[h], m))
			return &s->strata[h];
	return NULL;
}

/* The strata of list with their populations; *stratum_of[i] the stratum of mutant i. */
static void strata_of(const struct mutant_list *list, struct mutant_sample *s, int *stratum_of)
{
	s->strata = xcalloc((size_t)list->nr + 1, sizeof(*s->strata));
	s->nr = 0;
	for (int i = 0; i < list->nr; i++) {
		const struct mutant *m = &list->items[i];
		int h = 0;

		while (h < s->nr && !same_stratum(&s->strata[h], m))
			h++;
		if (h == s->nr) {
			snprintf(s->strata[h].file, sizeof(s->strata[h].file), "%s", m->file);
			snprintf(s->strata[h].function, sizeof(s->strata[h].function), "%s", m->function);
			s->nr++;
		}
		s->strata[h].population++;
		stratum_of[i] = h;
	}
}

/*
 * Share n among the strata in proportion to weight[h] (their sum total > 0),
 * on top of what sampled[] already holds: the floors, then one more each to
 * the largest remainders.
 */
static void share(struct mutant_sample *s, const int *weight, long total, int n)
{
	long *rest = xcalloc((size_t)s->nr + 1, sizeof(*rest));
	int given = 0;

	for (int h = 0; h < s->nr; h++) {
		int q = (int)((long)n * weight[h] / total);

		s->strata[h].sampled += q;
		given += q;
		rest[h] = (long)n * weight[h] % total;
	}
	while (given < n) {
		int best = -1;

		for (int h = 0; h < s->nr; h++)
			if (s->strata[h].sampled < s->strata[h].population && (best < 0 || rest[h] > rest[best]))
				best = h;
		if (best < 0)
			break;
		s->strata[best].sampled++;
		rest[best] = -1;
		given++;
	}
	free(rest);
}

struct ranked {
	unsigned char key[32];
	int index;
};

static int by_key(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	return c ? c : x->index - y->index;
}

void mutant_sample(struct mutant_list *list, int n, unsigned seed, struct mutant_sample *out)
{
	int *stratum_of = xcalloc((size_t)list->nr + 1, sizeof(*stratum_of));
	int *keep = xcalloc((size_t)list->nr + 1, sizeof(*keep)), *weight, kept = 0;
	struct ranked *rank = xcalloc((size_t)list->nr + 1, sizeof(*rank));

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->seed = seed;
	strata_of(list, out, stratum_of);
	weight = xcalloc((size_t)out->nr + 1, sizeof(*weight));
	if (n >= list->nr) {
		for (int h = 0; h < out->nr; h++)
			out->strata[h].sampled = out->strata[h].population;
	} else if (n >= out->nr) {
		for (int h = 0; h < out->nr; h++) {
			out->strata[h].sampled = 1;
			weight[h] = out->strata[h].population - 1;
		}
		if (list->nr > out->nr)
			share(out, weight, list->nr - out->nr, n - out->nr);
	} else {
		for (int h = 0; h < out->nr; h++)
			weight[h] = out->strata[h].population;
		share(out, weight, list->nr, n);
	}
	for (int i = 0; i < list->nr; i++) {
		struct sha256 ctx;
		char text[64];

		snprintf(text, sizeof(text), "%u %s", seed, list->items[i].id);
		sha256_init(&ctx);
		sha256_update(&ctx, text, strlen(text));
		sha256_final(&ctx, rank[i].key);
		rank[i].index = i;
	}
	qsort(rank, (size_t)list->nr, sizeof(*rank), by_key);
	for (int h = 0; h < out->nr; h++) {
		int want = out->strata[h].sampled;

		for (int k = 0; k < list->nr && want; k++)
			if (stratum_of[rank[k].index] == h) {
				keep[rank[k].index] = 1;
				want--;
			}
	}
	for (int i = 0; i < list->nr; i++) {
		if (keep[i]) {
			list->items[kept++] = list->items[i];
			continue;
		}
		free(list->items[i].orig);
		free(list->items[i].repl);
	}
	list->nr = kept;
	free(stratum_of);
	free(keep);
	free(weight);
	free(rank);
}

void mutant_sample_free(struct mutant_sample *s)
{
	free(s->strata);
	memset(s, 0, sizeof(*s));
}

/* ---- diffs ---- */

void mutant_diff(const struct mutant *m, const char *text, size_t len, struct buf *out)
{
	int nr_lines = 0, first, last;
	const char *p = text, *end = text + len;

	for (const char *q = text; q < end; q++)
		nr_lines += *q == '\n';
	if (len && text[len - 1] != '\n')
		nr_lines++;
	first = m->line > 3 ? m->line - 3 : 1;
	last = m->line + 3 < nr_lines ? m->line + 3 : nr_lines;
	buf_addf(out, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", m->file, m->file, first,
		 last - first + 1, first, last - first + 1);
	for (int l = 1; l <= last && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l == m->line)
			buf_addf(out, "-%.*s\n+%s\n", (int)n, p, m->repl);
		else if (l >= first)
			buf_addf(out, " %.*s\n", (int)n, p);
		p = nl ? nl + 1 : end;
	}
}

void mutant_added_lines(const char *diff, const char *file, int **lines, int *nr)
{
	int in_file = 0, line = 0, cap = *nr;

	for (const char *p = diff; *p; p = next_line(p)) {
		size_t n = strcspn(p, "\n");

		if (!strncmp(p, "+++ ", 4)) {
			const char *path = p + 4;

			if (!strncmp(path, "b/", 2))
				path += 2;
			in_file = strcspn(path, "\t\n") == strlen(file) && !strncmp(path, file, strlen(file));
			line = 0;
		} else if (!strncmp(p, "@@ ", 3)) {
			const char *plus = strchr(p, '+');

			line = plus && plus < p + n ? atoi(plus + 1) : 0;
		} else if (in_file && line > 0 && (*p == ' ' || *p == '\n')) {
			line++;
		} else if (in_file && line > 0 && *p == '+') {
			if (*nr == cap) {
				cap = cap ? cap * 2 : 64;
				*lines = xrealloc(*lines, (size_t)cap * sizeof(**lines));
			}
			(*lines)[(*nr)++] = line++;
		}
	}
}

/* ---- equivalents ---- */

int mutant_equivalents_parse(const char *path, const char *text, size_t len,
			     struct mutant_equivalents *eq, struct error *err)
{
	const char *p = text, *end = text + len;
	int lineno = 0, cap = 0;

	memset(eq, 0, sizeof(*eq));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), id;
		struct mutant_equivalent *e;
		const char *q = p;

		lineno++;
		p = nl ? nl + 1 : end;
		while (q < p && (*q == ' ' || *q == '\t'))
			q++;
		if (q == p || *q == '\n' || *q == '#')
			continue;
		for (id = 0; q + id < p && isxdigit((unsigned char)q[id]) && !isupper((unsigned char)q[id]); id++)
			;
		if (id != MUTANT_ID_LEN || (q + id < p && !strchr(" \t\n", q[id]))) {
			mutant_equivalents_free(eq);
			return error_input(err, "%s:%d: \"%.*s\": a line is a mutant id (%d lowercase hex "
					   "digits, as `numalab mutate` lists it) and why it is equivalent",
					   path, lineno, (int)(n > 60 ? 60 : n), q, MUTANT_ID_LEN);
		}
		const char *r = q + id;

		while (r < p && (*r == ' ' || *r == '\t'))
			r++;
		size_t rn = (size_t)(p - r);

		while (rn && (r[rn - 1] == '\n' || r[rn - 1] == ' ' || r[rn - 1] == '\t'))
			rn--;
		if (!rn) {
			mutant_equivalents_free(eq);
			return error_input(err, "%s:%d: mutant %.*s has no reason; say after the id why no "
					   "test can tell it from the original", path, lineno, MUTANT_ID_LEN, q);
		}
		if (rn >= sizeof(eq->items[0].reason)) {
			mutant_equivalents_free(eq);
			return error_input(err, "%s:%d: mutant %.*s's reason is %zu bytes; say it in fewer than %zu",
					   path, lineno, MUTANT_ID_LEN, q, rn, sizeof(eq->items[0].reason));
		}
		for (int i = 0; i < eq->nr; i++)
			if (!strncmp(eq->items[i].id, q, MUTANT_ID_LEN)) {
				int first = eq->items[i].line;

				mutant_equivalents_free(eq);
				return error_input(err, "%s:%d: mutant %.*s is already listed on line %d; "
						   "keep one entry", path, lineno, MUTANT_ID_LEN, q, first);
			}
		if (eq->nr == cap) {
			cap = cap ? cap * 2 : 32;
			eq->items = xrealloc(eq->items, (size_t)cap * sizeof(*eq->items));
		}
		e = &eq->items[eq->nr++];
		snprintf(e->id, sizeof(e->id), "%.*s", MUTANT_ID_LEN, q);
		snprintf(e->reason, sizeof(e->reason), "%.*s", (int)rn, r);
		e->line = lineno;
	}
	return 0;
}

const struct mutant_equivalent *mutant_equivalent_find(const struct mutant_equivalents *eq,
						       const char *id)
{
	for (int i = 0; i < eq->nr; i++)
		if (!strcmp(eq->items[i].id, id))
			return &eq->items[i];
	return NULL;
}

void mutant_equivalents_free(struct mutant_equivalents *eq)
{
	free(eq->items);
	memset(eq, 0, sizeof(*eq));
}
