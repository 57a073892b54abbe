/*
 * numalab bench: how long a run takes and what the runner adds.
 *
 * Each repetition runs the cell through the runner (`numalab run`'s code),
 * then boots the very same QEMU argv by hand (console and TAP to plain files,
 * no runner in between) as the baseline, alternating so host load drifts
 * hit both alike.  Reports medians and runner/baseline as a ratio.
 */
#include "cli/command.h"
#include "cli/options.h"
#include "boot/image.h"
#include "base/interrupt.h"
#include "base/proc.h"
#include "drive/run.h"
#include "host/toolroot.h"
#include "results/meta.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char usage[] =
	"usage: numalab bench --topo NAME|FILE [--kernel K] [--reps N] [--out DIR]\n"
	"       numalab bench --topo NAME|FILE --kernel K --against K2 [--reps N]\n"
	"       numalab bench --topo NAME|FILE --accel-choice [--reps N]\n"
	"       numalab bench --topo NAME|FILE --backend libvirt [--uri URI] [--reps N]\n"
	"       numalab bench --topo NAME|FILE --lava URL [--reps N]\n"
	"       numalab bench --kernel-build RECIPE --patched RECIPE [--arch ARCH]\n"
	"\n"
	"Measure boot-to-first-TAP (and the share of it before the kernel's clock\n"
	"started: QEMU and firmware), total wall time of a run, and the runner's\n"
	"overhead as a ratio against the same QEMU argv run by hand (TCG here,\n"
	"whatever the probe picks elsewhere), and the runner's peak RSS.  Default 3\n"
	"repetitions.\n"
	"\n"
	"--against K2: boot-to-first-TAP of --kernel K against K2, alternately after\n"
	"one uncounted run of each, and K2/K as the speed-up (the lab's kernel\n"
	"against Debian's).\n"
	"\n"
	"--accel-choice: what --accel auto costs: a run with --accel tcg, one with\n"
	"auto after the cached verdicts are removed (the probe runs), and one with\n"
	"the verdict cached; the cached run's ratio to the tcg one, and the first\n"
	"probe's cost.\n"
	"\n"
	"--backend libvirt: each repetition runs the cell through both backends and\n"
	"reports libvirt's per-VM overhead as ratios to the direct one: start to\n"
	"first TAP (domain creation + boot), the guest's last TAP byte (it powers\n"
	"off) to the VM gone, and the whole run.\n"
	"\n"
	"--lava URL: each repetition runs the cell here (TCG) and as a job on that\n"
	"LAVA server ($NUMALAB_LAVA_TOKEN; docs/lava.md), and reports the whole run\n"
	"and the guest's part (QEMU here, the job's run there) as LAVA/local ratios,\n"
	"LAVA's queue time and the worker each job ran on.\n"
	"\n"
	"--kernel-build: in a scratch cache (sources and toolroot shared, ccache and\n"
	"work trees empty), time a cold build of RECIPE, the incremental build of\n"
	"--patched RECIPE in its work tree, and a rebuild from scratch with the warm\n"
	"ccache (its hit rate), as ratios to the cold build.  Tens of minutes.\n"
	"\n";

