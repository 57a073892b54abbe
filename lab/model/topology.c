#include "model/topology.h"
#include "base/lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parser state beyond the model: where things were declared. */
struct parse {
	const char *path;
	struct topology *topo;
	struct topo_error *err;
	int line;
	int next_cpu;                       /* first CPU the next node must take */
	int dist_line[TOPO_MAX_NODES];      /* 0: row not given */
	int hmat_line;                      /* first hmat line, 0: none */
	int memory_line;
	uint64_t memory_total;
	int arch_line;
};

static int fail(struct parse *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse *ps, int line, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->err->msg, sizeof(ps->err->msg), "%s:%d: %s", ps->path, line, what);
	return -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v < (uint64_t)lo || v > (uint64_t)hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* "512M", "2G", "64K", "4096": powers of 1024. */
static int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	char num[32];
	size_t len = strlen(s);
	const char *u;
	int shift = 0;

	if (!len || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	u = strchr(units, toupper((unsigned char)num[len - 1]));
	if (u && *u) {
		shift = 10 * (int)(u - units + 1);
		num[len - 1] = '\0';
	}
	if (parse_u64(num, out) || *out == 0 || *out > (UINT64_MAX >> shift))
		return -1;
	*out <<= shift;
	return 0;
}

/* Split "key=value"; returns the value or NULL when there is no '='. */
static const char *kv_split(char *word)
{
	char *eq = strchr(word, '=');

	if (!eq)
		return NULL;
	*eq = '\0';
	return eq + 1;
}

static int parse_cpus(struct parse *ps, struct topo_node *n, const char *v)
{
	char *dash;
	char range[32];

	if (n->cpu_first >= 0)
		return fail(ps, ps->line, "cpus= given twice; give one range per node");
	snprintf(range, sizeof(range), "%s", v);
	dash = strchr(range, '-');
	if (dash)
		*dash = '\0';
	if (strlen(v) >= sizeof(range) || parse_int(range, 0, TOPO_MAX_CPUS - 1, &n->cpu_first) ||
	    parse_int(dash ? dash + 1 : range, 0, TOPO_MAX_CPUS - 1, &n->cpu_last) ||
	    n->cpu_last < n->cpu_first)
		return fail(ps, ps->line, "bad cpus=%s; write a range like cpus=0-3 or one CPU like cpus=2 (CPUs 0..%d)",
			    v, TOPO_MAX_CPUS - 1);
	if (n->cpu_first < ps->next_cpu)
		return fail(ps, ps->line, "cpus=%s overlaps CPUs of an earlier node; CPU ranges must not overlap", v);
	if (n->cpu_first > ps->next_cpu)
		return fail(ps, ps->line, "cpus=%s leaves a gap: CPUs %d-%d belong to no node; start this node at CPU %d",
			    v, ps->next_cpu, n->cpu_first - 1, ps->next_cpu);
	ps->next_cpu = n->cpu_last + 1;
	return 0;
}

static int parse_node_attr(struct parse *ps, struct topo_node *n, char *word)
{
	const char *v = kv_split(word);

	if (!v)
		return fail(ps, ps->line, "expected key=value, got '%s'; node takes cpus=, mem=, initiator=", word);
	if (!strcmp(word, "cpus"))
		return parse_cpus(ps, n, v);
	if (!strcmp(word, "mem")) {
		if (n->mem_bytes)
			return fail(ps, ps->line, "mem= given twice; give one size per node");
		if (parse_size(v, &n->mem_bytes))
			return fail(ps, ps->line, "bad mem=%s; write a size like mem=512M", v);
		return 0;
	}
	if (!strcmp(word, "initiator")) {
		if (n->initiator >= 0)
			return fail(ps, ps->line, "initiator= given twice; give one per node");
		if (parse_int(v, 0, TOPO_MAX_NODES - 1, &n->initiator))
			return fail(ps, ps->line, "bad initiator=%s; name a node id 0..%d", v, TOPO_MAX_NODES - 1);
		return 0;
	}
	return fail(ps, ps->line, "unknown node key '%s'; node takes cpus=, mem=, initiator=", word);
}

