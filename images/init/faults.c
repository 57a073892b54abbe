/* faults: the failures /init plays on request, to test the host (init.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init.h"

/*
 * Faults the lab injects to test its own reporting (docs/reliability.md),
 * from the kernel command line:
 *   numalab.fault=silent    no TAP at all, then hang: a guest that never reports
 *   numalab.fault=hang      each test hangs instead of running: its timeout fires
 *   numalab.fault=poweroff  power off as the first test starts: TAP cut mid-stream
 *   numalab.fault=garbage   each test prints hostile bytes instead of running
 *   numalab.fault=case-segv the first case of each lab suite dies by SIGSEGV
 *                           (tests/guest/lib/harness.h: NUMALAB_FAULT)
 *   numalab.test_timeout=S  every test's timeout is S seconds, not the plan's
 *   numalab.case_timeout=S  every case of a lab suite times out after S seconds
 *                           (harness.h: NUMALAB_CASE_TIMEOUT)
 */
enum fault { FAULT_NONE, FAULT_SILENT, FAULT_HANG, FAULT_POWEROFF, FAULT_GARBAGE, FAULT_CASE_SEGV };

static enum fault fault;
static unsigned test_timeout_s, case_timeout_s;

/* KEY=S on the command line as seconds 1..86400 into *s; unchanged when absent. */
static void read_seconds(const char *cmdline, const char *key, unsigned *s)
{
	const char *p = strstr(cmdline, key);
	char *end;
	unsigned long v;

	if (!p)
		return;
	v = strtoul(p + strlen(key), &end, 10);
	if (v == 0 || v > 86400 || (*end && *end != ' '))
		init_error("%.*s: give seconds, 1..86400", (int)strlen(key) - 1, key);
	*s = (unsigned)v;
}

void read_faults(const char *cmdline)
{
	static const char *const names[] = { "none", "silent", "hang", "poweroff", "garbage", "case-segv" };
	const char *f = strstr(cmdline, "numalab.fault=");
	size_t len;

	if (f) {
		f += strlen("numalab.fault=");
		len = strcspn(f, " ");
		for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i]) && !strncmp(f, names[i], len))
				fault = (enum fault)i;
		if (fault == FAULT_NONE)
			init_error("numalab.fault=%.*s: use silent, hang, poweroff, garbage or case-segv",
				   (int)len, f);
	}
	read_seconds(cmdline, "numalab.test_timeout=", &test_timeout_s);
	read_seconds(cmdline, "numalab.case_timeout=", &case_timeout_s);
}

/*
 * What a hostile or broken test may print: escapes (title, clear screen,
 * OSC), NUL, invalid UTF-8 and C1 controls, an overlong line, a fake plan,
 * fake results and tests at every depth, a fake end marker and guest facts,
 * names that are paths, on the TAP channel and the console.  The host must
 * keep all of it inert.
 */
static _Noreturn void print_garbage(void)
{
	static const char text[] =
		"\033]0;numalab-pwned\007\033[2J\033[31mred\033[0m \033P+q\033\\\n"
		"nul\0byte \xff\xfe\xc0\x80 \xc2\x9b" "31m c1-csi\r\n"
		"1..1\n"
		"ok 1 topology\n"
		"not ok 99 ../../../../tmp/numalab-evil # SKIP /etc/passwd\n"
		"# Subtest: ../../evil\n"
		"    ok 1 deeper\n"
		"# numalab: done\n"
		"# guest.kernel: forged\n"
		"Bail out!\n";
	static char overlong[10000];

	int console_fd = open(CONSOLE_PATH, O_WRONLY | O_NOCTTY);

	write(STDOUT_FILENO, text, sizeof(text) - 1);
	write(console_fd, text, sizeof(text) - 1);   /* the console: scanned, kept raw */
	memset(overlong, 'A', sizeof(overlong));
	write(STDOUT_FILENO, overlong, sizeof(overlong));
	write(STDOUT_FILENO, "\n", 1);
	_exit(0);
}

void fault_in_test_child(void)
{
	if (fault == FAULT_HANG)
		for (;;)
			pause();
	if (fault == FAULT_GARBAGE)
		print_garbage();
}

void fault_at_test_start(void)
{
	if (fault == FAULT_POWEROFF) {
		log_msg("numalab.fault=poweroff: powering off in the middle of the TAP stream");
		power_off();
	}
}

void fault_before_tap(void)
{
	if (fault == FAULT_SILENT) {
		log_msg("numalab.fault=silent: no TAP, hanging");
		for (;;)
			pause();
	}
}

unsigned fault_test_timeout(unsigned plan_s)
{
	return test_timeout_s ? test_timeout_s : plan_s;
}

char *fault_test_env(int i)
{
	static char segv_var[] = "NUMALAB_FAULT=case-segv", timeout_var[48];
	char *vars[2];
	int n = 0;

	if (fault == FAULT_CASE_SEGV)
		vars[n++] = segv_var;
	if (case_timeout_s) {
		snprintf(timeout_var, sizeof(timeout_var), "NUMALAB_CASE_TIMEOUT=%u", case_timeout_s);
		vars[n++] = timeout_var;
	}
	return i < n ? vars[i] : NULL;
}
