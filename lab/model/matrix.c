#include "model/matrix.h"
#include "base/lines.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const axis_key[MATRIX_NR_AXES] = { "topology", "kernel", "suite" };

struct parse_ctx {
	const char *path;
	int line;
	struct matrix *m;
	struct error *err;
};

/* Names end up in cell ids and directory names: no '.', no '/'. */
static int valid_name(const char *s)
{
	if (!*s || strlen(s) >= MATRIX_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_+-", *s))
			return 0;
	return 1;
}

#define GROW(arr, nr) ((arr) = xrealloc((arr), ((size_t)(nr) + 1) * sizeof(*(arr))))

/* The line a name of axis was declared on, or 0. */
static int declared(const struct matrix *m, enum matrix_axis axis, const char *name)
{
	if (axis == MATRIX_TOPOLOGY) {
		for (int i = 0; i < m->nr_topos; i++)
			if (!strcmp(m->topos[i], name))
				return m->topo_lines[i];
	} else if (axis == MATRIX_KERNEL) {
		for (int i = 0; i < m->nr_kernels; i++)
			if (!strcmp(m->kernels[i].label, name))
				return m->kernels[i].line;
	} else {
		for (int i = 0; i < m->nr_suites; i++)
			if (!strcmp(m->suites[i], name))
				return m->suite_lines[i];
	}
	return 0;
}

static int check_new_name(struct parse_ctx *c, enum matrix_axis axis, const char *name)
{
	int first;

	if (!valid_name(name))
		return error_input(c->err, "%s:%d: %s name '%s' must be 1..%d of [A-Za-z0-9_+-]%s",
				   c->path, c->line, axis_key[axis], name, MATRIX_NAME_MAX - 1,
				   axis == MATRIX_KERNEL ? "; label a path or dotted spec: `kernel NAME = SPEC`" : "");
	if ((first = declared(c->m, axis, name)))
		return error_input(c->err, "%s:%d: %s '%s' is already declared on line %d; list it once",
				   c->path, c->line, axis_key[axis], name, first);
	return 0;
}

static int add_topos_or_suites(struct parse_ctx *c, enum matrix_axis axis, char **tok, int n)
{
	struct matrix *m = c->m;

	if (n < 2)
		return error_input(c->err, "%s:%d: %s takes one or more names", c->path, c->line,
				   axis_key[axis]);
	for (int i = 1; i < n; i++) {
		if (check_new_name(c, axis, tok[i]))
			return -1;
		if (axis == MATRIX_TOPOLOGY) {
			GROW(m->topos, m->nr_topos);
			GROW(m->topo_lines, m->nr_topos);
			snprintf(m->topos[m->nr_topos], MATRIX_NAME_MAX, "%s", tok[i]);
			m->topo_lines[m->nr_topos++] = c->line;
		} else {
			GROW(m->suites, m->nr_suites);
			GROW(m->suite_lines, m->nr_suites);
			snprintf(m->suites[m->nr_suites], MATRIX_NAME_MAX, "%s", tok[i]);
			m->suite_lines[m->nr_suites++] = c->line;
		}
	}
	return 0;
}

static int add_kernel(struct parse_ctx *c, const char *label, const char *spec,
		      char **args, int nr_args)
{
	struct matrix *m = c->m;
	struct matrix_kernel *k;
	size_t len = 0;

	if (check_new_name(c, MATRIX_KERNEL, label))
		return -1;
	if (strlen(spec) >= sizeof(k->spec))
		return error_input(c->err, "%s:%d: kernel spec too long", c->path, c->line);
	GROW(m->kernels, m->nr_kernels);
	k = &m->kernels[m->nr_kernels++];
	memset(k, 0, sizeof(*k));
	snprintf(k->label, sizeof(k->label), "%s", label);
	snprintf(k->spec, sizeof(k->spec), "%s", spec);
	k->line = c->line;
	for (int i = 0; i < nr_args; i++) {
		len += (size_t)snprintf(k->append + len, len < sizeof(k->append) ? sizeof(k->append) - len : 0,
					"%s%s", i ? " " : "", args[i]);
		if (len >= sizeof(k->append))
			return error_input(c->err, "%s:%d: kernel command line longer than %zu characters",
					   c->path, c->line, sizeof(k->append) - 1);
	}
	return 0;
}

static int parse_kernel(struct parse_ctx *c, char **tok, int n)
{
	if (n >= 3 && !strcmp(tok[2], "=")) {
		if (n < 4)
			return error_input(c->err, "%s:%d: `kernel LABEL = SPEC [ARG...]` needs a SPEC after '='",
					   c->path, c->line);
		return add_kernel(c, tok[1], tok[3], tok + 4, n - 4);
	}
	if (n < 2)
		return error_input(c->err, "%s:%d: kernel takes one or more specs, or `LABEL = SPEC [ARG...]`",
				   c->path, c->line);
	for (int i = 1; i < n; i++) {
		if (!strcmp(tok[i], "="))
			return error_input(c->err, "%s:%d: '=' only follows the first word: `kernel LABEL = SPEC [ARG...]`",
					   c->path, c->line);
		if (add_kernel(c, tok[i], tok[i], NULL, 0))
			return -1;
	}
	return 0;
}

/* `patch LABEL FILE...`: once per kernel, after its `kernel` line. */
static int parse_patch(struct parse_ctx *c, char **tok, int n)
{
	struct matrix *m = c->m;
	struct matrix_kernel *k = NULL;
	const char *slash = strrchr(m->path, '/');

	if (n < 3)
		return error_input(c->err, "%s:%d: patch takes LABEL FILE... (e.g. `patch fixed fix.patch`)",
				   c->path, c->line);
	for (int i = 0; i < m->nr_kernels; i++)
		if (!strcmp(m->kernels[i].label, tok[1]))
			k = &m->kernels[i];
	if (!k)
		return error_input(c->err, "%s:%d: patch for kernel '%s', which no earlier `kernel` line declares; "
				   "declare it first (`kernel %s = SPEC`)", c->path, c->line, tok[1], tok[1]);
	if (k->patch_line)
		return error_input(c->err, "%s:%d: kernel '%s' has its patches on line %d already; list them on one line",
				   c->path, c->line, tok[1], k->patch_line);
	k->patch_line = c->line;
	for (int i = 2; i < n; i++) {
		if (tok[i][0] == '/' || !slash)
			strvec_push(&k->patches, tok[i]);
		else
			strvec_pushf(&k->patches, "%.*s/%s", (int)(slash - m->path), m->path, tok[i]);
	}
	return 0;
}

static int parse_number(struct parse_ctx *c, const char *what, const char *s, int min, int max,
			int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!isdigit((unsigned char)*s) || *end || v < min || v > max)
		return error_input(c->err, "%s:%d: %s '%s' must be a whole number %d..%d", c->path, c->line,
				   what, s, min, max);
	*out = (int)v;
	return 0;
}

