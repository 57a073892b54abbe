/* ktap: KTAP output and the exit status of a guest test (see ktap.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ktap.h"

/*
 * The counts, in memory shared with the harness's case children once
 * ktap_share_counts() ran: a case's results count in the suite's totals.
 */
struct counts {
	int planned, pass, fail, skip, failed_outside;
};
static struct counts own_counts, *counts = &own_counts;

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
	counts->planned = nr_tests;
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
		counts->pass++;
	else
		counts->fail++;
	snprintf(prefix, sizeof(prefix), "%s %d ", cond ? "ok" : "not ok",
		 counts->pass + counts->fail + counts->skip);
	va_start(ap, description_fmt);
	print_line(prefix, description_fmt, ap, "");
	va_end(ap);
	return cond;
}

void ktap_skip(const char *name, const char *reason_fmt, ...)
{
	va_list ap;

	counts->skip++;
	printf("ok %d %s # SKIP ", counts->pass + counts->fail + counts->skip, name);
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

int ktap_share_counts(void)
{
	struct counts *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (shared == MAP_FAILED)
		return -1;
	*shared = *counts;
	counts = shared;
	return 0;
}

int ktap_results(void)
{
	return counts->pass + counts->fail + counts->skip;
}

void ktap_fail_outside(void)
{
	counts->failed_outside++;
}

void ktap_exit(void)
{
	int ran = counts->pass + counts->fail + counts->skip;

	printf("# totals: pass:%d fail:%d skip:%d\n", counts->pass, counts->fail, counts->skip);
	fflush(stdout);
	if (ran != counts->planned) {
		printf("# planned %d results, printed %d\n", counts->planned, ran);
		fflush(stdout);
		exit(KSFT_FAIL);
	}
	if (counts->fail || counts->failed_outside)
		exit(KSFT_FAIL);
	exit(counts->planned > 0 && counts->skip == counts->planned ? KSFT_SKIP : KSFT_PASS);
}
