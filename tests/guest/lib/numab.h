/*
 * numab: automatic NUMA balancing for a test (sysctl kernel.numa_balancing,
 * Documentation/admin-guide/sysctl/kernel.rst), shared by tiering's
 * promotion and policy's balancing cases.
 *
 * numab_start(mode) sets the sysctl to mode ("1": NUMA_BALANCING_NORMAL,
 * "2": NUMA_BALANCING_MEMORY_TIERING) and shortens the scanner's delays in
 * debugfs (sched/numa_balancing/) where the kernel has them, so a fault
 * comes within a second under TCG; numab_stop() puts all of it back.
 * 0, or -1 with errno when the sysctl cannot be set (a kernel without
 * CONFIG_NUMA_BALANCING): then nothing was changed.
 */
#ifndef NUMALAB_NUMAB_H
#define NUMALAB_NUMAB_H

#include <stddef.h>

#define NUMA_BALANCING_SYSCTL "/proc/sys/kernel/numa_balancing"

int numab_start(const char *mode);
void numab_stop(void);

/*
 * Write one byte every stride bytes of the first len at base, over and
 * over, for seconds.  Without a pause: the scanner is started from the
 * scheduler tick by the CPU time the task has used (task_tick_numa()), so
 * a loop that slept between short bursts was rarely on the CPU at a tick
 * and got one scan in a minute (0 of 64 pages promoted within 60 s in 2 of
 * 3 runs on stock cxl, numa_hint_faults unchanged).
 */
void numab_touch_for(char *base, size_t len, size_t stride, double seconds);
/* CLOCK_MONOTONIC in seconds. */
double numab_now(void);

/*
 * What /proc/self/sched says of the calling task's NUMA balancing (kernel/sched/debug.c): a
 * line the kernel did not print leaves its field -1 (the fault counts 0).  0, or -1 when the
 * file cannot be read or has no numa_pages_migrated line (no CONFIG_NUMA_BALANCING).
 */
#define NUMAB_MAX_NODES 64
struct numab_stats {
	long migrated;                     /* numa_pages_migrated */
	long preferred;                    /* numa_preferred_nid */
	long scan_seq;                     /* mm->numa_scan_seq: the scanner's passes so far */
	long priv[NUMAB_MAX_NODES];        /* numa_faults node=N task_private */
	long shared[NUMAB_MAX_NODES];      /* ... task_shared */
};
int numab_stats(struct numab_stats *s);

#endif
