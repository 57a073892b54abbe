#include "host/toolroot.h"
#include "host/mirror.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/progress.h"
#include "base/proc.h"

/*
 * qemu-system-x86: QEMU 10 for x86 guests too, where the host's is older (a
 * Debian 12 host has 7.2): the newest QEMU family the argv is checked against
 * (tests/host/integration/qemu-accepts.sh), and a user's way to it
 * (docs/toolroot.md).
 */
const char *const toolroot_packages[] = {
	"qemu-system-misc", "qemu-system-x86", "qemu-efi-loongarch64",
	"gcc-loongarch64-linux-gnu", "libc6-dev-loong64-cross",
	"make", "flex", "bison", "bc", "libelf-dev", "libssl-dev", "cpio", "xz-utils", "ccache",
	"gcc", "libc6-dev", "kmod",
	NULL,
};

/* Bump when the way a root is built changes: it renames (rebuilds) the root. */
#define TOOLROOT_RECIPE "numalab-toolroot-1 debootstrap --variant=minbase --include=ca-certificates"

/* ---- pure ---- */

void toolroot_hash(const char *const *packages, char hex[17])
{
	unsigned char digest[32];
	char full[65];
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, TOOLROOT_RECIPE "\n", strlen(TOOLROOT_RECIPE) + 1);
	sha256_update(&s, TOOLROOT_SUITE "\n", strlen(TOOLROOT_SUITE) + 1);
	for (int i = 0; packages[i]; i++) {
		sha256_update(&s, packages[i], strlen(packages[i]));
		sha256_update(&s, "\n", 1);
	}
	sha256_final(&s, digest);
	sha256_hex(digest, full);
	memcpy(hex, full, 16);
	hex[16] = '\0';
}

void toolroot_path(const char *cache, const char *const *packages, char *out, size_t cap)
{
	char hex[17];

	toolroot_hash(packages, hex);
	snprintf(out, cap, "%s/toolroot/%s-%s", cache, TOOLROOT_SUITE, hex);
}

int toolroot_parse_qemu_version(const char *text, int *major, int *minor)
{
	const char *p = strstr(text, "version ");

	if (!p || sscanf(p + 8, "%d.%d", major, minor) != 2)
		return -1;
	return 0;
}

/*
 * The absolute path of the running binary (numalab), for re-exec.  A binary
 * rebuilt while it runs reads back as "PATH (deleted)": the new one at PATH
 * is what to run.
 */
static void self_exe(char *out, size_t cap)
{
	static const char deleted[] = " (deleted)";
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	size_t d = sizeof(deleted) - 1;

	if (n <= 0) {
		snprintf(out, cap, "%s/numalab", lab_root());
		return;
	}
	out[n] = '\0';
	if ((size_t)n > d && !strcmp(out + n - d, deleted))
		out[n - d] = '\0';
}

int toolroot_argv_binds(const char *root, const char *const *binds, const char **argv_in,
			struct strvec *out)
{
	char self[PATH_MAX];

	if (!argv_in || !argv_in[0])
		return -1;
	if (root && *root) {
		self_exe(self, sizeof(self));
		strvec_push(out, self);
		strvec_push(out, "toolroot-exec");
		for (int i = 0; binds && binds[i]; i++) {
			strvec_push(out, "--bind");
			strvec_push(out, binds[i]);
		}
		strvec_push(out, root);
		strvec_push(out, "--");
	}
	for (int i = 0; argv_in[i]; i++)
		strvec_push(out, argv_in[i]);
	return 0;
}

int toolroot_argv(const char *root, const char **argv_in, struct strvec *out)
{
	return toolroot_argv_binds(root, NULL, argv_in, out);
}

/* a is b or inside b (both absolute, normalised). */
static int path_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (!strcmp(b, "/"))
		return 1;
	return !strncmp(a, b, n) && (a[n] == '\0' || a[n] == '/');
}

