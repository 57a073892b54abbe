/*
 * kcidb: a run, a matrix or a try as KCIDB JSON, schema v5.3 (KernelCI's
 * results database; docs/kcidb.md has the mapping table, the schema file is
 * tests/host/kcidb/).
 *
 * Contract:
 * - kcidb_export() reads a directory the lab wrote: a run (results/RUN-ID:
 *   its `state` and cells, results.h), a matrix output (`cells.list`,
 *   cells/ID/: celldir.h) or a directory of matrix outputs (a try's OUT:
 *   OUT/matrix/, OUT/shard-I-of-N/).  Anything else is ERROR_INPUT naming
 *   the directory; nothing is written then.
 * - One checkout per kernel source (meta kernel.source, its tree's diff and
 *   the patches applied: kernel.patches, whose sha256s in order give
 *   KCIDB's patchset_hash), one build per kernel (name, version, arch,
 *   config), one test per leaf of each cell's TAP (tap_walk(): the leaves
 *   and the suites whose own verdict the leaves do not show), path
 *   "numalab.SUITE.CASE", each part made of [A-Za-z0-9_-] (other bytes
 *   '_'); one DONE test with a `number` per metric (compare.h's rules),
 *   path "...CASE.METRIC".  Status: ok PASS, not ok FAIL, SKIP and TODO
 *   SKIP, TIMEOUT and a crash's ERROR ERROR, a test the harness never ran
 *   ("not run: ..." results, a cell whose QEMU or firmware failed, an
 *   interrupted one) MISS; a cell whose verdict no leaf shows adds a test
 *   at path "numalab" with that verdict (a cell that did not run: MISS).
 *   A failing test's own diagnostics (tap.h: what it said about itself,
 *   the lab's bookkeeping lines aside) and its result line are its
 *   log_excerpt, at most KCIDB_LOG_EXCERPT_MAX bytes (the last ones); a
 *   test's comment is its name and tap_reason().  environment.misc: topology, arch, the SLIT the
 *   guest saw, the HMAT the topology declares, accel, host NUMA backing
 *   and the EMULATED NUMA note.
 * - Ids are "ORIGIN:..." and stable: exporting the same directory again
 *   gives the same ids, so a resubmission updates rather than duplicates.
 *   Checkouts and builds are named by a hash of what identifies them (the
 *   same kernel in two runs is one build); a test by its run's id (unique:
 *   results.h), its cell and its place in the cell's TAP.
 * - Pure but for reading the directory; prints nothing.
 */
#ifndef LAB_KCIDB_H
#define LAB_KCIDB_H

#include "base/util.h"

#define KCIDB_ORIGIN_DEFAULT "numalab"
#define KCIDB_VERSION_MAJOR 5
#define KCIDB_VERSION_MINOR 3
#define KCIDB_LOG_EXCERPT_MAX 16384   /* the schema's maxLength of log_excerpt */

/* 1 if origin is a KCIDB origin name: [a-z0-9_]+. */
int kcidb_origin_valid(const char *origin);

/*
 * The KCIDB JSON of dir (a run, a matrix or a try output) appended to out,
 * objects from origin (NULL: KCIDB_ORIGIN_DEFAULT).  0, or -1 with err:
 * ERROR_INPUT for a bad origin or a directory that is none of those,
 * ERROR_HARNESS when a file of it cannot be read.
 */
int kcidb_export(const char *dir, const char *origin, struct buf *out, struct error *err) LAB_MUST_CHECK;

/* s as one part of a KCIDB test path ([A-Za-z0-9_-]+: other bytes, in runs, one '_') appended to out. */
void kcidb_path_part(struct buf *out, const char *s);

#endif
