/*
 * khugepaged: the collapse suite.
 *
 *   collapse.c  per memory node N: a PMD range bound to N, faulted as base
 *               pages, is collapsed by khugepaged into one PMD-size THP that
 *               stays on N; khugepaged's counters before/after and the CPUs
 *               it may run on / ran on are reported as metrics ("# metric:"),
 *               measured, not assumed (seed 001 changes them)
 *   target.c    a PMD range with its pages spread over two nodes is collapsed
 *               onto the node holding most of them (the lower node on a
 *               tie), and khugepaged's allowed CPUs either never follow the
 *               collapse node or always do (seed 001)
 *   alloc.c     the huge page of a collapse allocated, charged and counted
 *               (alloc_charge_folio()): the PMD and mTHP counters, a failed
 *               allocation (fail_page_alloc) and a failed memcg charge;
 *               khugepaged's wait (alloc_sleep_millisecs) after a failure
 *   nodes.c     MADV_COLLAPSE's node rule exactly: ties, and a full target
 *               node (collapse_find_target_node()'s node and node mask)
 *   reclaim.c   MADV_COLLAPSE under zone_reclaim_mode: a range on two
 *               nodes farther apart than node_reclaim_distance left alone
 *   shmem.c     MADV_COLLAPSE of shmem with holes, pages on two nodes:
 *               collapsed, contents kept, on the node with the most pages
 *   shmem_held.c MADV_COLLAPSE of shmem something else holds: mlocked
 *               mTHPs, another mapping write-protected by userfaultfd
 *   limits.c    MADV_COLLAPSE past khugepaged's max_ptes_none, no leak per
 *               call, ENOMEM, and a full tmpfs's holes (rolled back)
 *   ksm.c       MADV_COLLAPSE of zero pages KSM mapped: ksm_zero_pages back to 0
 *   race.c      two threads MADV_COLLAPSE one range at once: 0 or EAGAIN each,
 *               one THP
 *   referenced.c khugepaged collapses a range whose pages were referenced only
 *               through get_user_pages (/proc/self/mem), as
 *               idle_page_tracking.rst counts a reference
 *   accounting.c a collapse leaves RssAnon as it was; THP raises min_free_kbytes;
 *               swap given back after a collapse swapped pages in; an mTHP
 *               range holding a swap PTE refused without a leak
 *   uprobe.c    a uprobe set and cleared on a shmem THP's text: the range is
 *               PMD-mapped again (collapse_pte_mapped_thp())
 *   controls.c  khugepaged's sysfs files read and written as sysfs.rst says;
 *               its thread started and stopped with the THP settings; asleep
 *               with nothing to scan; no shmem THP of its own under
 *               shmem_enabled never; max_ptes_none and max_ptes_swap held
 *   pass.c      khugepaged collapses one PMD range a pass, shmem or
 *               anonymous, when pages_to_scan is one PMD's worth of pages
 *   selftest.c  the kernel's own tools/testing/selftests/mm/khugepaged, built
 *               from the source of the kernel under test (/lab/kselftest),
 *               its cases reported as one nested KTAP subtest
 *
 * khugepaged is tuned for speed (scan_sleep_millisecs, pages_to_scan) and
 * put back when the suite ends.
 */
#ifndef NUMALAB_TEST_KHUGEPAGED_H
#define NUMALAB_TEST_KHUGEPAGED_H

#include <stddef.h>

#include "model/topology.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define KHP_DIR THP_DIR "/khugepaged"
#define SHMEM_ENABLED THP_DIR "/shmem_enabled"
#define KSELFTEST "/lab/kselftest/mm/khugepaged"

/* Each run of the selftest is bounded by selftest.c itself; a failed one is run again. */
#define SELFTEST_TIMEOUT_S 900
#define MAX_RERUNS 3
#define SELFTEST_GROUPS 4
/* The selftest case's timeout (harness.h) only catches a hang outside those bounded runs. */
#define SELFTEST_CASE_TIMEOUT_S (SELFTEST_TIMEOUT_S * SELFTEST_GROUPS * (1 + MAX_RERUNS) + 60)

#define COLLAPSE_WAIT_S 120        /* TCG on a loaded host: khugepaged is slow to come round */
#define MTHP_ORDER 4               /* the mTHP size the parts use: >= KHUGEPAGED_MIN_MTHP_ORDER (2), < PMD order everywhere */

