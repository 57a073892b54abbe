/*
 * tiering: memory tiers built from HMAT and the page movement between them.
 * Runs on shapes with CPU-less memory nodes and HMAT (cxl); elsewhere the
 * whole suite is one SKIP with the reason.  Where the HMAT puts every node in
 * one tier (cxl-mismatch: DRAM nodes too different, so the kernel turns the
 * HMAT tiers off), the parts that move pages between tiers SKIP.  Parts, each
 * with a fixed number of KTAP results (*_plan()):
 *
 *   tiers.c    every node in the memory tier the kernel's abstract-distance
 *              rule gives for its HMAT access1 latency and bandwidth; the
 *              weighted-interleave auto weights the kernel derives from
 *              those bandwidths, and manual weights overriding them
 *   demote.c   with demotion_enabled, proactive reclaim on a DRAM node
 *              demotes its cold anonymous and tmpfs pages to the nearest
 *              node of the next lower tier, page-exact, pgdemote_* counted
 *   mems.c     demotion inside a cpuset: only to a lower-tier node in its
 *              mems, none when it has no such node
 *   targets.c  every node's demotion targets as the kernel logs them, preferred
 *              (nearest nodes of the next lower tier) and fallback (every
 *              lower tier), against the rule
 *   promote.c  with numa_balancing=2 (memory tiering mode), slow-tier pages
 *              touched from a DRAM node's CPU are promoted to that node
 *              within a bounded time, untouched ones stay, pgpromote_*
 *   crowded.c  in that mode, hot pages still reach a DRAM node that is
 *              nearly full: its kswapd demotes cold pages to make room
 *   hopeless.c a node kswapd gave up on (nothing reclaimable) is given back
 *              to it when demotion_enabled goes from 0 to 1, and only then
 *
 * Which wrong kernel each check catches is said next to it.
 */
#ifndef NUMALAB_TEST_TIERING_H
#define NUMALAB_TEST_TIERING_H

#include <stddef.h>

#include "model/topology.h"

#define NODE_DIR "/sys/devices/system/node"
#define TIERS_DIR "/sys/devices/virtual/memory_tiering"
#define WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"
#define DEMOTION_ENABLED "/sys/kernel/mm/numa/demotion_enabled"
#define MAX_NODES TOPO_MAX_NODES

/* The guest's view, read once by main(). */
struct tiering {
	const struct topology *topo;
	int nr_nodes;
	int has_cpu[MAX_NODES];
	int tier[MAX_NODES];          /* memory_tierN of each node, -1: none */
	int distance[MAX_NODES][MAX_NODES];
	int dram;                     /* the first node with CPUs */
	int dram_cpu;                 /* its first CPU */
	int dram_mismatch;            /* a DRAM node whose HMAT differs from dram's by > 10%, -1: none */
	int lower_tier;               /* 1 if some node is in a tier below dram's */
};

/* Raw move_pages query of n pages from base at stride page_size(); -1 on failure. */
int pages_where(char *base, size_t n, int *status);
/* move_pages(2) MPOL_MF_MOVE of n pages from base to node: 0 once all are there, else -1 (diag printed). */
int pages_move_to(char *base, size_t n, int node);
/* How many of the n status entries are in mask; the first one that is not, in *stray. */
size_t pages_in(const int *status, size_t n, unsigned long mask, int *stray);
/* MemFree of node, in bytes; 0 if unreadable. */
unsigned long long node_free(int node);
/* Pin the calling thread to cpu; -1 on failure (diag printed). */
int pin_to_cpu(int cpu);
/* The demotion targets the kernel's rule gives node: nearest nodes of the next lower tier. */
unsigned long demotion_targets(const struct tiering *t, int node);
/* The kernel log (klogctl), NUL-terminated, to free(); NULL on failure (diag printed). */
char *kernel_log(void);
/*
 * mm/memory-tiers.c mt_set_default_dram_perf(): the first DRAM node after
 * t->dram whose HMAT access1 numbers differ from its by more than 10% (the
 * kernel then turns the HMAT-based tiers off), -1 if none or unreadable.
 */
int dram_mismatch(const struct tiering *t);
/* len bytes of anonymous base pages faulted here; NULL on failure (diag printed). */
char *anon_pages(size_t len);
/* Every page of [addr, addr+len) on the inactive LRU when it returns (MADV_COLD). */
void make_cold(char *addr, size_t len);

int tiers_plan(const struct tiering *t);
void tiers_run(const struct tiering *t);
int demote_plan(const struct tiering *t);
void demote_run(const struct tiering *t);
int mems_plan(const struct tiering *t);
void mems_run(const struct tiering *t);
int targets_plan(const struct tiering *t);
void targets_run(const struct tiering *t);
int promote_plan(const struct tiering *t);
void promote_run(const struct tiering *t);
int crowded_plan(const struct tiering *t);
void crowded_run(const struct tiering *t);
int hopeless_plan(const struct tiering *t);
void hopeless_run(const struct tiering *t);

#endif
