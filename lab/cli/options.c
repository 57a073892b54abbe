#include "cli/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
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
	case OPT_KIND_SUBCOMMAND:
	case OPT_KIND_END:
		break;
	}
	return error_set(err, "--%s: option of no kind", o->name);
}

static int is_subcommand(const struct opt *o)
{
	return o->kind == OPT_KIND_SUBCOMMAND;
}

/* The table's mistakes, as parse_options_check() finds git's: the programmer's, not the user's. */
static int check_table(const struct opt_spec *spec, size_t n, struct error *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &spec->opts[i];
		int takes_arg = o->kind != OPT_KIND_FLAG && !is_subcommand(o);

		if (!o->name || !*o->name || o->name[0] == '-' || !strcmp(o->name, "help") ||
		    !strncmp(o->name, "no-", 3))
			return error_set(err, "%s's options: '%s' cannot be a name (empty, -, help, no-: taken)",
					 spec->name, o->name ? o->name : "(null)");
		if (!o->help || !o->value || takes_arg != !!o->arg ||
		    (o->kind == OPT_KIND_CHOICE && !o->choices) || (o->kind == OPT_KIND_CALLBACK && !o->fn) ||
		    is_subcommand(o) != !!o->sub)
			return error_set(err, "%s's options: %s lacks what its kind needs", spec->name, o->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(spec->opts[j].name, o->name) && is_subcommand(&spec->opts[j]) == is_subcommand(o))
				return error_set(err, "%s's options: %s twice", spec->name, o->name);
		if (is_subcommand(o) && i && !is_subcommand(&spec->opts[i - 1]))
			return error_set(err, "%s's options: subcommands come first", spec->name);
	}
	return 0;
}

/*
 * getopt_long's table: a row's val is OPT_VAL + its index, its negation's
 * (--no-NAME, flags only) OPT_NEG_VAL + the index; --help is 'h'.  The
 * names of the negations are kept in negs.
 */
#define OPT_VAL 0x100
#define OPT_NEG_VAL 0x10000

static struct option *getopt_table(const struct opt *opts, size_t n, struct strvec *negs)
{
	struct option *t = xcalloc(2 * n + 2, sizeof(*t));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (is_subcommand(&opts[i]))
			continue;
		t[k].name = opts[i].name;
		t[k].has_arg = opts[i].arg ? required_argument : no_argument;
		t[k++].val = OPT_VAL + (int)i;
		if (opts[i].kind == OPT_KIND_FLAG) {
			strvec_pushf(negs, "no-%s", opts[i].name);
			t[k].name = negs->items[negs->nr - 1];
			t[k++].val = OPT_NEG_VAL + (int)i;
		}
	}
	t[k].name = "help";
	t[k].val = 'h';
	return t;
}

/* The row a getopt value stands for (a negation's too), NULL for none. */
static const struct opt *row_of(const struct opt_spec *spec, size_t n, int val)
{
	int i = val >= OPT_NEG_VAL ? val - OPT_NEG_VAL : val - OPT_VAL;

	return val >= OPT_VAL && i >= 0 && (size_t)i < n ? &spec->opts[i] : NULL;
}

/*
 * getopt_long takes any unambiguous prefix of a name (`--kern` for
 * --kernel); numalab takes whole names only, so that adding an option
 * never changes what an existing command line means.  The option just
 * parsed was typed as argv[optind - 1], or argv[optind - 2] when its value
 * was the next argument.
 */
static int whole_name(char **argv, const struct option *matched, struct error *err)
{
	const char *typed = optarg && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
	size_t len = strcspn(typed + 2, "=");

	if (len == strlen(matched->name))
		return 0;
	return error_input(err, "unknown option '%.*s'; options take their whole name: --%s", (int)(len + 2),
			   typed, matched->name);
}

