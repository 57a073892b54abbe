/*
 * sanitizer: provoke one real KASAN report.
 *
 * The lab turns a sanitizer report on the console into a failing result
 * that quotes the report (lab/boot/console.c, lab/boot/vm.c); this test gives it a
 * real one.  It writes SLAB_LINEAR_OVERFLOW to LKDTM's
 * /sys/kernel/debug/provoke-crash/DIRECT: kmalloc(1020), then a write at
 * byte 1024, which generic KASAN reports as "BUG: KASAN: slab-out-of-bounds
 * in lkdtm_SLAB_LINEAR_OVERFLOW".  The check here is that the kernel log
 * holds that report (a kernel whose KASAN misses the write fails it, e.g.
 * one booted with kasan=off, or with kasan_report() returning early); the
 * run as a whole must then be `not ok` with the report quoted
 * (tests/host/integration/full/kasan-report.sh).
 *
 * Never in a default plan: ask for it with --tests sanitizer.  Skips on a
 * kernel without KASAN or LKDTM (kernels/config/debug.config has both).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "harness.h"

#define LKDTM_DIRECT "/sys/kernel/debug/provoke-crash/DIRECT"
#define CRASH_TYPE "SLAB_LINEAR_OVERFLOW"
#define REPORT "BUG: KASAN: slab-out-of-bounds in lkdtm_" CRASH_TYPE
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

static int kernel_has_kasan(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		const char *sym = strrchr(line, ' ');

		found = sym && !strcmp(sym, " kasan_report\n");
	}
	if (f)
		fclose(f);
	return found;
}

/* The kernel log holds needle. */
static int kernel_log_has(const char *needle)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), found = 0;
	char *log = size > 0 ? malloc((size_t)size + 1) : NULL;

	if (log && (size = klogctl(SYSLOG_ACTION_READ_ALL, log, size)) >= 0) {
		log[size] = '\0';
		found = strstr(log, needle) != NULL;
	}
	free(log);
	return found;
}

GUEST_TEST(slab_out_of_bounds)
{
	if (kernel_log_has(REPORT))
		ktap_diag("the kernel log already holds a report: this check proves nothing new");
	ktap_diag("writing %s to %s: an out-of-bounds write KASAN must report", CRASH_TYPE, LKDTM_DIRECT);
	if (sys_write(LKDTM_DIRECT, CRASH_TYPE))
		ktap_diag("write %s: %s", LKDTM_DIRECT, strerror(errno));
	ktap_ok(kernel_log_has(REPORT), "KASAN reported the slab out-of-bounds write ('%s')", REPORT);
}

int main(void)
{
	if (!kernel_has_kasan())
		ktap_skip_all("the kernel has no KASAN (kasan_report is not in /proc/kallsyms); "
			      "use a +debug kernel");
	if (!sys_exists(LKDTM_DIRECT))
		ktap_skip_all("no %s: the kernel has no LKDTM (CONFIG_LKDTM, kernels/config/debug.config)",
			      LKDTM_DIRECT);
	guest_header();
	guest_run();
	ktap_exit();
}
