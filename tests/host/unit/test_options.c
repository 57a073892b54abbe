/*
 * test_options: the option tables (lab/cli/options.h): every value kind,
 * the range checks and their one message form, repeatable options, unknown
 * options and missing values, whole names only, every flag's --no-NAME, the
 * table's own checks, subcommands, --help generated from a table and pinned
 * by tests/host/unit/golden/options/ (UPDATE_GOLDEN=1 rewrites them: review
 * the diff), topo's, tap's and toolroot-exec's with their subcommands.  And the command lines numalab writes for itself, parsed back by
 * the parser of the command that reads them: a matrix's cells as
 * `numalab run` (matrix_cell_argv), a bisect's steps as `numalab
 * bisect-run` (bisect_step_argv).
 */
#include "cli/cmd_bisect.h"
#include "cli/cmd_run.h"
#include "cli/command.h"
#include "cli/options.h"
#include "drive/matrix_run.h"
#include "model/matrix.h"
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every kind once, and where each goes. */
struct values {
	int flag, count, on;
	const char *name, *accel;
	uint64_t seed;
	double ratio, level;
	struct strvec dirs;
	int lo, hi;
};

static int range_option(void *value, const char *arg, struct error *err)
{
	struct values *v = value;

	if (sscanf(arg, "%d-%d", &v->lo, &v->hi) != 2 || v->lo > v->hi)
		return error_set(err, "give LO-HI with LO <= HI");
	return 0;
}

static const char test_usage[] =
	"usage: numalab test [options] OPERAND...\n"
	"\n"
	"A made-up command with an option of every kind.\n"
	"\n";

#define NR_TEST_OPTS 12

static void test_spec(struct values *v, struct opt *opts, struct opt_spec *spec)
{
	const struct opt table[] = {
		OPT_FLAG("flag", &v->flag, "a flag"),
		OPT_FLAG("progress", &v->on, "a flag that defaults on: --no-progress turns it off"),
		OPT_STRING("name", &v->name, "NAME", "a string"),
		OPT_CHOICE("accel", &v->accel, "auto|tcg|kvm", "auto|tcg|kvm", "one word of three"),
		OPT_INT("count", &v->count, "N", 1, 10, "an integer 1..10"),
		OPT_U64("seed", &v->seed, "N", "any non-negative integer"),
		OPT_DOUBLE("ratio", &v->ratio, "R", 0, HUGE_VAL, "a number >= 0"),
		OPT_DOUBLE_OPEN("level", &v->level, "P", 0, 1, "a number strictly between 0 and 1,\n"
				"whose help takes two lines"),
		OPT_LIST("dir", &v->dirs, "DIR", "repeatable, in order"),
		OPT_CALLBACK("range", v, "LO-HI", range_option, "parsed by a callback"),
		OPT_STRING("a-very-long-option-name", &v->name, "VALUE", "its help starts on the next line"),
		OPT_END,
	};

	_Static_assert(sizeof(table) / sizeof(table[0]) == NR_TEST_OPTS, "NR_TEST_OPTS: every row");
	memcpy(opts, table, sizeof(table));
	*spec = (struct opt_spec){ .name = "test", .usage = test_usage, .opts = opts,
				   .tail = "\nExit: 0 always.\n" };
}

/* Parse args (NULL-terminated, after argv[0] "test") into v; returns opt_parse()'s result. */
static int parse(struct values *v, struct error *err, int stop_at_operand, const char **args)
{
	struct opt opts[NR_TEST_OPTS];
	struct opt_spec spec;
	char *argv[32] = { "test" };
	int argc = 1;

	test_spec(v, opts, &spec);
	spec.stop_at_operand = stop_at_operand;
	while (args[argc - 1])
		argv[argc] = (char *)args[argc - 1], argc++;
	err->msg[0] = '\0';
	return opt_parse(&spec, argc, argv, err);
}

#define PARSE(v, err, ...) parse(v, err, 0, (const char *[]){ __VA_ARGS__, NULL })

