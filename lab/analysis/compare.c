#include "analysis/compare.h"
#include "analysis/stats.h"
#include "results/meta.h"
#include "results/results.h"
#include "results/tap.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_SEP '\x1f'         /* between key parts: sanitised TAP has no control bytes */
#define MAX_DEPTH 8            /* how deep below a root cells are looked for */
#define NAME_MAX_LEN 160       /* longer guest names are cut */

enum obs_kind { OBS_STATUS, OBS_METRIC, OBS_FACT };

struct cmp_obs {
	char *key;                 /* topology SEP suite SEP test [SEP metric or fact] */
	enum obs_kind kind;
	double value;
	enum cmp_status status;
	char *why;
	char *text;                /* a fact's value; a failure's diagnostic lines; or NULL */
};

void cmp_options_default(struct cmp_options *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold_pct = 5;
	o->alpha = 0.05;
	o->iterations = 10000;
	o->seed = 1;
}

/* ---- meta ---- */

/* "guest: nodes_online", "guest: nodeN.cpus" and "guest: nodeN.distance", joined. */
static char *meta_shape(const char *meta)
{
	struct buf b = BUF_INIT;
	const char *v;
	size_t len;
	char *out;

	while ((v = meta_next(&meta, META_GUEST, &len))) {
		int n = 0;

		if (strncmp(v, "nodes_online: ", 14) &&
		    !(sscanf(v, "node%*u.cpus: %n", &n), n) &&
		    !(sscanf(v, "node%*u.distance: %n", &n), n))
			continue;
		buf_addf(&b, "%s%.*s", b.len ? "; " : "", (int)len, v);
	}
	out = xstrdup(b.len ? buf_str(&b) : "(not recorded)");
	buf_free(&b);
	return out;
}

static int load_meta(const char *dir, struct cmp_cell *cell, struct error *err)
{
	struct buf meta = BUF_INIT;
	char *path, *topo, *accel, state[64];

	if (meta_read(dir, &meta, err))
		return -1;
	topo = meta_get(buf_str(&meta), META_TOPOLOGY);
	if (!topo || !topo[0]) {
		free(topo);
		buf_free(&meta);
		return error_input(err, "%s/" META_FILE ":1: no '" META_TOPOLOGY ":' line: not a numalab result cell", dir);
	}
	topo[strcspn(topo, " ")] = '\0';
	cell->topology = topo;
	cell->kernel = meta_get(buf_str(&meta), META_KERNEL);
	cell->qemu = meta_get(buf_str(&meta), META_QEMU);
	accel = meta_get(buf_str(&meta), META_ACCEL);
	if (accel)
		accel[strcspn(accel, ": ")] = '\0';
	cell->accel = accel;
	cell->host_numa = meta_get(buf_str(&meta), META_HOST_NUMA);
	if (cell->host_numa && !strcmp(cell->host_numa, "none")) {
		free(cell->host_numa);
		cell->host_numa = NULL;
	}
	/* Runs from before the libvirt backend have no backend key: they are QEMU runs. */
	cell->backend = meta_get(buf_str(&meta), META_BACKEND);
	if (!cell->backend)
		cell->backend = xstrdup("qemu");
	cell->shape = meta_shape(buf_str(&meta));
	cell->cmdline = meta_guest(buf_str(&meta), "cmdline");
	buf_free(&meta);
	/* A cell of a run directory has the run's state file one level up. */
	path = xprintf("%s/..", dir);
	if (!run_state_get(path, state, sizeof(state), err))
		cell->run_state = xstrdup(state);
	free(path);
	return 0;
}

/* ---- TAP ---- */

#define DETAIL_MAX_LINES 12        /* diagnostic lines kept per failure: its last ones */

struct cmp_walk {
	struct cmp_side *side;
	const char *topology;
	struct strvec seen;               /* test names of this suite, for duplicates */
	const char *suite, *test;         /* the result whose YAML metrics are being added */
};

/* Append a key part, KEY_SEP made '?' (it never comes from sanitised TAP; meta is not). */
static void key_part(struct buf *key, const char *part, int last)
{
	size_t start = key->len;

	buf_addf(key, "%.*s", NAME_MAX_LEN, part);
	for (size_t i = start; i < key->len; i++)
		if (key->data[i] == KEY_SEP)
			key->data[i] = '?';
	if (!last)
		buf_add(key, (char[]){ KEY_SEP }, 1);
}

static struct cmp_obs *add_obs(struct cmp_walk *w, const char *suite, const char *test,
				const char *metric, enum obs_kind kind, double value,
				enum cmp_status status, const char *why)
{
	struct cmp_side *s = w->side;
	struct buf key = BUF_INIT;
	struct cmp_obs *o;

