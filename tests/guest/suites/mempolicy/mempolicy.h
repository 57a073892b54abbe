/*
 * mempolicy: the memory-policy suite.  Each part is one case (harness.h,
 * main.c) printing its *_plan() results, so the harness can sum the plan:
 *
 *   defaults.c   weighted interleave before any weight is written (runs first):
 *                sysfs, the fault path and the bulk path on their defaults
 *   modes.c      set/get_mempolicy round trips for every mode and flag, and
 *                the EINVAL/EFAULT error paths
 *   placement.c  page-exact placement of faults under BIND, PREFERRED,
 *                PREFERRED_MANY, INTERLEAVE, WEIGHTED_INTERLEAVE, LOCAL and
 *                DEFAULT, through mbind and set_mempolicy
 *   migrate.c    migrate_pages() and move_pages() moving pages between nodes
 *   weights.c    weighted-interleave sysfs: manual weights, auto mode ordered
 *                by HMAT bandwidth
 *   bulk.c       weighted interleave through the bulk allocator, page counts
 *                and carried state checked against the reference model; the
 *                frame the traced bulk cases run in (bulkframe.h)
 *   sweep.c      the same systematically: every small weight vector, every
 *                position in the round x every remainder, each step replayed
 *                from a kernel trace (steptrace.h, replay.h)
 *   ilbulk.c     plain interleave through the bulk allocator, step by step,
 *                also inside a child cpuset, and weighted interleave there
 *   cutbulk.c    bulk weighted interleave cut short by fault injection: the
 *                weights kmalloc failing (failslab), a node's run failing
 *   pagecache.c  page-cache pages written under set_mempolicy (no VMA: the
 *                task's interleave state), page by page
 *   numactl.c    the image's numactl: >= 2.0.19, `numactl -w` places by weight
 *
 * Raw syscalls, no libnuma: the binary is static and cross-compiled.
 * `mempolicy --touch-pages N` is numactl.c's child, not a test run.
 */
#ifndef NUMALAB_TEST_MEMPOLICY_H
#define NUMALAB_TEST_MEMPOLICY_H

#include <stddef.h>

#include "model/topology.h"
#include "mpol.h"
#include "wi_model.h"

#define MAX_NODES 64
#define WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"
#define WI_AUTO_PATH WI_DIR "/auto"

/* The guest's nodes as the tests see them. */
struct nodes {
	int mem[MAX_NODES];        /* nodes with memory, ascending */
	int nr_mem;
	int cpu[MAX_NODES];        /* nodes with CPUs, ascending */
	int nr_cpu;
	const struct topology *topo;   /* the declared shape, for HMAT expectations */
};

/* Raw syscalls; maxnode covers one unsigned long (the kernel drops its last bit). */
long sys_mbind(void *addr, size_t len, int mode, unsigned long mask);
long sys_set_mempolicy(int mode, unsigned long mask);
long sys_get_mempolicy(int *mode, unsigned long *mask, void *addr, unsigned long flags);
long sys_move_pages(unsigned long nr, void **pages, const int *nodes, int *status, int flags);
long sys_migrate_pages(unsigned long old_nodes, unsigned long new_nodes);

/* Where each of n pages from base lives (move_pages query); -1 on failure. */
int pages_nodes(char *base, size_t n, int *status);
/* "0-1,3" for a node mask. */
const char *mask_str(unsigned long mask);

int defaults_plan(const struct nodes *n);
void defaults_run(const struct nodes *n);
int modes_plan(const struct nodes *n);
void modes_run(const struct nodes *n);
int placement_plan(const struct nodes *n);
void placement_run(const struct nodes *n);
int migrate_plan(const struct nodes *n);
void migrate_run(const struct nodes *n);
int weights_plan(const struct nodes *n);
void weights_run(const struct nodes *n);
int bulk_plan(const struct nodes *n);
void bulk_run(const struct nodes *n);
/* bulk.c's means for the other bulk tests: why the path cannot be driven (or NULL), */
const char *bulk_unsupported(const struct nodes *n);
/* fail_page_alloc set to fail this task's high-order pages (0), and put back, */
int bulk_fault_arm(void);
void bulk_fault_disarm(void);
/* a BPF array map of exactly pages vmalloc'ed pages (its fd, -1 with errno). */
int bulk_map_create(unsigned long pages);
/*
 * sweep.c's replay for other cases: maps of sizes[0..nr-1] pages under
 * MPOL_WEIGHTED_INTERLEAVE over the nodes with a non-zero weight (weights
 * as the kernel has them), every step and batch replayed against the model;
 * 1 if all matched.  The caller pins the task to one CPU, arms
 * fail_page_alloc (bulk_fault_arm(), make-it-fail on) and the step trace.
 */
int sweep_maps(const unsigned weights[WI_MAX_NODES], const unsigned long *sizes, int nr);
int sweep_plan(const struct nodes *n);
void sweep_run(const struct nodes *n);
int ilbulk_plan(const struct nodes *n);
void ilbulk_run(const struct nodes *n);
int cutbulk_plan(const struct nodes *n);
void cutbulk_run(const struct nodes *n);
int pagecache_plan(const struct nodes *n);
void pagecache_run(const struct nodes *n);
int numactl_plan(const struct nodes *n);
void numactl_run(const struct nodes *n);
/* The child numactl runs: fault count pages, print "N<node>=<pages>" lines. */
int touch_pages_main(const char *count);

#endif
