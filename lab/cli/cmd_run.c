/*
 * numalab run: boot one topology with one kernel and run the guest tests;
 * numalab shell: the same guest with its console on this terminal.
 */
#include "cli/command.h"
#include "base/interrupt.h"
#include "cli/cmd_run.h"
#include "cli/options.h"
#include "analysis/kcidb.h"
#include "analysis/report.h"
#include "drive/run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static const char run_usage[] =
	"usage: numalab run --topo NAME|FILE [options] [-- CMD [ARG...]]\n"
	"\n"
	"Boot the topology under QEMU, run the guest tests, print their TAP and\n"
	"keep everything under OUT/<run-id>/<topology>.<kernel>/ (docs/results.md).\n"
	"\n"
	"  -- CMD [ARG...]     after the tests, run CMD in the guest as a TAP result of\n"
	"                      its own, in a view of the host's root (read-only) at\n"
	"                      the current directory: host programs run unchanged\n"
	"                      (x86_64; docs/byo.md); --tests none: CMD alone\n"
	"\n";

static const char run_tail[] =
	"\n"
	"Exit: 0 all passed, 1 a test failed or the guest crashed, 2 bad input,\n"
	"3 harness error or interrupted.\n";

static const char shell_usage[] =
	"usage: numalab shell --topo NAME|FILE [options]\n"
	"\n"
	"Boot the topology exactly as `numalab run` would and put the guest's console\n"
	"on this terminal: a shell (the host's bash, or sh) in the host-root view at\n"
	"the current directory, as `run -- CMD` runs CMD (x86_64; docs/byo.md).\n"
	"`poweroff` (or exit) ends it; Ctrl-] ends it at once.  No timeout.\n"
	"The console and the TAP header are kept under OUT/ as for run; the\n"
	"options are run's (tests run before the shell):\n"
	"\n";

static const char shell_tail[] =
	"\n"
	"Exit: 0 the guest powered off, 1 it crashed or a test of --tests failed,\n"
	"2 bad input, 3 harness error or interrupted.\n";

/* run's options a shell has no use for: it has no timeout and its TAP is the console's. */
static const char *const run_only[] = { "timeout",     "quiet", "tap-flat",         "junit",          "kcidb",
					"tap-channel", "lava",  "lava-device-type", "lava-artifacts", NULL };

static int run_only_option(const char *name)
{
	for (int i = 0; run_only[i]; i++)
		if (!strcmp(run_only[i], name))
			return 1;
	return 0;
}

#define RUN_MAX_OPTS 28

