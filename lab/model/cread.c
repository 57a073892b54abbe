#include "model/cread.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokens ---- */

static void tok_push(struct ctoks *v, enum ctok_kind kind, size_t off, size_t len, int line)
{
	if (v->nr == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1024;
		v->t = xrealloc(v->t, (size_t)v->cap * sizeof(*v->t));
	}
	v->t[v->nr++] = (struct ctok){ kind, off, len, line };
}

/* Longest first: the punctuators whose text a mutant reads or writes, and their prefixes. */
static const char *const puncts[] = {
	"<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
};

void ctoks_free(struct ctoks *v)
{
	free(v->t);
	v->t = NULL;
	v->nr = v->cap = 0;
}

void ctoks_read(const char *s, size_t len, struct ctoks *v)
{
	size_t i = 0;
	int line = 1, line_start = 1;

	while (i < len) {
		char c = s[i];

		if (c == '\n') {
			line++;
			line_start = 1;
			i++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '#' && line_start) {   /* a preprocessor line, continuations included */
			while (i < len && s[i] != '\n') {
				if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') {
					line++;
					i++;
				}
				i++;
			}
			continue;
		}
		line_start = 0;
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
				line += s[i] == '\n';
			i += 2;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			size_t start = i++;

			while (i < len && s[i] != c && s[i] != '\n')
				i += s[i] == '\\' ? 2 : 1;
			i++;
			tok_push(v, CTOK_STRING, start, (i > len ? len : i) - start, line);
			continue;
		}
		if (isalpha((unsigned char)c) || c == '_') {
			size_t start = i;

			while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
				i++;
			tok_push(v, CTOK_IDENT, start, i - start, line);
			continue;
		}
		if (isdigit((unsigned char)c) || (c == '.' && i + 1 < len && isdigit((unsigned char)s[i + 1]))) {
			size_t start = i;

			while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '_' ||
			       ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
				i++;
			tok_push(v, CTOK_NUMBER, start, i - start, line);
			continue;
		}
		size_t n = 1;

		for (size_t k = 0; k < sizeof(puncts) / sizeof(puncts[0]); k++) {
			size_t pl = strlen(puncts[k]);

			if (pl <= len - i && !strncmp(s + i, puncts[k], pl)) {
				n = pl;
				break;
			}
		}
		tok_push(v, CTOK_PUNCT, i, n, line);
		i += n;
	}
}

int ctok_is(const char *s, const struct ctok *t, const char *text)
{
	return t->len == strlen(text) && !strncmp(s + t->off, text, t->len);
}

/* The bracket pairing the one at i, walking by step (1 or -1) from it, or -1. */
static int match(const char *s, const struct ctoks *v, int i, int step)
{
	static const char pairs[] = "()[]{}";
	char self = s[v->t[i].off];
	const char *at = self ? strchr(pairs, self) : NULL;
	char other = at ? pairs[(at - pairs) ^ 1] : '\0';
	int depth = 0;

	for (int k = i; other && k >= 0 && k < v->nr; k += step) {
		if (v->t[k].kind != CTOK_PUNCT || v->t[k].len != 1)
			continue;
		if (s[v->t[k].off] == self)
			depth++;
		else if (s[v->t[k].off] == other && --depth == 0)
			return k;
	}
	return -1;
}

int ctok_match_forward(const char *s, const struct ctoks *v, int i)
{
	return match(s, v, i, 1);
}

int ctok_match_backward(const char *s, const struct ctoks *v, int i)
{
	return match(s, v, i, -1);
}

/* ---- function extents ---- */

void c_extents(const char *s, const struct ctoks *v, struct c_extent **out, int *nr)
{
	int cap = 0;

	*out = NULL;
	*nr = 0;
	for (int i = 0; i < v->nr; i++) {
		int close, open, name;

		if (!ctok_is(s, &v->t[i], "{"))
			continue;
		close = ctok_match_forward(s, v, i);
		if (close < 0)
			break;
		/* Back over attribute macros (__releases(x)) to the parameters' ')'. */
		for (name = -1, open = i - 1; open >= 0 && ctok_is(s, &v->t[open], ")");) {
			int p = ctok_match_backward(s, v, open);

			if (p < 1 || v->t[p - 1].kind != CTOK_IDENT)
				break;
			name = p - 1;
			if (name >= 1 && ctok_is(s, &v->t[name - 1], ")") && !strncmp(s + v->t[name].off, "__", 2)) {
				open = name - 1;
				continue;
			}
			open = p;
			break;
		}
		if (name >= 0 && open >= 0 && ctok_is(s, &v->t[open], "(")) {
			struct c_extent *e;

			if (*nr == cap) {
				cap = cap ? cap * 2 : 64;
				*out = xrealloc(*out, (size_t)cap * sizeof(**out));
			}
			e = &(*out)[(*nr)++];
			memset(e, 0, sizeof(*e));
			snprintf(e->f.name, sizeof(e->f.name), "%.*s", (int)v->t[name].len, s + v->t[name].off);
			e->f.name_line = v->t[name].line;
			e->f.open_line = v->t[i].line;
			e->f.close_line = v->t[close].line;
			e->params_open = open;
			e->params_close = ctok_match_forward(s, v, open);
			e->body_open = i;
			e->body_close = close;
		}
		i = close;   /* file scope again after the block, whatever it was */
	}
}