/* KEY=GLOB words into r->glob. */
static int parse_patterns(struct parse_ctx *c, char **tok, int n, struct matrix_rule *r)
{
	for (int i = 0; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		int axis = -1;

		for (int a = 0; eq && a < MATRIX_NR_AXES; a++)
			if ((size_t)(eq - tok[i]) == strlen(axis_key[a]) &&
			    !strncmp(tok[i], axis_key[a], strlen(axis_key[a])))
				axis = a;
		if (axis < 0 || !eq[1] || strlen(eq + 1) >= MATRIX_NAME_MAX)
			return error_input(c->err, "%s:%d: '%s' is not KEY=GLOB with KEY topology, kernel or suite",
					   c->path, c->line, tok[i]);
		if (r->glob[axis][0])
			return error_input(c->err, "%s:%d: %s= given twice", c->path, c->line, axis_key[axis]);
		snprintf(r->glob[axis], MATRIX_NAME_MAX, "%s", eq + 1);
	}
	return 0;
}

static int parse_rule(struct parse_ctx *c, enum matrix_rule_kind kind, char **tok, int n)
{
	struct matrix *m = c->m;
	struct matrix_rule r = { .kind = kind, .line = c->line };
	int first = 1;

	if (kind == MATRIX_EXCLUDE && n < 2)
		return error_input(c->err, "%s:%d: exclude takes KEY=GLOB... (e.g. `exclude topology=la-* suite=workloads`)",
				   c->path, c->line);
	if (kind == MATRIX_REPEAT) {
		if (n < 2 || parse_number(c, "repeat", tok[1], 1, 100, &r.value))
			return n < 2 ? error_input(c->err, "%s:%d: repeat takes N [KEY=GLOB...]", c->path, c->line) : -1;
		first = 2;
	}
	if (kind == MATRIX_TIMEOUT) {
		if (n < 2 || parse_number(c, "timeout", tok[1], 1, 86400, &r.value))
			return n < 2 ? error_input(c->err, "%s:%d: timeout takes SECONDS [KEY=GLOB...]", c->path, c->line) : -1;
		first = 2;
	}
	if (kind == MATRIX_ACCEL) {
		r.value = n < 2 ? -1 : !strcmp(tok[1], "auto") ? MATRIX_ACCEL_AUTO : !strcmp(tok[1], "tcg")
			? MATRIX_ACCEL_TCG : !strcmp(tok[1], "kvm") ? MATRIX_ACCEL_KVM : -1;
		if (r.value < 0)
			return error_input(c->err, "%s:%d: accel takes auto, tcg or kvm [KEY=GLOB...] (e.g. `accel tcg topology=la-*`)",
					   c->path, c->line);
		first = 2;
	}
	if (parse_patterns(c, tok + first, n - first, &r))
		return -1;
	GROW(m->rules, m->nr_rules);
	m->rules[m->nr_rules++] = r;
	return 0;
}

