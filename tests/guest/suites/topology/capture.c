#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture.h"
#include "ktap.h"
#include "model/topology_capture.h"

#define MIB (UINT64_C(1) << 20)

static int same_nodes(const struct topology *want, const struct topology *got)
{
	int ok = 1;

	for (int i = 0; i < want->nr_nodes; i++) {
		const struct topo_node *w = &want->nodes[i], *g = &got->nodes[i];

		if (w->cpu_first != g->cpu_first || w->cpu_last != g->cpu_last) {
			ktap_diag("node%d: captured CPUs %d-%d, declared %d-%d", i, g->cpu_first, g->cpu_last,
				  w->cpu_first, w->cpu_last);
			ok = 0;
		}
		if (w->mem_bytes != g->mem_bytes) {
			ktap_diag("node%d: captured %llu MiB (present pages rounded up), declared %llu MiB", i,
				  (unsigned long long)(g->mem_bytes / MIB), (unsigned long long)(w->mem_bytes / MIB));
			ok = 0;
		}
		for (int j = 0; j < want->nr_nodes; j++)
			if (want->dist[i][j] != got->dist[i][j]) {
				ktap_diag("distance %d->%d: captured %d, declared %d", i, j, got->dist[i][j],
					  want->dist[i][j]);
				ok = 0;
			}
	}
	return ok;
}

/* Each CPU-less node's initiator and that pair's numbers: what sysfs shows of HMAT. */
static int same_hmat(const struct topology *want, const struct topology *got)
{
	int ok = 1;

	if (!topo_has_hmat(want) || topo_nr_cpu_nodes(want) == want->nr_nodes)
		return 1;
	for (int t = 0; t < want->nr_nodes; t++) {
		int i = want->nodes[t].initiator;
		const struct topo_hmat_lb *w, *g;

		if (topo_node_has_cpus(want, t))
			continue;
		w = topo_hmat_find(want, i, t);
		g = topo_hmat_find(got, i, t);
		if (got->nodes[t].initiator != i || !w || !g) {
			ktap_diag("node%d: captured initiator %d, declared %d", t, got->nodes[t].initiator, i);
			ok = 0;
			continue;
		}
		/* HMAT bandwidth reaches sysfs in MiB/s, rounded by the conversion. */
		if (w->latency_ns != g->latency_ns || llabs((long long)(w->bandwidth_bps / MIB) -
							    (long long)(g->bandwidth_bps / MIB)) > 1) {
			ktap_diag("hmat-lb %d %d: captured %llu ns %llu MiB/s, declared %llu ns %llu MiB/s", i, t,
				  (unsigned long long)g->latency_ns, (unsigned long long)(g->bandwidth_bps / MIB),
				  (unsigned long long)w->latency_ns, (unsigned long long)(w->bandwidth_bps / MIB));
			ok = 0;
		}
	}
	return ok;
}

/* Each declared memory-side cache, as nodeN/memory_side_cache/indexL shows it. */
static int same_caches(const struct topology *want, const struct topology *got)
{
	int ok = 1;

	for (int i = 0; i < want->nr_hmat_cache; i++) {
		const struct topo_hmat_cache *w = &want->hmat_cache[i], *g = NULL;

		for (int j = 0; j < got->nr_hmat_cache; j++)
			if (got->hmat_cache[j].node == w->node && got->hmat_cache[j].level == w->level)
				g = &got->hmat_cache[j];
		if (!g || g->size_bytes != w->size_bytes || g->line_bytes != w->line_bytes ||
		    g->write_back != w->write_back || g->direct_mapped != w->direct_mapped) {
			ktap_diag("hmat-cache %d level %d: captured %s, declared size %llu line %u", w->node, w->level,
				  g ? "otherwise" : "none", (unsigned long long)w->size_bytes, w->line_bytes);
			ok = 0;
		}
	}
	return ok;
}

void check_capture(const struct topology *want)
{
	struct topo_capture_in in = { .sysfs = "/sys", .procfs = "/proc", .origin = "Captured in the guest." };
	struct topo_capture_error err;
	struct topology got;
	struct utsname u;
	long page = sysconf(_SC_PAGESIZE);
	int ok;
	char text[16384];

	if (uname(&u) || page <= 0) {
		ktap_diag("uname or sysconf failed");
		ktap_ok(0, "topo capture gives the declared shape");
		return;
	}
	in.machine = u.machine;
	in.page_size = (uint64_t)page;
	if (topo_capture(&in, &got, &err)) {
		ktap_diag("topo capture: %s", err.msg);
		ktap_ok(0, "topo capture gives the declared shape");
		return;
	}
	ok = got.arch == want->arch && got.nr_nodes == want->nr_nodes;
	if (!ok)
		ktap_diag("captured %s with %d nodes, declared %s with %d", topo_arch_name(got.arch), got.nr_nodes,
			  topo_arch_name(want->arch), want->nr_nodes);
	ok = ok && same_nodes(want, &got) && same_hmat(want, &got) && same_caches(want, &got);
	if (want->page_size && want->page_size != got.page_size) {
		ktap_diag("page size: captured %llu, declared %llu", (unsigned long long)got.page_size,
			  (unsigned long long)want->page_size);
		ok = 0;
	}
	if (want->pmd_size && want->pmd_size != got.pmd_size) {
		ktap_diag("pmd size: captured %llu, declared %llu", (unsigned long long)got.pmd_size,
			  (unsigned long long)want->pmd_size);
		ok = 0;
	}
	if (!ok) {
		topo_format(&got, text, sizeof(text));
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
			ktap_diag("captured: %s", line);
	}
	ktap_ok(ok, "topo capture gives the declared shape");
}