/* This process's peak resident set (the runner runs in it; QEMU is a child). */
static double peak_rss_mib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The baseline: QEMU alone, same argv but files for the two channels. */
static int by_hand(const struct run_opts *o, struct run_inputs *in, enum vm_accel accel,
		   const char *dir, double *wall, struct error *err)
{
	char con[4200 + 16], tap[4200 + 16], log[4200 + 16];   /* dir (as cmd_bench() sizes it) and a file name */
	struct vm_spec spec = { .topo = &in->topo, .qemu = qemu_binary(in->topo.arch),
				.kernel = in->kernel.path, .initrd = in->initrd, .accel = accel,
				.console_file = con, .tap_file = tap };
	struct strvec argv = STRVEC_INIT;
	struct qemu_caps caps;
	int timeout = o->timeout_s ? o->timeout_s : in->topo.timeout_s, rc;
	double t0;

	snprintf(con, sizeof(con), "%s/console.log", dir);
	snprintf(tap, sizeof(tap), "%s/tap", dir);
	snprintf(log, sizeof(log), "%s/qemu.log", dir);
	if (snprintf(in->initrd, sizeof(in->initrd), "%s/initrd.cpio", dir) >= (int)sizeof(in->initrd))
		return error_input(err, "%s/initrd.cpio: longer than %zu characters; give a shorter --out",
				   dir, sizeof(in->initrd) - 1);
	if (mkdir_p(dir, err) ||
	    image_run_initrd(in->base, &(struct run_part){
				     .topo = &in->topo, .tests = (const char *const *)in->tests.items,
				     .guest_dir = in->guest_dir,
				     .test_timeout_s = timeout, .kselftest = in->kernel.selftests,
				     .guest_file = o->guest_file },
			     in->initrd, err))
		return -1;
	vm_spec_set_emulator(&spec, in->topo.arch, &in->tools, &caps);
	if (qemu_caps_probe(spec.qemu, spec.toolroot, &caps, err))
		return -1;
	vm_build_argv(&spec, &argv);
	t0 = now_s();
	rc = proc_run(strvec_argv(&argv), log, timeout, err);
	*wall = now_s() - t0;
	strvec_clear(&argv);
	if (rc < 0)
		return error_prefix(err, "baseline QEMU");
	if (rc)
		return error_set(err, "baseline QEMU exited with %d (see %s)", rc, log);
	return 0;
}

/* What of boot-to-first-TAP passed before the kernel's clock started. */
static void report_before_kernel(const struct run_inputs *in, double *before_kernel,
				 double first_tap, int reps)
{
	const char *what = in->topo.arch == TOPO_ARCH_LOONGARCH64 ? "QEMU + UEFI firmware"
			   : qemu_x86_firmware() ? "QEMU + qboot"
						 : "QEMU + SeaBIOS";
	double m = median(before_kernel, reps);

	if (m < 0) {
		printf("  before the kernel   unknown (the guest sent no boottime)\n");
		return;
	}
	printf("  before the kernel   %6.2f s  (%s: %.0f%% of boot-to-first-TAP)\n", m, what,
	       100 * m / first_tap);
}

static int bench(const struct run_opts *o, int reps)
{
	double first_tap[64], before_kernel[64], total[64], hand[64];
	struct run_inputs *in = xcalloc(1, sizeof(*in));
	struct run_outcome out;
	struct error err;
	int rc = run_prepare(o, in, &err) ? command_exit_for(&err) : EXIT_PASS;

	for (int i = 0; i < reps && rc == EXIT_PASS; i++) {
		char dir[4200];
		double t0 = now_s();

		rc = command_run_cell(o, &out, &err);
		total[i] = now_s() - t0;
		first_tap[i] = out.vm.first_tap_s;
		before_kernel[i] = out.before_kernel_s;
		snprintf(dir, sizeof(dir), "%s/baseline", out.cell_dir);
		if (rc == EXIT_PASS && by_hand(o, in, out.accel, dir, &hand[i], &err))
			rc = command_exit_for(&err);
		if (rc == EXIT_PASS)
			printf("rep %d: first TAP %.2f s, runner total %.2f s, QEMU by hand %.2f s\n",
			       i + 1, first_tap[i], total[i], hand[i]);
	}
	if (rc != EXIT_PASS) {
		fprintf(stderr, "numalab bench: %s\n", rc == EXIT_FAIL ? "the run failed; bench needs a passing run" : err.msg);
		run_inputs_free(in);
		return rc;
	}
	printf("bench %s (%s, %d reps, medians)\n", in->topo.name, vm_accel_name(out.accel), reps);
	printf("  boot-to-first-TAP   %6.2f s\n", median(first_tap, reps));
	report_before_kernel(in, before_kernel, median(first_tap, reps), reps);
	printf("  total wall (runner) %6.2f s\n", median(total, reps));
	printf("  QEMU by hand        %6.2f s\n", median(hand, reps));
	printf("  runner overhead     %6.3fx  (runner total / by hand)\n",
	       median(total, reps) / median(hand, reps));
	printf("  runner peak RSS     %6.1f MiB (its own, not QEMU's)\n", peak_rss_mib());
	run_inputs_free(in);
	return EXIT_PASS;
}

