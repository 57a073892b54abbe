#include "drive/run.h"
#include "base/progress.h"
#include "model/labdata.h"
#include "boot/hostnuma.h"
#include "boot/disk.h"
#include "boot/image.h"
#include "kernel/pin.h"
#include "kernel/resolve.h"
#include "base/interrupt.h"
#include "base/proc.h"
#include "results/meta.h"
#include "results/results.h"
#include "host/toolroot.h"
#include "boot/vm_libvirt.h"
#include "boot/lava_job.h"
#include "drive/lava_run.h"
#include "results/serialtap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__loongarch__)
#define HOST_ARCH TOPO_ARCH_LOONGARCH64
#else
#define HOST_ARCH TOPO_ARCH_X86_64
#endif
/* The guest needs this long after its last test to report and power off. */
#define GUEST_SLACK_S 20

/* Everything one cell's streams write into. */
struct cell {
	const struct run_opts *o;
	struct vm_libvirt *libvirt;   /* NULL: the direct QEMU backend */
	struct lava_job_state *lava;  /* the cell's LAVA job; NULL: run here */
	struct tap_parser tap;
	struct tap_walker *walk;      /* over tap's lines: the progress shows the running suite */
	FILE *tap_file;
	double start;
	int write_errno;         /* the first failed write to tap_file (a full disk) */
};

/* A new phase, or NULL: the clock moved (the caller's view shows it). */
static void say_progress(struct cell *c, const char *phase)
{
	const struct run_view *v = c->o->view;

	if (v && v->phase)
		v->phase(v->ctx, now_s() - c->start, phase);
}

static void show_tap_line(const struct cell *c, const char *line)
{
	const struct run_view *v = c->o->view;

	if (v && v->tap_line)
		v->tap_line(v->ctx, line);
}

static void on_progress(void *ctx, const char *phase)
{
	say_progress(ctx, phase);
}

static void on_suite(void *ctx, const struct tap_node *n)
{
	char phase[160];

	if (n->depth)
		return;
	snprintf(phase, sizeof(phase), "running %.100s", n->text);
	say_progress(ctx, phase);
}

static const struct tap_walk_ops progress_ops = { .on_suite = on_suite };

static void on_tap_line(void *ctx, const char *line)
{
	struct cell *c = ctx;

	fprintf(c->tap_file, "%s\n", line);
	if (fflush(c->tap_file) && !c->write_errno)
		c->write_errno = errno;
	show_tap_line(c, line);
	tap_walker_line(c->walk, line);
}

/* A fresh parser (and its walker) for the cell's TAP stream. */
static void start_tap(struct cell *c)
{
	tap_walker_end(c->walk);
	tap_init(&c->tap);
	c->tap.on_line = on_tap_line;
	c->tap.ctx = c;
	c->walk = tap_walker_new(&progress_ops, c);
}

static void on_tap_bytes(void *ctx, const char *data, size_t len)
{
	struct cell *c = ctx;

	tap_feed(&c->tap, data, len);
}

/*
 * Split "a,b,c" into names; each must be a guest suite, built for arch
 * (its binary in guest_dir).  "none": no lab test.
 */
static int plan_tests(const char *list, const char *arch, const char *guest_dir, struct strvec *names,
		      struct error *err)
{
	char *copy = xstrdup(list), *save = NULL, suite[4096];
	int rc = 0;

	if (!strcmp(list, "none")) {
		free(copy);
		return 0;
	}
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		char *path = xprintf("%s/tests/%s", guest_dir, t);

		if (lab_data_find(lab_root(), LAB_DATA_SUITE, t, suite, sizeof(suite), err))
			rc = -1;
		else if (!file_exists(path))
			rc = error_input(err, "suite '%s' is not built for %s; run `make guest GUEST_ARCH=%s` first",
					 t, arch, arch);
		else
			strvec_push(names, t);
		free(path);
	}
	free(copy);
	if (!rc && !names->nr)
		rc = error_input(err, "empty test list; give --tests NAME[,NAME...] or --tests none");
	return rc;
}

/* "exec: numactl --hardware": the command as a TAP name ('#' and control bytes become '?'). */
static void exec_tap_name(const char *const *argv, char *out, size_t cap)
{
	size_t len = (size_t)snprintf(out, cap, "exec:");

	for (int i = 0; argv[i] && len + 1 < cap; i++) {
		out[len++] = ' ';
		for (const char *c = argv[i]; *c && len + 1 < cap; c++)
			out[len++] = (unsigned char)*c < ' ' || *c == '#' || *c == 0x7f ? '?' : *c;
	}
	out[len] = '\0';
	if (len + 1 >= cap)
		memcpy(out + cap - 4, "...", 4);
}

static int add_share(struct run_inputs *p, const char *path, int writable, enum share_view view,
		     const char *guest_path, struct error *err)
{
	struct guest_share *sh = &p->shares[p->nr_shares];

	if (p->nr_shares == VM_MAX_SHARES)
		return error_input(err, "more than %d shared directories; give fewer --rw", VM_MAX_SHARES - 3);
	if (strchr(path, '\n'))
		return error_input(err, "%s: a path with a newline cannot be shared", path);
	strvec_push(&p->share_paths, path);
	sh->vm.path = p->share_paths.items[p->share_paths.nr - 1];
	strvec_pushf(&p->share_paths, "numalab.%d", p->nr_shares);
	sh->vm.tag = p->share_paths.items[p->share_paths.nr - 1];
	sh->vm.writable = writable;
	sh->view = view;
	strvec_push(&p->share_paths, guest_path);
	sh->guest_path = p->share_paths.items[p->share_paths.nr - 1];
	p->nr_shares++;
	return 0;
}

static int shorter_first(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return (x > y) - (x < y);
}

/* sub is dir or below it. */
static int path_within(const char *sub, const char *dir)
{
	size_t n = strlen(dir);

	return !strcmp(dir, "/") || (!strncmp(sub, dir, n) && (sub[n] == '\0' || sub[n] == '/'));
}

/*
 * The host-root view of -- CMD and the shell: the host's / read-only, the
 * current directory at its own path (read-only unless an --rw covers it),
 * each --rw directory writable.  x86_64 only: a LoongArch guest cannot run
 * the host's programs, and its QEMU runs chrooted in the toolroot.
 */
