/*
 * The TAP parser over any bytes, cut in two feed() calls, then closed as
 * after a crash: every line it passes on or adds is printable (tabs allowed
 * in what it passes on; none in names, reasons, guest facts), the counts
 * stay within bounds, and the closed stream has a verdict for every test.
 */
#include "fuzz.h"
#include "tap.h"

#include <string.h>

static void check_line(void *ctx, const char *line)
{
	(void)ctx;
	FUZZ_CHECK(strlen(line) <= TAP_LINE_MAX);
	FUZZ_CHECK(fuzz_text(line));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tap_parser p;
	static const char *const plan[] = { "topology", "mempolicy", "../../etc/passwd" };
	struct tap_summary sum;
	size_t cut = fuzz_split(&data, &size);
	char *added = NULL;
	size_t added_len = 0;
	FILE *out = open_memstream(&added, &added_len);

	tap_init(&p);
	p.on_line = check_line;
	tap_feed(&p, (const char *)data, cut);
	tap_feed(&p, (const char *)data + cut, size - cut);
	tap_close(&p, TAP_ERROR, "kernel panic: \033[31mfake\n1..9", plan, 3, out);
	fclose(out);
	for (char *line = added, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		FUZZ_CHECK(nl != NULL);   /* every added line is terminated */
		*nl = '\0';
		FUZZ_CHECK(fuzz_printable(line));
	}
	free(added);
	FUZZ_CHECK(p.nr_tests >= 0 && p.nr_tests <= TAP_MAX_TESTS);
	FUZZ_CHECK(p.nr_info >= 0 && p.nr_info <= TAP_MAX_INFO);
	for (int i = 0; i < p.nr_tests; i++) {
		FUZZ_CHECK(p.tests[i].status != TAP_PENDING);
		FUZZ_CHECK(fuzz_printable(p.tests[i].name));
		FUZZ_CHECK(fuzz_printable(p.tests[i].reason));
	}
	for (int i = 0; i < p.nr_info; i++)
		FUZZ_CHECK(fuzz_printable(p.info[i].key) && fuzz_printable(p.info[i].value));
	tap_summarise(&p, &sum);
	FUZZ_CHECK(sum.tests == sum.passed + sum.failed + sum.skipped + sum.todo + sum.timeout + sum.errors);
	return 0;
}
