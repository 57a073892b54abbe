#include "kernel/kbuild.h"
#include "model/kselftest.h"
#include "model/patch.h"
#include "base/git.h"
#include "base/proc.h"
#include "base/progress.h"
#include "kernel/pin.h"
#include "kernel/srctree.h"
#include "host/toolroot.h"
#include "base/interrupt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Per arch: the kernel's ARCH, the cross prefix, the image make builds, and
 * whether the image is installed without its symbol table.
 */
static const struct kbuild_arch {
	const char *arch, *karch, *cross, *target, *image;
	int strip;
} arches[] = {
	/*
	 * The uncompressed ELF: QEMU boots it through its PVH entry
	 * (lab-x86_64.config), so no decompressor runs under TCG, and a
	 * mutant's build skips compressing the image.  Stripped: QEMU's ELF
	 * loader reads and sorts the symbol table at every boot (25 ms of
	 * QEMU's 135 ms start); the kernel's own symbols are in kallsyms.
	 */
	{ "x86_64", "x86_64", "", "vmlinux", "vmlinux", 1 },
	/* Uncompressed PE: EFI_ZBOOT's vmlinuz.efi needs hexdump, which the toolroot lacks. */
	{ "loongarch64", "loongarch", "loongarch64-linux-gnu-", "vmlinux.efi",
	  "arch/loongarch/boot/vmlinux.efi", 0 },
};

struct build {
	const char *root;          /* project root */
	const char *spec;          /* the recipe's */
	char name[160];            /* the kernel's: spec, "tree-DIRNAME", "+Npatches" appended */
	const struct kbuild_arch *a;
	struct recipe r;
	char toolroot[PATH_MAX];   /* LoongArch: the toolchain root; "" host tools */
	char source_id[PATH_MAX + 96], compiler[256];
	/* What the work tree holds: the source_id, but for git only the tree (any commit). */
	char tree_id[PATH_MAX + 96];   /* as large as source_id, which it may copy */
	char key[17], config_key[17];
	char work[PATH_MAX], src[PATH_MAX + 8], obj[PATH_MAX + 8], log[PATH_MAX + 16];
	char done[PATH_MAX];       /* the finished directory */
	struct strvec env;
	/* Every patch of r read by patch.h (for its subject and to explain a failure); NULL if unreadable. */
	const struct patch *parsed[RECIPE_MAX_PATCHES];
	struct patch_set sets[RECIPE_MAX_PATCHES];
	int nr_sets;
	char tree_describe[128], tree_diff[65];   /* RECIPE_SOURCE_TREE: srctree_git() */
};

/* The image's file name, as the finished kernel's directory holds it. */
static const char *image_name(const struct kbuild_arch *a)
{
	const char *slash = strrchr(a->image, '/');

	return slash ? slash + 1 : a->image;
}

static const struct kbuild_arch *find_arch(const char *arch)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (!strcmp(arches[i].arch, arch))
			return &arches[i];
	return NULL;
}

int kbuild_has_recipe(const char *root, const char *spec)
{
	char *path = xprintf("%s/%s/%.*s.recipe", root, RECIPE_DIR, (int)strcspn(spec, "+"), spec);
	int ok = !strchr(spec, '/') && file_exists(path);

	free(path);
	return ok;
}

/* ---- running tools (inside the toolroot for LoongArch) ---- */

