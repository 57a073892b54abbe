/*
 * placement: which CPU runs a workload and where its arena's pages go.
 *
 * The CPU never changes between placements (the home CPU), so the only
 * difference between two runs of a workload is the arena's memory policy
 * and its THP advice.  Node sets come from sysfs (what the kernel has);
 * CPUs and distances from the declared topology, as the mempolicy suite
 * does.  After a run a sample of the arena's pages is located with
 * move_pages(): a policy that was set but not honoured fails the run.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"
#include "workloads.h"

/* uapi <linux/mempolicy.h>; older libc headers lack the newer modes. */
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_WEIGHTED_INTERLEAVE 6
#define MAXNODE (sizeof(unsigned long) * CHAR_BIT + 1)

#define NODE_DIR "/sys/devices/system/node"
#define WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"
#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define NR_SAMPLES 1024

/* "Node 0 MemTotal:  471696 kB" from the node's meminfo; 0 if unreadable. */
static uint64_t node_mem_total(int node)
{
	char path[128], line[256];
	unsigned long long kib = 0;
	int id;
	FILE *f;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %d MemTotal: %llu kB", &id, &kib) == 2)
			break;
	if (f)
		fclose(f);
	return (uint64_t)kib * 1024;
}

static int has_memory(const struct system *s, int node)
{
	for (int k = 0; k < s->nr_mem; k++)
		if (s->mem[k] == node)
			return 1;
	return 0;
}

/* Node 0 if it has CPUs and memory, else the first node that has both. */
static void choose_home(struct system *s)
{
	const struct topology *t = s->topo;

	s->home_node = s->home_cpu = -1;
	for (int node = 0; node < t->nr_nodes; node++)
		if (topo_node_has_cpus(t, node) && has_memory(s, node)) {
			s->home_node = node;
			s->home_cpu = t->nodes[node].cpu_first;
			return;
		}
}

/* The memory node farthest from home by the SLIT; the lowest id on a tie. */
static void choose_far(struct system *s)
{
	int best = -1;

	s->far_node = -1;
	for (int k = 0; s->home_node >= 0 && k < s->nr_mem; k++) {
		int node = s->mem[k];

		if (node == s->home_node || node >= s->topo->nr_nodes)
			continue;
		if (s->topo->dist[s->home_node][node] > best) {
			best = s->topo->dist[s->home_node][node];
			s->far_node = node;
		}
	}
}

static void check_thp(struct system *s)
{
	char enabled[32];

	s->thp_skip[0] = '\0';
	if (s->pmd <= 0)
		snprintf(s->thp_skip, sizeof(s->thp_skip), "the kernel has no THP (no hpage_pmd_size)");
	else if (!thp_setting(THP_ENABLED, enabled, sizeof(enabled)) && !strcmp(enabled, "never"))
		snprintf(s->thp_skip, sizeof(s->thp_skip), "THP is off (enabled=never): MADV_HUGEPAGE has no effect");
}

int system_discover(struct system *s, const struct topology *topo, char *why, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->topo = topo;
	if (node_list("has_memory", s->mem, MAX_NODES, &s->nr_mem) || !s->nr_mem ||
	    node_list("online", s->online, MAX_NODES, &s->nr_online)) {
		snprintf(why, size, "cannot read the node sets from " NODE_DIR);
		return -1;
	}
	s->page = page_size();
	s->pmd = pmd_size();
	check_thp(s);
	choose_home(s);
	choose_far(s);
	for (int k = 0; k < s->nr_mem; k++) {
		uint64_t total = node_mem_total(s->mem[k]);

		if (total && (!s->min_node_bytes || total < s->min_node_bytes))
			s->min_node_bytes = total;
	}
	return 0;
}

static unsigned long all_memory_nodes(const struct system *s)
{
	unsigned long mask = 0;

	for (int k = 0; k < s->nr_mem; k++)
		mask |= 1UL << s->mem[k];
	return mask;
}

/* "weights {node0: 3, node1: 1}" as sysfs has them now. */
static void describe_weights(const struct system *s, char *buf, size_t size)
{
	long long weight[MAX_NODES];
	char path[128], map[160];
	long w;

	for (int k = 0; k < s->nr_mem; k++) {
		snprintf(path, sizeof(path), WI_DIR "/node%d", s->mem[k]);
		weight[k] = sys_read_long(path, &w) ? -1 : w;
	}
	node_map(map, sizeof(map), s->mem, s->nr_mem, weight);
	snprintf(buf, size, "weights %.140s", map);
}

static void bind_to(const struct system *s, int node, struct placement *p)
{
	(void)s;
	p->mode = MPOL_BIND;
	p->mask = 1UL << node;
	snprintf(p->policy, sizeof(p->policy), "bind node%d", node);
}

