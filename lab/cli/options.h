/*
 * options: a command's options declared once, in the spirit of git's
 * parse-options: one table row per option (long name, value kind, range,
 * placeholder, help line, where the value goes) drives getopt_long, the
 * range checks and the option list of `numalab CMD --help`.
 *
 * Contract:
 * - The table is an array of struct opt ending with OPT_END, built where the
 *   storage lives (usually on the command's stack, as git does), with the
 *   OPT_* macros below.  A value's storage keeps its default unless the
 *   option is given; OPT_STRING and OPT_LIST keep pointers into argv.
 * - opt_parse() checks the table first (as git's parse_options_check():
 *   names unique, none "help" or "no-...", each row with what its kind
 *   needs, subcommands first; a bad table is the programmer's: -1 with err
 *   of kind ERROR_HARNESS), then runs getopt_long over argv (argv[0] is the
 *   command's name), without printing anything.  It returns the index of
 *   the first operand, OPT_HELP when --help (or -h) was given, or -1 with
 *   err (kind ERROR_INPUT) naming the option and what it wants, for the
 *   first bad one: an unknown option, a missing value, a value a flag does
 *   not take, a number out of range, a word not among the choices.
 * - Long names only, and whole: `--kern` is refused, naming --kernel
 *   (getopt_long would take any unambiguous prefix, and a new option would
 *   then change what an old command line means).  The one short option is
 *   -h, for --help, in every command (as `numalab -h`): numalab has no
 *   others, so a letter never means two things in two commands.
 * - Every flag also takes --no-NAME, which sets it back to 0: the last one
 *   given counts (git's OPT_BOOL).  A flag whose storage is 1 before the
 *   parse defaults on: its help entry reads --no-NAME, and its help says
 *   what --no-NAME does.
 * - Subcommands (git's OPT_SUBCOMMAND): a table may start with
 *   OPT_SUBCOMMAND rows.  Its own options then end at the first operand,
 *   which must name one of them; *value becomes that row's spec (value
 *   starts NULL), and the rest of argv, from the subcommand's name as its
 *   argv[0], is parsed by that spec.  The index returned is the first
 *   operand's in the whole argv; OPT_HELP is the help of the deepest
 *   subcommand named (opt_chosen()).
 * - opt_help() writes the whole help: spec->usage, the option list (one
 *   entry per row, in table order, the help's own line breaks kept and
 *   indented; a subcommand as "  NAME"), then spec->tail.  Pinned by
 *   tests/host/unit/golden/options/.
 * - getopt_long's state is global: not reentrant, and it permutes argv's
 *   pointers (not the strings) unless spec->stop_at_operand.
 */
#ifndef LAB_OPTIONS_H
#define LAB_OPTIONS_H

#include "base/util.h"

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_FLAG,      /* no value: *(int *)value = 1 */
	OPT_KIND_STRING,    /* *(const char **)value = the argument */
	OPT_KIND_CHOICE,    /* the same, but one of the words of choices ("a|b|c") */
	OPT_KIND_INT,       /* *(int *)value: a decimal integer in imin..imax */
	OPT_KIND_U64,       /* *(uint64_t *)value: any non-negative decimal */
	OPT_KIND_DOUBLE,    /* *(double *)value: finite, in [dmin, dmax] ((dmin, dmax): open) */
	OPT_KIND_LIST,      /* repeatable: each argument pushed onto *(struct strvec *)value */
	OPT_KIND_CALLBACK,  /* fn(value, argument, err): 0, or -1 with err saying what it wants */
	OPT_KIND_SUBCOMMAND, /* the first operand names it: *(const struct opt_spec **)value = sub */
};

struct opt_spec;

struct opt {
	const char *name;       /* the long name, without "--" */
	enum opt_kind kind;
	const char *arg;        /* the value's placeholder in the help ("DIR"); NULL: a flag */
	const char *help;       /* the help entry; '\n' starts a continuation line */
	void *value;
	long long imin, imax;   /* OPT_KIND_INT */
	double dmin, dmax;      /* OPT_KIND_DOUBLE; dmax may be HUGE_VAL */
	int open;               /* OPT_KIND_DOUBLE: both ends excluded */
	const char *choices;    /* OPT_KIND_CHOICE */
	int (*fn)(void *value, const char *arg, struct error *err);
	const struct opt_spec *sub;   /* OPT_KIND_SUBCOMMAND: its options, help and name ("topo show") */
};

#define OPT_FLAG(n, v, h) { .name = (n), .kind = OPT_KIND_FLAG, .help = (h), .value = (v) }
#define OPT_STRING(n, v, a, h) { .name = (n), .kind = OPT_KIND_STRING, .arg = (a), .help = (h), .value = (v) }
/* a: the placeholder, often the choices themselves ("auto|tcg|kvm"). */
#define OPT_CHOICE(n, v, a, c, h) \
	{ .name = (n), .kind = OPT_KIND_CHOICE, .arg = (a), .help = (h), .value = (v), .choices = (c) }
#define OPT_INT(n, v, a, lo, hi, h) \
	{ .name = (n), .kind = OPT_KIND_INT, .arg = (a), .help = (h), .value = (v), .imin = (lo), .imax = (hi) }
#define OPT_U64(n, v, a, h) { .name = (n), .kind = OPT_KIND_U64, .arg = (a), .help = (h), .value = (v) }
#define OPT_DOUBLE(n, v, a, lo, hi, h) \
	{ .name = (n), .kind = OPT_KIND_DOUBLE, .arg = (a), .help = (h), .value = (v), .dmin = (lo), .dmax = (hi) }
#define OPT_DOUBLE_OPEN(n, v, a, lo, hi, h) \
	{ .name = (n), .kind = OPT_KIND_DOUBLE, .arg = (a), .help = (h), .value = (v), .dmin = (lo), \
	  .dmax = (hi), .open = 1 }
#define OPT_LIST(n, v, a, h) { .name = (n), .kind = OPT_KIND_LIST, .arg = (a), .help = (h), .value = (v) }
#define OPT_CALLBACK(n, v, a, f, h) \
	{ .name = (n), .kind = OPT_KIND_CALLBACK, .arg = (a), .help = (h), .value = (v), .fn = (f) }
/* v: a const struct opt_spec *, NULL until the command line names s. */
#define OPT_SUBCOMMAND(n, v, s, h) \
	{ .name = (n), .kind = OPT_KIND_SUBCOMMAND, .help = (h), .value = (v), .sub = (s) }
#define OPT_END { .kind = OPT_KIND_END }

/* A command's options and the free text of its help around them. */
struct opt_spec {
	const char *name;        /* the command, "run": `numalab run --help` */
	const char *usage;       /* before the options: usage lines, what it does, operands */
	const struct opt *opts;  /* ends with OPT_END */
	const char *tail;        /* after the options: exit codes, pointers to docs; may be NULL */
	int stop_at_operand;     /* the first operand ends the options (run's `-- CMD ARG...`) */
};

#define OPT_HELP (-2)

/* See the contract above: first operand's index, OPT_HELP, or -1 with err. */
int opt_parse(const struct opt_spec *spec, int argc, char **argv, struct error *err) LAB_MUST_CHECK;

/* The subcommand the last opt_parse() of spec went down to (spec itself if none). */
const struct opt_spec *opt_chosen(const struct opt_spec *spec);

/* The whole `numalab CMD --help` text, appended to out. */
void opt_help(const struct opt_spec *spec, struct buf *out);

#endif
