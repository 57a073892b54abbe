/*
 * command: what every subcommand (lab/cli/cmd_*.c) shares: its entry point,
 * the exit codes (docs/exit-codes.md) and the one place that turns the
 * library's errors and verdicts into them, and how library progress and a
 * running cell show on the terminal.
 */
#ifndef LAB_COMMAND_H
#define LAB_COMMAND_H

#include <stdio.h>

#include "base/progress.h"
#include "base/util.h"
#include "analysis/compare.h"
#include "drive/matrix_run.h"
#include "drive/run.h"
#include "drive/try.h"
#include "host/toolroot.h"

enum {
	EXIT_PASS = 0,      /* everything passed */
	EXIT_FAIL = 1,      /* a test failed, timed out, or the guest crashed */
	EXIT_USAGE = 2,     /* bad command line or input file */
	EXIT_HARNESS = 3,   /* the lab itself could not do its job */
	EXIT_NOT_STARTED = 127,  /* toolroot-exec: the wrapped command could not be started */
};

struct command {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

struct opt_spec;

/*
 * Parse a command's options (cli/options.h).  Returns -1 when the command
 * goes on, its operands from argv[*first] (opt_chosen(spec): the
 * subcommand named); else the exit code to return at once: EXIT_PASS after
 * printing the help (the subcommand's, if one was named) on stdout,
 * EXIT_USAGE after reporting the bad option once, on stderr, with the
 * subcommand's name (EXIT_HARNESS: a bad table).
 */
int command_options(const struct opt_spec *spec, int argc, char **argv, int *first);

/* Print help (a command without options) on stdout; returns EXIT_PASS. */
int command_help(const char *help);
/* "numalab CMD: what is wrong; see `numalab CMD --help`" on stderr; returns EXIT_USAGE. */
int command_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * matrix's and try's --lava: the device type and artifacts from the
 * environment when not given ($NUMALAB_LAVA_DEVICE_TYPE, $NUMALAB_LAVA_ARTIFACTS),
 * the token there ($NUMALAB_LAVA_TOKEN, which the cells inherit), the options
 * only with --lava.  -1 when fine, else EXIT_USAGE after saying what is wrong.
 */
int command_lava_check(const char *cmd, struct matrix_lava *lava);

/*
 * --lava, --lava-device-type and --lava-artifacts as three rows (OPT_STRING,
 * cli/options.h) of a command's option table: run, matrix and try declare
 * them here, with one help, into the const char * at url, device_type and
 * artifacts.
 */
#define OPT_LAVA(url, device_type, artifacts)                                               \
	OPT_STRING("lava", (url), "URL",                                                      \
		   "run each cell as a job on this LAVA server, the token\n"                  \
		   "from $NUMALAB_LAVA_TOKEN (docs/lava.md)"),                                 \
	OPT_STRING("lava-device-type", (device_type), "TYPE",                                 \
		   "the jobs' device type (default: $NUMALAB_LAVA_DEVICE_TYPE,\n"             \
		   "else qemu, or qemu-loongarch64)"),                                         \
	OPT_STRING("lava-artifacts", (artifacts), "DIR=URL",                                  \
		   "copy kernels and initramfs under DIR, which the workers\n"                \
		   "fetch as URL (default: $NUMALAB_LAVA_ARTIFACTS, else\n"                   \
		   "file:// paths: workers on this machine)")

/* A library failure's exit code: EXIT_USAGE for ERROR_INPUT, else EXIT_HARNESS. */
int command_exit_for(const struct error *err);

/* compare's result: EXIT_PASS when the same, EXIT_FAIL when it changed (docs/compare.md). */
int command_exit_compare(enum compare_result r);

/* A matrix's verdict: EXIT_PASS, EXIT_FAIL, or EXIT_HARNESS when incomplete (docs/exit-codes.md). */
int command_exit_matrix(enum matrix_verdict v);

/* try's verdict: EXIT_PASS no regression, EXIT_FAIL a regression, EXIT_HARNESS incomplete. */
int command_exit_try(enum try_verdict v);

/*
 * Say err on stderr as "numalab CMD: MSG" and return command_exit_for(err):
 * every command's errors reach the user and their exit code here.  After
 * SIGINT, SIGTERM or SIGHUP (interrupt.h) it is "numalab CMD: interrupted
 * by signal N: MSG" and EXIT_HARNESS, whatever err's kind: the signal
 * killed the children whose failure err reports.  The one
 * exception is a wrapper's: toolroot-exec says its error here but exits
 * EXIT_NOT_STARTED, as a shell does, since the command it runs may exit 2
 * or 3 of its own (make does).
 */
int command_fail(const char *cmd, const struct error *err);

/*
 * run_cell() as an exit code: EXIT_PASS / EXIT_FAIL by its verdict, or
 * command_exit_for(err) when it did not run (err set; nothing printed).
 */
int command_run_cell(const struct run_opts *o, struct run_outcome *out, struct error *err) LAB_MUST_CHECK;

/*
 * Where progress() and warning() lines go (progress.h): "PREFIXLINE\n",
 * steps to steps (NULL: dropped, e.g. --quiet), warnings to stderr.
 * runner.c installs { stderr, "numalab: " } before any command runs; a
 * command may install its own (numalab matrix: steps on stdout, in order
 * with its cells).
 */
struct command_sink {
	FILE *steps;
	const char *prefix;
};
void command_set_sink(struct command_sink *sink);

/* "results/NAME-YYYYmmdd-HHMMSS" (local time): a command's default --out. */
void command_stamped_out(char *out, size_t cap, const char *name);

/* A matrix_show text function (matrix_run.h) writing to stdout, flushed: in order with the steps there. */
void command_show_on_stdout(void *ctx, const char *text, size_t len);

/*
 * A cell on this terminal (run_opts.view): TAP lines on stdout when
 * echo_tap, phases on stderr when progress: redrawn in place with their
 * clock on a terminal ("[  12.3s] booting"), else one line each
 * ("numalab: [  12.3s] booting").  command_run_view() fills v and returns
 * the view to put in run_opts; v must outlive the run.
 */
struct command_run_view {
	struct run_view view;
	int echo_tap, progress, tty, drawn;
	char phase[160];
};
const struct run_view *command_run_view(struct command_run_view *v, int echo_tap, int progress);

int cmd_run(int argc, char **argv);
int cmd_shell(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_bisect_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_try(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_tap(int argc, char **argv);
int cmd_toolroot_exec(int argc, char **argv);
int cmd_mutate(int argc, char **argv);
int cmd_kcidb(int argc, char **argv);

/* Where numalab kcidb --submit takes the service's token from: never argv, never code. */
#define KCIDB_TOKEN_ENV "KCIDB_TOKEN"
/*
 * matrix's and try's --kcidb FILE: dir's KCIDB JSON (analysis/kcidb.h)
 * written to file ("-": stdout).  EXIT_PASS, or the failure said on
 * stderr as cmd's and its exit code.
 */
int command_kcidb_write(const char *cmd, const char *dir, const char *file);

/* Options and subcommands of topo, tap, kernel, image: their --help is pinned (test_options). */
extern const struct opt_spec topo_spec, tap_spec, kernel_spec, image_spec;

/*
 * toolroot-exec's command line (argv[0] = "toolroot-exec"): 0, OPT_HELP
 * (cli/options.h), or -1 with err (ERROR_INPUT).  Options and ROOT end at
 * the first "--"; o->cmd points into argv after it.
 */
int toolroot_exec_parse(int argc, char **argv, struct toolroot_exec_opts *o, struct error *err) LAB_MUST_CHECK;
/* `numalab toolroot-exec --help`, appended to out. */
void toolroot_exec_help(struct buf *out);

#endif
