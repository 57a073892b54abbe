/*
 * numalab: the NUMA test lab's single binary.  This file only finds the
 * subcommand and hands it the rest of the command line; each subcommand
 * (lab/cli/cmd_*.c) owns its options, help and work.
 */
#include <stdio.h>
#include <string.h>

#include "cli/command.h"

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
	/* Internal: runs a command inside the LoongArch toolchain root. */
	{ "toolroot-exec", NULL, cmd_toolroot_exec },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: numalab COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary)
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-10s %s\n\nEach command takes --help.  Exit codes: docs/exit-codes.md.\n",
		"help", "this list");
	return f == stdout ? EXIT_PASS : EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static struct command_sink sink = { NULL, "numalab: " };

	sink.steps = stderr;
	command_set_sink(&sink);
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "numalab: unknown command '%s'; see `numalab help`\n", argv[1]);
	return EXIT_USAGE;
}
