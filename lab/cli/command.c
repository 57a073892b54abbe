#include "cli/command.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int command_help(const char *help)
{
	fputs(help, stdout);
	return EXIT_PASS;
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
