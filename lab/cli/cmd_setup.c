/* numalab setup: install the host packages the lab needs and fetch the default kernel. */
#include "cli/command.h"
#include "base/interrupt.h"
#include "cli/options.h"
#include "kernel/resolve.h"
#include "host/toolroot.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The Debian packages the host needs, and why. */
static const struct host_package {
	const char *name, *why;
} packages[] = {
	{ "qemu-system-x86", "qemu-system-x86_64 boots the x86_64 guests" },
	{ "qemu-utils", "qemu-img, for disk images when a test wants one" },
	{ "busybox-static", "/bin/busybox in the guest image: static, so it needs no libraries" },
	{ "numactl", "numactl on the host (the guest image takes sid's 2.0.19, images/packages.lock)" },
	{ "libnuma-dev", "numa.h/numaif.h for tests written against libnuma" },
	{ "cpio", "to inspect a run's initrd.cpio by hand (numalab writes it itself)" },
	{ "gcc", "builds numalab and the static guest binaries" },
	{ "make", "the build" },
	{ "pkg-config", "the build asks it which optional libraries (libvirt, libguestfs) are there" },
	{ "clang", "the code must also build clean under clang" },
	{ "libclang-rt-dev", "libFuzzer and the sanitizer runtimes for clang (tests/host/fuzz, make fuzz)" },
	{ "ca-certificates", "TLS for apt mirrors and downloads" },
	{ "libvirt-dev", "the libvirt backend (run --backend libvirt) links libvirt" },
	{ "libvirt-daemon-system", "libvirtd + virtlogd for the libvirt backend (docs/libvirt.md)" },
	{ "libvirt-clients", "virsh, to look at libvirt domains by hand" },
	{ "libxml2-utils", "xmllint: make check validates the matrix's junit.xml" },
	{ "python3", "make check parses compare's JSON and HTML outputs (json, html.parser)" },
	{ "automake", "tap-driver.sh: make check runs every test under automake's TAP driver" },
	{ "python3-jsonschema", "make check validates KCIDB JSON against KCIDB's schema (tests/host/kcidb)" },
	{ "curl", "numalab kcidb --submit POSTs the JSON to kcidb-ng (not in a minimal Debian)" },
	{ "debootstrap", "builds the LoongArch toolchain root and Debian guest disks (numalab image)" },
	/* Guest disk images (lab/boot/disk.h, docs/images.md). */
	{ "libguestfs-dev", "writes and reads guest disks without root tricks (linked: -lguestfs)" },
	{ "linux-image-amd64", "the kernel of libguestfs's appliance" },
	/* Kernels from source (kernels/recipes, docs/kernels.md). */
	{ "flex", "kernel build: Kconfig lexer" },
	{ "bison", "kernel build: Kconfig parser" },
	{ "bc", "kernel build: generated constants" },
	{ "libelf-dev", "kernel build: objtool" },
	{ "libssl-dev", "kernel build: certificate tools" },
	{ "ccache", "kernel builds are cached per object and rebuild in seconds" },
	{ "patch", "applies recipe patch series" },
	{ "lz4", "kernel build: the x86 lab kernel is LZ4-compressed (it unpacks fast under TCG)" },
	{ "xz-utils", "unpacks Debian's linux-source tarball" },
	{ "libcap-dev", "the kernel's mm selftests memfd_secret and mlock-random-test link libcap (kselftest-mm)" },
};
#define NR_PACKAGES (sizeof(packages) / sizeof(packages[0]))

static const char usage[] =
	"usage: numalab setup [--quiet] [--arch x86_64|loongarch64]\n"
	"\n"
	"Make this Debian host ready for `numalab run`, doing only what is missing:\n"
	"  1. install the host packages (QEMU, busybox-static, numactl, compilers)\n"
	"     with apt-get; this step needs root; output goes to CACHE/setup.log;\n"
	"  2. fetch the default x86_64 kernel pinned in kernels/prebuilt.lock into\n"
	"     CACHE/kernels/ (docs/kernels.md).\n"
	"CACHE is $NUMALAB_CACHE, or ~/.cache/numalab.\n"
	"\n";