static int plan_shares(const struct run_opts *o, struct run_inputs *p, struct error *err)
{
	struct strvec rw = STRVEC_INIT;
	int cwd_covered = 0, rc = 0;
	struct stat st;

	if (!o->exec_argv && !o->shell && !o->rw_dirs)
		return 0;
	if (p->topo.arch != TOPO_ARCH_X86_64)
		return error_input(err, "%s is a %s shape: `-- CMD`, `shell` and --rw share the host's root, "
				   "whose programs are x86_64, and its QEMU runs in the toolroot; use an x86_64 "
				   "shape, or put %s programs in a --tests-dir (docs/byo.md)", p->topo.path,
				   topo_arch_name(p->topo.arch), topo_arch_name(p->topo.arch));
	if (o->disk)
		return error_input(err, "--disk boots the disk's own userland; `-- CMD`, `shell` and --rw "
				   "need the initramfs guest (leave out --disk)");
	if (!getcwd(p->cwd, sizeof(p->cwd)))
		return error_set(err, "getcwd: %s", strerror(errno));
	if (add_share(p, "/", 0, SHARE_IN_HOST_VIEW, "/", err))
		return -1;
	for (int i = 0; o->rw_dirs && o->rw_dirs[i] && !rc; i++) {
		char real[4096];

		if (!realpath(o->rw_dirs[i], real))
			rc = error_input(err, "--rw %s: %s", o->rw_dirs[i], strerror(errno));
		else if (stat(real, &st) || !S_ISDIR(st.st_mode))
			rc = error_input(err, "--rw %s: not a directory", o->rw_dirs[i]);
		else if (!strcmp(real, "/"))
			rc = error_input(err, "--rw /: the host's root stays read-only; give the directories "
					 "the guest may write");
		if (rc)
			break;
		cwd_covered |= path_within(p->cwd, real);
		strvec_push(&rw, real);
	}
	/* Its own share: the guest's tmpfs on /tmp, /run would hide it otherwise. */
	if (!rc && !cwd_covered && strcmp(p->cwd, "/"))
		rc = add_share(p, p->cwd, 0, SHARE_IN_HOST_VIEW, p->cwd, err);
	/* Mounted in this order: a directory before those inside it. */
	if (rw.nr)
		qsort(rw.items, rw.nr, sizeof(rw.items[0]), shorter_first);
	for (size_t i = 0; i < rw.nr && !rc; i++)
		rc = add_share(p, rw.items[i], 1, SHARE_IN_HOST_VIEW, rw.items[i], err);
	strvec_clear(&rw);
	return rc;
}

