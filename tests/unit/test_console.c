/* The console scanner: kernel findings, firmware trouble, hostile bytes. */
#include "console.h"
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

UNIT_MAIN(UNIT_CASE(panic_is_found_with_its_lines),
	  UNIT_CASE(second_banner_is_a_reboot),
	  UNIT_CASE(efi_shell_names_the_boot_failure),
	  UNIT_CASE(shell_text_after_the_kernel_is_not_firmware),
	  UNIT_CASE(firmware_hang_report),
	  UNIT_CASE(escapes_are_dropped_and_bytes_made_printable),
	  UNIT_CASE(overlong_lines_are_bounded))
