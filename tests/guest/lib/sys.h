/*
 * sys: small readers for sysfs and procfs, shared by the guest tests
 * (with ktap.h) and /init (images/init/, which links sys.c alone).
 */
#ifndef NUMALAB_SYS_H
#define NUMALAB_SYS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * sysfs/procfs readers.  All return 0 on success, -1 with errno set.
 * sys_read() reads the whole file (it must fit in size-1 bytes, else
 * EFBIG) and strips trailing whitespace.
 */
/* The whole file as it is, NUL-terminated (it may hold NULs): its length, or -1. */
ssize_t sys_read_bytes(const char *path, char *buf, size_t size);
int sys_read(const char *path, char *buf, size_t size);
int sys_read_long(const char *path, long *val);
/* Write the string val (no newline needed). */
int sys_write(const char *path, const char *val);
/* 1 if path exists (file, directory or link), else 0. */
int sys_exists(const char *path);
/* Field n (numbered as proc(5) numbers them, n >= 3) of /proc/PID/stat as a number; -1 if unreadable. */
long proc_stat_field(int pid, int n);

/*
 * An id list as sysfs prints CPU and node sets ("0-1,4", "" for none) as a
 * bit mask.  Ids are limited to 0..63: the lab's shapes have at most
 * TOPO_MAX_CPUS CPUs.  Returns the number of ids, -1 (EINVAL) if malformed
 * or out of range.
 */
int idlist_parse(const char *list, uint64_t *mask);
/* The mask back as "0-1,4" (for diagnostics); "" when empty. */
void idlist_format(uint64_t mask, char *buf, size_t size);
/*
 * A node set from /sys/devices/system/node/FILE ("online", "has_memory",
 * "has_cpu") as ascending node numbers (at most max); 0, or -1 if unreadable.
 */
int node_list(const char *file, int *nodes, int max, int *nr);

/* Base page size, and the THP PMD size from sysfs (0: no THP). */
long page_size(void);
long pmd_size(void);

/* AnonHugePages of this process's VMA that starts at vma_start, in bytes; -1 if none. */
long long smaps_anon_huge(const void *vma_start);
/* smaps' "FIELD: N kB" of the VMA holding addr, in bytes; -1 if none. */
long long smaps_bytes_at(const void *addr, const char *field);
/* A /proc/vmstat counter, per-CPU deltas folded in first (vm/stat_refresh); -1 when absent. */
long long vmstat(const char *name);
/*
 * A node's persistent huge pages of the PMD size (hugetlb: the node's
 * hugepages-<pmd_size()>kB/nr_hugepages).  node_hugepages_set() asks for
 * want of them, again while the count still grows (hugetlb takes what the
 * node gives per write; FILL_PASSES writes at most), the count before kept
 * in h the first time: the count held after, or -1 when the node has no
 * such file (nothing changed).  node_hugepages_restore() puts the first
 * count back (nothing if set never succeeded).
 */
struct node_hugepages {
	char path[128];
	char was[32];
};
long node_hugepages_set(struct node_hugepages *h, int node, long want);
void node_hugepages_restore(const struct node_hugepages *h);
/* The number after "KEY:" or "KEY " on a line of path (meminfo, memory.stat); -1 if none. */
long file_key_value(const char *path, const char *key);
/*
 * Objects in use of the slab cache whose sysfs directory is dir (/sys/kernel/slab/NAME, an
 * alias link for a merged cache: then its siblings' objects too), after its per-CPU caches
 * were flushed (its shrink file); -1 if unreadable.
 */
long slab_objects(const char *dir);
/*
 * Every slab cache shrunk (its per-CPU slabs flushed, and what KASAN's
 * quarantine holds of it freed: kasan_cache_shrink()), so meminfo's Slab
 * figures count only objects in use.  The number of caches shrunk.
 */
