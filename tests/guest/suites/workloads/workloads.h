/*
 * workloads: SPECint-like kernels whose speed depends on TLB reach and NUMA
 * placement, run under every placement the lab can set, with metrics.
 *
 * The kernels are open re-creations of the memory behaviour of well-known
 * benchmarks, not ports of their code:
 *
 *   mcf.c        mcf (network simplex): a pointer chase along a random
 *                single-cycle permutation of 64-byte arc records, each step
 *                reading the arc's tail and head node records (random) and
 *                updating the head: dependent loads, no locality.
 *   omnetpp.c    omnetpp (discrete-event simulation): a binary-heap event
 *                queue over 64-byte event objects allocated from the arena;
 *                each step pops the earliest event, updates its module and
 *                re-schedules the event at a later time.
 *   astar.c      astar (path finding): A* with a binary heap between random
 *                point pairs on a large weighted grid with walls.
 *   xalancbmk.c  xalancbmk (XSLT over a DOM): a random tree of small node and
 *                text allocations, traversed depth first through pointers,
 *                with random subtrees cut out and rebuilt between passes.
 *   bzip2.c      bzip2 (block sorting): the 8-byte prefix sort of every
 *                suffix of a large block by LSD radix sort (65536 buckets,
 *                scattered writes), then the BWT output column.
 *   gups.c       HPCC RandomAccess (GUPS): random read-modify-write (XOR) of
 *                64-bit words over one large table.
 *   stream.c     STREAM triad a[i] = b[i] + s*c[i]: sequential bandwidth.
 *
 * Every workload is deterministic (fixed seed), sizes itself from the
 * working-set size (wss) and checks its own result: a checksum of the
 * result must be the same under every placement, and each workload verifies
 * its result with an independent computation or invariant (see each .c).
 * A failed self-check is a failed test, never a skip.
 *
 * Placement (placement.c).  All workload data comes from one arena per
 * run: one anonymous mmap, aligned to the PMD (THP) size, carved by a bump
 * allocator (arena.c).  The CPU is always the home CPU (the first CPU of
 * node 0, or of the first node with CPUs and memory if node 0 has neither),
 * pinned with sched_setaffinity; only the arena's policy changes:
 *
 *   local                MPOL_BIND to the home node
 *   remote               MPOL_BIND to the memory node farthest from the home
 *                        node by the topology's distances (skip: one node)
 *   interleave           MPOL_INTERLEAVE over every memory node
 *   weighted-interleave  MPOL_WEIGHTED_INTERLEAVE over every memory node,
 *                        with the weights as sysfs has them (skip: no
 *                        weighted_interleave in this kernel)
 *
 * each with THP on (MADV_HUGEPAGE) and off (MADV_NOHUGEPAGE).  After a run
 * the arena's pages are sampled with move_pages(): under BIND every page
 * must be on the bound node, under interleaving on the node set (and on more
 * than one node when the arena spans several interleave units); with THP
 * off no huge page may back the arena.
 *
 * Output: one KTAP result per (workload, placement, thp), "ok 3 mcf local
 * thp", followed by a TAP YAML block (two spaces in, "---" to "..."):
 * time_s (the timed kernel, summed over reps), ops_per_s, reps, setup and
 * check times, the sizes, the checksum, the sampled page nodes, and the
 * deltas of /sys/devices/system/node/nodeN/numastat (numa_hit, numa_miss,
 * numa_foreign, interleave_hit, local_node, other_node) and of every
 * /proc/vmstat thp_* and pgmigrate_* counter that changed.  Last, one
 * "score PLACEMENT THP" result per placement: the geometric mean over the
 * workloads of ops_per_s(placement) / ops_per_s(local thp) of this run.
 * The host parser ignores the YAML lines (indented by 6 after /init adds
 * 4: not a KTAP depth) and keeps them in the tap file.
 *
 * Configuration: /lab/workloads.conf, if present, holds lines "reps N",
 * "wss_mb N" and "only NAME,NAME" ('#' starts a comment).  The default wss
 * is min(64 MiB, MemTotal of the smallest memory node / 8) rounded down to
 * the PMD size.  By hand: workloads [TOPOLOGY_FILE [CONF_FILE]].
 */
#ifndef NUMALAB_TEST_WORKLOADS_H
#define NUMALAB_TEST_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "model/topology.h"

#define MAX_NODES 64
#define WHY_MAX 200

/* ---- arena.c: one mapping per run, carved by a bump allocator ---- */

struct arena {
	char *base;                /* aligned to align; one VMA [base, base + size) */
	size_t size, used, align;
};

/* Map size bytes (rounded up to pages) aligned to align; -1 (errno) on failure. */
int arena_map(struct arena *a, size_t size, size_t align);
void arena_unmap(struct arena *a);
/* bytes from the arena aligned to align (a power of two); NULL when it is full. */
void *arena_alloc(struct arena *a, size_t bytes, size_t align);
size_t arena_left(const struct arena *a, size_t align);
/* Forget every allocation (the pages stay faulted in). */
void arena_reset(struct arena *a);

/* ---- the workloads ---- */

