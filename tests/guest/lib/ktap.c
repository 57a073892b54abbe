/* ktap: KTAP output and the exit status of a guest test (see ktap.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ktap.h"

static int planned, nr_pass, nr_fail, nr_skip;

/* Print one line and flush it at once: /init relays lines as they come. */
static void print_line(const char *prefix, const char *fmt, va_list ap,
		       const char *suffix)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	fputs(suffix, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

void ktap_header(int nr_tests)
{
	planned = nr_tests;
	printf("KTAP version 1\n1..%d\n", nr_tests);
	fflush(stdout);
}

void ktap_skip_all(const char *reason_fmt, ...)
{
	va_list ap;

	printf("KTAP version 1\n");
	va_start(ap, reason_fmt);
	print_line("1..0 # SKIP ", reason_fmt, ap, "");
	va_end(ap);
	exit(KSFT_SKIP);
}

int ktap_ok(int cond, const char *description_fmt, ...)
{
	char prefix[32];
	va_list ap;

	if (cond)
		nr_pass++;
	else
		nr_fail++;
	snprintf(prefix, sizeof(prefix), "%s %d ", cond ? "ok" : "not ok",
		 nr_pass + nr_fail + nr_skip);
	va_start(ap, description_fmt);
	print_line(prefix, description_fmt, ap, "");
	va_end(ap);
	return cond;
}

void ktap_skip(const char *name, const char *reason_fmt, ...)
{
	va_list ap;

	nr_skip++;
	printf("ok %d %s # SKIP ", nr_pass + nr_fail + nr_skip, name);
	va_start(ap, reason_fmt);
	print_line("", reason_fmt, ap, "");
	va_end(ap);
}

void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("# ", fmt, ap, "");
	va_end(ap);
}

void ktap_exit(void)
{
	int ran = nr_pass + nr_fail + nr_skip;

	printf("# totals: pass:%d fail:%d skip:%d\n", nr_pass, nr_fail, nr_skip);
	fflush(stdout);
	if (ran != planned) {
		printf("# planned %d results, printed %d\n", planned, ran);
		fflush(stdout);
		exit(KSFT_FAIL);
	}
	if (nr_fail)
		exit(KSFT_FAIL);
	exit(planned > 0 && nr_skip == planned ? KSFT_SKIP : KSFT_PASS);
}
