/* numalab compare: two result trees, test by test and metric by metric. */
#include "cli/command.h"
#include "analysis/compare.h"
#include "analysis/compare_report.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
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
	"\n"
	"  --threshold PCT    smallest change of the mean that counts (default 5)\n"
	"  --alpha P          significance level, 0 < P < 1 (default 0.05)\n"
	"  --bootstrap        decide by the bootstrap interval, not Welch's test\n"
	"  --uncorrected      decide by Welch's p, not by q (p adjusted by\n"
	"                     Benjamini-Hochberg over all metrics tested)\n"
	"  --iterations N     bootstrap resamples, 100..1000000 (default 10000)\n"
	"  --seed N           bootstrap PRNG seed (default 1)\n"
	"  --tap FILE         write TAP: one result per test and per metric\n"
	"  --json FILE        write everything as JSON\n"
	"  --html FILE        write a self-contained HTML report with SVG charts\n"
	"  --all              list every metric on the terminal, not just the flagged\n"
	"  --quiet            no table on the terminal\n"
	"  --kernel-a NAME    only A's cells of kernel NAME (meta kernel: NAME VERSION)\n"
	"  --kernel-b NAME    only B's cells of kernel NAME\n"
	"  --cells-a GLOB     only A's cells whose path below A matches GLOB ('*'\n"
	"  --cells-b GLOB     spans '/'), e.g. 'cells/2node.madv.*': two kernels or\n"
	"                     variants of one matrix directory given as both A and B\n"
	"  --force            compare despite a differing backend, qemu, accel,\n"
	"                     host_numa or guest shape\n"
	"\n"
	"Exit: 0 no functional difference and no metric regressed or changed,\n"
	"1 otherwise, 2 bad input or a refused comparison, 3 an output could not\n"
	"be written.\n";

static const struct option options[] = {
	{ "threshold", required_argument, NULL, 'T' },
	{ "alpha", required_argument, NULL, 'a' },
	{ "bootstrap", no_argument, NULL, 'b' },
	{ "uncorrected", no_argument, NULL, 'u' },
	{ "iterations", required_argument, NULL, 'i' },
	{ "seed", required_argument, NULL, 's' },
	{ "tap", required_argument, NULL, 't' },
	{ "json", required_argument, NULL, 'j' },
	{ "html", required_argument, NULL, 'H' },
	{ "all", no_argument, NULL, 'A' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "force", no_argument, NULL, 'f' },
	{ "kernel-a", required_argument, NULL, 'K' },
	{ "kernel-b", required_argument, NULL, 'k' },
	{ "cells-a", required_argument, NULL, 'C' },
	{ "cells-b", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A finite number in [lo, hi] making up all of s. */
static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end == s || *end || errno || !isfinite(*out) || *out < lo || *out > hi ? -1 : 0;
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return end == s || *end || errno || *s == '-' || *out > max ? -1 : 0;
}

struct outputs {
	const char *tap, *json, *html;
	int all, quiet;
};

static int write_report(const char *path, const struct comparison *c,
			void (*writer)(const struct comparison *, struct buf *))
{
	struct buf b = BUF_INIT;
	struct error err;
	int rc;

	if (!path)
		return 0;
	writer(c, &b);
	rc = write_file_atomic(path, b.data ? b.data : "", b.len, &err);
	if (rc)
		fprintf(stderr, "numalab compare: %s\n", err.msg);
	buf_free(&b);
	return rc;
}

static int report(const struct comparison *c, const struct outputs *o)
{
	if (!o->quiet) {
		struct buf text = BUF_INIT;

		compare_report_text(c, o->all, &text);
		fputs(buf_str(&text), stdout);
		buf_free(&text);
	}
	if (write_report(o->tap, c, compare_report_tap) || write_report(o->json, c, compare_report_json) ||
	    write_report(o->html, c, compare_report_html))
		return EXIT_HARNESS;
	return command_exit_compare(compare_result(c));
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_options opts;
	struct outputs out = { 0 };
	struct comparison c;
	struct error err;
	unsigned long long n;
	int ch, rc;

	cmp_options_default(&opts);
	/* Hundreds of metrics at once: without a correction some are flagged by chance. */
	opts.correct_bh = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (ch) {
		case 'T':
			if (parse_double(optarg, 0, 1e6, &opts.threshold_pct))
				return command_usage_error("compare", "--threshold %s: give a percentage >= 0", optarg);
			break;
		case 'a':
			if (parse_double(optarg, 0, 1, &opts.alpha) || opts.alpha <= 0 || opts.alpha >= 1)
				return command_usage_error("compare", "--alpha %s: give a level between 0 and 1", optarg);
			break;
		case 'i':
			if (parse_u64(optarg, 1000000, &n) || n < 100)
				return command_usage_error("compare", "--iterations %s: give 100..1000000", optarg);
			opts.iterations = (unsigned)n;
			break;
		case 's':
			if (parse_u64(optarg, UINT64_MAX, &n))
				return command_usage_error("compare", "--seed %s: give a non-negative integer", optarg);
			opts.seed = n;
			break;
		case 'b': opts.bootstrap = 1; break;
		case 'u': opts.correct_bh = 0; break;
		case 't': out.tap = optarg; break;
		case 'j': out.json = optarg; break;
		case 'H': out.html = optarg; break;
		case 'A': out.all = 1; break;
		case 'q': out.quiet = 1; break;
		case 'f': opts.force = 1; break;
		case 'K': opts.filter_a.kernel = optarg; break;
		case 'k': opts.filter_b.kernel = optarg; break;
		case 'C': opts.filter_a.cells = optarg; break;
		case 'c': opts.filter_b.cells = optarg; break;
		case 'h': return command_help(help);
		default:
			return command_usage_error("compare", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return command_usage_error("compare", "give two result directories, A and B");
	if (compare_run(&c, argv[optind], argv[optind + 1], &opts, &err)) {
		compare_free(&c);
		return command_fail("compare", &err);
	}
	rc = report(&c, &out);
	compare_free(&c);
	return rc;
}