/* The one declaration of run's (and shell's) options, over c and its quiet flag. */
static void run_spec(struct run_cli *c, int *quiet, struct opt *table, struct opt_spec *spec)
{
	struct run_opts *o = &c->o;
	const struct opt all[] = {
		OPT_STRING("topo", &o->topo, "NAME|FILE", "topologies/NAME.topo or a topology file (required)"),
		OPT_STRING("kernel", &o->kernel, "NAME|PATH",
			   "a name from kernels/prebuilt.lock (default: debian),\n"
			   "a recipe (kernels/recipes), a kernel source tree (built\n"
			   "as it is, out of tree, in the cache) or a kernel image\n"
			   "file"),
		OPT_LIST("patch", &c->patches, "FILE",
			 "apply FILE's patches (git format-patch, an mbox series,\n"
			 "a mail quoting a patch) to a kernel built from source;\n"
			 "repeatable, in order (docs/byo.md)"),
		OPT_STRING("tests", &o->tests, "LIST|none", "comma-separated guest tests (default: the topology's)"),
		OPT_LIST("tests-dir", &c->tests_dirs, "DIR",
			 "each executable in DIR is a suite of the plan (sorted by\n"
			 "name); DIR/.numalab declares their conventions (format\n"
			 "tap|ltp|automake|plain, ...), NAME.numalab one suite's\n"
			 "(repeatable; docs/byo.md)"),
		OPT_LIST("rw", &c->rw, "DIR", "the guest may write DIR (repeatable; default: nothing)"),
		OPT_INT("timeout", &o->timeout_s, "S", 1, 86400,
			"whole-VM timeout in seconds, 1..86400 (default: the\ntopology's)"),
		OPT_STRING("out", &o->out, "DIR", "results root (default: results)"),
		OPT_CHOICE("accel", &o->accel, "auto|tcg|kvm", "auto|tcg|kvm",
			   "auto: KVM if a probe boot reaches /init, else TCG"),
		OPT_STRING("append", &o->append, "ARGS", "extra kernel command line"),
		OPT_STRING("guest-file", &o->guest_file, "FILE",
			   "put FILE in the guest as /lab/BASENAME (e.g.\nworkloads.conf)"),
		OPT_CHOICE("backend", &o->backend, "qemu|libvirt", "qemu|libvirt",
			   "qemu (default): QEMU directly; libvirt: a transient\n"
			   "libvirt domain (docs/libvirt.md; x86 only here)"),
		OPT_STRING("uri", &o->uri, "URI", "libvirt URI (default: $LIBVIRT_DEFAULT_URI)"),
		OPT_STRING("host-nodes", &o->host_nodes, "auto|G=H,...",
			   "bind guest node G's memory and vCPUs to host node\n"
			   "H (auto: G=G); refused (exit 2) if the host lacks H"),
		OPT_FLAG("prealloc", &o->prealloc,
			 "with --host-nodes (qemu backend): allocate all guest\nmemory on its host nodes at start"),
		OPT_STRING("disk", &o->disk, "FILE",
			   "boot from a copy-on-write overlay of the qcow2 FILE\n"
			   "(x86_64; `numalab image build debian` or any image with\n"
			   "an ext4 root): tests run with its userland, results are\n"
			   "also read back from it; adds ~2 min of libguestfs under\n"
			   "TCG (docs/images.md)"),
		OPT_CHOICE("tap-channel", &c->tap_channel, "virtio|serial", "virtio|serial",
			   "virtio (default): the TAP on a virtio console of its\n"
			   "own; serial: framed on the serial console among the\n"
			   "kernel's messages, as on a board (docs/lava.md)"),
		OPT_LAVA(&o->lava_url, &o->lava_device_type, &o->lava_artifacts),
		OPT_STRING("tap-flat", &c->tap_flat, "FILE",
			   "also write the results as flat TAP 13 (one line per\n"
			   "leaf result, named by its path: docs/results.md);\n"
			   "-: on stdout, the nested TAP then goes to stderr"),
		OPT_STRING("junit", &c->junit, "FILE", "also write them as JUnit XML"),
		OPT_STRING("kcidb", &c->kcidb, "FILE",
			   "also write the run as KCIDB JSON (KernelCI's schema;\n"
			   "docs/kcidb.md), as `numalab kcidb` does"),
		OPT_FLAG("quiet", quiet, "no TAP on stdout, no progress"),
		OPT_END,
	};
	size_t n = 0;

	_Static_assert(sizeof(all) / sizeof(all[0]) <= RUN_MAX_OPTS, "RUN_MAX_OPTS: room for every row");
	for (size_t i = 0; all[i].kind != OPT_KIND_END; i++)
		if (!o->shell || !run_only_option(all[i].name))
			table[n++] = all[i];
	table[n] = (struct opt)OPT_END;
	*spec = (struct opt_spec){ .name = o->shell ? "shell" : "run", .opts = table,
				   .usage = o->shell ? shell_usage : run_usage,
				   .tail = o->shell ? shell_tail : run_tail,
				   /* CMD's own options stay its own. */
				   .stop_at_operand = 1 };
}

void run_cli_init(struct run_cli *c, int shell)
{
	memset(c, 0, sizeof(*c));
	c->o.accel = "auto";
	c->o.shell = shell;
}

void run_cli_free(struct run_cli *c)
{
	strvec_clear(&c->rw);
	strvec_clear(&c->tests_dirs);
	strvec_clear(&c->patches);
}

void run_options_help(int shell, struct buf *out)
{
	struct run_cli c;
	struct opt table[RUN_MAX_OPTS];
	struct opt_spec spec;
	int quiet = 0;

	run_cli_init(&c, shell);
	run_spec(&c, &quiet, table, &spec);
	opt_help(&spec, out);
}

/* --lava and what goes with it: the token, the device type, the artifacts, and nothing LAVA cannot do. */
static int check_lava(struct run_cli *c, struct error *err)
{
	struct run_opts *o = &c->o;
	const char *eq;

	if (!o->lava_url)
		return o->lava_device_type || o->lava_artifacts ?
		       error_input(err, "--lava-device-type and --lava-artifacts need --lava URL") : 0;
	if (!o->lava_device_type)
		o->lava_device_type = getenv("NUMALAB_LAVA_DEVICE_TYPE");
	if (!o->lava_artifacts)
		o->lava_artifacts = getenv("NUMALAB_LAVA_ARTIFACTS");
	if (strncmp(o->lava_url, "http://", 7) && strncmp(o->lava_url, "https://", 8))
		return error_input(err, "--lava %s: not an http:// or https:// URL (the server's root, "
				   "e.g. http://lava.example.org/)", o->lava_url);
	o->lava_token = getenv("NUMALAB_LAVA_TOKEN");
	if (!o->lava_token || !*o->lava_token || strpbrk(o->lava_token, "\r\n"))
		return error_input(err, "--lava needs the API token in $NUMALAB_LAVA_TOKEN (one line; "
				   "`lava-server manage tokens add --user USER` on the server, or its web UI)");
	if (o->lava_artifacts && (!(eq = strchr(o->lava_artifacts, '=')) || o->lava_artifacts[0] != '/' ||
				  !strstr(eq, "://")))
		return error_input(err, "--lava-artifacts %s: not DIR=URL with DIR absolute (e.g. "
				   "/srv/lava-files=http://files.example.org/lava)", o->lava_artifacts);
	if (run_backend_libvirt(o) || o->disk || o->host_nodes || o->exec_argv || c->rw.nr || c->tests_dirs.nr)
		return error_input(err, "--lava runs the lab's initramfs guest as a LAVA job: leave out "
				   "--backend, --disk, --host-nodes, --rw, --tests-dir and -- CMD");
	if (c->tap_channel && !strcmp(c->tap_channel, "virtio"))
		return error_input(err, "--lava: a LAVA job sees only the serial console; leave out "
				   "--tap-channel virtio");
	return 0;
}

