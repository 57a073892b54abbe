/*
 * policy: the NUMA memory-policy contract as the documents state it
 * (issue 33), each check citing the sentence it holds the kernel to and
 * naming a one-line mutant it kills (file:function, the change).  Parts,
 * each one case (harness.h) with a fixed number of results (*_plan()):
 *
 *   build.c    building a policy from a nodemask: every mode x the mode
 *              flags on single, several, sparse, too-large and partly
 *              outside masks; set_mempolicy/mbind's EINVAL/EFAULT contract
 *              (maxnode, empty and non-empty masks, flag combinations)
 *   query.c    get_mempolicy for every flag combination: MPOL_F_NODE,
 *              MPOL_F_ADDR, both, MPOL_F_MEMS_ALLOWED, the refused ones,
 *              the interleave modes' next node, maxnode and mask clearing
 *   rebind.c   policies remapped when the cpuset's mems change (a child
 *              cgroup v2 cpuset): default remap, STATIC_NODES, RELATIVE_NODES
 *   move.c     migrate_pages on overlapping, equal- and different-size node
 *              sets; move_pages' per-page status and its errors
 *   unmovable.c  move_pages' return value when a page cannot move (a pipe
 *              holds a reference): the pages not migrated, the retry
 *   mbind.c    mbind's MPOL_MF_STRICT, MOVE and MOVE_ALL
 *   home.c     set_mempolicy_home_node on BIND, PREFERRED_MANY and
 *              policy-less ranges
 *   shared.c   shared policy on a memfd mapped twice: the object's, split
 *              and trimmed by later mbinds
 *   balancing.c  automatic NUMA balancing (4K pages and a THP) moving pages
 *              to the node that writes them; BIND with and without
 *              MPOL_F_NUMA_BALANCING
 *   faults.c   NUMA balancing's per-task account in /proc/PID/sched: a THP's
 *              hinting faults counted private on its node, pages migrated,
 *              the preferred node of a task whose memory has no CPUs
 *   full.c     a local node full of hugetlb pages: a MADV_HUGEPAGE fault
 *              gets a THP from another node (the default policy's retry);
 *              NUMA balancing moves nothing into it while it is nearly full
 *   tmpfs.c    tmpfs's mpol= mount option: bind, prefer, interleave, and
 *              a node that is not online refused
 *
 * Raw syscalls (the binary is static and cross-compiled, no libnuma).
 * Node numbers: the checks name nodes by their rank among the memory
 * nodes (m[0], m[1], ...), so a shape whose memory nodes are 0..N-1 and
 * one with gaps are both covered; a check needing more memory nodes than
 * the shape has is a SKIP saying how many.
 *
 * Where Linux 7.2 and the documents disagree (the first three seen on the
 * pinned Debian kernel, the last two read in mm/mempolicy.c; reported, not
 * asserted either way, but for the one that says so):
 *   - set_mempolicy(2) "If the value of maxnode is zero, the nodemask
 *     argument is ignored": get_nodes() decrements maxnode first, so 0 with
 *     a non-NULL mask is EINVAL ("more than a page worth of bits"); and
 *     "the kernel will use bits only up to maxnode" is maxnode - 1 bits
 *     (BIND {0} with maxnode 1 is an empty mask, EINVAL);
 *   - set_mempolicy(2) says MPOL_F_NUMA_BALANCING with a mode other than
 *     MPOL_BIND is EINVAL: MPOL_PREFERRED_MANY is accepted since 6.x;
 *   - get_mempolicy(2) ERRORS "flags specified MPOL_F_ADDR and addr is
 *     NULL" is EINVAL: the kernel answers EFAULT (vma_lookup() fails);
 *   - mbind(2) EFAULT "there was an unmapped hole in the specified memory
 *     range" has an exception the page does not state: MPOL_DEFAULT over a
 *     hole succeeds (do_mbind()'s MPOL_MF_DISCONTIG_OK; asserted, as
 *     Linux has long answered so);
 *   - numa_memory_policy.rst MPOL_F_STATIC_NODES "If the two sets of nodes
 *     do not overlap, the Default policy is used": mpol_rebind_nodemask()
 *     uses the cpuset's new mems instead (`if (nodes_empty(tmp)) tmp =
 *     *nodes;`), e.g. an interleave over all of them.
 */
#ifndef NUMALAB_TEST_POLICY_H
#define NUMALAB_TEST_POLICY_H

#include <stddef.h>

#include "mpol.h"