static int st_node(struct parse *ps, char **w, int nw)
{
	struct topology *t = ps->topo;
	struct topo_node *n;
	int id;

	if (nw < 2 || parse_int(w[1], 0, 1000, &id))
		return fail(ps, ps->line, "node needs an id: node ID cpus=A-B mem=SIZE");
	if (id < t->nr_nodes)
		return fail(ps, ps->line, "node %d is declared twice (first at line %d)", id, t->nodes[id].line);
	if (id >= TOPO_MAX_NODES)
		return fail(ps, ps->line, "node %d: the lab supports at most %d nodes (ids 0-%d)",
			    id, TOPO_MAX_NODES, TOPO_MAX_NODES - 1);
	if (id != t->nr_nodes)
		return fail(ps, ps->line, "node %d declared before node %d; declare node ids 0,1,2,... in order",
			    id, t->nr_nodes);
	n = &t->nodes[t->nr_nodes++];
	n->cpu_first = n->cpu_last = n->initiator = -1;
	n->line = ps->line;
	for (int i = 2; i < nw; i++)
		if (parse_node_attr(ps, n, w[i]))
			return -1;
	if (!n->mem_bytes)
		return fail(ps, ps->line, "node %d has no memory; add mem=SIZE (e.g. mem=512M)", id);
	if (n->cpu_first >= 0 && n->initiator >= 0)
		return fail(ps, ps->line, "node %d has CPUs and an initiator; initiator= is only for CPU-less nodes", id);
	return 0;
}

static int st_distance(struct parse *ps, char **w, int nw)
{
	struct topology *t = ps->topo;
	int row;

	if (nw < 2 || parse_int(w[1], 0, TOPO_MAX_NODES - 1, &row) || row >= t->nr_nodes)
		return fail(ps, ps->line, "distance needs a declared node id first: distance ID D0 D1 ... (declare nodes before distances)");
	if (ps->dist_line[row])
		return fail(ps, ps->line, "distance row %d given twice (first at line %d)", row, ps->dist_line[row]);
	if (nw - 2 != t->nr_nodes)
		return fail(ps, ps->line, "distance row %d has %d values; it needs one per node (%d)",
			    row, nw - 2, t->nr_nodes);
	for (int col = 0; col < t->nr_nodes; col++) {
		int d;

		if (parse_int(w[col + 2], 0, 100000, &d))
			return fail(ps, ps->line, "distance %d->%d '%s' is not a number", row, col, w[col + 2]);
		if (col == row && d != TOPO_DIST_LOCAL)
			return fail(ps, ps->line, "distance %d->%d is %d; a node's distance to itself must be %d",
				    row, col, d, TOPO_DIST_LOCAL);
		if (col != row && (d <= TOPO_DIST_LOCAL || d > TOPO_DIST_UNREACHABLE))
			return fail(ps, ps->line, "distance %d->%d is %d; remote distances must be 11..255 (255: unreachable)",
				    row, col, d);
		t->dist[row][col] = d;
	}
	ps->dist_line[row] = ps->line;
	return 0;
}

static int hmat_node(struct parse *ps, const char *s, const char *what, int *out)
{
	if (parse_int(s, 0, TOPO_MAX_NODES - 1, out) || *out >= ps->topo->nr_nodes)
		return fail(ps, ps->line, "%s '%s' is not a declared node; declare nodes before hmat lines", what, s);
	return 0;
}

static int st_hmat_lb(struct parse *ps, char **w, int nw)
{
	struct topology *t = ps->topo;
	struct topo_hmat_lb entry = { 0 }, *lb = &entry;   /* hmat_lb[] may be full: copied in at the end */

	if (nw < 3)
		return fail(ps, ps->line, "hmat-lb needs: hmat-lb INITIATOR TARGET latency=NS [bandwidth=SIZE]");
	if (hmat_node(ps, w[1], "initiator", &lb->initiator) || hmat_node(ps, w[2], "target", &lb->target))
		return -1;
	if (!topo_node_has_cpus(t, lb->initiator))
		return fail(ps, ps->line, "initiator %d has no CPUs; HMAT initiators must be nodes with CPUs", lb->initiator);
	if (topo_hmat_find(t, lb->initiator, lb->target))
		return fail(ps, ps->line, "hmat-lb %d %d given twice", lb->initiator, lb->target);
	for (int i = 3; i < nw; i++) {
		const char *v = kv_split(w[i]);

		if (v && !strcmp(w[i], "latency") && !parse_u64(v, &lb->latency_ns) && lb->latency_ns)
			continue;
		if (v && !strcmp(w[i], "bandwidth") && !parse_size(v, &lb->bandwidth_bps))
			continue;
		return fail(ps, ps->line, "bad hmat-lb attribute '%s%s%s'; use latency=NS (ns, > 0) and bandwidth=SIZE (bytes/s, e.g. 8G)",
			    w[i], v ? "=" : "", v ? v : "");
	}
	if (!lb->latency_ns)
		return fail(ps, ps->line, "hmat-lb %d %d needs latency= (bandwidth= may be left out for a target "
			    "with no hmat-cache)", lb->initiator, lb->target);
	t->hmat_lb[t->nr_hmat_lb++] = entry;
	if (!ps->hmat_line)
		ps->hmat_line = ps->line;
	return 0;
}

