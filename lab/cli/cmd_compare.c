/* numalab compare: two result trees, test by test and metric by metric. */
#include "cli/command.h"
#include "cli/options.h"
#include "analysis/compare.h"
#include "analysis/compare_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: numalab compare [options] A B\n"
	"\n"
	"Compare the results under directory A with those under B: each is a run\n"
	"(results/RUN-ID), a results root or a matrix output directory; every\n"
	"directory below holding 'tap' and 'meta' is a cell.  Cells pair by\n"
	"(topology, suite, test); cells with the same key on a side are\n"
	"repetitions.  Tests that pass on one side and fail on the other come\n"
	"first, then every metric (TAP YAML blocks, '# metric:' lines): mean,\n"
	"median, stddev, % change, Welch's t-test and a bootstrap interval.\n"
	"Refuses (exit 2) to compare cells whose QEMU version, accelerator,\n"
	"host NUMA backing, backend or guest shape differ, unless --force.\n"
	"Cells of runs that did not complete are skipped.  (docs/compare.md)\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 no functional difference and no metric regressed or changed,\n"
	"1 otherwise, 2 bad input or a refused comparison, 3 an output could not\n"
	"be written.\n";

struct outputs {
	const char *tap, *json, *html;
	int all, quiet;
};

/* The report writer makes, to path (none: NULL).  Returns an exit code: EXIT_PASS when written. */
static int write_report(const char *path, const struct comparison *c,
			void (*writer)(const struct comparison *, struct buf *))
{
	struct buf b = BUF_INIT;
	struct error err;
	int rc;

	if (!path)
		return EXIT_PASS;
	writer(c, &b);
	rc = write_file_atomic(path, b.data ? b.data : "", b.len, &err);
	if (rc)
		rc = command_fail("compare", &err);
	buf_free(&b);
	return rc;
}

static int report(const struct comparison *c, const struct outputs *o)
{
	int rc;

	if (!o->quiet) {
		struct buf text = BUF_INIT;

		compare_report_text(c, o->all, &text);
		fputs(buf_str(&text), stdout);
		buf_free(&text);
	}
	rc = write_report(o->tap, c, compare_report_tap);
	if (rc == EXIT_PASS)
		rc = write_report(o->json, c, compare_report_json);
	if (rc == EXIT_PASS)
		rc = write_report(o->html, c, compare_report_html);
	return rc != EXIT_PASS ? rc : command_exit_compare(compare_result(c));
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_options opts;
	struct outputs out = { 0 };
	struct comparison c;
	struct error err;
	int rc, first, uncorrected = 0, iterations;
	const struct opt table[] = {
		OPT_DOUBLE("threshold", &opts.threshold_pct, "PCT", 0, HUGE_VAL,
			   "smallest change of the mean that counts (default 5)"),
		OPT_DOUBLE_OPEN("alpha", &opts.alpha, "P", 0, 1, "significance level, 0 < P < 1 (default 0.05)"),
		OPT_FLAG("bootstrap", &opts.bootstrap, "decide by the bootstrap interval, not Welch's test"),
		OPT_FLAG("uncorrected", &uncorrected,
			 "decide by Welch's p, not by q (p adjusted by\n"
			 "Benjamini-Hochberg over all metrics tested)"),
		OPT_INT("iterations", &iterations, "N", 100, 1000000,
			"bootstrap resamples, 100..1000000 (default 10000)"),
		OPT_U64("seed", &opts.seed, "N", "bootstrap PRNG seed (default 1)"),
		OPT_STRING("tap", &out.tap, "FILE", "write TAP: one result per test and per metric"),
		OPT_STRING("json", &out.json, "FILE", "write everything as JSON"),
		OPT_STRING("html", &out.html, "FILE", "write a self-contained HTML report with SVG charts"),
		OPT_FLAG("all", &out.all, "list every metric on the terminal, not just the flagged"),
		OPT_FLAG("quiet", &out.quiet, "no table on the terminal"),
		OPT_STRING("kernel-a", &opts.filter_a.kernel, "NAME",
			   "only A's cells of kernel NAME (meta kernel: NAME VERSION)"),
		OPT_STRING("kernel-b", &opts.filter_b.kernel, "NAME", "only B's cells of kernel NAME"),
		OPT_STRING("cells-a", &opts.filter_a.cells, "GLOB",
			   "only A's cells whose path below A matches GLOB ('*'\n"
			   "spans '/'), e.g. 'cells/2node.madv.*': two kernels or\n"
			   "variants of one matrix directory given as both A and B"),
		OPT_STRING("cells-b", &opts.filter_b.cells, "GLOB", "only B's cells whose path below B matches GLOB"),
		OPT_FLAG("force", &opts.force,
			 "compare despite a differing backend, qemu, accel,\nhost_numa or guest shape"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "compare", .usage = usage, .opts = table, .tail = tail };

	cmp_options_default(&opts);
	iterations = (int)opts.iterations;
	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	/* Hundreds of metrics at once: without a correction some are flagged by chance. */
	opts.correct_bh = !uncorrected;
	opts.iterations = (unsigned)iterations;
	if (argc - first != 2)
		return command_usage_error("compare", "give two result directories, A and B");
	if (compare_run(&c, argv[first], argv[first + 1], &opts, &err)) {
		compare_free(&c);
		return command_fail("compare", &err);
	}
	rc = report(&c, &out);
	compare_free(&c);
	return rc;
}
