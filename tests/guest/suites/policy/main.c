/* policy: shared helpers and the parts as cases, in order (policy.h). */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "policy.h"

long p_set(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

long p_mbind(void *addr, size_t len, int mode, const unsigned long *mask, unsigned long maxnode,
	     unsigned flags)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}

long p_get(int *mode, unsigned long *mask, unsigned long maxnode, void *addr, unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

long p_move_pages(unsigned long nr, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, 0, nr, pages, nodes, status, flags);
}

long p_migrate_pages(unsigned long maxnode, const unsigned long *from, const unsigned long *to)
{
	return syscall(SYS_migrate_pages, 0, maxnode, from, to);
}

long set_task(int mode, unsigned long mask)
{
	return p_set(mode, &mask, MAXNODE_LONG);
}

void reset_task(void)
{
	p_set(MPOL_DEFAULT, NULL, 0);
}

int get_task(int *mode, unsigned long *mask)
{
	*mask = 0;
	if (p_get(mode, mask, MAXNODE_LONG, NULL, 0)) {
		ktap_diag("get_mempolicy: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void touch_pages(char *base, size_t n)
{
	for (size_t i = 0; i < n; i++)
		base[i * (size_t)page_size()] = 1;
}

int pages_nodes(char *base, size_t n, int *status)
{
	void *pages[512];

	if (n > sizeof(pages) / sizeof(pages[0]))
		return -1;
	for (size_t i = 0; i < n; i++) {
		pages[i] = base + i * (size_t)page_size();
		status[i] = INT32_MIN;
	}
	if (p_move_pages(n, pages, NULL, status, 0)) {
		ktap_diag("move_pages (query): %s", strerror(errno));
		return -1;
	}
	return 0;
}

unsigned long fault_nodes(size_t n)
{
	int status[512];
	unsigned long seen = 0;
	char *base = map_pages(n);

	if (!base)
		return 0;
	touch_pages(base, n);
	if (!pages_nodes(base, n, status))
		for (size_t i = 0; i < n; i++)
			seen |= status[i] >= 0 && status[i] < MAX_NODES ? 1UL << status[i] : 0;
	unmap_pages(base, n);
	return seen;
}

char *pages_on(int node, size_t n)
{
	unsigned long mask = 1UL << node;
	int status[512];
	char *base = map_pages(n);

	if (!base)
		return NULL;
	if (p_mbind(base, n * (size_t)page_size(), MPOL_BIND, &mask, MAXNODE_LONG, 0)) {
		ktap_diag("mbind BIND node %d: %s", node, strerror(errno));
		unmap_pages(base, n);
		return NULL;
	}
	touch_pages(base, n);
	/* Back to no VMA policy, so nothing but the call under test moves the pages. */
	p_mbind(base, n * (size_t)page_size(), MPOL_DEFAULT, NULL, 0, 0);
	if (pages_nodes(base, n, status) || !all_on(status, n, node, "faulted under BIND")) {
		unmap_pages(base, n);
		return NULL;
	}
	return base;
}

char *thp_on(int node, char **map)
{
	size_t pmd = (size_t)pmd_size(), ps = (size_t)page_size();
	unsigned long mask = 1UL << node;
	int first = -1, last = -1;
	char *huge;

	*map = pmd ? mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) :
		     MAP_FAILED;
	if (*map == MAP_FAILED) {
		*map = NULL;
		return NULL;
	}
	huge = (char *)(((uintptr_t)*map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (madvise(huge, pmd, MADV_HUGEPAGE) || p_mbind(huge, pmd, MPOL_BIND, &mask, MAXNODE_LONG, 0))
		return NULL;
	huge[0] = 1;
	p_mbind(huge, pmd, MPOL_DEFAULT, NULL, 0, 0);
	if (smaps_anon_huge(huge) < (long long)pmd || pages_nodes(huge, 1, &first) ||
	    pages_nodes(huge + pmd - ps, 1, &last) || first != node || last != node) {
		ktap_diag("no THP on node %d (AnonHugePages %lld)", node, smaps_anon_huge(huge));
		return NULL;
	}
	return huge;
}

int all_on(const int *status, size_t n, int node, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (status[i] != node) {
			ktap_diag("%s: page %zu on node %d, want node %d", what, i, status[i], node);
			return 0;
		}
	return 1;
}

static cpu_set_t saved_cpus;
static int pinned;

int pin_to_node(int node)
{
	char path[96], list[256];
	uint64_t cpus = 0;
	cpu_set_t set;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (sys_read(path, list, sizeof(list)) || idlist_parse(list, &cpus) <= 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(__builtin_ctzll(cpus), &set);
	if (!pinned && sched_getaffinity(0, sizeof(saved_cpus), &saved_cpus))
		return -1;
	pinned = 1;
	if (sched_setaffinity(0, sizeof(set), &set)) {
		ktap_diag("sched_setaffinity (node %d): %s", node, strerror(errno));
		return -1;
	}
	return 0;
}

void unpin(void)
{
	if (pinned)
		sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus);
	pinned = 0;
}

int last_cpu_node(const struct nodes *n)
{
	int cpu[MAX_NODES], nr = 0;

	if (node_list("has_cpu", cpu, MAX_NODES, &nr))
		return -1;
	for (int i = nr - 1; i >= 0; i--)
		for (int k = 0; k < n->nr_mem; k++)
			if (n->mem[k] == cpu[i])
				return cpu[i];
	return -1;
}

int pin_local_far(const struct nodes *n, int *local, int *far, int nr_rows, const char *what)
{
	*local = -1;
	*far = n->nr_mem ? n->mem[n->nr_mem - 1] : -1;
	for (int k = 0; k < n->nr_mem && *local < 0; k++)
		if (!pin_to_node(n->mem[k]))
			*local = n->mem[k];
	if (*local >= 0 && *far != *local)
		return 0;
	for (int i = 0; i < nr_rows; i++)
		ktap_skip(what, "needs two memory nodes, one with CPUs (%d memory nodes)", n->nr_mem);
	unpin();
	return -1;
}

const char *mask_str(unsigned long mask)
{
	static char buf[4][128];
	static int next;
	char *out = buf[next++ % 4];

	idlist_format(mask, out, sizeof(buf[0]));
	if (!*out)
		snprintf(out, sizeof(buf[0]), "(none)");
	return out;
}

unsigned long mem_mask(const struct nodes *n, const char *ranks)
{
	unsigned long mask = 0;

	for (; *ranks; ranks++)
		mask |= 1UL << n->mem[*ranks - '0'];
	return mask;
}

unsigned long all_mem(const struct nodes *n)
{
	unsigned long mask = 0;

	for (int k = 0; k < n->nr_mem; k++)
		mask |= 1UL << n->mem[k];
	return mask;
}

const char *errno_name(int e)
{
	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EIO: return "EIO";
	case ENODEV: return "ENODEV";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	default: return strerror(e);
	}
}

int expect_errno(long rc, int want, const char *what)
{
	int got = rc < 0 ? errno : 0;

	if (got != want)
		ktap_diag("%s: got %s, want %s", what, errno_name(got), errno_name(want));
	reset_task();
	return ktap_ok(got == want, "%s: %s", what, errno_name(want));
}

static struct nodes n;

GUEST_CASE(build, build_plan(&n)) { build_run(&n); }
GUEST_CASE(query, query_plan(&n)) { query_run(&n); }
GUEST_CASE(rebind, rebind_plan(&n)) { rebind_run(&n); }
GUEST_CASE(move, move_plan(&n)) { move_run(&n); }
GUEST_CASE(unmovable, unmovable_plan(&n)) { unmovable_run(&n); }
GUEST_CASE(mbind, mbind_plan(&n)) { mbind_run(&n); }
GUEST_CASE(home, home_plan(&n)) { home_run(&n); }
GUEST_CASE(shared, shared_plan(&n)) { shared_run(&n); }
GUEST_CASE(tmpfs, tmpfs_plan(&n)) { tmpfs_run(&n); }
GUEST_CASE(full, full_plan(&n)) { full_run(&n); }
GUEST_CASE(balancing, balancing_plan(&n)) { balancing_run(&n); }
GUEST_CASE(faults, faults_plan(&n)) { faults_run(&n); }

int main(void)
{
	int possible[MAX_NODES], nr_possible = 0;

	if (node_list("has_memory", n.mem, MAX_NODES, &n.nr_mem) || !n.nr_mem ||
	    node_list("possible", possible, MAX_NODES, &nr_possible) || !nr_possible)
		ktap_skip_all("cannot read the node sets from /sys/devices/system/node");
	n.nr_possible = possible[nr_possible - 1] + 1;
	guest_header();
	ktap_diag("memory nodes %s, nr_node_ids %d, pages of %ld bytes", mask_str(all_mem(&n)), n.nr_possible,
		  page_size());
	guest_run();
	ktap_exit();
}
