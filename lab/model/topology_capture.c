#include "model/topology_capture.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DIR "devices/system/node"
#define MAX_IDS 4096             /* node and CPU ids read from a list */
#define MEM_ROUND (128ULL << 20)       /* node memory is rounded up to this */

/* One node as sysfs shows it, by its own id. */
struct seen {
	int id;
	int nr_cpus;
	char cpulist[256];
	uint64_t mem_bytes;
	int mem_from_memtotal;
	int dist[TOPO_MAX_NODES];
	uint64_t initiators;         /* access0/initiators/nodeI, by index into the nodes seen */
	uint64_t latency_ns, bandwidth_mib;
	int write_differs;
};

struct capture {
	const struct topo_capture_in *in;
	struct topo_capture_error *err;
	int nr;
	struct seen nodes[TOPO_MAX_NODES];
	char notes[TOPO_DESCRIPTION_MAX - 256];   /* room for the origin line before them */
};

static int fail(struct capture *c, int unreadable, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct capture *c, int unreadable, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	c->err->unreadable = unreadable;
	return -1;
}

static void note(struct capture *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct capture *c, const char *fmt, ...)
{
	size_t len = strlen(c->notes);
	va_list ap;

	if (len + 2 >= sizeof(c->notes))
		return;
	if (len)
		c->notes[len++] = '\n';
	va_start(ap, fmt);
	vsnprintf(c->notes + len, sizeof(c->notes) - len, fmt, ap);
	va_end(ap);
}

/* SYSFS/rel into buf, trailing newline off: 0, or -1 (errno) when it cannot be read. */
static int read_text(struct capture *c, const char *rel, char *buf, size_t cap)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", c->in->sysfs, rel);
	if (!(f = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, cap - 1, f);
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int must_read(struct capture *c, const char *rel, char *buf, size_t cap)
{
	if (read_text(c, rel, buf, cap))
		return fail(c, 1, "cannot read %s/%s: %s", c->in->sysfs, rel, strerror(errno));
	return 0;
}

/* A decimal (base 0: also 0x hex) u64 file: 0, -1 when absent or not a number. */
static int read_u64(struct capture *c, const char *rel, int base, uint64_t *out)
{
	char buf[64], *end;

	if (read_text(c, rel, buf, sizeof(buf)) || !buf[0])
		return -1;
	errno = 0;
	*out = strtoull(buf, &end, base);
	return errno || *end ? -1 : 0;
}

/* "0-3,8,10-11" → ids[] ascending; the count, or -1 when malformed. */
static int parse_list(const char *s, int *ids, int cap)
{
	int n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (long i = a; i <= b; i++) {
			if (n == cap)
				return -1;
			ids[n++] = (int)i;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return n;
}

static int index_of(const struct capture *c, int id)
{
	for (int i = 0; i < c->nr; i++)
		if (c->nodes[i].id == id)
			return i;
	return -1;
}

static int read_nodes(struct capture *c)
{
	int ids[MAX_IDS];
	char list[4096];
	int n;

	if (read_text(c, NODE_DIR "/online", list, sizeof(list)))
		return fail(c, 1, "cannot read %s/" NODE_DIR "/online: %s (a kernel without NUMA, CONFIG_NUMA, has no nodes to capture)",
			    c->in->sysfs, strerror(errno));
	if ((n = parse_list(list, ids, MAX_IDS)) <= 0)
		return fail(c, 1, "%s/" NODE_DIR "/online: '%s' is not a node list", c->in->sysfs, list);
	if (n > TOPO_MAX_NODES)
		return fail(c, 0, "this machine has %d nodes; the lab emulates at most %d (docs/topology.md)",
			    n, TOPO_MAX_NODES);
	c->nr = n;
	for (int i = 0; i < n; i++)
		c->nodes[i].id = ids[i];
	if (ids[n - 1] != n - 1) {
		char got[64] = "";

		for (int i = 0; i < n; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", i ? "," : "", ids[i]);
		note(c, "Nodes %s of this machine are nodes 0-%d here (the format numbers them from 0).", got, n - 1);
	}
	return 0;
}

static int read_cpus(struct capture *c, struct seen *s)
{
	int ids[MAX_IDS];
	char rel[128];

	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/cpulist", s->id);
	if (must_read(c, rel, s->cpulist, sizeof(s->cpulist)))
		return -1;
	if ((s->nr_cpus = parse_list(s->cpulist, ids, MAX_IDS)) < 0)
		return fail(c, 1, "%s/%s: '%s' is not a CPU list", c->in->sysfs, rel, s->cpulist);
	return 0;
}

/*
 * Pages present per node (the zones' "present" in PROCFS/zoneinfo: the
 * firmware's ranges less what it keeps, a few MiB), in bytes by node id; 0
 * when zoneinfo cannot be read.
 */
static int read_present(struct capture *c, uint64_t *bytes, int cap)
{
	char path[512], line[256];
	unsigned long long pages;
	FILE *f;
	int node = -1, n;

	snprintf(path, sizeof(path), "%s/zoneinfo", c->in->procfs);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &n) == 1)
			node = n >= 0 && n < cap ? n : -1;
		else if (node >= 0 && sscanf(line, " present %llu", &pages) == 1)
			bytes[node] += pages * c->in->page_size;
	}
	fclose(f);
	return 0;
}