	if (s->nr_obs == s->alloc_obs) {
		s->alloc_obs = s->alloc_obs ? 2 * s->alloc_obs : 256;
		s->obs = xrealloc(s->obs, s->alloc_obs * sizeof(*s->obs));
	}
	o = &s->obs[s->nr_obs++];
	memset(o, 0, sizeof(*o));
	key_part(&key, w->topology, 0);
	key_part(&key, suite, 0);
	key_part(&key, test, !metric);
	if (metric)
		key_part(&key, metric, 1);
	o->key = xstrdup(buf_str(&key));
	buf_free(&key);
	o->kind = kind;
	o->value = value;
	o->status = status;
	o->why = why && *why ? xstrdup(why) : NULL;
	return o;
}

/* A finite number making up all of s (trailing blanks allowed). */
static int parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || errno || !isfinite(*out))
		return -1;
	end += strspn(end, " ");
	return *end ? -1 : 0;
}

/* " [2]" after the second test of a suite with the same name, and so on. */
static void dedupe(struct cmp_walk *w, char *name, size_t size)
{
	int times = 1;

	for (size_t i = 0; i < w->seen.nr; i++)
		times += !strcmp(w->seen.items[i], name);
	strvec_push(&w->seen, name);
	if (times > 1)
		snprintf(name + strlen(name), size - strlen(name), " [%d]", times);
}

int cmp_metric_value(const char *s, char *name, size_t cap, double *v)
{
	char word[NAME_MAX_LEN + 1], value[64];
	int n = 0;

	if (sscanf(s, "# metric: %160s %63s %n", word, value, &n) < 2 || (n && s[n] && s[n] != '(') ||
	    parse_number(value, v))
		return 0;
	snprintf(name, cap, "%s", word);
	return 1;
}

/*
 * "# metric: NAME NUMBER [(comment)]" is a metric; "# metric: NAME WORDS"
 * ("0-3 -> 0") is a fact, behaviour that is not a number: its WORDS up to
 * a "(" comment are compared as text.
 */
static void metric_line(struct cmp_walk *w, const char *suite, const char *s)
{
	char name[NAME_MAX_LEN + 1];
	int start = 0;
	double v;

	if (sscanf(s, "# metric: %160s %n", name, &start) < 1 || !start || !s[start])
		return;
	if (cmp_metric_value(s, name, sizeof(name), &v)) {
		add_obs(w, suite, "", name, OBS_METRIC, v, CMP_PASS, NULL);
	} else {
		size_t len = strcspn(s + start, "(");

		while (len && s[start + len - 1] == ' ')
			len--;
		add_obs(w, suite, "", name, OBS_FACT, 0, CMP_PASS, NULL)->text =
			xprintf("%.*s", (int)len, s + start);
	}
}