/* One run as the runner makes it: its wall time, first TAP and before-kernel share. */
static int timed_run(const struct run_opts *o, double *total, double *first_tap, double *before,
		     struct error *err)
{
	struct run_outcome out;
	double t0 = now_s();
	int rc = command_run_cell(o, &out, err);

	*total = now_s() - t0;
	if (first_tap)
		*first_tap = out.vm.first_tap_s;
	if (before)
		*before = out.before_kernel_s;
	if (rc == EXIT_FAIL)
		return error_set(err, "the run failed (%s); bench needs a passing run", out.cell_dir), EXIT_HARNESS;
	return rc;
}

/* Kernel o->kernel against `against`, alternately: boot-to-first-TAP and the speed-up. */
static int bench_against(const struct run_opts *o, const char *against, int reps)
{
	double a_first[64], a_before[64], a_total[64], b_first[64], b_before[64], b_total[64];
	double warm;
	struct run_opts other = *o;
	struct error err;
	int rc = EXIT_PASS;

	other.kernel = against;
	/*
	 * One run of each first, not counted: the first boot after a pause
	 * reads QEMU, the kernel and the images from disk (0.1-0.4 s more
	 * first TAP here), which no boot of a working session pays.
	 */
	rc = timed_run(o, &warm, NULL, NULL, &err);
	if (rc == EXIT_PASS)
		rc = timed_run(&other, &warm, NULL, NULL, &err);
	for (int i = 0; i < reps && rc == EXIT_PASS; i++) {
		rc = timed_run(o, &a_total[i], &a_first[i], &a_before[i], &err);
		if (rc == EXIT_PASS)
			rc = timed_run(&other, &b_total[i], &b_first[i], &b_before[i], &err);
		if (rc == EXIT_PASS)
			printf("rep %d: first TAP %.2f s (%s) / %.2f s (%s)\n", i + 1, a_first[i], o->kernel,
			       b_first[i], against);
		fflush(stdout);
	}
	if (rc != EXIT_PASS) {
		fprintf(stderr, "numalab bench: %s\n", err.msg);
		return rc;
	}
	printf("bench %s, kernel %s against %s (%d reps, medians)\n", o->topo, o->kernel, against, reps);
	printf("  %-12s first TAP %6.2f s  (before the kernel %5.2f s)  run %6.2f s\n", o->kernel,
	       median(a_first, reps), median(a_before, reps), median(a_total, reps));
	printf("  %-12s first TAP %6.2f s  (before the kernel %5.2f s)  run %6.2f s\n", against,
	       median(b_first, reps), median(b_before, reps), median(b_total, reps));
	printf("  speed-up     %6.2fx  (%s first TAP / %s first TAP)\n",
	       median(b_first, reps) / median(a_first, reps), against, o->kernel);
	return EXIT_PASS;
}