/* Up to the next multiple of MEM_ROUND: what the format's mem= was before firmware kept some. */
static uint64_t round_mem(uint64_t bytes)
{
	return (bytes + MEM_ROUND - 1) / MEM_ROUND * MEM_ROUND;
}

/* The node's memory from its present pages; else from MemTotal (which loses more: said in a note). */
static int read_memory(struct capture *c, struct seen *s, const uint64_t *present, int have_present)
{
	char rel[128], meminfo[4096], *p;
	unsigned long long kib;

	if (have_present) {
		s->mem_bytes = s->id < MAX_IDS ? round_mem(present[s->id]) : 0;
		return 0;
	}
	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/meminfo", s->id);
	if (must_read(c, rel, meminfo, sizeof(meminfo)))
		return -1;
	if (!(p = strstr(meminfo, "MemTotal:")) || sscanf(p, "MemTotal: %llu kB", &kib) != 1)
		return fail(c, 1, "%s/%s: no MemTotal line", c->in->sysfs, rel);
	s->mem_bytes = round_mem((uint64_t)kib << 10);
	s->mem_from_memtotal = 1;
	return 0;
}

static int read_distances(struct capture *c, struct seen *s)
{
	char rel[128], row[1024], *p = row;

	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/distance", s->id);
	if (must_read(c, rel, row, sizeof(row)))
		return -1;
	for (int j = 0; j < c->nr; j++) {
		char *end;
		long d = strtol(p, &end, 10);

		if (end == p || d < 0 || d > 100000)
			return fail(c, 1, "%s/%s: '%s' has no distance for node %d", c->in->sysfs, rel, row,
				    c->nodes[j].id);
		s->dist[j] = (int)d;
		p = end;
	}
	return 0;
}

/* access0: which initiators are nearest to s, and their read latency and bandwidth. */
static void read_access(struct capture *c, struct seen *s)
{
	char rel[160], dir[512];
	uint64_t wl, wb;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/" NODE_DIR "/node%d/access0/initiators", c->in->sysfs, s->id);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		int id, i;
		char tail;

		if (sscanf(e->d_name, "node%d%c", &id, &tail) == 1 && (i = index_of(c, id)) >= 0)
			s->initiators |= UINT64_C(1) << i;
	}
	closedir(d);
	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/access0/initiators/read_latency", s->id);
	if (read_u64(c, rel, 10, &s->latency_ns))
		s->latency_ns = 0;
	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/access0/initiators/read_bandwidth", s->id);
	if (read_u64(c, rel, 10, &s->bandwidth_mib))
		s->bandwidth_mib = 0;
	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/access0/initiators/write_latency", s->id);
	s->write_differs = !read_u64(c, rel, 10, &wl) && wl != s->latency_ns;
	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/access0/initiators/write_bandwidth", s->id);
	s->write_differs |= !read_u64(c, rel, 10, &wb) && wb != s->bandwidth_mib;
}

