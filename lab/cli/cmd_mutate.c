/* numalab mutate: would the suites notice a one-line slip in these kernel functions? */
#include "cli/command.h"
#include "cli/options.h"
#include "base/interrupt.h"
#include "drive/mutate.h"
#include "model/mutant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: numalab mutate --kernel RECIPE|DIR [--patch FILE...]\n"
	"                      (--file mm/F.c [--function NAME...] | --patch-lines)\n"
	"                      --topo NAME[,NAME...] --tests LIST [options]\n"
	"\n"
	"Make single-line mutants of the named functions of a kernel C file (or of\n"
	"the lines the --patch files add), build each incrementally in a work tree\n"
	"of its own (only the mutated file and the link are redone; a mutant that\n"
	"does not compile is dropped), boot it on the topology, run the tests, and\n"
	"judge it killed (a test failed, the guest crashed or timed out) or\n"
	"survived; with several topologies, killed if any of them kills it (they\n"
	"boot in order, the next only while it survives).  The tests must pass on\n"
	"the unmutated kernel first.  Mutants run\n"
	"in id order (a hash: the same on every machine); running again with the\n"
	"same --out resumes.  OUT gets report.txt, report.tap, report.json and\n"
	"report.html: the score per function and overall, each survivor with its\n"
	"diff; survivors listed in the equivalents file (" MUTATE_EQUIVALENTS ")\n"
	"do not count against the score.  See docs/mutate.md.\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 every mutant killed (or listed as equivalent), 1 a mutant\n"
	"survived, 2 bad command line or request (the tests fail on the unmutated\n"
	"kernel, an unknown function, a bad equivalents file), 3 the lab failed or\n"
	"some mutants have no result (also when interrupted: resume with --out).\n";

/* "ID,ID,...": each a mutant id as the reports print it. */
static int id_list(void *value, const char *arg, struct error *err)
{
	struct strvec *ids = value;

	for (const char *p = arg; *p; p += *p == ',') {
		size_t n = strcspn(p, ",");

		if (n != MUTANT_ID_LEN || strspn(p, "0123456789abcdef") < n)
			return error_input(err, "\"%.*s\" is no mutant id: give %d lowercase hex digits "
					   "each, comma-separated", (int)n, p, MUTANT_ID_LEN);
		strvec_pushf(ids, "%.*s", (int)n, p);
		p += n;
	}
	return ids->nr ? 0 : error_input(err, "give at least one mutant id");
}

/* results/mutate-FILE-TOPO: the same for a parent and its children. */
static void default_out(const struct mutate_opts *o, char *out, size_t cap)
{
	const char *file = o->nr_files ? o->files[0] : "patch-lines", *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	snprintf(out, cap, "results/mutate-%.*s-%s", (int)strcspn(base, "."), base, o->topo);
}

