/* numalab tap: nested KTAP made readable by consumers that see only the top level. */
#include "cli/command.h"
#include "analysis/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char help[] =
	"usage: numalab tap flatten FILE\n"
	"\n"
	"Print FILE, any nested KTAP (a run's tap, a matrix's matrix.tap), as flat\n"
	"TAP 13: one line per leaf result, named by its path (`ok 3 -\n"
	"4node.debian/mempolicy/mbind MPOL_BIND node 0`), SKIP and TODO kept as\n"
	"directives, TIMEOUT and ERROR as `not ok … # TIMEOUT why`, YAML blocks\n"
	"kept, the plan last (docs/results.md).  tap-driver.sh, prove and CI TAP\n"
	"plugins then count every result, not only the top-level ones.\n"
	"\n"
	"Exit: 0 written (whatever the results), 2 bad usage or FILE unreadable.\n";

int cmd_tap(int argc, char **argv)
{
	struct buf tap = BUF_INIT, flat = BUF_INIT;
	struct error err, why;
	int rc = EXIT_PASS;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return command_help(help);
	if (argc != 3 || strcmp(argv[1], "flatten"))
		return command_usage_error("tap", "want `numalab tap flatten FILE`");
	if (read_file(argv[2], &tap, &why)) {
		error_input(&err, "%s; give a KTAP file (e.g. results/RUN-ID/CELL/tap)", why.msg);
		rc = command_fail("tap", &err);
	} else {
		report_flatten(buf_str(&tap), tap.len, &flat);
		if (fwrite(buf_str(&flat), 1, flat.len, stdout) != flat.len || fflush(stdout)) {
			error_set(&err, "stdout: %s", strerror(errno));
			rc = command_fail("tap", &err);
		}
	}
	buf_free(&tap);
	buf_free(&flat);
	return rc;
}