/* khugepaged's pid (-1: no thread); its Cpus_allowed_list into buf (-1: unreadable). */
int khugepaged_thread_pid(void);
int khugepaged_cpus(int pid, char *buf, size_t size);
/* CLOCK_MONOTONIC in seconds. */
double now(void);

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/*
 * One PMD-aligned PMD-size range inside a fresh mapping of two PMDs (*map, to
 * munmap with 2 * pmd); NULL with errno set if mmap failed.  Its pages are
 * written one by one with pmd_range_fill_page() (page i gets its own value);
 * pmd_range_intact() is 1 if pages 0..nr_filled-1 hold their values and every
 * later page reads 0 (to call after a collapse: it faults untouched pages).
 */
char *pmd_range_map(size_t pmd, char **map);
void pmd_range_fill_page(char *huge, size_t i);
/* The value pmd_range_fill_page() writes to page i's first byte. */
char pmd_range_value(size_t i);
int pmd_range_intact(const char *huge, size_t pmd, size_t nr_filled);
/* 1 if every byte of [at, at + len) reads 0; the first that does not is a diagnostic. */
int reads_zero(const char *at, size_t len);
/*
 * madvise(addr, len, MADV_COLLAPSE), asked again while it fails with EAGAIN,
 * which the kernel returns for a state it calls temporary (a page locked, off
 * the LRU or holding an extra reference mid-collapse; "trying again might
 * succeed").  Seen on la-2node with Debian's loong64 kernel: a case failed on
 * it in 3 of 7 runs.  An EAGAIN that lasts 4 more tries (20 ms apart) is the
 * answer, so a kernel that returns EAGAIN where it should not still fails the
 * case.  Each retry is a diagnostic line.
 */
int collapse_range(void *addr, size_t len);
/*
 * How many whole-PMD steps (a collapse, a move of every page) make x86_pmds of x86's
 * 512-page PMDs' worth of pages here, at least 1.  Such a step costs in proportion to
 * the PMD's pages: la-2node's 2048-page PMD takes a quarter as many, where the full
 * count took its KASAN kernel past the case's timeout (check-full's debug-kernel).
 */
int pmd_rounds(int x86_pmds);
/* This task's policy MPOL_BIND to node, or MPOL_DEFAULT for node -1: 0, or -1 with errno. */
long bind_task(int node);
/* The node of the page at addr (move_pages query), -1 if unknown. */
int page_node(const void *addr);

/*
 * A THP sysfs setting switched for a case and put back: thp_knob_set() for
 * the "[word]" files (enabled, defrag), value_knob_set() for a plain value
 * (khugepaged/scan_sleep_millisecs).  Both return 0 or -1 with errno set;
 * thp_knob_restore() writes back what was read, if anything was.
 */
struct thp_knob {
	char path[200];
	char was[16];
};
int thp_knob_set(struct thp_knob *k, const char *path, const char *val);
int value_knob_set(struct thp_knob *k, const char *path, const char *val);
void thp_knob_restore(const struct thp_knob *k);
/*
 * failslab (fault-injection.rst) for this task: failslab_arm() makes its slab
 * allocations fail, the next `times` ones (1: the next one only;
 * FAILSLAB_EVERY: every one until the disarm): from any cache, or with
 * only_marked from those whose /sys/kernel/slab/NAME/failslab is 1;
 * GFP_KERNEL ones too unless not_sleeping ("ignore-gfp-wait").  It keeps
 * /proc/self/make-it-fail open, so failslab_disarm() needs no allocation.
 * 0, or -1 with errno; failslab_disarm() after either.  failslab_fired() is
 * 1 once a failure has been handed out (failslab's "times" counts down;
 * "-1 means no limit" would leave nothing to count, hence a finite EVERY).
 */
#define FAILSLAB "/sys/kernel/debug/failslab"
#define FAILSLAB_EVERY (1L << 30)
int failslab_arm(int only_marked, int not_sleeping, long times);
void failslab_disarm(void);
int failslab_fired(void);

/* /proc/meminfo's key ("MemFree", "SwapCached") in kB, -1 if absent. */
long meminfo_kb(const char *key);

