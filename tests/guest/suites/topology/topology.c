/*
 * topology: does the guest see the NUMA shape the lab declared?
 *
 * Reads /lab/topology (the file the host validated and built the VM from)
 * and compares it with what the guest kernel reports in sysfs: online nodes,
 * CPUs per node, memory per node as the firmware's SRAT gives it and the
 * kernel's zones hold it (memory.h), the SLIT, page and PMD sizes, and, for shapes
 * with HMAT, the access classes, memory tiers and weighted-interleave knobs
 * the kernel derives from it, that a PMD-size THP can be placed on every
 * memory node and migrated whole (thp.h), and that numalab's own capture
 * of this guest's /sys gives the same shape back (capture.h).  One KTAP result per check, one
 * case (harness.h) per kind of check.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "harness.h"
#include "memory.h"
#include "thp.h"
#include "model/topology.h"

#define TOPOLOGY_PATH "/lab/topology"
#define NODE_DIR "/sys/devices/system/node"
#define TIERS_DIR "/sys/devices/virtual/memory_tiering"
#define WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

static uint64_t node_bit(int node)
{
	return UINT64_C(1) << node;
}

/* The node set in NODE_DIR/name ("online", "has_cpu", ...); -1 on error. */
static int read_node_set(const char *name, uint64_t *mask)
{
	char path[128], list[256];

	snprintf(path, sizeof(path), NODE_DIR "/%s", name);
	if (sys_read(path, list, sizeof(list)) || idlist_parse(list, mask) < 0) {
		ktap_diag("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void check_online(const struct topology *t)
{
	uint64_t online, want = node_bit(t->nr_nodes) - 1;
	char got_s[128], want_s[128];

	if (read_node_set("online", &online)) {
		ktap_ok(0, "online nodes");
		return;
	}
	idlist_format(online, got_s, sizeof(got_s));
	idlist_format(want, want_s, sizeof(want_s));
	if (online != want)
		ktap_diag("online nodes: guest %s, declared %s", got_s, want_s);
	ktap_ok(online == want, "online nodes %s", want_s);
}

static uint64_t declared_cpus(const struct topo_node *n)
{
	uint64_t mask = 0;

	for (int cpu = n->cpu_first; cpu >= 0 && cpu <= n->cpu_last; cpu++)
		mask |= UINT64_C(1) << cpu;
	return mask;
}

/* Node membership in has_cpu / has_memory must match what it was declared with. */
static int check_node_states(int node, int has_cpus)
{
	uint64_t with_cpu, with_mem;

	if (read_node_set("has_cpu", &with_cpu) || read_node_set("has_memory", &with_mem))
		return 0;
	if (!(with_mem & node_bit(node))) {
		ktap_diag("node%d is not in has_memory", node);
		return 0;
	}
	if (!!(with_cpu & node_bit(node)) != has_cpus) {
		ktap_diag("node%d is %sin has_cpu", node, has_cpus ? "not " : "");
		return 0;
	}
	return 1;
}

static void check_node_cpus(const struct topology *t, int node)
{
	const struct topo_node *n = &t->nodes[node];
	char path[128], list[256], want_s[128];
	uint64_t got, want = declared_cpus(n);
	int ok;

	idlist_format(want, want_s, sizeof(want_s));
	if (!want)
		snprintf(want_s, sizeof(want_s), "none");
	snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", node);
	if (sys_read(path, list, sizeof(list)) || idlist_parse(list, &got) < 0) {
		ktap_diag("cannot read %s: %s", path, strerror(errno));
		ktap_ok(0, "node%d cpus %s", node, want_s);
		return;
	}
	ok = got == want;
	if (!ok)
		ktap_diag("node%d cpulist: guest '%s', declared '%s'", node, list, want_s);
	ok = check_node_states(node, n->cpu_first >= 0) && ok;
	ktap_ok(ok, "node%d cpus %s", node, want_s);
}

/* Compare one SLIT row: NODE_DIR/nodeN/distance against t->dist[node]. */
static int check_distance_row(const struct topology *t, int node)
{
	char path[128], row[256], want[256];
	size_t len = 0;

	for (int j = 0; j < t->nr_nodes; j++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%d",
					j ? " " : "", t->dist[node][j]);
	snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", node);
	if (sys_read(path, row, sizeof(row))) {
		ktap_diag("cannot read %s: %s", path, strerror(errno));
		return 0;
	}
	if (strcmp(row, want)) {
		ktap_diag("node%d distances: guest '%s', declared '%s'", node, row, want);
		return 0;
	}
	return 1;
}

static void check_distances(const struct topology *t)
{
	int ok = 1;

	for (int i = 0; i < t->nr_nodes; i++)
		ok = check_distance_row(t, i) && ok;
	ktap_ok(ok, "distance matrix");
}

static void check_size(const char *name, long got, uint64_t want)
{
	if (!want) {
		ktap_skip(name, "the topology declares no %s", name);
		return;
	}
	if ((uint64_t)got != want)
		ktap_diag("%s: guest %ld, declared %llu", name, got, (unsigned long long)want);
	ktap_ok((uint64_t)got == want, "%s %llu", name, (unsigned long long)want);
}

/* The nodes listed in an access class's initiators/ directory (node0, node1, ...). */
static int read_initiators(const char *dir, uint64_t *mask)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int node;

	if (!d)
		return -1;
	*mask = 0;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "node%d", &node) == 1 && node >= 0 && node < 64)
			*mask |= node_bit(node);
	closedir(d);
	return 0;
}

