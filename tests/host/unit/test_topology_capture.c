/*
 * test_topology_capture: topo_capture() over fake trees
 * (tests/host/unit/sysfs/NAME/{sys,proc}, laid out as the kernel's
 * Documentation/ABI/stable/sysfs-devices-node says; symlinks as empty
 * files, which readdir lists the same):
 *
 *   cxl     what a cxl.topo guest shows: two CPU nodes, two CPU-less ones
 *           behind HMAT, memory-side caches, zoneinfo's present pages
 *   sparse  nodes 0 and 2, CPUs interleaved between them, no zoneinfo
 *           (MemTotal instead), HMAT on CPU nodes only
 *   nomem   a node with CPUs and no memory
 *   nine    more nodes than the lab emulates
 *
 * What the real kernel shows is checked by the round trip in
 * tests/host/integration/topo-capture.sh.
 */
#include "model/topology_capture.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

#define MIB (1ull << 20)
#define SYSFS "tests/host/unit/sysfs/"

static int capture(const char *tree, const char *machine, struct topology *t, struct topo_capture_error *err)
{
	char sys[256], proc[256];
	struct topo_capture_in in = { .sysfs = sys, .procfs = proc, .machine = machine, .page_size = 4096,
				      .origin = "Test." };

	snprintf(sys, sizeof(sys), "%s/sys", tree);
	snprintf(proc, sizeof(proc), "%s/proc", tree);
	memset(err, 0, sizeof(*err));
	return topo_capture(&in, t, err);
}

/* capture() of a tree that must succeed: 1, or 0 with the error said and the case failed. */
static int captured(const char *tree, const char *machine, struct topology *t)
{
	struct topo_capture_error err;

	if (!capture(tree, machine, t, &err))
		return 1;
	printf("#   %s\n", err.msg);
	CHECK(0);
	return 0;
}

/* The cxl guest's shape comes back as cxl.topo declares it, where sysfs shows it. */
UNIT_TEST(cxl_guest)
{
	static const int dist[4][4] = {
		{ 10, 21, 14, 24 }, { 21, 10, 24, 14 }, { 14, 24, 10, 26 }, { 24, 14, 26, 10 },
	};
	struct topology t;
	const struct topo_hmat_lb *lb;

	if (!captured(SYSFS "cxl", "x86_64", &t))
		return;
	CHECK_INT(t.arch, TOPO_ARCH_X86_64);
	CHECK_STR(t.machine, "q35");
	CHECK_INT(t.nr_nodes, 4);
	CHECK_INT(t.nodes[0].cpu_first, 0);
	CHECK_INT(t.nodes[0].cpu_last, 1);
	CHECK_INT(t.nodes[1].cpu_first, 2);
	CHECK_INT(t.nodes[1].cpu_last, 3);
	CHECK_INT(topo_node_has_cpus(&t, 2), 0);
	CHECK_INT(topo_node_has_cpus(&t, 3), 0);
	for (int i = 0; i < 4; i++) {
		/* Present pages (node 0, 3: a few MiB short) rounded up: the SRAT's 512M, not MemTotal's 400000 kB. */
		CHECK_INT(t.nodes[i].mem_bytes, 512 * MIB);
		for (int j = 0; j < 4; j++)
			CHECK_INT(t.dist[i][j], dist[i][j]);
	}
	CHECK_INT(t.nodes[2].initiator, 0);
	CHECK_INT(t.nodes[3].initiator, 1);
	/* The pairs sysfs shows are exact; HMAT bandwidth is MiB/s there. */
	CHECK((lb = topo_hmat_find(&t, 0, 2)) && lb->latency_ns == 250 && lb->bandwidth_bps == 8192 * MIB);
	CHECK((lb = topo_hmat_find(&t, 1, 3)) && lb->latency_ns == 250 && lb->bandwidth_bps == 8192 * MIB);
	CHECK((lb = topo_hmat_find(&t, 0, 0)) && lb->latency_ns == 80 && lb->bandwidth_bps == 20480 * MIB);
	/* The others are estimated by the SLIT: 250 x 24/14, 8192 x 14/24; 80 x 21/10, 20480 x 10/21. */
	CHECK((lb = topo_hmat_find(&t, 1, 2)) && lb->latency_ns == 428 && lb->bandwidth_bps == 4778 * MIB);
	CHECK((lb = topo_hmat_find(&t, 0, 1)) && lb->latency_ns == 168 && lb->bandwidth_bps == 9752 * MIB);
	CHECK_INT(t.nr_hmat_lb, 8);
	CHECK_INT(t.nr_hmat_cache, 2);
	CHECK(t.hmat_cache[0].node == 2 && t.hmat_cache[0].size_bytes == 65536 && t.hmat_cache[0].line_bytes == 64 &&
	      t.hmat_cache[0].write_back && t.hmat_cache[0].direct_mapped && t.hmat_cache[0].level == 1);
	CHECK_INT(t.page_size, 4096);
	CHECK_INT(t.pmd_size, 2 * MIB);
	CHECK(!strncmp(t.description, "Test.\n", 6));
	CHECK(strstr(t.description, "estimates") != NULL);
	CHECK(strstr(t.description, "renumbered") == NULL);
	/* The same kernel rule gives the CXL nodes their lower tier. */
	CHECK_INT(topo_memory_tier(&t, 0), 4);
	CHECK(topo_memory_tier(&t, 2) > 4);
}