/* A file the guest (root) can execute: a regular file with an x bit. */
static int is_program(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/*
 * -- CMD's program, found before anything is built or booted (exit 2, not
 * a failed test after the boot): a path, from the current directory where
 * the guest runs it, to a program; or a name the guest's PATH finds: one
 * of the lab's own guest programs (numactl, busybox; the guest looks
 * there first) or a program in a directory of that PATH (as
 * images/init/init.h's VIEW_PATH_ENV) in the host's root.
 */
static int check_exec(const char *cmd, const struct run_inputs *p, struct error *err)
{
	static const char *const view_path[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
						 "/sbin", "/bin", NULL };
	int found = 0;

	if (strchr(cmd, '/')) {
		if (is_program(cmd))
			return 0;
		return error_input(err, "-- %s: %s%s%s; give the path of a program, absolute or from the "
				   "current directory (the guest runs it there)", cmd,
				   access(cmd, F_OK) ? strerror(errno) : "not an executable file",
				   cmd[0] == '/' ? "" : " in ", cmd[0] == '/' ? "" : p->cwd);
	}
	for (int i = 0; view_path[i] && !found; i++) {
		char *path = xprintf("%s/%s", view_path[i], cmd);

		found = is_program(path);
		free(path);
	}
	if (!found && (found = image_guest_program(lab_root(), p->topo.arch, cmd, err)) < 0)
		return -1;
	if (found)
		return 0;
	return error_input(err, "-- %s: no such program in the guest: neither one of the lab's guest programs "
			   "(images/%s.manifest: numactl, busybox) nor in /usr/local/sbin, /usr/local/bin, "
			   "/usr/sbin, /usr/bin, /sbin or /bin of the host's root; give its path (./%s for one "
			   "in the current directory; `busybox %s` for an applet)", cmd,
			   topo_arch_name(p->topo.arch), cmd, cmd);
}

/*
 * modules.dep and the other indexes modprobe reads: Debian's package leaves
 * them to its postinst, so depmod writes them into the cached tree once
 * (through a base directory whose lib/modules/RELEASE links to the tree;
 * depmod renames each file into place, so runs racing here agree).  With
 * builtin (the kernel's modules.builtin, "" none) copied in first, modprobe
 * and LTP's tst_check_driver() know the built-in drivers too; a tree
 * indexed without it (an empty modules.builtin.bin, the last step's
 * output) is indexed again.
 */
static int module_index(const char *modules, const char *release, const char *builtin,
			struct error *err)
{
	char *dep = xprintf("%s/modules.dep", modules), *base = xprintf("%s.depmod-%d", modules, (int)getpid());
	char *libdir = xprintf("%s/lib/modules", base), *link = xprintf("%s/%s", libdir, release);
	char *tree_builtin = xprintf("%s/modules.builtin", modules);
	char *builtin_index = xprintf("%s/modules.builtin.bin", modules);
	const char *argv[] = { "depmod", "-b", base, release, NULL };
	struct stat st;
	int rc = 0;

	if (!file_exists(dep) || (builtin[0] && (stat(builtin_index, &st) || !st.st_size))) {
		rc = builtin[0] ? copy_file(builtin, tree_builtin, err) : 0;
		if (!rc)
			rc = mkdir_p(libdir, err);
		if (!rc && symlink(modules, link))
			rc = error_set(err, "symlink %s: %s", link, strerror(errno));
		if (!rc && proc_run(argv, NULL, 300, err))
			rc = error_set(err, "depmod -b %s %s failed; install kmod (numalab setup)", base, release);
		remove_tree(base);
	}
	free(tree_builtin);
	free(builtin_index);
	free(dep);
	free(base);
	free(libdir);
	free(link);
	return rc;
}

/*
 * A modular kernel (Debian's): its 9p stack into the initramfs, and its
 * whole module tree shared at /lib/modules/RELEASE for modprobe; its
 * pinned .config for /boot/config-RELEASE.
 */
static int plan_modules(const struct run_opts *o, struct run_inputs *p, struct error *err)
{
	static const char *const ninep[] = { "9p", "9pnet_virtio", NULL };
	char modules[4096], builtin[4096];
	const char *release;

	if (!o->exec_argv && !o->shell && !o->rw_dirs && !o->tests_dirs)
		return 0;
	if (p->topo.arch != TOPO_ARCH_X86_64 || o->disk)
		return 0;
	if (kernel_config(&p->kernel, p->kernel_config, sizeof(p->kernel_config), err) ||
	    kernel_modules(&p->kernel, modules, sizeof(modules), err) ||
	    kernel_builtin(&p->kernel, builtin, sizeof(builtin), err))
		return -1;
	if (!modules[0])
		return 0;
	if (disk_modules_cpio(modules, ninep, p->modules_cpio, sizeof(p->modules_cpio), err))
		return -1;
	release = strrchr(modules, '/') ? strrchr(modules, '/') + 1 : modules;
	char *guest = xprintf("/lib/modules/%s", release);
	int rc = module_index(modules, release, builtin, err) || add_share(p, modules, 0, SHARE_IN_LAB, guest, err);

	free(guest);
	return rc ? -1 : 0;
}

static enum vm_accel choose_accel(const struct run_opts *o, const struct vm_spec *spec,
				  char *why, size_t cap)
{
	if (!strcmp(o->accel, "tcg")) {
		snprintf(why, cap, "tcg: asked for with --accel tcg");
		return VM_ACCEL_TCG;
	}
	if (!strcmp(o->accel, "kvm")) {
		snprintf(why, cap, "kvm: asked for with --accel kvm");
		return VM_ACCEL_KVM;
	}
	if (spec->topo->arch != HOST_ARCH) {
		snprintf(why, cap, "tcg: a %s guest on a %s host", topo_arch_name(spec->topo->arch),
			 topo_arch_name(HOST_ARCH));
		return VM_ACCEL_TCG;
	}
	return vm_probe_accel(spec, why, cap);
}

/*
 * First TAP (host clock) minus the guest's CLOCK_BOOTTIME when /init sent it:
 * the time before the kernel's clock started.  -1 when either is missing.
 */
static double before_kernel(const struct vm_result *vm, const struct tap_parser *tap)
{
	const char *boottime = tap_info_get(tap, "boottime_s");
	char *end;
	double guest_s = boottime ? strtod(boottime, &end) : -1;

	if (vm->first_tap_s < 0 || !boottime || *end || guest_s < 0 || guest_s > vm->first_tap_s)
		return -1;
	return vm->first_tap_s - guest_s;
}

/* "efi-shell: LINE; LINE" from the scanner's report. */
static void firmware_reason(const struct console_scan *scan, char *out, size_t cap)
{
	const char *line = scan->report;
	size_t len = (size_t)snprintf(out, cap, "%s:", console_finding_name(scan->finding));

	while (*line && len < cap) {
		int n = (int)strcspn(line, "\n");

		len += (size_t)snprintf(out + len, cap - len, "%s %.*s", line == scan->report ? "" : ";",
					n, line);
		line += n + (line[n] == '\n');
	}
}

/* "qemu killed by signal 9" / "qemu exited with status 1" / KVM's failure. */
static void qemu_failure(const struct vm_result *vm, char *out, size_t cap)
{
	if (vm->kvm_error[0])
		snprintf(out, cap, "KVM cannot run this guest here (qemu: %s); use --accel tcg or auto",
			 vm->kvm_error);
	else if (vm->qemu_status > 128)
		snprintf(out, cap, "qemu killed by signal %d (not by numalab)", vm->qemu_status - 128);
	else
		snprintf(out, cap, "qemu exited with status %d", vm->qemu_status);
}

/* Close the TAP stream for a guest that did not finish its plan, or whose console showed a crash. */
static void close_unfinished(struct cell *c, const struct vm_result *vm, int timeout_s,
			     const struct strvec *tests)
{
	char reason[512];
	enum tap_status st = TAP_ERROR;

	if (c->tap.done && vm->end == VM_POWEROFF)
		return;
	switch (vm->end) {
	case VM_TIMEOUT:
		st = TAP_TIMEOUT;
		snprintf(reason, sizeof(reason), "vm timeout after %d s", timeout_s);
		break;
	case VM_CRASHED:
		snprintf(reason, sizeof(reason), "kernel %s: %.*s", console_finding_name(vm->scan.finding),
			 (int)strcspn(vm->scan.report, "\n"), vm->scan.report);
		break;
	case VM_FIRMWARE:
		firmware_reason(&vm->scan, reason, sizeof(reason));
		break;
	case VM_INTERRUPTED:
		snprintf(reason, sizeof(reason), "runner interrupted by signal %d", interrupt_caught());
		break;
	case VM_QEMU_FAILED:
		qemu_failure(vm, reason, sizeof(reason));
		break;
	default:
		snprintf(reason, sizeof(reason), "guest stopped before finishing (qemu status %d)",
			 vm->qemu_status);
	}
	char *added = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&added, &len);

	if (!mem)
		return;
	/* The crash report's first lines (printable: the scanner made them so). */
	if (vm->end == VM_CRASHED)
		for (const char *l = vm->scan.report; *l; l = next_line(l))
			fprintf(mem, "# console: %.*s\n", (int)strcspn(l, "\n"), l);
	fflush(mem);
	size_t before_close = len;

	tap_close(&c->tap, st, reason, (const char *const *)tests->items, (int)tests->nr, mem);
	fflush(mem);
	/*
	 * Every test had its result before the report (a KASAN report in a test
	 * that then passed, lockdep after the last test): the report is still
	 * the run's failure, as a result of its own.
	 */
	if (vm->end == VM_CRASHED && len == before_close)
		tap_add_error(&c->tap, "console", reason, mem);
	fclose(mem);
	fputs(added, c->tap_file);
	for (char *l = added; *l; l = (char *)next_line(l)) {
		char *nl = strchr(l, '\n');

		if (nl)
			*nl = '\0';
		show_tap_line(c, l);
		if (nl)
			*nl = '\n';
	}
	free(added);
}

