/*
 * cmd_run: `numalab run`'s and `numalab shell`'s command line as data, for
 * the command itself and for the code that writes such command lines (a
 * matrix's cells, lab/drive/matrix_run.h): tests/host/unit/test_options.c parses
 * what they write back with run_options_parse().
 */
#ifndef LAB_CMD_RUN_H
#define LAB_CMD_RUN_H

#include "drive/run.h"

/* The parsed command line; o's strings point into argv, the vectors own theirs. */
struct run_cli {
	struct run_opts o;
	struct strvec rw, tests_dirs, patches;
	const char *tap_flat, *junit;   /* --tap-flat, --junit; NULL: not wanted */
	const char *kcidb;              /* --kcidb: the run as KCIDB JSON; NULL: not wanted */
	const char *tap_channel;        /* --tap-channel virtio|serial */
	int quiet;                      /* --quiet: no TAP on stdout, no progress */
};

/* Defaults for run (shell 0) or shell (1).  Release with run_cli_free(). */
void run_cli_init(struct run_cli *c, int shell);
void run_cli_free(struct run_cli *c);

/*
 * Parse argv (argv[0] is "run" or "shell", as c was initialised) into c and
 * check what can be checked before any work: the options' values, --topo
 * given, the files named readable, the combinations.  Returns 0, OPT_HELP
 * (options.h) when help was asked, or -1 with err (ERROR_INPUT).
 */
int run_options_parse(int argc, char **argv, struct run_cli *c, struct error *err) LAB_MUST_CHECK;

/* The help of run (shell 0) or shell (1), appended to out. */
void run_options_help(int shell, struct buf *out);

#endif