int toolroot_bind_reduce(const char *root, const char **dirs, int nr)
{
	int kept = 0;

	for (int i = 0; i < nr; i++) {
		int drop = !strcmp(dirs[i], "/") || (root && path_within(dirs[i], root));

		for (int j = 0; j < nr && !drop; j++) {
			if (j == i || !strcmp(dirs[j], "/") || (root && path_within(dirs[j], root)))
				continue;
			/* Inside another (kept) dir, or a later duplicate. */
			if (!strcmp(dirs[i], dirs[j]))
				drop = j < i;
			else
				drop = path_within(dirs[i], dirs[j]);
		}
		if (!drop)
			dirs[kept++] = dirs[i];
	}
	return kept;
}

/* ---- helpers ---- */

/* name on PATH (or in the sbin dirs root's PATH may lack): 1 and out, or 0. */
static int which(const char *name, char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char *copy = xprintf("%s:/usr/local/sbin:/usr/sbin:/sbin", path && *path ? path : "/usr/bin:/bin");
	int found = 0;

	for (char *dir = strtok(copy, ":"); dir && !found; dir = strtok(NULL, ":")) {
		snprintf(out, cap, "%s/%s", *dir ? dir : ".", name);
		found = access(out, X_OK) == 0;
	}
	free(copy);
	return found;
}

static int root_complete(const char *root)
{
	char *versions = xprintf("%s/versions", root);
	int ok = file_exists(versions);

	free(versions);
	return ok;
}

/* A clean environment for debootstrap and apt. */
static const char *const build_env[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"DEBIAN_FRONTEND=noninteractive", "LC_ALL=C", "HOME=/root", NULL,
};

/* Run argv in the clean environment, output appended to log; 0, or -1 with err. */
static int run_logged(const char *what, const char **argv, const char *log, struct error *err)
{
	return proc_run_logged(what, argv, NULL, (const char **)build_env, log, err);
}

/* argv running cmd inside root with only /dev /proc /sys bound (building it). */
static void bare_argv(const char *root, const char *const *cmd, struct strvec *argv)
{
	char self[PATH_MAX];

	self_exe(self, sizeof(self));
	strvec_push(argv, self);
	strvec_push(argv, "toolroot-exec");
	strvec_push(argv, "--bare");
	strvec_push(argv, root);
	strvec_push(argv, "--");
	for (int i = 0; cmd[i]; i++)
		strvec_push(argv, cmd[i]);
}

/* Run cmd inside root (only /dev /proc /sys bound), logged. */
static int run_in_root(const char *what, const char *root, const char *const *cmd,
		       const char *log, struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	int rc;

	bare_argv(root, cmd, &argv);
	rc = run_logged(what, strvec_argv(&argv), log, err);
	strvec_clear(&argv);
	return rc;
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] && r[3]) {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Detach every mount at or below path (left by a crashed debootstrap), deepest first. */
static void unmount_under(const char *path)
{
	struct buf info = BUF_INIT;
	struct strvec points = STRVEC_INIT;
	struct error ignored;

	if (read_file("/proc/self/mountinfo", &info, &ignored) == 0 && info.data) {
		for (char *line = strtok(info.data, "\n"); line; line = strtok(NULL, "\n")) {
			char point[PATH_MAX];

			if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
				continue;
			unescape(point);
			if (path_within(point, path))
				strvec_push(&points, point);
		}
	}
	for (size_t i = points.nr; i-- > 0; )
		umount2(points.items[i], MNT_DETACH);
	strvec_clear(&points);
	buf_free(&info);
}

static void remove_root(const char *dir)
{
	unmount_under(dir);
	remove_tree(dir);
}

/* Remove .tmp-* roots whose builder (the pid at the end of the name) is gone. */
static void remove_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *dash = strrchr(e->d_name, '-');
		long pid = dash ? strtol(dash + 1, NULL, 10) : 0;

		if (strncmp(e->d_name, ".tmp-", 5) || pid <= 0)
			continue;
		if (pid != getpid() && kill((pid_t)pid, 0) && errno == ESRCH) {
			char *path = xprintf("%s/%s", parent, e->d_name);

			remove_root(path);
			free(path);
		}
	}
	closedir(d);
}

