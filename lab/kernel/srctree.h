/*
 * srctree: the user's kernel source tree (`--kernel DIR`), read and never
 * written.
 *
 * The lab builds a mirror of DIR in its cache (kbuild.h): srctree_sync()
 * makes the mirror equal to DIR (regular files, symlinks, directories; .git
 * left out), copying only what differs by type, size, mode or mtime and
 * giving each copy DIR's mtime, so make's timestamps see exactly the files
 * the user changed: an edit to one mm/ file rebuilds that file only.  The
 * lab's patches go onto the mirror, never onto DIR.
 *
 * srctree_manifest() hashes what the sync compares (path, type, size, mode,
 * mtime, link target) without reading file contents: an unchanged tree is
 * recognised in a fraction of a second and its finished kernel reused.
 *
 * Git trees: srctree_git() reads `git describe` and hashes the uncommitted
 * diff (`git diff HEAD`), with --no-optional-locks so git does not even
 * refresh DIR's index.
 */
#ifndef LAB_SRCTREE_H
#define LAB_SRCTREE_H

#include <stddef.h>
#include "base/util.h"

/* 1 if dir looks like a kernel source tree (Makefile, Kconfig, mm/, arch/). */
int srctree_is_kernel(const char *dir);

/*
 * 0 if dir is not configured or built in place; else -1 with err naming
 * what is there and the command to clean it (kbuild refuses O= builds from
 * such a tree, and the lab would copy its build products).
 */
int srctree_check_clean(const char *dir, struct error *err) LAB_MUST_CHECK;

/* sha256 (hex) of the tree's listing, as described above.  -1 with err if dir cannot be read. */
int srctree_manifest(const char *dir, char hex[65], struct error *err) LAB_MUST_CHECK;

struct srctree_sync_stats {
	long files;       /* regular files and links in from */
	long copied;      /* written into to */
	long removed;     /* entries of to that from no longer has */
};

/* Make the directory to (created if needed) a mirror of from.  -1 with err on an I/O error. */
int srctree_sync(const char *from, const char *to, struct srctree_sync_stats *st,
		 struct error *err) LAB_MUST_CHECK;

/*
 * If dir is a git work tree: describe = `git describe --always --tags`,
 * "-dirty" added when the diff is not empty, diff_sha256 = sha256 of `git
 * diff HEAD` ("" when there is no uncommitted change).  Not a git tree:
 * both "".  Returns 0, or -1 with err if git failed.
 */
int srctree_git(const char *dir, char *describe, size_t cap, char diff_sha256[65],
		struct error *err) LAB_MUST_CHECK;

#endif