static int write_meta(const struct cell *c, const char *cell_dir, const struct vm_spec *spec, const struct kernel *k,
		       const char *qemu_ver, const char *accel_why, const struct strvec *argv,
		       const struct run_outcome *out, const struct tap_parser *tap, int timeout_s,
		       const struct strvec *tests, struct error *err)
{
	struct buf meta = BUF_INIT, line = BUF_INIT;
	int rc;

	meta_add(&meta, META_TOPOLOGY, "%s (%s)", spec->topo->name, spec->topo->path);
	meta_add(&meta, META_ARCH, "%s", topo_arch_name(spec->topo->arch));
	meta_add(&meta, META_KERNEL, "%s %s", k->name, k->version);
	meta_add(&meta, META_KERNEL_SOURCE, "%s", k->source);
	if (k->origin[0])
		meta_add(&meta, META_KERNEL_ORIGIN, "%s", k->origin);
	if (k->recipe[0]) {
		meta_add(&meta, META_KERNEL_RECIPE, "%s", k->recipe);
		meta_add(&meta, META_KERNEL_PATCHES, "%s", k->patches[0] ? k->patches : "none");
		/* One line per patch, in order: what it is called by its author. */
		for (const char *s = k->patch_subjects; *s; s = next_line(s))
			meta_add(&meta, META_KERNEL_PATCH_SUBJECT, "%.*s", (int)strcspn(s, "\n"), s);
		meta_add(&meta, META_KERNEL_CONFIG_SHA256, "%s", k->config_sha256);
		meta_add(&meta, META_KERNEL_SELFTESTS, "%s", k->selftests[0] ? k->selftests : "none");
	}
	if (k->tree[0]) {
		meta_add(&meta, META_KERNEL_TREE, "%s", k->tree);
		meta_add(&meta, META_KERNEL_TREE_DESCRIBE, "%s", k->tree_describe[0] ? k->tree_describe : "none (not a git tree)");
		meta_add(&meta, META_KERNEL_TREE_DIFF_SHA256, "%s", k->tree_diff_sha256[0] ? k->tree_diff_sha256 :
			 k->tree_describe[0] ? "none (no uncommitted change)" : "none (not a git tree)");
	}
	meta_add(&meta, META_KERNEL_RELEASE, "%s", tap_info_get(tap, "kernel") ? tap_info_get(tap, "kernel") : "unknown");
	meta_add(&meta, META_QEMU, "%s", qemu_ver);
	if (!c->lava)
		vm_libvirt_meta(c->libvirt, spec->topo, &meta);
	if (c->lava) {
		meta_add(&meta, META_BACKEND, "lava");
		meta_add(&meta, META_LAVA_JOB, "%ld", c->lava->id);
		meta_add(&meta, META_LAVA_URL, "%s", c->lava->url);
		meta_add(&meta, META_LAVA_WORKER, "%s", c->lava->worker[0] ? c->lava->worker : "none");
		meta_add(&meta, META_LAVA_DEVICE, "%s", c->lava->device[0] ? c->lava->device : "none");
		meta_add(&meta, META_LAVA_DEVICE_TYPE, "%s", c->o->lava_device_type ? c->o->lava_device_type :
			 spec->topo->arch == TOPO_ARCH_LOONGARCH64 ? "qemu-loongarch64" : "qemu");
		meta_add(&meta, META_LAVA_HEALTH, "%s%s%s", c->lava->health[0] ? c->lava->health : "unknown",
			 c->lava->failure[0] ? ": " : "", c->lava->failure);
		meta_add(&meta, META_LAVA_TIME_QUEUED, "%.1f", c->lava->queued_s);
		meta_add(&meta, META_LAVA_TIME_RUNNING, "%.1f", c->lava->running_s);
	} else if (!c->libvirt) {
		/* Direct backend: host_numa as the libvirt one writes it, so compare tells real NUMA. */
		struct buf map = BUF_INIT;

		if (spec->host_nodes)
			hostnuma_line(spec->topo, spec->host_nodes, &map);
		meta_add(&meta, META_HOST_NUMA, "%s", spec->host_nodes ? buf_str(&map) : "none");
		buf_free(&map);
		if (spec->host_nodes) {
			meta_add(&meta, META_HOST_NUMA_VCPUS, "%s", out->vm.vcpu_pins);
			meta_add(&meta, META_HOST_NUMA_PREALLOC, "%s", spec->host_nodes->prealloc ? "yes" : "no");
		}
	}
	meta_add(&meta, META_ACCEL, "%s", accel_why);
	meta_add(&meta, META_TOOLROOT, "%s", spec->toolroot && *spec->toolroot ? spec->toolroot : "none (host tools)");
	meta_add(&meta, META_FIRMWARE, "%s", spec->firmware ? spec->firmware : "none (direct kernel boot)");
	meta_add(&meta, META_TAP_CHANNEL, "%s", out->tap_channel[0] ? out->tap_channel : "virtio");
	if (out->disk[0]) {
		meta_add(&meta, META_DISK, "%s", out->disk);
		meta_add(&meta, META_TAP_SOURCE, "%s", out->tap_source);
	}
	argv_to_line(argv->items, argv->nr, &line);
	meta_add(&meta, META_COMMAND, "%s", buf_str(&line));
	line.len = 0;
	argv_to_line(tests->items, tests->nr, &line);
	meta_add(&meta, META_TESTS, "%s", buf_str(&line));
	meta_add(&meta, META_TIMEOUT, "%d", timeout_s);
	meta_add(&meta, META_END, "%s", vm_end_name(out->vm.end));
	if (!out->retried)
		meta_add(&meta, META_RETRIED, "no");
	else if (out->retried == 1)
		meta_add(&meta, META_RETRIED, "yes: crashed before /init, console.attempt1.log");
	else
		meta_add(&meta, META_RETRIED, "yes: crashed before /init %d times, console.attempt1.log to console.attempt%d.log",
			 out->retried, out->retried);
	meta_add(&meta, META_QEMU_STATUS, "%d", out->vm.qemu_status);
	meta_add(&meta, META_CONSOLE_FINDING, "%s", console_finding_name(out->vm.scan.finding));
	meta_add(&meta, META_TIME_FIRST_TAP, "%.2f", out->vm.first_tap_s);
	meta_add(&meta, META_TIME_BEFORE_KERNEL, "%.2f", out->before_kernel_s);
	meta_add(&meta, META_TIME_TOTAL, "%.2f", out->vm.total_s);
	meta_add(&meta, META_RESULT, "%d passed, %d failed, %d skipped", out->summary.passed,
		 out->summary.failed + out->summary.timeout + out->summary.errors, out->summary.skipped);
	/* What the tests reported inside: one suite may stand for dozens of results. */
	meta_add(&meta, META_RESULT_NESTED, "%d passed, %d failed, %d skipped", out->summary.subtests_passed,
		 out->summary.subtests_failed, out->summary.subtests_skipped);
	for (int i = 0; i < tap->nr_info; i++)
		meta_add(&meta, META_GUEST, "%s: %s", tap->info[i].key, tap->info[i].value);
	rc = meta_write(cell_dir, &meta, err);
	buf_free(&meta);
	buf_free(&line);
	return rc;
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CREAT | O_CLOEXEC, 0644);
}

/*
 * A crash before /init said anything: worth a retry, not a verdict.  The
 * TAP channel's first bytes tell; with the TAP on the serial console (as on
 * a board) /init's start line in console.log does.
 */
static int early_crash(const struct vm_result *vm, const char *cell_dir, int serial_tap)
{
	struct buf con = BUF_INIT;
	struct error ignored;
	char path[4200];
	int started;

	if (vm->end != VM_CRASHED)
		return 0;
	if (!serial_tap)
		return vm->first_tap_s < 0;
	snprintf(path, sizeof(path), "%s/console.log", cell_dir);
	started = !read_file(path, &con, &ignored) &&
		  memmem(con.data, con.len, SERIALTAP_START, strlen(SERIALTAP_START)) != NULL;
	buf_free(&con);
	return !started;
}

#define BOOTS_MAX 3

/*
 * Boot again after `boots` boots, the last of which crashed before /init?
 * Once, whatever the crash.  Up to BOOTS_MAX boots when it is multi-threaded
 * TCG's text-poke race ("Oops: int3", boot/console.h): about 1 boot in 25-60
 * on a 2-core host, and CI once saw it twice in a row.  A kernel whose int3
 * oops is its own still fails: it crashes so on every boot.
 */