/* Memory-side caches of node index i (nodeN/memory_side_cache/indexL). */
static void read_caches(struct capture *c, struct topology *t, int i)
{
	for (int level = 1; level <= 3 && t->nr_hmat_cache < TOPO_MAX_CACHES; level++) {
		struct topo_hmat_cache *hc = &t->hmat_cache[t->nr_hmat_cache];
		char rel[160];
		uint64_t size, line, policy, indexing;

#define CACHE_FILE(name, out) \
	(snprintf(rel, sizeof(rel), NODE_DIR "/node%d/memory_side_cache/index%d/" name, c->nodes[i].id, level), \
	 read_u64(c, rel, 10, out))
		if (CACHE_FILE("size", &size) || CACHE_FILE("line_size", &line) ||
		    CACHE_FILE("write_policy", &policy) || CACHE_FILE("indexing", &indexing))
			continue;
#undef CACHE_FILE
		if (!size || !line || line > 4096)
			continue;
		hc->node = i;
		hc->level = level;
		hc->size_bytes = size;
		hc->line_bytes = (unsigned)line;
		hc->write_back = policy == 0;       /* node.h: NODE_CACHE_WRITE_BACK */
		hc->direct_mapped = indexing == 0;  /* NODE_CACHE_DIRECT_MAP */
		t->nr_hmat_cache++;
	}
}

/* The nearest (by SLIT) initiator of target j among those its access0 lists. */
static int best_initiator(const struct capture *c, int j)
{
	int best = -1;

	for (int i = 0; i < c->nr; i++)
		if ((c->nodes[j].initiators >> i & 1) && c->nodes[i].nr_cpus &&
		    (best < 0 || c->nodes[j].dist[i] < c->nodes[j].dist[best]))
			best = i;
	return best;
}

/*
 * hmat-lb for every initiator x target pair: sysfs's numbers for the
 * pairs it lists, the others estimated from the target's best pair scaled
 * by the SLIT (latency up, bandwidth down by dist(i,j) / dist(best,j)).  A
 * target sysfs shows no bandwidth for gets latencies only.
 * 0 when HMAT cannot be written (a note says why).
 */
static int build_hmat(struct capture *c, struct topology *t)
{
	int cpuless = 0, estimated = 0, write_differs = 0;

	for (int j = 0; j < c->nr; j++)
		cpuless += !c->nodes[j].nr_cpus;
	for (int j = 0; j < c->nr; j++)
		if (best_initiator(c, j) < 0 || !c->nodes[j].latency_ns) {
			int any = 0;

			for (int k = 0; k < c->nr; k++)
				any |= c->nodes[k].latency_ns != 0;
			if (any)
				note(c, "HMAT left out: node %d has no access0 latency in sysfs.", c->nodes[j].id);
			return 0;
		}
	if (!cpuless) {
		note(c, "HMAT left out: every node has CPUs, and the format takes HMAT only with CPU-less nodes.");
		return 0;
	}
	for (int i = 0; i < c->nr; i++) {
		if (!c->nodes[i].nr_cpus)
			continue;
		for (int j = 0; j < c->nr; j++) {
			const struct seen *tg = &c->nodes[j];
			int b = best_initiator(c, j);
			struct topo_hmat_lb *lb = &t->hmat_lb[t->nr_hmat_lb++];
			uint64_t mib = tg->bandwidth_mib;

			lb->initiator = i;
			lb->target = j;
			lb->latency_ns = tg->latency_ns;
			if (!(tg->initiators >> i & 1)) {
				lb->latency_ns = tg->latency_ns * (uint64_t)tg->dist[i] / (uint64_t)tg->dist[b];
				mib = mib * (uint64_t)tg->dist[b] / (uint64_t)tg->dist[i];
				/* Rounded up to the least a bandwidth can be; none stays none (latencies only). */
				mib = mib || !tg->bandwidth_mib ? mib : 1;
				estimated = 1;
			}
			lb->bandwidth_bps = mib << 20;
			write_differs |= tg->write_differs;
		}
	}
	for (int j = 0; j < c->nr; j++)
		if (!c->nodes[j].nr_cpus)
			t->nodes[j].initiator = best_initiator(c, j);
	for (int j = 0; j < c->nr; j++)
		read_caches(c, t, j);
	if (estimated)
		note(c, "HMAT: sysfs shows each node's nearest initiators only; the other hmat-lb pairs are estimates (scaled by the SLIT).");
	if (write_differs)
		note(c, "HMAT: write latency or bandwidth differs from read on this machine; the format has one of each, the read ones are kept.");
	return 0;
}

