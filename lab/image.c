#include "image.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* One image entry: a file read from the host, going to dest in the image. */
static int add_file(struct buf *out, struct strvec *dirs, struct sha256 *h,
		    const char *src, const char *dest, struct error *err)
{
	struct buf data = BUF_INIT;
	struct stat st;

	if (stat(src, &st) || read_file(src, &data, err))
		return error_set(err, "%s: %s", src, strerror(errno));
	add_parents(out, dirs, dest);
	cpio_add(out, dest + 1, 0100000 | (st.st_mode & 0777), data.data, data.len);
	sha256_update(h, dest, strlen(dest) + 1);
	sha256_update(h, &st.st_mode, sizeof(st.st_mode));
	sha256_update(h, buf_str(&data), data.len);
	buf_free(&data);
	return 0;
}

struct manifest_line {
	char src[512], dest[512];
	int optional;
};

static int parse_manifest_line(const char *path, int lineno, char *line,
			       struct manifest_line *m, struct error *err)
{
	char opt[32] = "";
	int n = sscanf(line, "%511s %511s %31s", m->src, m->dest, opt);

	if (n < 2 || m->dest[0] != '/' || (n == 3 && strcmp(opt, "optional")))
		return error_set(err, "%s:%d: expected `SOURCE /DEST [optional]`", path, lineno);
	m->optional = n == 3;
	return 0;
}

/* Expand @guest/ and globs; a glob's matches go into dest, a directory. */
static int add_manifest_entry(struct buf *out, struct strvec *dirs, struct sha256 *h,
			      const struct manifest_line *m, const char *guest_dir,
			      const char *where, struct error *err)
{
	char src[1024], dest[1024];
	glob_t g;
	int rc = 0;

	if (!strncmp(m->src, "@guest/", 7))
		snprintf(src, sizeof(src), "%s/%s", guest_dir, m->src + 7);
	else
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
		if (rc)
			error_prefix(err, "%s", where);
	}
	globfree(&g);
	return rc;
}

static int build_from_manifest(const char *manifest, const char *guest_dir, struct buf *out,
			       struct sha256 *h, struct error *err)
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
		     add_manifest_entry(out, &dirs, h, &m, guest_dir, where, err);
	}
	strvec_clear(&dirs);
	buf_free(&text);
	return rc ? -1 : 0;
}

int image_base(enum topo_arch arch, const char *guest_dir, char *out, size_t cap,
	       struct error *err)
{
	char manifest[1024], hex[65], dir[1024];
	unsigned char digest[32];
	struct buf cpio = BUF_INIT;
	struct sha256 h;
	int rc;

	snprintf(manifest, sizeof(manifest), "%s/images/%s.manifest", lab_root(), topo_arch_name(arch));
	sha256_init(&h);
	if (build_from_manifest(manifest, guest_dir, &cpio, &h, err)) {
		buf_free(&cpio);
		return -1;
	}
	cpio_add(&cpio, NULL, 0, NULL, 0);
	sha256_final(&h, digest);
	sha256_hex(digest, hex);
	snprintf(dir, sizeof(dir), "%s/images", lab_cache_dir());
	snprintf(out, cap, "%s/%s-%.16s.cpio", dir, topo_arch_name(arch), hex);
	rc = 0;
	if (!file_exists(out))
		rc = mkdir_p(dir, err) || write_file_atomic(out, cpio.data, cpio.len, err) ? -1 : 0;
	buf_free(&cpio);
	return rc;
}

/*
 * Does the run need the kernel selftest file name?  All of them for the
 * suite kselftest-mm; else only one a guest test of the same name runs
 * (tests/khugepaged runs kselftest/mm/khugepaged): the whole set is tens of
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
static int add_kselftests(struct buf *initrd, const char *dir, const struct run_part *run,
			  struct error *err)
{
	char *mm = xprintf("%s/mm", dir);
	DIR *d = opendir(mm);
	struct dirent *e;
	int rc = 0;

	if (!d)
		rc = error_set(err, "cannot read %s: %s", mm, strerror(errno));
	cpio_add(initrd, "lab/kselftest", 040755, NULL, 0);
	cpio_add(initrd, "lab/kselftest/mm", 040755, NULL, 0);
	while (!rc && (e = readdir(d))) {
		char *path = xprintf("%s/%s", mm, e->d_name), *name = xprintf("lab/kselftest/mm/%s", e->d_name);
		struct buf bin = BUF_INIT;
		struct stat st;

		if (e->d_name[0] != '.' && kselftest_wanted(run, e->d_name) && !stat(path, &st) &&
		    S_ISREG(st.st_mode) && !(rc = read_file(path, &bin, err)))
			cpio_add(initrd, name, 0100755, bin.data, bin.len);
		buf_free(&bin);
		free(path);
		free(name);
	}
	if (d)
		closedir(d);
	free(mm);
	return rc;
}

/* The user's file as /lab/BASENAME. */
static int add_guest_file(struct buf *initrd, const char *path, struct error *err)
{
	const char *slash = strrchr(path, '/');
	char *name = xprintf("lab/%s", slash ? slash + 1 : path);
	struct buf data = BUF_INIT;
	int rc = read_file(path, &data, err);

	if (!rc)
		cpio_add(initrd, name, 0100644, data.data, data.len);
	buf_free(&data);
	free(name);
	return rc;
}

void image_plan(const struct run_part *run, struct buf *out)
{
	for (int i = 0; run->tests[i]; i++)
		buf_addf(out, "%s %d\n", run->tests[i], run->test_timeout_s);
}

int image_run_initrd(const char *base, const struct run_part *run, const char *out_path,
		     struct error *err)
{
	struct buf initrd = BUF_INIT, topo_text = BUF_INIT, plan = BUF_INIT;
	int rc = -1;

	if (read_file(base, &initrd, err) || read_file(run->topo->path, &topo_text, err))
		goto out;
	image_plan(run, &plan);
	cpio_add(&initrd, "lab", 040755, NULL, 0);
	cpio_add(&initrd, "lab/topology", 0100644, topo_text.data, topo_text.len);
	cpio_add(&initrd, "lab/plan", 0100644, plan.data, plan.len);
	if (run->kselftest && *run->kselftest && add_kselftests(&initrd, run->kselftest, run, err))
		goto out;
	if (run->guest_file && add_guest_file(&initrd, run->guest_file, err))
		goto out;
	cpio_add(&initrd, NULL, 0, NULL, 0);
	rc = write_file_atomic(out_path, initrd.data, initrd.len, err);
out:
	buf_free(&initrd);
	buf_free(&topo_text);
	buf_free(&plan);
	return rc;
}