static int boot_again(const struct console_scan *scan, enum vm_accel accel, int boots)
{
	if (boots == 1)
		return 1;
	return boots < BOOTS_MAX && accel == VM_ACCEL_TCG && console_finding_is_int3_oops(scan);
}

/* console.log becomes console.attemptN.log: every crashed boot's console is kept. */
static void keep_crashed_console(const char *cell_dir, int boot)
{
	char from[4200], to[4200];

	snprintf(from, sizeof(from), "%s/console.log", cell_dir);
	snprintf(to, sizeof(to), "%s/console.attempt%d.log", cell_dir, boot);
	rename(from, to);
}

/* Boot the prepared cell and collect its streams. */
static int boot(struct cell *c, struct vm_spec *spec, int timeout_s, struct run_outcome *out,
		struct strvec *argv, struct error *err)
{
	int con = open_in(out->cell_dir, "console.log", O_WRONLY | O_TRUNC);
	int qlog = open_in(out->cell_dir, "qemu.log", O_WRONLY | O_TRUNC);
	struct vm_io io = { .console_fd = con, .qemu_log_fd = qlog, .on_tap = on_tap_bytes,
			   .on_progress = on_progress, .ctx = c, .interactive = c->o->shell };
	char xml[4200];
	int rc;

	snprintf(xml, sizeof(xml), "%s/domain.xml", out->cell_dir);
	rc = c->libvirt ? vm_libvirt_run(c->libvirt, spec, timeout_s, &io, &out->vm, xml, argv, err)
			: vm_run(spec, timeout_s, &io, &out->vm, argv, err);

	if (con >= 0)
		close(con);
	if (qlog >= 0)
		close(qlog);
	return rc;
}

/* Serial TAP: the frames in console.log into the TAP stream (serialtap.h), and how they came. */
static void read_serial_tap(struct cell *c, struct run_outcome *out)
{
	struct buf con = BUF_INIT, tap = BUF_INIT;
	struct serialtap_stats st;
	struct error ignored;
	char path[4200], gap[48] = "";

	snprintf(path, sizeof(path), "%s/console.log", out->cell_dir);
	if (read_file(path, &con, &ignored))
		con.len = 0;
	serialtap_extract(buf_str(&con), con.len, &tap, &st);
	tap_feed(&c->tap, buf_str(&tap), tap.len);
	if (st.gap_at >= 0)
		snprintf(gap, sizeof(gap), ", stopped at missing frame %d", st.gap_at);
	snprintf(out->tap_channel, sizeof(out->tap_channel), "serial: %d frames, %d mended, %d broken, "
		 "%d duplicates%s", st.frames, st.mended, st.broken, st.duplicates, gap);
	buf_free(&con);
	buf_free(&tap);
}

static void lava_phase(void *ctx, const char *phase)
{
	say_progress(ctx, phase);
}

/*
 * Where the LAVA workers fetch the kernel and initramfs: file:// paths here,
 * or copies under --lava-artifacts DIR (URL/RUN-ID.CELL/...).
 */
static int lava_urls(const struct run_opts *o, const struct run_inputs *p, const char *cell_dir,
		     char *kernel_url, char *initrd_url, size_t cap, char *copies, size_t copies_cap,
		     struct error *err)
{
	const char *eq = o->lava_artifacts ? strchr(o->lava_artifacts, '=') : NULL;
	const char *cell = strrchr(cell_dir, '/'), *run = cell;
	char *kernel, *initrd;
	int rc;

	copies[0] = '\0';
	if (!eq) {
		snprintf(kernel_url, cap, "file://%s", p->kernel.path);
		snprintf(initrd_url, cap, "file://%s", p->initrd);
		return 0;
	}
	while (run > cell_dir && run[-1] != '/')   /* cell_dir is ROOT/RUN-ID/TOPO.KERNEL */
		run--;
	snprintf(copies, copies_cap, "%.*s/%.*s.%s", (int)(eq - o->lava_artifacts), o->lava_artifacts,
		 (int)(cell - run), run, cell + 1);   /* RUN-ID.TOPO.KERNEL: no other cell's */
	kernel = xprintf("%s/kernel", copies);
	initrd = xprintf("%s/initrd.cpio", copies);
	rc = mkdir_p(copies, err) || copy_file(p->kernel.path, kernel, err) || copy_file(p->initrd, initrd, err);
	free(kernel);
	free(initrd);
	if (rc)
		return error_prefix(err, "--lava-artifacts");
	snprintf(kernel_url, cap, "%s/%s/kernel", eq + 1, strrchr(copies, '/') + 1);
	snprintf(initrd_url, cap, "%s/%s/initrd.cpio", eq + 1, strrchr(copies, '/') + 1);
	return 0;
}

/*
 * The cell as a LAVA job: the job's end as the guest's (a job LAVA marks
 * Incomplete is the harness's failure with LAVA's reason, never a test's;
 * a crash on its console is the kernel's), its console in console.log.
 */
static int lava_boot(struct cell *c, struct run_inputs *p, struct vm_spec *spec, int timeout_s,
		     struct run_outcome *out, struct strvec *argv, struct error *err)
{
	const struct run_opts *o = c->o;
	struct lava_server srv = { o->lava_url, o->lava_token };
	char kernel_url[4600], initrd_url[4600], copies[4600], path[4200], name[512];
	struct buf yaml = BUF_INIT, con = BUF_INIT;
	struct error ignored;
	int rc;