static int cache_attr(struct parse *ps, struct topo_hmat_cache *c, char *word)
{
	const char *v = kv_split(word);
	uint64_t n;

	if (v && !strcmp(word, "size") && !parse_size(v, &c->size_bytes))
		return 0;
	if (v && !strcmp(word, "level") && !parse_int(v, 1, 3, &c->level))
		return 0;
	if (v && !strcmp(word, "line") && !parse_u64(v, &n) && n && n <= 4096) {
		c->line_bytes = (unsigned)n;
		return 0;
	}
	if (v && !strcmp(word, "policy") && (!strcmp(v, "write-back") || !strcmp(v, "write-through"))) {
		c->write_back = !strcmp(v, "write-back");
		return 0;
	}
	if (v && !strcmp(word, "assoc") && (!strcmp(v, "direct") || !strcmp(v, "complex"))) {
		c->direct_mapped = !strcmp(v, "direct");
		return 0;
	}
	return fail(ps, ps->line, "bad hmat-cache attribute '%s%s%s'; use size=SIZE level=1..3 line=BYTES policy=write-back|write-through assoc=direct|complex",
		    word, v ? "=" : "", v ? v : "");
}

static int st_hmat_cache(struct parse *ps, char **w, int nw)
{
	struct topology *t = ps->topo;
	struct topo_hmat_cache *c;

	if (t->nr_hmat_cache == TOPO_MAX_CACHES)
		return fail(ps, ps->line, "too many hmat-cache lines (at most %d)", TOPO_MAX_CACHES);
	if (nw < 2)
		return fail(ps, ps->line, "hmat-cache needs a node: hmat-cache NODE size=SIZE level=1 line=64 ...");
	c = &t->hmat_cache[t->nr_hmat_cache];
	if (hmat_node(ps, w[1], "node", &c->node))
		return -1;
	c->level = 1;
	c->line_bytes = 64;
	c->write_back = 1;
	c->direct_mapped = 1;
	for (int i = 2; i < nw; i++)
		if (cache_attr(ps, c, w[i]))
			return -1;
	if (!c->size_bytes)
		return fail(ps, ps->line, "hmat-cache %d needs size=SIZE", c->node);
	t->nr_hmat_cache++;
	if (!ps->hmat_line)
		ps->hmat_line = ps->line;
	return 0;
}

static int st_arch(struct parse *ps, char **w, int nw)
{
	struct topology *t = ps->topo;

	if (ps->arch_line)
		return fail(ps, ps->line, "arch given twice (first at line %d); give it once, first", ps->arch_line);
	if (nw != 2)
		return fail(ps, ps->line, "arch takes one value: x86_64 or loongarch64");
	if (!strcmp(w[1], "x86_64"))
		t->arch = TOPO_ARCH_X86_64;
	else if (!strcmp(w[1], "loongarch64"))
		t->arch = TOPO_ARCH_LOONGARCH64;
	else
		return fail(ps, ps->line, "unknown arch '%s'; use x86_64 or loongarch64", w[1]);
	if (!t->machine[0])
		snprintf(t->machine, sizeof(t->machine), "%s", t->arch == TOPO_ARCH_X86_64 ? "q35" : "virt");
	ps->arch_line = ps->line;
	return 0;
}