/* --accel auto against --accel tcg: the cached verdict's cost, and the first probe's. */
static int bench_accel_choice(const struct run_opts *o, int reps)
{
	double tcg[64], first[64], cached[64];
	struct run_opts t = *o, a = *o;
	char *verdicts = xprintf("%s/accel", lab_cache_dir());
	struct error err;
	int rc = EXIT_PASS;

	t.accel = "tcg";
	a.accel = "auto";
	for (int i = 0; i < reps && rc == EXIT_PASS; i++) {
		rc = timed_run(&t, &tcg[i], NULL, NULL, &err);
		remove_tree(verdicts);
		if (rc == EXIT_PASS)
			rc = timed_run(&a, &first[i], NULL, NULL, &err);
		if (rc == EXIT_PASS)
			rc = timed_run(&a, &cached[i], NULL, NULL, &err);
		if (rc == EXIT_PASS)
			printf("rep %d: tcg %.2f s, auto probing %.2f s, auto cached %.2f s\n", i + 1, tcg[i],
			       first[i], cached[i]);
		fflush(stdout);
	}
	free(verdicts);
	if (rc != EXIT_PASS) {
		fprintf(stderr, "numalab bench: %s\n", err.msg);
		return rc;
	}
	printf("bench %s, --accel auto against --accel tcg (%d reps, medians)\n", o->topo, reps);
	printf("  --accel tcg          %6.2f s\n", median(tcg, reps));
	printf("  --accel auto cached  %6.2f s  ratio %5.3fx to tcg\n", median(cached, reps),
	       median(cached, reps) / median(tcg, reps));
	printf("  --accel auto probing %6.2f s  first probe costs %+.2f s over the cached run\n",
	       median(first, reps), median(first, reps) - median(cached, reps));
	return EXIT_PASS;
}

/* One backend's numbers for one repetition. */
struct backend_rep {
	double first_tap, exit_after_done, total;
};

static int run_backend(const struct run_opts *base, const char *backend, struct backend_rep *r,
		       struct error *err)
{
	struct run_opts o = *base;
	struct run_outcome out;
	double t0 = now_s();
	int rc;

	o.backend = backend;
	rc = command_run_cell(&o, &out, err);
	r->total = now_s() - t0;
	r->first_tap = out.vm.first_tap_s;
	r->exit_after_done = out.vm.total_s - out.vm.last_tap_s;
	if (rc == EXIT_FAIL)
		return error_set(err, "the %s run failed (%s); bench needs a passing run", backend, out.cell_dir);
	return rc;
}

static void report_ratio(const char *what, double *direct, double *lv, int reps)
{
	double d = median(direct, reps), l = median(lv, reps);

	printf("  %-22s direct %6.2f s  libvirt %6.2f s  ratio %6.3fx  (+%.2f s)\n", what, d, l, l / d, l - d);
}

/* Both backends alternately, so host load drifts hit both alike. */
static int bench_libvirt(const struct run_opts *o, int reps)
{
	double d_first[64], d_exit[64], d_total[64], l_first[64], l_exit[64], l_total[64];
	struct error err;
	int rc = EXIT_PASS;

	for (int i = 0; i < reps && rc == EXIT_PASS; i++) {
		struct backend_rep d, l;

		rc = run_backend(o, "qemu", &d, &err);
		if (rc == EXIT_PASS)
			rc = run_backend(o, "libvirt", &l, &err);
		if (rc != EXIT_PASS)
			break;
		d_first[i] = d.first_tap, d_exit[i] = d.exit_after_done, d_total[i] = d.total;
		l_first[i] = l.first_tap, l_exit[i] = l.exit_after_done, l_total[i] = l.total;
		printf("rep %d: first TAP %.2f / %.2f s, done to exit %.2f / %.2f s, run %.2f / %.2f s (direct / libvirt)\n",
		       i + 1, d.first_tap, l.first_tap, d.exit_after_done, l.exit_after_done, d.total, l.total);
		fflush(stdout);
	}
	if (rc != EXIT_PASS) {
		fprintf(stderr, "numalab bench: %s\n", err.msg);
		return rc == EXIT_FAIL ? EXIT_HARNESS : rc;
	}
	printf("bench %s, libvirt vs direct QEMU (%d reps, medians)\n", o->topo, reps);
	report_ratio("start to first TAP", d_first, l_first, reps);
	report_ratio("last TAP to VM gone", d_exit, l_exit, reps);
	report_ratio("whole run", d_total, l_total, reps);
	return EXIT_PASS;
}

/* The LAVA run's meta value of key ("" none). */
static void lava_meta(const char *cell_dir, const char *key, char *out, size_t cap)
{
	struct buf meta = BUF_INIT;
	struct error ignored;

	out[0] = '\0';
	if (!meta_read(cell_dir, &meta, &ignored))
		meta_copy(buf_str(&meta), key, out, cap);
	buf_free(&meta);
}

