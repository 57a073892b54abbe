/*
 * report: the TAP YAML block that carries a result's metrics.
 *
 *   ok 3 mcf local thp
 *     ---
 *     time_s: 1.234
 *     ...
 *
 * Two spaces in from the result line; /init indents the whole test by four
 * more.  Every line is flushed at once, like ktap.c's: /init relays lines
 * as they come and kills a test that times out.
 */
#include <stdarg.h>
#include <stdio.h>

#include "workloads.h"

void yaml_begin(void)
{
	fputs("  ---\n", stdout);
	fflush(stdout);
}

void yaml_field(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("  %s: ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void yaml_end(void)
{
	fputs("  ...\n", stdout);
	fflush(stdout);
}

void node_map(char *buf, size_t size, const int *nodes, int nr, const long long *values)
{
	size_t len = (size_t)snprintf(buf, size, "{");

	for (int k = 0; k < nr && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%snode%d: %lld", k ? ", " : "",
					nodes[k], values[k]);
	if (len < size)
		snprintf(buf + len, size - len, "}");
}