/* Mount points for the project and cache directories, so unprivileged runs can bind them. */
static int make_mount_points(const char *root, struct error *err)
{
	const char *dirs[] = { lab_root(), lab_cache_dir() };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *p = xprintf("%s%s", root, dirs[i]);
		int rc = path_within(dirs[i], root) ? 0 : mkdir_p(p, err);

		free(p);
		if (rc)
			return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dpkg-query inside root → root/versions ("PACKAGE VERSION" lines, sorted). */
static int record_versions(const char *root, const char *name, double deb_s, double apt_s,
			   struct error *err)
{
	static const char *const query[] = { "dpkg-query", "-W", "-f", "${Package} ${Version}\\n", NULL };
	char *out = xmalloc(1 << 20), *path;
	struct strvec argv = STRVEC_INIT, lines = STRVEC_INIT;
	struct buf text = BUF_INIT;
	int rc;

	bare_argv(root, query, &argv);
	rc = proc_capture(strvec_argv(&argv), out, 1 << 20, err);
	if (rc > 0)
		error_set(err, "dpkg-query in %s exited %d", root, rc);
	if (rc == 0) {
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			strvec_push(&lines, l);
		if (lines.nr)
			qsort(lines.items, lines.nr, sizeof(char *), cmp_str);
		buf_addf(&text, "# numalab toolchain root %s: %s, debootstrap %.0f s, apt %.0f s\n",
			 name, TOOLROOT_SUITE, deb_s, apt_s);
		for (size_t i = 0; i < lines.nr; i++)
			buf_addf(&text, "%s\n", lines.items[i]);
		path = xprintf("%s/versions", root);
		rc = write_file_atomic(path, text.data, text.len, err);
		free(path);
	}
	strvec_clear(&argv);
	strvec_clear(&lines);
	buf_free(&text);
	free(out);
	return rc ? -1 : 0;
}

/* debootstrap + apt-get into tmp; -1 with err. */
static int build_root(const char *tmp, const char *name, const char *log, struct error *err)
{
	char debootstrap[PATH_MAX], self[PATH_MAX], mirror[512];
	static const char *const update[] = { "apt-get", "-q", "update", NULL };
	static const char *const clean[] = { "apt-get", "clean", NULL };
	struct strvec install = STRVEC_INIT;
	double t0 = now_s(), t1, t2;
	int rc;

	if (!which("debootstrap", debootstrap, sizeof(debootstrap)))
		return error_set(err, "debootstrap is not installed; install it (Debian/Ubuntu: "
				 "apt-get install debootstrap; Fedora: dnf install debootstrap) and retry");
	if (host_debian_mirror(mirror, sizeof(mirror), err))
		return -1;
	self_exe(self, sizeof(self));
	{
		/* In a private mount namespace: a killed debootstrap leaves no mounts behind. */
		const char *argv[] = { self, "toolroot-exec", "--host", "--", debootstrap,
				       "--variant=minbase", "--include=ca-certificates",
				       TOOLROOT_SUITE, tmp, mirror, NULL };

		progress("toolchain root: debootstrap %s ...", TOOLROOT_SUITE);
		if (run_logged("debootstrap", argv, log, err))
			return -1;
	}
	t1 = now_s();
	progress("toolchain root: debootstrap %.0f s; apt-get install ...", t1 - t0);
	strvec_push(&install, "apt-get");
	strvec_push(&install, "-q");
	strvec_push(&install, "-y");
	strvec_push(&install, "--no-install-recommends");
	strvec_push(&install, "install");
	for (int i = 0; toolroot_packages[i]; i++)
		strvec_push(&install, toolroot_packages[i]);
	rc = run_in_root("apt-get update", tmp, update, log, err) ||
	     run_in_root("apt-get install", tmp, (const char *const *)strvec_argv(&install), log, err) ||
	     run_in_root("apt-get clean", tmp, clean, log, err);
	strvec_clear(&install);
	if (rc)
		return -1;
	t2 = now_s();
	progress("toolchain root: apt %.0f s", t2 - t1);
	return make_mount_points(tmp, err) || record_versions(tmp, name, t1 - t0, t2 - t1, err) ? -1 : 0;
}

/* The existing root for the current table, without creating: 1 found, 0 not. */
static int find_root(char *root, size_t cap)
{
	toolroot_path(lab_cache_dir(), toolroot_packages, root, cap);
	return root_complete(root);
}

/*
 * The lab's root for the current package table: its path into root (cap
 * bytes).  Creates it if missing (network, ~2 minutes, needs uid 0 and
 * debootstrap; progress on stderr, output to cache/toolroot/NAME.log).
 * As root, also makes sure the project and cache directories have mount
 * points inside.  0, or -1 with err saying what to do.
 */
static int ensure_root(char *root, size_t cap, struct error *err)
{
	char final[PATH_MAX], parent[PATH_MAX], tmp[PATH_MAX], log[PATH_MAX];
	const char *name;

	toolroot_path(lab_cache_dir(), toolroot_packages, final, sizeof(final));
	snprintf(root, cap, "%s", final);
	if (root_complete(final))
		return geteuid() == 0 ? make_mount_points(final, err) : 0;
	if (geteuid() != 0)
		return error_set(err, "the LoongArch toolchain root %s does not exist and building it needs root: "
				 "run `sudo ./numalab setup` once (needs debootstrap), or install "
				 "qemu-system-loongarch64 >= %d, the edk2 LoongArch firmware and "
				 "loongarch64-linux-gnu-gcc yourself (docs/toolroot.md)",
				 final, TOOLROOT_QEMU_MIN_MAJOR);
	name = strrchr(final, '/') + 1;
	if (snprintf(parent, sizeof(parent), "%s/toolroot", lab_cache_dir()) >= (int)sizeof(parent) ||
	    snprintf(tmp, sizeof(tmp), "%s/.tmp-%s-%d", parent, name, (int)getpid()) >= (int)sizeof(tmp) ||
	    snprintf(log, sizeof(log), "%s/%s.log", parent, name) >= (int)sizeof(log))
		return error_input(err, "NUMALAB_CACHE=%s: the toolchain root's paths under it are longer "
				   "than %zu characters; give a shorter directory", lab_cache_dir(), sizeof(tmp) - 1);
	if (mkdir_p(parent, err))
		return -1;
	remove_stale(parent);
	remove_root(tmp);
	unlink(log);
	progress("building the LoongArch toolchain root %s (a few minutes, ~1.2 GB; log %s)", final, log);
	if (build_root(tmp, name, log, err)) {
		remove_root(tmp);
		return error_prefix(err, "building the toolchain root");
	}
	if (rename(tmp, final)) {
		int e = errno;

		remove_root(tmp);
		/* Someone else finished first: theirs is as good. */
		if (root_complete(final))
			return 0;
		return error_set(err, "cannot rename %s to %s: %s", tmp, final, strerror(e));
	}
	return 0;
}

/*
 * The user's own tools: qemu-system-loongarch64 >= 9 and
 * loongarch64-linux-gnu-gcc on PATH, and the firmware at $NUMALAB_LOONGARCH_FIRMWARE
 * or TOOLROOT_FIRMWARE.  1 and *out filled (root ""), or 0 with why set.
 */
static int found_on_path(struct toolroot_tools *out, struct error *why)
{
	const char *fw = getenv(TOOLROOT_FIRMWARE_ENV);
	const char *argv[] = { out->qemu, "--version", NULL };
	char text[512];
	struct error ignored;
	int major = 0, minor = 0, rc;

	memset(out, 0, sizeof(*out));
	if (!which(TOOLROOT_QEMU, out->qemu, sizeof(out->qemu)))
		return error_set(why, "%s is not on PATH", TOOLROOT_QEMU), 0;
	if (!which(TOOLROOT_CC, out->cc, sizeof(out->cc)))
		return error_set(why, "%s is not on PATH", TOOLROOT_CC), 0;
	snprintf(out->firmware, sizeof(out->firmware), "%s", fw && *fw ? fw : TOOLROOT_FIRMWARE);
	if (!file_exists(out->firmware))
		return error_set(why, "no LoongArch UEFI firmware at %s (set %s)", out->firmware,
				 TOOLROOT_FIRMWARE_ENV), 0;
	rc = proc_capture(argv, text, sizeof(text), &ignored);
	if (rc != 0 || toolroot_parse_qemu_version(text, &major, &minor))
		return error_set(why, "`%s --version` did not say its version", out->qemu), 0;
	if (major < TOOLROOT_QEMU_MIN_MAJOR)
		return error_set(why, "%s is QEMU %d.%d; LoongArch NUMA guests need >= %d",
				 out->qemu, major, minor, TOOLROOT_QEMU_MIN_MAJOR), 0;
	snprintf(out->qemu_version, sizeof(out->qemu_version), "%d.%d", major, minor);
	return 1;
}

int toolroot_check_env(struct error *err)
{
	const char *fw = getenv(TOOLROOT_FIRMWARE_ENV);
	struct stat st;

	if (fw && *fw && (stat(fw, &st) || !S_ISREG(st.st_mode)))
		return error_input(err, "%s=%s: no such firmware file; name the LoongArch UEFI image "
				   "(QEMU_EFI.fd) or unset it to use the lab's", TOOLROOT_FIRMWARE_ENV, fw);
	return 0;
}

int toolroot_tools(struct toolroot_tools *out, int create, struct error *err)
{
	const char *fw = getenv(TOOLROOT_FIRMWARE_ENV);
	struct error why;
	char root[PATH_MAX], *check;
	int missing;

	if (toolroot_check_env(err))
		return -1;
	if (found_on_path(out, &why))
		return 0;
	memset(out, 0, sizeof(*out));
	if (create) {
		if (ensure_root(root, sizeof(root), err))
			return error_prefix(err, "no LoongArch tools on PATH (%s)", why.msg);
	} else if (!find_root(root, sizeof(root))) {
		return error_set(err, "no LoongArch tools: %s, and the lab's toolchain root %s is not built; "
				 "run `sudo ./numalab setup` (docs/toolroot.md)", why.msg, root);
	}
	snprintf(out->root, sizeof(out->root), "%s", root);
	snprintf(out->qemu, sizeof(out->qemu), "%s", TOOLROOT_QEMU);
	snprintf(out->cc, sizeof(out->cc), "%s", TOOLROOT_CC);
	if (fw && *fw) {
		snprintf(out->firmware, sizeof(out->firmware), "%s", fw);
		out->firmware_on_host = 1;
		return 0;
	}
	snprintf(out->firmware, sizeof(out->firmware), "%s", TOOLROOT_FIRMWARE);
	check = xprintf("%s%s", root, TOOLROOT_FIRMWARE);
	missing = !file_exists(check);
	free(check);
	if (missing)
		return error_set(err, "the toolchain root %s has no %s; remove it and run `sudo ./numalab setup`",
				 root, TOOLROOT_FIRMWARE);
	return 0;
}

/* ---- toolroot-exec ---- */

static int write_proc(const char *path, const char *text, struct error *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return error_set(err, "cannot open %s: %s", path, strerror(errno));
	n = write(fd, text, strlen(text));
	close(fd);
	if (n != (ssize_t)strlen(text))
		return error_set(err, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

/* A private mount namespace; a user namespace too (us as its root) when not root. */
static int enter_namespaces(struct error *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	/*
	 * Read our own path first (lab_root() keeps it): /proc/self/exe names a
	 * mount of the namespace we leave, and inside a chroot that path reads
	 * back from the host's root ("/CHROOT/work/numalab"), not ours.
	 */
	(void)lab_root();
	if (uid == 0) {
		if (unshare(CLONE_NEWNS))
			return error_set(err, "unshare(CLONE_NEWNS): %s", strerror(errno));
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			return error_set(err, "cannot create a user namespace (%s); run as root, or allow "
					 "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)",
					 strerror(errno));
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
		if (write_proc("/proc/self/setgroups", "deny", err) ||
		    write_proc("/proc/self/uid_map", map, err))
			return -1;
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
		if (write_proc("/proc/self/gid_map", map, err))
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return error_set(err, "making / private: %s", strerror(errno));
	return 0;
}

static int not_a_dir(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)ftw;
	return flag != FTW_D && flag != FTW_DP;
}

/* path holds anything but (empty) directories, e.g. our own mount points. */
static int has_files(const char *path)
{
	return file_exists(path) && nftw(path, not_a_dir, 16, FTW_PHYS) != 0;
}

/* Bind dir at the same path inside root (root: a realpath). */
static int bind_at(const char *root, const char *dir, int may_hide, struct error *err)
{
	char *target = xprintf("%s%s", root, dir), real[PATH_MAX];
	int rc = -1;

	if (!may_hide && has_files(target)) {
		error_set(err, "%s already has %s; binding it would hide the root's own files", root, dir);
		goto out;
	}
	if (mkdir_p(target, err)) {
		error_prefix(err, "mount point for %s (a non-root user cannot add one: "
			     "run `sudo ./numalab setup` from this checkout once, or work under /tmp)", dir);
		goto out;
	}
	/* A symlink inside the root must not take the mount outside it. */
	if (!realpath(target, real) || !path_within(real, root)) {
		error_set(err, "%s leads outside the root", target);
		goto out;
	}
	if (mount(dir, real, NULL, MS_BIND | MS_REC, NULL)) {
		error_set(err, "bind-mounting %s into %s: %s", dir, root, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(target);
	return rc;
}

static int enter_root(const struct toolroot_exec_opts *o, struct error *err)
{
	static const char *const system_dirs[] = { "/dev", "/proc", "/sys" };
	char root[PATH_MAX], cwd[PATH_MAX], *real[20];
	const char *dirs[20];
	int nr = 0, rc = -1, cwd_ok = getcwd(cwd, sizeof(cwd)) != NULL;

	if (!realpath(o->root, root))
		return error_set(err, "toolchain root %s: %s", o->root, strerror(errno));
	if (!o->bare) {
		const char *want[20];
		int nw = 0;

		want[nw++] = lab_root();
		want[nw++] = lab_cache_dir();
		if (cwd_ok)
			want[nw++] = cwd;
		for (int i = 0; i < o->nr_binds; i++)
			want[nw++] = o->binds[i];
		for (int i = 0; i < nw; i++) {
			char tmp[PATH_MAX];

			if (!realpath(want[i], tmp)) {
				error_set(err, "cannot bind %s: %s", want[i], strerror(errno));
				goto out;
			}
			real[nr] = xstrdup(tmp);
			dirs[nr] = real[nr];
			nr++;
		}
	}
	{
		int kept = toolroot_bind_reduce(root, dirs, nr);

		for (int i = 0; i < kept; i++)
			if (bind_at(root, dirs[i], 0, err))
				goto out;
	}
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (bind_at(root, system_dirs[i], 1, err))
			goto out;
	if (chroot(root) || chdir("/")) {
		error_set(err, "chroot %s: %s", root, strerror(errno));
		goto out;
	}
	/* The same working directory; inside the root's own tree it is relative to it. */
	if (cwd_ok && !o->bare) {
		const char *in = path_within(cwd, root) ? cwd + strlen(root) : cwd;

		if (chdir(*in ? in : "/")) {
			error_set(err, "chdir %s inside %s: %s", cwd, root, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	for (int i = 0; i < nr; i++)
		free(real[i]);
	return rc;
}

/*
 * The runner starts this wrapper with a parent-death signal (proc.h), which
 * survives execvp() but not every credential change on the way into the
 * namespaces.  Arm it again so the command itself (QEMU), not only the
 * wrapper, dies with the runner; if the runner is already gone, stop here.
 */
static int keep_death_signal(int sig, pid_t parent, struct error *err)
{
	if (!sig)
		return 0;
	if (prctl(PR_SET_PDEATHSIG, sig))
		return error_set(err, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
	if (getppid() != parent)
		return error_set(err, "the runner died while the toolroot was being entered");
	return 0;
}

int toolroot_enter(const struct toolroot_exec_opts *o, pid_t parent, struct error *err)
{
	int death_sig = 0;

	prctl(PR_GET_PDEATHSIG, &death_sig);
	if (enter_namespaces(err) || (o->root && enter_root(o, err)) || keep_death_signal(death_sig, parent, err))
		return -1;
	return 0;
}
