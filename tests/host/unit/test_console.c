/* The console scanner: kernel findings, firmware trouble, hostile bytes. */
#include <stdio.h>
#include <string.h>

#include "boot/console.h"
#include "unit.h"

static void feed(struct console_scan *s, const char *text)
{
	console_scan_init(s);
	console_scan_feed(s, text, strlen(text));
}

UNIT_TEST(panic_is_found_with_its_lines)
{
	struct console_scan s;

	feed(&s, "[ 1.0] Linux version 7.2\n[ 2.0] Kernel panic - not syncing: VFS\n[ 2.1] CPU: 0\n");
	CHECK_STR(console_finding_name(s.finding), "panic");
	CHECK(strncmp(s.report, "[ 2.0] Kernel panic - not syncing: VFS\n", 39) == 0);
	CHECK_INT(s.report_lines, 2);
	CHECK(s.kernel_started);
}

UNIT_TEST(second_banner_is_a_reboot)
{
	struct console_scan s;

	feed(&s, "Linux version 7.2\nok\nLinux version 7.2\n");
	CHECK_INT(s.finding, CONSOLE_REBOOT);
	CHECK_INT(s.banners, 2);
}

UNIT_TEST(efi_shell_names_the_boot_failure)
{
	struct console_scan s;

	feed(&s, "BdsDxe: failed to load Boot0001 \"UEFI Non-Block Boot Device\": Not Found\n"
		 "BdsDxe: starting Boot0002 \"EFI Internal Shell\" from Fv(5D19)\n"
		 "\033[2J\033[01;01HUEFI Interactive Shell v2.2\n");
	CHECK_INT(s.finding, CONSOLE_EFI_SHELL);
	CHECK(console_finding_is_firmware(s.finding));
	CHECK(strstr(s.report, "reached the EFI shell") != NULL);
	CHECK(strstr(s.report, "BdsDxe: failed to load Boot0001") != NULL);
	CHECK(!s.kernel_started);
}

UNIT_TEST(shell_text_after_the_kernel_is_not_firmware)
{
	struct console_scan s;

	feed(&s, "EFI stub: Booting Linux Kernel...\necho UEFI Interactive Shell\n");
	CHECK_INT(s.finding, CONSOLE_CLEAN);
	CHECK(s.kernel_started);
}

/* The retry's signature is the finding's own line, not an int3 further down. */
UNIT_TEST(int3_oops_is_told_from_other_oopses)
{
	struct console_scan s;

	feed(&s, "[    0.417202] Oops: int3: 0000 [#1] SMP NOPTI\n"
		 "[    0.418082] RIP: 0010:update_sd_lb_stats.constprop.0+0x262/0xe40\n");
	CHECK(console_finding_is_int3_oops(&s));
	feed(&s, "[   12.000004] Oops: Oops: 0000 [#1] SMP NOPTI\n[   12.000005] Oops: int3: 0000 [#2] SMP NOPTI\n");
	CHECK(!console_finding_is_int3_oops(&s));
	feed(&s, "[    2.3] Kernel panic - not syncing: Oops: int3\n");
	CHECK(!console_finding_is_int3_oops(&s));
	feed(&s, "[    0.1] Linux version 7.2\n");
	CHECK(!console_finding_is_int3_oops(&s));
}

UNIT_TEST(firmware_hang_report)
{
	struct console_scan s;

	feed(&s, "BdsDxe: failed to start Boot0001: Aborted\n");
	console_scan_firmware_hang(&s, 120);
	CHECK_STR(console_finding_name(s.finding), "firmware-hang");
	CHECK(strstr(s.report, "no kernel output 120 s after QEMU started") == s.report);
	CHECK(strstr(s.report, "BdsDxe: failed to start Boot0001") != NULL);
}

UNIT_TEST(escapes_are_dropped_and_bytes_made_printable)
{
	struct console_scan s;
	const char text[] = "\033[1m\033[33mKernel \001pa\033(Bnic\0 - not syncing: x\xff\n";

	console_scan_init(&s);
	console_scan_feed(&s, text, sizeof(text) - 1);
	CHECK_INT(s.finding, CONSOLE_CLEAN);   /* the control byte breaks the needle */
	feed(&s, "\033[1m\033[33mKernel panic - not syncing:\033[0m x\xff\t\n");
	CHECK_INT(s.finding, CONSOLE_PANIC);
	CHECK_STR(s.report, "Kernel panic - not syncing: x? \n");
}