/* The exit codes, then the packages and why: the help lists what setup installs. */
static const char *help_tail(void)
{
	static struct buf tail = BUF_INIT;

	if (!tail.len) {
		buf_addstr(&tail, "\nExit: 0 ready, 2 bad usage or input (a lock line that can no longer be\n"
			   "fetched, NUMALAB_CACHE), 3 a step failed (the reason is on stderr) or\n"
			   "was interrupted.\n"
			   "\nHost packages:\n");
		for (size_t i = 0; i < NR_PACKAGES; i++)
			buf_addf(&tail, "  %-16s %s\n", packages[i].name, packages[i].why);
	}
	return buf_str(&tail);
}

/* dpkg-query prints "NAME install ok installed" for an installed package. */
static int installed(const char *status, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = status; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		if (!strncmp(l, name, n) && !strncmp(l + n, " install ok installed\n", 22))
			return 1;
	return 0;
}

/* Push the names of the table's packages that are not installed. */
static int missing_packages(struct strvec *missing, struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	struct error why;
	char status[8192];
	int rc;

	strvec_push(&argv, "dpkg-query");
	strvec_push(&argv, "-W");
	strvec_push(&argv, "-f=${Package} ${Status}\n");
	for (size_t i = 0; i < NR_PACKAGES; i++)
		strvec_push(&argv, packages[i].name);
	rc = proc_capture(strvec_argv(&argv), status, sizeof(status), &why);
	strvec_clear(&argv);
	if (rc < 0)
		return error_set(err, "%.900s; setup needs a Debian host (elsewhere install what "
				 "`numalab setup --help` lists by hand)", why.msg);
	/* 1 only says some package is unknown to dpkg: that one is missing. */
	if (rc > 1)
		return error_set(err, "dpkg-query -W exited %d; check that dpkg works", rc);
	for (size_t i = 0; i < NR_PACKAGES; i++)
		if (!installed(status, packages[i].name))
			strvec_push(missing, packages[i].name);
	return 0;
}

/* Run argv with debconf kept from asking, output appended to log. */
static int run_apt(const char **argv, const char *log, struct error *err)
{
	struct strvec env = STRVEC_INIT;
	int rc;

	for (char **e = environ; *e; e++)
		if (strncmp(*e, "DEBIAN_FRONTEND=", 16))
			strvec_push(&env, *e);
	strvec_push(&env, "DEBIAN_FRONTEND=noninteractive");
	rc = proc_run_logged(argv[0], argv, NULL, strvec_argv(&env), log, err);
	strvec_clear(&env);
	return rc;
}

/* The log's last lines, so a failure is readable without opening it. */
static void print_tail(const char *log, int lines)
{
	struct buf b = BUF_INIT;
	struct error ignored;
	size_t i;

	if (read_file(log, &b, &ignored) || !b.len) {
		buf_free(&b);
		return;
	}
	i = b.len - (b.data[b.len - 1] == '\n');
	for (int n = 0; i > 0; i--)
		if (b.data[i - 1] == '\n' && ++n == lines)
			break;
	fprintf(stderr, "--- last lines of %s:\n%s", log, b.data + i);
	buf_free(&b);
}

/* apt-get can exit 0 and still leave a package out (held, renamed): check. */
static int verify_installed(struct error *err)
{
	struct strvec still = STRVEC_INIT;
	int rc = missing_packages(&still, err);

	if (!rc && still.nr)
		rc = error_set(err, "apt-get install left %s not installed; see the log, install it "
			       "by hand", still.items[0]);
	strvec_clear(&still);
	return rc;
}