static void build_env(struct build *b)
{
	const char *home = getenv("HOME");

	strvec_push(&b->env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	strvec_pushf(&b->env, "HOME=%s", home ? home : "/");
	strvec_push(&b->env, "LC_ALL=C");
	strvec_pushf(&b->env, "NUMALAB_CACHE=%s", lab_cache_dir());
	strvec_pushf(&b->env, "CCACHE_DIR=%s/ccache", lab_cache_dir());
	/* Work trees differ only in their directory: relative paths let them share hits. */
	strvec_pushf(&b->env, "CCACHE_BASEDIR=%s/kbuild", lab_cache_dir());
	strvec_push(&b->env, "KBUILD_BUILD_USER=numalab");
	strvec_push(&b->env, "KBUILD_BUILD_HOST=numalab");
	strvec_push(&b->env, "KBUILD_BUILD_TIMESTAMP=2026-01-01");
}

static void wrap(const struct build *b, const char **argv, struct strvec *out)
{
	toolroot_argv(b->toolroot, argv, out);
}

/* Run argv (in dir, NULL: here) with the build's environment, output to the log. */
static int run_tool_in(struct build *b, const char *what, const char **argv, const char *dir,
		       struct error *err)
{
	struct strvec full = STRVEC_INIT;
	int rc;

	wrap(b, argv, &full);
	rc = proc_run_logged(what, strvec_argv(&full), dir, strvec_argv(&b->env), b->log, err);
	strvec_clear(&full);
	return rc;
}

static int run_tool(struct build *b, const char *what, const char **argv, struct error *err)
{
	return run_tool_in(b, what, argv, NULL, err);
}

int kbuild_make_argv(const char *arch, const char *src, const char *obj, const char *const *extra,
		     struct strvec *argv)
{
	const struct kbuild_arch *a = find_arch(arch);

	if (!a)
		return -1;
	strvec_push(argv, "make");
	strvec_pushf(argv, "-C%s", src);
	strvec_pushf(argv, "O=%s", obj);
	strvec_pushf(argv, "ARCH=%s", a->karch);
	if (*a->cross)
		strvec_pushf(argv, "CROSS_COMPILE=%s", a->cross);
	strvec_pushf(argv, "CC=ccache %sgcc", a->cross);
	for (int i = 0; extra[i]; i++)
		strvec_push(argv, extra[i]);
	return 0;
}

/* make -C src O=obj ... for the build's arch (kbuild_make_argv()). */
static void make_argv(const struct build *b, struct strvec *argv, const char *const *extra)
{
	kbuild_make_argv(b->a->arch, b->src, b->obj, extra, argv);
}

static int run_make(struct build *b, const char *what, const char *const *extra, struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	int rc;

	make_argv(b, &argv, extra);
	rc = run_tool(b, what, strvec_argv(&argv), err);
	strvec_clear(&argv);
	return rc;
}

/* ---- identity: source, compiler, keys ---- */

static int source_identity(struct build *b, struct error *err)
{
	struct recipe *r = &b->r;
	char hex[65], commit[65];

	switch (r->source) {
	case RECIPE_SOURCE_PINNED:
		return kernel_fetch_source(b->root, r->source_ref, NULL, 0, b->source_id,
					   sizeof(b->source_id), err);
	case RECIPE_SOURCE_TARBALL:
		if (sha256_file(r->source_ref, hex, err)) {
			error_prefix(err, "%s:%d: source tarball", r->path, r->source_line);
			return error_as_input(err);
		}
		snprintf(b->source_id, sizeof(b->source_id), "tarball:%s sha256:%s", r->source_ref, hex);
		return 0;
	case RECIPE_SOURCE_GIT:
		if (git_rev_parse(&(struct git){ .dir = r->source_ref }, r->rev, commit, sizeof(commit), err))
			return error_input(err, "%s:%d: %s is not a commit of the git tree %s; fix the "
					   "source line", r->path, r->source_line, r->rev, r->source_ref);
		/* The commit names the source wherever the tree is: clones share built kernels. */
		snprintf(b->source_id, sizeof(b->source_id), "git:%s", commit);
		snprintf(b->tree_id, sizeof(b->tree_id), "git:%s", r->source_ref);
		return 0;
	case RECIPE_SOURCE_TREE:
		/* The listing, not the content: cheap enough to run before every build. */
		if (srctree_check_clean(r->source_ref, err) || srctree_manifest(r->source_ref, hex, err) ||
		    srctree_git(r->source_ref, b->tree_describe, sizeof(b->tree_describe), b->tree_diff, err))
			return error_as_input(err);   /* each only reads the user's tree */
		snprintf(b->source_id, sizeof(b->source_id), "tree:%s listing-sha256:%s", r->source_ref, hex);
		snprintf(b->tree_id, sizeof(b->tree_id), "tree:%s", r->source_ref);
		return 0;
	}
	return -1;
}

static int compiler_identity(struct build *b, struct error *err)
{
	char *cc = xprintf("%sgcc", b->a->cross);
	const char *argv[] = { cc, "--version", NULL };
	struct strvec full = STRVEC_INIT;
	int rc;

	wrap(b, argv, &full);
	rc = proc_capture(strvec_argv(&full), b->compiler, sizeof(b->compiler), err);
	b->compiler[strcspn(b->compiler, "\n")] = '\0';
	if (rc != 0 || !b->compiler[0])
		rc = error_set(err, "`%s --version` failed: install the compiler (make setup)", cc);
	strvec_clear(&full);
	free(cc);
	return rc;
}

/* Build spec's recipe from REV of the git tree dir instead of its own source. */
static int override_source(struct recipe *r, const char *dir, const char *rev, struct error *err)
{
	if (!realpath(dir, r->source_ref))
		return error_input(err, "git tree %s: %s; give an existing kernel git tree", dir,
				   strerror(errno));
	r->source = RECIPE_SOURCE_GIT;
	snprintf(r->rev, sizeof(r->rev), "%s", rev);
	return 0;
}

/* Build the recipe from the source tree dir, as it is. */
static int use_tree(struct build *b, const char *dir, struct error *err)
{
	char base[64];
	const char *slash;
	size_t n = 0;

	if (!realpath(dir, b->r.source_ref))
		return error_input(err, "kernel tree %s: %s", dir, strerror(errno));
	if (!srctree_is_kernel(b->r.source_ref))
		return error_input(err, "%s is not a kernel source tree (no Makefile, Kconfig, mm/, arch/ "
				   "and scripts/kconfig/); give the top of one", dir);
	b->r.source = RECIPE_SOURCE_TREE;
	b->r.rev[0] = '\0';
	slash = strrchr(b->r.source_ref, '/');
	for (const char *c = slash ? slash + 1 : b->r.source_ref; *c && n < sizeof(base) - 1; c++)
		base[n++] = strchr("+/ \t", *c) ? '_' : *c;
	base[n] = '\0';
	snprintf(b->name, sizeof(b->name), "tree-%s", n ? base : "root");
	return 0;
}

/* The patches of the file path (patch.h), kept as the next of b->sets; errors are the caller's to judge. */
static int read_patches(struct build *b, const char *path, struct patch_set **set, struct error *err)
{
	struct buf text = BUF_INIT;
	int rc = read_file(path, &text, err);

	*set = &b->sets[b->nr_sets];
	if (!rc)
		rc = patch_parse(path, buf_str(&text), text.len, *set, err);
	if (!rc)
		b->nr_sets++;
	buf_free(&text);
	return rc;
}

/* --patch files: every patch they hold joins the series as CACHE/patches/SHA256.patch. */
static int add_patch_files(struct build *b, const struct kernel_request *req, struct error *err)
{
	char *dir = xprintf("%s/patches", lab_cache_dir());
	int rc = mkdir_p(dir, err);

	for (int i = 0; !rc && req && i < req->nr_patches; i++) {
		const char *file = req->patches[i], *slash = strrchr(file, '/');
		struct patch_set *set;

		if (b->nr_sets == RECIPE_MAX_PATCHES) {
			rc = error_input(err, "more than %d patches; apply fewer", RECIPE_MAX_PATCHES);
			break;
		}
		if (read_patches(b, file, &set, err)) {
			rc = error_as_input(err);   /* read_file() cannot know it was the user's file */
			error_prefix(err, "--patch");
			break;
		}
		for (int k = 0; !rc && k < set->nr; k++) {
			const struct patch *p = &set->items[k];
			struct recipe_patch *rp = &b->r.patches[b->r.nr_patches];

			if (b->r.nr_patches == RECIPE_MAX_PATCHES) {
				rc = error_input(err, "--patch %s: more than %d patches in the series; apply fewer",
						 file, RECIPE_MAX_PATCHES);
				break;
			}
			memset(rp, 0, sizeof(*rp));
			snprintf(rp->path, sizeof(rp->path), "%s/%s.patch", dir, p->sha256);
			memcpy(rp->sha256, p->sha256, 65);
			if (set->nr > 1) {
				snprintf(rp->origin, sizeof(rp->origin), "%s#%d", file, k + 1);
				snprintf(rp->name, sizeof(rp->name), "%s#%d", slash ? slash + 1 : file, k + 1);
			} else {
				snprintf(rp->origin, sizeof(rp->origin), "%s", file);
				snprintf(rp->name, sizeof(rp->name), "%s", slash ? slash + 1 : file);
			}
			snprintf(rp->subject, sizeof(rp->subject), "%s", p->subject);
			b->parsed[b->r.nr_patches++] = p;
			if (!file_exists(rp->path))
				rc = write_file_atomic(rp->path, p->diff.data, p->diff.len, err);
		}
	}
	free(dir);
	return rc;
}

/* The recipe's own patches by patch.h: their subjects, and hunk headers should one fail. */
static void read_recipe_patches(struct build *b)
{
	struct error ignored;
	struct patch_set *set;

	for (int i = 0; i < b->r.nr_patches && b->nr_sets < RECIPE_MAX_PATCHES; i++)
		if (!read_patches(b, b->r.patches[i].path, &set, &ignored)) {
			b->parsed[i] = &set->items[0];
			snprintf(b->r.patches[i].subject, sizeof(b->r.patches[i].subject), "%s",
				 set->items[0].subject);
		}
}

/*
 * Recipe, tools and keys: everything but the build itself.  git_dir: see
 * kbuild_kernel_at(); tree and req: see kbuild_kernel_request().
 */
static int prepare(struct build *b, const char *root, const char *spec, const char *arch,
		   const char *git_dir, const char *rev, const char *tree,
		   const struct kernel_request *req, struct error *err)
{
	struct toolroot_tools tools;
	int rc, user_patches;

	memset(b, 0, sizeof(*b));
	b->root = root;
	b->spec = spec;
	snprintf(b->name, sizeof(b->name), "%s", spec);
	if (!(b->a = find_arch(arch)))
		return error_input(err, "internal: no kernel build for arch %s", arch);
	rc = recipe_load(root, spec, &b->r, err);
	if (!rc && git_dir)
		rc = override_source(&b->r, git_dir, rev, err);
	if (!rc && tree)
		rc = use_tree(b, tree, err);
	if (!rc)
		read_recipe_patches(b);
	user_patches = b->r.nr_patches;
	if (!rc)
		rc = add_patch_files(b, req, err);
	if (rc)
		return -1;
	user_patches = b->r.nr_patches - user_patches;
	if (user_patches) {
		size_t used = strlen(b->name);

		snprintf(b->name + used, sizeof(b->name) - used, "+%dpatch%s", user_patches,
			 user_patches > 1 ? "es" : "");
	}
	if (strcmp(arch, "x86_64")) {
		if (toolroot_tools(&tools, 0, err))
			return -1;
		snprintf(b->toolroot, sizeof(b->toolroot), "%s", tools.root);
	}
	build_env(b);
	if (source_identity(b, err))
		return -1;
	if (!b->tree_id[0])
		snprintf(b->tree_id, sizeof(b->tree_id), "%s", b->source_id);
	if (compiler_identity(b, err) ||
	    recipe_key(&b->r, root, arch, b->source_id, b->compiler, 1, b->key, err) ||
	    recipe_key(&b->r, root, arch, b->tree_id, b->compiler, 0, b->config_key, err))
		return -1;
	snprintf(b->work, sizeof(b->work), "%s/kbuild/%s-%s", lab_cache_dir(), arch, b->config_key);
	snprintf(b->src, sizeof(b->src), "%s/src", b->work);
	snprintf(b->obj, sizeof(b->obj), "%s/obj", b->work);
	snprintf(b->log, sizeof(b->log), "%s/build.log", b->work);
	snprintf(b->done, sizeof(b->done), "%s/kernels/%s%s-%s-%s", lab_cache_dir(),
		 tree ? "" : "recipe-", b->name, arch, b->key);
	return 0;
}

static void build_free(struct build *b)
{
	strvec_clear(&b->env);
	for (int i = 0; i < b->nr_sets; i++)
		patch_set_free(&b->sets[i]);
}

int kbuild_explain(const char *root, const char *spec, const char *arch, char key[17],
		   struct buf *text, struct error *err)
{
	struct build *b = xmalloc(sizeof(*b));
	int rc = prepare(b, root, spec, arch, NULL, NULL, NULL, NULL, err);

	if (!rc) {
		memcpy(key, b->key, 17);
		rc = recipe_key_text(&b->r, root, arch, b->source_id, b->compiler, 1, text, err);
	}
	build_free(b);
	free(b);
	return rc;
}

/* ---- the work tree: source ---- */

static int untar(struct build *b, const char *tarball, const char *into, int strip, struct error *err)
{
	const char *argv[] = { "tar", "-xf", tarball, "-C", into, strip ? "--strip-components=1" : NULL,
			       NULL };

	return mkdir_p(into, err) ? -1 : proc_run_logged("tar -x", argv, NULL, NULL, b->log, err);
}

static const char *git_commit(const struct build *b)
{
	return b->source_id + 4;
}

/* Check dir (a clone) out at the build's commit; only files that differ are written. */
static int git_checkout(struct build *b, const char *dir, struct error *err)
{
	const char *checkout[] = { "checkout", "-q", "-f", "--detach", git_commit(b), NULL };
	const char *clean[] = { "clean", "-q", "-f", "-d", "-x", NULL };
	struct git g = { .dir = dir, .log = b->log };

	return git_run(&g, "git checkout", checkout, err) || git_run(&g, "git clean", clean, err) ? -1 : 0;
}

static int extract_source(struct build *b, const char *into, struct error *err)
{
	struct recipe *r = &b->r;
	char tarball[PATH_MAX], id[1024];
	int rc;

	switch (r->source) {
	case RECIPE_SOURCE_PINNED:
		rc = kernel_fetch_source(b->root, r->source_ref, tarball, sizeof(tarball), id, sizeof(id), err);
		return rc ? -1 : untar(b, tarball, into, 1, err);
	case RECIPE_SOURCE_TARBALL:
		return untar(b, r->source_ref, into, 1, err);
	case RECIPE_SOURCE_GIT: {
		/* A clone sharing the tree's objects: later commits of it need no fetch. */
		const char *clone[] = { "clone", "-q", "--shared", "--no-checkout", r->source_ref, into, NULL };

		return git_run(&(struct git){ .log = b->log }, "git clone", clone, err) ||
		       git_checkout(b, into, err) ? -1 : 0;
	}
	case RECIPE_SOURCE_TREE:   /* mirrored by sync_tree(), never unpacked */
		break;
	}
	return -1;
}

/*
 * A git work tree already on another commit of the same tree moves to ours
 * in place, so make rebuilds only what the commits changed (the bisect case).
 * The checkout also drops the applied series.  Returns 1 if the move failed
 * (unpack afresh), 0 when done or nothing to move (not git, or on the commit).
 */
static int move_git_tree(struct build *b, struct error *err)
{
	char head[65];
	char *series;
	int rc;

	if (b->r.source != RECIPE_SOURCE_GIT ||
	    (!git_rev_parse(&(struct git){ .dir = b->src }, "HEAD", head, sizeof(head), err) &&
	     !strcmp(head, git_commit(b))))
		return 0;
	progress("checking out %s", b->source_id);
	series = xprintf("%s/applied/series", b->work);
	unlink(series);
	free(series);
	rc = git_checkout(b, b->src, err) ? 1 : 0;
	return rc;
}

static int sync_tree(struct build *b, struct error *err);

/* src/ holds exactly b->source_id, pristine or with the series recorded in applied/. */
static int ensure_source(struct build *b, struct error *err)
{
	char *stamp = xprintf("%s/source-id", b->work), *tmp = xprintf("%s/src.tmp", b->work);
	char *applied = xprintf("%s/applied", b->work);
	struct buf have = BUF_INIT;
	struct error ignored;
	int rc = 0;

	if (b->r.source == RECIPE_SOURCE_TREE) {
		free(stamp);
		free(tmp);
		free(applied);
		return sync_tree(b, err);
	}
	if (read_file(stamp, &have, &ignored) || strcmp(buf_str(&have), b->tree_id) ||
	    !file_exists(b->src) || move_git_tree(b, &ignored)) {
		progress("unpacking %s", b->source_id);
		remove_tree(b->src);
		remove_tree(b->obj);
		remove_tree(applied);
		remove_tree(tmp);
		unlink(stamp);
		rc = extract_source(b, tmp, err);
		if (!rc && rename(tmp, b->src))
			rc = error_set(err, "cannot rename %s to %s: %s", tmp, b->src, strerror(errno));
		if (!rc)
			rc = write_file_atomic(stamp, b->tree_id, strlen(b->tree_id), err);
		if (rc)
			remove_tree(tmp);
	}
	buf_free(&have);
	free(stamp);
	free(tmp);
	free(applied);
	return rc;
}

/* ---- the work tree: the patch series ---- */

struct applied {
	int nr;
	char sha256[RECIPE_MAX_PATCHES][65];
};

static char *applied_copy(const struct build *b, int i)
{
	return xprintf("%s/applied/%04d.patch", b->work, i + 1);
}

static void read_applied(const struct build *b, struct applied *ap)
{
	char *path = xprintf("%s/applied/series", b->work);
	struct buf text = BUF_INIT;
	struct error ignored;
	const char *p;

	ap->nr = 0;
	if (!read_file(path, &text, &ignored))
		for (p = buf_str(&text); *p && ap->nr < RECIPE_MAX_PATCHES; p = next_line(p))
			if (sscanf(p, "%64s", ap->sha256[ap->nr]) == 1)
				ap->nr++;
	buf_free(&text);
	free(path);
}

static int write_applied(const struct build *b, const struct applied *ap, struct error *err)
{
	char *path = xprintf("%s/applied/series", b->work);
	struct buf text = BUF_INIT;
	int rc;

	for (int i = 0; i < ap->nr; i++)
		buf_addf(&text, "%s\n", ap->sha256[i]);
	rc = write_file_atomic(path, text.data ? text.data : "", text.len, err);
	buf_free(&text);
	free(path);
	return rc;
}

static int patch_cmd(struct build *b, const char *patch, int reverse, int dry, char *out,
		     size_t cap, struct error *err)
{
	const char *argv[12];
	int n = 0;

	argv[n++] = "patch";
	argv[n++] = "-p1";
	argv[n++] = "--batch";
	argv[n++] = reverse ? "--reverse" : "--forward";
	argv[n++] = "--no-backup-if-mismatch";
	argv[n++] = "--reject-file=-";
	if (dry)
		argv[n++] = "--dry-run";
	argv[n++] = "-d";
	argv[n++] = b->src;
	argv[n++] = "-i";
	argv[n++] = patch;
	argv[n] = NULL;
	return proc_capture(argv, out, cap, err);
}

static int apply_one(struct build *b, int i, struct applied *ap, struct error *err)
{
	const struct recipe_patch *p = &b->r.patches[i];
	char out[8192], why[800];
	char *copy = applied_copy(b, i);
	int rc = patch_cmd(b, p->path, 0, 1, out, sizeof(out), err);

	if (rc == 0)
		rc = patch_cmd(b, p->path, 0, 0, out, sizeof(out), err);
	if (rc != 0) {
		patch_explain_failure(b->parsed[i], out, why, sizeof(why));
		free(copy);
		if (p->origin[0])
			return error_input(err, "--patch %s: \"%s\" does not apply to %s%s: %s; it needs "
					   "porting to this base (try: patch -p1 --dry-run -d %s -i %s)",
					   p->origin, p->subject, b->source_id, i ? " with the patches "
					   "before it" : "", why, b->src, p->path);
		return error_input(err, "%s:%d: patch %s does not apply to %s: %s; rebase it onto this "
				   "source (try: patch -p1 --dry-run -d %s -i %s)", b->r.path, p->line,
				   strrchr(p->path, '/') + 1, b->source_id, why, b->src, p->path);
	}
	rc = copy_file(p->path, copy, err);
	free(copy);
	memcpy(ap->sha256[ap->nr++], p->sha256, 65);
	return rc || write_applied(b, ap, err) ? -1 : 0;
}

/* Take applied patches off down to keep (reverse order); -1 if the tree no longer matches. */
static int unapply_to(struct build *b, struct applied *ap, int keep, struct error *err)
{
	char out[8192];

	while (ap->nr > keep) {
		char *copy = applied_copy(b, ap->nr - 1);
		int rc = patch_cmd(b, copy, 1, 1, out, sizeof(out), err) ||
			 patch_cmd(b, copy, 1, 0, out, sizeof(out), err);

		free(copy);
		if (rc)
			return error_set(err, "cannot take patch %d back out of %s: %.200s", ap->nr, b->src, out);
		ap->nr--;
		if (write_applied(b, ap, err))
			return -1;
	}
	return 0;
}

static int apply_series(struct build *b, struct error *err)
{
	struct applied ap;
	char *dir = xprintf("%s/applied", b->work);
	int same = 0, rc = mkdir_p(dir, err);

	free(dir);
	read_applied(b, &ap);
	while (same < ap.nr && same < b->r.nr_patches && !strcmp(ap.sha256[same], b->r.patches[same].sha256))
		same++;
	if (!rc && unapply_to(b, &ap, same, err)) {
		/* A tree we cannot restore is unpacked again. */
		warning("%s; unpacking the source again", err->msg);
		remove_tree(b->src);
		rc = ensure_source(b, err);
		read_applied(b, &ap);
	}
	for (int i = ap.nr; !rc && i < b->r.nr_patches; i++)
		rc = apply_one(b, i, &ap, err);
	return rc;
}

/* The files the applied copies change, as their diffs name them. */
static void patched_files(const struct build *b, const struct applied *ap, struct strvec *out)
{
	for (int i = 0; i < ap->nr; i++) {
		char *copy = applied_copy(b, i);
		struct buf text = BUF_INIT;
		struct patch_set set;
		struct error ignored;

		if (!read_file(copy, &text, &ignored) &&
		    !patch_parse(copy, buf_str(&text), text.len, &set, &ignored)) {
			for (int k = 0; k < set.nr; k++)
				for (int f = 0; f < set.items[k].nr_files; f++)
					strvec_pushf(out, "%s/%s", b->src, set.items[k].files[f].path);
			patch_set_free(&set);
		}
		buf_free(&text);
		free(copy);
	}
}

/*
 * A tree's mirror: the old series taken out, then synced with the tree
 * (srctree.h), so src/ is the tree as it is now; apply_series() puts the
 * series back.  Files the old series changed get the current time: the sync
 * gave them the tree's older mtime back, but their objects were built from
 * the patched text.  A mirror that cannot be restored is copied afresh,
 * without its objects.
 */
static int sync_tree(struct build *b, struct error *err)
{
	char *stamp = xprintf("%s/source-id", b->work), *applied = xprintf("%s/applied", b->work);
	struct strvec touched = STRVEC_INIT;
	struct srctree_sync_stats st;
	struct buf have = BUF_INIT;
	struct error ignored;
	struct applied ap;
	double t0 = now_s();
	int rc;

	if (read_file(stamp, &have, &ignored) || strcmp(buf_str(&have), b->tree_id) || !file_exists(b->src)) {
		progress("copying %s into %s (the tree itself is only read)", b->r.source_ref, b->src);
		remove_tree(b->src);
		remove_tree(b->obj);
		remove_tree(applied);
		unlink(stamp);
	} else {
		read_applied(b, &ap);
		patched_files(b, &ap, &touched);
		if (unapply_to(b, &ap, 0, err)) {
			warning("%s; copying the tree again", err->msg);
			remove_tree(b->src);
			remove_tree(b->obj);
			remove_tree(applied);
		}
	}
	rc = srctree_sync(b->r.source_ref, b->src, &st, err);
	for (size_t i = 0; !rc && i < touched.nr; i++)
		utimensat(AT_FDCWD, touched.items[i], NULL, 0);
	if (!rc)
		rc = write_file_atomic(stamp, b->tree_id, strlen(b->tree_id), err);
	if (!rc)
		progress("%s mirrored: %ld files, %ld copied, %ld removed (%.1f s)", b->r.source_ref,
			 st.files, st.copied, st.removed, now_s() - t0);
	strvec_clear(&touched);
	buf_free(&have);
	free(stamp);
	free(applied);
	return rc;
}

/* ---- config ---- */

/*
 * Did fragment line (n bytes) make it into config?  "CONFIG_X=v" must be
 * there as written; "# CONFIG_X is not set" and "CONFIG_X=n" only must not be
 * set (an option whose menu is hidden is left out of .config altogether).
 */
static int survived(const char *config, const char *line, size_t n)
{
	char want[512];

	if (!strncmp(line, "# CONFIG_", 9)) {
		snprintf(want, sizeof(want), "\n%.*s=", (int)strcspn(line + 2, " \n"), line + 2);
		return !strstr(config, want);
	}
	if (n > 2 && !strncmp(line + n - 2, "=n", 2)) {   /* CONFIG_X=n: as "is not set" */
		snprintf(want, sizeof(want), "\n%.*s", (int)n - 1, line);
		return !strstr(config, want);
	}
	snprintf(want, sizeof(want), "\n%.*s\n", (int)n, line);
	return strstr(config, want) != NULL;
}

/* Every CONFIG_ line of the fragments must have survived olddefconfig. */
static int check_config(struct build *b, const struct strvec *frags, struct error *err)
{
	char *path = xprintf("%s/.config", b->obj);
	struct buf config = BUF_INIT, frag = BUF_INIT;
	int rc = read_file(path, &config, err);

	for (size_t i = 0; !rc && i < frags->nr; i++) {
		const char *p;
		int line = 1;

		frag.len = 0;
		if (read_file(frags->items[i], &frag, err)) {
			rc = error_as_input(err);   /* a fragment the recipe or the user named */
			break;
		}
		for (p = buf_str(&frag); *p && !rc; line++, p = next_line(p)) {
			size_t n = strcspn(p, "\n");

			if ((!strncmp(p, "CONFIG_", 7) || !strncmp(p, "# CONFIG_", 9)) &&
			    !survived(buf_str(&config), p, n))
				rc = error_input(err, "%s:%d: %.*s did not survive olddefconfig (unknown "
						 "option, or a dependency is off); see %s", frags->items[i],
						 line, (int)n, p, path);
		}
	}
	buf_free(&config);
	buf_free(&frag);
	free(path);
	return rc;
}

static int configure(struct build *b, struct error *err)
{
	char *done = xprintf("%s/configured", b->work), *merge = xprintf("%s/scripts/kconfig/merge_config.sh", b->src);
	char *dotconfig = xprintf("%s/.config", b->obj);
	const char *base[] = { b->r.base, NULL }, *olddef[] = { "olddefconfig", NULL };
	struct strvec frags = STRVEC_INIT, argv = STRVEC_INIT;
	int rc = 0;

	recipe_fragments(&b->r, b->root, b->a->arch, &frags);
	/* An obj/ removed with the source (unpacked again) takes its configuration along. */
	if (!file_exists(done) || !file_exists(dotconfig)) {
		strvec_push(&argv, merge);
		strvec_push(&argv, "-m");
		strvec_push(&argv, "-O");
		strvec_push(&argv, b->obj);
		strvec_push(&argv, dotconfig);
		for (size_t i = 0; i < frags.nr; i++)
			strvec_push(&argv, frags.items[i]);
		rc = mkdir_p(b->obj, err) || run_make(b, "make base config", base, err) ||
		     run_tool(b, "merge_config.sh", strvec_argv(&argv), err) ||
		     run_make(b, "make olddefconfig", olddef, err) ? -1 : 0;
		if (!rc)
			rc = check_config(b, &frags, err);
		if (!rc)
			rc = write_file_atomic(done, "", 0, err);
	}
	strvec_clear(&frags);
	strvec_clear(&argv);
	free(done);
	free(merge);
	free(dotconfig);
	return rc;
}

/* ---- make, with progress ---- */

/* The log's last error lines (gcc "error:", make "***"), at most max, into out. */
static void error_lines(const char *log, int max, struct buf *out)
{
	struct buf text = BUF_INIT;
	struct error ignored;
	const char *lines[64];
	char *p, *nl;
	int nr = 0;

	if (read_file(log, &text, &ignored) || !text.len)
		return;
	buf_str(&text);
	for (p = text.data; *p; p = nl ? nl + 1 : p + strlen(p)) {
		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		if (strstr(p, "error:") || (!strncmp(p, "make", 4) && strstr(p, "***")))
			lines[nr++ % 64] = p;
		if (!nl)
			break;
	}
	for (int i = nr > max ? nr - max : 0; i < nr; i++)
		buf_addf(out, "\n    %.200s", lines[i % 64]);
	buf_free(&text);
}

/*
 * A build's progress, once a second: its phase (the verb of make's last
 * line), and how far along it is, estimated by the log's lines against the
 * most a build of this work tree has written (BUILD_LINES_FILE; none the
 * first time): a cold build writes about as many lines as the last cold
 * one, an incremental one finishes early, so the estimate only ever errs
 * short of 100%.
 */
#define BUILD_LINES_FILE "build.lines"

static long count_lines(const char *path)
{
	struct buf b = BUF_INIT;
	struct error ignored;
	long n = 0;

	if (!read_file(path, &b, &ignored))
		for (size_t i = 0; i < b.len; i++)
			n += b.data[i] == '\n';
	buf_free(&b);
	return n;
}

static long expected_lines(const struct build *b)
{
	char *path = xprintf("%s/" BUILD_LINES_FILE, b->work);
	struct buf text = BUF_INIT;
	struct error ignored;
	long n = 0;

	if (!read_file(path, &text, &ignored))
		n = strtol(buf_str(&text), NULL, 10);
	buf_free(&text);
	free(path);
	return n > 0 ? n : 0;
}

static void remember_lines(const struct build *b, long expected)
{
	long now = count_lines(b->log);
	char *path = xprintf("%s/" BUILD_LINES_FILE, b->work), text[32];
	struct error ignored;

	if (now > expected) {
		snprintf(text, sizeof(text), "%ld\n", now);
		if (write_file_atomic(path, text, strlen(text), &ignored)) {
			/* Lost: only the next build's progress estimate is cruder. */
		}
	}
	free(path);
}

static const char *phase_of(const char *line)
{
	static const struct { const char *verb, *phase; } phases[] = {
		{ "CC", "compiling" }, { "AS", "compiling" }, { "AR", "archiving" }, { "LD", "linking" },
		{ "HOSTCC", "host tools" }, { "HOSTLD", "host tools" }, { "GEN", "generating" },
		{ "WRAP", "headers" }, { "SYSHDR", "headers" }, { "SYSTBL", "headers" }, { "UPD", "headers" },
		{ "OBJCOPY", "image" }, { "ZSTD", "image" }, { "GZIP", "image" }, { "BUILD", "image" },
		{ "MODPOST", "linking" }, { "KSYMS", "linking" }, { "SORTTAB", "linking" },
	};
	size_t n = strspn(line, " ");

	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		size_t len = strlen(phases[i].verb);

		if (!strncmp(line + n, phases[i].verb, len) && line[n + len] == ' ')
			return phases[i].phase;
	}
	return "building";
}