UNIT_TEST(overlong_lines_are_bounded)
{
	struct console_scan s;
	static char big[CONSOLE_LINE_MAX * 4];

	memset(big, 'a', sizeof(big));
	memcpy(big + sizeof(big) - 40, "Kernel panic - not syncing", 26);
	console_scan_init(&s);
	console_scan_feed(&s, big, sizeof(big));
	console_scan_feed(&s, "\n", 1);
	CHECK_INT(s.finding, CONSOLE_CLEAN);   /* past the kept prefix: not seen */
	CHECK_INT(s.len, 0);
}

/*
 * Real kernel reports, as the 7.2 sources print them (the file that prints
 * each is named): the finding, and the report keeps its first lines.
 */
static const struct excerpt {
	const char *name;
	enum console_finding finding;
	const char *text;
	const char *first;       /* the report's first line */
} excerpts[] = {
	{ "panic (kernel/panic.c)", CONSOLE_PANIC,
	  "[    2.345678] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n"
	  "[    2.346012] CPU: 0 UID: 0 PID: 1 Comm: swapper/0 Not tainted 7.2.13+deb14-amd64 #1\n"
	  "[    2.346500] Call Trace:\n"
	  "[    2.347000] ---[ end Kernel panic - not syncing: VFS: Unable to mount root fs ]---\n",
	  "[    2.345678] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)" },
	{ "x86 oops (arch/x86/kernel/dumpstack.c)", CONSOLE_OOPS,
	  "[   12.000000] #PF: supervisor read access in kernel mode\n"
	  "[   12.000004] Oops: Oops: 0000 [#1] SMP NOPTI\n"
	  "[   12.000005] CPU: 1 UID: 0 PID: 123 Comm: mempolicy Not tainted 7.2.13 #1\n"
	  "[   12.000006] RIP: 0010:do_mbind+0x1a/0x2c0\n",
	  "[   12.000004] Oops: Oops: 0000 [#1] SMP NOPTI" },
	{ "NULL dereference (arch/x86/mm/fault.c)", CONSOLE_OOPS,
	  "[   12.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
	  "[   12.000001] #PF: supervisor read access in kernel mode\n",
	  "[   12.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008" },
	{ "general protection fault (arch/x86/kernel/traps.c)", CONSOLE_OOPS,
	  "[    5.100000] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP NOPTI\n",
	  "[    5.100000] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP NOPTI" },
	{ "BUG_ON (lib/bug.c)", CONSOLE_OOPS,
	  "[    7.000000] ------------[ cut here ]------------\n"
	  "[    7.000001] kernel BUG at mm/mempolicy.c:2134!\n"
	  "[    7.000002] Oops: invalid opcode: 0000 [#1] SMP NOPTI\n",
	  "[    7.000001] kernel BUG at mm/mempolicy.c:2134!" },
	{ "LoongArch oops (arch/loongarch/kernel/traps.c)", CONSOLE_OOPS,
	  "[    9.000000] CPU 0 Unable to handle kernel paging request at virtual address 0000000000000008, era == 9000000002a1b2c4, ra == 9000000002a1b2a0\n"
	  "[    9.000001] Oops[#1]:\n",
	  "[    9.000000] CPU 0 Unable to handle kernel paging request at virtual address 0000000000000008, era == 9000000002a1b2c4, ra == 9000000002a1b2a0" },
	{ "LoongArch die header alone", CONSOLE_OOPS,
	  "[    9.000001] Kernel ale access[#1]:\n[    9.000002] CPU: 0 PID: 1\n",
	  "[    9.000001] Kernel ale access[#1]:" },
	{ "soft lockup (kernel/watchdog.c)", CONSOLE_LOCKUP,
	  "[   52.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [khugepaged:45]\n"
	  "[   52.000001] Modules linked in:\n",
	  "[   52.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [khugepaged:45]" },
	{ "hard lockup (kernel/watchdog.c)", CONSOLE_LOCKUP,
	  "[   60.000000] watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 1\n",
	  "[   60.000000] watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 1" },
	{ "RCU stall (kernel/rcu/tree_stall.h)", CONSOLE_RCU_STALL,
	  "[   80.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
	  "[   80.000001] rcu: \t1-...!: (0 ticks this GP) idle=8f4c/1/0x4000000000000000 softirq=1234/1234 fqs=0\n"
	  "[   80.000002] \t(detected by 0, t=21002 jiffies, g=1234, q=5 ncpus=2)\n",
	  "[   80.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" },
	{ "RCU self-detected stall", CONSOLE_RCU_STALL,
	  "[   81.000000] rcu: INFO: rcu_sched self-detected stall on CPU\n",
	  "[   81.000000] rcu: INFO: rcu_sched self-detected stall on CPU" },
	{ "RCU expedited stall (kernel/rcu/tree_exp.h)", CONSOLE_RCU_STALL,
	  "[   82.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21002 jiffies s: 105 root: 0x2/.\n",
	  "[   82.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21002 jiffies s: 105 root: 0x2/." },
	{ "RCU tasks stall (kernel/rcu/tasks.h)", CONSOLE_RCU_STALL,
	  "[   83.000000] INFO: rcu_tasks detected stalls on tasks:\n",
	  "[   83.000000] INFO: rcu_tasks detected stalls on tasks:" },
	{ "KASAN (mm/kasan/report.c)", CONSOLE_SANITIZER,
	  "[   10.000000] ==================================================================\n"
	  "[   10.000001] BUG: KASAN: slab-use-after-free in mempolicy_slab_node+0x1c/0x90\n"
	  "[   10.000002] Read of size 2 at addr ffff888003a1b0c8 by task mempolicy/130\n",
	  "[   10.000001] BUG: KASAN: slab-use-after-free in mempolicy_slab_node+0x1c/0x90" },
	{ "UBSAN (lib/ubsan.c)", CONSOLE_SANITIZER,
	  "[    3.000000] UBSAN: array-index-out-of-bounds in mm/mempolicy.c:2023:12\n"
	  "[    3.000001] index 64 is out of range for type 'unsigned long [1]'\n",
	  "[    3.000000] UBSAN: array-index-out-of-bounds in mm/mempolicy.c:2023:12" },
	{ "KFENCE (mm/kfence/report.c)", CONSOLE_SANITIZER,
	  "[    4.000000] BUG: KFENCE: use-after-free read in test_use_after_free_read+0xb3/0x143\n\n"
	  "[    4.000001] Use-after-free read at 0x000000004e3f2a4c (in kfence-#79):\n",
	  "[    4.000000] BUG: KFENCE: use-after-free read in test_use_after_free_read+0xb3/0x143" },
	{ "KMSAN (mm/kmsan/report.c)", CONSOLE_SANITIZER,
	  "[    4.500000] BUG: KMSAN: uninit-value in do_mbind+0x2a/0x60\n",
	  "[    4.500000] BUG: KMSAN: uninit-value in do_mbind+0x2a/0x60" },
	{ "WARN splat, 7.x (kernel/panic.c)", CONSOLE_WARNING,
	  "[   12.000000] ------------[ cut here ]------------\n"
	  "[   12.000001] WARNING: mm/migrate.c:2650 at migrate_misplaced_folio+0x1a/0x90, CPU#1: policy/141\n"
	  "[   12.000002] Modules linked in:\n",
	  "[   12.000001] WARNING: mm/migrate.c:2650 at migrate_misplaced_folio+0x1a/0x90, CPU#1: policy/141" },
	{ "WARN splat, older kernels", CONSOLE_WARNING,
	  "[   12.000001] WARNING: CPU: 1 PID: 141 at mm/migrate.c:2650 migrate_misplaced_folio+0x1a/0x90\n",
	  "[   12.000001] WARNING: CPU: 1 PID: 141 at mm/migrate.c:2650 migrate_misplaced_folio+0x1a/0x90" },
	{ "VM_FAULT_OOM with no OOM (mm/oom_kill.c)", CONSOLE_WARNING,
	  "[   13.000000] Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF\n",
	  "[   13.000000] Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF" },
	{ "second boot banner (init/version-timestamp.c)", CONSOLE_REBOOT,
	  "[    0.000000] Linux version 7.2.13+deb14-amd64 (debian-kernel@lists.debian.org) (gcc-14 14.2.0) #1 SMP\n"
	  "[    5.000000] reboot: Restarting system\n"
	  "[    0.000000] Linux version 7.2.13+deb14-amd64 (debian-kernel@lists.debian.org) (gcc-14 14.2.0) #1 SMP\n",
	  "[    0.000000] Linux version 7.2.13+deb14-amd64 (debian-kernel@lists.debian.org) (gcc-14 14.2.0) #1 SMP" },
};

