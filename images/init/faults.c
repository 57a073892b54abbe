/* faults: the failures /init plays on request, to test the host (init.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "init.h"
#include "ktap.h"

/*
 * Faults the lab injects to test its own reporting (docs/reliability.md),
 * from the kernel command line:
 *   numalab.fault=silent    no TAP at all, then hang: a guest that never reports
 *   numalab.fault=hang      each test hangs instead of running: its timeout fires
 *   numalab.fault=poweroff  power off as the first test starts: TAP cut mid-stream
 *   numalab.fault=garbage   each test prints hostile bytes instead of running
 *   numalab.test_timeout=S  every test's timeout is S seconds, not the plan's
 */
enum fault { FAULT_NONE, FAULT_SILENT, FAULT_HANG, FAULT_POWEROFF, FAULT_GARBAGE };

static enum fault fault;
static unsigned test_timeout_s;

/* numalab.fault= and numalab.test_timeout= (see enum fault); unknown values are init errors. */
void read_faults(const char *cmdline)
{
	static const char *const names[] = { "none", "silent", "hang", "poweroff", "garbage" };
	const char *f = strstr(cmdline, "numalab.fault="), *cap = strstr(cmdline, "numalab.test_timeout=");
	size_t len;

	if (f) {
		f += strlen("numalab.fault=");
		len = strcspn(f, " ");
		for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i]) && !strncmp(f, names[i], len))
				fault = (enum fault)i;
		if (fault == FAULT_NONE)
			init_error("numalab.fault=%.*s: use silent, hang, poweroff or garbage", (int)len, f);
	}
	if (cap) {
		char *end;
		unsigned long v = strtoul(cap + strlen("numalab.test_timeout="), &end, 10);

		if (v == 0 || v > 86400 || (*end && *end != ' '))
			init_error("numalab.test_timeout: give seconds, 1..86400");
		test_timeout_s = (unsigned)v;
	}
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