/* The cell here and on LAVA, alternately: LAVA's cost per cell as ratios. */
static int bench_lava(const struct run_opts *o, int reps)
{
	double h_total[64], h_guest[64], l_total[64], l_guest[64], l_queue[64];
	struct error err;
	int rc = EXIT_PASS;

	for (int i = 0; i < reps && rc == EXIT_PASS; i++) {
		struct run_opts here = *o, lava = *o;
		struct run_outcome out;
		char queued[32], worker[128], device[128];
		double t0 = now_s();

		here.lava_url = NULL;
		here.accel = "tcg";
		rc = command_run_cell(&here, &out, &err);
		h_total[i] = now_s() - t0;
		h_guest[i] = out.vm.total_s;
		if (rc != EXIT_PASS)
			break;
		t0 = now_s();
		rc = command_run_cell(&lava, &out, &err);
		l_total[i] = now_s() - t0;
		l_guest[i] = out.vm.total_s;
		if (rc != EXIT_PASS)
			break;
		lava_meta(out.cell_dir, META_LAVA_TIME_QUEUED, queued, sizeof(queued));
		lava_meta(out.cell_dir, META_LAVA_WORKER, worker, sizeof(worker));
		lava_meta(out.cell_dir, META_LAVA_DEVICE, device, sizeof(device));
		l_queue[i] = strtod(queued, NULL);
		printf("rep %d: run %.2f / %.2f s, guest %.2f / %.2f s (here / LAVA), queued %.1f s, on %s (worker %s)\n",
		       i + 1, h_total[i], l_total[i], h_guest[i], l_guest[i], l_queue[i], device, worker);
		fflush(stdout);
	}
	if (rc != EXIT_PASS) {
		fprintf(stderr, "numalab bench: %s\n", rc == EXIT_FAIL ? "a run failed; bench needs passing runs" : err.msg);
		return rc == EXIT_FAIL ? EXIT_HARNESS : rc;
	}
	printf("bench %s, LAVA job vs local run (%d reps, medians)\n", o->topo, reps);
	printf("  %-22s local %6.2f s  LAVA %6.2f s  ratio %6.3fx\n", "whole run", median(h_total, reps),
	       median(l_total, reps), median(l_total, reps) / median(h_total, reps));
	printf("  %-22s local %6.2f s  LAVA %6.2f s  ratio %6.3fx\n", "guest (QEMU / job run)",
	       median(h_guest, reps), median(l_guest, reps), median(l_guest, reps) / median(h_guest, reps));
	printf("  %-22s %6.2f s\n", "LAVA queue", median(l_queue, reps));
	return EXIT_PASS;
}

/* ---- kernel builds ---- */

extern char **environ;

struct kbench {
	const char *arch;
	char cache[PATH_MAX];       /* the scratch NUMALAB_CACHE */
	char toolroot[PATH_MAX];    /* LoongArch: where ccache runs */
	struct strvec env;
};

/* Symlink every entry of the real cache's dir into the scratch cache's, but those named skip*. */
static int link_entries(const struct kbench *kb, const char *dir, const char *skip, struct error *err)
{
	char *real = xprintf("%s/%s", lab_cache_dir(), dir), *scratch = xprintf("%s/%s", kb->cache, dir);
	DIR *d = opendir(real);
	struct dirent *e;
	int rc = mkdir_p(scratch, err);

	while (!rc && d && (e = readdir(d))) {
		char *from = xprintf("%s/%s", real, e->d_name), *to = xprintf("%s/%s", scratch, e->d_name);

		if (e->d_name[0] != '.' && (!skip || strncmp(e->d_name, skip, strlen(skip))) && symlink(from, to))
			rc = error_set(err, "symlink %s: %s", to, strerror(errno));
		free(from);
		free(to);
	}
	if (d)
		closedir(d);
	free(real);
	free(scratch);
	return rc;
}