/* THP_DIR/hugepages-<bytes/1024>kB/stats/name (transhuge.rst's per-size counters); -1 if absent. */
long size_stat(long bytes, const char *name);

/* The global two and every size's two. */
#define MAX_THP_KNOBS 64
/*
 * Every THP setting (global and per size, anon and shmem) at never, the
 * settings before in k[0..*nr-1], to restore in reverse with
 * thp_knob_restore(); 1 if khugepaged's thread then stops within a second.
 */
int thp_all_off(struct thp_knob k[MAX_THP_KNOBS], int *nr);
/* The nr settings thp_all_off() saved in k, put back in reverse. */
void thp_all_restore(const struct thp_knob k[MAX_THP_KNOBS], int nr);

/*
 * The memfd fd's first PMD mapped shared at a PMD-aligned address inside a fresh
 * PROT_NONE mapping of two PMDs (*map, to munmap with 2 * pmd); NULL on failure.
 */
char *shmem_range_map(int fd, size_t pmd, char **map);
/*
 * A fresh memfd of one PMD (*fd), mapped at a PMD-aligned address (*map, to munmap with
 * 2 * pmd) and every page written as a base page (shmem_enabled never meanwhile): its
 * start, or NULL with errno set.
 */
char *shmem_written(const char *name, size_t pmd, int *fd, char **map);
/*
 * A memfd of one PMD mapped twice, each PMD-aligned in a mapping of its own: written through
 * first as base pages (shmem_enabled never meanwhile), every page; second mapped too.
 * shmem_twice_open() is 0, or -1 (diag printed); shmem_twice_close() after either.
 */
struct shmem_twice {
	int fd;
	char *map, *map2, *first, *second;
};
int shmem_twice_open(struct shmem_twice *t, const char *name, size_t pmd);
void shmem_twice_close(struct shmem_twice *t, size_t pmd);
/* Every page of the mapping at at read; 1 if each holds pmd_range_fill_page()'s value. */
int shmem_reads_values(const char *at, size_t pmd);

int alloc_plan(const struct topology *t);
void alloc_run(const struct topology *t);
int nodes_plan(const struct topology *t);
void nodes_run(const struct topology *t);
/* MADV_COLLAPSE under zone_reclaim_mode: distant nodes' ranges left alone (reclaim.c). */
int reclaim_plan(const struct topology *t);
void reclaim_run(const struct topology *t);
int shmem_plan(const struct topology *t);
void shmem_run(const struct topology *t);
/* MADV_COLLAPSE of shmem mlocked or write-protected (shmem_held.c). */
int shmem_held_plan(void);
void shmem_held_run(void);
/* One PMD range collapsed per pass of pages_to_scan one PMD, shmem and anon (pass.c). */
int pass_plan(void);
void pass_run(void);
/* MADV_COLLAPSE and khugepaged's sysfs limits (limits.c). */
int limits_plan(void);
void limits_run(void);
/* khugepaged's sysfs files, start and stop, idle sleep, shmem_enabled never (controls.c). */
int controls_plan(void);
void controls_run(void);
/* MADV_COLLAPSE of KSM's zero pages (ksm.c). */
int ksm_plan(void);
void ksm_run(void);
/*
 * `khugepaged --idle` (IDLE_ARG): this program as a fresh process that maps nothing with
 * MADV_HUGEPAGE, for controls.c's enter row.  idle_main() writes one byte to its standard
 * output once it runs, then waits for its standard input to close: returns 0.
 */
#define IDLE_ARG "--idle"
int idle_main(void);
/* Two threads' MADV_COLLAPSE of one range at once (race.c). */
int race_plan(void);
void race_run(void);
/* khugepaged and a range referenced through get_user_pages only (referenced.c). */
int referenced_plan(void);
void referenced_run(void);
/* RssAnon across a collapse, min_free_kbytes with THP on and off (accounting.c). */
int accounting_plan(void);
void accounting_run(void);
int uprobe_plan(void);
void uprobe_run(void);

int collapse_plan(const struct topology *t);
void collapse_run(const struct topology *t);
int target_plan(const struct topology *t);
void target_run(const struct topology *t);
int selftest_plan(void);
void selftest_run(void);

#endif