/* read_<what> in dir must equal want (± slack); diagnoses a mismatch. */
static int check_access_value(const char *dir, const char *what, long long want,
			      long long slack)
{
	char path[256];
	long got;

	snprintf(path, sizeof(path), "%s/read_%s", dir, what);
	if (sys_read_long(path, &got)) {
		ktap_diag("cannot read %s: %s", path, strerror(errno));
		return 0;
	}
	if (llabs(got - want) > slack) {
		ktap_diag("%s: guest %ld, declared %lld", path, got, want);
		return 0;
	}
	return 1;
}

/*
 * A CPU-less target's access0 class.  QEMU puts the node's initiator= in
 * SRAT/HMAT as its attached initiator, and the kernel then reports exactly
 * that initiator and the HMAT entry initiator -> target, not the best of all.
 */
static void check_hmat_target(const struct topology *t, int target)
{
	int initiator = t->nodes[target].initiator;
	const struct topo_hmat_lb *lb = topo_hmat_find(t, initiator, target);
	char dir[128], got_s[64];
	uint64_t listed;
	int ok = 1;

	snprintf(dir, sizeof(dir), NODE_DIR "/node%d/access0/initiators", target);
	if (!lb) {
		ktap_diag("no hmat-lb %d %d in the topology", initiator, target);
		ktap_ok(0, "node%d hmat access0", target);
		return;
	}
	if (read_initiators(dir, &listed)) {
		ktap_diag("cannot read %s: %s", dir, strerror(errno));
		ktap_ok(0, "node%d hmat access0", target);
		return;
	}
	if (listed != node_bit(initiator)) {
		idlist_format(listed, got_s, sizeof(got_s));
		ktap_diag("%s lists nodes '%s', declared initiator %d", dir, got_s, initiator);
		ok = 0;
	}
	ok = check_access_value(dir, "latency", (long long)lb->latency_ns, 0) && ok;
	/* HMAT bandwidth reaches sysfs in MiB/s, rounded by the conversion. */
	ok = check_access_value(dir, "bandwidth", (long long)(lb->bandwidth_bps >> 20), 1) && ok;
	ktap_ok(ok, "node%d hmat access0 from node%d", target, initiator);
}

static int nr_cpuless_nodes(const struct topology *t)
{
	return t->nr_nodes - topo_nr_cpu_nodes(t);
}

static void check_hmat(const struct topology *t)
{
	if (!topo_has_hmat(t) || !nr_cpuless_nodes(t)) {
		ktap_skip("hmat access0", "no HMAT in this topology");
		return;
	}
	for (int node = 0; node < t->nr_nodes; node++)
		if (!topo_node_has_cpus(t, node))
			check_hmat_target(t, node);
}

/* tier[node] = N of the memory_tierN whose nodelist holds it, -1 if none. */
static int read_memory_tiers(int tier[TOPO_MAX_NODES])
{
	struct dirent *e;
	DIR *d = opendir(TIERS_DIR);
	char path[128], list[256];
	uint64_t nodes;
	int n;

	if (!d)
		return -1;
	for (int i = 0; i < TOPO_MAX_NODES; i++)
		tier[i] = -1;
	while ((e = readdir(d))) {
		if (sscanf(e->d_name, "memory_tier%d", &n) != 1)
			continue;
		snprintf(path, sizeof(path), TIERS_DIR "/memory_tier%d/nodelist", n);
		if (sys_read(path, list, sizeof(list)) || idlist_parse(list, &nodes) < 0)
			continue;
		for (int i = 0; i < TOPO_MAX_NODES; i++)
			if (nodes & node_bit(i))
				tier[i] = n;
	}
	closedir(d);
	return 0;
}