int slab_shrink_all(void);
/* This thread's minor faults (getrusage(2) RUSAGE_THREAD ru_minflt: "page faults serviced without any I/O"). */
long minor_faults(void);
/*
 * The calling thread bound to the CPU it is running on (CPU 0 if that cannot be told), so that
 * the per-CPU state it fills (LRU batches, per-CPU page lists) is the state its later calls on
 * that CPU see: 1 with its old CPU mask in *was, or 0 with errno set (it runs on unbound).
 * cpu_unpin() puts the old mask back.
 */
int cpu_pin_here(cpu_set_t *was);
void cpu_unpin(const cpu_set_t *was);
/*
 * Watermark boosting (vm.watermark_boost_factor) off, its value kept in saved (saved[0] 0 when it
 * could not be read or set), and back: after a fragmenting fallback it raises every watermark for
 * a while, so a node filled to its watermarks on purpose would move under a test.
 */
void watermark_boost_off(char *saved, size_t cap);
void watermark_boost_restore(const char *saved);
/*
 * Node node's last zone with managed pages, from /proc/zoneinfo: its free
 * pages and watermarks, and the node's node_unreclaimable (1 once kswapd
 * has run MAX_RECLAIM_RETRIES times on it without reclaiming a page and
 * given up: mm/vmscan.c's "hopeless" node).  -1 when the node has no zone
 * with managed pages.
 */
struct zone_marks {
	long free, min, low, high;
	int unreclaimable;
};
int zone_marks(int node, struct zone_marks *z);
/*
 * The memory controller for the children of the cgroup v2 root (/sys/fs/cgroup):
 * memcg_controller_enable() adds it to the root's cgroup.subtree_control, and
 * memcg_controller_restore() takes it out again if the enable put it there.
 * The first memory cgroup that comes online turns memcg kmem accounting on
 * until the guest powers off (memcontrol.c: memcg_online_kmem() enables a
 * static key nothing disables), and from then on the page allocator's bulk
 * path serves no __GFP_ACCOUNT request (page_alloc.c: "Bulk allocator does not
 * support memcg accounting"), so later suites that need bulk batches (the
 * mempolicy suite's, through accounted BPF map vmallocs) would see single
 * pages.  The enable therefore leaves MEMCG_ONLINE_MARK first, and
 * memcg_kmem_may_be_on() reports it.  0, or -1 with errno.
 */
#define MEMCG_ONLINE_MARK "/run/numalab-memcg-online"
struct memcg_controller {
	int enabled_here;
};
int memcg_controller_enable(struct memcg_controller *c);
void memcg_controller_restore(const struct memcg_controller *c);
/*
 * 1 if memcg kmem accounting may be on in this boot: the mark is there, the
 * root's subtree_control has the memory controller, or /proc/cgroups counts a
 * memory cgroup besides the root; else 0.
 */
int memcg_kmem_may_be_on(void);
/*
 * /proc/self/pagemap's soft-dirty bit (55) of the page at addr: 0 or 1, -1 if unreadable.
 * soft-dirty.rst: "If set, the respective PTE was written to" since clear_refs got "4".
 */
int page_soft_dirty(const void *addr);
/* 1 if the page at addr is swapped out (pagemap bit 62, pagemap.rst), 0 if not, -1 if unreadable. */
int page_swapped(const void *addr);
/*
 * 1 if the page at addr is write-protected by userfaultfd (pagemap bit 57, pagemap.rst: "pte is
 * uffd-wp write-protected"; a page unmapped since keeps it as a marker), 0 if not, -1 if unreadable.
 */
int page_uffd_wp(const void *addr);
/*
 * The page frame number of the page present at addr (pagemap bits 0-54, pagemap.rst: "Bits 0-54
 * page frame number (PFN) if present"; 0 without CAP_SYS_ADMIN), -1 if not present or unreadable.
 */
long long page_pfn(const void *addr);
/* The [chosen] word of a THP sysfs setting ("always [madvise] never"); -1 on error. */
int thp_setting(const char *path, char *value, size_t size);

#endif
