/*
 * matrix: a test matrix file (matrices/NAME.matrix, docs/matrix.md) and
 * its expansion into cells: topologies × kernels × suites × repetitions.
 *
 * One statement per line, read by base/lines.h ('#' starts a comment):
 *
 *   topology NAME...              shapes (topologies/NAME.topo), in order
 *   kernel SPEC...                kernels as `numalab run --kernel` takes them
 *                                 (lock name, RECIPE[+FRAGMENT]); the label is the spec
 *   kernel LABEL = SPEC [ARG...]  a labelled kernel: a path, or SPEC booted with
 *                                 extra kernel command-line ARGs
 *   patch LABEL FILE...           FILEs' patches on top of kernel LABEL (built from
 *                                 source), in order; FILE relative to the matrix file
 *   suite NAME...                 guest test suites (tests/NAME/), one per cell
 *   exclude KEY=GLOB...           drop the cells matching every KEY=GLOB
 *   repeat N [KEY=GLOB...]        run matching cells N times (default 1)
 *   timeout S [KEY=GLOB...]       VM timeout of matching cells (default: the topology's)
 *   host URI capacity N           run cells on this libvirt host, N at a time
 *                                 ("local": this machine's QEMU)
 *
 * KEY is topology, kernel (its label) or suite; GLOB is fnmatch(3)'s.  For
 * repeat and timeout the last matching line wins.  Every GLOB must match a
 * declared name, so a typo is an error, not a silently bigger matrix.
 *
 * Pure: no I/O.  Whether topologies, kernels, suites and patch files exist
 * is the caller's to check.  Errors are "FILE:LINE: what is wrong; what to do".
 *
 * Cells come out of matrix_expand() in declaration order (topology, then
 * kernel, then suite, then repetition) with ids "TOPO.KERNEL.SUITE.rN"; the
 * order and ids depend only on the file, so a shard (--shard i/n: the cells
 * whose index k has k % n == i) is the same on every machine.
 */
#ifndef LAB_MATRIX_H
#define LAB_MATRIX_H

#include <stddef.h>
#include "base/util.h"

#define MATRIX_NAME_MAX 64
#define MATRIX_ID_MAX (3 * MATRIX_NAME_MAX + 16)

enum matrix_axis { MATRIX_TOPOLOGY, MATRIX_KERNEL, MATRIX_SUITE, MATRIX_NR_AXES };

struct matrix_kernel {
	char label[MATRIX_NAME_MAX];   /* in cell ids */
	char spec[1024];               /* --kernel */
	char append[1024];             /* --append; "" none */
	struct strvec patches;         /* --patch files, relative ones joined to the matrix's folder */
	int line;
	int patch_line;                /* its `patch` statement; 0 none */
};

enum matrix_rule_kind { MATRIX_EXCLUDE, MATRIX_REPEAT, MATRIX_TIMEOUT, MATRIX_ACCEL };

/* `accel` values; a later matching rule wins, as for the others. */
enum matrix_accel { MATRIX_ACCEL_AUTO, MATRIX_ACCEL_TCG, MATRIX_ACCEL_KVM };

struct matrix_rule {
	enum matrix_rule_kind kind;
	int value;                               /* repeat count, timeout seconds, enum matrix_accel */
	char glob[MATRIX_NR_AXES][MATRIX_NAME_MAX];   /* "" matches anything */
	int line;
};

struct matrix_host {
	char uri[512];                 /* "local": this machine */
	int capacity;
	int line;
};

struct matrix {
	char path[512];
	int nr_topos, nr_kernels, nr_suites, nr_rules, nr_hosts;
	char (*topos)[MATRIX_NAME_MAX];
	struct matrix_kernel *kernels;
	char (*suites)[MATRIX_NAME_MAX];
	struct matrix_rule *rules;
	struct matrix_host *hosts;
	int *topo_lines, *suite_lines;
};

struct matrix_cell {
	char id[MATRIX_ID_MAX];        /* TOPO.KERNEL.SUITE.rN */
	int index;                     /* in the whole expansion, before sharding */
	int topo, kernel, suite;       /* indices into the matrix */
	int rep;                       /* 1..repeat */
	int timeout_s;                 /* 0: the topology's */
	enum matrix_accel accel;       /* run's --accel */
};

/* "auto", "tcg", "kvm". */
const char *matrix_accel_name(enum matrix_accel a);

/*
 * Parse text (len bytes, need not be NUL terminated) named file in messages.
 * Returns 0, or -1 with err set; m is then freed.  Release with matrix_free().
 */
int matrix_parse(const char *file, const char *text, size_t len, struct matrix *m,
		 struct error *err) LAB_MUST_CHECK;
void matrix_free(struct matrix *m);

/* Every cell not excluded, in order; *cells is xmalloc'ed (free()), *n its count. */
void matrix_expand(const struct matrix *m, struct matrix_cell **cells, int *n);

/* "i/n" with 0 <= i < n: 0, or -1 with err saying what is wanted (the caller names s). */
int matrix_shard_parse(const char *s, int *i, int *n, struct error *err) LAB_MUST_CHECK;

/* Keep the cells of shard i of n (in place); returns how many are left. */
int matrix_shard(struct matrix_cell *cells, int n, int shard, int nr_shards);

#endif
