/*
 * numalab run: boot one topology with one kernel and run the guest tests;
 * numalab shell: the same guest with its console on this terminal.
 */
#include "cli/command.h"
#include "base/interrupt.h"
#include "analysis/report.h"
#include "drive/run.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static const char help[] =
	"usage: numalab run --topo NAME|FILE [options] [-- CMD [ARG...]]\n"
	"\n"
	"Boot the topology under QEMU, run the guest tests, print their TAP and\n"
	"keep everything under OUT/<run-id>/<topology>.<kernel>/ (docs/results.md).\n"
	"\n"
	"  -- CMD [ARG...]    after the tests, run CMD in the guest as a TAP result of\n"
	"                     its own, in a view of the host's root (read-only) at the\n"
	"                     current directory: host programs run unchanged (x86_64;\n"
	"                     docs/byo.md); --tests none: CMD alone\n"
	"  --rw DIR           the guest may write DIR (repeatable; default: nothing)\n"
	"  --tests-dir DIR    each executable in DIR is a suite of the plan; a sidecar\n"
	"                     NAME.numalab declares its conventions (repeatable;\n"
	"                     docs/byo.md)\n"
	"  --topo NAME|FILE   topologies/NAME.topo or a topology file (required)\n"
	"  --kernel NAME|PATH a name from kernels/prebuilt.lock (default: debian),\n"
	"                     a recipe (kernels/recipes), a kernel source tree (built\n"
	"                     as it is, out of tree, in the cache) or a kernel image file\n"
	"  --patch FILE       apply FILE's patches (git format-patch, an mbox series,\n"
	"                     a mail quoting a patch) to a kernel built from source;\n"
	"                     repeatable, in order (docs/byo.md)\n"
	"  --tests LIST|none  comma-separated guest tests (default: the topology's)\n"
	"  --timeout S        whole-VM timeout in seconds (default: the topology's)\n"
	"  --out DIR          results root (default: results)\n"
	"  --accel auto|tcg|kvm  auto: KVM if a probe boot reaches /init, else TCG\n"
	"  --append ARGS      extra kernel command line\n"
	"  --guest-file FILE  put FILE in the guest as /lab/BASENAME (e.g. workloads.conf)\n"
	"  --backend qemu|libvirt  qemu (default): QEMU directly; libvirt: a transient\n"
	"                     libvirt domain (docs/libvirt.md; x86 only here)\n"
	"  --uri URI          libvirt URI (default: $LIBVIRT_DEFAULT_URI)\n"
	"  --host-nodes auto|G=H,...  bind guest node G's memory and vCPUs to host node\n"
	"                     H (auto: G=G); refused (exit 2) if the host lacks H\n"
	"  --prealloc         with --host-nodes (qemu backend): allocate all guest\n"
	"                     memory on its host nodes at start\n"
	"  --disk FILE        boot from a copy-on-write overlay of the qcow2 FILE (x86_64;\n"
	"                     `numalab image build debian` or any image with an ext4 root):\n"
	"                     tests run with its userland, results are also read back\n"
	"                     from it; adds ~2 min of libguestfs under TCG (docs/images.md)\n"
	"  --tap-flat FILE    also write the results as flat TAP 13 (one line per\n"
	"                     leaf result, named by its path: docs/results.md);\n"
	"                     -: on stdout, the nested TAP then goes to stderr\n"
	"  --junit FILE       also write them as JUnit XML\n"
	"  --quiet            no TAP on stdout, no progress\n"
	"\n"
	"Exit: 0 all passed, 1 a test failed or the guest crashed, 2 bad input,\n"
	"3 harness error.\n";