/* The spec's own options, before any subcommand: first operand, OPT_HELP or -1. */
static int parse_options(const struct opt_spec *spec, size_t n, int argc, char **argv, struct error *err)
{
	struct strvec negs = STRVEC_INIT;
	struct option *table = getopt_table(spec->opts, n, &negs);
	int stop = spec->stop_at_operand || (n && is_subcommand(&spec->opts[0]));
	int c, rc = 0, li;

	/* 0: glibc starts afresh (another table, another argv); ':': a missing value is told apart. */
	optind = 0;
	opterr = 0;
	while (!rc && (li = -1, c = getopt_long(argc, argv, stop ? "+:h" : ":h", table, &li)) != -1) {
		const struct opt *o = row_of(spec, n, c);
		const struct opt *bad = row_of(spec, n, optopt);

		if (li >= 0 && c != '?' && c != ':' && whole_name(argv, &table[li], err))
			rc = -1;
		else if (o && c >= OPT_NEG_VAL)
			*(int *)o->value = 0;
		else if (o)
			rc = store(o, optarg, err);
		else if (c == 'h')
			rc = OPT_HELP;
		else if (c == ':' && bad)
			rc = error_input(err, "--%s needs a value: --%s %s", bad->name, bad->name, bad->arg);
		else if (c == '?' && bad)
			rc = error_input(err, "--%s%s takes no value", optopt >= OPT_NEG_VAL ? "no-" : "", bad->name);
		else if (c == '?' && optopt > 0)
			rc = error_input(err, "unknown option '-%c'", optopt);
		else
			rc = error_input(err, "unknown option '%s'", argv[optind - 1]);
	}
	free(table);
	strvec_clear(&negs);
	return rc ? rc : optind;
}

/* "use a, b or c": the spec's subcommands. */
static void subcommands_phrase(const struct opt_spec *spec, size_t n, struct buf *b)
{
	struct buf words = BUF_INIT;

	for (size_t i = 0; i < n && is_subcommand(&spec->opts[i]); i++)
		buf_addf(&words, "%s%s", i ? "|" : "", spec->opts[i].name);
	choices_phrase(buf_str(&words), b);
	buf_free(&words);
}

int opt_parse(const struct opt_spec *spec, int argc, char **argv, struct error *err)
{
	size_t n = nr_opts(spec->opts);
	struct buf use = BUF_INIT;
	int first;

	if (check_table(spec, n, err))
		return -1;
	first = parse_options(spec, n, argc, argv, err);
	if (first < 0 || !n || !is_subcommand(&spec->opts[0]))
		return first;
	subcommands_phrase(spec, n, &use);
	if (first == argc) {
		error_input(err, "give a subcommand: %s", buf_str(&use) + strlen("use "));
		first = -1;
	}
	for (size_t i = 0; first >= 0 && i < n && is_subcommand(&spec->opts[i]); i++) {
		const struct opt *o = &spec->opts[i];
		int rc;

		if (strcmp(o->name, argv[first]))
			continue;
		*(const struct opt_spec **)o->value = o->sub;
		rc = opt_parse(o->sub, argc - first, argv + first, err);
		buf_free(&use);
		return rc < 0 ? rc : first + rc;
	}
	if (first >= 0)
		error_input(err, "unknown subcommand '%s'; %s", argv[first], buf_str(&use));
	buf_free(&use);
	return -1;
}

const struct opt_spec *opt_chosen(const struct opt_spec *spec)
{
	for (const struct opt *o = spec->opts; o->kind == OPT_KIND_SUBCOMMAND; o++)
		if (*(const struct opt_spec **)o->value == o->sub)
			return opt_chosen(o->sub);
	return spec;
}

/* The "  --name ARG" part of an entry: "  NAME" for a subcommand, "  --no-NAME" for a flag that is on. */
static void entry_left(const struct opt *o, struct buf *b)
{
	if (is_subcommand(o))
		buf_addf(b, "  %s", o->name);
	else
		buf_addf(b, "  --%s%s", o->kind == OPT_KIND_FLAG && *(int *)o->value ? "no-" : "", o->name);
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
