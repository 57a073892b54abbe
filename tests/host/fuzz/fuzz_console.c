/*
 * The console scanner over any bytes, cut in two feed() calls: bounded,
 * and whatever it reports is printable text.
 */
#include "boot/console.h"
#include "fuzz.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_scan s;
	size_t cut = fuzz_split(&data, &size);

	console_scan_init(&s);
	console_scan_feed(&s, (const char *)data, cut);
	console_scan_feed(&s, (const char *)data + cut, size - cut);
	FUZZ_CHECK(s.len <= CONSOLE_LINE_MAX);
	FUZZ_CHECK(s.report_lines >= 0 && s.report_lines <= CONSOLE_REPORT_LINES);
	FUZZ_CHECK(memchr(s.report, '\0', sizeof(s.report)) != NULL);
	for (const char *c = s.report; *c; c++)
		FUZZ_CHECK(*c == '\n' || ((unsigned char)*c >= 0x20 && *c != 0x7f));
	FUZZ_CHECK(fuzz_printable(s.firmware_error));
	if (s.finding == CONSOLE_CLEAN)
		console_scan_firmware_hang(&s, 120);
	FUZZ_CHECK(strlen(console_finding_name(s.finding)) > 0);
	return 0;
}
