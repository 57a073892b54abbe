#include "boot/image.h"
#include "kernel/pin.h"
#include "base/lines.h"
#include "base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void pad4(struct buf *out)
{
	static const char zeros[4];

	buf_add(out, zeros, (4 - out->len % 4) % 4);
}

void cpio_add(struct buf *out, const char *name, unsigned mode, const void *data, size_t len)
{
	static unsigned ino = 1;
	const char *n = name ? name : "TRAILER!!!";

	/* newc: magic + 13 fields of 8 hex digits; mtime 0 keeps images reproducible. */
	buf_addf(out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 name ? ino++ : 0, mode, 0u, 0u, 1u, 0u, (unsigned)len, 0u, 0u, 0u, 0u,
		 (unsigned)strlen(n) + 1, 0u);
	buf_add(out, n, strlen(n) + 1);
	pad4(out);
	buf_add(out, data, len);
	pad4(out);
}

/*
 * Images stream into their file entry by entry, so the runner holds one
 * entry at a time, not a whole image (it stays small beside a running
 * guest).  Entries are 4-byte aligned, so each flush leaves the archive's
 * alignment as one buffer would.
 */
struct cpio_stream {
	struct buf pending;
	int fd;            /* the temporary file beside the archive's path */
	char *tmp;
	int write_errno;   /* the first failed write; 0: none */
};
#define CPIO_STREAM_INIT { BUF_INIT, -1, NULL, 0 }

static void cpio_flush(struct cpio_stream *s)
{
	if (!s->write_errno && write_all(s->fd, s->pending.data, s->pending.len))
		s->write_errno = errno ? errno : EIO;
	s->pending.len = 0;
}