/* "key: NUMBER" or "key: {a: N, b: M}": a top-level line of a YAML block. */
static void yaml_line(const char *s, void (*fn)(void *ctx, const char *name, double v), void *ctx)
{
	const char *colon = strstr(s, ": ");
	char key[NAME_MAX_LEN + 1], *map, *save, *item;
	double v;

	if (!colon || colon == s)
		return;
	snprintf(key, sizeof(key), "%.*s", (int)(colon - s), s);
	s = colon + 2;
	if (*s != '{') {
		if (!parse_number(s, &v))
			fn(ctx, key, v);
		return;
	}
	map = xstrdup(s + 1);
	map[strcspn(map, "}")] = '\0';
	for (item = strtok_r(map, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		const char *sub = item + strspn(item, " "), *c = strstr(sub, ": ");
		char *name;

		if (!c || c == sub || parse_number(c + 2, &v))
			continue;
		name = xprintf("%s.%.*s", key, (int)(c - sub), sub);
		fn(ctx, name, v);
		free(name);
	}
	free(map);
}

void cmp_yaml_metrics(const char *yaml, void (*fn)(void *ctx, const char *name, double v), void *ctx)
{
	/* Only the block's top-level keys: deeper lines belong to a key's own value. */
	for (const char *l = yaml ? yaml : ""; *l; l = next_line(l)) {
		char *line = xprintf("%.*s", (int)strcspn(l, "\n"), l);

		if (line[0] != ' ')
			yaml_line(line, fn, ctx);
		free(line);
	}
}

static enum cmp_status cmp_status_of(enum tap_status s)
{
	if (s == TAP_OK)
		return CMP_PASS;
	return s == TAP_SKIP || s == TAP_TODO ? CMP_SKIP : CMP_FAIL;
}

/* What a failing result said about itself (tap.h's own diagnostics, not metrics), its last lines. */
static char *failure_detail(const struct tap_node *n)
{
	struct strvec lines = STRVEC_INIT;
	struct buf b = BUF_INIT;
	size_t first;
	char *s = NULL;

	if (cmp_status_of(n->t->status) != CMP_FAIL)
		return NULL;
	for (const char *l = n->diags; *l; l = next_line(l)) {
		size_t len = strcspn(l, "\n");

		if (strncmp(l, "# ", 2) || !strncmp(l, "# metric:", 9) || !strncmp(l, "# totals:", 9))
			continue;
		s = xprintf("%.*s", (int)len - 2, l + 2);
		strvec_push(&lines, s);
		free(s);
	}
	s = NULL;
	first = lines.nr > DETAIL_MAX_LINES ? lines.nr - DETAIL_MAX_LINES : 0;
	for (size_t i = first; i < lines.nr; i++)
		buf_addf(&b, "%s%s", i > first ? "\n" : "", lines.items[i]);
	if (lines.nr)
		s = xstrdup(buf_str(&b));
	strvec_clear(&lines);
	buf_free(&b);
	return s;
}

/* A failure's reason (tap_reason(): what it said first, else /init's "exit 2"); a skip's directive. */
static void result_why(const struct tap_node *n, char *why, size_t cap)
{
	if (cmp_status_of(n->t->status) == CMP_FAIL)
		tap_reason(n, why, cap);
	else
		snprintf(why, cap, "%s", n->comment);
}

static void add_yaml_metric(void *ctx, const char *name, double v)
{
	struct cmp_walk *w = ctx;

	add_obs(w, w->suite, w->test, name, OBS_METRIC, v, CMP_PASS, NULL);
}

/* A suite's result (depth 0), or a test of a named suite (depth 1) with its YAML. */
static void on_result(void *ctx, const struct tap_node *n)
{
	struct cmp_walk *w = ctx;
	char name[NAME_MAX_LEN + 16], why[TAP_LINE_MAX + 1];
	struct cmp_obs *o;

	result_why(n, why, sizeof(why));
	if (n->depth == 0) {
		o = add_obs(w, n->t->name, "", NULL, OBS_STATUS, 0, cmp_status_of(n->t->status), why);
		o->text = failure_detail(n);
		return;
	}
	if (n->depth != 1 || !n->suites[0][0])
		return;
	snprintf(name, sizeof(name), "%s", n->t->name);
	dedupe(w, name, sizeof(name));
	o = add_obs(w, n->suites[0], name, NULL, OBS_STATUS, 0, cmp_status_of(n->t->status), why);
	o->text = failure_detail(n);
	w->suite = n->suites[0];
	w->test = name;
	cmp_yaml_metrics(n->yaml, add_yaml_metric, w);
}

static void on_suite(void *ctx, const struct tap_node *n)
{
	struct cmp_walk *w = ctx;

	if (n->depth == 0)
		strvec_clear(&w->seen);
}

/* Metrics and facts of a suite. */
static void on_diag(void *ctx, const struct tap_node *n)
{
	struct cmp_walk *w = ctx;

	if (n->depth == 1 && n->suites[0][0])
		metric_line(w, n->suites[0], n->text);
}

static const struct tap_walk_ops cmp_ops = {
	.on_suite = on_suite,
	.on_suite_end = on_result,
	.on_test = on_result,
	.on_diag = on_diag,
};

static int load_tap(const char *dir, struct cmp_side *side, struct error *err)
{
	struct cmp_walk w = { .side = side, .topology = side->cells[side->nr_cells - 1].topology };
	struct buf tap = BUF_INIT;
	char *path = xprintf("%s/" RESULTS_TAP_FILE, dir);
	int rc = read_file(path, &tap, err);

	free(path);
	if (!rc)
		tap_walk(tap.data ? tap.data : "", tap.len, &cmp_ops, &w);
	strvec_clear(&w.seen);
	buf_free(&tap);
	return rc;
}

/* ---- the walk ---- */

static int is_file(const char *dir, const char *name)
{
	char *path = xprintf("%s/%s", dir, name);
	struct stat st;
	int yes = !lstat(path, &st) && S_ISREG(st.st_mode);

	free(path);
	return yes;
}

static void free_cell(struct cmp_cell *cell)
{
	free(cell->dir);
	free(cell->topology);
	free(cell->kernel);
	free(cell->cmdline);
	free(cell->backend);
	free(cell->qemu);
	free(cell->accel);
	free(cell->host_numa);
	free(cell->shape);
	free(cell->run_state);
}

/* "debian 7.2.13-1" is kernel "debian". */
static int kernel_is(const char *kernel, const char *name)
{
	size_t len = strlen(name);

	return kernel && !strncmp(kernel, name, len) && (kernel[len] == ' ' || !kernel[len]);
}

/*
 * A cell of a run that did not complete (interrupted, or a matrix's attempt
 * set aside) is no repetition: it is skipped, and the reports say so.
 */
static int load_cell(const char *dir, struct cmp_side *side, struct error *err)
{
	struct cmp_cell cell = { .dir = xstrdup(dir) };

	if (load_meta(dir, &cell, err)) {
		free_cell(&cell);
		return -1;
	}
	/* Filtered out first: a skipped cell noted is one the side would have had. */
	if ((side->only_kernel && !kernel_is(cell.kernel, side->only_kernel)) ||
	    (side->only_cells && fnmatch(side->only_cells, dir + strlen(side->root) + 1, 0))) {
		free_cell(&cell);
		return 0;
	}
	if (cell.run_state && strcmp(cell.run_state, RUN_STATE_COMPLETE)) {
		strvec_pushf(&side->skipped, "%s (run state '%s')", dir, cell.run_state);
		free_cell(&cell);
		return 0;
	}
	side->cells = xrealloc(side->cells, (side->nr_cells + 1) * sizeof(*side->cells));
	side->cells[side->nr_cells++] = cell;
	return load_tap(dir, side, err);
}

static int walk(const char *dir, int depth, struct cmp_side *side, struct error *err)
{
	struct dirent **names;
	int n, rc = 0;

	if (is_file(dir, RESULTS_TAP_FILE) && is_file(dir, META_FILE))
		return load_cell(dir, side, err);
	if (depth >= MAX_DEPTH)
		return 0;
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return error_input(err, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *path = xprintf("%s/%s", dir, names[i]->d_name);
		struct stat st;

		if (!rc && names[i]->d_name[0] != '.' && !lstat(path, &st) && S_ISDIR(st.st_mode))
			rc = walk(path, depth + 1, side, err);
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Load every cell below root that passes filter into side; -1 with err (bad input). */
static int compare_load(const char *root, const struct cmp_filter *filter, struct cmp_side *side,
			struct error *err)
{
	struct stat st;

	side->root = xstrdup(root);
	side->only_kernel = filter->kernel ? xstrdup(filter->kernel) : NULL;
	side->only_cells = filter->cells ? xstrdup(filter->cells) : NULL;
	/* "DIR/" and "DIR" name the same tree: cell paths read DIR/cell either way. */
	for (size_t len = strlen(side->root); len > 1 && side->root[len - 1] == '/'; len--)
		side->root[len - 1] = '\0';
	if (stat(root, &st))
		return error_input(err, "%s: %s; give a run or matrix result directory", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return error_input(err, "%s: not a directory; give a run or matrix result directory", root);
	if (walk(side->root, 0, side, err))
		return -1;
	if (!side->nr_cells)
		return error_input(err, "%s: no result cells below it (directories with 'tap' and 'meta')%s%s%s%s%s; "
				   "give a run directory (results/RUN-ID) or a matrix output directory", root,
				   filter->kernel ? " with kernel " : "", filter->kernel ? filter->kernel : "",
				   filter->cells ? " matching " : "", filter->cells ? filter->cells : "",
				   side->skipped.nr ? ", but for cells of runs that did not complete" : "");
	return 0;
}

/* ---- may these sides be compared? ---- */

static const struct {
	const char *key;
	size_t off;
} checked_keys[] = {
	{ "backend", offsetof(struct cmp_cell, backend) },
	{ "qemu", offsetof(struct cmp_cell, qemu) },
	{ "accel", offsetof(struct cmp_cell, accel) },
	{ "host_numa", offsetof(struct cmp_cell, host_numa) },
	{ "guest: nodes_online/nodeN.cpus/nodeN.distance", offsetof(struct cmp_cell, shape) },
};

static const char *cell_field(const struct cmp_cell *c, size_t off)
{
	const char *v = *(char *const *)(const void *)((const char *)c + off);

	return v ? v : "(none)";
}

static int side_has(const struct cmp_side *s, const char *topology)
{
	for (size_t i = 0; i < s->nr_cells; i++)
		if (!strcmp(s->cells[i].topology, topology))
			return 1;
	return 0;
}

/* The first cell of topology on side s at or after *i, advancing *i; NULL at the end. */
static const struct cmp_cell *next_of(const struct cmp_side *s, const char *topology, size_t *i)
{
	for (; *i < s->nr_cells; (*i)++)
		if (!strcmp(s->cells[*i].topology, topology))
			return &s->cells[(*i)++];
	return NULL;
}

/* Every cell of topology (both sides) against the first one of A; differences into out. */
static void check_topology(const struct comparison *c, const char *topology, struct strvec *out)
{
	size_t first = 0;
	const struct cmp_cell *ref = next_of(&c->a, topology, &first);

	for (size_t k = 0; k < sizeof(checked_keys) / sizeof(checked_keys[0]); k++) {
		const char *want = cell_field(ref, checked_keys[k].off);

		for (int side = 0; side < 2; side++) {
			const struct cmp_side *s = side ? &c->b : &c->a;
			const struct cmp_cell *cell;
			size_t i = 0;

			while ((cell = next_of(s, topology, &i)))
				if (strcmp(cell_field(cell, checked_keys[k].off), want)) {
					strvec_pushf(out, "topology %s: meta '%s' differs: '%s' (A %s) vs '%s' (%s %s)",
						     topology, checked_keys[k].key, want, ref->dir,
						     cell_field(cell, checked_keys[k].off), side ? "B" : "A",
						     cell->dir);
					break;
				}
		}
	}
}

static void list_topologies(const struct cmp_side *s, struct buf *b)
{
	for (size_t i = 0; i < s->nr_cells; i++) {
		size_t j = 0;

		while (j < i && strcmp(s->cells[j].topology, s->cells[i].topology))
			j++;
		if (j == i)
			buf_addf(b, "%s%s", i ? ", " : "", s->cells[i].topology);
	}
}

static int check_comparable(struct comparison *c, struct error *err)
{
	struct strvec diffs = STRVEC_INIT;
	int common = 0;

	for (size_t i = 0; i < c->a.nr_cells; i++) {
		const char *t = c->a.cells[i].topology;
		size_t j = 0;

		while (j < i && strcmp(c->a.cells[j].topology, t))
			j++;
		if (j == i && side_has(&c->b, t)) {
			common++;
			check_topology(c, t, &diffs);
		}
	}
	if (!common) {
		struct buf a = BUF_INIT, b = BUF_INIT;

		list_topologies(&c->a, &a);
		list_topologies(&c->b, &b);
		strvec_pushf(&diffs, "meta 'topology' differs: no topology in common (A: %s; B: %s)",
			     buf_str(&a), buf_str(&b));
		buf_free(&a);
		buf_free(&b);
	}
	if (diffs.nr && !c->opts.force) {
		error_input(err, "refusing to compare: %s%s; rerun under the same conditions or pass --force",
			    diffs.items[0], diffs.nr > 1 ? " (and more)" : "");
		strvec_clear(&diffs);
		return -1;
	}
	for (size_t i = 0; i < diffs.nr; i++)
		strvec_pushf(&c->notes, "compared despite a difference (--force): %s", diffs.items[i]);
	strvec_clear(&diffs);
	return 0;
}

/* ---- notes every report carries ---- */

/* Distinct values of field over the cells of topology on both sides (side < 0) or one. */
static void distinct(const struct comparison *c, int only_side, const char *topology, size_t off,
		     struct strvec *out)
{
	for (int side = 0; side < 2; side++) {
		const struct cmp_side *s = side ? &c->b : &c->a;
		const struct cmp_cell *cell;
		size_t i = 0, k;

		if (only_side >= 0 && side != only_side)
			continue;
		while ((cell = next_of(s, topology, &i))) {
			const char *v = cell_field(cell, off);

			for (k = 0; k < out->nr && strcmp(out->items[k], v); k++)
				;
			if (k == out->nr)
				strvec_push(out, v);
		}
	}
}

static void join(const struct strvec *v, struct buf *b)
{
	for (size_t i = 0; i < v->nr; i++)
		buf_addf(b, "%s%s", i ? ", " : "", v->items[i]);
}

static void note_topology(struct comparison *c, const char *topology)
{
	struct strvec accel = STRVEC_INIT, numa = STRVEC_INIT;
	struct buf a = BUF_INIT, n = BUF_INIT;

	distinct(c, -1, topology, offsetof(struct cmp_cell, accel), &accel);
	distinct(c, -1, topology, offsetof(struct cmp_cell, host_numa), &numa);
	join(&accel, &a);
	join(&numa, &n);
	if (numa.nr == 1 && !strcmp(numa.items[0], "(none)"))
		strvec_pushf(&c->notes, "topology %s: EMULATED NUMA (accel %s): QEMU's nodes are not pinned "
			     "to host NUMA nodes, so local/remote latency and bandwidth differences are "
			     "not real; page placement and kernel counters are real", topology, buf_str(&a));
	else
		strvec_pushf(&c->notes, "topology %s: host_numa %s (accel %s)", topology, buf_str(&n),
			     buf_str(&a));
	for (int side = 0; side < 4; side++) {
		struct strvec values = STRVEC_INIT;
		struct buf v = BUF_INIT;

		distinct(c, side % 2, topology, side < 2 ? offsetof(struct cmp_cell, kernel)
							 : offsetof(struct cmp_cell, cmdline), &values);
		join(&values, &v);
		if (values.nr > 1)
			strvec_pushf(&c->notes, "topology %s: side %s pools the kernel%s %s as repetitions",
				     topology, side % 2 ? "B" : "A", side < 2 ? "s" : " command lines",
				     buf_str(&v));
		strvec_clear(&values);
		buf_free(&v);
	}
	strvec_clear(&accel);
	strvec_clear(&numa);
	buf_free(&a);
	buf_free(&n);
}

static void add_notes(struct comparison *c)
{
	for (int side = 0; side < 2; side++) {
		const struct cmp_side *s = side ? &c->b : &c->a;

		for (size_t i = 0; i < s->nr_cells; i++) {
			const char *t = s->cells[i].topology;
			size_t j = 0;

			while (j < i && strcmp(s->cells[j].topology, t))
				j++;
			if (j == i && !(side == 1 && side_has(&c->a, t)))
				note_topology(c, t);
		}
		for (size_t i = 0; i < s->skipped.nr; i++)
			strvec_pushf(&c->notes, "side %s: skipped %s: the run did not complete",
				     side ? "B" : "A", s->skipped.items[i]);
	}
}

/* ---- rows ---- */

struct obs_ref {
	const struct cmp_obs *o;
	int side;
};

static int cmp_ref(const void *x, const void *y)
{
	const struct obs_ref *a = x, *b = y;
	int r = (int)a->o->kind - (int)b->o->kind;

	if (!r)
		r = strcmp(a->o->key, b->o->key);
	return r ? r : a->side - b->side;
}

/* Split "p0 SEP p1 SEP ..." into nr owned parts. */
static void split_key(const char *key, char **parts, int nr)
{
	for (int i = 0; i < nr; i++) {
		size_t len = strcspn(key, (char[]){ KEY_SEP, 0 });

		parts[i] = xprintf("%.*s", (int)len, key);
		key += len + (key[len] != '\0');
	}
}

/* "local thp" of "mcf local thp": a placement word, then thp or nothp, at the end. */
static char *placement_of(const char *test)
{
	static const char *const placements[] = { "local", "remote", "interleave", "weighted-interleave" };
	const char *thp = strrchr(test, ' ');

	if (!thp || (strcmp(thp, " thp") && strcmp(thp, " nothp")))
		return NULL;
	for (size_t i = 0; i < sizeof(placements) / sizeof(placements[0]); i++) {
		size_t len = strlen(placements[i]);
		const char *p = thp - len;

		if (p >= test && !strncmp(p, placements[i], len) && (p == test || p[-1] == ' '))
			return xstrdup(p);
	}
	return NULL;
}

static enum cmp_direction direction_of(const char *metric)
{
	size_t n = strlen(metric);

	if (!strcmp(metric, "score") || !strncmp(metric, "ratios.", 7) ||
	    (n >= 6 && !strcmp(metric + n - 6, "_per_s")))
		return CMP_HIGHER_BETTER;
	if (n >= 2 && !strcmp(metric + n - 2, "_s"))
		return CMP_LOWER_BETTER;
	return CMP_EITHER;
}

static void add_test(struct comparison *c, const struct obs_ref *group, size_t n)
{
	struct cmp_test *t;
	char *parts[3];

	c->tests = xrealloc(c->tests, (c->nr_tests + 1) * sizeof(*c->tests));
	t = &c->tests[c->nr_tests++];
	memset(t, 0, sizeof(*t));
	split_key(group[0].o->key, parts, 3);
	t->topology = parts[0];
	t->suite = parts[1];
	t->test = parts[2];
	t->placement = placement_of(t->test);
	for (size_t i = 0; i < n; i++) {
		const struct cmp_obs *o = group[i].o;
		char **why = group[i].side ? &t->why_b : &t->why_a;
		char **detail = group[i].side ? &t->detail_b : &t->detail_a;

		(group[i].side ? t->b : t->a)[o->status]++;
		if (o->status != CMP_PASS && o->why && (!*why || o->status == CMP_FAIL)) {
			free(*why);
			*why = xstrdup(o->why);
		}
		if (o->status == CMP_FAIL && o->text && !*detail)
			*detail = xstrdup(o->text);
	}
}

static int has_value(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->items[i], s))
			return 1;
	return 0;
}

static int same_values(const struct strvec *a, const struct strvec *b)
{
	if (a->nr != b->nr)
		return 0;
	for (size_t i = 0; i < a->nr; i++)
		if (!has_value(b, a->items[i]))
			return 0;
	return 1;
}

/* A fact's distinct values per side, in the order first seen. */
static void add_fact(struct comparison *c, const struct obs_ref *group, size_t n)
{
	struct cmp_fact *f;
	char *parts[4];

	c->facts = xrealloc(c->facts, (c->nr_facts + 1) * sizeof(*c->facts));
	f = &c->facts[c->nr_facts++];
	memset(f, 0, sizeof(*f));
	split_key(group[0].o->key, parts, 4);
	f->topology = parts[0];
	f->suite = parts[1];
	f->test = parts[2];
	f->name = parts[3];
	for (size_t i = 0; i < n; i++) {
		struct strvec *v = group[i].side ? &f->b : &f->a;

		if (!has_value(v, group[i].o->text))
			strvec_push(v, group[i].o->text);
	}
	f->differs = f->a.nr && f->b.nr && !same_values(&f->a, &f->b);
	c->nr_facts_differ += f->differs;
}

static enum cmp_change change_of(const struct cmp_test *t)
{
	unsigned na = t->a[CMP_PASS] + t->a[CMP_FAIL] + t->a[CMP_SKIP];
	unsigned nb = t->b[CMP_PASS] + t->b[CMP_FAIL] + t->b[CMP_SKIP];

	if (!nb)
		return CMP_TEST_GONE;
	if (!na)
		return CMP_TEST_NEW;
	if (!t->a[CMP_FAIL] && t->b[CMP_FAIL])
		return CMP_TEST_BROKEN;
	if (t->a[CMP_FAIL] && !t->b[CMP_FAIL])
		return CMP_TEST_FIXED;
	if (!t->a[CMP_FAIL] && !t->a[CMP_PASS] != !t->b[CMP_PASS])
		return CMP_TEST_SKIPS;
	return CMP_TEST_SAME;
}

static void copy_summary(const double *x, size_t n, size_t *out_n, double *mean, double *median,
			 double *stddev, double *min, double *max)
{
	struct stats_summary s;

	stats_summarise(x, n, &s);
	*out_n = s.n;
	*mean = s.mean;
	*median = s.median;
	*stddev = s.stddev;
	*min = s.min;
	*max = s.max;
}

static enum cmp_verdict verdict_of(const struct cmp_options *o, const struct cmp_metric *m)
{
	int significant;

	if (!m->sa.n)
		return CMP_ONLY_B;
	if (!m->sb.n)
		return CMP_ONLY_A;
	if (!m->welch_valid)
		return CMP_FEW_SAMPLES;
	if (o->bootstrap && m->ci_valid)
		significant = m->ci_lo > 0 || m->ci_hi < 0;
	else
		significant = m->q < o->alpha;
	if (!significant || !(fabs(m->change_pct) >= o->threshold_pct))
		return CMP_SAME;
	if (m->direction == CMP_EITHER)
		return CMP_CHANGED;
	return (m->change_pct > 0) == (m->direction == CMP_HIGHER_BETTER) ? CMP_IMPROVED : CMP_REGRESSED;
}

static void add_metric(struct comparison *c, const struct obs_ref *group, size_t n)
{
	struct cmp_metric *m;
	struct stats_welch w;
	char *parts[4];
	size_t na = 0, nb = 0;

	c->metrics = xrealloc(c->metrics, (c->nr_metrics + 1) * sizeof(*c->metrics));
	m = &c->metrics[c->nr_metrics++];
	memset(m, 0, sizeof(*m));
	split_key(group[0].o->key, parts, 4);
	m->topology = parts[0];
	m->suite = parts[1];
	m->test = parts[2];
	m->metric = parts[3];
	m->placement = placement_of(m->test);
	m->direction = direction_of(m->metric);
	m->a = xcalloc(n, sizeof(double));
	m->b = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		if (group[i].side)
			m->b[nb++] = group[i].o->value;
		else
			m->a[na++] = group[i].o->value;
	copy_summary(m->a, na, &m->sa.n, &m->sa.mean, &m->sa.median, &m->sa.stddev, &m->sa.min, &m->sa.max);
	copy_summary(m->b, nb, &m->sb.n, &m->sb.mean, &m->sb.median, &m->sb.stddev, &m->sb.min, &m->sb.max);
	if (!na || !nb)
		m->change_pct = NAN;
	else if (m->sa.mean)
		m->change_pct = 100 * (m->sb.mean - m->sa.mean) / fabs(m->sa.mean);
	else
		m->change_pct = m->sb.mean == 0 ? 0 : m->sb.mean > 0 ? INFINITY : -INFINITY;
	stats_welch(m->a, na, m->b, nb, &w);
	m->welch_valid = w.valid;
	m->t = w.t;
	m->df = w.df;
	m->p = w.p;
	m->ci_valid = !stats_bootstrap_ci(m->a, na, m->b, nb, c->opts.iterations, 1 - c->opts.alpha,
					  c->opts.seed, &m->ci_lo, &m->ci_hi);
}

/*
 * q for every metric with a Welch test: hundreds of metrics tested at alpha
 * 0.05 would otherwise flag a few by chance on every comparison.
 */
static void adjust_p(struct comparison *c)
{
	double *p = xcalloc(c->nr_metrics ? c->nr_metrics : 1, sizeof(double));
	double *q = xcalloc(c->nr_metrics ? c->nr_metrics : 1, sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < c->nr_metrics; i++)
		if (c->metrics[i].welch_valid)
			p[n++] = c->metrics[i].p;
	if (c->opts.correct_bh)
		stats_bh_adjust(p, n, q);
	n = 0;
	for (size_t i = 0; i < c->nr_metrics; i++) {
		struct cmp_metric *m = &c->metrics[i];

		if (m->welch_valid) {
			m->q = c->opts.correct_bh ? q[n] : m->p;
			n++;
		}
		m->verdict = verdict_of(&c->opts, m);
	}
	free(p);
	free(q);
}

static int change_rank(enum cmp_change ch)
{
	static const int rank[] = {
		[CMP_TEST_BROKEN] = 0, [CMP_TEST_FIXED] = 1, [CMP_TEST_GONE] = 2,
		[CMP_TEST_NEW] = 3, [CMP_TEST_SKIPS] = 4, [CMP_TEST_SAME] = 5,
	};

	return rank[ch];
}

static int cmp_test_order(const void *x, const void *y)
{
	const struct cmp_test *a = x, *b = y;
	int r = change_rank(a->change) - change_rank(b->change);

	if (!r)
		r = strcmp(a->topology, b->topology);
	if (!r)
		r = strcmp(a->suite, b->suite);
	return r ? r : strcmp(a->test, b->test);
}

static void build_rows(struct comparison *c)
{
	size_t n = c->a.nr_obs + c->b.nr_obs, k = 0;
	struct obs_ref *refs = xcalloc(n ? n : 1, sizeof(*refs));

	for (size_t i = 0; i < c->a.nr_obs; i++)
		refs[k++] = (struct obs_ref){ &c->a.obs[i], 0 };
	for (size_t i = 0; i < c->b.nr_obs; i++)
		refs[k++] = (struct obs_ref){ &c->b.obs[i], 1 };
	qsort(refs, n, sizeof(*refs), cmp_ref);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && refs[j].o->kind == refs[i].o->kind &&
				!strcmp(refs[j].o->key, refs[i].o->key); j++)
			;
		if (refs[i].o->kind == OBS_METRIC)
			add_metric(c, refs + i, j - i);
		else if (refs[i].o->kind == OBS_FACT)
			add_fact(c, refs + i, j - i);
		else
			add_test(c, refs + i, j - i);
	}
	free(refs);
	for (size_t i = 0; i < c->nr_tests; i++) {
		c->tests[i].change = change_of(&c->tests[i]);
		c->nr_functional += cmp_change_fails(c->tests[i].change);
	}
	qsort(c->tests, c->nr_tests, sizeof(*c->tests), cmp_test_order);
	adjust_p(c);
	for (size_t i = 0; i < c->nr_metrics; i++) {
		enum cmp_verdict v = c->metrics[i].verdict;

		c->nr_regressed += v == CMP_REGRESSED;
		c->nr_improved += v == CMP_IMPROVED;
		c->nr_changed += v == CMP_CHANGED;
		c->nr_few += v == CMP_FEW_SAMPLES;
	}
}