static void check_excerpt(const struct excerpt *e, const struct console_scan *s)
{
	char first[CONSOLE_LINE_MAX + 1];

	snprintf(first, sizeof(first), "%.*s", (int)strcspn(s->report, "\n"), s->report);
	if (s->finding != e->finding || strncmp(first, e->first, 150))
		printf("#   %s: got %s \"%s\"\n", e->name, console_finding_name(s->finding), first);
	CHECK_INT(s->finding, e->finding);
	CHECK(!strncmp(first, e->first, 150));   /* report lines are cut at 150 */
	CHECK(s->report_lines >= 1);
}

UNIT_TEST(every_kind_of_report_is_found)
{
	struct console_scan s;

	for (size_t i = 0; i < sizeof(excerpts) / sizeof(excerpts[0]); i++) {
		feed(&s, excerpts[i].text);
		check_excerpt(&excerpts[i], &s);
	}
}

/* Any cut between two reads of the console, even inside the needle. */
UNIT_TEST(reports_split_across_reads_are_found)
{
	struct console_scan s;

	for (size_t i = 0; i < sizeof(excerpts) / sizeof(excerpts[0]); i++) {
		const char *text = excerpts[i].text;
		size_t len = strlen(text);

		for (size_t cut = 0; cut <= len; cut += 7) {
			console_scan_init(&s);
			console_scan_feed(&s, text, cut);
			console_scan_feed(&s, text + cut, len - cut);
			check_excerpt(&excerpts[i], &s);
		}
		console_scan_init(&s);
		for (size_t j = 0; j < len; j++)   /* byte by byte */
			console_scan_feed(&s, text + j, 1);
		check_excerpt(&excerpts[i], &s);
	}
}