static int st_scalar(struct parse *ps, char **w, int nw)
{
	struct topology *t = ps->topo;
	const char *k = w[0];

	if (nw != 2)
		return fail(ps, ps->line, "%s takes exactly one value", k);
	if (!strcmp(k, "machine")) {
		if (strlen(w[1]) >= sizeof(t->machine))
			return fail(ps, ps->line, "machine name '%s' is too long", w[1]);
		strncpy(t->machine, w[1], sizeof(t->machine));
	} else if (!strcmp(k, "memory")) {
		if (parse_size(w[1], &ps->memory_total))
			return fail(ps, ps->line, "bad memory '%s'; write a size like 2G", w[1]);
		ps->memory_line = ps->line;
	} else if (!strcmp(k, "page-size") || !strcmp(k, "pmd-size")) {
		uint64_t *dst = k[1] == 'a' ? &t->page_size : &t->pmd_size;

		if (parse_size(w[1], dst) || (*dst & (*dst - 1)))
			return fail(ps, ps->line, "bad %s '%s'; write a power of two like 16K or 32M", k, w[1]);
	} else if (!strcmp(k, "timeout")) {
		if (parse_int(w[1], 1, 86400, &t->timeout_s))
			return fail(ps, ps->line, "bad timeout '%s'; give seconds, 1..86400", w[1]);
	} else {
		if (strlen(w[1]) >= sizeof(t->tests))
			return fail(ps, ps->line, "tests list is too long");
		/* strncpy: a later `tests` leaves nothing of an earlier one behind its NUL. */
		strncpy(t->tests, w[1], sizeof(t->tests));
	}
	return 0;
}

static int statement(struct parse *ps, char **w, int nw)
{
	static const char *const scalars[] = {
		"machine", "memory", "page-size", "pmd-size", "timeout", "tests",
	};

	if (!strcmp(w[0], "arch"))
		return st_arch(ps, w, nw);
	if (!ps->arch_line)
		return fail(ps, ps->line, "'%s' before arch; the first statement must be `arch x86_64` or `arch loongarch64`", w[0]);
	if (!strcmp(w[0], "node"))
		return st_node(ps, w, nw);
	if (!strcmp(w[0], "distance"))
		return st_distance(ps, w, nw);
	if (!strcmp(w[0], "hmat-lb"))
		return st_hmat_lb(ps, w, nw);
	if (!strcmp(w[0], "hmat-cache"))
		return st_hmat_cache(ps, w, nw);
	if (!strcmp(w[0], "mem-tolerance"))
		return fail(ps, ps->line, "mem-tolerance is gone: the topology test checks each node's "
			    "memory exactly against the firmware's SRAT; delete this line");
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (!strcmp(w[0], scalars[i]))
			return st_scalar(ps, w, nw);
	return fail(ps, ps->line, "unknown statement '%s'; see docs/topology.md for the keys", w[0]);
}

static int check_distances(struct parse *ps, int last_line)
{
	struct topology *t = ps->topo;

	if (t->nr_nodes == 1) {
		t->dist[0][0] = TOPO_DIST_LOCAL;
		return 0;
	}
	for (int i = 0; i < t->nr_nodes; i++)
		if (!ps->dist_line[i])
			return fail(ps, last_line, "distance row %d is missing; give one `distance ID ...` row per node", i);
	for (int i = 0; i < t->nr_nodes; i++)
		for (int j = 0; j < i; j++)
			if (t->dist[i][j] != t->dist[j][i])
				return fail(ps, ps->dist_line[i], "distance %d->%d is %d but %d->%d is %d (line %d); the matrix must be symmetric",
					    i, j, t->dist[i][j], j, i, t->dist[j][i], ps->dist_line[j]);
	return 0;
}