void c_functions(const char *text, size_t len, struct c_function **out, int *nr)
{
	struct ctoks v = { 0 };
	struct c_extent *fx;

	ctoks_read(text, len, &v);
	c_extents(text, &v, &fx, nr);
	*out = *nr ? xmalloc((size_t)*nr * sizeof(**out)) : NULL;
	for (int i = 0; i < *nr; i++)
		(*out)[i] = fx[i].f;
	free(fx);
	ctoks_free(&v);
}

/* ---- variables in scope ---- */

static int is_keyword_type(const char *s, const struct ctok *t)
{
	static const char *const words[] = {
		"int", "unsigned", "signed", "long", "short", "char", "bool", "_Bool", "const",
		"volatile", "static", "struct", "union", "enum", "register", "u8", "u16", "u32",
		"u64", "s8", "s16", "s32", "s64", "size_t", "ssize_t", "gfp_t", "nodemask_t",
		"pgoff_t", "void",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (ctok_is(s, t, words[i]))
			return 1;
	return 0;
}

static void add_var(struct c_vars *sv, const char *s, const struct ctok *name, const char *base,
		    int stars, int depth)
{
	struct c_var *x;

	if (sv->nr == (int)(sizeof(sv->v) / sizeof(sv->v[0])) || !base[0])
		return;
	x = &sv->v[sv->nr++];
	snprintf(x->name, sizeof(x->name), "%.*s", (int)name->len, s + name->off);
	snprintf(x->type, sizeof(x->type), "%s%s%.*s", base, stars ? " " : "", stars, "********");
	x->depth = depth;
}

/* The type words of tokens [a, b) ("static" dropped) into base. */
static void type_text(const char *s, const struct ctoks *v, int a, int b, char *base, size_t cap)
{
	size_t n = 0;

	base[0] = '\0';
	for (int k = a; k < b && n < cap; k++) {
		if (ctok_is(s, &v->t[k], "static") || ctok_is(s, &v->t[k], "register"))
			continue;
		n += (size_t)snprintf(base + n, cap - n, "%s%.*s", n ? " " : "", (int)v->t[k].len,
				      s + v->t[k].off);
	}
}

/* Parameters reach here one declarator at a time, without initializers. */
void c_read_declaration(const char *s, const struct ctoks *v, int a, int b, int depth,
			     struct c_vars *sv)
{
	char base[128];
	int k, name = -1, stars = 0, start;

	/* The first declarator's name: the last identifier before '=', ',', '[' or the end. */
	for (k = a; k < b; k++) {
		if (ctok_is(s, &v->t[k], "(") || ctok_is(s, &v->t[k], "["))
			return;   /* function pointers, arrays: not understood */
		if (ctok_is(s, &v->t[k], "=") || ctok_is(s, &v->t[k], ","))
			break;
		if (v->t[k].kind == CTOK_IDENT)
			name = k;
	}
	if (name <= a)
		return;
	for (start = name; start > a && ctok_is(s, &v->t[start - 1], "*"); start--)
		stars++;
	if (start == a)
		return;
	type_text(s, v, a, start, base, sizeof(base));
	add_var(sv, s, &v->t[name], base, stars, depth);
	/* Further declarators: ", stars NAME [= init]". */
	for (int depth_paren = 0; k < b; k++) {
		if (ctok_is(s, &v->t[k], "(") || ctok_is(s, &v->t[k], "{"))
			depth_paren++;
		else if (ctok_is(s, &v->t[k], ")") || ctok_is(s, &v->t[k], "}"))
			depth_paren--;
		else if (!depth_paren && ctok_is(s, &v->t[k], ",")) {
			int n = k + 1;

			for (stars = 0; n < b && ctok_is(s, &v->t[n], "*"); n++)
				stars++;
			if (n < b && v->t[n].kind == CTOK_IDENT &&
			    (n + 1 == b || ctok_is(s, &v->t[n + 1], "=") || ctok_is(s, &v->t[n + 1], ",")))
				add_var(sv, s, &v->t[n], base, stars, depth);
		}
	}
}

int c_looks_like_declaration(const char *s, const struct ctoks *v, int a, int b)
{
	if (b - a < 2)
		return 0;
	if (is_keyword_type(s, &v->t[a]))
		return 1;
	if (v->t[a].kind != CTOK_IDENT)
		return 0;
	if (v->t[a + 1].kind == CTOK_IDENT)
		return 1;
	/* "type *name": a product is never a statement of its own. */
	for (int k = a + 1; k < b; k++) {
		if (v->t[k].kind == CTOK_IDENT)
			return k > a + 1 && (k + 1 == b || ctok_is(s, &v->t[k + 1], "=") || ctok_is(s, &v->t[k + 1], ",") ||
					     ctok_is(s, &v->t[k + 1], ";"));
		if (!ctok_is(s, &v->t[k], "*"))
			return 0;
	}
	return 0;
}

void c_read_params(const char *s, const struct ctoks *v, const struct c_extent *e,
			struct c_vars *sv)
{
	int a = e->params_open + 1, depth = 0;

	for (int k = a; k <= e->params_close; k++) {
		if (k < e->params_close && ctok_is(s, &v->t[k], "("))
			depth++;
		else if (k < e->params_close && ctok_is(s, &v->t[k], ")"))
			depth--;
		else if (k == e->params_close || (!depth && ctok_is(s, &v->t[k], ","))) {
			if (k - a >= 2)
				c_read_declaration(s, v, a, k, 1, sv);
			a = k + 1;
		}
	}
}
