/*
 * console: spots kernel trouble in the guest's console as it streams.
 *
 * Fed any bytes (untrusted, bounded memory); the first finding wins and keeps
 * its first CONSOLE_REPORT_LINES lines, which end up in the TAP and meta.
 */
#ifndef LAB_CONSOLE_H
#define LAB_CONSOLE_H

#include <stddef.h>

#define CONSOLE_LINE_MAX 512
#define CONSOLE_REPORT_LINES 8

enum console_finding {
	CONSOLE_CLEAN,
	CONSOLE_PANIC,       /* Kernel panic - not syncing */
	CONSOLE_OOPS,        /* Oops, BUG:, general protection fault */
	CONSOLE_LOCKUP,      /* soft/hard lockup */
	CONSOLE_RCU_STALL,
	CONSOLE_SANITIZER,   /* KASAN / UBSAN / KFENCE report */
	CONSOLE_REBOOT,      /* a second boot banner: the guest restarted */
};

struct console_scan {
	enum console_finding finding;
	char report[CONSOLE_REPORT_LINES * 160];  /* first lines of the finding */
	int report_lines;
	int banners;                               /* "Linux version" lines seen */
	char line[CONSOLE_LINE_MAX + 1];
	size_t len;
};

void console_scan_init(struct console_scan *s);
void console_scan_feed(struct console_scan *s, const char *data, size_t len);
/* Short name ("panic", "oops", ...). */
const char *console_finding_name(enum console_finding f);

#endif
