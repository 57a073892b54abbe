#include "cli/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The help column: "  --name ARG" entries longer than this put their help on the next line. */
#define HELP_COLUMN_MAX 20

static size_t nr_opts(const struct opt *opts)
{
	size_t n = 0;

	while (opts[n].kind != OPT_KIND_END)
		n++;
	return n;
}

/* "a|b|c" has word w (the whole of it, between bars). */
static int is_choice(const char *choices, const char *w)
{
	size_t n = strlen(w);

	for (const char *c = choices; *c; c += strcspn(c, "|"), c += *c == '|') {
		if (n && strcspn(c, "|") == n && !strncmp(c, w, n))
			return 1;
	}
	return 0;
}

/* "use a, b or c" from "a|b|c". */
static void choices_phrase(const char *choices, struct buf *b)
{
	const char *c = choices;

	buf_addstr(b, "use ");
	while (*c) {
		size_t n = strcspn(c, "|");
		const char *next = c + n + (c[n] == '|');

		buf_add(b, c, n);
		if (*next)
			buf_addstr(b, strchr(next, '|') ? ", " : " or ");
		c = next;
	}
}

static int parse_int(const struct opt *o, const char *arg, struct error *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (!isdigit((unsigned char)arg[arg[0] == '-']) || *end || errno || v < o->imin || v > o->imax)
		return error_input(err, "--%s %s: give an integer %lld..%lld", o->name, arg, o->imin, o->imax);
	*(int *)o->value = (int)v;
	return 0;
}

static int parse_u64(const struct opt *o, const char *arg, struct error *err)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno)
		return error_input(err, "--%s %s: give a non-negative integer", o->name, arg);
	*(uint64_t *)o->value = v;
	return 0;
}

static int parse_double(const struct opt *o, const char *arg, struct error *err)
{
	char *end;
	double v;
	int low, high;

	errno = 0;
	v = strtod(arg, &end);
	low = o->open ? v > o->dmin : v >= o->dmin;
	high = o->open ? v < o->dmax : v <= o->dmax;
	if (end == arg || *end || errno || !isfinite(v) || !low || !high) {
		if (isinf(o->dmax))
			return error_input(err, "--%s %s: give a number %s %g", o->name, arg,
					   o->open ? ">" : ">=", o->dmin);
		return error_input(err, "--%s %s: give a number %s %g and %s %g", o->name, arg,
				   o->open ? ">" : ">=", o->dmin, o->open ? "<" : "<=", o->dmax);
	}
	*(double *)o->value = v;
	return 0;
}

/* Store arg (NULL for a flag) as o says. */
static int store(const struct opt *o, const char *arg, struct error *err)
{
	struct buf b = BUF_INIT;

	switch (o->kind) {
	case OPT_KIND_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_CHOICE:
		if (!is_choice(o->choices, arg)) {
			choices_phrase(o->choices, &b);
			error_input(err, "--%s %s: %s", o->name, arg, buf_str(&b));
			buf_free(&b);
			return -1;
		}
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_INT:
		return parse_int(o, arg, err);
	case OPT_KIND_U64:
		return parse_u64(o, arg, err);
	case OPT_KIND_DOUBLE:
		return parse_double(o, arg, err);
	case OPT_KIND_LIST:
		strvec_push((struct strvec *)o->value, arg);
		return 0;
	case OPT_KIND_CALLBACK:
		if (o->fn(o->value, arg, err)) {
			error_as_input(err);   /* whatever the parser says: the value is the user's */
			return error_prefix(err, "--%s %s", o->name, arg);
		}
		return 0;
	case OPT_KIND_END:
		break;
	}
	return error_set(err, "--%s: option of no kind", o->name);
}

/* getopt_long's table: val is the row's index + 1; --help is the last row. */
static struct option *getopt_table(const struct opt *opts, size_t n)
{
	struct option *t = xcalloc(n + 2, sizeof(*t));

	for (size_t i = 0; i < n; i++) {
		t[i].name = opts[i].name;
		t[i].has_arg = opts[i].arg ? required_argument : no_argument;
		t[i].val = (int)i + 1;
	}
	t[n].name = "help";
	t[n].val = 'h';
	return t;
}

int opt_parse(const struct opt_spec *spec, int argc, char **argv, struct error *err)
{
	size_t n = nr_opts(spec->opts);
	struct option *table = getopt_table(spec->opts, n);
	int c, rc = 0;

	/* 0: glibc starts afresh (another table, another argv); ':': a missing value is told apart. */
	optind = 0;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, spec->stop_at_operand ? "+:h" : ":h", table, NULL)) != -1) {
		const struct opt *o = c > 0 && c <= (int)n ? &spec->opts[c - 1] : NULL;
		const struct opt *bad = optopt > 0 && optopt <= (int)n ? &spec->opts[optopt - 1] : NULL;

		if (o)
			rc = store(o, optarg, err);
		else if (c == 'h')
			rc = OPT_HELP;
		else if (c == ':' && bad)
			rc = error_input(err, "--%s needs a value: --%s %s", bad->name, bad->name, bad->arg);
		else if (c == '?' && bad)
			rc = error_input(err, "--%s takes no value", bad->name);
		else if (c == '?' && optopt > 0)
			rc = error_input(err, "unknown option '-%c'", optopt);
		else
			rc = error_input(err, "unknown option '%s'", argv[optind - 1]);
	}
	free(table);
	return rc ? rc : optind;
}

/* The "  --name ARG" part of an entry. */
static void entry_left(const struct opt *o, struct buf *b)
{
	buf_addf(b, "  --%s", o->name);
	if (o->arg)
		buf_addf(b, " %s", o->arg);
}

void opt_help(const struct opt_spec *spec, struct buf *out)
{
	size_t n = nr_opts(spec->opts), column = 0;

	for (size_t i = 0; i < n; i++) {
		struct buf left = BUF_INIT;

		entry_left(&spec->opts[i], &left);
		if (left.len <= HELP_COLUMN_MAX && left.len > column)
			column = left.len;
		buf_free(&left);
	}
	column += 2;
	buf_addstr(out, spec->usage);
	for (size_t i = 0; i < n; i++) {
		const char *h = spec->opts[i].help;
		size_t start = out->len;

		entry_left(&spec->opts[i], out);
		if (out->len - start > column - 2)
			buf_addf(out, "\n%*s", (int)column, "");
		else
			buf_addf(out, "%*s", (int)(column - (out->len - start)), "");
		for (;;) {
			size_t line = strcspn(h, "\n");

			buf_add(out, h, line);
			buf_addstr(out, "\n");
			if (!h[line])
				break;
			h += line + 1;
			buf_addf(out, "%*s", (int)column, "");
		}
	}
	if (spec->tail)
		buf_addstr(out, spec->tail);
}
