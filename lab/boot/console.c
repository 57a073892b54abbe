#include "boot/console.h"

#include <stdio.h>
#include <string.h>

/*
 * The kernel's own words (7.2: kernel/panic.c, arch/x86/kernel/dumpstack.c,
 * lib/bug.c, kernel/watchdog.c, kernel/rcu/tree_stall.h, tree_exp.h,
 * tasks.h, mm/kasan, mm/kfence, mm/kmsan, lib/ubsan.c, mm/oom_kill.c).
 * First match wins, so the specific "BUG: KASAN" comes before the generic
 * "BUG:".  pagefault_out_of_memory()'s "Huh" is a fault handler that returned
 * VM_FAULT_OOM while no OOM was under way: a kernel bug the fault's retry
 * hides from the program (mm/huge_memory.c's hinting fault returning 1 for 0
 * after a migration, 754af874411d, shows nothing else).
 */
static const struct {
	const char *needle;
	enum console_finding finding;
} patterns[] = {
	{ "Kernel panic - not syncing", CONSOLE_PANIC },
	{ "Oops:", CONSOLE_OOPS },
	{ "BUG: KASAN", CONSOLE_SANITIZER },
	{ "BUG: KFENCE", CONSOLE_SANITIZER },
	{ "BUG: KMSAN", CONSOLE_SANITIZER },
	{ "UBSAN:", CONSOLE_SANITIZER },
	{ "soft lockup", CONSOLE_LOCKUP },
	{ "hard LOCKUP", CONSOLE_LOCKUP },
	{ "detected stalls on", CONSOLE_RCU_STALL },            /* CPUs/tasks, rcu_tasks */
	{ "detected expedited stalls", CONSOLE_RCU_STALL },
	{ "self-detected stall on CPU", CONSOLE_RCU_STALL },
	{ "general protection fault", CONSOLE_OOPS },
	{ "Unable to handle kernel", CONSOLE_OOPS },             /* arm64, LoongArch faults */
	{ "BUG:", CONSOLE_OOPS },
	{ "kernel BUG at", CONSOLE_OOPS },
	{ "Huh VM_FAULT_OOM leaked out", CONSOLE_WARNING },
};

/* LoongArch's die(): "Oops[#1]:", "Oops - BUG[#1]:", "Kernel ale access[#1]:". */
static int is_die_header(const char *line)
{
	const char *mark = strstr(line, "[#");
	size_t digits;

	if (!mark)
		return 0;
	digits = strspn(mark + 2, "0123456789");
	return digits && !strcmp(mark + 2 + digits, "]:");
}

/*
 * A WARN() splat's header (kernel/panic.c __warn()): 7.x "WARNING: FILE:LINE at
 * FN, CPU#N: COMM/PID" or "WARNING: at FN, CPU#N: ...", older kernels
 * "WARNING: CPU: N PID: P at ...".  Not lockdep's "WARNING: possible ..."
 * reports: no stock configuration has lockdep.
 */
static int is_warn_header(const char *line)
{
	const char *at = strstr(line, "WARNING: ");

	return at && (!strncmp(at + 9, "CPU: ", 5) || strstr(at, ", CPU#"));
}

void console_scan_init(struct console_scan *s)
{
	memset(s, 0, sizeof(*s));
}

const char *console_finding_name(enum console_finding f)
{
	static const char *const names[] = {
		"clean", "panic", "oops", "lockup", "rcu-stall", "sanitizer", "warning", "reboot",
		"efi-shell", "firmware-hang",
	};

	return names[f];
}

int console_finding_is_firmware(enum console_finding f)
{
	return f == CONSOLE_EFI_SHELL || f == CONSOLE_FIRMWARE_HANG;
}

int console_finding_is_int3_oops(const struct console_scan *s)
{
	const char *at = strstr(s->report, "Oops: int3"), *eol = strchr(s->report, '\n');

	return s->finding == CONSOLE_OOPS && at && (!eol || at < eol);   /* the finding's own line */
}

static void add_report_line(struct console_scan *s, const char *line)
{
	size_t used = strlen(s->report);

	if (s->report_lines >= CONSOLE_REPORT_LINES)
		return;
	snprintf(s->report + used, sizeof(s->report) - used, "%.150s\n", line);
	s->report_lines++;
}

void console_scan_firmware_hang(struct console_scan *s, int waited_s)
{
	char line[200];

	s->finding = CONSOLE_FIRMWARE_HANG;
	s->report[0] = '\0';
	s->report_lines = 0;
	snprintf(line, sizeof(line), "no kernel output %d s after QEMU started: the firmware hung, "
		 "or is not a UEFI image for this machine", waited_s);
	add_report_line(s, line);
	if (s->firmware_error[0])
		add_report_line(s, s->firmware_error);
}

/* edk2's boot manager: why it could not boot, and its last resort. */
static int scan_firmware_line(struct console_scan *s, const char *line)
{
	if (strstr(line, "BdsDxe: failed to"))
		snprintf(s->firmware_error, sizeof(s->firmware_error), "%.150s", line);
	if (!strstr(line, "UEFI Interactive Shell") && !strstr(line, "\"EFI Internal Shell\""))
		return 0;
	s->finding = CONSOLE_EFI_SHELL;
	add_report_line(s, "the firmware reached the EFI shell: it could not start the kernel");
	if (s->firmware_error[0])
		add_report_line(s, s->firmware_error);
	return 1;
}

static void scan_line(struct console_scan *s, const char *line)
{
	if (strstr(line, "EFI stub: "))
		s->kernel_started = 1;
	if (!s->kernel_started && s->finding == CONSOLE_CLEAN && scan_firmware_line(s, line))
		return;
	if (strstr(line, "Linux version ")) {
		s->kernel_started = 1;
		if (++s->banners > 1 && s->finding == CONSOLE_CLEAN) {
			s->finding = CONSOLE_REBOOT;
			add_report_line(s, line);
			return;
		}
	}
	if (s->finding != CONSOLE_CLEAN) {
		add_report_line(s, line);
		return;
	}
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (strstr(line, patterns[i].needle)) {
			s->finding = patterns[i].finding;
			add_report_line(s, line);
			return;
		}
	if (is_die_header(line))
		s->finding = CONSOLE_OOPS;
	else if (is_warn_header(line))
		s->finding = CONSOLE_WARNING;
	else
		return;
	add_report_line(s, line);
}

/* Firmware paints its screen with ANSI sequences: drop them, keep the text. */
static int in_escape(struct console_scan *s, unsigned char c)
{
	switch (s->escape) {
	case 0:
		s->escape = c == 0x1b;
		return s->escape;
	case 1:    /* after ESC: a CSI, or a one-character sequence */
		s->escape = c == '[' ? 2 : 0;
		return 1;
	default:   /* CSI: parameter bytes up to a final byte */
		if (c >= 0x40 && c <= 0x7e)
			s->escape = 0;
		return 1;
	}
}

void console_scan_feed(struct console_scan *s, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		/* NUL is line padding on serial consoles: it carries no text. */
		if (c == '\r' || c == '\0' || in_escape(s, c))
			continue;
		if (c == '\n') {
			s->line[s->len] = '\0';
			scan_line(s, s->line);
			s->len = 0;
		} else if (s->len < CONSOLE_LINE_MAX) {
			/* Keep reports printable: the guest may send anything. */
			s->line[s->len++] = (c >= 0x20 && c < 0x7f) ? (char)c : (c == '\t' ? ' ' : '?');
		}
	}
}