int compare_run(struct comparison *c, const char *root_a, const char *root_b,
		const struct cmp_options *opts, struct error *err)
{
	memset(c, 0, sizeof(*c));
	c->opts = *opts;
	if (compare_load(root_a, &opts->filter_a, &c->a, err) || compare_load(root_b, &opts->filter_b, &c->b, err) ||
	    check_comparable(c, err))
		return -1;
	add_notes(c);
	build_rows(c);
	return 0;
}

int cmp_verdict_fails(enum cmp_verdict v)
{
	return v == CMP_REGRESSED || v == CMP_CHANGED;
}

int cmp_change_fails(enum cmp_change ch)
{
	return ch != CMP_TEST_SAME && ch != CMP_TEST_SKIPS;
}

enum compare_result compare_result(const struct comparison *c)
{
	return c->nr_functional || c->nr_regressed || c->nr_changed ? COMPARE_CHANGED : COMPARE_SAME;
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = {
		[CMP_SAME] = "same", [CMP_IMPROVED] = "improved", [CMP_REGRESSED] = "regressed",
		[CMP_CHANGED] = "changed", [CMP_FEW_SAMPLES] = "few-samples",
		[CMP_ONLY_A] = "only-a", [CMP_ONLY_B] = "only-b",
	};

	return names[v];
}

