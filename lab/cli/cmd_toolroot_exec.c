/*
 * cmd_toolroot_exec: `numalab toolroot-exec`, the wrapper that runs a command
 * inside the LoongArch toolchain root (host/toolroot.h says what it sets
 * up).  Internal: the runner and the Makefile start it, not users.
 * Exit: the command's own status, 2 for a bad command line, 127 when the
 * command could not be started (as a shell would say).
 */
#include "cli/command.h"
#include "host/toolroot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char exec_usage[] =
	"usage: numalab toolroot-exec [--bind DIR]... ROOT|--auto -- CMD [ARG]...\n"
	"       numalab toolroot-exec --host -- CMD [ARG]...   (private mount namespace only)";

int toolroot_exec_parse(int argc, char **argv, struct toolroot_exec_opts *o, struct error *err)
{
	int i, host = 0;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--host")) {
			host = 1;
		} else if (!strcmp(a, "--bare")) {
			o->bare = 1;
		} else if (!strcmp(a, "--auto")) {
			o->automatic = 1;
		} else if (!strcmp(a, "--bind") || !strncmp(a, "--bind=", 7)) {
			const char *dir = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);

			if (!dir || dir[0] != '/')
				return error_input(err, "--bind needs an absolute directory\n%s", exec_usage);
			if (o->nr_binds == (int)(sizeof(o->binds) / sizeof(o->binds[0])))
				return error_input(err, "too many --bind directories (at most %d)",
						   o->nr_binds);
			o->binds[o->nr_binds++] = dir;
		} else if (a[0] == '-') {
			return error_input(err, "unknown option %s\n%s", a, exec_usage);
		} else if (o->root) {
			return error_input(err, "unexpected %s before --\n%s", a, exec_usage);
		} else {
			o->root = a;
		}
	}
	if ((host || o->automatic) && o->root)
		return error_input(err, "%s takes no ROOT\n%s", host ? "--host" : "--auto", exec_usage);
	if (host && o->automatic)
		return error_input(err, "--host and --auto exclude each other\n%s", exec_usage);
	if (!host && !o->automatic && !o->root)
		return error_input(err, "missing ROOT\n%s", exec_usage);
	if (i >= argc || i + 1 >= argc)
		return error_input(err, "missing -- CMD\n%s", exec_usage);
	o->cmd = argv + i + 1;
	return 0;
}

/* Could not start the command: err said, but EXIT_NOT_STARTED (command.h says why). */
static int not_started(const struct error *err)
{
	command_fail("toolroot-exec", err);   /* its code replaced, as command.h says */
	return EXIT_NOT_STARTED;
}

int cmd_toolroot_exec(int argc, char **argv)
{
	pid_t parent = getppid();
	static char auto_root[PATH_MAX];
	struct toolroot_exec_opts o;
	struct error err;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("%s\n", exec_usage);
		return EXIT_PASS;
	}
	if (toolroot_exec_parse(argc, argv, &o, &err))
		return command_fail("toolroot-exec", &err);
	if (o.automatic) {
		struct toolroot_tools tools;

		if (toolroot_tools(&tools, 0, &err))
			return not_started(&err);
		if (!tools.root[0]) {
			execvp(o.cmd[0], o.cmd);
			error_set(&err, "cannot run %s: %s", o.cmd[0], strerror(errno));
			return not_started(&err);
		}
		snprintf(auto_root, sizeof(auto_root), "%s", tools.root);
		o.root = auto_root;
	}
	if (toolroot_enter(&o, parent, &err))
		return not_started(&err);
	execvp(o.cmd[0], o.cmd);
	error_set(&err, "cannot run %s%s%s: %s", o.cmd[0], o.root ? " inside " : "", o.root ? o.root : "",
		  strerror(errno));
	return not_started(&err);
}
