/*
 * cmd_toolroot_exec: `numalab toolroot-exec`, the wrapper that runs a command
 * inside the LoongArch toolchain root (host/toolroot.h says what it sets
 * up).  Internal: the runner and the Makefile start it, not users.
 * Exit: the command's own status, 2 for a bad command line, 127 when the
 * command could not be started (as a shell would say).
 */
#include "cli/command.h"
#include "cli/options.h"
#include "host/toolroot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char exec_usage[] =
	"usage: numalab toolroot-exec [--bind DIR]... [--bare] ROOT -- CMD [ARG]...\n"
	"       numalab toolroot-exec --auto -- CMD [ARG]...\n"
	"       numalab toolroot-exec --host -- CMD [ARG]...\n"
	"\n"
	"Internal (the runner and the Makefile start it): run CMD inside the LoongArch\n"
	"toolchain root ROOT, in a private mount namespace (docs/toolroot.md).\n"
	"\n";

static const char exec_tail[] =
	"\nExit: CMD's own status, 2 bad usage, 127 CMD could not be started.\n";

static int bind_option(void *value, const char *dir, struct error *err)
{
	struct toolroot_exec_opts *o = value;

	if (dir[0] != '/')
		return error_input(err, "give an absolute directory");
	if (o->nr_binds == (int)(sizeof(o->binds) / sizeof(o->binds[0])))
		return error_input(err, "too many --bind directories (at most %d)", o->nr_binds);
	o->binds[o->nr_binds++] = dir;
	return 0;
}

#define EXEC_OPTS 5

/* The one declaration of toolroot-exec's options, over o and its --host. */
static void exec_spec(struct toolroot_exec_opts *o, int *host, struct opt *table, struct opt_spec *spec)
{
	const struct opt opts[] = {
		OPT_CALLBACK("bind", o, "DIR", bind_option,
			     "also bind DIR (absolute) into ROOT (repeatable, at most 16)"),
		OPT_FLAG("bare", &o->bare, "only /dev, /proc and /sys bound, cwd / (building a root)"),
		OPT_FLAG("auto", &o->automatic, "the user's own tools if complete, else the lab's root"),
		OPT_FLAG("host", host, "no root: the private mount namespace only"),
		OPT_END,
	};

	_Static_assert(sizeof(opts) / sizeof(opts[0]) == EXEC_OPTS, "EXEC_OPTS: every row");
	memcpy(table, opts, sizeof(opts));
	*spec = (struct opt_spec){ .name = "toolroot-exec", .usage = exec_usage, .opts = table, .tail = exec_tail };
}

void toolroot_exec_help(struct buf *out)
{
	struct toolroot_exec_opts o;
	struct opt table[EXEC_OPTS];
	struct opt_spec spec;
	int host = 0;

	memset(&o, 0, sizeof(o));
	exec_spec(&o, &host, table, &spec);
	opt_help(&spec, out);
}

int toolroot_exec_parse(int argc, char **argv, struct toolroot_exec_opts *o, struct error *err)
{
	struct opt table[EXEC_OPTS];
	struct opt_spec spec;
	int dash = 1, host = 0, first;

	memset(o, 0, sizeof(o[0]));
	exec_spec(o, &host, table, &spec);
	/* The options and ROOT end at the first "--": what follows is CMD's, untouched. */
	while (dash < argc && strcmp(argv[dash], "--"))
		dash++;
	if ((first = opt_parse(&spec, dash, argv, err)) < 0)
		return first;
	if (dash - first > 1)
		return error_input(err, "unexpected %s before --", argv[first + 1]);
	o->root = first < dash ? argv[first] : NULL;
	if ((host || o->automatic) && o->root)
		return error_input(err, "%s takes no ROOT", host ? "--host" : "--auto");
	if (host && o->automatic)
		return error_input(err, "--host and --auto exclude each other");
	if (!host && !o->automatic && !o->root)
		return error_input(err, "missing ROOT");
	if (dash + 1 >= argc)
		return error_input(err, "missing -- CMD");
	o->cmd = argv + dash + 1;
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

	switch (toolroot_exec_parse(argc, argv, &o, &err)) {
	case 0:
		break;
	case OPT_HELP: {
		struct buf help = BUF_INIT;

		toolroot_exec_help(&help);
		fputs(buf_str(&help), stdout);
		buf_free(&help);
		return EXIT_PASS;
	}
	default:
		return command_usage_error("toolroot-exec", "%s", err.msg);
	}
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
