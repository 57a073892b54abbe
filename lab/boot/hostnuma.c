#include "boot/hostnuma.h"
#include "boot/libvirt_xml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* node_dir/FILE, whitespace stripped; -1 if unreadable. */
static int read_small(const char *node_dir, const char *file, char *out, size_t cap)
{
	char *path = xprintf("%s/%s", node_dir, file);
	struct buf b = BUF_INIT;
	struct error ignored;
	int rc = read_file(path, &b, &ignored);

	if (!rc) {
		size_t len = b.len;

		while (len && (b.data[len - 1] == '\n' || b.data[len - 1] == ' '))
			len--;
		snprintf(out, cap, "%.*s", (int)len, len ? b.data : "");
	}
	buf_free(&b);
	free(path);
	return rc;
}

/* Does node_dir/nodeH exist? */
static int access_ok(const char *node_dir, int h)
{
	char file[64], cpus[256];

	snprintf(file, sizeof(file), "node%d/cpulist", h);
	return !read_small(node_dir, file, cpus, sizeof(cpus));
}

/* "node0 (CPUs 0-7), node1 (CPUs 8-15)" for the refusal; also the first node with CPUs. */
static void host_nodes_have(const char *node_dir, char *out, size_t cap, int *first_cpu_node)
{
	size_t len = 0;

	out[0] = '\0';
	*first_cpu_node = -1;
	for (int h = 0; h < TOPO_MAX_NODES * 8 && len < cap; h++) {
		char file[64], cpus[256];

		snprintf(file, sizeof(file), "node%d/cpulist", h);
		if (read_small(node_dir, file, cpus, sizeof(cpus)))
			continue;
		if (cpus[0] && *first_cpu_node < 0)
			*first_cpu_node = h;
		len += (size_t)snprintf(out + len, cap - len, "%snode%d (%s%s)", len ? ", " : "", h,
					cpus[0] ? "CPUs " : "no CPUs", cpus);
	}
}

int hostnuma_bind(const char *arg, const struct topology *t, const char *node_dir,
		  struct vm_host_nodes *out, struct error *err)
{
	struct libvirt_host_map map;

	memset(out, 0, sizeof(*out));
	if (libvirt_parse_host_nodes(arg, t, &map, err))
		return -1;
	for (int g = 0; g < t->nr_nodes; g++) {
		int h = map.host_node[g], cpus_wanted = topo_node_has_cpus(t, g), example;
		char file[64], have[1024];

		out->host_node[g] = h;
		snprintf(file, sizeof(file), "node%d/cpulist", h);
		if (!read_small(node_dir, file, out->host_cpus[g], sizeof(out->host_cpus[g])) &&
		    (out->host_cpus[g][0] || !cpus_wanted))
			continue;
		host_nodes_have(node_dir, have, sizeof(have), &example);
		if (access_ok(node_dir, h))
			return error_input(err, "--host-nodes %s: guest node %d has vCPUs, but host node %d has "
					   "no CPUs to pin them to (the host's nodes in %s: %s); map it onto a "
					   "node with CPUs (e.g. --host-nodes %d=%d,...)", arg, g, h, node_dir,
					   have, g, example < 0 ? 0 : example);
		return error_input(err, "--host-nodes %s: guest node %d wants host node %d, but this host has "
				   "no NUMA node %d (its nodes in %s: %s); map each guest node onto one of "
				   "those (e.g. --host-nodes %d=%d,...) or drop --host-nodes", arg, g, h, h,
				   node_dir, have[0] ? have : "none", g, example < 0 ? 0 : example);
	}
	return 0;
}

void hostnuma_line(const struct topology *t, const struct vm_host_nodes *h, struct buf *out)
{
	for (int i = 0; i < t->nr_nodes; i++)
		buf_addf(out, "%sguest%d=host%d", i ? "," : "", i, h->host_node[i]);
}