static int parse_host(struct parse_ctx *c, char **tok, int n)
{
	struct matrix *m = c->m;
	struct matrix_host h = { .line = c->line };

	if (n != 4 || strcmp(tok[2], "capacity"))
		return error_input(c->err, "%s:%d: host takes `URI capacity N` (e.g. `host qemu+ssh://lab1/system capacity 4`)",
				   c->path, c->line);
	if ((strcmp(tok[1], "local") && !strstr(tok[1], ":/")) || strlen(tok[1]) >= sizeof(h.uri))
		return error_input(c->err, "%s:%d: host '%s' is not a libvirt URI (DRIVER[+TRANSPORT]://[HOST]/PATH) or `local`",
				   c->path, c->line, tok[1]);
	for (int i = 0; i < m->nr_hosts; i++)
		if (!strcmp(m->hosts[i].uri, tok[1]))
			return error_input(c->err, "%s:%d: host %s is already declared on line %d", c->path,
					   c->line, tok[1], m->hosts[i].line);
	if (parse_number(c, "capacity", tok[3], 1, 256, &h.capacity))
		return -1;
	snprintf(h.uri, sizeof(h.uri), "%s", tok[1]);
	GROW(m->hosts, m->nr_hosts);
	m->hosts[m->nr_hosts++] = h;
	return 0;
}

static int parse_line(struct parse_ctx *c, char **tok, int n)
{
	if (!strcmp(tok[0], "topology"))
		return add_topos_or_suites(c, MATRIX_TOPOLOGY, tok, n);
	if (!strcmp(tok[0], "suite"))
		return add_topos_or_suites(c, MATRIX_SUITE, tok, n);
	if (!strcmp(tok[0], "kernel"))
		return parse_kernel(c, tok, n);
	if (!strcmp(tok[0], "patch"))
		return parse_patch(c, tok, n);
	if (!strcmp(tok[0], "exclude"))
		return parse_rule(c, MATRIX_EXCLUDE, tok, n);
	if (!strcmp(tok[0], "repeat"))
		return parse_rule(c, MATRIX_REPEAT, tok, n);
	if (!strcmp(tok[0], "timeout"))
		return parse_rule(c, MATRIX_TIMEOUT, tok, n);
	if (!strcmp(tok[0], "accel"))
		return parse_rule(c, MATRIX_ACCEL, tok, n);
	if (!strcmp(tok[0], "host"))
		return parse_host(c, tok, n);
	return error_input(c->err, "%s:%d: unknown statement '%s'; use topology, kernel, patch, suite, exclude, "
			   "repeat, timeout, accel or host (docs/matrix.md)", c->path, c->line, tok[0]);
}

static const char *axis_name(const struct matrix *m, enum matrix_axis axis, int i)
{
	return axis == MATRIX_TOPOLOGY ? m->topos[i] : axis == MATRIX_KERNEL ? m->kernels[i].label
									     : m->suites[i];
}

static int axis_size(const struct matrix *m, enum matrix_axis axis)
{
	return axis == MATRIX_TOPOLOGY ? m->nr_topos : axis == MATRIX_KERNEL ? m->nr_kernels
									     : m->nr_suites;
}

/* Every glob of every rule matches some declared name. */
static int check_rules(const struct matrix *m, struct error *err)
{
	for (int r = 0; r < m->nr_rules; r++) {
		for (int a = 0; a < MATRIX_NR_AXES; a++) {
			const char *glob = m->rules[r].glob[a];
			int hit = !glob[0];

			for (int i = 0; !hit && i < axis_size(m, a); i++)
				hit = !fnmatch(glob, axis_name(m, a, i), 0);
			if (!hit)
				return error_input(err, "%s:%d: %s=%s matches no declared %s; check the spelling",
						   m->path, m->rules[r].line, axis_key[a], glob, axis_key[a]);
		}
	}
	return 0;
}

static int check_complete(const struct matrix *m, struct error *err)
{
	static const char *const example[] = { "topology 2node", "kernel debian", "suite topology" };

	for (int a = 0; a < MATRIX_NR_AXES; a++)
		if (!axis_size(m, a))
			return error_input(err, "%s: no %s line; add e.g. `%s`", m->path, axis_key[a], example[a]);
	return check_rules(m, err);
}

