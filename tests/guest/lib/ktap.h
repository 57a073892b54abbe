/*
 * ktap: what every guest test binary needs: KTAP output on stdout and small
 * readers for sysfs/procfs.
 *
 * A test prints ktap_header(n), then exactly n results (ktap_ok/ktap_skip),
 * then calls ktap_exit().  The lab's suites leave the header and the count
 * to harness.h: their cases register themselves and print only results.  Every line is flushed as it is printed: /init
 * relays the test's stdout line by line and kills the test on timeout, so
 * nothing may sit in a stdio buffer.
 *
 * Exit status follows kselftest: 0 all passed or skipped, 1 any failed or
 * fewer results than planned, 4 (KSFT_SKIP) every result was a skip.
 */
#ifndef NUMALAB_KTAP_H
#define NUMALAB_KTAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

/* "KTAP version 1" and "1..nr_tests". */
void ktap_header(int nr_tests);

/* Instead of ktap_header(): the whole test cannot run here; "1..0 # SKIP reason", exit KSFT_SKIP. */
_Noreturn void ktap_skip_all(const char *reason_fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* "ok N description" or "not ok N description"; returns cond. */
int ktap_ok(int cond, const char *description_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "ok N name # SKIP reason": this check cannot run on this shape. */
void ktap_skip(const char *name, const char *reason_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A diagnostic line: "# ...". */
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For the harness (harness.h): keep the counts in shared memory, so the
 * results of forked children count; 0, or -1 (errno set).
 */
int ktap_share_counts(void);
/* Results printed so far. */
int ktap_results(void);
/* Fail the test without a result line of its own (the plan is full). */
void ktap_fail_outside(void);

/* "# totals: ..." and exit with the status described above. */
_Noreturn void ktap_exit(void);

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
/* The [chosen] word of a THP sysfs setting ("always [madvise] never"); -1 on error. */
int thp_setting(const char *path, char *value, size_t size);

#endif