int cmd_mutate(int argc, char **argv)
{
	struct mutate_opts o = { .accel = "auto", .jobs = 1, .slot = 0, .seed = 1, .show = { command_show_on_stdout, NULL } };
	struct strvec patches = STRVEC_INIT, files = STRVEC_INIT, functions = STRVEC_INIT;
	struct strvec self = STRVEC_INIT, ids = STRVEC_INIT;
	static struct command_sink sink = { NULL, "numalab mutate: " };
	char out_buf[4200];
	enum mutate_verdict v;
	struct error err;
	int rc, first;
	const struct opt opts[] = {
		OPT_STRING("kernel", &o.kernel, "RECIPE|DIR",
			   "the kernel to mutate: a recipe (stock) or a kernel source tree"),
		OPT_LIST("patch", &patches, "FILE", "a patch on top of it (repeatable; patch.h's formats)"),
		OPT_LIST("file", &files, "mm/F.c", "a C file to mutate, relative to the tree's top (repeatable)"),
		OPT_LIST("function", &functions, "NAME",
			 "a function of the files to mutate (repeatable; default: all)"),
		OPT_FLAG("patch-lines", &o.patch_lines,
			 "mutate only the lines the --patch files add (in their .c\n"
			 "files, or in --file): would the suites notice if they were wrong?"),
		OPT_STRING("topo", &o.topo, "NAME|FILE[,...]",
			   "the topology to boot, or a list of them, all of one architecture (required)"),
		OPT_STRING("tests", &o.tests, "LIST", "comma-separated guest suites (required)"),
		OPT_INT("jobs", &o.jobs, "N", 1, 16, "mutants at once, each in its own work tree (default 1)"),
		OPT_INT("limit", &o.limit, "N", 0, 1000000, "only the first N mutants in id order (0: all)"),
		OPT_INT("sample", &o.sample, "N", 0, 1000000,
			"a sample of N mutants, stratified by function, scored with a\n"
			"95% interval for the whole file (0: all)"),
		OPT_INT("seed", &o.seed, "S", 0, 2147483647, "the sample's seed (default 1)"),
		OPT_CALLBACK("ids", &ids, "ID,...", id_list, "only these mutants (a fixed sample)"),
		OPT_FLAG("dry-run", &o.dry_run, "list the mutants, build and run nothing"),
		OPT_INT("timeout", &o.timeout_s, "S", 0, 86400,
			"a mutant's run timeout (default: twice the unmutated run + 60 s)"),
		OPT_STRING("out", &o.out, "DIR", "output directory (default: results/mutate-FILE-TOPO)"),
		OPT_STRING("equivalents", &o.equivalents, "FILE",
			   "the equivalent mutants (default: " MUTATE_EQUIVALENTS ")"),
		OPT_CHOICE("accel", &o.accel, "auto|tcg|kvm", "auto|tcg|kvm", "accelerator (default auto)"),
		OPT_STRING("mutant", &o.mutant, "ID", "internal: run only this mutant (the children)"),
		OPT_INT("slot", &o.slot, "K", 0, 15,
			"the first work tree to use (default 0: mutate0 .. mutate<N-1>);\n"
			"with --mutant, the one to use"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "mutate", .usage = usage, .opts = opts, .tail = tail };

	/* The children get this command line: kept before getopt permutes argv. */
	for (int i = 0; i < argc; i++)
		strvec_push(&self, argv[i]);
	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		goto out;
	rc = EXIT_USAGE;
	if (first != argc) {
		command_usage_error("mutate", "unexpected argument '%s'", argv[first]);
		goto out;
	}
	if (!o.kernel || !o.topo || !o.tests) {
		command_usage_error("mutate", "--kernel, --topo and --tests are required");
		goto out;
	}
	if (o.sample && (o.limit || ids.nr)) {
		command_usage_error("mutate", "--sample chooses the mutants itself: give it without --limit and --ids");
		goto out;
	}
	o.patches = strvec_argv(&patches);
	o.nr_patches = (int)patches.nr;
	o.files = strvec_argv(&files);
	o.nr_files = (int)files.nr;
	o.functions = strvec_argv(&functions);
	o.nr_functions = (int)functions.nr;
	o.self_argv = strvec_argv(&self);
	o.ids = strvec_argv(&ids);
	o.nr_ids = (int)ids.nr;
	if (!o.out)
		default_out(&o, out_buf, sizeof(out_buf));
	o.out = o.out ? o.out : out_buf;
	sink.steps = o.mutant ? stderr : stdout;
	command_set_sink(&sink);
	interrupt_catch();
	if (mutate_run(&o, &v, &err)) {
		rc = command_fail("mutate", &err);
		goto out;
	}
	rc = o.mutant ? EXIT_PASS : v == MUTATE_ALL_KILLED ? EXIT_PASS : v == MUTATE_SURVIVORS ? EXIT_FAIL
											 : EXIT_HARNESS;
out:
	strvec_clear(&patches);
	strvec_clear(&files);
	strvec_clear(&functions);
	strvec_clear(&self);
	strvec_clear(&ids);
	return rc;
}
