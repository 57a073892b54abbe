/* mempolicy: shared helpers and the parts as cases, in order (mempolicy.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "mempolicy.h"

#define TOPOLOGY_PATH "/lab/topology"
#define MAXNODE (sizeof(unsigned long) * CHAR_BIT + 1)

long sys_mbind(void *addr, size_t len, int mode, unsigned long mask)
{
	return syscall(SYS_mbind, addr, len, mode, &mask, MAXNODE, 0);
}

long sys_set_mempolicy(int mode, unsigned long mask)
{
	return syscall(SYS_set_mempolicy, mode, &mask, MAXNODE);
}

long sys_get_mempolicy(int *mode, unsigned long *mask, void *addr, unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, mask, MAXNODE, addr, flags);
}

long sys_move_pages(unsigned long nr, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, 0, nr, pages, nodes, status, flags);
}

long sys_migrate_pages(unsigned long old_nodes, unsigned long new_nodes)
{
	return syscall(SYS_migrate_pages, 0, MAXNODE, &old_nodes, &new_nodes);
}

int pages_nodes(char *base, size_t n, int *status)
{
	void *pages[4096];
	size_t ps = (size_t)page_size();

	if (n > sizeof(pages) / sizeof(pages[0]))
		return -1;
	for (size_t i = 0; i < n; i++)
		pages[i] = base + i * ps;
	if (sys_move_pages(n, pages, NULL, status, 0)) {
		ktap_diag("move_pages (query): %s", strerror(errno));
		return -1;
	}
	return 0;
}

const char *mask_str(unsigned long mask)
{
	static char buf[4][128];
	static int next;
	char *out = buf[next++ % 4];

	idlist_format(mask, out, sizeof(buf[0]));
	return out;
}

/*
 * The parts as cases (harness.h), in this order: each is one process, its
 * checks share its mappings and policies (bulk's carried interleave state
 * stays within bulk: issue 18).
 */
static struct topology topo;
static struct nodes n = { .topo = &topo };

/* First: it sees the weights before any case writes one (defaults.c). */
GUEST_CASE(defaults, defaults_plan(&n)) { defaults_run(&n); }
GUEST_CASE(modes, modes_plan(&n)) { modes_run(&n); }
GUEST_CASE(placement, placement_plan(&n)) { placement_run(&n); }
GUEST_CASE(migrate, migrate_plan(&n)) { migrate_run(&n); }
GUEST_CASE(weights, weights_plan(&n)) { weights_run(&n); }
GUEST_CASE(bulk, bulk_plan(&n)) { bulk_run(&n); }
GUEST_CASE(bulk_sweep, sweep_plan(&n)) { sweep_run(&n); }
GUEST_CASE(bulk_interleave, ilbulk_plan(&n)) { ilbulk_run(&n); }
GUEST_CASE(bulk_cut, cutbulk_plan(&n)) { cutbulk_run(&n); }
GUEST_CASE(pagecache, pagecache_plan(&n)) { pagecache_run(&n); }
GUEST_CASE(numactl, numactl_plan(&n)) { numactl_run(&n); }

int main(int argc, char **argv)
{
	struct topo_error terr;
	long balancing;

	if (argc == 3 && !strcmp(argv[1], "--touch-pages"))
		return touch_pages_main(argv[2]);
	if (node_list("has_memory", n.mem, MAX_NODES, &n.nr_mem) || !n.nr_mem ||
	    node_list("has_cpu", n.cpu, MAX_NODES, &n.nr_cpu))
		ktap_skip_all("cannot read the node sets from /sys/devices/system/node");
	if (topo_load(TOPOLOGY_PATH, &topo, &terr))
		ktap_skip_all("%s", terr.msg);
	guest_header();
	ktap_diag("%d memory nodes, %d with CPUs, pages of %ld bytes", n.nr_mem, n.nr_cpu, page_size());
	if (!sys_read_long("/proc/sys/kernel/numa_balancing", &balancing) && balancing)
		ktap_diag("numa_balancing is on: pages may migrate after the fault");
	guest_run();
	ktap_exit();
}
