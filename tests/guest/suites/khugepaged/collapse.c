/*
 * khugepaged collapses a PMD range bound to node N into a THP on node N.
 *
 * The range is faulted as base pages under MADV_NOHUGEPAGE, then switched to
 * MADV_HUGEPAGE, which hands the mm to khugepaged; the test waits for
 * smaps' AnonHugePages to cover the range.  Per node it reports whether the
 * collapse happened and stayed on the node, whether khugepaged's counters
 * moved, and as metrics the counter deltas, khugepaged's allowed CPUs before
 * and after, and the CPU it last ran on.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define MPOL_BIND 2

struct counters {
	long pages_collapsed, full_scans, alloc, alloc_failed;
};

struct khugepaged_view {
	char allowed[64];          /* Cpus_allowed_list */
	int last_cpu;              /* /proc/PID/stat field 39 */
};

static void read_counters(struct counters *c)
{
	if (sys_read_long(KHP_DIR "/pages_collapsed", &c->pages_collapsed))
		c->pages_collapsed = -1;
	if (sys_read_long(KHP_DIR "/full_scans", &c->full_scans))
		c->full_scans = -1;
	c->alloc = vmstat("thp_collapse_alloc");
	c->alloc_failed = vmstat("thp_collapse_alloc_failed");
}

int khugepaged_thread_pid(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int pid = -1;

	while (d && pid < 0 && (e = readdir(d))) {
		char path[300], comm[32];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (sys_read(path, comm, sizeof(comm)) || strcmp(comm, "khugepaged"))
			continue;
		/*
		 * This suite's own binary is called khugepaged too, and one of its
		 * children that has exited has no command line either: the kernel's
		 * thread is the one kthreadd (pid 2) started.
		 */
		if (proc_stat_field(atoi(e->d_name), 4) == 2)
			pid = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return pid;
}

int khugepaged_cpus(int pid, char *buf, size_t size)
{
	char path[64], line[256], fmt[40];
	int found = 0;
	FILE *f;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	snprintf(fmt, sizeof(fmt), "Cpus_allowed_list: %%%zus", size - 1);
	if ((f = fopen(path, "re"))) {
		while (!found && fgets(line, sizeof(line), f))
			found = sscanf(line, fmt, buf) == 1;
		fclose(f);
	}
	return found ? 0 : -1;
}

static void read_view(int pid, struct khugepaged_view *v)
{
	khugepaged_cpus(pid, v->allowed, sizeof(v->allowed));
	v->last_cpu = (int)proc_stat_field(pid, 39);   /* processor */
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fault [huge, huge + pmd) on node as base pages, hand it to khugepaged, wait. */
static int collapse_on(char *huge, size_t pmd, int node, double *waited)
{
	unsigned long mask = 1UL << node;
	size_t ps = (size_t)page_size();
	double start;

	if (syscall(SYS_mbind, huge, pmd, MPOL_BIND, &mask, sizeof(mask) * CHAR_BIT + 1, 0) ||
	    madvise(huge, pmd, MADV_NOHUGEPAGE)) {
		ktap_diag("mbind/madvise node %d: %s", node, strerror(errno));
		return 0;
	}
	for (size_t off = 0; off < pmd; off += ps)
		huge[off] = (char)(off / ps);
	if (smaps_anon_huge(huge) != 0)
		ktap_diag("the range is already huge before khugepaged ran");
	if (madvise(huge, pmd, MADV_HUGEPAGE)) {
		ktap_diag("madvise(MADV_HUGEPAGE): %s", strerror(errno));
		return 0;
	}
	start = now();
	while (smaps_anon_huge(huge) != (long long)pmd && now() - start < COLLAPSE_WAIT_S)
		usleep(20000);
	*waited = now() - start;
	return smaps_anon_huge(huge) == (long long)pmd;
}

/* Every base page of the range on node, and the data intact after the copy. */
static int stayed_on(char *huge, size_t pmd, int node)
{
	size_t ps = (size_t)page_size(), nr = pmd / ps;
	void **pages = calloc(nr, sizeof(*pages));
	int *status = calloc(nr, sizeof(*status)), ok = pages && status;

	for (size_t i = 0; ok && i < nr; i++)
		pages[i] = huge + i * ps;
	if (ok && syscall(SYS_move_pages, 0, nr, pages, NULL, status, 0)) {
		ktap_diag("move_pages (query): %s", strerror(errno));
		ok = 0;
	}
	for (size_t i = 0; ok && i < nr; i++)
		if (status[i] != node || huge[i * ps] != (char)i) {
			ktap_diag("page %zu: node %d (want %d), data %s", i, status[i], node,
				  huge[i * ps] == (char)i ? "intact" : "changed");
			ok = 0;
		}
	free(pages);
	free(status);
	return ok;
}

static void check_node(int node, size_t pmd, int pid)
{
	struct counters before, after;
	struct khugepaged_view vb, va;
	char *map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	double waited = 0;
	int collapsed = 0;

	read_counters(&before);
	read_view(pid, &vb);
	if (map == MAP_FAILED)
		ktap_diag("mmap: %s", strerror(errno));
	else
		collapsed = collapse_on(huge, pmd, node, &waited);
	/* The counter is bumped after the PMD is installed: give it a moment. */
	for (int i = 0; i < 250; i++) {
		read_counters(&after);
		if (!collapsed || after.pages_collapsed > before.pages_collapsed)
			break;
		usleep(20000);
	}
	read_view(pid, &va);
	ktap_ok(collapsed && stayed_on(huge, pmd, node), "khugepaged collapsed %zuM on node %d, kept there",
		pmd >> 20, node);
	ktap_ok(after.pages_collapsed > before.pages_collapsed && after.alloc > before.alloc,
		"node %d: pages_collapsed and thp_collapse_alloc went up", node);
	ktap_diag("metric: node%d.collapse_wait_s %.2f", node, waited);
	ktap_diag("metric: node%d.pages_collapsed_delta %ld", node, after.pages_collapsed - before.pages_collapsed);
	ktap_diag("metric: node%d.full_scans_delta %ld", node, after.full_scans - before.full_scans);
	ktap_diag("metric: node%d.thp_collapse_alloc_delta %ld", node, after.alloc - before.alloc);
	ktap_diag("metric: node%d.thp_collapse_alloc_failed_delta %ld", node,
		  after.alloc_failed - before.alloc_failed);
	ktap_diag("metric: node%d.khugepaged_cpus_allowed %s -> %s", node, vb.allowed, va.allowed);
	ktap_diag("metric: node%d.khugepaged_last_cpu %d -> %d", node, vb.last_cpu, va.last_cpu);
	if (map != MAP_FAILED)
		munmap(map, 2 * pmd);
}

int collapse_plan(const struct topology *t)
{
	int n = 0;

	for (int i = 0; i < t->nr_nodes; i++)
		n += t->nodes[i].mem_bytes != 0;
	return 2 * n;
}

static void skip_all(const struct topology *t, const char *why)
{
	for (int i = 0; i < collapse_plan(t); i++)
		ktap_skip("khugepaged collapse", "%s", why);
}

void collapse_run(const struct topology *t)
{
	long pmd = pmd_size();
	int pid = khugepaged_thread_pid();

	if (pmd <= 0 || pid < 0) {
		skip_all(t, pmd <= 0 ? "the kernel has no THP" : "no khugepaged thread");
		return;
	}
	for (int i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].mem_bytes)
			check_node(i, (size_t)pmd, pid);
}