	memset(&out->vm, 0, sizeof(out->vm));
	out->vm.first_tap_s = out->vm.last_tap_s = out->vm.last_output_s = -1;
	out->vm.qemu_status = -1;
	if (lava_urls(o, p, out->cell_dir, kernel_url, initrd_url, sizeof(kernel_url), copies, sizeof(copies), err))
		return -1;
	snprintf(name, sizeof(name), "numalab %s %s %s", p->topo.name, p->kernel.name, o->tests ? o->tests : p->topo.tests);
	lava_job_yaml(&(struct lava_job_in){ .spec = spec, .device_type = o->lava_device_type ? o->lava_device_type :
					     p->topo.arch == TOPO_ARCH_LOONGARCH64 ? "qemu-loongarch64" : "qemu",
					     .job_name = name, .kernel_url = kernel_url, .initrd_url = initrd_url,
					     .timeout_s = timeout_s }, &yaml);
	qemu_build_argv(spec, argv);   /* for meta: the same guest a local run boots */
	snprintf(path, sizeof(path), "%s/lava-job.yaml", out->cell_dir);
	if (write_file_atomic(path, yaml.data, yaml.len, err)) {
		buf_free(&yaml);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/console.log", out->cell_dir);
	for (int attempt = 1;; attempt++) {
		say_progress(c, "submitting to LAVA");
		rc = lava_run_job(&srv, buf_str(&yaml), out->cell_dir, path, 2 * timeout_s + 600, lava_phase, c,
				  c->lava, err);
		if (rc)
			break;
		console_scan_init(&out->vm.scan);
		con.len = 0;
		if (!read_file(path, &con, &ignored))
			console_scan_feed(&out->vm.scan, buf_str(&con), con.len);
		/* As run locally: a crash before /init is booted again. */
		if (c->lava->canceled_by_us || out->vm.scan.finding == CONSOLE_CLEAN ||
		    strstr(buf_str(&con), SERIALTAP_START) || !boot_again(&out->vm.scan, spec->accel, attempt))
			break;
		keep_crashed_console(out->cell_dir, attempt);
		out->retried = attempt;
		say_progress(c, "guest crashed before /init; booting it again");
	}
	buf_free(&yaml);
	buf_free(&con);
	if (copies[0])
		remove_tree(copies);
	if (rc)
		return -1;
	out->vm.total_s = c->lava->running_s;
	if (c->lava->canceled_by_us || !strcmp(c->lava->health, "Canceled"))
		out->vm.end = VM_INTERRUPTED;
	else if (out->vm.scan.finding != CONSOLE_CLEAN && !console_finding_is_firmware(out->vm.scan.finding))
		out->vm.end = VM_CRASHED;
	else if (!strcmp(c->lava->health, "Complete"))
		out->vm.end = VM_POWEROFF;
	else
		return error_set(err, "LAVA job %ld on %s (worker %s) is %s: %s (%s); an infrastructure failure, "
				 "not a test's", c->lava->id, c->lava->device[0] ? c->lava->device : "no device",
				 c->lava->worker[0] ? c->lava->worker : "none", c->lava->health,
				 c->lava->failure[0] ? c->lava->failure : "no reason given", c->lava->url);
	return 0;
}

int run_backend_libvirt(const struct run_opts *o)
{
	return o->backend && !strcmp(o->backend, "libvirt");
}

/* The libvirt backend: connect, bind host nodes when asked; *lv stays NULL for the direct one. */
static int libvirt_connect(const struct run_opts *o, const struct topology *t, struct vm_libvirt **lv,
			   struct error *err)
{
	if (!run_backend_libvirt(o))
		return 0;
	progress("connecting to libvirt (the first time ~30 s)");
	if (vm_libvirt_open(o->uri, lv, err))
		return -1;
	if (o->host_nodes && vm_libvirt_bind_host(*lv, t, o->host_nodes, err))
		return -1;
	return 0;
}

/* --disk: the boot initramfs (/init + the kernel's virtio-blk and ext4 modules) in the cell. */
static int disk_initrd(struct run_inputs *p, struct error *err)
{
	char modules[4096], cached[4096];

	if (kernel_modules(&p->kernel, modules, sizeof(modules), err) ||
	    disk_boot_initrd(p->guest_dir, modules, "ext4", cached, sizeof(cached), err))
		return -1;
	return copy_file(cached, p->initrd, err);
}

/* --disk: the payload into overlay, a fresh overlay of the user's disk (one libguestfs launch). */
static int disk_payload(struct cell *c, const char *disk, const char *overlay,
			const struct run_inputs *p, const struct run_part *part, struct vm_spec *spec,
			struct disk_root *root, struct run_outcome *out, struct error *err)
{
	say_progress(c, "putting the tests into an overlay of the disk (libguestfs)");
	if (disk_inject(disk, overlay, p->guest_dir, part, spec->accel == VM_ACCEL_TCG, root, err))
		return -1;
	snprintf(out->disk, sizeof(out->disk), "%s (overlay disk.qcow2, root %s, in the guest %s)",
		 disk, root->device, root->guest_device);
	spec->disk = overlay;
	spec->disk_root = root->guest_device;
	return 0;
}

/*
 * --disk: the TAP the guest wrote to the disk, read back after it stopped,
 * kept as tap.disk; when it is more complete than the stream (a lost TAP
 * channel, a crash), the cell's TAP is parsed from it instead and the
 * stream is kept as tap.stream.
 */
static void keep_disk_tap(struct cell *c, const char *overlay, const struct disk_root *root,
			  int tcg, struct run_outcome *out)
{
	struct buf stream = BUF_INIT, disk = BUF_INIT;
	char path[4200], keep[4200];
	struct error err;
	enum disk_tap_pick pick;

	say_progress(c, "reading the results back from the disk (libguestfs)");
	fflush(c->tap_file);
	snprintf(path, sizeof(path), "%s/tap", out->cell_dir);
	if (read_file(path, &stream, &err) || disk_readback(overlay, root, tcg, &disk, &err)) {
		snprintf(out->tap_source, sizeof(out->tap_source), "stream (disk not read: %.200s)", err.msg);
		goto done;
	}
	snprintf(keep, sizeof(keep), "%s/tap.disk", out->cell_dir);
	if (write_file_atomic(keep, disk.data, disk.len, &err)) {
		/* Only a copy to read by hand: the TAP picked below is the cell's tap. */
	}
	pick = disk_pick_tap(stream.data, stream.len, disk.data, disk.len);
	snprintf(out->tap_source, sizeof(out->tap_source), "%s (stream %zu bytes%s, disk %zu bytes%s)",
		 pick == DISK_TAP_DISK ? "disk" : "stream", stream.len,
		 disk_tap_complete(stream.data, stream.len) ? " complete" : "", disk.len,
		 disk_tap_complete(disk.data, disk.len) ? " complete" : "");
	snprintf(keep, sizeof(keep), "%s/tap.stream", out->cell_dir);
	if (pick == DISK_TAP_DISK && !rename(path, keep)) {
		FILE *fresh = fdopen(open_in(out->cell_dir, "tap", O_WRONLY | O_TRUNC), "w");

		if (!fresh) {
			rename(keep, path);
			snprintf(out->tap_source, sizeof(out->tap_source), "stream (cannot rewrite tap)");
			goto done;
		}
		fclose(c->tap_file);
		c->tap_file = fresh;
		start_tap(c);
		tap_feed(&c->tap, disk.data, disk.len);
	}
done:
	buf_free(&stream);
	buf_free(&disk);
}

int run_prepare(const struct run_opts *o, struct run_inputs *p, struct error *err)
{
	int rc = 0;

	if (lab_topology_load(lab_root(), o->topo, &p->topo, err))
		return -1;
	if (run_backend_libvirt(o) && libvirt_xml_supported(&p->topo, err))
		return -1;
	if (o->disk && !disk_is_qcow2(o->disk))
		return error_input(err, "--disk %s: not a qcow2 image; convert it with "
				   "`qemu-img convert -O qcow2 FILE NEW.qcow2`", o->disk);
	if (o->disk && p->topo.arch != TOPO_ARCH_X86_64)
		return error_input(err, "--disk boots x86_64 guests only; %s is a %s topology", p->topo.path,
				   topo_arch_name(p->topo.arch));
	snprintf(p->guest_dir, sizeof(p->guest_dir), "%s/build/guest/%s", lab_root(),
		 topo_arch_name(p->topo.arch));
	/* A shell comes up at once; a command or outside suites follow the lab's tests. */
	if (plan_tests(o->tests ? o->tests : o->shell ? "none" : p->topo.tests, topo_arch_name(p->topo.arch),
		       p->guest_dir, &p->tests, err))
		return o->tests ? error_prefix(err, "--tests") : error_prefix(err, "%s: tests", p->topo.path);
	if (o->disk && o->tests_dirs)
		return error_input(err, "--tests-dir suites go into the initramfs guest; leave out --disk");
	for (int i = 0; o->tests_dirs && o->tests_dirs[i]; i++)
		if (suite_scan_dir(o->tests_dirs[i], &p->suites, err))
			return -1;
	for (size_t i = 0; i < p->suites.nr; i++)
		for (size_t j = 0; j < p->tests.nr; j++)
			if (!strcmp(p->suites.items[i].name, p->tests.items[j]))
				return error_input(err, "--tests-dir %s: suite '%s' has the name of a lab test; rename it",
						   p->suites.items[i].dir, p->tests.items[j]);
	if (plan_shares(o, p, err) || (o->exec_argv && check_exec(o->exec_argv[0], p, err)))
		return -1;
	for (size_t i = 0; i < p->tests.nr; i++)
		strvec_push(&p->plan_names, p->tests.items[i]);
	for (size_t i = 0; i < p->suites.nr; i++)
		strvec_push(&p->plan_names, p->suites.items[i].name);
	if (o->exec_argv) {
		exec_tap_name(o->exec_argv, p->exec_name, sizeof(p->exec_name));
		strvec_push(&p->plan_names, p->exec_name);
	}
	if (!p->plan_names.nr && !o->shell)
		return error_input(err, "nothing to run: --tests none without a --tests-dir or `-- CMD`");
	if (o->kernel_built)
		p->kernel = *o->kernel_built;
	else
		rc = kernel_resolve_request(lab_root(), &(struct kernel_request){ o->kernel, o->patches,
					    o->nr_patches }, topo_arch_name(p->topo.arch), &p->kernel, err);
	if (rc)
		return -1;
	if (plan_modules(o, p, err) || image_base(p->topo.arch, p->guest_dir, p->base, sizeof(p->base), err))
		return -1;
	if (p->topo.arch == TOPO_ARCH_LOONGARCH64 && toolroot_tools(&p->tools, 1, err))
		return -1;
	return 0;
}

/* $TERM for the guest's shell if it is a plain terminal name, else NULL (the guest's default). */
static const char *plain_term(const char *term)
{
	if (!term || !*term || strlen(term) > 64 ||
	    term[strspn(term, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")])
		return NULL;
	return term;
}

static int run_prepared(const struct run_opts *o, struct run_inputs *p, struct vm_libvirt *lv,
			const char *run_dir, struct run_outcome *out, struct error *err)
{
	struct lava_job_state lava;
	struct cell c = { .o = o, .libvirt = lv, .lava = o->lava_url ? &lava : NULL, .start = now_s() };
	/* A shell lasts as long as its user wants (a week at most). */
	int timeout_s = o->shell ? 7 * 86400 : o->timeout_s ? o->timeout_s : p->topo.timeout_s;
	struct vm_share shares[VM_MAX_SHARES];
	struct vm_spec spec = { .topo = &p->topo, .qemu = p->libvirt_qemu[0] ? p->libvirt_qemu : qemu_binary(p->topo.arch),
				.kernel = p->kernel.path, .initrd = p->initrd,
				.extra_cmdline = o->append, .shares = shares, .nr_shares = p->nr_shares,
				.host_nodes = p->host_backed ? &p->host_nodes : NULL };
	struct winsize ws = { 0 };
	struct strvec argv = STRVEC_INIT;
	char accel_why[sizeof(((struct error *)0)->msg) + 64], overlay[4200];   /* accel_why: a message and a prefix */
	char cell[sizeof(p->topo.name) + sizeof(p->kernel.name)];   /* TOPO.KERNEL */
	struct disk_root root;
	struct run_part part = {
		.topo = &p->topo, .tests = strvec_argv(&p->tests), .guest_dir = p->guest_dir,
		.test_timeout_s = timeout_s > GUEST_SLACK_S * 2 ? timeout_s - GUEST_SLACK_S : timeout_s,
		.kselftest = p->kernel.selftests, .guest_file = o->guest_file,
		.suites = p->suites.items, .nr_suites = p->suites.nr,
		.shares = p->shares, .nr_shares = p->nr_shares,
		.exec_argv = o->exec_argv, .exec_cwd = p->cwd, .exec_name = p->exec_name,
		.shell = o->shell, .shell_term = plain_term(getenv("TERM")),
		.modules_cpio = p->modules_cpio[0] ? p->modules_cpio : NULL,
		.kernel_config = p->kernel_config[0] ? p->kernel_config : NULL };
	struct error meta_err;
	int rc, meta_rc, tap_bad;

	if (o->shell && !ioctl(STDIN_FILENO, TIOCGWINSZ, &ws)) {
		part.shell_rows = ws.ws_row;
		part.shell_cols = ws.ws_col;
	}
	if (o->shell)   /* tests before a shell keep the topology's timeout */
		part.test_timeout_s = p->topo.timeout_s;
	for (int i = 0; i < p->nr_shares; i++)
		shares[i] = p->shares[i].vm;

	snprintf(cell, sizeof(cell), "%s.%s", p->topo.name, p->kernel.name);
	if (results_new_cell(run_dir, cell, out->cell_dir, sizeof(out->cell_dir), err))
		return -1;
	snprintf(p->initrd, sizeof(p->initrd), "%s/initrd.cpio", out->cell_dir);
	snprintf(overlay, sizeof(overlay), "%s/disk.qcow2", out->cell_dir);
	if (o->disk ? disk_initrd(p, err) : image_run_initrd(p->base, &part, p->initrd, err))
		return -1;
	/* A LAVA job runs the worker's QEMU, which the lab cannot ask: nothing
	 * known, so only the options every QEMU from 7.2 to 10 has (qemucaps.h). */
	vm_spec_set_emulator(&spec, p->topo.arch, &p->tools, o->lava_url ? NULL : &p->caps);
	spec.serial_tap = o->serial_tap || o->lava_url;
	if (o->lava_url) {   /* the worker's KVM is the worker's: only asked for, never probed */
		spec.accel = out->accel = !strcmp(o->accel, "kvm") ? VM_ACCEL_KVM : VM_ACCEL_TCG;
		snprintf(accel_why, sizeof(accel_why), "%s: LAVA job (no_kvm: %s; --accel kvm asks for KVM)",
			 vm_accel_name(spec.accel), spec.accel == VM_ACCEL_KVM ? "false" : "true");
	} else {
		say_progress(&c, "choosing accelerator");
		spec.accel = out->accel = choose_accel(o, &spec, accel_why, sizeof(accel_why));
	}
	if (o->disk && disk_payload(&c, o->disk, overlay, p, &part, &spec, &root, out, err))
		return -1;
	c.tap_file = fdopen(open_in(out->cell_dir, "tap", O_WRONLY | O_TRUNC), "w");
	if (!c.tap_file)
		return error_set(err, "cannot write %s/tap: %s", out->cell_dir, strerror(errno));
	start_tap(&c);
	rc = o->lava_url ? lava_boot(&c, p, &spec, timeout_s, out, &argv, err)
			 : boot(&c, &spec, timeout_s, out, &argv, err);
	for (int boots = 1; !rc && !o->lava_url && early_crash(&out->vm, out->cell_dir, spec.serial_tap) &&
			    boot_again(&out->vm.scan, spec.accel, boots); boots++) {
		keep_crashed_console(out->cell_dir, boots);
		say_progress(&c, "guest crashed before /init; booting it again");
		out->retried = boots;
		strvec_clear(&argv);
		rc = boot(&c, &spec, timeout_s, out, &argv, err);
	}
	if (!rc && o->disk)
		keep_disk_tap(&c, overlay, &root, spec.accel == VM_ACCEL_TCG, out);
	if (spec.serial_tap)
		read_serial_tap(&c, out);
	tap_end(&c.tap);
	tap_walker_end(c.walk);
	c.walk = NULL;
	if (!rc)
		close_unfinished(&c, &out->vm, timeout_s, &p->plan_names);
	/* A full disk: the TAP on file is not the guest's; say so rather than vouch for it. */
	tap_bad = ferror(c.tap_file);
	if ((fclose(c.tap_file) || tap_bad) && !c.write_errno)
		c.write_errno = errno ? errno : EIO;
	if (o->view && o->view->done)
		o->view->done(o->view->ctx);
	tap_summarise(&c.tap, &out->summary);
	out->before_kernel_s = before_kernel(&out->vm, &c.tap);
	out->verdict = tap_failed(&c.tap) || out->vm.end != VM_POWEROFF ? RUN_FAILED : RUN_PASSED;
	meta_rc = write_meta(&c, out->cell_dir, &spec, &p->kernel,
			     o->lava_url ? "the LAVA worker's (its job log names it)" : p->caps.banner,
			     accel_why, &argv, out, &c.tap, timeout_s, &p->plan_names, &meta_err);
	/*
	 * Rebuilt from the cached base in milliseconds; a serial-TAP cell's is
	 * kept: it is what a board boots (docs/lava.md, "Bare metal").
	 */
	if (!spec.serial_tap)
		unlink(p->initrd);
	strvec_clear(&argv);
	if (rc)
		return -1;
	if (c.write_errno)
		return error_set(err, "cannot write %s/tap: %s; the results are incomplete",
				 out->cell_dir, strerror(c.write_errno));
	if (meta_rc)
		return error_set(err, "%s; the results are incomplete", meta_err.msg);
	if (out->vm.end == VM_QEMU_FAILED) {
		char why[sizeof(out->vm.kvm_error) + 128];   /* qemu_failure()'s words around QEMU's */

		qemu_failure(&out->vm, why, sizeof(why));
		return error_set(err, "%s: %s before the guest finished (qemu.log: %s/qemu.log)",
				 p->topo.name, why, out->cell_dir);
	}
	if (out->vm.end == VM_FIRMWARE) {
		char reason[512];

		firmware_reason(&out->vm.scan, reason, sizeof(reason));
		return error_set(err, "%s: the UEFI firmware did not start the kernel: %s (console: %s/console.log)",
				 p->topo.name, reason, out->cell_dir);
	}
	return 0;
}

/* Where the run directory goes: --out, relative to the working directory. */
static int out_root(const struct run_opts *o, char *out, size_t cap, struct error *err)
{
	char cwd[4096];

	if (o->out && o->out[0] == '/') {
		snprintf(out, cap, "%s", o->out);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return error_set(err, "getcwd: %s", strerror(errno));
	snprintf(out, cap, "%s/%s", cwd, o->out ? o->out : "results");
	return 0;
}

/*
 * The QEMU this run starts (libvirt's emulator under libvirt) and what it
 * accepts, asked before a result directory exists: a missing QEMU leaves none.
 */
static int qemu_at_hand(struct run_inputs *p, struct vm_libvirt *lv, struct error *err)
{
	struct vm_spec spec = { .qemu = qemu_binary(p->topo.arch) };

	if (lv && vm_libvirt_emulator(lv, p->topo.arch, p->libvirt_qemu, sizeof(p->libvirt_qemu), err))
		return -1;
	if (lv)
		spec.qemu = p->libvirt_qemu;
	vm_spec_set_emulator(&spec, p->topo.arch, &p->tools, &p->caps);
	return qemu_caps_probe(spec.qemu, spec.toolroot, &p->caps, err);
}

int run_cell(const struct run_opts *o, struct run_outcome *out, struct error *err)
{
	struct run_inputs *p = xcalloc(1, sizeof(*p));
	struct vm_libvirt *lv = NULL;
	char run_dir[4096], root[8200];
	struct error state_err;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = run_prepare(o, p, err) || out_root(o, root, sizeof(root), err) ||
	     libvirt_connect(o, &p->topo, &lv, err) || (!o->lava_url && qemu_at_hand(p, lv, err));
	if (!rc && o->host_nodes && !run_backend_libvirt(o)) {
		rc = hostnuma_bind(o->host_nodes, &p->topo, HOSTNUMA_SYSFS, &p->host_nodes, err);
		p->host_nodes.prealloc = o->prealloc;
		p->host_backed = 1;
	}
	if (!rc)
		rc = results_new_run(root, run_dir, sizeof(run_dir), err);
	if (!rc) {
		rc = run_prepared(o, p, lv, run_dir, out, err);
		out->interrupted = interrupt_caught();
		if (run_state_set(run_dir, out->interrupted ? RUN_STATE_INTERRUPTED
				  : rc ? RUN_STATE_ERROR : RUN_STATE_COMPLETE, &state_err) && !rc)
			rc = (*err = state_err, -1);
	}
	vm_libvirt_close(lv);
	run_inputs_free(p);
	return rc ? -1 : 0;
}

void run_inputs_free(struct run_inputs *p)
{
	strvec_clear(&p->tests);
	strvec_clear(&p->plan_names);
	strvec_clear(&p->share_paths);
	suite_list_free(&p->suites);
	free(p);
}