static void show_progress(const struct build *b, double start, long expected)
{
	char line[160], pct[32] = "";

	file_last_line(b->log, line, sizeof(line));
	if (expected) {
		long done = 100 * count_lines(b->log) / expected;

		snprintf(pct, sizeof(pct), " ~%ld%%", done > 99 ? 99 : done);
	}
	progress_status("[%5.0fs] %s %s (%s)%s: %.70s", now_s() - start, phase_of(line), b->name, b->a->arch,
			pct, line);
}

static int make_image(struct build *b, struct error *err)
{
	char jobs[32];
	const char *extra[] = { jobs, b->a->target, NULL };
	struct strvec argv = STRVEC_INIT, full = STRVEC_INIT;
	struct proc p;
	double start = now_s();
	long expected = expected_lines(b);
	int fd, rc, pidfd;

	snprintf(jobs, sizeof(jobs), "-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	make_argv(b, &argv, extra);
	wrap(b, strvec_argv(&argv), &full);
	fd = open(b->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_set(err, "cannot write %s: %s", b->log, strerror(errno));
	progress("building %s for %s (log %s)", b->name, b->a->arch, b->log);
	proc_init(&p, strvec_argv(&full));
	p.env = strvec_argv(&b->env);
	p.out = p.err = fd;
	rc = proc_start(&p, err);
	close(fd);
	if (!rc) {
		pidfd = (int)syscall(SYS_pidfd_open, p.pid, 0);
		while (!interrupt_caught()) {
			struct pollfd pfd = { pidfd, POLLIN, 0 };

			if (pidfd < 0 ? (sleep(1), kill(p.pid, 0) && errno == ESRCH) : poll(&pfd, 1, 1000) > 0)
				break;
			show_progress(b, start, expected);
		}
		if (pidfd >= 0)
			close(pidfd);
		if (interrupt_caught())
			proc_kill(&p);
		rc = proc_wait(&p, err);
		progress_status("%s", "");
		if (!rc)
			remember_lines(b, expected);
	}
	if (rc > 0 && interrupt_caught()) {
		rc = error_set(err, "building %s for %s: interrupted (signal %d); the next build "
			       "continues in %s", b->name, b->a->arch, interrupt_caught(), b->work);
	} else if (rc > 0) {
		struct buf lines = BUF_INIT;

		error_lines(b->log, 6, &lines);
		rc = error_set(err, "building %s for %s failed (make exited %d):%s\n  full log: %s",
			       b->name, b->a->arch, rc, buf_str(&lines), b->log);
		buf_free(&lines);
	}
	strvec_clear(&argv);
	strvec_clear(&full);
	return rc ? -1 : 0;
}

/* ---- selftests from the same tree ---- */

int kbuild_selftests_argv(const char *arch, const char *src, const char *obj, struct strvec *argv)
{
	const struct kbuild_arch *a = find_arch(arch);

	if (!a)
		return -1;
	strvec_push(argv, "make");
	strvec_push(argv, "-k");
	strvec_pushf(argv, "-C%s/tools/testing/selftests/mm", src);
	strvec_pushf(argv, "-I%s/kselftest/cfg", obj);
	strvec_push(argv, "LOCAL_HDRS=");
	strvec_pushf(argv, "OUTPUT=%s/kselftest/mm", obj);
	strvec_pushf(argv, "ARCH=%s", a->karch);
	if (*a->cross)
		strvec_pushf(argv, "CROSS_COMPILE=%s", a->cross);
	strvec_pushf(argv, "CC=%sgcc", a->cross);
	strvec_pushf(argv, "KHDR_INCLUDES=-isystem %s/usr/include", obj);
	strvec_pushf(argv, "EXTRA_CFLAGS=-static -I%s/kselftest/cfg", obj);
	/* Stripped: all of them go into the initramfs of a kselftest-mm run. */
	strvec_push(argv, "LDFLAGS=-static -s");
	strvec_push(argv, "all");
	return 0;
}

/*
 * The mm selftests' Makefile writes local_config.{h,mk} into the source tree
 * (check_config.sh) and headers_install needs rsync: both are done by hand
 * into obj/kselftest/ so the source stays as patched.  Every target is
 * built (`make -k`, serially so the log says which error stopped which
 * target); those that fail are listed with why (kselftest.h), the rest of
 * the kernel build does not depend on them.
 */
static int build_selftests(struct build *b, char *note, size_t cap, struct error *err)
{
	char *mm = xprintf("%s/tools/testing/selftests/mm", b->src), *cfg = xprintf("%s/kselftest/cfg", b->obj);
	char *check = xprintf("%s/check_config.sh", mm);
	char *cc = xprintf("CC=%sgcc", b->a->cross), *out = xprintf("%s/kselftest/mm", b->obj);
	char *log = xprintf("%s/kselftest/build.log", b->obj), *script = xprintf("%s/run_vmtests.sh", mm);
	const char *headers[] = { "headers", NULL };
	/* check_config.sh probes $CC and writes its two files into the current directory. */
	const char *probe[] = { "env", cc, "sh", check, NULL };
	struct strvec argv = STRVEC_INIT, full = STRVEC_INIT;
	struct buf text = BUF_INIT, list = BUF_INIT;
	char *path;
	int rc = run_make(b, "make headers", headers, err) || mkdir_p(cfg, err) || mkdir_p(out, err) ||
		 run_tool_in(b, "check_config.sh", probe, cfg, err) ? -1 : 0, failed = 0, made;

	if (!rc) {
		kbuild_selftests_argv(b->a->arch, b->src, b->obj, &argv);
		wrap(b, strvec_argv(&argv), &full);
		unlink(log);
		/* make -k exits non-zero if any target failed: the log says which. */
		made = proc_run_logged("make selftests", strvec_argv(&full), NULL, strvec_argv(&b->env), log, err);
		if (!read_file(log, &text, err)) {
			failed = kselftest_build_failures(buf_str(&text), &list);
			path = xprintf("%s/%s", out, KSELFTEST_FAILURES);
			rc = write_file_atomic(path, list.data ? list.data : "", list.len, err);
			free(path);
		} else {
			rc = -1;
		}
		if (!rc && made && !failed)
			rc = -1;   /* it failed and no target says why: err has make's line */
	}
	buf_free(&text);
	if (!rc && !read_file(script, &text, err)) {
		struct buf plan = BUF_INIT;
		int n = kselftest_plan(buf_str(&text), &plan);

		path = xprintf("%s/%s", out, KSELFTEST_PLAN);
		rc = write_file_atomic(path, plan.data ? plan.data : "", plan.len, err);
		free(path);
		buf_free(&plan);
		snprintf(note, cap, "built; %d of run_vmtests.sh's tests; %d targets did not build "
			 "(kselftest/mm/%s)", n, failed, KSELFTEST_FAILURES);
	} else if (!rc) {
		rc = error_prefix(err, "no run_vmtests.sh");
	}
	strvec_clear(&argv);
	strvec_clear(&full);
	buf_free(&text);
	buf_free(&list);
	free(mm);
	free(cfg);
	free(check);
	free(cc);
	free(out);
	free(log);
	free(script);
	return rc;
}

/* ---- the finished directory ---- */

static void build_meta(struct build *b, const char *config_sha, const char *selftest_note,
		       struct buf *out)
{
	struct error ignored;

	buf_addf(out, "recipe: %s (%s)\nkey: %s\n", b->spec, b->r.path, b->key);
	if (recipe_key_text(&b->r, b->root, b->a->arch, b->source_id, b->compiler, 1, out, &ignored)) {
		/* The key was computed from the same inputs: only a fragment removed since fails. */
	}
	for (int i = 0; i < b->r.nr_patches; i++)
		buf_addf(out, "patch.subject: %s\n", b->r.patches[i].subject[0] ? b->r.patches[i].subject :
			 "(none)");
	if (b->r.source == RECIPE_SOURCE_TREE)
		buf_addf(out, "tree: %s\ntree.describe: %s\ntree.diff_sha256: %s\n", b->r.source_ref,
			 b->tree_describe[0] ? b->tree_describe : "(not a git tree)",
			 b->tree_diff[0] ? b->tree_diff : "(no uncommitted change)");
	buf_addf(out, "config.sha256: %s\nselftests: %s\n", config_sha, selftest_note);
}

/* The built image from at to, as a.strip says (the host's objcopy: x86 only strips). */
static int install_image(struct build *b, const char *from, const char *to, struct error *err)
{
	const char *argv[] = { "objcopy", "--strip-all", from, to, NULL };

	if (!b->a->strip)
		return copy_file(from, to, err);
	return proc_run_logged("objcopy --strip-all", argv, NULL, NULL, b->log, err);
}

/* Copy from into dir/name (dir created). */
static int copy_into(const char *dir, const char *from, const char *name, struct error *err)
{
	char *to = xprintf("%s/%s", dir, name);
	int rc = mkdir_p(dir, err) ? -1 : copy_file(from, to, err);

	free(to);
	return rc;
}

/* obj/kselftest/mm's executables and text files (kselftest.h) into kst, with the kernel's config. */
static int copy_selftests(struct build *b, const char *kst, const char *config, struct error *err)
{
	char *from = xprintf("%s/kselftest/mm", b->obj);
	DIR *d = opendir(from);
	struct dirent *e;
	int rc = 0, any = 0;

	while (d && !rc && (e = readdir(d))) {
		char *path = xprintf("%s/%s", from, e->d_name);
		struct stat st;

		if (e->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode) &&
		    ((st.st_mode & 0111) || !strcmp(e->d_name, KSELFTEST_PLAN) ||
		     !strcmp(e->d_name, KSELFTEST_FAILURES))) {
			rc = copy_into(kst, path, e->d_name, err);
			any = 1;
		}
		free(path);
	}
	if (d)
		closedir(d);
	if (!rc && any)
		rc = copy_into(kst, config, KSELFTEST_CONFIG, err);
	free(from);
	return rc;
}

static int fill_done_dir(struct build *b, const char *tmp, const char *selftest_note,
			 struct error *err)
{
	char *image = xprintf("%s/%s", b->obj, b->a->image), *config = xprintf("%s/.config", b->obj);
	char *kst = xprintf("%s/kselftest/mm", tmp), *meta_path = xprintf("%s/build.meta", tmp);
	char config_sha[65] = "";
	struct buf meta = BUF_INIT;
	char *installed = xprintf("%s/%s", tmp, image_name(b->a));
	int rc = sha256_file(config, config_sha, err) || mkdir_p(tmp, err) ||
		 install_image(b, image, installed, err) ||
		 copy_into(tmp, config, "config", err) || copy_into(tmp, b->log, "build.log", err) ? -1 : 0;

	rc = rc ? rc : copy_selftests(b, kst, config, err);
	if (!rc) {
		build_meta(b, config_sha, selftest_note, &meta);
		rc = write_file_atomic(meta_path, meta.data, meta.len, err);
	}
	buf_free(&meta);
	free(image);
	free(installed);
	free(config);
	free(kst);
	free(meta_path);
	return rc;
}

/* The finished directory: filled as a hidden twin, renamed into place whole. */
static int assemble(struct build *b, const char *selftest_note, struct error *err)
{
	const char *slash = strrchr(b->done, '/');
	char *tmp = xprintf("%.*s/.%s.tmp", (int)(slash - b->done), b->done, slash + 1);
	int rc;

	remove_tree(tmp);
	rc = fill_done_dir(b, tmp, selftest_note, err);
	if (!rc && rename(tmp, b->done))
		rc = error_set(err, "cannot rename %s to %s: %s", tmp, b->done, strerror(errno));
	if (rc)
		remove_tree(tmp);
	free(tmp);
	return rc;
}

/*
 * The work tree's lock (CACHE/kbuild/NAME.lock), held by the whole build:
 * not close-on-exec while held, so every process the build starts -- make,
 * its sub-makes, the compilers -- holds it too, and a flock lasts until
 * the last holder ends.  Should one outlive numalab (proc.h: where no PID
 * namespace can be had), the next build of the tree waits for it.
 */
static int lock_work_tree(const struct build *b, struct error *err)
{
	char *path = xprintf("%s.lock", b->work);
	int fd = mkdir_p(b->work, err) ? -1 : lock_file(path, "kernel build", err);

	if (fd >= 0 && fcntl(fd, F_SETFD, 0)) {
		error_set(err, "cannot pass on the lock %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

static int build(struct build *b, struct error *err)
{
	char note[256] = "built";
	struct error st;
	int fd = lock_work_tree(b, err), rc;

	if (fd < 0)
		return -1;
	if (file_exists(b->done)) {   /* built while we waited */
		close(fd);
		return 0;
	}
	unlink(b->log);
	rc = ensure_source(b, err);
	if (!rc)
		rc = apply_series(b, err);
	if (!rc)
		rc = configure(b, err);
	if (!rc)
		rc = make_image(b, err);
	if (!rc && build_selftests(b, note, sizeof(note), &st)) {
		snprintf(note, sizeof(note), "failed: %.200s", st.msg);
		warning("kernel selftests for %s: %s", b->name, st.msg);
	}
	if (!rc)
		rc = assemble(b, note, err);
	close(fd);
	return rc;
}

/* Append fmt to list (cap bytes); -1 when it would not fit, the list then as it was. */
static int list_addf(char *list, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int list_addf(char *list, size_t cap, const char *fmt, ...)
{
	size_t used = strlen(list);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(list + used, cap - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap - used) {
		list[used] = '\0';
		return -1;
	}
	return 0;
}

/* The kernel's meta must list every patch: one that does not fit fails the call. */
static int patch_list_full(const struct build *b, struct error *err)
{
	return error_set(err, "kernel %s: its %d patches do not fit in the run's meta (kernel.h); "
			 "report this as a numalab bug", b->name, b->r.nr_patches);
}

/* What fill_kernel() and kbuild_kernel_scratch() share: out from b, its image at image. */
static int fill_common(const struct build *b, const char *image, struct kernel *out, struct error *err)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", b->name);
	snprintf(out->arch, sizeof(out->arch), "%s", b->a->arch);
	snprintf(out->version, sizeof(out->version), "recipe-key %s", b->key);
	snprintf(out->source, sizeof(out->source), "%s", b->source_id);
	snprintf(out->recipe, sizeof(out->recipe), "%s", b->r.path);
	if (b->r.source == RECIPE_SOURCE_TREE)
		snprintf(out->tree, sizeof(out->tree), "%s", b->r.source_ref);
	for (int i = 0; i < b->r.nr_patches; i++)
		if (list_addf(out->patch_subjects, sizeof(out->patch_subjects), "%s\n",
			      b->r.patches[i].subject[0] ? b->r.patches[i].subject : "(none)"))
			return patch_list_full(b, err);
	if (snprintf(out->path, sizeof(out->path), "%s", image) >= (int)sizeof(out->path))
		return error_set(err, "kernel %s: the image's path %s/... is longer than %zu characters; "
				 "set NUMALAB_CACHE to a shorter directory", b->name, b->done, sizeof(out->path) - 1);
	return 0;
}

static int fill_kernel(const struct build *b, struct kernel *out, struct error *err)
{
	struct buf meta = BUF_INIT;
	struct error ignored;
	char *path = xprintf("%s/build.meta", b->done), *image = xprintf("%s/%s", b->done, image_name(b->a));
	char *selftests = xprintf("%s/kselftest", b->done);
	const char *p;
	int rc = fill_common(b, image, out, err);

	if (!rc && b->r.source == RECIPE_SOURCE_GIT)
		snprintf(out->source, sizeof(out->source), "git:%s@%s", b->r.source_ref, git_commit(b));
	if (!rc && file_exists(selftests) &&
	    snprintf(out->selftests, sizeof(out->selftests), "%s", selftests) >= (int)sizeof(out->selftests))
		rc = error_set(err, "kernel %s: %s is longer than %zu characters; set NUMALAB_CACHE to "
			       "a shorter directory", b->name, selftests, sizeof(out->selftests) - 1);
	if (!rc && b->r.source == RECIPE_SOURCE_TREE) {
		snprintf(out->tree_describe, sizeof(out->tree_describe), "%s", b->tree_describe);
		snprintf(out->tree_diff_sha256, sizeof(out->tree_diff_sha256), "%s", b->tree_diff);
	}
	if (!rc && !read_file(path, &meta, &ignored)) {
		for (p = buf_str(&meta); *p && !rc; p = next_line(p)) {
			int n = (int)strcspn(p, "\n");

			if (!strncmp(p, "patch: ", 7) && list_addf(out->patches, sizeof(out->patches), "%s%.*s",
								   out->patches[0] ? ", " : "", n - 7, p + 7))
				rc = patch_list_full(b, err);
			else if (!strncmp(p, "config.sha256: ", 15))
				snprintf(out->config_sha256, sizeof(out->config_sha256), "%.64s", p + 15);
		}
	}
	buf_free(&meta);
	free(selftests);
	free(image);
	free(path);
	return rc;
}

static int build_kernel(const char *root, const char *spec, const char *arch, const char *git_dir,
			const char *rev, const char *tree, const struct kernel_request *req,
			struct kernel *out, struct error *err)
{
	struct build *b = xmalloc(sizeof(*b));
	double t0 = now_s();
	int rc = prepare(b, root, spec, arch, git_dir, rev, tree, req, err), built = 0;

	if (!rc && !file_exists(b->done)) {
		rc = build(b, err);
		built = 1;
	}
	if (!rc)
		rc = fill_kernel(b, out, err);
	if (!rc) {
		out->build_s = now_s() - t0;
		out->built = built;
	}
	build_free(b);
	free(b);
	return rc;
}

int kbuild_kernel(const char *root, const char *spec, const char *arch, struct kernel *out,
		  struct error *err)
{
	return build_kernel(root, spec, arch, NULL, NULL, NULL, NULL, out, err);
}

int kbuild_kernel_request(const char *root, const struct kernel_request *req, const char *tree,
			  const char *arch, struct kernel *out, struct error *err)
{
	return build_kernel(root, tree ? "stock" : req->spec, arch, NULL, NULL, tree, req, out, err);
}

/* The build into the slot's work tree, locked; the image to s->image. */
/* The work tree's mm selftests into dir/mm, through dir.tmp: a failed build leaves none. */
static int scratch_selftests(struct build *b, const char *dir, struct error *err)
{
	char *tmp = xprintf("%s.tmp", dir), *kst = xprintf("%s.tmp/mm", dir), *config = xprintf("%s/.config", b->obj);
	char note[256];
	struct error st;
	int rc = 0;

	if (build_selftests(b, note, sizeof(note), &st)) {
		warning("kernel selftests for %s: %s", b->name, st.msg);
	} else {
		remove_tree(tmp);
		rc = copy_selftests(b, kst, config, err);
		remove_tree(dir);
		if (!rc && rename(tmp, dir))
			rc = error_set(err, "cannot rename %s to %s: %s", tmp, dir, strerror(errno));
	}
	free(tmp);
	free(kst);
	free(config);
	return rc;
}

static int build_scratch(struct build *b, struct kbuild_scratch *s, struct error *err)
{
	char *image = xprintf("%s/%s", b->obj, b->a->image);
	int fd = lock_work_tree(b, err), rc;

	s->make_failed = 0;
	if (fd < 0) {
		free(image);
		return -1;
	}
	unlink(b->log);
	rc = ensure_source(b, err);
	if (!rc)
		rc = apply_series(b, err);
	if (!rc && !s->source_only)
		rc = configure(b, err);
	if (!rc && !s->source_only && make_image(b, err))
		rc = -1, s->make_failed = !interrupt_caught();
	if (!rc && !s->source_only)
		rc = install_image(b, image, s->image, err);
	if (!rc && !s->source_only && s->selftests)
		rc = scratch_selftests(b, s->selftests, err);
	for (int i = 0; !rc && i < s->nr_sources; i++) {
		char *src = xprintf("%s/%s", b->src, s->sources[i]);
		char *obj = xprintf("%s/%.*s.o", b->obj, (int)(strrchr(s->sources[i], '.') ? strrchr(s->sources[i], '.') - s->sources[i] : (long)strlen(s->sources[i])), s->sources[i]);
		struct error ignored;

		s->object_sha256[i][0] = '\0';
		if (s->texts) {
			s->texts[i].len = 0;
			rc = read_file(src, &s->texts[i], err);
		}
		if (!rc && file_exists(obj) && sha256_file(obj, s->object_sha256[i], &ignored))
			s->object_sha256[i][0] = '\0';
		free(src);
		free(obj);
	}
	close(fd);
	free(image);
	return rc;
}

int kbuild_kernel_scratch(const char *root, const struct kernel_request *req, const char *tree,
			  const char *arch, struct kbuild_scratch *s, struct kernel *out,
			  struct error *err)
{
	struct build *b = xmalloc(sizeof(*b));
	double t0 = now_s();
	int rc = prepare(b, root, tree ? "stock" : req->spec, arch, NULL, NULL, tree, req, err);

	if (!rc) {
		size_t used = strlen(b->work);

		snprintf(b->work + used, sizeof(b->work) - used, "-%s", s->slot);
		snprintf(b->src, sizeof(b->src), "%s/src", b->work);
		snprintf(b->obj, sizeof(b->obj), "%s/obj", b->work);
		snprintf(b->log, sizeof(b->log), "%s/build.log", b->work);
		rc = build_scratch(b, s, err);
	}
	if (!rc)
		rc = fill_common(b, s->image, out, err);
	if (!rc && s->selftests && !s->source_only && file_exists(s->selftests))
		snprintf(out->selftests, sizeof(out->selftests), "%s", s->selftests);
	for (int i = 0; !rc && i < b->r.nr_patches; i++)
		if (list_addf(out->patches, sizeof(out->patches), "%s%s sha256:%s", i ? ", " : "",
			      b->r.patches[i].name[0] ? b->r.patches[i].name :
			      strrchr(b->r.patches[i].path, '/') + 1, b->r.patches[i].sha256))
			rc = patch_list_full(b, err);
	if (!rc) {
		out->build_s = now_s() - t0;
		out->built = 1;
	}
	build_free(b);
	free(b);
	return rc;
}

int kbuild_kernel_at(const char *root, const char *spec, const char *arch, const char *git_dir,
		     const char *rev, struct kernel *out, struct error *err)
{
	return build_kernel(root, spec, arch, git_dir, rev, NULL, NULL, out, err);
}