static int check_hmat(struct parse *ps)
{
	struct topology *t = ps->topo;
	int cpuless = 0;

	for (int i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		if (n->cpu_first >= 0)
			continue;
		cpuless++;
		if (ps->hmat_line && n->initiator < 0)
			return fail(ps, n->line, "CPU-less node %d needs initiator=N (a node with CPUs) for HMAT", i);
		if (n->initiator >= 0 && (n->initiator >= t->nr_nodes || !topo_node_has_cpus(t, n->initiator)))
			return fail(ps, n->line, "node %d: initiator=%d must be a declared node with CPUs", i, n->initiator);
	}
	if (!ps->hmat_line)
		return 0;
	if (!cpuless)
		return fail(ps, ps->hmat_line, "HMAT given but every node has CPUs; HMAT is for shapes with CPU-less memory nodes (remove the hmat lines or add one)");
	for (int i = 0; i < t->nr_nodes; i++)
		for (int j = 0; topo_node_has_cpus(t, i) && j < t->nr_nodes; j++)
			if (!topo_hmat_find(t, i, j))
				return fail(ps, ps->hmat_line, "hmat-lb %d %d is missing; every initiator x target pair needs a latency", i, j);
	/*
	 * A target's bandwidth is given from every initiator or from none (firmware
	 * with latencies only); QEMU refuses a memory-side cache on a target without it.
	 */
	for (int j = 0; j < t->nr_nodes; j++) {
		int with = 0, without = 0, first = -1;

		for (int k = 0; k < t->nr_hmat_lb; k++) {
			if (t->hmat_lb[k].target != j)
				continue;
			if (t->hmat_lb[k].bandwidth_bps)
				with++;
			else if (without++ == 0)
				first = t->hmat_lb[k].initiator;
		}
		if (with && without)
			return fail(ps, ps->hmat_line, "hmat-lb %d %d has no bandwidth= but other initiators' lines to node %d do; "
				    "give target %d's bandwidth from every initiator or from none", first, j, j, j);
		for (int k = 0; without && k < t->nr_hmat_cache; k++)
			if (t->hmat_cache[k].node == j)
				return fail(ps, ps->hmat_line, "node %d has an hmat-cache but no hmat-lb bandwidth; give it "
					    "bandwidth= or remove the cache", j);
	}
	return 0;
}

static int check_whole(struct parse *ps, int last_line)
{
	struct topology *t = ps->topo;

	if (!ps->arch_line)
		return fail(ps, last_line, "no arch; the first statement must be `arch x86_64` or `arch loongarch64`");
	if (!t->nr_nodes)
		return fail(ps, last_line, "no nodes; declare at least `node 0 cpus=0 mem=512M`");
	if (!topo_nr_cpus(t))
		return fail(ps, t->nodes[0].line, "no node has CPUs; give at least one node cpus=");
	if (ps->memory_line && ps->memory_total != topo_mem_bytes(t))
		return fail(ps, ps->memory_line, "memory is %llu MiB but the nodes add up to %llu MiB; make them agree",
			    (unsigned long long)(ps->memory_total >> 20),
			    (unsigned long long)(topo_mem_bytes(t) >> 20));
	if (check_distances(ps, last_line))
		return -1;
	return check_hmat(ps);
}

static void set_name(struct topology *t, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".topo"))
		len -= 5;
	if (len >= sizeof(t->name))
		len = sizeof(t->name) - 1;
	memcpy(t->name, base, len);
	t->name[len] = '\0';
	snprintf(t->path, sizeof(t->path), "%s", path);
}

/*
 * The comment lines before the first statement (blank lines among them
 * allowed), each without its '#' and one blank after it, joined by '\n',
 * empty ones at either end left out: the shape's description.  Cut at
 * TOPO_DESCRIPTION_MAX.
 */
static void read_description(struct topology *t, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	size_t used = 0, cap = sizeof(t->description);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
		size_t n;

		eol = eol ? eol : end;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < eol && *q != '#')
			break;
		if (q < eol) {
			q += 1 + (q + 1 < eol && q[1] == ' ');
			n = (size_t)(eol - q);
			while (n && (q[n - 1] == ' ' || q[n - 1] == '\t' || q[n - 1] == '\r'))
				n--;
			if (memchr(q, '\0', n))
				break;
			if (used && used + 1 < cap)
				t->description[used++] = '\n';
			if (n > cap - 1 - used)
				n = cap - 1 - used;
			memcpy(t->description + used, q, n);
			used += n;
		}
		p = eol + 1;
	}
	/* Empty comment lines after it are not part of it, nor blanks a cut leaves at its end. */
	while (used && strchr("\n \t\r", t->description[used - 1]))
		t->description[--used] = '\0';
	t->description[used] = '\0';
}

int topo_parse(const char *path, const char *buf, size_t len,
	       struct topology *topo, struct topo_error *err)
{
	struct parse ps = { .path = path, .topo = topo, .err = err };
	struct lines l;
	char *line, *w[LINES_MAX_WORDS];
	int rc, nw = 0;