static int read_machine(struct capture *c, struct topology *t)
{
	uint64_t present[MAX_IDS];
	uint64_t pmd;
	int next_cpu = 0, renumbered = 0, have_present;
	char renum[256] = "";

	if (!strcmp(c->in->machine, "x86_64"))
		t->arch = TOPO_ARCH_X86_64;
	else if (!strcmp(c->in->machine, "loongarch64"))
		t->arch = TOPO_ARCH_LOONGARCH64;
	else
		return fail(c, 0, "this machine is %s; the lab emulates x86_64 and loongarch64", c->in->machine);
	snprintf(t->machine, sizeof(t->machine), "%s", t->arch == TOPO_ARCH_X86_64 ? "q35" : "virt");
	if (read_nodes(c))
		return -1;
	memset(present, 0, sizeof(present));
	have_present = !read_present(c, present, MAX_IDS);
	t->nr_nodes = c->nr;
	for (int i = 0; i < c->nr; i++) {
		struct seen *s = &c->nodes[i];
		struct topo_node *n = &t->nodes[i];

		if (read_cpus(c, s) || read_memory(c, s, present, have_present) || read_distances(c, s))
			return -1;
		read_access(c, s);
		if (!s->mem_bytes)
			return fail(c, 0, "node %d has no memory; the format needs memory on every node (docs/topology.md)", s->id);
		if (next_cpu + s->nr_cpus > TOPO_MAX_CPUS)
			return fail(c, 0, "this machine has more than %d CPUs; the lab emulates at most %d (docs/topology.md)",
				    TOPO_MAX_CPUS, TOPO_MAX_CPUS);
		n->cpu_first = n->cpu_last = n->initiator = -1;
		if (s->nr_cpus) {
			char mine[32];

			n->cpu_first = next_cpu;
			n->cpu_last = next_cpu + s->nr_cpus - 1;
			snprintf(mine, sizeof(mine), n->cpu_first == n->cpu_last ? "%d" : "%d-%d", n->cpu_first, n->cpu_last);
			if (strcmp(mine, s->cpulist)) {
				renumbered = 1;
				snprintf(renum + strlen(renum), sizeof(renum) - strlen(renum), "%snode %d %s", *renum ? ", " : "",
					 s->id, s->cpulist);
			}
			next_cpu += s->nr_cpus;
		}
		n->mem_bytes = s->mem_bytes;
		for (int j = 0; j < c->nr; j++)
			t->dist[i][j] = s->dist[j];
		if (s->mem_from_memtotal)
			note(c, "Node %d: no zoneinfo to read; its memory is MemTotal rounded up to 128M.", s->id);
	}
	if (renumbered)
		note(c, "CPUs renumbered into one range per node (the format's rule); this machine has %s.", renum);
	if (build_hmat(c, t))
		return -1;
	t->page_size = c->in->page_size;
	if (!read_u64(c, "kernel/mm/transparent_hugepage/hpage_pmd_size", 10, &pmd) && pmd && !(pmd & (pmd - 1)))
		t->pmd_size = pmd;
	return 0;
}

/* Break text's lines at blanks so that, as "# " comments, they fit 80 columns. */
static void wrap(char *text)
{
	char *line = text;

	while (*line) {
		char *eol = strchr(line, '\n'), *cut = NULL;

		eol = eol ? eol : line + strlen(line);
		if (eol - line <= 78) {
			line = *eol ? eol + 1 : eol;
			continue;
		}
		for (char *p = line; p - line <= 78; p++)
			if (*p == ' ')
				cut = p;
		if (!cut) {
			line = *eol ? eol + 1 : eol;
			continue;
		}
		*cut = '\n';
		line = cut + 1;
	}
}

int topo_capture(const struct topo_capture_in *in, struct topology *topo, struct topo_capture_error *err)
{
	struct capture c;
	char text[16384];
	struct topo_error perr;

	memset(&c, 0, sizeof(c));
	c.in = in;
	c.err = err;
	memset(topo, 0, sizeof(*topo));
	topo->timeout_s = 600;
	snprintf(topo->tests, sizeof(topo->tests), "topology");
	if (read_machine(&c, topo))
		return -1;
	snprintf(topo->description, sizeof(topo->description), "%s%s%s", in->origin ? in->origin : "", c.notes[0] ? "\n" : "", c.notes);
	wrap(topo->description);
	if (topo_format(topo, text, sizeof(text)) >= sizeof(text))
		return fail(&c, 0, "the captured topology is longer than %zu bytes", sizeof(text));
	if (topo_parse("captured.topo", text, strlen(text), topo, &perr))
		return fail(&c, 0, "this machine's shape does not fit the topology format: %s", perr.msg);
	return 0;
}
