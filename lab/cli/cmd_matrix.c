/* numalab matrix: run a test matrix's cells in parallel, resumably, and merge their results. */
#include "cli/command.h"
#include "model/matrix.h"
#include "drive/matrix_run.h"
#include "model/labdata.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char help[] =
	"usage: numalab matrix FILE|NAME [options]\n"
	"       numalab matrix --merge --out DIR SHARD-OUT...\n"
	"\n"
	"Run every cell (topology x kernel x suite x repetition) of a matrix file\n"
	"(matrices/NAME.matrix; format: docs/matrix.md) as `numalab run`\n"
	"children, several at once, each one's output kept in its own log and\n"
	"printed whole when it ends.  OUT gets matrix.tap (KTAP, a subtest per\n"
	"cell), flat.tap (TAP 13, a line per result), junit.xml, summary.txt and\n"
	"cells/ID/.  Running again with the same\n"
	"--out resumes: finished cells are kept, unfinished ones run (again).\n"
	"\n"
	"  --jobs N       cells at once (default: as cores and free memory allow,\n"
	"                 counting each cell's guest memory plus QEMU's own)\n"
	"  --out DIR      output directory (default: results/matrix-NAME-TIME)\n"
	"  --shard I/N    run only cells whose index k has k %% N == I (0 <= I < N)\n"
	"  --dry-run      list the cells and their commands, run nothing\n"
	"  --arches       print the guest arches the cells need, one a line (for make)\n"
	"  --quiet        no cell logs, only a line per finished cell\n"
	"  --merge        merge the outputs of shards (their --out dirs) into --out:\n"
	"                 matrix.tap, flat.tap, junit.xml, summary.txt in cell order\n"
	"\n"
	"Exit: 0 every cell passed, 1 a test failed (or a guest kernel crashed),\n"
	"2 bad matrix file or command line, 3 harness errors or timeouts only\n"
	"(also when interrupted).\n";

static const struct option options[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "out", required_argument, NULL, 'o' },
	{ "shard", required_argument, NULL, 's' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "arches", no_argument, NULL, 'a' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "merge", no_argument, NULL, 'm' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The report on stdout, in order with the progress lines the sink puts there. */
static void show_on_stdout(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	fwrite(text, 1, len, stdout);
	fflush(stdout);
}

static void default_out(const char *matrix_path, char *out, size_t cap)
{
	const char *base = strrchr(matrix_path, '/');
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	base = base ? base + 1 : matrix_path;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
	snprintf(out, cap, "results/matrix-%.*s-%s", (int)strcspn(base, "."), base, stamp);
}

int cmd_matrix(int argc, char **argv)
{
	struct matrix_run_opts o = { .mode = MATRIX_RUN, .shard = 0, .nr_shards = 1,
				     .show = { show_on_stdout, NULL } };
	static struct command_sink sink = { NULL, "numalab matrix: " };
	char path[4096], out_buf[4200];
	enum matrix_verdict v;
	struct error err;
	int c, merging = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.jobs = atoi(optarg);
			if (o.jobs < 1 || o.jobs > 256 || strspn(optarg, "0123456789") != strlen(optarg))
				return command_usage_error("matrix", "--jobs %s: give a number 1..256", optarg);
			break;
		case 'o': o.out = optarg; break;
		case 's':
			if (matrix_shard_parse(optarg, &o.shard, &o.nr_shards, &err))
				return command_usage_error("matrix", "--%s", err.msg);
			break;
		case 'n': o.mode = MATRIX_DRY_RUN; break;
		case 'a': o.mode = MATRIX_ARCHES; break;
		case 'q': o.quiet = 1; break;
		case 'm': merging = 1; break;
		case 'h': return command_help(help);
		default:
			return command_usage_error("matrix", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (merging && (!o.out || optind == argc))
		return command_usage_error("matrix", "--merge needs --out DIR and the shards' output directories");
	/* Its steps on stdout, in order with the cells' lines; warnings on stderr. */
	sink.steps = stdout;
	command_set_sink(&sink);
	if (merging && matrix_merge(argv + optind, argc - optind, o.out, &o.show, &v, &err))
		return command_fail("matrix", &err);
	if (merging)
		return command_exit_matrix(v);
	if (optind != argc - 1)
		return command_usage_error("matrix", optind < argc ? "give one matrix file or name"
						     : "which matrix? e.g. `numalab matrix smoke`");
	lab_data_path(lab_root(), LAB_DATA_MATRIX, argv[optind], path, sizeof(path));
	o.file = path;
	if (!o.out)
		default_out(path, out_buf, sizeof(out_buf));
	o.out = o.out ? o.out : out_buf;
	if (matrix_run(&o, &v, &err))
		return command_fail("matrix", &err);
	return command_exit_matrix(v);
}
