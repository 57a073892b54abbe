/*
 * numalab: the NUMA test lab's single binary.  This file only finds the
 * subcommand and hands it the rest of the command line; each subcommand
 * (lab/cli/cmd_*.c) owns its options, help and work.
 */
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "version.h"

/* As git and curl: the build's `git describe` (the Makefile writes it into version.h). */
static int version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: numalab version\n       numalab --version\n\n"
		       "Print numalab's version: `git describe` of the tree it was built from.\n");
		return EXIT_PASS;
	}
	if (argc > 1) {
		fprintf(stderr, "numalab version: unexpected argument '%s'; see `numalab version --help`\n",
			argv[1]);
		return EXIT_USAGE;
	}
	printf("numalab version %s\n", NUMALAB_VERSION);
	return EXIT_PASS;
}

static const struct command commands[] = {
	{ "setup", "install host packages and fetch the pinned kernels (idempotent)", cmd_setup },
	{ "run", "boot a topology with a kernel, run guest tests, print TAP", cmd_run },
	{ "shell", "boot a topology and put its console with a shell on this terminal", cmd_shell },
	{ "topo", "check a topology file or show its QEMU command line", cmd_topo },
	{ "bench", "measure boot-to-first-TAP, wall time and runner overhead", cmd_bench },
	{ "kernel", "build a kernel from a recipe, or show its build key", cmd_kernel },
	{ "bisect", "find the kernel commit that broke a test (git bisect)", cmd_bisect },
	{ "bisect-run", "one `git bisect run` step: build HEAD, boot, test, verdict", cmd_bisect_run },
	{ "compare", "compare two result directories: functional changes, metrics, significance", cmd_compare },
	{ "matrix", "run a test matrix (topologies x kernels x suites) in parallel, resumably", cmd_matrix },
	{ "try", "a patch to a verdict: base vs patched kernels on NUMA shapes, compared", cmd_try },
	{ "mutate", "mutate kernel functions one line at a time: do the suites notice?", cmd_mutate },
	{ "image", "build a guest disk image (Debian root + the lab) with libguestfs", cmd_image },
	{ "kcidb", "a run, matrix or try as KCIDB JSON (KernelCI), written or submitted", cmd_kcidb },
	{ "tap", "flatten nested KTAP into TAP 13 for tap-driver.sh, prove, CI plugins", cmd_tap },
	{ "version", "print numalab's version (also: --version)", version },
	/* Internal: runs a command inside the LoongArch toolchain root. */
	{ "toolroot-exec", NULL, cmd_toolroot_exec },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: numalab COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary)
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-10s %s\n\nEach command takes --help (also: `numalab help COMMAND`).  Exit codes:\n"
		"docs/exit-codes.md.\n", "help", "this list");
	return f == stdout ? EXIT_PASS : EXIT_USAGE;
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static int unknown(const char *name)
{
	fprintf(stderr, "numalab: unknown command '%s'; see `numalab help`\n", name);
	return EXIT_USAGE;
}

/* `numalab help COMMAND` is `numalab COMMAND --help`, as in git. */
static int help(int argc, char **argv)
{
	const struct command *c;
	char help_opt[] = "--help", *args[] = { argv[1], help_opt, NULL };

	if (argc < 2 || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (argc > 2) {
		fprintf(stderr, "numalab help: give one command, e.g. `numalab help run`\n");
		return EXIT_USAGE;
	}
	if (!(c = find_command(argv[1])))
		return unknown(argv[1]);
	return c->main(2, args);
}

int main(int argc, char **argv)
{
	static struct command_sink sink = { NULL, "numalab: " };
	const struct command *c;

	sink.steps = stderr;
	command_set_sink(&sink);
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout);
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version"))
		return version(1, argv + 1);
	if (!(c = find_command(argv[1])))
		return unknown(argv[1]);
	return c->main(argc - 1, argv + 1);
}