/* Share what is fetched or built once (sources, prebuilt kernels, toolroot, apt), not recipe builds. */
static int kbench_scratch(struct kbench *kb, struct error *err)
{
	return link_entries(kb, "toolroot", NULL, err) || link_entries(kb, "apt", NULL, err) ||
	       link_entries(kb, "kernels", "recipe-", err) ? -1 : 0;
}

static int kbench_build(struct kbench *kb, const char *recipe, double *secs, struct error *err)
{
	char *self = xprintf("%s/numalab", lab_root()), *log = xprintf("%s/bench.log", kb->cache);
	const char *argv[] = { self, "kernel", "build", recipe, "--arch", kb->arch, NULL };
	double t0 = now_s();
	int rc;

	fprintf(stderr, "numalab bench: building %s for %s (log %s)\n", recipe, kb->arch, log);
	rc = proc_run_logged("numalab kernel build", argv, NULL, strvec_argv(&kb->env), log, err);
	*secs = now_s() - t0;
	free(self);
	free(log);
	return rc;
}

/* ccache's hits / (hits + misses) in the scratch cache, in %; "-z" zeroes instead. */
static double kbench_ccache(struct kbench *kb, const char *op)
{
	const char *argv[] = { "ccache", op, NULL };
	struct strvec full = STRVEC_INIT;
	struct error err;
	char out[16384], *dir = xprintf("%s/ccache", kb->cache);
	const char *p;
	long hits = 0, misses = 0, n;

	toolroot_argv(kb->toolroot, argv, &full);
	out[0] = '\0';
	setenv("CCACHE_DIR", dir, 1);
	if (proc_capture(strvec_argv(&full), out, sizeof(out), &err)) {
		/* No statistics: out keeps what ccache printed, if anything; missing counts are 0. */
	}
	unsetenv("CCACHE_DIR");
	for (p = out; *p; p = next_line(p)) {
		if (sscanf(p, "direct_cache_hit %ld", &n) == 1 || sscanf(p, "preprocessed_cache_hit %ld", &n) == 1)
			hits += n;
		else if (sscanf(p, "cache_miss %ld", &n) == 1)
			misses += n;
	}
	strvec_clear(&full);
	free(dir);
	return hits + misses ? 100.0 * (double)hits / (double)(hits + misses) : -1;
}

static int kbench_run(struct kbench *kb, const char *recipe, const char *patched, struct error *err)
{
	double cold, incremental, warm, hit_rate;
	char *kbuild = xprintf("%s/kbuild", kb->cache), *kernels = xprintf("%s/kernels", kb->cache);
	int rc = kbench_build(kb, recipe, &cold, err) || kbench_build(kb, patched, &incremental, err);

	if (!rc) {
		kbench_ccache(kb, "-z");
		remove_tree(kbuild);
		remove_tree(kernels);
		rc = link_entries(kb, "kernels", "recipe-", err) || kbench_build(kb, recipe, &warm, err);
	}
	if (!rc) {
		hit_rate = kbench_ccache(kb, "--print-stats");
		printf("bench kernel build %s / %s (%s)\n", recipe, patched, kb->arch);
		printf("  cold build (empty ccache)     %7.1f s  1.000x\n", cold);
		printf("  %-29s %7.1f s  %.3fx\n", "incremental (patch series)", incremental, incremental / cold);
		printf("  rebuild with warm ccache      %7.1f s  %.3fx  (ccache hits %.1f%%)\n", warm,
		       warm / cold, hit_rate);
	}
	free(kbuild);
	free(kernels);
	return rc;
}

static int kernel_bench(const char *recipe, const char *patched, const char *arch)
{
	struct kbench kb = { .arch = arch, .env = STRVEC_INIT };
	struct toolroot_tools tools;
	struct error err;
	int rc = 0;

	snprintf(kb.cache, sizeof(kb.cache), "%s/bench-kbuild", lab_cache_dir());
	if (strcmp(arch, "x86_64") && !(rc = toolroot_tools(&tools, 0, &err)))
		snprintf(kb.toolroot, sizeof(kb.toolroot), "%s", tools.root);
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "NUMALAB_CACHE=", 14))
			strvec_push(&kb.env, *e);
	strvec_pushf(&kb.env, "NUMALAB_CACHE=%s", kb.cache);
	remove_tree(kb.cache);
	if (!rc)
		rc = kbench_scratch(&kb, &err) || kbench_run(&kb, recipe, patched, &err);
	remove_tree(kb.cache);
	strvec_clear(&kb.env);
	return rc ? command_fail("bench", &err) : EXIT_PASS;
}