int matrix_parse(const char *file, const char *text, size_t len, struct matrix *m,
		 struct error *err)
{
	struct parse_ctx c = { file, 0, m, err };
	struct lines l;
	char *line, *tok[LINES_MAX_WORDS];
	int rc, nt = 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "%s", file);
	lines_init(&l, file, text, len);
	while ((rc = lines_next(&l, &line)) > 0 && (nt = lines_words(&l, line, tok)) > 0) {
		c.line = l.nr;
		if (parse_line(&c, tok, nt))
			goto fail;
	}
	if (rc < 0 || nt < 0)
		error_input(err, "%s", l.msg);
	else if (!check_complete(m, err))
		return 0;
fail:
	matrix_free(m);
	return -1;
}

void matrix_free(struct matrix *m)
{
	free(m->topos);
	for (int i = 0; i < m->nr_kernels; i++)
		strvec_clear(&m->kernels[i].patches);
	free(m->kernels);
	free(m->suites);
	free(m->rules);
	free(m->hosts);
	free(m->topo_lines);
	free(m->suite_lines);
	m->topos = m->suites = NULL;
	m->kernels = NULL;
	m->rules = NULL;
	m->hosts = NULL;
	m->topo_lines = m->suite_lines = NULL;
	m->nr_topos = m->nr_kernels = m->nr_suites = m->nr_rules = m->nr_hosts = 0;
}

static int rule_matches(const struct matrix *m, const struct matrix_rule *r, const int idx[3])
{
	for (int a = 0; a < MATRIX_NR_AXES; a++)
		if (r->glob[a][0] && fnmatch(r->glob[a], axis_name(m, a, idx[a]), 0))
			return 0;
	return 1;
}

/* The last matching rule of kind decides; 0 if none matches (or excluded: 1). */
static int rule_value(const struct matrix *m, enum matrix_rule_kind kind, const int idx[3])
{
	int v = 0;

	for (int r = 0; r < m->nr_rules; r++)
		if (m->rules[r].kind == kind && rule_matches(m, &m->rules[r], idx))
			v = kind == MATRIX_EXCLUDE ? 1 : m->rules[r].value;
	return v;
}

void matrix_expand(const struct matrix *m, struct matrix_cell **cells, int *n)
{
	int idx[3], cap = 0;

	*cells = NULL;
	*n = 0;
	for (idx[0] = 0; idx[0] < m->nr_topos; idx[0]++)
		for (idx[1] = 0; idx[1] < m->nr_kernels; idx[1]++)
			for (idx[2] = 0; idx[2] < m->nr_suites; idx[2]++) {
				int repeat = rule_value(m, MATRIX_REPEAT, idx);

				if (rule_value(m, MATRIX_EXCLUDE, idx))
					continue;
				for (int rep = 1; rep <= (repeat ? repeat : 1); rep++) {
					struct matrix_cell *c;

					if (*n == cap)
						*cells = xrealloc(*cells, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(**cells));
					c = &(*cells)[*n];
					c->index = (*n)++;
					c->topo = idx[0];
					c->kernel = idx[1];
					c->suite = idx[2];
					c->rep = rep;
					c->timeout_s = rule_value(m, MATRIX_TIMEOUT, idx);
					c->accel = (enum matrix_accel)rule_value(m, MATRIX_ACCEL, idx);
					snprintf(c->id, sizeof(c->id), "%s.%s.%s.r%d", m->topos[idx[0]],
						 m->kernels[idx[1]].label, m->suites[idx[2]], rep);
				}
			}
}

const char *matrix_accel_name(enum matrix_accel a)
{
	return a == MATRIX_ACCEL_TCG ? "tcg" : a == MATRIX_ACCEL_KVM ? "kvm" : "auto";
}

int matrix_shard_parse(const char *s, int *i, int *n, struct error *err)
{
	char tail;

	if (sscanf(s, "%d/%d%c", i, n, &tail) != 2 || !isdigit((unsigned char)s[0]) || *n < 1 ||
	    *n > 1000 || *i < 0 || *i >= *n)
		return error_input(err, "give I/N with 0 <= I < N <= 1000 (e.g. 0/4 .. 3/4)");
	return 0;
}

int matrix_shard(struct matrix_cell *cells, int n, int shard, int nr_shards)
{
	int kept = 0;

	for (int k = 0; k < n; k++)
		if (cells[k].index % nr_shards == shard)
			cells[kept++] = cells[k];
	return kept;
}