#define MAX_NODES 64
/* One unsigned long of nodes: maxnode 65 (the kernel uses maxnode - 1 bits). */
#define MAXNODE_LONG 65UL

/* The guest's memory nodes, ascending, and the number of possible nodes. */
struct nodes {
	int mem[MAX_NODES];
	int nr_mem;
	int nr_possible;           /* nr_node_ids: highest possible node + 1 */
};

/* Raw syscalls with every argument explicit; -1 and errno on failure. */
long p_set(int mode, const unsigned long *mask, unsigned long maxnode);
long p_mbind(void *addr, size_t len, int mode, const unsigned long *mask, unsigned long maxnode,
	     unsigned flags);
long p_get(int *mode, unsigned long *mask, unsigned long maxnode, void *addr, unsigned long flags);
long p_move_pages(unsigned long nr, void **pages, const int *nodes, int *status, int flags);
long p_migrate_pages(unsigned long maxnode, const unsigned long *from, const unsigned long *to);

/* set_mempolicy(mode, mask over one long); drop the task policy. */
long set_task(int mode, unsigned long mask);
void reset_task(void);
/* The task policy read back (flags 0); -1 on failure (diag printed). */
int get_task(int *mode, unsigned long *mask);

/* Write one byte to each of n pages. */
void touch_pages(char *base, size_t n);
/* Each page's node (move_pages query), or its negative errno; -1 on failure. */
int pages_nodes(char *base, size_t n, int *status);
/* The set of nodes n fresh pages land on when faulted under the task policy as it is. */
unsigned long fault_nodes(size_t n);
/* n pages faulted on node (mbind BIND, then the VMA policy dropped); NULL on failure. */
char *pages_on(int node, size_t n);
/*
 * A PMD-size THP faulted on node (mbind BIND, then the VMA policy dropped) inside a fresh
 * mapping of two PMDs, *map, to munmap with 2 * pmd_size(); NULL if none could be had (a diag
 * says why; *map may still need the munmap).
 */
char *thp_on(int node, char **map);
/* 1 if all n status entries are node, else 0 with a diag naming what. */
int all_on(const int *status, size_t n, int node, const char *what);

/* Pin to a CPU of node (its cpulist); 0, or -1 when the node has none. Restore with unpin(). */
int pin_to_node(int node);
void unpin(void);
/* The last node with CPUs and memory (-1 for none). */
int last_cpu_node(const struct nodes *n);
/*
 * Pinned to a CPU of *local, the first memory node with CPUs, with *far the
 * last memory node: 0.  Else -1, after nr_rows SKIPs named what (the rows
 * of a case that needs both).
 */
int pin_local_far(const struct nodes *n, int *local, int *far, int nr_rows, const char *what);

/* "0-1,3" for a mask (rotating static buffers: four per statement). */
const char *mask_str(unsigned long mask);
/* The mask of memory nodes of rank r0, r1, ...: mem_mask(n, "013"). */
unsigned long mem_mask(const struct nodes *n, const char *ranks);
/* The mask of every memory node. */
unsigned long all_mem(const struct nodes *n);
/* ktap_ok for an errno expectation: rc -1 with errno want (0: success). */
int expect_errno(long rc, int want, const char *what);
/* One touched page moved (MPOL_MF_MOVE) to node: the call fails with want, as expect_errno(). */
int expect_move_errno(int node, int want, const char *what);
/* "EINVAL" for EINVAL, ... */
const char *errno_name(int e);

int build_plan(const struct nodes *n);
void build_run(const struct nodes *n);
int query_plan(const struct nodes *n);
void query_run(const struct nodes *n);
int rebind_plan(const struct nodes *n);
void rebind_run(const struct nodes *n);
int move_plan(const struct nodes *n);
void move_run(const struct nodes *n);
int unmovable_plan(const struct nodes *n);
void unmovable_run(const struct nodes *n);
int balancing_plan(const struct nodes *n);
void balancing_run(const struct nodes *n);
int faults_plan(const struct nodes *n);
void faults_run(const struct nodes *n);
int mbind_plan(const struct nodes *n);
void mbind_run(const struct nodes *n);
int home_plan(const struct nodes *n);
void home_run(const struct nodes *n);
int shared_plan(const struct nodes *n);
void shared_run(const struct nodes *n);
int full_plan(const struct nodes *n);
void full_run(const struct nodes *n);
int tmpfs_plan(const struct nodes *n);
void tmpfs_run(const struct nodes *n);

#endif