/* What the options' values and their combinations allow, before any work. */
static int check_run(struct run_cli *c, int argc, char **argv, int first, struct error *err)
{
	struct run_opts *o = &c->o;

	if (first < argc && !strcmp(argv[first - 1], "--") && !o->shell)
		o->exec_argv = (const char *const *)&argv[first];
	else if (first < argc)
		return error_input(err, "unexpected argument '%s'%s", argv[first],
				   o->shell ? "" : "; a command for the guest goes after --");
	else if (first > 1 && !strcmp(argv[first - 1], "--") && !o->shell)
		return error_input(err, "nothing after --; give the command for the guest");
	if (!o->topo)
		return error_input(err, "--topo is required (e.g. --topo 2node)");
	for (size_t i = 0; i < c->patches.nr; i++)
		if (access(c->patches.items[i], R_OK))
			return error_input(err, "--patch %s: %s", c->patches.items[i], strerror(errno));
	if (o->guest_file && access(o->guest_file, R_OK))
		return error_input(err, "--guest-file %s: %s", o->guest_file, strerror(errno));
	if (o->disk && access(o->disk, R_OK))
		return error_input(err, "--disk %s: %s", o->disk, strerror(errno));
	if (o->uri && !run_backend_libvirt(o))
		return error_input(err, "--uri needs --backend libvirt");
	if (o->prealloc && (!o->host_nodes || run_backend_libvirt(o)))
		return error_input(err, "--prealloc needs --host-nodes and the qemu backend");
	o->serial_tap = c->tap_channel && !strcmp(c->tap_channel, "serial");
	if (check_lava(c, err))
		return -1;
	if ((o->exec_argv || o->shell || c->rw.nr || c->tests_dirs.nr) && run_backend_libvirt(o))
		return error_input(err, "-- CMD, shell, --rw and --tests-dir need the direct QEMU backend "
				   "(leave out --backend libvirt)");
	return 0;
}

int run_options_parse(int argc, char **argv, struct run_cli *c, struct error *err)
{
	struct opt table[RUN_MAX_OPTS];
	struct opt_spec spec;
	int quiet = 0, first;

	run_spec(c, &quiet, table, &spec);
	first = opt_parse(&spec, argc, argv, err);
	if (first < 0)
		return first;
	if (check_run(c, argc, argv, first, err))
		return -1;
	c->quiet = quiet;
	c->o.patches = c->patches.nr ? strvec_argv(&c->patches) : NULL;
	c->o.nr_patches = (int)c->patches.nr;
	c->o.rw_dirs = c->rw.nr ? strvec_argv(&c->rw) : NULL;
	c->o.tests_dirs = c->tests_dirs.nr ? strvec_argv(&c->tests_dirs) : NULL;
	return 0;
}

/* Parse for the command: -1 go on, else the exit code (help printed, or the error). */
static int parse_command(int argc, char **argv, struct run_cli *c)
{
	struct error err;
	struct buf help = BUF_INIT;
	int rc = run_options_parse(argc, argv, c, &err);

	if (rc == OPT_HELP) {
		run_options_help(c->o.shell, &help);
		fputs(buf_str(&help), stdout);
		buf_free(&help);
		return EXIT_PASS;
	}
	return rc ? command_usage_error(argv[0], "%s", err.msg) : -1;
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

static int write_reports(const struct run_report *r, const struct run_cli *files, const char *cell_dir,
			 struct error *err)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	if (files->tap_flat) {
		report_flat_tap(&r->cell, 1, &b);
		rc = write_report(files->tap_flat, &b, err);
		b.len = 0;
	}
	if (!rc && files->junit) {
		report_junit(&r->cell, 1, r->id, &b);
		rc = write_report(files->junit, &b, err);
	}
	/* The run's directory, above its cell: none when the run never got that far. */
	if (!rc && files->kcidb && cell_dir[0]) {
		char *run_dir = xstrdup(cell_dir), *slash = strrchr(run_dir, '/');

		if (slash)
			*slash = '\0';
		b.len = 0;
		rc = kcidb_export(run_dir, NULL, &b, err) || write_report(files->kcidb, &b, err) ? -1 : 0;
		free(run_dir);
	}
	buf_free(&b);
	return rc;
}

