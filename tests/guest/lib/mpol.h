/*
 * mpol: what the memory-policy suites (mempolicy, policy) share: the uapi
 * constants, base-page test mappings and a child cgroup v2 cpuset.
 *
 * Contract: the helpers print why they failed as a KTAP diag (ktap.h) and
 * return NULL / -1; none of them reports a result.  The cpuset is one at a
 * time per process: cpuset_enter() names it, cpuset_set_mems() and
 * cpuset_leave() act on the one entered; the caller calls cpuset_leave()
 * after any cpuset_enter(), including a failed one (it removes what a
 * half-made cpuset left).
 */
#ifndef NUMALAB_MPOL_H
#define NUMALAB_MPOL_H

#include <stddef.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

/* uapi <linux/mempolicy.h>; older libc headers lack the newer modes. */
#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_WEIGHTED_INTERLEAVE 6
#define MPOL_MAX 7
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)
#define MPOL_MF_STRICT (1 << 0)
#define MPOL_MF_MOVE (1 << 1)
#define MPOL_MF_MOVE_ALL (1 << 2)

/*
 * A fresh anonymous private map of n base pages (MADV_NOHUGEPAGE), not
 * faulted; NULL on failure.  unmap_pages() takes it back (NULL: nothing).
 */
char *map_pages(size_t n);
void unmap_pages(char *base, size_t n);

/*
 * The cgroup v2 cpuset /sys/fs/cgroup/NAME (cgroup2 mounted and the cpuset
 * controller enabled if need be) with mems = mask, this task moved into it:
 * NULL, or why not (one line, for a SKIP).  name must outlive the cpuset.
 */
const char *cpuset_enter(const char *name, unsigned long mems);
/* The entered cpuset's mems changed to mask: 0, or -1. */
int cpuset_set_mems(unsigned long mems);
/*
 * The task back in the root cgroup, the cpuset kept (what the task faulted
 * there stays charged to it): 0, or -1.
 */
int cpuset_step_out(void);
/* val written to the entered cpuset's file (e.g. "memory.reclaim"): 0, or -1 with errno. */
int cpuset_write(const char *file, const char *val);
/* The task back in the root cgroup and the cpuset removed. */
void cpuset_leave(void);

#endif