/* The measurement the options ask for (operands: any given). */
static int bench_command(struct run_opts *o, const char *build, const char *patched, const char *arch,
			 const char *against, int accel_choice, int reps, int operands)
{
	if (build && patched && !o->topo && !operands)
		return kernel_bench(build, patched, arch);
	if (!o->topo || build || patched || operands)
		return command_usage_error("bench", "give --topo NAME, or --kernel-build R --patched R");
	if (o->backend && !strcmp(o->backend, "libvirt"))
		return bench_libvirt(o, reps);
	if (o->lava_url) {
		struct matrix_lava lava = { o->lava_url, NULL, NULL };
		int rc;

		if ((rc = command_lava_check("bench", &lava)) >= 0)
			return rc;
		o->lava_token = getenv("NUMALAB_LAVA_TOKEN");
		o->lava_device_type = lava.device_type;
		o->lava_artifacts = lava.artifacts;
		return bench_lava(o, reps);
	}
	if (o->uri)
		return command_usage_error("bench", "--uri needs --backend libvirt");
	if (against && !o->kernel)
		return command_usage_error("bench", "--against %s needs --kernel K to compare with", against);
	if (against)
		return bench_against(o, against, reps);
	if (accel_choice)
		return bench_accel_choice(o, reps);
	return bench(o, reps);
}

int cmd_bench(int argc, char **argv)
{
	struct run_opts o = { .accel = "auto", .out = "results/bench" };
	const char *build = NULL, *patched = NULL, *arch = "x86_64", *against = NULL;
	int rc, first, reps = 3, accel_choice = 0;
	const struct opt opts[] = {
		OPT_STRING("topo", &o.topo, "NAME|FILE", "the topology to boot"),
		OPT_STRING("kernel", &o.kernel, "K", "its kernel, as `numalab run --kernel` (default: debian)"),
		OPT_INT("reps", &reps, "N", 1, 64, "repetitions, 1..64 (default 3)"),
		OPT_STRING("out", &o.out, "DIR", "results root (default: results/bench)"),
		OPT_STRING("against", &against, "K2", "compare --kernel K's boot with K2's"),
		OPT_FLAG("accel-choice", &accel_choice, "what --accel auto costs"),
		OPT_CHOICE("backend", &o.backend, "qemu|libvirt", "qemu|libvirt",
			   "libvirt: libvirt's per-VM overhead"),
		OPT_STRING("uri", &o.uri, "URI", "libvirt URI (default: $LIBVIRT_DEFAULT_URI)"),
		OPT_STRING("lava", &o.lava_url, "URL", "a LAVA job against a local run ($NUMALAB_LAVA_TOKEN)"),
		OPT_STRING("kernel-build", &build, "RECIPE", "time builds of RECIPE"),
		OPT_STRING("patched", &patched, "RECIPE", "the incremental build after --kernel-build"),
		OPT_CHOICE("arch", &arch, "ARCH", "x86_64|loongarch64|loongarch",
			   "the kernel builds' arch: x86_64 (default) or\nloongarch64 (also: loongarch)"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "bench", .usage = usage, .opts = opts };

	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	if (!strcmp(arch, "loongarch"))
		arch = "loongarch64";
	interrupt_catch();
	rc = bench_command(&o, build, patched, arch, against, accel_choice, reps, first < argc);
	/* A signal stops the boots and builds: what failed after it is the signal's doing. */
	if (interrupt_caught() && rc != EXIT_USAGE) {
		fprintf(stderr, "numalab bench: interrupted by signal %d\n", interrupt_caught());
		rc = EXIT_HARNESS;
	}
	return rc;
}
