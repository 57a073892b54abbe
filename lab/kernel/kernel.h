/*
 * kernel: resolve `--kernel SPEC` to a kernel image on disk.
 *
 * SPEC is one of
 *  - NULL or "": the lock entry named "debian" for the arch;
 *  - a name from kernels/prebuilt.lock (docs/kernels.md): a Debian kernel
 *    pinned by package, version and sha256, fetched once into the cache;
 *  - a recipe name, optionally with +FRAGMENTs ("stock", "stock+debug"): a
 *    kernel built from source (kbuild.h), built once per key;
 *  - a kernel source tree (a directory with Makefile, Kconfig, mm/, arch/):
 *    built as it is, uncommitted changes included, with the recipe "stock"'s
 *    configuration, out of tree in the cache (kbuild.h); the tree is only read;
 *  - a path to a kernel image: anything else containing '/', or an existing
 *    file that is not a lock name.
 *
 * Patches (`--patch`, struct kernel_request) go on top of kernels built from
 * source only: a recipe (after its own series) or a tree.
 *
 * A fetched kernel lives in lab_cache_dir()/kernels/NAME-ARCH-VERSION/ (the
 * image plus a `source` file naming package, version and sha256).  The
 * directory is built under a temporary name and renamed into place, so a
 * directory with the final name is always complete.  Apt runs with a private
 * state in lab_cache_dir()/apt/SUITE-DEBARCH/ (apt.conf, sources.list, lists,
 * cache); the host's apt configuration is only read, never changed.
 */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <limits.h>
#include <stddef.h>
#include "base/util.h"

#define KERNEL_LOCK_FILE "kernels/prebuilt.lock"   /* relative to the project root */
#define KERNEL_DEFAULT_NAME "debian"
#define KERNEL_LOCK_MAX 32
#define KERNEL_SOURCE_ARCH "source"   /* lock lines that pin a source tarball */

/* One line of the lock file. */
struct kernel_pin {
	char name[64];        /* [a-z0-9._-]: part of a cache directory name */
	char arch[16];        /* x86_64 | loongarch64 */
	char suite[32];       /* Debian suite: sid, trixie, ... */
	char debarch[16];     /* Debian architecture: amd64, loong64 */
	char package[128];
	char version[64];
	char sha256[65];      /* of the .deb, lowercase hex */
	char image[256];      /* the image's path inside the package, relative */
	int line;             /* in the lock file, for error messages */
	char lock_file[64];   /* the lock file's name as given to kernel_lock_parse() */
};

struct kernel_lock {
	int nr;
	struct kernel_pin pins[KERNEL_LOCK_MAX];
};

/* A resolved kernel, ready to boot. */
struct kernel {
	char name[64];        /* lock name, or "file" */
	char arch[16];        /* x86_64 | loongarch64 */
	char path[PATH_MAX];  /* the image, absolute */
	char version[64];     /* package version; "" for a file (the guest reports uname -r) */
	char source[512];     /* for results' meta: "debian:PKG=VERSION sha256:HEX" | "file:PATH sha256:HEX" */
	double fetch_s;       /* > 0: this call downloaded it, taking that long */
	/* Built from a recipe (kbuild.h); all "" for prebuilt kernels and files. */
	char recipe[PATH_MAX];        /* the recipe file */
	char patches[2048];           /* "NAME sha256:HEX, ..." in order */
	char patch_subjects[4096];    /* the same patches' subjects, one a line */
	/* Built from a source tree (`--kernel DIR`); all "" otherwise. */
	char tree[PATH_MAX];          /* the tree, absolute */
	char tree_describe[128];      /* `git describe --always --tags`, "-dirty" added when the diff is not empty; "" not a git tree */
	char tree_diff_sha256[65];    /* of `git diff HEAD`; "" none or not git */
	char config_sha256[65];       /* of the final .config */
	char selftests[PATH_MAX];     /* kselftest/ built from the same source; "" none */
	double build_s;               /* this call's build or lookup time */
	int built;                    /* this call built it: it was not in the cache */
};