/* Colour codes and NUL padding inside the words do not hide a report. */
UNIT_TEST(reports_interleaved_with_escapes_and_nuls_are_found)
{
	struct console_scan s;
	const char text[] = "noise\r\n\0\0[ 2.0] \033[31mKernel \033[1mpanic\033[0m - not\0 syncing: "
			    "Attempted to kill init!\033[K\r\n[ 2.1] CPU: 0\n";

	console_scan_init(&s);
	console_scan_feed(&s, text, 30);
	console_scan_feed(&s, text + 30, sizeof(text) - 1 - 30);
	CHECK_INT(s.finding, CONSOLE_PANIC);
	CHECK_STR(s.report, "[ 2.0] Kernel panic - not syncing: Attempted to kill init!\n[ 2.1] CPU: 0\n");
}

/* Only the first CONSOLE_REPORT_LINES lines are kept; the first finding wins. */
UNIT_TEST(report_keeps_the_first_lines_of_the_first_finding)
{
	struct console_scan s;
	char text[4096] = "[ 1.0] BUG: soft lockup - CPU#0 stuck for 22s! [t:1]\n";

	for (int i = 0; i < 20; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "[ 1.%d] line %d\n", i, i);
	strcat(text, "[ 9.0] Kernel panic - not syncing: softlockup: hung tasks\n");
	feed(&s, text);
	CHECK_INT(s.finding, CONSOLE_LOCKUP);
	CHECK_INT(s.report_lines, CONSOLE_REPORT_LINES);
	CHECK(strstr(s.report, "Kernel panic") == NULL);
	CHECK(strstr(s.report, "line 6\n") != NULL);
	CHECK(strstr(s.report, "line 7\n") == NULL);
}

UNIT_TEST(ordinary_boot_is_clean)
{
	struct console_scan s;

	feed(&s, "[    0.000000] Linux version 7.2.13+deb14-amd64 #1 SMP\n"
		 "[    0.010000] rcu: Hierarchical RCU implementation.\n"
		 "[    0.020000] rcu: RCU calculated value of scheduler-enlistment delay is 100 jiffies.\n"
		 "[    0.100000] NMI watchdog: Perf NMI watchdog permanently disabled\n"
		 "[    0.200000] ACPI BIOS Warning (bug): Incorrect checksum in table [HMAT] - 0x12, should be 0x13\n"
		 "[    0.300000] WARNING: possible circular locking dependency detected\n"
		 "[    1.000000] Run /init as init process\n"
		 "numalab-init: running mempolicy (timeout 100s)\n");
	CHECK_INT(s.finding, CONSOLE_CLEAN);
	CHECK_INT(s.banners, 1);
}

UNIT_MAIN(UNIT_CASE(panic_is_found_with_its_lines),
	  UNIT_CASE(second_banner_is_a_reboot),
	  UNIT_CASE(efi_shell_names_the_boot_failure),
	  UNIT_CASE(shell_text_after_the_kernel_is_not_firmware),
	  UNIT_CASE(int3_oops_is_told_from_other_oopses),
	  UNIT_CASE(firmware_hang_report),
	  UNIT_CASE(escapes_are_dropped_and_bytes_made_printable),
	  UNIT_CASE(overlong_lines_are_bounded),
	  UNIT_CASE(every_kind_of_report_is_found),
	  UNIT_CASE(reports_split_across_reads_are_found),
	  UNIT_CASE(reports_interleaved_with_escapes_and_nuls_are_found),
	  UNIT_CASE(report_keeps_the_first_lines_of_the_first_finding),
	  UNIT_CASE(ordinary_boot_is_clean))
