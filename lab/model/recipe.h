/*
 * recipe: how to build a kernel from source (kernels/recipes/NAME.recipe).
 *
 * A recipe is lines of `KEY VALUE...`, read by base/lines.h ('#' starts a
 * comment):
 *
 *   source pinned NAME       the source pinned as NAME (arch "source") in
 *                            kernels/prebuilt.lock: Debian's linux-source
 *   source git DIR REV       REV of the git tree DIR (any revision git takes)
 *   source tarball FILE      a local .tar/.tar.gz/.tar.xz with one top directory
 *   base allnoconfig|defconfig   what the fragments are merged onto (allnoconfig)
 *   config NAME              kernels/config/NAME.config, then NAME-ARCH.config
 *                            when it exists; in order, repeatable
 *   patch FILE               one patch of the series (-p1), in order; relative
 *                            paths are under kernels/patches/
 *
 * Exactly one source, at least one config.  Relative DIR/FILE of git and
 * tarball sources are relative to the recipe file.  Errors are
 * "FILE:LINE: what is wrong; what to do".
 *
 * A run names a recipe as `--kernel NAME`, optionally with extra fragments:
 * `NAME+debug` adds kernels/config/debug.config (recipe_spec_parse()).
 *
 * The cache key (recipe_key()) hashes everything that changes the image:
 * source identity, base, every fragment's and patch's content in order, the
 * arch and the compiler's version.  The config key leaves out the patches:
 * builds that differ only in patches share one work tree and rebuild
 * incrementally (kbuild.h).
 */
#ifndef LAB_RECIPE_H
#define LAB_RECIPE_H

#include <limits.h>
#include <stddef.h>
#include "base/util.h"

#define RECIPE_DIR "kernels/recipes"
#define RECIPE_CONFIG_DIR "kernels/config"
#define RECIPE_PATCH_DIR "kernels/patches"
#define RECIPE_MAX_PATCHES 64
#define RECIPE_MAX_CONFIGS 16

/*
 * RECIPE_SOURCE_TREE is no recipe line: `--kernel DIR` builds the recipe
 * "stock" with DIR, as it is, for its source (kbuild.h, srctree.h).
 */
enum recipe_source { RECIPE_SOURCE_PINNED, RECIPE_SOURCE_GIT, RECIPE_SOURCE_TARBALL, RECIPE_SOURCE_TREE };

struct recipe_patch {
	char path[PATH_MAX];       /* absolute: the file `patch` reads */
	char sha256[65];           /* of its content, filled by recipe_load() */
	int line;                  /* in the recipe; 0: a --patch file */
	/* --patch (kbuild.h): the user's file ("FILE" or "FILE#N" of a series); "" for recipe lines */
	char origin[512];
	char name[128];            /* what keys and messages call it; "": path's basename */
	char subject[256];         /* the patch's subject (patch.h); "" if it has none */
};

struct recipe {
	char name[64];
	char path[PATH_MAX];       /* the recipe file */
	enum recipe_source source;
	char source_ref[PATH_MAX]; /* pin name | git directory | tarball path (absolute) */
	char rev[128];             /* git revision as written */
	int source_line;
	char base[16];             /* allnoconfig | defconfig */
	int nr_configs;
	char configs[RECIPE_MAX_CONFIGS][64];   /* fragment names, recipe's then the spec's */
	int nr_patches;
	struct recipe_patch patches[RECIPE_MAX_PATCHES];
};

/* "stock+debug" → name "stock", extras {"debug"}.  0, or -1 if malformed (err). */
int recipe_spec_parse(const char *spec, char *name, size_t cap,
		      char extras[][64], int max_extras, int *nr_extras, struct error *err) LAB_MUST_CHECK;

/*
 * Parse recipe text from path (len bytes).  root is the project root
 * (kernels/ lives there).  Checks syntax only: files are checked by
 * recipe_load().
 */
int recipe_parse(const char *path, const char *text, size_t len, const char *root,
		 struct recipe *r, struct error *err) LAB_MUST_CHECK;

/*
 * root/kernels/recipes/NAME.recipe parsed, extras appended as configs, and
 * every patch and fragment checked to exist (and the patches hashed).
 * Returns 0, 1 if there is no such recipe (err says so), -1 on a bad recipe;
 * err is ERROR_INPUT either way (the recipe and what it names are the user's).
 */
int recipe_load(const char *root, const char *spec, struct recipe *r, struct error *err) LAB_MUST_CHECK;

/* The fragment files of r for arch, in merge order (absolute paths). */
void recipe_fragments(const struct recipe *r, const char *root, const char *arch,
		      struct strvec *out);

/*
 * The inputs hashed into the keys, as text (one "what: value" per line), so
 * a key can be explained.  source_id names the exact source (pin version and
 * sha256, git commit, tarball sha256); compiler is `CC --version`'s first
 * line.  Fragment content is read from disk: -1 with err if one is missing.
 */
int recipe_key_text(const struct recipe *r, const char *root, const char *arch,
		    const char *source_id, const char *compiler, int with_patches,
		    struct buf *out, struct error *err) LAB_MUST_CHECK;

/* First 16 hex digits of sha256(key text). */
int recipe_key(const struct recipe *r, const char *root, const char *arch, const char *source_id,
	       const char *compiler, int with_patches, char hex[17], struct error *err) LAB_MUST_CHECK;

#endif