const char *cmp_change_name(enum cmp_change ch)
{
	static const char *const names[] = {
		[CMP_TEST_SAME] = "same", [CMP_TEST_BROKEN] = "broken", [CMP_TEST_FIXED] = "fixed",
		[CMP_TEST_GONE] = "gone", [CMP_TEST_NEW] = "new", [CMP_TEST_SKIPS] = "skip-changed",
	};

	return names[ch];
}

const char *cmp_direction_name(enum cmp_direction d)
{
	static const char *const names[] = {
		[CMP_LOWER_BETTER] = "lower-is-better", [CMP_HIGHER_BETTER] = "higher-is-better",
		[CMP_EITHER] = "either",
	};

	return names[d];
}

static void free_side(struct cmp_side *s)
{
	for (size_t i = 0; i < s->nr_cells; i++)
		free_cell(&s->cells[i]);
	for (size_t i = 0; i < s->nr_obs; i++) {
		free(s->obs[i].key);
		free(s->obs[i].why);
		free(s->obs[i].text);
	}
	free(s->cells);
	free(s->obs);
	free(s->root);
	free(s->only_kernel);
	free(s->only_cells);
	strvec_clear(&s->skipped);
}

void compare_free(struct comparison *c)
{
	for (size_t i = 0; i < c->nr_tests; i++) {
		struct cmp_test *t = &c->tests[i];

		free(t->topology);
		free(t->suite);
		free(t->test);
		free(t->placement);
		free(t->why_a);
		free(t->why_b);
		free(t->detail_a);
		free(t->detail_b);
	}
	for (size_t i = 0; i < c->nr_facts; i++) {
		struct cmp_fact *f = &c->facts[i];

		free(f->topology);
		free(f->suite);
		free(f->test);
		free(f->name);
		strvec_clear(&f->a);
		strvec_clear(&f->b);
	}
	free(c->facts);
	for (size_t i = 0; i < c->nr_metrics; i++) {
		struct cmp_metric *m = &c->metrics[i];

		free(m->topology);
		free(m->suite);
		free(m->test);
		free(m->placement);
		free(m->metric);
		free(m->a);
		free(m->b);
	}
	free(c->tests);
	free(c->metrics);
	free_side(&c->a);
	free_side(&c->b);
	strvec_clear(&c->notes);
	memset(c, 0, sizeof(*c));
}
