/* numalab tap: nested KTAP made readable by consumers that see only the top level. */
#include "cli/command.h"
#include "cli/options.h"
#include "analysis/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char flatten_usage[] =
	"usage: numalab tap flatten FILE\n"
	"\n"
	"Print FILE, any nested KTAP (a run's tap, a matrix's matrix.tap), as flat\n"
	"TAP 13: one line per leaf result, named by its path (`ok 3 -\n"
	"4node.debian/mempolicy/mbind MPOL_BIND node 0`), SKIP and TODO kept as\n"
	"directives, TIMEOUT and ERROR as `not ok … # TIMEOUT why`, YAML blocks\n"
	"kept, the plan last (docs/results.md).  tap-driver.sh, prove and CI TAP\n"
	"plugins then count every result, not only the top-level ones.\n";

static const char exit_tail[] = "\nExit: 0 written (whatever the results), 2 bad usage or FILE unreadable.\n";

static const char tap_usage[] = "usage: numalab tap flatten FILE\n\n`numalab tap flatten --help` says more.\n\n";

static const struct opt no_opts[] = { OPT_END };
static const struct opt_spec flatten_spec = { .name = "tap flatten", .usage = flatten_usage, .opts = no_opts,
					      .tail = exit_tail };

/* The subcommand the command line names. */
static const struct opt_spec *chosen;

static const struct opt tap_opts[] = {
	OPT_SUBCOMMAND("flatten", &chosen, &flatten_spec, "nested KTAP as flat TAP 13"),
	OPT_END,
};

const struct opt_spec tap_spec = { .name = "tap", .usage = tap_usage, .opts = tap_opts, .tail = exit_tail };

int cmd_tap(int argc, char **argv)
{
	struct buf tap = BUF_INIT, flat = BUF_INIT;
	struct error err, why;
	int rc, first;

	if ((rc = command_options(&tap_spec, argc, argv, &first)) >= 0)
		return rc;
	if (argc - first != 1)
		return command_usage_error("tap flatten", "give one FILE");
	rc = EXIT_PASS;
	if (read_file(argv[first], &tap, &why)) {
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
