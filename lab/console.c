#include "console.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *needle;
	enum console_finding finding;
} patterns[] = {
	{ "Kernel panic - not syncing", CONSOLE_PANIC },
	{ "Oops:", CONSOLE_OOPS },
	{ "BUG: KASAN", CONSOLE_SANITIZER },
	{ "BUG: KFENCE", CONSOLE_SANITIZER },
	{ "UBSAN:", CONSOLE_SANITIZER },
	{ "soft lockup", CONSOLE_LOCKUP },
	{ "hard LOCKUP", CONSOLE_LOCKUP },
	{ "detected stalls on CPUs", CONSOLE_RCU_STALL },
	{ "rcu_sched self-detected stall", CONSOLE_RCU_STALL },
	{ "rcu_preempt self-detected stall", CONSOLE_RCU_STALL },
	{ "general protection fault", CONSOLE_OOPS },
	{ "BUG:", CONSOLE_OOPS },
	{ "kernel BUG at", CONSOLE_OOPS },
};

void console_scan_init(struct console_scan *s)
{
	memset(s, 0, sizeof(*s));
}

const char *console_finding_name(enum console_finding f)
{
	static const char *const names[] = {
		"clean", "panic", "oops", "lockup", "rcu-stall", "sanitizer", "reboot",
	};

	return names[f];
}

static void add_report_line(struct console_scan *s, const char *line)
{
	size_t used = strlen(s->report);

	if (s->report_lines >= CONSOLE_REPORT_LINES)
		return;
	snprintf(s->report + used, sizeof(s->report) - used, "%.150s\n", line);
	s->report_lines++;
}

static void scan_line(struct console_scan *s, const char *line)
{
	if (strstr(line, "Linux version ") && ++s->banners > 1 && s->finding == CONSOLE_CLEAN) {
		s->finding = CONSOLE_REBOOT;
		add_report_line(s, line);
		return;
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
}

void console_scan_feed(struct console_scan *s, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c == '\r')
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