/* One repetition's bookkeeping, shared by a workload's three steps. */
struct wl_run {
	struct arena *arena;
	size_t wss;                /* bytes the workload may use */
	uint64_t ops;              /* kernel: operations done (the unit of ops_per_s) */
	uint64_t checksum;         /* check: a digest of the result, the same under every placement */
	char shape[WHY_MAX];       /* setup: the sizes chosen, for the metrics */
	char why[WHY_MAX];         /* setup or check: what went wrong */
};

struct workload {
	const char *name;
	/*
	 * Build the data in the arena (the first rep's stores fault it in);
	 * NULL with why set on failure.  Everything the kernel and check read
	 * must be written here: a later rep gets the previous rep's bytes.
	 */
	void *(*setup)(struct wl_run *r);
	/* The timed part. */
	void (*kernel)(void *state, struct wl_run *r);
	/* Verify the result and fill checksum; 0 with why set on failure. */
	int (*check)(void *state, struct wl_run *r);
};

extern const struct workload wl_mcf, wl_omnetpp, wl_astar, wl_xalancbmk, wl_bzip2,
	wl_gups, wl_stream;

/* printf into r->why; returns 0 so a check can "return fail(r, ...)". */
int wl_fail(struct wl_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* splitmix64: a fixed seed gives every placement the same data. */
static inline uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t rng_below(uint64_t *state, uint64_t n)
{
	return rng_next(state) % n;
}

/* Order-dependent digest step. */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return h;
}

/* ---- placement.c: the system, the placements, applying and verifying them ---- */

enum { PL_LOCAL, PL_REMOTE, PL_INTERLEAVE, PL_WEIGHTED, NR_PLACEMENTS };

struct system {
	const struct topology *topo;
	int mem[MAX_NODES], nr_mem;        /* nodes with memory, ascending */
	int online[MAX_NODES], nr_online;  /* nodes with a numastat */
	int home_node, home_cpu;           /* -1: no node with CPUs and memory */
	int far_node;                      /* farthest memory node from home; -1: none */
	long page, pmd;                    /* base page, THP PMD size (0: no THP) */
	char thp_skip[WHY_MAX];            /* why THP runs are skipped; "" if they run */
	uint64_t min_node_bytes;           /* MemTotal of the smallest memory node */
};

struct placement {
	const char *name;
	int mode;                  /* MPOL_* */
	unsigned long mask;        /* node mask of the policy */
	char skip[WHY_MAX];        /* "" when it can run here */
	char policy[256];          /* how it was set, for the metrics */
};

/* Nodes, home CPU, page sizes; -1 with why on failure. */
int system_discover(struct system *s, const struct topology *topo, char *why, size_t size);
void placement_prepare(const struct system *s, int which, struct placement *p);
/* Pin to the home CPU, madvise and mbind the (still empty) arena; -1 with why. */
int placement_apply(const struct system *s, const struct placement *p, struct arena *a,
		    int thp, char *why, size_t size);

/* Where a sample of the arena's used pages are. */
struct page_sample {
	long on_node[MAX_NODES];
	long absent;               /* not faulted in, or not a page move_pages knows */
	long huge_bytes;           /* AnonHugePages of the arena */
};

/* Sample the pages and check them against the placement; 0 with why on a violation. */
int placement_verify(const struct system *s, const struct placement *p, const struct arena *a,
		     int thp, struct page_sample *ps, char *why, size_t size);

/* ---- counters.c: numastat and vmstat before and after a run ---- */

#define MAX_VMSTAT 96
#define NR_NUMASTAT 6

struct counters {
	long long numa[MAX_NODES][NR_NUMASTAT];   /* by index into system.online */
	int nr_vm;
	char vm_name[MAX_VMSTAT][48];
	long long vm_val[MAX_VMSTAT];
};

void counters_read(const struct system *s, struct counters *c);
/* YAML lines: every numastat delta by node, every changed thp_* / pgmigrate_* counter. */
void counters_print_delta(const struct system *s, const struct counters *before,
			  const struct counters *after);

/* ---- report.c: the TAP YAML block after a result ---- */

void yaml_begin(void);
void yaml_field(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void yaml_end(void);
/* "{node0: 12, node1: 3}" for values indexed like nodes[]. */
void node_map(char *buf, size_t size, const int *nodes, int nr, const long long *values);

/* ---- config.c: /lab/workloads.conf ---- */

#define NR_WORKLOADS 7

struct config {
	int reps;
	size_t wss_bytes;          /* 0: the default from the system */
	int selected[NR_WORKLOADS];   /* 1 if the workload runs */
};

/* Defaults, then the file if it exists; -1 with why if it is malformed. */
int config_load(const char *path, const struct workload *const *all, struct config *c,
		char *why, size_t size);

/* ---- run.c: one (workload, placement, thp) ---- */

struct outcome {
	enum { OUT_PASS, OUT_FAIL, OUT_SKIP } status;
	double time_s, ops_per_s;
	char skip[WHY_MAX];
};

struct run_ctx {
	const struct system *sys;
	const struct config *conf;
	size_t wss;
	uint64_t checksum[NR_WORKLOADS];   /* the first one seen per workload */
	int have_checksum[NR_WORKLOADS];
};

void run_one(struct run_ctx *ctx, int wl_index, const struct workload *w,
	     const struct placement *p, int thp, struct outcome *out);

double now_s(void);

#endif