void placement_prepare(const struct system *s, int which, struct placement *p)
{
	static const char *const names[NR_PLACEMENTS] = {
		[PL_LOCAL] = "local", [PL_REMOTE] = "remote",
		[PL_INTERLEAVE] = "interleave", [PL_WEIGHTED] = "weighted-interleave",
	};
	char nodes[128], weights[160];

	memset(p, 0, sizeof(*p));
	p->name = names[which];
	idlist_format(all_memory_nodes(s), nodes, sizeof(nodes));
	if (s->home_node < 0) {
		snprintf(p->skip, sizeof(p->skip), "no node has both CPUs and memory to run on");
		return;
	}
	switch (which) {
	case PL_LOCAL:
		bind_to(s, s->home_node, p);
		break;
	case PL_REMOTE:
		if (s->far_node < 0)
			snprintf(p->skip, sizeof(p->skip), "one memory node: nothing is remote");
		else
			bind_to(s, s->far_node, p);
		break;
	case PL_INTERLEAVE:
		p->mode = MPOL_INTERLEAVE;
		p->mask = all_memory_nodes(s);
		snprintf(p->policy, sizeof(p->policy), "interleave nodes %s", nodes);
		break;
	case PL_WEIGHTED:
		if (!sys_exists(WI_DIR)) {
			snprintf(p->skip, sizeof(p->skip),
				 "no " WI_DIR ": the kernel lacks MPOL_WEIGHTED_INTERLEAVE");
			break;
		}
		p->mode = MPOL_WEIGHTED_INTERLEAVE;
		p->mask = all_memory_nodes(s);
		describe_weights(s, weights, sizeof(weights));
		snprintf(p->policy, sizeof(p->policy), "weighted-interleave nodes %.40s %.159s", nodes, weights);
		break;
	}
}

int placement_apply(const struct system *s, const struct placement *p, struct arena *a,
		    int thp, char *why, size_t size)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(s->home_cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		snprintf(why, size, "sched_setaffinity cpu %d: %s", s->home_cpu, strerror(errno));
		return -1;
	}
	/* Without THP in the kernel there is nothing to turn off (and madvise says EINVAL). */
	if (s->pmd > 0 && madvise(a->base, a->size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		snprintf(why, size, "madvise(%s): %s", thp ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE",
			 strerror(errno));
		return -1;
	}
	if (syscall(SYS_mbind, a->base, a->size, p->mode, &p->mask, MAXNODE, 0)) {
		snprintf(why, size, "mbind(%s): %s", p->policy, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * move_pages() query of NR_SAMPLES pages of the used part, picked at random
 * (fixed seed): an even stride would alias with page-by-page interleaving
 * and see one node only.
 */
static int sample_pages(const struct system *s, const struct arena *a, struct page_sample *ps,
			char *why, size_t size)
{
	static void *pages[NR_SAMPLES];
	static int status[NR_SAMPLES];
	size_t page = (size_t)s->page, nr_pages = (a->used + page - 1) / page;
	size_t n = nr_pages < NR_SAMPLES ? nr_pages : NR_SAMPLES;
	uint64_t rng = 0x73616d706c65UL;   /* "sample" */

	for (size_t i = 0; i < n; i++)
		pages[i] = a->base + (n == nr_pages ? i : rng_below(&rng, nr_pages)) * page;
	if (n && syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
		snprintf(why, size, "move_pages (query): %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (status[i] >= 0 && status[i] < MAX_NODES)
			ps->on_node[status[i]]++;
		else
			ps->absent++;
	}
	return 0;
}

int placement_verify(const struct system *s, const struct placement *p, const struct arena *a,
		     int thp, struct page_sample *ps, char *why, size_t size)
{
	long present = 0, outside = 0;
	int nodes_used = 0;
	size_t unit = (size_t)(thp && s->pmd > 0 ? s->pmd : s->page);

	memset(ps, 0, sizeof(*ps));
	ps->huge_bytes = (long)smaps_anon_huge(a->base);
	if (sample_pages(s, a, ps, why, size))
		return 0;
	for (int node = 0; node < MAX_NODES; node++) {
		present += ps->on_node[node];
		nodes_used += ps->on_node[node] > 0;
		if (!(p->mask >> node & 1))
			outside += ps->on_node[node];
	}
	if (!present)
		snprintf(why, size, "none of the sampled arena pages is present");
	else if (outside)
		snprintf(why, size, "%ld of %ld sampled pages outside %s", outside, present, p->policy);
	else if (p->mode == MPOL_INTERLEAVE && s->nr_mem > 1 && a->used / unit >= (size_t)s->nr_mem &&
		 nodes_used < 2)
		snprintf(why, size, "interleave left every sampled page on one node");
	else if (!thp && s->pmd > 0 && ps->huge_bytes != 0)
		snprintf(why, size, "MADV_NOHUGEPAGE arena has AnonHugePages %ld", ps->huge_bytes);
	else
		return 1;
	return 0;
}
