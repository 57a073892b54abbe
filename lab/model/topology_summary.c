#include "model/topology_summary.h"

#include <stdio.h>
#include <string.h>

void topo_nodes_str(const struct topology *t, char *out, size_t cap)
{
	int cpuless = t->nr_nodes - topo_nr_cpu_nodes(t);

	if (cpuless)
		snprintf(out, cap, "%d (%d CPU-less)", t->nr_nodes, cpuless);
	else
		snprintf(out, cap, "%d", t->nr_nodes);
}

static void table_head(struct buf *out, int nr, int width)
{
	buf_addf(out, "  %-*s", width, "");
	for (int j = 0; j < nr; j++)
		buf_addf(out, " %*d", width, j);
	buf_addf(out, "\n");
}

/* "memory_tierN: node a, b" a line, the tiers in order (the fastest first). */
static void put_tiers(const struct topology *t, struct buf *out)
{
	int done = 0, last = -1;

	buf_addf(out, "\nmemory tiers (mm/memory-tiers.c's rule from the HMAT above)\n");
	while (done < t->nr_nodes) {
		int tier = -1;

		for (int i = 0; i < t->nr_nodes; i++) {
			int ti = topo_memory_tier(t, i);

			if (ti > last && (tier < 0 || ti < tier))
				tier = ti;
		}
		if (tier < 0)
			break;
		buf_addf(out, "  memory_tier%d: node", tier);
		for (int i = 0, first = 1; i < t->nr_nodes; i++)
			if (topo_memory_tier(t, i) == tier) {
				buf_addf(out, "%s %d", first ? "" : ",", i);
				first = 0;
				done++;
			}
		buf_addf(out, "\n");
		last = tier;
	}
}

/* The shape, for people: what a run of this topology gives the guest. */
void topo_summary(const struct topology *t, struct buf *out)
{
	char size[32], nodes[32];
	int tiers = topo_memory_tier(t, 0) >= 0;

	topo_nodes_str(t, nodes, sizeof(nodes));
	topo_size_str(topo_mem_bytes(t), size, sizeof(size));
	buf_addf(out, "%s (%s)\n", t->name, t->path);
	for (const char *d = t->description; *d;) {
		const char *eol = strchr(d, '\n');
		int n = eol ? (int)(eol - d) : (int)strlen(d);

		buf_addf(out, "  %.*s\n", n, d);
		d += n + (eol != NULL);
	}
	buf_addf(out, "\n%s (QEMU machine %s): %s nodes, %d CPUs, %s memory\n", topo_arch_name(t->arch), t->machine,
		 nodes, topo_nr_cpus(t), size);
	if (t->page_size) {
		topo_size_str(t->page_size, size, sizeof(size));
		buf_addf(out, "page size %s", size);
	} else {
		buf_addf(out, "page size not declared (not checked)");
	}
	if (t->pmd_size) {
		topo_size_str(t->pmd_size, size, sizeof(size));
		buf_addf(out, ", PMD size %s\n", size);
	} else {
		buf_addf(out, ", PMD size not declared (not checked)\n");
	}

	buf_addf(out, "\nnodes\n  node  cpus   memory  initiator\n");
	for (int i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		char cpus[16] = "-";

		if (n->cpu_first >= 0)
			snprintf(cpus, sizeof(cpus), n->cpu_first == n->cpu_last ? "%d" : "%d-%d", n->cpu_first,
				 n->cpu_last);
		topo_size_str(n->mem_bytes, size, sizeof(size));
		buf_addf(out, "  %-4d  %-5s  %6s", i, cpus, size);
		if (n->initiator >= 0)
			buf_addf(out, "  %d", n->initiator);
		buf_addf(out, "\n");
	}

	buf_addf(out, "\ndistances (SLIT), from row to column\n");
	table_head(out, t->nr_nodes, 3);
	for (int i = 0; i < t->nr_nodes; i++) {
		buf_addf(out, "  %-3d", i);
		for (int j = 0; j < t->nr_nodes; j++)
			buf_addf(out, " %3d", t->dist[i][j]);
		buf_addf(out, "\n");
	}

	if (t->nr_hmat_lb) {
		buf_addf(out, "\nHMAT latency (ns) / bandwidth (per second), initiator (row) to target (column)\n");
		table_head(out, t->nr_nodes, 10);
		for (int i = 0; i < t->nr_nodes; i++) {
			if (!topo_node_has_cpus(t, i))
				continue;
			buf_addf(out, "  %-10d", i);
			for (int j = 0; j < t->nr_nodes; j++) {
				const struct topo_hmat_lb *lb = topo_hmat_find(t, i, j);
				char cell[48];

				if (lb->bandwidth_bps)
					topo_size_str(lb->bandwidth_bps, size, sizeof(size));
				else
					snprintf(size, sizeof(size), "-");   /* latencies only */
				snprintf(cell, sizeof(cell), "%llu/%s", (unsigned long long)lb->latency_ns, size);
				buf_addf(out, " %10s", cell);
			}
			buf_addf(out, "\n");
		}
	}
	for (int i = 0; i < t->nr_hmat_cache; i++) {
		const struct topo_hmat_cache *c = &t->hmat_cache[i];

		if (!i)
			buf_addf(out, "\nmemory-side caches\n");
		topo_size_str(c->size_bytes, size, sizeof(size));
		buf_addf(out, "  node %d: %s, level %d, %u-byte lines, %s, %s\n", c->node, size, c->level, c->line_bytes,
			 c->write_back ? "write-back" : "write-through", c->direct_mapped ? "direct-mapped" : "complex");
	}
	if (tiers)
		put_tiers(t, out);
	buf_addf(out, "\ntests %s; timeout %d s\n", t->tests, t->timeout_s);
}