	memset(topo, 0, sizeof(*topo));
	set_name(topo, path);
	topo->timeout_s = 600;
	snprintf(topo->tests, sizeof(topo->tests), "topology");
	read_description(topo, buf, len);
	lines_init(&l, path, buf, len);
	while ((rc = lines_next(&l, &line)) > 0 && (nw = lines_words(&l, line, w)) > 0) {
		ps.line = l.nr;
		if (statement(&ps, w, nw))
			return -1;
	}
	if (rc < 0 || nw < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s", l.msg);
		return -1;
	}
	return check_whole(&ps, l.nr);
}

int topo_load(const char *path, struct topology *topo, struct topo_error *err)
{
	char *buf;
	long size;
	FILE *f = fopen(path, "rb");
	int rc;

	if (!f) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || size > (1 << 20) || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		snprintf(err->msg, sizeof(err->msg), "%s: cannot read (or larger than 1 MiB)", path);
		return -1;
	}
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		fclose(f);
		snprintf(err->msg, sizeof(err->msg), "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	fclose(f);
	rc = topo_parse(path, buf, (size_t)size, topo, err);
	free(buf);
	return rc;
}

int topo_node_has_cpus(const struct topology *topo, int node)
{
	return node >= 0 && node < topo->nr_nodes && topo->nodes[node].cpu_first >= 0;
}

int topo_nr_cpus(const struct topology *topo)
{
	int n = 0;

	for (int i = 0; i < topo->nr_nodes; i++)
		if (topo_node_has_cpus(topo, i))
			n += topo->nodes[i].cpu_last - topo->nodes[i].cpu_first + 1;
	return n;
}

int topo_nr_cpu_nodes(const struct topology *topo)
{
	int n = 0;

	for (int i = 0; i < topo->nr_nodes; i++)
		n += topo_node_has_cpus(topo, i);
	return n;
}

uint64_t topo_mem_bytes(const struct topology *topo)
{
	uint64_t sum = 0;

	for (int i = 0; i < topo->nr_nodes; i++)
		sum += topo->nodes[i].mem_bytes;
	return sum;
}

int topo_has_hmat(const struct topology *topo)
{
	return topo->nr_hmat_lb > 0 || topo->nr_hmat_cache > 0;
}

int topo_cpu_node(const struct topology *topo, int cpu)
{
	for (int i = 0; i < topo->nr_nodes; i++)
		if (topo_node_has_cpus(topo, i) && cpu >= topo->nodes[i].cpu_first &&
		    cpu <= topo->nodes[i].cpu_last)
			return i;
	return -1;
}

const struct topo_hmat_lb *topo_hmat_find(const struct topology *topo, int initiator, int target)
{
	for (int i = 0; i < topo->nr_hmat_lb; i++)
		if (topo->hmat_lb[i].initiator == initiator && topo->hmat_lb[i].target == target)
			return &topo->hmat_lb[i];
	return NULL;
}

const char *topo_arch_name(enum topo_arch arch)
{
	return arch == TOPO_ARCH_X86_64 ? "x86_64" : "loongarch64";
}

void topo_size_str(uint64_t bytes, char *out, size_t cap)
{
	static const char units[] = "TGMK";
	int shift = 40;

	for (const char *u = units; *u; u++, shift -= 10)
		if (bytes && !(bytes & ((UINT64_C(1) << shift) - 1))) {
			snprintf(out, cap, "%llu%c", (unsigned long long)(bytes >> shift), *u);
			return;
		}
	snprintf(out, cap, "%llu", (unsigned long long)bytes);
}

/* Text appended to a caller's buffer, counting what does not fit. */
struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL, o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* The description as comment lines, as it was read: written and read back, it is the same. */
static void put_description(struct out *o, const char *d)
{
	while (*d) {
		const char *eol = strchr(d, '\n');
		int n = eol ? (int)(eol - d) : (int)strlen(d);

		put(o, n ? "# %.*s\n" : "#\n", n, d);
		d += n + (eol != NULL);
	}
}

