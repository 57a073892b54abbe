/*
 * resolve: `--kernel SPEC [--patch FILE...]` to a kernel image on disk.
 *
 * SPEC is one of
 *  - NULL or "": the lock entry named "debian" for the arch;
 *  - a name from kernels/prebuilt.lock (docs/kernels.md): a Debian kernel
 *    pinned by package, version and sha256, fetched once into the cache
 *    (pin.h);
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
 */
#ifndef LAB_RESOLVE_H
#define LAB_RESOLVE_H

#include "base/util.h"
#include "kernel/kernel.h"

#define KERNEL_DEFAULT_NAME "debian"

/*
 * Resolve spec for arch ("x86_64" | "loongarch64") against
 * lab_root()/kernels/prebuilt.lock, fetching a pinned kernel if it is not
 * cached yet (network; may take a while).  Returns 0 and fills *out, or
 * -1 with err: ERROR_INPUT when spec or the lock file is wrong (the user's
 * to fix), ERROR_HARNESS when fetching or building failed.  Nothing
 * half-written is left under its final name.
 */
int kernel_resolve(const char *spec, const char *arch, struct kernel *out, struct error *err) LAB_MUST_CHECK;

/* As kernel_resolve, with the lock file read from root/kernels/prebuilt.lock. */
int kernel_resolve_in(const char *root, const char *spec, const char *arch,
		      struct kernel *out, struct error *err) LAB_MUST_CHECK;

/*
 * As kernel_resolve_in(), with req's patches on top.  Patches on a kernel
 * not built from source (a pinned Debian kernel, an image file) are
 * ERROR_INPUT, and so is a patch that does not apply (err names the file,
 * its subject, the file and hunk it fails on).
 */
int kernel_resolve_request(const char *root, const struct kernel_request *req, const char *arch,
			   struct kernel *out, struct error *err) LAB_MUST_CHECK;

#endif