/* What the format cannot say as the machine has it is renumbered or rounded, and said. */
UNIT_TEST(sparse_machine)
{
	struct topology t;

	if (!captured(SYSFS "sparse", "loongarch64", &t))
		return;
	CHECK_INT(t.arch, TOPO_ARCH_LOONGARCH64);
	CHECK_STR(t.machine, "virt");
	CHECK_INT(t.nr_nodes, 2);
	CHECK(t.nodes[0].cpu_first == 0 && t.nodes[0].cpu_last == 3);
	CHECK(t.nodes[1].cpu_first == 4 && t.nodes[1].cpu_last == 7);
	/* 1000000 kB rounds up to 1G; 1048576 kB is 1G already. */
	CHECK_INT(t.nodes[0].mem_bytes, 1024 * MIB);
	CHECK_INT(t.nodes[1].mem_bytes, 1024 * MIB);
	CHECK_INT(t.dist[0][1], 32);
	CHECK_INT(topo_has_hmat(&t), 0);
	CHECK_INT(t.pmd_size, 0);
	CHECK(strstr(t.description, "Nodes 0,2 of this machine are nodes 0-1 here") != NULL);
	CHECK(strstr(t.description, "node 0 0-1,4-5, node 2 2-3,6-7") != NULL);
	CHECK(strstr(t.description, "MemTotal rounded up") != NULL);
	CHECK(strstr(t.description, "every node has CPUs") != NULL);
	/* Its write latency (95 beside read 90) goes with the HMAT left out: nothing said of it. */
	CHECK(strstr(t.description, "the read ones are kept") == NULL);
	for (const char *l = t.description; *l;) {
		const char *eol = strchr(l, '\n');
		size_t n = eol ? (size_t)(eol - l) : strlen(l);

		CHECK(n <= 78);
		l += n + (eol != NULL);
	}
}

/* Shapes the format cannot hold are the user's (exit 2); an unreadable sysfs is the machine's. */
UNIT_TEST(refused)
{
	struct topology t;
	struct topo_capture_error err;

	CHECK_INT(capture(SYSFS "nomem", "x86_64", &t, &err), -1);
	CHECK_INT(err.unreadable, 0);
	CHECK_STR(err.msg, "node 1 has no memory; the format needs memory on every node (docs/topology.md)");
	CHECK_INT(capture(SYSFS "nine", "x86_64", &t, &err), -1);
	CHECK_INT(err.unreadable, 0);
	CHECK(!strncmp(err.msg, "this machine has 9 nodes; the lab emulates at most 8", 52));
	CHECK_INT(capture(SYSFS "cxl", "aarch64", &t, &err), -1);
	CHECK_STR(err.msg, "this machine is aarch64; the lab emulates x86_64 and loongarch64");
	CHECK_INT(capture(SYSFS "none", "x86_64", &t, &err), -1);
	CHECK_INT(err.unreadable, 1);
	CHECK(!strncmp(err.msg, "cannot read " SYSFS "none/sys/devices/system/node/online: ", 64));
}

UNIT_MAIN(UNIT_CASE(cxl_guest), UNIT_CASE(sparse_machine), UNIT_CASE(refused))