size_t topo_format(const struct topology *t, char *buf, size_t cap)
{
	struct out o = { buf, cap, 0 };
	char size[32];

	if (cap)
		buf[0] = '\0';
	put_description(&o, t->description);
	put(&o, "arch %s\n", topo_arch_name(t->arch));
	if (strcmp(t->machine, t->arch == TOPO_ARCH_X86_64 ? "q35" : "virt"))
		put(&o, "machine %s\n", t->machine);
	topo_size_str(topo_mem_bytes(t), size, sizeof(size));
	put(&o, "memory %s\n", size);
	for (int i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		put(&o, "node %d", i);
		if (n->cpu_first >= 0 && n->cpu_first == n->cpu_last)
			put(&o, " cpus=%d", n->cpu_first);
		else if (n->cpu_first >= 0)
			put(&o, " cpus=%d-%d", n->cpu_first, n->cpu_last);
		topo_size_str(n->mem_bytes, size, sizeof(size));
		put(&o, " mem=%s", size);
		if (n->initiator >= 0)
			put(&o, " initiator=%d", n->initiator);
		put(&o, "\n");
	}
	for (int i = 0; t->nr_nodes > 1 && i < t->nr_nodes; i++) {
		put(&o, "distance %d", i);
		for (int j = 0; j < t->nr_nodes; j++)
			put(&o, " %d", t->dist[i][j]);
		put(&o, "\n");
	}
	for (int i = 0; i < t->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &t->hmat_lb[i];

		put(&o, "hmat-lb %d %d latency=%llu", lb->initiator, lb->target, (unsigned long long)lb->latency_ns);
		if (lb->bandwidth_bps) {
			topo_size_str(lb->bandwidth_bps, size, sizeof(size));
			put(&o, " bandwidth=%s", size);
		}
		put(&o, "\n");
	}
	for (int i = 0; i < t->nr_hmat_cache; i++) {
		const struct topo_hmat_cache *c = &t->hmat_cache[i];

		topo_size_str(c->size_bytes, size, sizeof(size));
		put(&o, "hmat-cache %d size=%s level=%d line=%u policy=%s assoc=%s\n", c->node, size, c->level,
		    c->line_bytes, c->write_back ? "write-back" : "write-through",
		    c->direct_mapped ? "direct" : "complex");
	}
	if (t->page_size) {
		topo_size_str(t->page_size, size, sizeof(size));
		put(&o, "page-size %s\n", size);
	}
	if (t->pmd_size) {
		topo_size_str(t->pmd_size, size, sizeof(size));
		put(&o, "pmd-size %s\n", size);
	}
	if (t->timeout_s != 600)
		put(&o, "timeout %d\n", t->timeout_s);
	if (strcmp(t->tests, "topology"))
		put(&o, "tests %s\n", t->tests);
	return o.len;
}

/* mm/memory-tiers.c: MEMTIER_ADISTANCE_DRAM and MEMTIER_CHUNK_BITS. */
#define ADISTANCE_DRAM 576ULL
#define CHUNK_BITS 7

/* mt_set_default_dram_perf(): x differs from the reference by more than 10%. */
static int off_by_more_than_10pct(unsigned long long x, unsigned long long ref)
{
	return (x > ref ? x - ref : ref - x) * 10 > ref;
}

int topo_memory_tier(const struct topology *t, int node)
{
	const struct topo_hmat_lb *dram = NULL, *lb;
	unsigned long long adist;

	for (int i = 0; i < t->nr_nodes && !dram; i++)
		if (topo_node_has_cpus(t, i))
			dram = topo_hmat_find(t, i, i);
	if (!dram || node < 0 || node >= t->nr_nodes)
		return -1;
	if (topo_node_has_cpus(t, node))
		return (int)(ADISTANCE_DRAM >> CHUNK_BITS);
	/* DRAM nodes that disagree: the kernel drops the HMAT-based distances. */
	for (int i = 0; i < t->nr_nodes; i++) {
		const struct topo_hmat_lb *other = topo_node_has_cpus(t, i) ? topo_hmat_find(t, i, i) : NULL;

		if (other && (off_by_more_than_10pct(other->latency_ns, dram->latency_ns) ||
			      off_by_more_than_10pct(other->bandwidth_bps >> 20, dram->bandwidth_bps >> 20)))
			return (int)(ADISTANCE_DRAM >> CHUNK_BITS);
	}
	lb = topo_hmat_find(t, t->nodes[node].initiator, node);
	if (!lb)
		return -1;
	if (!(lb->bandwidth_bps >> 20))
		return (int)(ADISTANCE_DRAM >> CHUNK_BITS);
	/* In sysfs's units (ns, MiB/s) and the kernel's order of integer operations. */
	adist = ADISTANCE_DRAM * lb->latency_ns / dram->latency_ns * (dram->bandwidth_bps >> 20) /
		(lb->bandwidth_bps >> 20);
	return (int)(adist >> CHUNK_BITS);
}