/* A temporary file beside path for s to fill: 0, or -1 with err. */
static int cpio_stream_open(struct cpio_stream *s, const char *path, struct error *err)
{
	s->tmp = xprintf("%s.tmp.%d", path, (int)getpid());
	if ((s->fd = open(s->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return error_set(err, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The end of a stream: with rc 0 and every write done, the file becomes path
 * (atomically); otherwise it is removed.  Returns rc, or -1 with err.
 */
static int cpio_stream_close(struct cpio_stream *s, const char *path, int rc, struct error *err)
{
	cpio_flush(s);
	if (!rc && s->write_errno)
		rc = error_set(err, "cannot write %s: %s", path, strerror(s->write_errno));
	if (s->fd >= 0 && close(s->fd) && !rc)
		rc = error_set(err, "cannot write %s: %s", path, strerror(errno));
	if (!rc && rename(s->tmp, path))
		rc = error_set(err, "cannot write %s: %s", path, strerror(errno));
	if (rc && s->tmp)
		unlink(s->tmp);
	free(s->tmp);
	buf_free(&s->pending);
	return rc;
}

/* Emit each parent directory of path once (dirs remembers them). */
static void add_parents(struct buf *out, struct strvec *dirs, const char *path)
{
	char dir[512];

	for (const char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		size_t len = (size_t)(p - path);
		int seen = 0;

		snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
		for (size_t i = 0; i < dirs->nr && !seen; i++)
			seen = !strcmp(dirs->items[i], dir);
		if (!seen) {
			strvec_push(dirs, dir);
			cpio_add(out, dir + 1, 040755, NULL, 0);
		}
	}
}

/*
 * One image entry: a file of the host going to dest in the image.  Its
 * destination, mode and content's sha256 go into h; with out, the entry is
 * written too (out NULL: only the key is wanted).
 */
static int add_file(struct cpio_stream *out, struct strvec *dirs, struct sha256 *h,
		    const char *src, const char *dest, struct error *err)
{
	struct buf data = BUF_INIT;
	struct stat st;
	char hex[65];

	if (stat(src, &st))
		return error_set(err, "%s: %s", src, strerror(errno));
	if (sha256_file(src, hex, err))
		return -1;
	sha256_update(h, dest, strlen(dest) + 1);
	sha256_update(h, &st.st_mode, sizeof(st.st_mode));
	sha256_update(h, hex, sizeof(hex));
	if (!out)
		return 0;
	if (read_file(src, &data, err))
		return -1;
	add_parents(&out->pending, dirs, dest);
	cpio_add(&out->pending, dest + 1, 0100000 | (st.st_mode & 0777), data.data, data.len);
	buf_free(&data);
	cpio_flush(out);
	return 0;
}

struct manifest_line {
	char src[512], dest[512];
	int optional;   /* a missing SOURCE is no error */
	int applets;    /* SOURCE is busybox: its applets too, as links to DEST */
	int link;       /* SOURCE is a path in the image: DEST is a symlink to it */
};

static int parse_manifest_line(const char *path, int lineno, char *line,
			       struct manifest_line *m, struct error *err)
{
	char opt[32] = "";
	int n = sscanf(line, "%511s %511s %31s", m->src, m->dest, opt);

	m->optional = n == 3 && !strcmp(opt, "optional");
	m->applets = n == 3 && !strcmp(opt, "applets");
	m->link = n == 3 && !strcmp(opt, "link");
	if (n < 2 || m->dest[0] != '/' || (n == 3 && !m->optional && !m->applets && !m->link))
		return error_set(err, "%s:%d: expected `SOURCE /DEST [optional|applets|link]`", path, lineno);
	return 0;
}

/*
 * Busybox's applets as symlinks to dest, the links `busybox --install -s`
 * would make in the guest: made here, once per image, they spare every boot
 * the fork, the exec and 400 symlink calls (0.05 s under TCG).  The list is
 * the binary's own (--list-full: "bin/ash", "usr/bin/awk", ...), so it runs
 * here: an applets line names a busybox of the host's arch.  The links
 * follow from the binary, whose content is in the key already.
 */
static int add_applet_links(struct cpio_stream *out, struct strvec *dirs, const char *src,
			    const char *dest, struct error *err)
{
	static char list[65536];
	const char *argv[] = { src, "--list-full", NULL };
	char *save = NULL;

	int code = proc_capture(argv, list, sizeof(list), err);

	if (code < 0)
		return -1;
	if (code)
		return error_set(err, "%s --list-full exited %d: an applets line names a busybox this host runs",
				 src, code);
	for (char *name = strtok_r(list, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		char path[512];

		snprintf(path, sizeof(path), "/%s", name);
		if (!strcmp(path, dest))
			continue;
		add_parents(&out->pending, dirs, path);
		cpio_add(&out->pending, path + 1, 0120777, dest, strlen(dest));
		cpio_flush(out);
	}
	return 0;
}

/*
 * Expand @guest/, @deb/NAME (the file images/packages.lock pins as NAME for
 * arch, fetched once) and globs; a glob's matches go into dest, a directory.
 */
static int add_manifest_entry(struct cpio_stream *out, struct strvec *dirs, struct sha256 *h,
			      const struct manifest_line *m, const char *guest_dir,
			      const char *arch, const char *where, struct error *err)
{
	char src[1024], dest[1024];
	glob_t g;
	int rc = 0;

	if (m->link) {   /* the manifest's text, in the key already, says all of it */
		if (out) {
			add_parents(&out->pending, dirs, m->dest);
			cpio_add(&out->pending, m->dest + 1, 0120777, m->src, strlen(m->src));
			cpio_flush(out);
		}
		return 0;
	}
	if (!strncmp(m->src, "@guest/", 7))
		snprintf(src, sizeof(src), "%s/%s", guest_dir, m->src + 7);
	else if (!strncmp(m->src, "@deb/", 5)) {
		if (kernel_fetch_package_file(lab_root(), m->src + 5, arch, src, sizeof(src), err))
			return error_prefix(err, "%s", where);
	} else
		snprintf(src, sizeof(src), "%s", m->src);
	if (glob(src, 0, NULL, &g) || !g.gl_pathc) {
		globfree(&g);
		if (m->optional)
			return 0;
		return error_set(err, "%s: %s does not exist; run `make` (guest binaries) or `make setup` (host packages)",
				 where, src);
	}
	for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');
		size_t dl = strlen(m->dest);

		if (m->dest[dl - 1] == '/')
			snprintf(dest, sizeof(dest), "%s%s", m->dest, base ? base + 1 : g.gl_pathv[i]);
		else
			snprintf(dest, sizeof(dest), "%s", m->dest);
		rc = add_file(out, dirs, h, g.gl_pathv[i], dest, err);
		if (!rc && m->applets && out)
			rc = add_applet_links(out, dirs, g.gl_pathv[i], dest, err);
		if (rc)
			error_prefix(err, "%s", where);
	}
	globfree(&g);
	return rc;
}

/* The manifest's entries into h, and into out when it is not NULL. */
static int build_from_manifest(const char *manifest, const char *guest_dir, const char *arch,
			       struct cpio_stream *out, struct sha256 *h, struct error *err)
{
	struct buf text = BUF_INIT;
	struct strvec dirs = STRVEC_INIT;
	char *line;
	int lineno = 0, rc = 0;

	if (read_file(manifest, &text, err))
		return -1;
	sha256_update(h, buf_str(&text), text.len);
	for (char *p = text.data; p && *p && !rc; p = line ? line : NULL) {
		char *nl = strchr(p, '\n');
		struct manifest_line m;
		char where[600];

		line = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		if (strchr(p, '#'))
			*strchr(p, '#') = '\0';
		if (strspn(p, " \t") == strlen(p))
			continue;
		snprintf(where, sizeof(where), "%s:%d", manifest, lineno);
		rc = parse_manifest_line(manifest, lineno, p, &m, err) ||
		     add_manifest_entry(out, &dirs, h, &m, guest_dir, arch, where, err);
	}
	strvec_clear(&dirs);
	buf_free(&text);
	return rc ? -1 : 0;
}

/* A new file at path (atomically): the manifest's entries and the trailer. */
static int write_base(const char *path, const char *manifest, const char *guest_dir, const char *arch,
		      struct error *err)
{
	struct cpio_stream st = CPIO_STREAM_INIT;
	struct sha256 ignored;
	int rc = cpio_stream_open(&st, path, err);

	sha256_init(&ignored);
	if (!rc)
		rc = build_from_manifest(manifest, guest_dir, arch, &st, &ignored, err);
	if (!rc)
		cpio_add(&st.pending, NULL, 0, NULL, 0);
	return cpio_stream_close(&st, path, rc, err);
}

int image_base(enum topo_arch arch, const char *guest_dir, char *out, size_t cap,
	       struct error *err)
{
	char manifest[1024], hex[65], dir[1024];
	unsigned char digest[32];
	struct sha256 h;

	snprintf(manifest, sizeof(manifest), "%s/images/%s.manifest", lab_root(), topo_arch_name(arch));
	sha256_init(&h);
	if (build_from_manifest(manifest, guest_dir, topo_arch_name(arch), NULL, &h, err))
		return -1;
	sha256_final(&h, digest);
	sha256_hex(digest, hex);
	snprintf(dir, sizeof(dir), "%s/images", lab_cache_dir());
	snprintf(out, cap, "%s/%s-%.16s.cpio", dir, topo_arch_name(arch), hex);
	if (file_exists(out))
		return 0;
	return mkdir_p(dir, err) || write_base(out, manifest, guest_dir, topo_arch_name(arch), err) ? -1 : 0;
}

/* The regular file at path as the executable dest, streamed; anything else is left out. */
static int add_executable(struct cpio_stream *s, const char *path, const char *dest, struct error *err)
{
	struct buf bin = BUF_INIT;
	struct stat st;
	int rc = 0;

	if (!stat(path, &st) && S_ISREG(st.st_mode) && !(rc = read_file(path, &bin, err)))
		cpio_add(&s->pending, dest, 0100755, bin.data, bin.len);
	buf_free(&bin);
	cpio_flush(s);
	return rc;
}

/*
 * Does the run need the kernel selftest file name?  All of them for the
 * suite kselftest-mm; else only one a guest test of the same name runs
 * (tests/guest/suites/khugepaged runs kselftest/mm/khugepaged): the whole set is tens of
 * MB of initramfs, read and unpacked at every boot.
 */
static int kselftest_wanted(const struct run_part *run, const char *name)
{
	for (int i = 0; run->tests[i]; i++)
		if (!strcmp(run->tests[i], "kselftest-mm") || !strcmp(run->tests[i], name))
			return 1;
	return 0;
}

/* The regular files of dir/mm the run needs, as lab/kselftest/mm/NAME. */
static int add_kselftests(struct cpio_stream *s, const char *dir, const struct run_part *run,
			  struct error *err)
{
	char *mm = xprintf("%s/mm", dir);
	DIR *d = opendir(mm);
	struct dirent *e;
	int rc = 0;

	if (!d)
		rc = error_set(err, "cannot read %s: %s", mm, strerror(errno));
	cpio_add(&s->pending, "lab/kselftest", 040755, NULL, 0);
	cpio_add(&s->pending, "lab/kselftest/mm", 040755, NULL, 0);
	while (!rc && (e = readdir(d))) {
		char *path = xprintf("%s/%s", mm, e->d_name), *name = xprintf("lab/kselftest/mm/%s", e->d_name);

		if (e->d_name[0] != '.' && kselftest_wanted(run, e->d_name))
			rc = add_executable(s, path, name, err);
		free(path);
		free(name);
	}
	if (d)
		closedir(d);
	free(mm);
	return rc;
}

/* dir/name as lab/tests/name; "." entries and names with a '/' are not tests. */
static int add_guest_test(struct cpio_stream *s, const char *dir, const char *name, struct error *err)
{
	char *path, *dest;
	int rc;

	if (name[0] == '.' || strchr(name, '/'))
		return 0;
	path = xprintf("%s/%s", dir, name);
	dest = xprintf("lab/tests/%s", name);
	rc = add_executable(s, path, dest, err);
	free(path);
	free(dest);
	return rc;
}

/*
 * The guest tests the run names, from guest_dir/tests/ as lab/tests/NAME;
 * every one for a shell, whose user may start any by hand.  The base image
 * holds none: all of them are 10 MB of a 14 MB initramfs, read by QEMU and
 * unpacked by the kernel at every boot (0.2-0.3 s of a TCG boot).  A name
 * that is not built is left out, for /init to report as it runs the plan.
 */
static int add_guest_tests(struct cpio_stream *s, const struct run_part *run, struct error *err)
{
	char *dir = xprintf("%s/tests", run->guest_dir);
	DIR *d = run->shell ? opendir(dir) : NULL;
	struct dirent *e;
	int rc = 0;

	cpio_add(&s->pending, "lab/tests", 040755, NULL, 0);
	if (d) {
		while (!rc && (e = readdir(d)))
			rc = add_guest_test(s, dir, e->d_name, err);
		closedir(d);
	} else {
		for (int i = 0; !rc && run->tests[i]; i++)
			rc = add_guest_test(s, dir, run->tests[i], err);
	}
	free(dir);
	return rc;
}

/* The user's file as /lab/BASENAME. */
static int add_guest_file(struct cpio_stream *s, const char *path, struct error *err)
{
	const char *slash = strrchr(path, '/');
	char *name = xprintf("lab/%s", slash ? slash + 1 : path);
	struct buf data = BUF_INIT;
	int rc = read_file(path, &data, err);

	if (!rc)
		cpio_add(&s->pending, name, 0100644, data.data, data.len);
	buf_free(&data);
	cpio_flush(s);
	free(name);
	return rc;
}

/* An archive's bytes (the base image, a modules archive) copied in chunks into fd, the file out. */
static int copy_archive(const char *base, int fd, const char *out, struct error *err)
{
	char chunk[65536];
	struct stat st;
	ssize_t n = 0;
	int in = open(base, O_RDONLY | O_CLOEXEC), rc = 0;

	if (in < 0 || fstat(in, &st))
		rc = error_set(err, "cannot read %s: %s", base, strerror(errno));
	else if (st.st_size % 4)
		rc = error_set(err, "%s is not a newc archive (size %lld is not a multiple of 4); remove it "
			       "and run again", base, (long long)st.st_size);
	while (!rc && (n = read(in, chunk, sizeof(chunk))) > 0)
		if (write_all(fd, chunk, (size_t)n))
			rc = error_set(err, "cannot write %s: %s", out, strerror(errno));
	if (!rc && n < 0)
		rc = error_set(err, "cannot read %s: %s", base, strerror(errno));
	if (in >= 0)
		close(in);
	return rc;
}

void image_plan(const struct run_part *run, struct buf *out)
{
	for (int i = 0; run->tests[i]; i++)
		buf_addf(out, "%s %d\n", run->tests[i], run->test_timeout_s);
	for (size_t i = 0; i < run->nr_suites; i++)
		buf_addf(out, "%s %d\n", run->suites[i].name,
			 run->suites[i].timeout_s ? run->suites[i].timeout_s : run->test_timeout_s);
	if (run->exec_argv)
		buf_addf(out, "@exec %d\n", run->test_timeout_s);
}

/* One host file or directory tree as dest (a cpio path without the leading '/'). */
static int add_tree(struct buf *initrd, const char *src, const char *dest, struct error *err)
{
	struct stat st;
	int rc = 0;

	if (stat(src, &st))
		return error_set(err, "%s: %s", src, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		struct buf data = BUF_INIT;

		if (!(rc = read_file(src, &data, err)))
			cpio_add(initrd, dest, 0100000 | (st.st_mode & 0777), data.data, data.len);
		buf_free(&data);
		return rc;
	}
	if (!S_ISDIR(st.st_mode))
		return error_set(err, "%s: neither a file nor a directory", src);
	DIR *d = opendir(src);
	struct dirent *e;

	if (!d)
		return error_set(err, "%s: %s", src, strerror(errno));
	cpio_add(initrd, dest, 040755, NULL, 0);
	while (!rc && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char *from = xprintf("%s/%s", src, e->d_name), *to = xprintf("%s/%s", dest, e->d_name);

			rc = add_tree(initrd, from, to, err);
			free(from);
			free(to);
		}
	closedir(d);
	return rc;
}

/* Each parent directory of rel (a path under base/) as a cpio directory. */
static void add_rel_parents(struct buf *initrd, const char *base, const char *rel)
{
	for (const char *p = strchr(rel, '/'); p; p = strchr(p + 1, '/')) {
		char *dir = xprintf("%s/%.*s", base, (int)(p - rel), rel);

		cpio_add(initrd, dir, 040755, NULL, 0);
		free(dir);
	}
}

/* --tests-dir suites: lab/suites/NAME/{NAME,files...} and lab/suites/NAME.conf. */
static int add_suites(struct buf *initrd, const struct run_part *run, struct error *err)
{
	int rc = 0;

	if (run->nr_suites)
		cpio_add(initrd, "lab/suites", 040755, NULL, 0);
	for (size_t i = 0; i < run->nr_suites && !rc; i++) {
		const struct suite *s = &run->suites[i];
		char *dir = xprintf("lab/suites/%s", s->name), *bin = xprintf("%s/%s", dir, s->name);
		char *src = xprintf("%s/%s", s->dir, s->name), *conf = xprintf("%s.conf", dir);
		struct buf text = BUF_INIT;

		cpio_add(initrd, dir, 040755, NULL, 0);
		rc = add_tree(initrd, src, bin, err);
		for (size_t f = 0; f < s->files.nr && !rc; f++) {
			char *from = xprintf("%s/%s", s->dir, s->files.items[f]);
			char *to = xprintf("%s/%s", dir, s->files.items[f]);

			add_rel_parents(initrd, dir, s->files.items[f]);
			rc = add_tree(initrd, from, to, err);
			free(from);
			free(to);
		}
		suite_guest_conf(s, &text);
		cpio_add(initrd, conf, 0100644, text.data, text.len);
		buf_free(&text);
		free(dir);
		free(bin);
		free(src);
		free(conf);
	}
	return rc;
}

/*
 * lab/shares: "TAG ro|rw host|lab PATH" per share; lab/exec: the TAP name,
 * the working directory, then the argv, each NUL-terminated; lab/shell:
 * "TERM ROWS COLS" and the working directory, a line each.
 */
static void add_host_parts(struct buf *initrd, const struct run_part *run)
{
	struct buf text = BUF_INIT;

	if (run->nr_shares) {
		for (int i = 0; i < run->nr_shares; i++) {
			const struct guest_share *sh = &run->shares[i];

			buf_addf(&text, "%s %s %s %s\n", sh->vm.tag, sh->vm.writable ? "rw" : "ro",
				 sh->view == SHARE_IN_LAB ? "lab" : "host", sh->guest_path);
		}
		cpio_add(initrd, "lab/shares", 0100644, text.data, text.len);
	}
	if (run->exec_argv) {
		text.len = 0;
		buf_add(&text, run->exec_name, strlen(run->exec_name) + 1);
		buf_add(&text, run->exec_cwd, strlen(run->exec_cwd) + 1);
		for (int i = 0; run->exec_argv[i]; i++)
			buf_add(&text, run->exec_argv[i], strlen(run->exec_argv[i]) + 1);
		cpio_add(initrd, "lab/exec", 0100644, text.data, text.len);
	}
	if (run->shell) {
		text.len = 0;
		buf_addf(&text, "%s %d %d\n%s\n", run->shell_term && *run->shell_term ? run->shell_term : "linux",
			 run->shell_rows, run->shell_cols, run->exec_cwd ? run->exec_cwd : "");
		cpio_add(initrd, "lab/shell", 0100644, text.data, text.len);
	}
	buf_free(&text);
}

int image_run_initrd(const char *base, const struct run_part *run, const char *out_path,
		     struct error *err)
{
	struct buf topo_text = BUF_INIT, plan = BUF_INIT;
	struct cpio_stream st = CPIO_STREAM_INIT;
	int rc = read_file(run->topo->path, &topo_text, err);

	if (!rc)
		rc = cpio_stream_open(&st, out_path, err);
	if (!rc)
		rc = copy_archive(base, st.fd, out_path, err);
	if (!rc) {
		image_plan(run, &plan);
		cpio_add(&st.pending, "lab", 040755, NULL, 0);
		cpio_add(&st.pending, "lab/topology", 0100644, topo_text.data, topo_text.len);
		cpio_add(&st.pending, "lab/plan", 0100644, plan.data, plan.len);
		cpio_flush(&st);
	}
	if (!rc)
		rc = add_guest_tests(&st, run, err);
	if (!rc && run->kselftest && *run->kselftest)
		rc = add_kselftests(&st, run->kselftest, run, err);
	if (!rc && run->guest_file)
		rc = add_guest_file(&st, run->guest_file, err);
	/* The user's suites and the kernel's config are small: one flush each. */
	if (!rc)
		rc = add_suites(&st.pending, run, err);
	cpio_flush(&st);
	if (!rc && run->kernel_config)
		rc = add_tree(&st.pending, run->kernel_config, "lab/kernel.config", err);
	if (!rc) {
		add_host_parts(&st.pending, run);
		cpio_add(&st.pending, NULL, 0, NULL, 0);
	}
	cpio_flush(&st);
	/* The kernel's modules: an archive of its own after ours. */
	if (!rc && run->modules_cpio)
		rc = copy_archive(run->modules_cpio, st.fd, out_path, err);
	rc = cpio_stream_close(&st, out_path, rc, err);
	buf_free(&topo_text);
	buf_free(&plan);
	return rc;
}

/* DEST is a file in a directory of programs: .../bin/NAME or .../sbin/NAME. */
static int in_bin_dir(const char *dest)
{
	const char *slash = strrchr(dest, '/');
	size_t dir = slash ? (size_t)(slash - dest) : 0;

	return (dir >= 4 && !strncmp(slash - 4, "/bin", 4)) || (dir >= 5 && !strncmp(slash - 5, "/sbin", 5));
}

int image_guest_program(const char *root, enum topo_arch arch, const char *name, struct error *err)
{
	char manifest[1024], *line, *words[LINES_MAX_WORDS];
	struct buf text = BUF_INIT;
	struct lines l;
	int found = 0, rc = 0, n;

	snprintf(manifest, sizeof(manifest), "%s/images/%s.manifest", root, topo_arch_name(arch));
	if (read_file(manifest, &text, err))
		return -1;
	lines_init(&l, manifest, text.data, text.len);
	/* "SOURCE /DEST [WHAT]"; image_base() refuses other lines. */
	while (!found && (rc = lines_next(&l, &line)) > 0 && (rc = n = lines_words(&l, line, words)) > 0) {
		if (n < 2)
			continue;
		found = in_bin_dir(words[1]) && !strcmp(strrchr(words[1], '/') + 1, name);
	}
	buf_free(&text);
	if (rc < 0)
		return error_set(err, "%s", l.msg);
	return found;
}
