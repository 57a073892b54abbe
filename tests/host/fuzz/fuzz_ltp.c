/*
 * LTP's result lines (model/ltp.h, run by the guest's PID 1 on a suite's
 * output) over any line: a TAP result that fits its room, or nothing.
 */
#include "fuzz.h"
#include "model/ltp.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[8192];
	char out[96];
	size_t len = size < sizeof(line) - 1 ? size : sizeof(line) - 1;

	memcpy(line, data, len);
	line[len] = '\0';   /* /init hands it one NUL-terminated line, maybe with bytes of any value */
	memset(out, 'U', sizeof(out));
	out[sizeof(out) - 1] = '\0';
	if (!ltp_tap_result(line, 12, out, sizeof(out))) {
		FUZZ_CHECK(strspn(out, "U") == sizeof(out) - 1);
		return 0;
	}
	FUZZ_CHECK(strlen(out) < sizeof(out));
	FUZZ_CHECK(!strncmp(out, "ok 12 ", 6) || !strncmp(out, "not ok 12 ", 10));
	FUZZ_CHECK(strstr(out, " # ") != NULL);
	return 0;
}
