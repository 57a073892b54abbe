#include "cli/command.h"
#include "cli/options.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int command_help(const char *help)
{
	fputs(help, stdout);
	return EXIT_PASS;
}

int command_options(const struct opt_spec *spec, int argc, char **argv, int *first)
{
	struct error err;
	struct buf help = BUF_INIT;
	int rc = opt_parse(spec, argc, argv, &err);

	if (rc == OPT_HELP) {
		opt_help(spec, &help);
		fputs(buf_str(&help), stdout);
		buf_free(&help);
		return EXIT_PASS;
	}
	if (rc < 0)
		return command_usage_error(spec->name, "%s", err.msg);
	*first = rc;
	return -1;
}

int command_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "numalab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see `numalab %s --help`\n", cmd);
	return EXIT_USAGE;
}

void command_topology_path(const char *arg, char *out, unsigned long cap)
{
	if (strchr(arg, '/') || file_exists(arg))
		snprintf(out, cap, "%s", arg);
	else
		snprintf(out, cap, "%s/topologies/%s.topo", lab_root(), arg);
}
