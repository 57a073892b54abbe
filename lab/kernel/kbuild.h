/*
 * kbuild: kernels built from source by recipe (recipe.h), cached.
 *
 * kbuild_kernel() returns a finished kernel for (recipe, arch), building it
 * only when no finished build has its key:
 *
 *   CACHE/kernels/recipe-SPEC-ARCH-KEY/     finished, renamed into place whole:
 *     IMAGE (vmlinux, PVH-bootable | vmlinux.efi), config (the final .config), build.log,
 *     build.meta (the key's inputs, patches with hashes, config sha256),
 *     kselftest/mm/BIN (static selftests built from the same tree)
 *   CACHE/kbuild/ARCH-CONFIGKEY/            the work tree, shared by recipes
 *     src/ (source + the applied series), obj/ (O=), applied/ (copies of the
 *     applied patches, to take them out again), build.log, lock
 *   CACHE/ccache/                            ccache, always on
 *
 * A git source's work tree is keyed by the tree, not the commit: src/ is a
 * clone sharing the tree's objects, moved to each new commit with a checkout
 * that rewrites only the files that differ, so building commit after commit
 * (git bisect) is incremental.
 *
 * Builds that differ only in patches share a work tree: the old series is
 * reversed, the new one applied, and make rebuilds what changed.  A patch
 * that does not apply is named with its file and hunk, and leaves the tree
 * as its recorded series says.  A failed build's error names its last
 * error lines and the log; nothing unfinished is ever under a finished
 * name.  Steps and the running build's status go to progress.h.  LoongArch
 * builds run the toolroot's cross gcc (toolroot.h).  Two builds of one work
 * tree wait for each other (flock on CACHE/kbuild/NAME.lock); every process
 * of a build inherits the lock, so it holds until the last of them ends.
 */
#ifndef LAB_KBUILD_H
#define LAB_KBUILD_H

#include "kernel/kernel.h"
#include "model/recipe.h"

/*
 * Build or reuse the kernel of spec ("NAME" or "NAME+FRAGMENT...") for arch
 * from root's recipes.  Fills out (name = spec, version = key).  Returns 0,
 * or -1 with err saying what and where: ERROR_INPUT for the user's errors
 * (recipe, fragment, patch, tree), ERROR_HARNESS when building failed or
 * was interrupted.
 */
int kbuild_kernel(const char *root, const char *spec, const char *arch, struct kernel *out,
		  struct error *err) LAB_MUST_CHECK;

/*
 * As kbuild_kernel(), but the source is REV of the git tree git_dir (e.g.
 * HEAD during `git bisect run`); the recipe gives base, fragments and
 * patches.  Its finished kernel is cached by the commit like any other key.
 */
int kbuild_kernel_at(const char *root, const char *spec, const char *arch, const char *git_dir,
		     const char *rev, struct kernel *out, struct error *err) LAB_MUST_CHECK;

/*
 * The key of spec for arch without building: writes the key's inputs to
 * text.  Fetches nothing: a pinned source is named by its lock line.
 */
int kbuild_explain(const char *root, const char *spec, const char *arch, char key[17],
		   struct buf *text, struct error *err) LAB_MUST_CHECK;

/*
 * As kbuild_kernel(), plus a source tree and --patch files.  tree: NULL, or
 * a kernel source directory built instead of the recipe's source, as it is:
 *
 *   CACHE/kbuild/ARCH-CONFIGKEY/src/   a mirror of the tree (srctree.h),
 *                                      synced before each build
 *   CACHE/kernels/tree-NAME-ARCH-KEY/  finished, as for recipes
 *
 * The tree is never written; one configured in place is ERROR_INPUT.
 * Its key holds the tree's listing (srctree_manifest()): a tree that did
 * not change reuses its kernel without running make.
 *
 * req->patches: each file is split into its patches (patch.h), each stored
 * in CACHE/patches/SHA256.patch and applied after the recipe's series, in
 * order, onto the lab's copy.  One that does not apply is ERROR_INPUT
 * naming the file, the patch's subject, and the file and hunk it fails on.
 */
int kbuild_kernel_request(const char *root, const struct kernel_request *req, const char *tree,
			  const char *arch, struct kernel *out, struct error *err) LAB_MUST_CHECK;

/*
 * A kernel built in a work tree of its own and not kept (numalab mutate:
 * one build per mutant).  As kbuild_kernel_request(), but
 *  - in CACHE/kbuild/ARCH-CONFIGKEY-SLOT/, a work tree only builds naming
 *    this slot use: its first build is a whole one (ccache hits), the later
 *    ones reverse the old series, apply the new and rebuild what changed;
 *  - without the selftests unless s->selftests asks, and nothing under
 *    CACHE/kernels/: the image is copied to s->image (replaced), which
 *    out->path names;
 *  - s->sources ("mm/mempolicy.c", ...): each file's text as built into
 *    s->texts[i] (when texts is not NULL), and the sha256 of its object
 *    (mm/mempolicy.o) into s->object_sha256[i] ("" none), both taken under
 *    the work tree's lock.
 * s->source_only: stop once the series is applied (the texts read, no
 * make, no image: out names the image that is not there).
 * s->make_failed is set when make itself failed (the source does not
 * compile; err names the last error lines and the log), as opposed to a
 * patch that does not apply (ERROR_INPUT) or a tool that broke.
 */
struct kbuild_scratch {
	const char *slot;              /* a file name part: "mutate0" */
	const char *image;             /* where the image is copied */
	const char *const *sources;    /* paths under src/ of .c files */
	int nr_sources;
	struct buf *texts;             /* [nr_sources] or NULL */
	char (*object_sha256)[65];     /* [nr_sources] */
	int source_only;
	int make_failed;
	/* NULL, or a directory: also build the tree's mm selftests into
	 * selftests/mm (replaced whole), which out->selftests then names; a
	 * selftest build that fails is a warning, as for kbuild_kernel_request(). */
	const char *selftests;
};

int kbuild_kernel_scratch(const char *root, const struct kernel_request *req, const char *tree,
			  const char *arch, struct kbuild_scratch *s, struct kernel *out,
			  struct error *err) LAB_MUST_CHECK;

/*
 * The kernel build's make command line for arch (x86_64 | loongarch64),
 * appended to argv; the LoongArch one runs inside the toolroot:
 *   make -CSRC O=OBJ ARCH=KARCH [CROSS_COMPILE=PREFIX] CC=ccache PREFIXgcc EXTRA...
 * Pure.  -1 for an arch the lab does not build.
 */
int kbuild_make_argv(const char *arch, const char *src, const char *obj, const char *const *extra,
		     struct strvec *argv);

/*
 * The mm selftests' make command line (static, stripped, `make -k all`),
 * with the headers and check_config.sh's output under OBJ (the source
 * stays as patched).  Pure.  -1 for an arch the lab does not build.
 */
int kbuild_selftests_argv(const char *arch, const char *src, const char *obj, struct strvec *argv);

/* 1 if root has a recipe for spec's name. */
int kbuild_has_recipe(const char *root, const char *spec);

#endif