static const struct option options[] = {
	{ "topo", required_argument, NULL, 't' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "patch", required_argument, NULL, 'p' },
	{ "tests", required_argument, NULL, 'T' },
	{ "timeout", required_argument, NULL, 'o' },
	{ "out", required_argument, NULL, 'O' },
	{ "accel", required_argument, NULL, 'a' },
	{ "append", required_argument, NULL, 'A' },
	{ "guest-file", required_argument, NULL, 'g' },
	{ "backend", required_argument, NULL, 'b' },
	{ "uri", required_argument, NULL, 'u' },
	{ "host-nodes", required_argument, NULL, 'H' },
	{ "prealloc", no_argument, NULL, 'P' },
	{ "disk", required_argument, NULL, 'd' },
	{ "tap-flat", required_argument, NULL, 'F' },
	{ "junit", required_argument, NULL, 'J' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "rw", required_argument, NULL, 'w' },
	{ "tests-dir", required_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_timeout(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > 86400)
		return -1;
	*out = (int)v;
	return 0;
}

static const char shell_help[] =
	"usage: numalab shell --topo NAME|FILE [options]\n"
	"\n"
	"Boot the topology exactly as `numalab run` would and put the guest's console\n"
	"on this terminal: a shell (the host's bash, or sh) in the host-root view at\n"
	"the current directory, as `run -- CMD` runs CMD (x86_64; docs/byo.md).\n"
	"`poweroff` (or exit) ends it; Ctrl-] ends it at once.  No timeout.\n"
	"The console and the TAP header are kept under OUT/ as for run.\n"
	"\n"
	"  --topo, --kernel, --rw, --tests, --tests-dir, --accel, --append, --out\n"
	"                     as for `numalab run` (tests run before the shell)\n"
	"\n"
	"Exit: 0 the guest powered off, 1 it crashed, 2 bad input, 3 harness error.\n";

/* --tap-flat and --junit: the results for TAP consumers and CI (NULL: not wanted). */
struct report_files {
	const char *flat, *junit;
};

/* Arguments both commands take; 0, or an exit code. */
static int parse_args(const char *cmd, int argc, char **argv, struct run_opts *o, struct strvec *rw,
		      struct strvec *dirs, struct report_files *files, int *quiet)
{
	static const char *patches[64];
	int c;

	opterr = 0;
	/* '+': stop at the first non-option, so CMD's own options stay its own. */
	while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		switch (c) {
		case 't': o->topo = optarg; break;
		case 'k': o->kernel = optarg; break;
		case 'p':
			if (o->nr_patches == (int)(sizeof(patches) / sizeof(patches[0])))
				return command_usage_error(cmd, "more than %d --patch files", o->nr_patches);
			if (access(optarg, R_OK))
				return command_usage_error(cmd, "--patch %s: %s", optarg, strerror(errno));
			patches[o->nr_patches++] = optarg;
			o->patches = patches;
			break;
		case 'T': o->tests = optarg; break;
		case 'O': o->out = optarg; break;
		case 'a': o->accel = optarg; break;
		case 'A': o->append = optarg; break;
		case 'g': o->guest_file = optarg; break;
		case 'b': o->backend = optarg; break;
		case 'u': o->uri = optarg; break;
		case 'H': o->host_nodes = optarg; break;
		case 'P': o->prealloc = 1; break;
		case 'd': o->disk = optarg; break;
		case 'q': *quiet = 1; break;
		case 'w': strvec_push(rw, optarg); break;
		case 'D': strvec_push(dirs, optarg); break;
		case 'F': files->flat = optarg; break;
		case 'J': files->junit = optarg; break;
		case 'h': return command_help(o->shell ? shell_help : help) == EXIT_PASS ? -1 : EXIT_USAGE;
		case 'o':
			if (parse_timeout(optarg, &o->timeout_s))
				return command_usage_error(cmd, "--timeout %s: give seconds, 1..86400", optarg);
			break;
		default:
			return command_usage_error(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && !strcmp(argv[optind - 1], "--") && !o->shell) {
		o->exec_argv = (const char *const *)&argv[optind];
	} else if (optind < argc) {
		return command_usage_error(cmd, "unexpected argument '%s'%s", argv[optind],
					   o->shell ? "" : "; a command for the guest goes after --");
	} else if (optind > 1 && !strcmp(argv[optind - 1], "--") && !o->shell) {
		return command_usage_error(cmd, "nothing after --; give the command for the guest");
	}
	if (!o->topo)
		return command_usage_error(cmd, "--topo is required (e.g. --topo 2node)");
	if (o->guest_file && access(o->guest_file, R_OK))
		return command_usage_error(cmd, "--guest-file %s: %s", o->guest_file, strerror(errno));
	if (o->disk && access(o->disk, R_OK))
		return command_usage_error(cmd, "--disk %s: %s", o->disk, strerror(errno));
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") && strcmp(o->accel, "kvm"))
		return command_usage_error(cmd, "--accel %s: use auto, tcg or kvm", o->accel);
	if (o->backend && strcmp(o->backend, "qemu") && strcmp(o->backend, "libvirt"))
		return command_usage_error(cmd, "--backend %s: use qemu or libvirt", o->backend);
	if (o->uri && !run_backend_libvirt(o))
		return command_usage_error(cmd, "--uri needs --backend libvirt");
	if (o->prealloc && (!o->host_nodes || run_backend_libvirt(o)))
		return command_usage_error(cmd, "--prealloc needs --host-nodes and the qemu backend");
	if ((o->exec_argv || o->shell || rw->nr || dirs->nr) && run_backend_libvirt(o))
		return command_usage_error(cmd, "-- CMD, shell, --rw and --tests-dir need the direct QEMU backend "
					   "(leave out --backend libvirt)");
	o->rw_dirs = rw->nr ? strvec_argv(rw) : NULL;
	o->tests_dirs = dirs->nr ? strvec_argv(dirs) : NULL;
	return 0;
}

/*
 * The run as one cell (report.h), from the TAP it saved, with the verdict a
 * matrix would give it; a run that never got a cell is one ERROR testcase.
 */
struct run_report {
	struct report_cell cell;
	struct buf tap;
	char reason[512];
	const char *id;
};

static void run_report_load(const char *topo, int rc, const struct run_outcome *out,
			    const char *why, struct run_report *r)
{
	char *path = xprintf("%s/tap", out->cell_dir);
	struct error ignored;
	const char *slash = strrchr(out->cell_dir, '/');
	int have_tap = out->cell_dir[0] && !read_file(path, &r->tap, &ignored);

	free(path);
	r->id = out->cell_dir[0] ? (slash ? slash + 1 : out->cell_dir) : topo;
	r->cell.id = r->id;
	r->cell.tap = have_tap ? buf_str(&r->tap) : NULL;
	r->cell.tap_len = r->tap.len;
	r->cell.status = report_classify(rc, 0, vm_end_name(out->vm.end), r->cell.tap,
					 r->cell.tap_len, why, r->reason, sizeof(r->reason));
	r->cell.reason = r->reason;
	r->cell.time_s = out->vm.total_s > 0 ? out->vm.total_s : -1;
}

/* Write all of b to path, "-": stdout; 0, or -1 with err. */
static int write_report(const char *path, const struct buf *b, struct error *err)
{
	if (strcmp(path, "-"))
		return write_file_atomic(path, b->data ? b->data : "", b->len, err);
	if (fwrite(b->data ? b->data : "", 1, b->len, stdout) != b->len || fflush(stdout))
		return error_set(err, "stdout: %s", strerror(errno));
	return 0;
}

static int write_reports(const struct run_report *r, const struct report_files *files,
			 struct error *err)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	if (files->flat) {
		report_flat_tap(&r->cell, 1, &b);
		rc = write_report(files->flat, &b, err);
		b.len = 0;
	}
	if (!rc && files->junit) {
		report_junit(&r->cell, 1, r->id, &b);
		rc = write_report(files->junit, &b, err);
	}
	buf_free(&b);
	return rc;
}

static struct termios saved_tio;
static int tio_saved;

static void restore_terminal(void)
{
	if (tio_saved)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	tio_saved = 0;
}

/* Raw: every key (Ctrl-C, Ctrl-Z included) goes to the guest; restored at exit. */
static void raw_terminal(void)
{
	struct termios raw;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tio))
		return;
	raw = saved_tio;
	cfmakeraw(&raw);
	tio_saved = 1;
	atexit(restore_terminal);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
}

