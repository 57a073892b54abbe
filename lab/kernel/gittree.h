/*
 * gittree: a kernel git tree made from a source tarball and a patch series,
 * one commit per patch, so a regression bisect can be run (and shown end to
 * end) without a network.
 *
 * The first commit holds the unpacked source; each patch then becomes one
 * commit: a mail-format patch (git format-patch, "From:"/"Subject:" headers)
 * through `git am`, keeping its author and subject; any other diff through
 * `git apply` with the file's name as the subject.  Committer and dates are
 * fixed, so the same inputs give the same commit ids.  The tree is built
 * under OUT.tmp and renamed to OUT when complete: OUT either does not exist
 * or holds the whole series.
 */
#ifndef LAB_GITTREE_H
#define LAB_GITTREE_H

#include "base/util.h"

/*
 * Make the git tree out from source (a name pinned in kernels/prebuilt.lock
 * with arch "source", fetched if needed, or a path to a .tar[.gz|.xz] with
 * one top directory) and the n patches, in order.  out must not exist.
 * Returns 0, or -1 with err: ERROR_INPUT for the user's errors (out
 * exists, a patch does not apply: err names it), ERROR_HARNESS when a tool
 * failed.
 */
int gittree_make(const char *root, const char *source, const char *const *patches, int n,
		 const char *out, struct error *err) LAB_MUST_CHECK;

#endif