static int install(const struct strvec *missing, struct error *err)
{
	char *log = xprintf("%s/setup.log", lab_cache_dir());
	struct strvec argv = STRVEC_INIT;
	struct buf names = BUF_INIT;
	const char *update[] = { "apt-get", "update", "-q", NULL };
	int rc;

	for (size_t i = 0; i < missing->nr; i++)
		buf_addf(&names, "%s%s", i ? " " : "", missing->items[i]);
	strvec_push(&argv, "apt-get");
	strvec_push(&argv, "install");
	strvec_push(&argv, "-y");
	strvec_push(&argv, "-q");
	strvec_push(&argv, "--no-install-recommends");
	/* Wait for another apt (unattended upgrades, ...) instead of failing at once. */
	strvec_push(&argv, "-o");
	strvec_push(&argv, "DPkg::Lock::Timeout=300");
	for (size_t i = 0; i < missing->nr; i++)
		strvec_push(&argv, missing->items[i]);
	if (geteuid() != 0) {
		rc = error_set(err, "missing host packages: %s; installing them needs root: run "
			       "`sudo ./numalab setup`", buf_str(&names));
	} else {
		printf("setup: installing %s (log: %s)\n", buf_str(&names), log);
		fflush(stdout);
		rc = run_apt(update, log, err) || run_apt(strvec_argv(&argv), log, err) ? -1 : 0;
		if (rc)
			print_tail(log, 15);
		else
			rc = verify_installed(err);
	}
	strvec_clear(&argv);
	buf_free(&names);
	free(log);
	return rc;
}

static int ensure_packages(int quiet, struct error *err)
{
	struct strvec missing = STRVEC_INIT;
	int rc = missing_packages(&missing, err);

	if (!rc && missing.nr)
		rc = install(&missing, err);
	if (!rc && (missing.nr || !quiet))
		printf("setup: packages ok\n");
	strvec_clear(&missing);
	return rc;
}

static int ensure_kernel(const char *arch, int quiet, struct error *err)
{
	struct kernel k;

	if (kernel_resolve(NULL, arch, &k, err))
		return -1;
	if (k.fetch_s > 0)
		printf("setup: kernel %s %s %s ok (fetched in %.1f s)\n", k.name, k.arch, k.version,
		       k.fetch_s);
	else if (!quiet)
		printf("setup: kernel %s %s %s ok\n", k.name, k.arch, k.version);
	return 0;
}

/* The LoongArch toolchain: the user's own, or the lab's root (built once). */
static int ensure_toolroot(int quiet, struct error *err)
{
	struct toolroot_tools t;

	if (toolroot_tools(&t, 1, err))
		return -1;
	if (!quiet)
		printf("setup: loongarch64 tools ok (%s)\n", t.root[0] ? t.root : "found on PATH");
	return 0;
}

int cmd_setup(int argc, char **argv)
{
	struct error err;
	const char *arch = "x86_64";
	int rc, first, quiet = 0, la;
	const struct opt opts[] = {
		OPT_FLAG("quiet", &quiet, "print nothing when everything was already in place"),
		OPT_CHOICE("arch", &arch, "A", "x86_64|loongarch64",
			   "also prepare arch A (default x86_64); loongarch64 builds the\n"
			   "toolchain root (QEMU 10, edk2, cross gcc: docs/toolroot.md)"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "setup", .usage = usage, .opts = opts, .tail = help_tail() };

	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	if (first < argc)
		return command_usage_error("setup", "unexpected argument '%s'", argv[first]);
	la = !strcmp(arch, "loongarch64");
	/* apt, a fetch, the toolroot's build: stopped and reaped on a signal, exit 3. */
	interrupt_catch();
	if (ensure_packages(quiet, &err) || ensure_kernel("x86_64", quiet, &err) ||
	    (la && (ensure_toolroot(quiet, &err) || ensure_kernel(arch, quiet, &err)))) {
		fflush(stdout);
		return command_fail("setup", &err);
	}
	return EXIT_PASS;
}
