/* tiering: the guest's nodes, tiers and distances, then the parts as cases (tiering.h). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "tiering.h"

#define TOPOLOGY_PATH "/lab/topology"
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10
#define MPOL_MF_MOVE (1 << 1)          /* uapi <linux/mempolicy.h> */

char *kernel_log(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), len = -1;
	char *log = size > 0 ? malloc((size_t)size + 1) : NULL;

	if (log && (len = klogctl(SYSLOG_ACTION_READ_ALL, log, size)) >= 0) {
		log[len] = '\0';
		return log;
	}
	ktap_diag("cannot read the kernel log: %s", strerror(errno));
	free(log);
	return NULL;
}

int pages_where(char *base, size_t n, int *status)
{
	static void *pages[8192];
	size_t ps = (size_t)page_size();

	if (n > sizeof(pages) / sizeof(pages[0]))
		return -1;
	for (size_t i = 0; i < n; i++)
		pages[i] = base + i * ps;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
		ktap_diag("move_pages (query): %s", strerror(errno));
		return -1;
	}
	return 0;
}

int pages_move_to(char *base, size_t n, int node)
{
	static void *pages[8192];
	static int nodes[8192], status[8192];
	size_t ps = (size_t)page_size();
	int stray;

	if (n > sizeof(pages) / sizeof(pages[0]))
		return -1;
	for (size_t i = 0; i < n; i++) {
		pages[i] = base + i * ps;
		nodes[i] = node;
	}
	errno = 0;
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE) ||
	    pages_in(status, n, 1UL << node, &stray) != n) {
		ktap_diag("move_pages to node%d: %s", node, errno ? strerror(errno) : "not all moved");
		return -1;
	}
	return 0;
}

size_t pages_in(const int *status, size_t n, unsigned long mask, int *stray)
{
	size_t in = 0;

	*stray = -1;
	for (size_t i = 0; i < n; i++) {
		if (status[i] >= 0 && status[i] < 64 && (mask >> status[i] & 1))
			in++;
		else if (*stray == -1)
			*stray = status[i];
	}
	return in;
}

unsigned long long node_free(int node)
{
	char path[96], text[4096], *p;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node);
	if (sys_read(path, text, sizeof(text)) || !(p = strstr(text, "MemFree:")))
		return 0;
	return strtoull(p + 8, NULL, 10) << 10;
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		ktap_diag("sched_setaffinity cpu %d: %s", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * mm/memory-tiers.c establish_demotion_targets(): the tier after the node's
 * own (tiers sorted by id), and in it the nodes at the smallest distance.
 */
unsigned long demotion_targets(const struct tiering *t, int node)
{
	int next = -1, best = -1;
	unsigned long mask = 0;

	for (int i = 0; i < t->nr_nodes; i++)
		if (t->tier[i] > t->tier[node] && (next < 0 || t->tier[i] < next))
			next = t->tier[i];
	for (int i = 0; i < t->nr_nodes; i++)
		if (t->tier[i] == next && (best < 0 || t->distance[node][i] < best))
			best = t->distance[node][i];
	for (int i = 0; i < t->nr_nodes; i++)
		if (next >= 0 && t->tier[i] == next && t->distance[node][i] == best)
			mask |= 1UL << i;
	return mask;
}

static void read_tiers(struct tiering *t)
{
	struct dirent *e;
	DIR *d = opendir(TIERS_DIR);
	char path[160], list[256];
	uint64_t nodes;
	int id;

	for (int i = 0; i < MAX_NODES; i++)
		t->tier[i] = -1;
	while (d && (e = readdir(d))) {
		if (sscanf(e->d_name, "memory_tier%d", &id) != 1)
			continue;
		snprintf(path, sizeof(path), TIERS_DIR "/memory_tier%d/nodelist", id);
		if (sys_read(path, list, sizeof(list)) || idlist_parse(list, &nodes) < 0)
			continue;
		for (int i = 0; i < MAX_NODES; i++)
			if (nodes >> i & 1)
				t->tier[i] = id;
	}
	if (d)
		closedir(d);
}

static int read_node(struct tiering *t, int node)
{
	char path[128], text[256], *p = text, *end;
	uint64_t cpus;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", node);
	if (sys_read(path, text, sizeof(text)) || idlist_parse(text, &cpus) < 0)
		return -1;
	t->has_cpu[node] = cpus != 0;
	if (cpus && t->dram < 0) {
		t->dram = node;
		t->dram_cpu = __builtin_ctzll(cpus);
	}
	snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", node);
	if (sys_read(path, text, sizeof(text)))
		return -1;
	for (int i = 0; i < t->nr_nodes; i++, p = end)
		t->distance[node][i] = (int)strtol(p, &end, 10);
	return 0;
}

static struct topology topo;
static struct tiering t = { .topo = &topo, .dram = -1 };

/* A part that moves pages between tiers, run only where there is a tier below DRAM's. */
static void between_tiers(const char *part, int plan, void (*run)(const struct tiering *))
{
	if (t.lower_tier) {
		run(&t);
		return;
	}
	for (int i = 0; i < plan; i++)
		ktap_skip(part, "every node is in memory_tier%d: no lower tier to move pages to or from", t.tier[t.dram]);
}

/* The parts as cases (harness.h), in this order. */
GUEST_CASE(tiers, tiers_plan(&t)) { tiers_run(&t); }
GUEST_CASE(targets, targets_plan(&t)) { targets_run(&t); }
GUEST_CASE(demote, demote_plan(&t)) { between_tiers("demote", demote_plan(&t), demote_run); }
GUEST_CASE(demote_mems, mems_plan(&t)) { between_tiers("demote_mems", mems_plan(&t), mems_run); }
GUEST_CASE(promote, promote_plan(&t)) { between_tiers("promote", promote_plan(&t), promote_run); }
GUEST_CASE(crowded, crowded_plan(&t)) { between_tiers("crowded", crowded_plan(&t), crowded_run); }
GUEST_CASE(hopeless, hopeless_plan(&t)) { between_tiers("hopeless", hopeless_plan(&t), hopeless_run); }

int main(void)
{
	struct topo_error terr;
	int cpuless = 0;

	if (topo_load(TOPOLOGY_PATH, &topo, &terr))
		ktap_skip_all("%s", terr.msg);
	t.nr_nodes = topo.nr_nodes;
	for (int i = 0; i < topo.nr_nodes; i++)
		cpuless += !topo_node_has_cpus(&topo, i) && topo.nodes[i].mem_bytes;
	if (!cpuless)
		ktap_skip_all("the shape has no CPU-less memory node: all its memory is one "
			      "tier, nothing to demote to (run it on a shape like cxl)");
	if (!topo_has_hmat(&topo))
		ktap_skip_all("the shape declares no HMAT: its CPU-less nodes share the DRAM tier");
	for (int i = 0; i < t.nr_nodes; i++)
		if (read_node(&t, i))
			ktap_skip_all("cannot read " NODE_DIR "/node%d: %s", i, strerror(errno));
	read_tiers(&t);
	t.dram_mismatch = dram_mismatch(&t);
	for (int i = 0; i < t.nr_nodes; i++)
		t.lower_tier |= t.dram >= 0 && t.tier[i] > t.tier[t.dram];
	guest_header();
	for (int i = 0; i < t.nr_nodes; i++)
		ktap_diag("node%d: %s, memory_tier%d", i, t.has_cpu[i] ? "CPUs" : "CPU-less", t.tier[i]);
	guest_run();
	ktap_exit();
}