static int run_and_report(const char *cmd, struct run_opts *o, const struct report_files *files, int quiet)
{
	/* stdout is for the flat TAP alone when it goes there: tap-driver.sh reads it (automake recipe). */
	int echo_tap = !quiet && !o->shell && !(files->flat && !strcmp(files->flat, "-"));
	static struct command_sink quiet_sink = { NULL, "numalab: " };
	struct command_run_view view;
	struct run_outcome out;
	struct run_report report = { .tap = BUF_INIT };
	struct report_counts leaves;
	struct error err;
	int rc;

	if (lab_check_cache_env(&err) || toolroot_check_env(&err))
		return command_fail(cmd, &err);
	if (quiet)
		command_set_sink(&quiet_sink);
	o->view = command_run_view(&view, echo_tap, !quiet && !o->shell);
	interrupt_catch();
	memset(&out, 0, sizeof(out));
	rc = command_run_cell(o, &out, &err);
	if (o->shell) {   /* cooked again, on a line of its own, before anything is said */
		restore_terminal();
		fputc('\n', stderr);
	}
	run_report_load(o->topo, rc, &out, rc == EXIT_USAGE || rc == EXIT_HARNESS ? err.msg : "", &report);
	if (rc == EXIT_USAGE || rc == EXIT_HARNESS) {
		/* A signal kills the children: their failure is its consequence, not the cause. */
		if (interrupt_caught())
			fprintf(stderr, "numalab %s: interrupted by signal %d: %s\n", cmd, interrupt_caught(), err.msg);
		else
			fprintf(stderr, "numalab %s: %s\n", cmd, err.msg);
	} else if (o->shell) {
		fprintf(stderr, "numalab shell: %s: %s (%s, %.1f s) -> %s\n", o->topo, vm_end_name(out.vm.end),
			vm_accel_name(out.accel), out.vm.total_s, out.cell_dir);
		rc = out.vm.end == VM_POWEROFF || out.vm.end == VM_ESCAPED ? EXIT_PASS : EXIT_FAIL;
	} else {
		/* The leaf results, as flat TAP, JUnit and a matrix's summary count them. */
		report_count(&report.cell, &leaves);
		fprintf(stderr, "numalab run: %s: %d passed, %d failed, %d skipped", o->topo, out.summary.passed,
			out.summary.failed + out.summary.timeout + out.summary.errors, out.summary.skipped);
		if (leaves.tests != out.summary.tests)
			fprintf(stderr, "; their %d results: %d passed, %d failed, %d skipped", leaves.tests,
				leaves.passed, leaves.failed + leaves.errors, leaves.skipped);
		fprintf(stderr, " (%s, %s, %.1f s) -> %s\n", vm_end_name(out.vm.end), vm_accel_name(out.accel),
			out.vm.total_s, out.cell_dir);
	}
	if (files->flat && !strcmp(files->flat, "-") && report.cell.tap)
		fwrite(report.cell.tap, 1, report.cell.tap_len, stderr);
	if (write_reports(&report, files, &err)) {
		fprintf(stderr, "numalab %s: %s\n", cmd, err.msg);
		rc = EXIT_HARNESS;
	}
	buf_free(&report.tap);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .accel = "auto" };
	struct strvec rw = STRVEC_INIT, dirs = STRVEC_INIT;
	struct report_files files = { NULL, NULL };
	int quiet = 0, rc = parse_args("run", argc, argv, &o, &rw, &dirs, &files, &quiet);

	if (!rc)
		rc = run_and_report("run", &o, &files, quiet);
	strvec_clear(&rw);
	strvec_clear(&dirs);
	return rc < 0 ? EXIT_PASS : rc;
}

int cmd_shell(int argc, char **argv)
{
	/* TAP only to the cell: the terminal is the guest's console. */
	struct run_opts o = { .accel = "auto", .shell = 1 };
	struct strvec rw = STRVEC_INIT, dirs = STRVEC_INIT;
	struct report_files files = { NULL, NULL };
	int quiet = 0, rc = parse_args("shell", argc, argv, &o, &rw, &dirs, &files, &quiet);

	if (!rc) {
		fprintf(stderr, "numalab shell: booting %s; `poweroff` or Ctrl-] ends it\n", o.topo);
		raw_terminal();
		rc = run_and_report("shell", &o, &files, quiet);
	}
	strvec_clear(&rw);
	strvec_clear(&dirs);
	return rc < 0 ? EXIT_PASS : rc;
}