/* The message a bad command line gets, "" when it parses. */
static const char *refusal(const char **args)
{
	static struct error err;
	struct values v = { .dirs = STRVEC_INIT };
	int rc = parse(&v, &err, 0, args);

	strvec_clear(&v.dirs);
	if (rc >= 0)
		return "";
	CHECK_INT(rc, -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	return err.msg;
}

#define REFUSAL(...) refusal((const char *[]){ __VA_ARGS__, NULL })

UNIT_TEST(every_kind_stores_its_value)
{
	struct values v = { .name = "default", .count = 3, .dirs = STRVEC_INIT };
	struct error err;

	CHECK_INT(PARSE(&v, &err, "--flag", "--name", "x", "--accel=kvm", "--count", "10", "--seed",
			"18446744073709551615", "--ratio=2.5", "--level", "0.05", "--range", "3-7", "op"), 14);
	CHECK_STR(err.msg, "");
	CHECK_INT(v.flag, 1);
	CHECK_STR(v.name, "x");
	CHECK_STR(v.accel, "kvm");
	CHECK_INT(v.count, 10);
	CHECK(v.seed == UINT64_MAX);
	CHECK(v.ratio == 2.5);
	CHECK(v.level == 0.05);
	CHECK_INT(v.lo, 3);
	CHECK_INT(v.hi, 7);
	strvec_clear(&v.dirs);
}

UNIT_TEST(values_not_given_keep_their_defaults)
{
	struct values v = { .name = "default", .count = 3, .ratio = 5, .dirs = STRVEC_INIT };
	struct error err;

	CHECK_INT(PARSE(&v, &err, "a", "b"), 1);
	CHECK_STR(v.name, "default");
	CHECK_INT(v.count, 3);
	CHECK(v.ratio == 5);
	CHECK_INT(v.flag, 0);
	CHECK_INT(v.dirs.nr, 0);
}

UNIT_TEST(repeatable_options_keep_every_value_in_order)
{
	struct values v = { .dirs = STRVEC_INIT };
	struct error err;

	CHECK_INT(PARSE(&v, &err, "--dir", "b", "--dir=a", "--dir", "b"), 6);
	CHECK_INT(v.dirs.nr, 3);
	if (v.dirs.nr == 3) {
		CHECK_STR(v.dirs.items[0], "b");
		CHECK_STR(v.dirs.items[1], "a");
		CHECK_STR(v.dirs.items[2], "b");
	}
	strvec_clear(&v.dirs);
}

UNIT_TEST(ranges_are_checked_with_one_message_form)
{
	CHECK_STR(REFUSAL("--count", "0"), "--count 0: give an integer 1..10");
	CHECK_STR(REFUSAL("--count", "11"), "--count 11: give an integer 1..10");
	CHECK_STR(REFUSAL("--count", "3x"), "--count 3x: give an integer 1..10");
	CHECK_STR(REFUSAL("--count", " 3"), "--count  3: give an integer 1..10");
	CHECK_STR(REFUSAL("--count", "99999999999999999999"), "--count 99999999999999999999: give an integer 1..10");
	CHECK_STR(REFUSAL("--count", "1"), "");
	CHECK_STR(REFUSAL("--count", "10"), "");
	CHECK_STR(REFUSAL("--seed", "-1"), "--seed -1: give a non-negative integer");
	CHECK_STR(REFUSAL("--seed", "18446744073709551616"), "--seed 18446744073709551616: give a non-negative integer");
	CHECK_STR(REFUSAL("--ratio", "-0.1"), "--ratio -0.1: give a number >= 0");
	CHECK_STR(REFUSAL("--ratio", "inf"), "--ratio inf: give a number >= 0");
	CHECK_STR(REFUSAL("--ratio", "nan"), "--ratio nan: give a number >= 0");
	CHECK_STR(REFUSAL("--ratio", ""), "--ratio : give a number >= 0");
	CHECK_STR(REFUSAL("--ratio", "0"), "");
	CHECK_STR(REFUSAL("--level", "0"), "--level 0: give a number > 0 and < 1");
	CHECK_STR(REFUSAL("--level", "1"), "--level 1: give a number > 0 and < 1");
	CHECK_STR(REFUSAL("--level", "0.999"), "");
	CHECK_STR(REFUSAL("--accel", "kv"), "--accel kv: use auto, tcg or kvm");
	CHECK_STR(REFUSAL("--accel", "auto|tcg"), "--accel auto|tcg: use auto, tcg or kvm");
	CHECK_STR(REFUSAL("--accel", ""), "--accel : use auto, tcg or kvm");
	CHECK_STR(REFUSAL("--accel", "auto"), "");
	/* A callback says what it wants; the parser names the option and the value. */
	CHECK_STR(REFUSAL("--range", "7-3"), "--range 7-3: give LO-HI with LO <= HI");
}

UNIT_TEST(a_bad_option_is_reported_once_by_name)
{
	CHECK_STR(REFUSAL("--bogus"), "unknown option '--bogus'");
	CHECK_STR(REFUSAL("--bogus=1", "--flag"), "unknown option '--bogus=1'");
	CHECK_STR(REFUSAL("-x"), "unknown option '-x'");
	CHECK_STR(REFUSAL("--flag", "-fx"), "unknown option '-f'");
	CHECK_STR(REFUSAL("--name"), "--name needs a value: --name NAME");
	CHECK_STR(REFUSAL("--flag=yes"), "--flag takes no value");
	/* The first bad one stops the parse. */
	CHECK_STR(REFUSAL("--count", "0", "--bogus"), "--count 0: give an integer 1..10");
	CHECK_STR(REFUSAL("--a", "x"), "unknown option '--a'");
}

UNIT_TEST(names_are_whole_words)
{
	/* getopt_long would take these unambiguous prefixes: numalab names the option instead. */
	CHECK_STR(REFUSAL("--fla"), "unknown option '--fla'; options take their whole name: --flag");
	CHECK_STR(REFUSAL("--nam", "x"), "unknown option '--nam'; options take their whole name: --name");
	CHECK_STR(REFUSAL("--nam=x"), "unknown option '--nam'; options take their whole name: --name");
	CHECK_STR(REFUSAL("op", "--flag", "--cou", "3"), "unknown option '--cou'; options take their whole name: --count");
	CHECK_STR(REFUSAL("--no-fl"), "unknown option '--no-fl'; options take their whole name: --no-flag");
	CHECK_STR(REFUSAL("--hel"), "unknown option '--hel'; options take their whole name: --help");
	/* A whole name that begins another is itself. */
	CHECK_STR(REFUSAL("--name", "x", "--a-very-long-option-name", "y"), "");
}

UNIT_TEST(every_flag_has_its_negation)
{
	struct values v = { .on = 1, .dirs = STRVEC_INIT };
	struct error err;

	/* The last one given counts. */
	CHECK_INT(PARSE(&v, &err, "--flag", "--no-flag", "--no-progress"), 4);
	CHECK_INT(v.flag, 0);
	CHECK_INT(v.on, 0);
	CHECK_INT(PARSE(&v, &err, "--no-flag", "--flag", "--progress"), 4);
	CHECK_INT(v.flag, 1);
	CHECK_INT(v.on, 1);
	CHECK_STR(REFUSAL("--no-flag=1"), "--no-flag takes no value");
	/* Only flags: a value has no negation. */
	CHECK_STR(REFUSAL("--no-name"), "unknown option '--no-name'");
}

/* A table's own mistakes: the programmer's (ERROR_HARNESS), found before any argument is read. */
static const char *table_refusal(const struct opt *opts)
{
	static struct error err;
	const struct opt_spec spec = { .name = "bad", .usage = "", .opts = opts };
	char *argv[] = { "bad", NULL };

	err.msg[0] = '\0';
	if (opt_parse(&spec, 1, argv, &err) >= 0)
		return "";
	CHECK_INT(err.kind, ERROR_HARNESS);
	return err.msg;
}

UNIT_TEST(tables_are_checked)
{
	int a, b;
	const char *s = NULL;
	const struct opt_spec *sub = NULL;
	const struct opt twice[] = { OPT_FLAG("x", &a, "x"), OPT_INT("x", &b, "N", 0, 1, "x"), OPT_END };
	const struct opt negated[] = { OPT_FLAG("no-x", &a, "x"), OPT_END };
	const struct opt help[] = { OPT_FLAG("help", &a, "x"), OPT_END };
	const struct opt no_arg[] = { OPT_STRING("s", &s, NULL, "x"), OPT_END };
	const struct opt no_choices[] = { OPT_CHOICE("c", &s, "C", NULL, "x"), OPT_END };
	const struct opt late_sub[] = { OPT_FLAG("x", &a, "x"), OPT_SUBCOMMAND("s", &sub, &(struct opt_spec){ 0 }, "s"),
					OPT_END };
	const struct opt good[] = { OPT_FLAG("x", &a, "x"), OPT_STRING("s", &s, "S", "s"), OPT_END };

	const struct { const struct opt *opts; const char *want; } cases[] = {
		{ twice, "x twice" },
		{ negated, "'no-x' cannot be a name (empty, -, help, no-: taken)" },
		{ help, "'help' cannot be a name (empty, -, help, no-: taken)" },
		{ no_arg, "s lacks what its kind needs" },
		{ no_choices, "c lacks what its kind needs" },
		{ late_sub, "subcommands come first" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *want = xprintf("bad's options: %s", cases[i].want);

		CHECK_STR(table_refusal(cases[i].opts), want);
		free(want);
	}
	CHECK_STR(table_refusal(good), "");
}

/* A command with two subcommands, one with an option of its own. */
static int sub_verbose;
static const struct opt no_opts[] = { OPT_END };
static const struct opt show_opts[] = { OPT_FLAG("verbose", &sub_verbose, "say more"), OPT_END };
static const struct opt_spec show_spec = { .name = "cmd show", .usage = "usage: numalab cmd show X\n\n",
					   .opts = show_opts };
static const struct opt_spec check_spec = { .name = "cmd check", .usage = "usage: numalab cmd check X...\n",
					    .opts = no_opts };

static int parse_sub(const struct opt_spec **chosen, struct error *err, const char **args)
{
	int quiet = 0;
	const struct opt opts[] = {
		OPT_SUBCOMMAND("check", chosen, &check_spec, "check them"),
		OPT_SUBCOMMAND("show", chosen, &show_spec, "show one"),
		OPT_FLAG("quiet", &quiet, "the command's own option, before the subcommand"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "cmd", .usage = "", .opts = opts };
	char *argv[16] = { "cmd" };
	int argc = 1, rc;

	while (args[argc - 1])
		argv[argc] = (char *)args[argc - 1], argc++;
	*chosen = NULL;
	sub_verbose = 0;
	err->msg[0] = '\0';
	rc = opt_parse(&spec, argc, argv, err);
	CHECK(opt_chosen(&spec) == (*chosen ? *chosen : &spec));
	return rc;
}

#define PARSE_SUB(chosen, err, ...) parse_sub(chosen, err, (const char *[]){ __VA_ARGS__, NULL })

UNIT_TEST(subcommands_parse_their_own_options)
{
	const struct opt_spec *chosen;
	struct error err;

	CHECK_INT(PARSE_SUB(&chosen, &err, "show", "x", "--verbose"), 3);   /* argv permuted: x last */
	CHECK(chosen == &show_spec);
	CHECK_INT(sub_verbose, 1);
	CHECK_INT(PARSE_SUB(&chosen, &err, "--quiet", "check", "a", "b"), 3);
	CHECK(chosen == &check_spec);
	CHECK_INT(PARSE_SUB(&chosen, &err, "check", "--verbose"), -1);
	CHECK_STR(err.msg, "unknown option '--verbose'");
	CHECK_INT(PARSE_SUB(&chosen, &err, "sho", "x"), -1);
	CHECK_STR(err.msg, "unknown subcommand 'sho'; use check or show");
	CHECK(chosen == NULL);
	CHECK_INT(PARSE_SUB(&chosen, &err, "--quiet"), -1);
	CHECK_STR(err.msg, "give a subcommand: check or show");
	CHECK_INT(err.kind, ERROR_INPUT);
	/* The command's options come before its subcommand. */
	CHECK_INT(PARSE_SUB(&chosen, &err, "show", "--quiet"), -1);
	CHECK_STR(err.msg, "unknown option '--quiet'");
	/* Help at either level: opt_chosen() says whose. */
	CHECK_INT(PARSE_SUB(&chosen, &err, "--help"), OPT_HELP);
	CHECK(chosen == NULL);
	CHECK_INT(PARSE_SUB(&chosen, &err, "show", "--help"), OPT_HELP);
	CHECK(chosen == &show_spec);
}

UNIT_TEST(help_is_asked_by_long_name_or_h)
{
	struct values v = { .dirs = STRVEC_INIT };
	struct error err;

	CHECK_INT(PARSE(&v, &err, "--help"), OPT_HELP);
	CHECK_INT(PARSE(&v, &err, "-h"), OPT_HELP);
	CHECK_INT(PARSE(&v, &err, "--flag", "--help", "--bogus"), OPT_HELP);
}

UNIT_TEST(stop_at_operand_leaves_the_rest_alone)
{
	struct values v = { .dirs = STRVEC_INIT };
	struct error err;

	/* run's `-- CMD --flag`: CMD's options are its own. */
	CHECK_INT(parse(&v, &err, 1, (const char *[]){ "--name", "x", "--", "ls", "--flag", NULL }), 4);
	CHECK_INT(v.flag, 0);
	CHECK_INT(parse(&v, &err, 1, (const char *[]){ "cmd", "--flag", NULL }), 1);
	CHECK_INT(v.flag, 0);
	/* Otherwise options may follow operands (`numalab matrix smoke --dry-run`). */
	CHECK_INT(PARSE(&v, &err, "op", "--flag"), 2);
	CHECK_INT(v.flag, 1);
}

/* Every line of a help fits a terminal of 80 columns. */
static void check_width(const char *what, const char *help)
{
	int line = 1;

	for (const char *l = help; *l; l = next_line(l), line++) {
		size_t n = strcspn(l, "\n");

		if (n > 80)
			printf("#   %s --help, line %d: %zu columns\n", what, line, n);
		CHECK(n <= 80);
	}
}

UNIT_TEST(help_is_generated_from_the_table)
{
	struct values v = { .on = 1, .dirs = STRVEC_INIT };
	struct opt opts[NR_TEST_OPTS];
	struct opt_spec spec;
	struct buf help = BUF_INIT;

	test_spec(&v, opts, &spec);
	opt_help(&spec, &help);
	unit_golden("tests/host/unit/golden/options/test.help", buf_str(&help), help.len);
	CHECK(strstr(buf_str(&help), "  --count N      an integer 1..10\n") != NULL);
	buf_free(&help);
	for (int shell = 0; shell <= 1; shell++) {
		run_options_help(shell, &help);
		unit_golden(shell ? "tests/host/unit/golden/options/shell.help" : "tests/host/unit/golden/options/run.help",
			    buf_str(&help), help.len);
		check_width(shell ? "shell" : "run", buf_str(&help));
		/* shell has no timeout: its table leaves the row out. */
		CHECK((strstr(buf_str(&help), "--timeout") == NULL) == shell);
		buf_free(&help);
	}
}

/* "tests/host/unit/golden/options/topo-show.help" for "topo show". */
static void check_help(const char *name, struct buf *help)
{
	char path[256];

	snprintf(path, sizeof(path), "tests/host/unit/golden/options/%s.help", name);
	for (char *p = strrchr(path, '/'); *p; p++)
		if (*p == ' ')
			*p = '-';
	unit_golden(path, buf_str(help), help->len);
	check_width(name, buf_str(help));
}

/* A spec's help and its subcommands', each pinned. */
static void check_helps(const struct opt_spec *spec)
{
	struct buf help = BUF_INIT;

	opt_help(spec, &help);
	check_help(spec->name, &help);
	buf_free(&help);
	for (const struct opt *o = spec->opts; o->kind == OPT_KIND_SUBCOMMAND; o++)
		check_helps(o->sub);
}

UNIT_TEST(subcommand_helps_are_pinned)
{
	struct buf help = BUF_INIT;

	check_helps(&topo_spec);
	check_helps(&tap_spec);
	check_helps(&kernel_spec);
	check_helps(&image_spec);
	toolroot_exec_help(&help);
	check_help("toolroot-exec", &help);
	buf_free(&help);
}

/* argv[0] is the program: the command's parser starts at argv[1], as runner.c calls it. */
static int run_parse_back(struct strvec *argv, struct run_cli *c, struct error *err)
{
	CHECK(argv->nr >= 2 && strstr(argv->items[0], "/numalab") && !strcmp(argv->items[1], "run"));
	run_cli_init(c, 0);
	return run_options_parse((int)argv->nr - 1, argv->items + 1, c, err);
}

static const char matrix_text[] =
	"topology 2node\n"
	"topology 4node\n"
	"kernel debian\n"
	"kernel debian-thp = debian transparent_hugepage=madvise numa_balancing=enable\n"
	"kernel fixed = stock\n"
	"patch fixed patches/seed000-mm-commits.mail ../../../kernels/patches/khugepaged-numa/0001-mm-khugepaged-sched-to-numa-node-when-collapse-huge-page.patch\n"
	"suite topology\n"
	"suite mempolicy\n"
	"repeat 2\n"
	"timeout 300 topology=4node\n"
	"accel tcg suite=mempolicy\n"
	"host local capacity 1\n"
	"host qemu+ssh://lab/system capacity 2\n";

UNIT_TEST(matrix_cells_parse_back_as_run_options)
{
	struct matrix m;
	struct matrix_cell *cells;
	struct error err;
	int n, remote = 0, tcg = 0, timed = 0, patched = 0;

	if (matrix_parse("tests/host/unit/test.matrix", matrix_text, sizeof(matrix_text) - 1, &m, &err)) {
		printf("#   %s\n", err.msg);
		CHECK(0);
		return;
	}
	matrix_expand(&m, &cells, &n);
	CHECK_INT(n, 2 * 3 * 2 * 2);
	for (int i = 0; i < n; i++) {
		const struct matrix_cell *c = &cells[i];
		const struct matrix_kernel *k = &m.kernels[c->kernel];
		char *dir = xprintf("out dir/cells/%s", c->id);
		int host = i % m.nr_hosts;
		struct strvec argv = STRVEC_INIT;
		struct run_cli rc;

		matrix_cell_argv(&m, c, dir, host, NULL, &argv);
		if (run_parse_back(&argv, &rc, &err)) {
			printf("#   cell %s: %s\n", c->id, err.msg);
			CHECK(0);
		} else {
			CHECK_STR(rc.o.topo, m.topos[c->topo]);
			CHECK_STR(rc.o.kernel, k->spec);
			CHECK_STR(rc.o.tests, m.suites[c->suite]);
			CHECK_STR(rc.o.out, dir);
			CHECK_INT(rc.o.timeout_s, c->timeout_s);
			CHECK_STR(rc.o.accel, matrix_accel_name(c->accel));
			CHECK_STR(rc.o.append ? rc.o.append : "", k->append);
			CHECK_INT(rc.o.nr_patches, (int)k->patches.nr);
			for (int p = 0; p < rc.o.nr_patches && p < (int)k->patches.nr; p++)
				CHECK_STR(rc.o.patches[p], k->patches.items[p]);
			patched += rc.o.nr_patches == 2;
			CHECK(!rc.o.exec_argv && !rc.o.shell && !rc.quiet);
			if (strcmp(m.hosts[host].uri, "local")) {
				CHECK_STR(rc.o.backend, "libvirt");
				CHECK_STR(rc.o.uri, m.hosts[host].uri);
				remote++;
			} else {
				CHECK(!rc.o.backend && !rc.o.uri);
			}
			tcg += c->accel == MATRIX_ACCEL_TCG;
			timed += c->timeout_s != 0;
		}
		run_cli_free(&rc);
		strvec_clear(&argv);
		free(dir);
	}
	/* The matrix above exercised every optional part. */
	CHECK(remote && tcg && timed && patched && tcg < n && timed < n && patched < n);
	free(cells);
	matrix_free(&m);
}

/* A matrix's --lava reaches each cell's command line whole; the token only through the environment. */
UNIT_TEST(matrix_cells_on_lava_parse_back)
{
	static const char text[] = "topology 2node\nkernel debian\nsuite topology\n";
	const struct matrix_lava lava = { "http://lava.example.org/", "qemu-big", "/srv/f=http://files/f" };
	struct matrix m;
	struct matrix_cell *cells;
	struct error err;
	struct strvec argv = STRVEC_INIT;
	struct run_cli rc;
	int n;

	CHECK(!matrix_parse("tests/host/unit/lava.matrix", text, sizeof(text) - 1, &m, &err));
	matrix_expand(&m, &cells, &n);
	CHECK_INT(n, 1);
	matrix_cell_argv(&m, &cells[0], "out/cells/x", -1, &lava, &argv);
	setenv("NUMALAB_LAVA_TOKEN", "secret-token", 1);
	if (run_parse_back(&argv, &rc, &err)) {
		printf("#   %s\n", err.msg);
		CHECK(0);
	} else {
		CHECK_STR(rc.o.lava_url, lava.url);
		CHECK_STR(rc.o.lava_device_type, lava.device_type);
		CHECK_STR(rc.o.lava_artifacts, lava.artifacts);
		CHECK_STR(rc.o.lava_token, "secret-token");
	}
	for (size_t i = 0; i < argv.nr; i++)
		CHECK(!strstr(argv.items[i], "secret-token"));
	unsetenv("NUMALAB_LAVA_TOKEN");
	run_cli_free(&rc);
	strvec_clear(&argv);
	free(cells);
	matrix_free(&m);
}

static void bisect_request(struct bisect_opts *bo)
{
	memset(bo, 0, sizeof(*bo));
	step_opts_init(&bo->step);
	bo->step.topo = "/abs/topologies/2node.topo";
	bo->step.test = "mempolicy:bulk";
	bo->step.recipe = "stock+debug";
	bo->good = "v7.1";
	bo->bad = "v7.2";
	snprintf(bo->ksrc, sizeof(bo->ksrc), "/src/linux");
	snprintf(bo->dir, sizeof(bo->dir), "/results/20261203-1200");
	snprintf(bo->log, sizeof(bo->log), "%s/bisect.log", bo->dir);
}

/* The step's command line parses back to what bisect was asked for. */
static void check_step(const struct bisect_opts *bo, const char *record)
{
	struct strvec argv = STRVEC_INIT;
	struct step_opts so;
	struct error err;
	char *baseline = xprintf("%s/baseline", bo->dir);

	bisect_step_argv(bo, record, &argv);
	CHECK(argv.nr >= 2 && strstr(argv.items[0], "/numalab") && !strcmp(argv.items[1], "bisect-run"));
	step_opts_init(&so);
	if (bisect_run_options_parse((int)argv.nr - 1, argv.items + 1, &so, &err)) {
		printf("#   %s\n", err.msg);
		CHECK(0);
		goto out;
	}
	CHECK_STR(so.ksrc, bo->ksrc);
	CHECK_STR(so.topo, bo->step.topo);
	CHECK_STR(so.test, bo->step.test);
	CHECK_STR(so.t.suite, "mempolicy");
	CHECK_STR(so.t.prefix, "bulk");
	CHECK_STR(so.recipe, bo->step.recipe);
	CHECK_STR(so.out, bo->dir);
	CHECK_STR(so.log, bo->log);
	CHECK_INT(so.timeout_s, bo->step.timeout_s);
	CHECK_STR(so.metric ? so.metric : "(none)", bo->step.metric ? bo->step.metric : "(none)");
	if (bo->step.metric) {
		CHECK_INT(so.repeat, bo->step.repeat);
		CHECK(so.threshold == bo->step.threshold);
		CHECK(so.alpha == bo->step.alpha);
	}
	CHECK_STR(so.record ? so.record : "(none)", record ? record : "(none)");
	CHECK_STR(so.rev, record ? bo->good : "HEAD");
	CHECK_STR(so.baseline ? so.baseline : "(none)", bo->step.metric && !record ? baseline : "(none)");
out:
	free(baseline);
	strvec_clear(&argv);
}

UNIT_TEST(bisect_steps_parse_back_as_bisect_run_options)
{
	struct bisect_opts bo;

	bisect_request(&bo);
	check_step(&bo, NULL);
	bo.step.timeout_s = 86400;
	check_step(&bo, NULL);
	/* A performance bisect: the baseline run, then the steps. */
	bo.step.metric = "mempolicy:bandwidth_mbps";
	bo.step.repeat = 7;
	bo.step.threshold = 2.5;
	bo.step.alpha = 0.01;
	check_step(&bo, "/results/20261203-1200/baseline");
	check_step(&bo, NULL);
	/* Doubles go over exactly, not rounded to %g's six digits. */
	bo.step.threshold = 1.0 / 3;
	bo.step.alpha = 0.1234567891;
	check_step(&bo, NULL);
	/* Defaults are passed too: the step does not depend on its own. */
	step_opts_init(&bo.step);
	bo.step.topo = "2node";
	bo.step.test = "mempolicy:bulk";
	bo.step.metric = "m";
	check_step(&bo, NULL);
}

UNIT_TEST(bisect_run_refuses_what_bisect_would_not_pass)
{
	struct step_opts so;
	struct error err;
	char *argv[] = { "bisect-run", "--ksrc", "/k", "--topo", "2node", "--test", "s", "--alpha", "x", NULL };

	step_opts_init(&so);
	CHECK_INT(bisect_run_options_parse(9, argv, &so, &err), -1);
	CHECK_STR(err.msg, "--alpha x: give a number > 0 and < 1");
	argv[7] = "--metric";
	argv[8] = "m";
	step_opts_init(&so);
	CHECK_INT(bisect_run_options_parse(9, argv, &so, &err), -1);
	CHECK_STR(err.msg, "--metric needs --baseline DIR (or --record DIR to make it)");
}

UNIT_MAIN(UNIT_CASE(every_kind_stores_its_value), UNIT_CASE(values_not_given_keep_their_defaults),
	  UNIT_CASE(repeatable_options_keep_every_value_in_order),
	  UNIT_CASE(ranges_are_checked_with_one_message_form), UNIT_CASE(a_bad_option_is_reported_once_by_name),
	  UNIT_CASE(names_are_whole_words), UNIT_CASE(every_flag_has_its_negation), UNIT_CASE(tables_are_checked),
	  UNIT_CASE(subcommands_parse_their_own_options), UNIT_CASE(subcommand_helps_are_pinned),
	  UNIT_CASE(help_is_asked_by_long_name_or_h), UNIT_CASE(stop_at_operand_leaves_the_rest_alone),
	  UNIT_CASE(help_is_generated_from_the_table), UNIT_CASE(matrix_cells_parse_back_as_run_options), UNIT_CASE(matrix_cells_on_lava_parse_back),
	  UNIT_CASE(bisect_steps_parse_back_as_bisect_run_options),
	  UNIT_CASE(bisect_run_refuses_what_bisect_would_not_pass))
