/* numalab matrix: run a test matrix's cells in parallel, resumably, and merge their results. */
#include "cli/command.h"
#include "cli/options.h"
#include "model/matrix.h"
#include "drive/matrix_run.h"
#include "model/labdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
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
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 every cell passed, 1 a test failed (or a guest kernel crashed),\n"
	"2 bad matrix file or command line, 3 harness errors or timeouts only\n"
	"(also when interrupted).\n";

static int shard_option(void *value, const char *arg, struct error *err)
{
	struct matrix_run_opts *o = value;

	return matrix_shard_parse(arg, &o->shard, &o->nr_shards, err);
}

/* results/matrix-NAME-TIME, NAME the matrix file's without its folder and suffix. */
static void default_out(const char *matrix_path, char *out, size_t cap)
{
	const char *base = strrchr(matrix_path, '/');
	char name[128];

	base = base ? base + 1 : matrix_path;
	snprintf(name, sizeof(name), "matrix-%.*s", (int)strcspn(base, "."), base);
	command_stamped_out(out, cap, name);
}

int cmd_matrix(int argc, char **argv)
{
	struct matrix_run_opts o = { .mode = MATRIX_RUN, .shard = 0, .nr_shards = 1,
				     .show = { command_show_on_stdout, NULL } };
	static struct command_sink sink = { NULL, "numalab matrix: " };
	char path[4096], out_buf[4200];
	enum matrix_verdict v;
	struct error err;
	int rc, first, dry_run = 0, arches = 0, merging = 0;
	const char *kcidb = NULL;
	const struct opt opts[] = {
		OPT_INT("jobs", &o.jobs, "N", 1, MATRIX_MAX_JOBS,
			"cells at once, 1..256 (default: as cores and free memory\n"
			"allow, counting each cell's guest memory plus QEMU's own)"),
		OPT_STRING("out", &o.out, "DIR", "output directory (default: results/matrix-NAME-TIME)"),
		OPT_CALLBACK("shard", &o, "I/N", shard_option,
			     "run only cells whose index k has k % N == I (0 <= I < N)"),
		OPT_FLAG("dry-run", &dry_run, "list the cells and their commands, run nothing"),
		OPT_FLAG("arches", &arches, "print the guest arches the cells need, one a line (for make)"),
		OPT_FLAG("quiet", &o.quiet, "no cell logs, only a line per finished cell"),
		OPT_STRING("kcidb", &kcidb, "FILE",
			   "also write the cells' results as KCIDB JSON at the end\n"
			   "(docs/kcidb.md), as `numalab kcidb OUT` does"),
		OPT_LAVA(&o.lava.url, &o.lava.device_type, &o.lava.artifacts),
		OPT_FLAG("merge", &merging,
			 "merge the outputs of shards (their --out dirs) into --out:\n"
			 "matrix.tap, flat.tap, junit.xml, summary.txt in cell order"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "matrix", .usage = usage, .opts = opts, .tail = tail };

	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	o.mode = arches ? MATRIX_ARCHES : dry_run ? MATRIX_DRY_RUN : MATRIX_RUN;
	if ((rc = command_lava_check("matrix", &o.lava)) >= 0)
		return rc;
	if (merging && (!o.out || first == argc))
		return command_usage_error("matrix", "--merge needs --out DIR and the shards' output directories");
	/* Its steps on stdout, in order with the cells' lines; warnings on stderr. */
	sink.steps = stdout;
	command_set_sink(&sink);
	if (merging && matrix_merge(argv + first, argc - first, o.out, &o.show, &v, &err))
		return command_fail("matrix", &err);
	if (merging)
		return kcidb && (rc = command_kcidb_write("matrix", o.out, kcidb)) ? rc : command_exit_matrix(v);
	if (first != argc - 1)
		return command_usage_error("matrix", first < argc ? "give one matrix file or name"
						     : "which matrix? e.g. `numalab matrix smoke`");
	if (lab_data_find(lab_root(), LAB_DATA_MATRIX, argv[first], path, sizeof(path), &err))
		return command_fail("matrix", &err);
	o.file = path;
	if (!o.out)
		default_out(path, out_buf, sizeof(out_buf));
	o.out = o.out ? o.out : out_buf;
	if (matrix_run(&o, &v, &err))
		return command_fail("matrix", &err);
	if (kcidb && o.mode == MATRIX_RUN && (rc = command_kcidb_write("matrix", o.out, kcidb)))
		return rc;
	return command_exit_matrix(v);
}
