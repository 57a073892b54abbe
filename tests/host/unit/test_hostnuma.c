/*
 * test_hostnuma: --host-nodes for the direct backend against fake host node
 * trees (nodeN/cpulist): a missing host node and a CPU-less one for a node
 * with vCPUs are refused naming the node, maps the host can back are taken
 * with the host CPUs to pin to.
 */
#include "boot/hostnuma.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct topology two, cxl;

/* A fake node tree in a fresh directory: cpulists[i] for nodeI. */
static char *fake_host(const char *const *cpulists, int n)
{
	char *dir = unit_scratch("hostnuma");
	struct error err;

	for (int i = 0; i < n; i++) {
		char *node = xprintf("%s/node%d", dir, i), *file = xprintf("%s/cpulist", node);
		char *text = xprintf("%s\n", cpulists[i]);

		mkdir(node, 0755);
		CHECK_INT(write_file_atomic(file, text, strlen(text), &err), 0);
		free(node);
		free(file);
		free(text);
	}
	return dir;
}

static void load_shapes(void)
{
	struct topo_error err;

	CHECK_INT(topo_load("topologies/2node.topo", &two, &err), 0);
	CHECK_INT(topo_load("topologies/cxl.topo", &cxl, &err), 0);
}

UNIT_TEST(one_node_host_refuses_auto)
{
	static const char *const host[] = { "0-1" };
	char *dir = fake_host(host, 1);
	struct vm_host_nodes h;
	struct error err;

	load_shapes();
	CHECK_INT(hostnuma_bind("auto", &two, dir, &h, &err), -1);
	CHECK(strstr(err.msg, "guest node 1 wants host node 1, but this host has no NUMA node 1") != NULL);
	CHECK(strstr(err.msg, "node0 (CPUs 0-1)") != NULL);
	CHECK_INT(hostnuma_bind("0=0,1=0", &two, dir, &h, &err), 0);
	CHECK_STR(h.host_cpus[1], "0-1");
	remove_tree(dir);
	free(dir);
}

UNIT_TEST(two_socket_host)
{
	static const char *const host[] = { "0-3", "4-7", "" };
	char *dir = fake_host(host, 3);
	struct vm_host_nodes h;
	struct buf line = BUF_INIT;
	struct error err;

	load_shapes();
	CHECK_INT(hostnuma_bind("auto", &two, dir, &h, &err), 0);
	CHECK_STR(h.host_cpus[0], "0-3");
	CHECK_STR(h.host_cpus[1], "4-7");
	/* cxl's CPU-less nodes may sit on a CPU-less host node or a remote socket. */
	CHECK_INT(hostnuma_bind("0=0,1=1,2=2,3=0", &cxl, dir, &h, &err), 0);
	hostnuma_line(&cxl, &h, &line);
	CHECK_STR(buf_str(&line), "guest0=host0,guest1=host1,guest2=host2,guest3=host0");
	/* vCPUs need host CPUs. */
	CHECK_INT(hostnuma_bind("0=2,1=1,2=0,3=0", &cxl, dir, &h, &err), -1);
	CHECK(strstr(err.msg, "guest node 0 has vCPUs, but host node 2 has no CPUs") != NULL);
	/* auto on cxl wants host node 3. */
	CHECK_INT(hostnuma_bind("auto", &cxl, dir, &h, &err), -1);
	CHECK(strstr(err.msg, "no NUMA node 3") != NULL);
	CHECK_INT(hostnuma_bind("0=0", &two, dir, &h, &err), -1);
	CHECK(strstr(err.msg, "guest node 1 is not mapped") != NULL);
	buf_free(&line);
	remove_tree(dir);
	free(dir);
}

UNIT_MAIN(UNIT_CASE(one_node_host_refuses_auto), UNIT_CASE(two_socket_host))
