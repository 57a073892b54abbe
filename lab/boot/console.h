/*
 * console: spots kernel trouble in the guest's console as it streams.
 *
 * Fed any bytes (untrusted, bounded memory); the first finding wins and keeps
 * its first CONSOLE_REPORT_LINES lines, which end up in the TAP and meta.
 * It also notes when the kernel has started (its "Linux version" banner, or
 * the EFI stub's first words), which tells a firmware that never handed over
 * from a kernel that hung.
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
	CONSOLE_WARNING,     /* a WARN() splat, or a fault handler's VM_FAULT_OOM with no OOM */
	CONSOLE_REBOOT,      /* a second boot banner: the guest restarted */
	CONSOLE_EFI_SHELL,   /* UEFI fell through to its shell: it found nothing to boot */
	CONSOLE_FIRMWARE_HANG, /* set by the VM supervisor, never by the scanner */
};

struct console_scan {
	enum console_finding finding;
	char report[CONSOLE_REPORT_LINES * 160];  /* first lines of the finding */
	int report_lines;
	int banners;                               /* "Linux version" lines seen */
	int kernel_started;                        /* banner or EFI stub seen */
	char firmware_error[160];                  /* last "BdsDxe: failed ..." line */
	char line[CONSOLE_LINE_MAX + 1];
	size_t len;
	int escape;                                /* inside an ANSI escape: 1 ESC, 2 CSI */
};

void console_scan_init(struct console_scan *s);
void console_scan_feed(struct console_scan *s, const char *data, size_t len);
/* Short name ("panic", "oops", ...). */
const char *console_finding_name(enum console_finding f);
/* The firmware, not the kernel, failed: EFI shell or firmware hang. */
int console_finding_is_firmware(enum console_finding f);
/*
 * Record a firmware hang: no kernel output within waited_s.  The report
 * names the wait and the last firmware error, if the scanner saw one.
 */
void console_scan_firmware_hang(struct console_scan *s, int waited_s);
/*
 * The finding is an x86 "Oops: int3": a breakpoint no handler claimed.  On
 * real hardware that is a kernel bug; under multi-threaded TCG it is also
 * what a vCPU does when it runs a stale translation of code another vCPU
 * just live-patched (a static key's int3 was already gone from memory).
 */
int console_finding_is_int3_oops(const struct console_scan *s);

#endif