/*
 * Memory tiers: a CPU-less node the model's rule (topo_memory_tier()) puts
 * below DRAM is in a higher-numbered (slower) tier than every CPU node; one
 * the rule keeps at DRAM's distance (DRAM nodes' HMAT more than 10% apart,
 * or no bandwidth for it) is in the first CPU node's tier.
 */
static void check_memory_tiers(const struct topology *t)
{
	int tier[TOPO_MAX_NODES], max_cpu_tier = -1, min_lower_tier = -1, dram_tier = -1, dram_rule = -1, ok = 1;

	if (!topo_has_hmat(t) || !nr_cpuless_nodes(t)) {
		ktap_skip("memory tiers", "no HMAT in this topology");
		return;
	}
	if (read_memory_tiers(tier)) {
		ktap_skip("memory tiers", "no %s in this kernel", TIERS_DIR);
		return;
	}
	for (int i = 0; i < t->nr_nodes && dram_tier < 0; i++)
		if (topo_node_has_cpus(t, i)) {
			dram_tier = tier[i];
			dram_rule = topo_memory_tier(t, i);
		}
	for (int i = 0; i < t->nr_nodes; i++) {
		int cpus = topo_node_has_cpus(t, i), rule = topo_memory_tier(t, i);

		ktap_diag("node%d (%s): memory_tier%d, by the HMAT rule memory_tier%d", i, cpus ? "CPUs" : "CPU-less",
			  tier[i], rule);
		if (tier[i] < 0)
			ok = 0;
		else if (cpus && tier[i] > max_cpu_tier)
			max_cpu_tier = tier[i];
		else if (!cpus && rule <= dram_rule)
			ok = ok && tier[i] == dram_tier;
		else if (!cpus && (min_lower_tier < 0 || tier[i] < min_lower_tier))
			min_lower_tier = tier[i];
	}
	ktap_ok(ok && (min_lower_tier < 0 || min_lower_tier > max_cpu_tier),
		"memory tiers: CPU-less nodes below CPU nodes, or in their tier where the HMAT rule keeps them");
}

static void check_weighted_interleave_knobs(const struct topology *t)
{
	char path[128];
	int ok = 1;

	if (!sys_exists(WI_DIR)) {
		ktap_skip("weighted interleave sysfs", "no %s in this kernel", WI_DIR);
		return;
	}
	for (int i = 0; i < t->nr_nodes; i++) {
		snprintf(path, sizeof(path), WI_DIR "/node%d", i);
		if (!sys_exists(path)) {
			ktap_diag("missing %s", path);
			ok = 0;
		}
	}
	ktap_ok(ok, "weighted interleave sysfs: a weight per memory node");
}

/*
 * The cases, in the order they run; the plan is their sum (harness.h).
 * Each check reads the guest afresh, so each is a case of its own.
 */
static struct topology topo;

GUEST_TEST(online) { check_online(&topo); }

GUEST_CASE(node_cpus, topo.nr_nodes)
{
	for (int i = 0; i < topo.nr_nodes; i++)
		check_node_cpus(&topo, i);
}

GUEST_CASE(memory, memory_plan(&topo)) { check_memory(&topo); }
GUEST_TEST(distances) { check_distances(&topo); }
GUEST_TEST(page_size) { check_size("page size", page_size(), topo.page_size); }
GUEST_TEST(pmd_size) { check_size("pmd size", pmd_size(), topo.pmd_size); }
GUEST_CASE(hmat, topo_has_hmat(&topo) && nr_cpuless_nodes(&topo) ? nr_cpuless_nodes(&topo) : 1) { check_hmat(&topo); }
GUEST_TEST(memory_tiers) { check_memory_tiers(&topo); }
GUEST_TEST(weighted_interleave_knobs) { check_weighted_interleave_knobs(&topo); }
GUEST_CASE(thp, thp_plan(&topo)) { check_thp(&topo); }
GUEST_TEST(capture) { check_capture(&topo); }

int main(void)
{
	struct topo_error err;

	if (topo_load(TOPOLOGY_PATH, &topo, &err)) {
		ktap_header(1);
		ktap_diag("%s", err.msg);
		ktap_ok(0, "load %s", TOPOLOGY_PATH);
		ktap_exit();
	}
	guest_header();
	ktap_diag("%s: %d nodes, %d CPUs", TOPOLOGY_PATH, topo.nr_nodes, topo_nr_cpus(&topo));
	guest_run();
	ktap_exit();
}