/*
 * Parse lock text (len bytes, need not be NUL terminated).  path names the
 * file in messages.  Pure: no I/O.  Returns 0, or -1 with err set to
 * "PATH:LINE: what is wrong; what to do".  *lock is unspecified on error.
 */
int kernel_lock_parse(const char *path, const char *buf, size_t len,
		      struct kernel_lock *lock, struct error *err);

/* The pin called name for arch, or NULL. */
const struct kernel_pin *kernel_lock_find(const struct kernel_lock *lock,
					  const char *name, const char *arch);

#define KERNEL_BAD_INPUT (-2)

/*
 * Resolve spec for arch ("x86_64" | "loongarch64") against
 * lab_root()/kernels/prebuilt.lock, fetching a pinned kernel if it is not
 * cached yet (network; may take a while).  Returns 0 and fills *out;
 * KERNEL_BAD_INPUT when spec or the lock file is wrong (the user's to fix);
 * -1 when fetching failed.  err says why; nothing half-written is left under
 * its final name.
 */
int kernel_resolve(const char *spec, const char *arch, struct kernel *out, struct error *err);

/*
 * The source tarball pinned as name (arch "source") in root's lock file,
 * fetched into the cache if needed: its path, and its identity for build
 * keys and meta ("debian:PKG=VERSION sha256:HEX").  path NULL: only the
 * identity, nothing fetched.  Returns as kernel_resolve.
 */
int kernel_fetch_source(const char *root, const char *name, char *path, size_t cap,
			char *source_id, size_t id_cap, struct error *err);

/*
 * The module tree (the kernel's lib/modules/RELEASE directory) of a pinned
 * kernel k, from the lock line named "NAME-modules" for its arch, fetched
 * into the cache like a kernel.  dir is "" when the lock pins none (kernels
 * from files and recipes: their drivers must be built in).  Returns as
 * kernel_resolve.
 */
int kernel_modules(const struct kernel *k, char *dir, size_t cap, struct error *err);

/*
 * The .config of a pinned kernel k, from the lock line named "NAME-config"
 * (e.g. Debian's linux-base package), fetched into the cache like a kernel;
 * path is "" when the lock pins none.  Returns as kernel_resolve.
 */
int kernel_config(const struct kernel *k, char *path, size_t cap, struct error *err);

/*
 * Guest userland from Debian (numactl and the libraries it needs): lines of
 * root/images/packages.lock, in the columns of the kernel lock, whose image
 * is one file of the package.  The file pinned as name for arch, fetched
 * into lab_cache_dir()/packages/NAME-ARCH-VERSION/ like a kernel: its path.
 * Returns as kernel_resolve.
 */
#define PACKAGE_LOCK_FILE "images/packages.lock"
int kernel_fetch_package_file(const char *root, const char *name, const char *arch,
			      char *path, size_t cap, struct error *err);

/* As kernel_resolve, with the lock file read from root/kernels/prebuilt.lock. */
int kernel_resolve_in(const char *root, const char *spec, const char *arch,
		      struct kernel *out, struct error *err);

/* What a run asks for: --kernel SPEC and its --patch files. */
struct kernel_request {
	const char *spec;              /* as kernel_resolve()'s; NULL: the default */
	const char *const *patches;    /* files as patch.h reads them, applied in order */
	int nr_patches;
};

/*
 * As kernel_resolve_in(), with req's patches on top.  Patches on a kernel
 * not built from source (a pinned Debian kernel, an image file) are
 * KERNEL_BAD_INPUT, and so is a patch that does not apply (err names the
 * file, its subject, the file and hunk it fails on).
 */
int kernel_resolve_request(const char *root, const struct kernel_request *req, const char *arch,
			   struct kernel *out, struct error *err);

#endif
