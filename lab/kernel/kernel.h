/*
 * kernel: what every way of getting a kernel hands back (pin.h fetches a
 * pinned Debian kernel, kbuild.h builds one from source, resolve.h picks
 * between them and image files for `--kernel`), and what a run asks for.
 * Types only, and the one rule for errors: every function of lab/kernel/
 * returns 0, or -1 with a struct error whose kind says whose fault it is
 * (ERROR_INPUT: a bad recipe, fragment, patch, tree or lock line; else
 * ERROR_HARNESS: a tool or a download failed).  A general tool's failure on
 * what only the user gave (read_file() of their patch, git am of it) is
 * made theirs with error_as_input() (util.h).
 */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <limits.h>
#include "base/util.h"
#include "model/recipe.h"

/*
 * One "NAME sha256:HEX, " of struct kernel's patches: NAME is the patch's
 * recipe_patch.name or its file's name (at most NAME_MAX), so the list of
 * a recipe's RECIPE_MAX_PATCHES patches always fits; the code that fills
 * it still refuses to cut one.
 */
#define KERNEL_PATCH_ENTRY_MAX (NAME_MAX + sizeof(" sha256:, ") + 64)

/* A resolved kernel, ready to boot. */
struct kernel {
	char name[160];       /* lock name, recipe spec (kbuild.h: "+Npatches" added), or "file" */
	char arch[16];        /* x86_64 | loongarch64 */
	char path[PATH_MAX];  /* the image, absolute */
	/* A pinned package's version; "recipe-key KEY" for one built from source (kbuild.h's
	 * cache key); "" for a file (the guest reports uname -r).  meta's kernel: NAME VERSION. */
	char version[64];
	char source[PATH_MAX + 128];  /* for results' meta: "debian:PKG=VERSION sha256:HEX" | "file:PATH sha256:HEX" */
	char origin[640];     /* a pinned package's: "mirror URL SUITE" | "snapshot URL" (pin.h); "" otherwise */
	double fetch_s;       /* > 0: this call downloaded it, taking that long */
	/* Built from a recipe (kbuild.h); all "" for prebuilt kernels and files. */
	char recipe[PATH_MAX];        /* the recipe file */
	char patches[RECIPE_MAX_PATCHES * KERNEL_PATCH_ENTRY_MAX];   /* "NAME sha256:HEX, ..." in order */
	/* The same patches' subjects, one a line. */
	char patch_subjects[RECIPE_MAX_PATCHES * (sizeof(((struct recipe_patch *)0)->subject) + 1)];
	/* Built from a source tree (`--kernel DIR`); all "" otherwise. */
	char tree[PATH_MAX];          /* the tree, absolute */
	char tree_describe[128];      /* `git describe --always --tags`, "-dirty" added when the diff is not empty; "" not a git tree */
	char tree_diff_sha256[65];    /* of `git diff HEAD`; "" none or not git */
	char config_sha256[65];       /* of the final .config */
	char selftests[PATH_MAX];     /* kselftest/ built from the same source; "" none */
	double build_s;               /* this call's build or lookup time */
	int built;                    /* this call built it: it was not in the cache */
};

/* What a run asks for: --kernel SPEC and its --patch files. */
struct kernel_request {
	const char *spec;              /* as kernel_resolve()'s (resolve.h); NULL: the default */
	const char *const *patches;    /* files as patch.h reads them, applied in order */
	int nr_patches;
};

#endif