/* A failed result: not ok, timed out or an error. */
static int nr_failed(const struct tap_summary *s)
{
	return s->failed + s->timeout + s->errors;
}

/* "N passed, N failed, N skipped", and the leaf results' when they differ, on stderr. */
static void say_counts(const struct run_outcome *out, const struct report_cell *cell)
{
	struct report_counts leaves;

	/* The leaf results, as flat TAP, JUnit and a matrix's summary count them. */
	report_count(cell, &leaves);
	fprintf(stderr, "%d passed, %d failed, %d skipped", out->summary.passed,
		nr_failed(&out->summary), out->summary.skipped);
	if (leaves.tests != out->summary.tests)
		fprintf(stderr, "; their %d results: %d passed, %d failed, %d skipped", leaves.tests,
			leaves.passed, leaves.failed + leaves.errors, leaves.skipped);
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

static int run_and_report(const char *cmd, struct run_opts *o, const struct run_cli *files)
{
	/* stdout is for the flat TAP alone when it goes there: tap-driver.sh reads it (automake recipe). */
	int echo_tap = !files->quiet && !o->shell && !(files->tap_flat && !strcmp(files->tap_flat, "-"));
	static struct command_sink quiet_sink = { NULL, "numalab: " };
	struct command_run_view view;
	struct run_outcome out;
	struct run_report report = { .tap = BUF_INIT };
	struct error err;
	int rc;

	if (lab_check_cache_env(&err) || toolroot_check_env(&err))
		return command_fail(cmd, &err);
	if (files->quiet)
		command_set_sink(&quiet_sink);
	o->view = command_run_view(&view, echo_tap, !files->quiet && !o->shell);
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
		if (interrupt_caught()) {
			fprintf(stderr, "numalab %s: interrupted by signal %d: %s\n", cmd, interrupt_caught(), err.msg);
			rc = EXIT_HARNESS;
		} else {
			fprintf(stderr, "numalab %s: %s\n", cmd, err.msg);
		}
	} else {
		/* run: the counts; shell: how it ended, and the counts of the tests it ran first. */
		if (o->shell) {
			fprintf(stderr, "numalab shell: %s: %s", o->topo, vm_end_name(out.vm.end));
			if (out.summary.tests) {
				fputs("; tests: ", stderr);
				say_counts(&out, &report.cell);
			}
			fprintf(stderr, " (%s, %.1f s) -> %s\n", vm_accel_name(out.accel), out.vm.total_s,
				out.cell_dir);
			rc = (out.vm.end == VM_POWEROFF || out.vm.end == VM_ESCAPED) && !nr_failed(&out.summary) ?
			     EXIT_PASS : EXIT_FAIL;
		} else {
			fprintf(stderr, "numalab run: %s: ", o->topo);
			say_counts(&out, &report.cell);
			fprintf(stderr, " (%s, %s, %.1f s) -> %s\n", vm_end_name(out.vm.end),
				vm_accel_name(out.accel), out.vm.total_s, out.cell_dir);
		}
		/* Stopped by a signal: not the kernel's verdict but the lab's, as matrix, try, mutate. */
		if (out.interrupted) {
			fprintf(stderr, "numalab %s: interrupted by signal %d\n", cmd, out.interrupted);
			rc = EXIT_HARNESS;
		}
	}
	if (files->tap_flat && !strcmp(files->tap_flat, "-") && report.cell.tap)
		fwrite(report.cell.tap, 1, report.cell.tap_len, stderr);
	if (write_reports(&report, files, out.cell_dir, &err))
		rc = command_fail(cmd, &err);
	buf_free(&report.tap);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli c;
	int rc;

	run_cli_init(&c, 0);
	rc = parse_command(argc, argv, &c);
	if (rc < 0)
		rc = run_and_report("run", &c.o, &c);
	run_cli_free(&c);
	return rc;
}

int cmd_shell(int argc, char **argv)
{
	struct run_cli c;
	int rc;

	run_cli_init(&c, 1);
	rc = parse_command(argc, argv, &c);
	if (rc < 0) {
		fprintf(stderr, "numalab shell: booting %s; `poweroff` or Ctrl-] ends it\n", c.o.topo);
		raw_terminal();
		rc = run_and_report("shell", &c.o, &c);
	}
	run_cli_free(&c);
	return rc;
}
