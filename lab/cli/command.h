/*
 * command: what every subcommand (lab/cli/cmd_*.c) shares: its entry point and
 * the exit codes (docs/exit-codes.md).
 */
#ifndef LAB_COMMAND_H
#define LAB_COMMAND_H

enum {
	EXIT_PASS = 0,      /* everything passed */
	EXIT_FAIL = 1,      /* a test failed, timed out, or the guest crashed */
	EXIT_USAGE = 2,     /* bad command line or input file */
	EXIT_HARNESS = 3,   /* the lab itself could not do its job */
};

struct command {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

struct opt_spec;

/*
 * Parse a command's options (cli/options.h).  Returns -1 when the command
 * goes on, its operands from argv[*first]; else the exit code to return at
 * once: EXIT_PASS after printing the help on stdout, EXIT_USAGE after
 * reporting the bad option once, on stderr.
 */
int command_options(const struct opt_spec *spec, int argc, char **argv, int *first);

/* Print help (a command without options) on stdout; returns EXIT_PASS. */
int command_help(const char *help);
/* "numalab CMD: what is wrong; see `numalab CMD --help`" on stderr; returns EXIT_USAGE. */
int command_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Resolve a topology argument: an existing file, or topologies/NAME.topo. */
void command_topology_path(const char *arg, char *out, unsigned long cap);

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
int cmd_image(int argc, char **argv);
int cmd_tap(int argc, char **argv);

#endif
