#include "analysis/kcidb.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "base/json.h"
#include "model/labdata.h"
#include "model/topology.h"
#include "results/celldir.h"
#include "results/meta.h"
#include "results/results.h"
#include "results/tap.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CELLS_LIST_FILE "cells.list"   /* matrix_run.h's: INDEX ID a line */

/* One cell: a run's TOPO.KERNEL directory, or a matrix cell that may not have run. */
struct kcell {
	char *name;                /* the matrix cell id, or the run cell's directory name */
	char *dir;                 /* the run cell (tap, meta); NULL: it did not run */
	char *run_id;              /* its run's directory name; NULL: none */
	char *where;               /* a cell that did not run: its matrix cell directory */
	struct buf meta, tap;
	enum cell_status status;
	char reason[512];
	char end[32];
	char start[40];            /* RFC 3339, "" unknown */
	char checkout_id[96], build_id[96];
	struct topology *topo;     /* the topology file its meta names, NULL: not readable */
	char *topo_source;         /* which file that was */
	char *compiler;            /* from the kernel's boot banner, NULL: unknown */
};

struct kx {
	const char *origin;
	struct kcell *cells;
	size_t nr;
	struct strvec seen;        /* checkout and build ids written */
	struct json j;
};

int kcidb_origin_valid(const char *origin)
{
	if (!origin || !*origin)
		return 0;
	for (const char *c = origin; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return 0;
	return 1;
}

void kcidb_path_part(struct buf *out, const char *s)
{
	size_t start = out->len;
	int replaced = 0;

	for (; *s; s++) {
		int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			 *s == '_' || *s == '-';

		if (ok) {
			buf_add(out, s, 1);
			replaced = 0;
		} else if (!replaced && out->len > start) {
			buf_addstr(out, "_");
			replaced = 1;
		}
	}
	while (out->len > start && replaced && out->data[out->len - 1] == '_') {
		out->len--;
		replaced = 0;
	}
	if (out->len == start)
		buf_addstr(out, "_");
	out->data[out->len] = '\0';
}

/* ---- loading the cells ---- */

static int is_file(const char *dir, const char *name)
{
	char *path = xprintf("%s/%s", dir, name);
	struct stat st;
	int yes = !stat(path, &st) && S_ISREG(st.st_mode);

	free(path);
	return yes;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static struct kcell *new_cell(struct kx *x, const char *name)
{
	struct kcell *c;

	x->cells = xrealloc(x->cells, (x->nr + 1) * sizeof(*x->cells));
	c = &x->cells[x->nr++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	return c;
}

/* The cell's start, UTC: its meta was written at the end, time.total_s after it. */
static void cell_start(struct kcell *c)
{
	char *path = xprintf("%s/" META_FILE, c->dir), *total = meta_get(buf_str(&c->meta), META_TIME_TOTAL);
	struct stat st;
	struct tm tm;

	if (!stat(path, &st)) {
		time_t t = st.st_mtime - (time_t)(total ? strtod(total, NULL) : 0);

		strftime(c->start, sizeof(c->start), "%Y-%m-%dT%H:%M:%S+00:00", gmtime_r(&t, &tm));
	}
	free(path);
	free(total);
}

/*
 * "NAME (PATH)" of meta's topology: the file, parsed; when it is not there
 * any more (a scratch file, another work tree), the project's file of that
 * NAME; NULL when neither parses.  *source names the one read.
 */
static struct topology *cell_topology(const char *meta, char **source)
{
	char *v = meta_get(meta, META_TOPOLOGY), *open = v ? strstr(v, " (") : NULL;
	struct topology *t = xcalloc(1, sizeof(*t));
	struct topo_error terr;
	char path[4096];

	*source = NULL;
	if (open && v[strlen(v) - 1] == ')') {
		v[strlen(v) - 1] = '\0';
		*open = '\0';
		if (!topo_load(open + 2, t, &terr)) {
			*source = xstrdup(open + 2);
		} else {
			lab_data_path(lab_root(), LAB_DATA_TOPOLOGY, v, path, sizeof(path));
			if (!topo_load(path, t, &terr))
				*source = xprintf("%s (the run's %s is gone)", path, open + 2);
		}
	}
	free(v);
	if (!*source) {
		free(t);
		t = NULL;
	}
	return t;
}

/*
 * The compiler the kernel says it was built with, from its boot banner in
 * console.log (init/version.c's linux_banner, as /proc/version: "Linux
 * version RELEASE (BUILDER) (COMPILER, LINKER) #..."); NULL when not there.
 */
static char *kernel_compiler(const char *dir)
{
	char *path = xprintf("%s/console.log", dir), *found = NULL;
	FILE *f = fopen(path, "re");
	char line[1024];

	free(path);
	for (int n = 0; f && !found && n < 200 && fgets(line, sizeof(line), f); n++) {
		const char *p = strstr(line, "Linux version "), *start;
		int depth = 0;

		/* RELEASE, then the builder in parentheses, then the compiler's group. */
		if (!p || !(p = strstr(p, ") (")))
			continue;
		start = p += 3;
		for (; *p && !(depth == 0 && (*p == ')' || !strncmp(p, ", ", 2))); p++)
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (*p && p > start)
			found = xprintf("%.*s", (int)(p - start), start);
	}
	if (f)
		fclose(f);
	return found;
}

/* The run cell at dir (tap, meta) into c. */
static int read_run_cell(struct kcell *c, const char *dir, struct error *err)
{
	char *path = xprintf("%s/" RESULTS_TAP_FILE, dir);
	int rc = 0;

	c->dir = xstrdup(dir);
	for (size_t len = strlen(c->dir); len > 1 && c->dir[len - 1] == '/'; len--)
		c->dir[len - 1] = '\0';
	if (meta_read(c->dir, &c->meta, err) || (file_exists(path) && read_file(path, &c->tap, err)))
		rc = -1;
	free(path);
	if (rc)
		return -1;
	/* RUN-ID/TOPO.KERNEL: the run's id is the directory above. */
	path = xstrdup(c->dir);
	*strrchr(path, '/') = '\0';
	c->run_id = xstrdup(base_name(path));
	free(path);
	meta_copy(buf_str(&c->meta), META_END, c->end, sizeof(c->end));
	cell_start(c);
	c->topo = cell_topology(buf_str(&c->meta), &c->topo_source);
	c->compiler = kernel_compiler(c->dir);
	return 0;
}

/* results/RUN-ID: every directory in it holding a meta is a cell. */
static int load_run(struct kx *x, const char *dir, struct error *err)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0)
		return error_set(err, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *path = xprintf("%s/%s", dir, names[i]->d_name);

		if (!rc && names[i]->d_name[0] != '.' && is_dir(path) && is_file(path, META_FILE)) {
			struct kcell *c = new_cell(x, names[i]->d_name);

			rc = read_run_cell(c, path, err);
			if (!rc)
				/* No exit code: judged from its TAP and how it ended, as a matrix does. */
				c->status = report_classify(-1, 0, c->end, buf_str(&c->tap), c->tap.len, "",
							    c->reason, sizeof(c->reason));
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* A matrix output: its cells in cells.list order, run or not. */
static int load_matrix(struct kx *x, const char *dir, struct error *err)
{
	char *list_path = xprintf("%s/" CELLS_LIST_FILE, dir);
	struct buf list = BUF_INIT;
	int rc = read_file(list_path, &list, err);

	free(list_path);
	for (const char *l = buf_str(&list); !rc && *l; l = next_line(l)) {
		char id[256], *cell_dir;
		struct celldir cd;
		struct kcell *c;
		int index;

		if (sscanf(l, "%d %255s", &index, id) != 2)
			continue;
		cell_dir = xprintf("%s/cells/%s", dir, id);
		celldir_load(cell_dir, &cd);
		c = new_cell(x, id);
		if (cd.run_cell[0] && is_file(cd.run_cell, META_FILE)) {
			rc = read_run_cell(c, cd.run_cell, err);
		} else {
			char real[PATH_MAX];

			c->where = xstrdup(realpath(cell_dir, real) ? real : cell_dir);
		}
		/* As the matrix judged it (matrix_run.c): not run, interrupted, else its exit and TAP. */
		if (!rc && !cd.finished && cd.exit_code < 0) {
			snprintf(c->reason, sizeof(c->reason), "not run: no result");
			c->status = CELL_ERROR;
		} else if (!rc && !cd.finished && (cd.interrupted || !strcmp(cd.end, "interrupted") || cd.exit_code < 2)) {
			snprintf(c->reason, sizeof(c->reason), "interrupted: the run did not complete");
			c->status = CELL_ERROR;
			snprintf(c->end, sizeof(c->end), "interrupted");
		} else if (!rc) {
			c->status = report_classify(cd.exit_code, cd.watchdog, cd.end, buf_str(&cd.tap), cd.tap.len,
						    cd.last_log, c->reason, sizeof(c->reason));
		}
		celldir_free(&cd);
		free(cell_dir);
	}
	buf_free(&list);
	return rc;
}

/* A run, a matrix, or a directory of matrices (a try's OUT: matrix/, shard-I-of-N/). */
static int load(struct kx *x, const char *dir, struct error *err)
{
	struct dirent **names;
	int n, rc = 0, found = 0;

	if (!is_dir(dir))
		return error_input(err, "%s: not a directory; give a run (results/RUN-ID), a matrix or a try output", dir);
	if (is_file(dir, CELLS_LIST_FILE))
		return load_matrix(x, dir, err);
	if (is_file(dir, RUN_STATE_FILE))
		return load_run(x, dir, err);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return error_set(err, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *path = xprintf("%s/%s", dir, names[i]->d_name);

		if (!rc && names[i]->d_name[0] != '.' && is_dir(path) && is_file(path, CELLS_LIST_FILE)) {
			rc = load_matrix(x, path, err);
			found++;
		}
		free(path);
		free(names[i]);
	}
	free(names);
	if (!rc && !found)
		return error_input(err, "%s is not a run (no 'state'), a matrix output (no 'cells.list') or a try "
				   "output (no matrix output in it); give results/RUN-ID, a matrix's --out or a try's --out",
				   dir);
	return rc;
}

/* ---- checkouts and builds ---- */

static void hash16(const char *text, char hex[17])
{
	struct sha256 s;
	unsigned char d[32];
	char full[65];

	sha256_init(&s);
	sha256_update(&s, text, strlen(text));
	sha256_final(&s, d);
	sha256_hex(d, full);
	memcpy(hex, full, 16);
	hex[16] = '\0';
}

/*
 * KCIDB's patchset_hash: sha256 over the patches' sha256s, each a line, in
 * order ("sha256sum *.patch | cut -c-64 | sha256sum"); "" without patches.
 * meta's kernel.patches is "NAME sha256:HEX, ..." (kernel.h).
 */
static void patchset_hash(const char *patches, char hex[65])
{
	struct sha256 s;
	unsigned char d[32];
	int n = 0;

	sha256_init(&s);
	for (const char *p = patches ? strstr(patches, "sha256:") : NULL; p; p = strstr(p + 7, "sha256:")) {
		if (strspn(p + 7, "0123456789abcdef") < 64)
			continue;
		sha256_update(&s, p + 7, 64);
		sha256_update(&s, "\n", 1);
		n++;
	}
	sha256_final(&s, d);
	if (n)
		sha256_hex(d, hex);
	else
		hex[0] = '\0';
}

/* meta's value of key, allocated; "" when absent. */
static char *mget(const struct kcell *c, const char *key)
{
	char *v = meta_get(buf_str((struct buf *)&c->meta), key);

	return v ? v : xstrdup("");
}

static void identify(struct kx *x, struct kcell *c)
{
	char *source, *patches, *diff, *kernel, *arch, *config, *key, ps[65], h[17];

	if (!c->dir) {
		snprintf(c->checkout_id, sizeof(c->checkout_id), "%s:checkout-unknown", x->origin);
		hash16(c->where, h);
		snprintf(c->build_id, sizeof(c->build_id), "%s:build-notrun-%s", x->origin, h);
		return;
	}
	source = mget(c, META_KERNEL_SOURCE);
	patches = mget(c, META_KERNEL_PATCHES);
	diff = mget(c, META_KERNEL_TREE_DIFF_SHA256);
	kernel = mget(c, META_KERNEL);
	arch = mget(c, META_ARCH);
	config = mget(c, META_KERNEL_CONFIG_SHA256);
	patchset_hash(patches, ps);
	key = xprintf("%s\n%s\n%s", source, ps, diff);
	hash16(key, h);
	snprintf(c->checkout_id, sizeof(c->checkout_id), "%s:checkout-%s", x->origin, h);
	free(key);
	key = xprintf("%s\n%s\n%s\n%s\n%s", c->checkout_id, kernel, arch, config, patches);
	hash16(key, h);
	snprintf(c->build_id, sizeof(c->build_id), "%s:build-%s", x->origin, h);
	free(key);
	free(source);
	free(patches);
	free(diff);
	free(kernel);
	free(arch);
	free(config);
}

static int seen(struct kx *x, const char *id)
{
	for (size_t i = 0; i < x->seen.nr; i++)
		if (!strcmp(x->seen.items[i], id))
			return 1;
	strvec_push(&x->seen, id);
	return 0;
}

/* "git:REPO@COMMIT" (a recipe's git source): the commit when it is a full hash. */
static const char *git_commit(const char *source, size_t *repo_len)
{
	const char *at = strrchr(source, '@');

	if (strncmp(source, "git:", 4) || !at || strlen(at + 1) != 40 || strspn(at + 1, "0123456789abcdef") != 40)
		return NULL;
	*repo_len = (size_t)(at - source) - 4;
	return at + 1;
}

static void write_checkout(struct kx *x, const struct kcell *c)
{
	struct json *j = &x->j;
	char *source, *patches, *describe, *recipe, ps[65];
	const char *commit;
	size_t repo_len = 0;

	json_object(j, NULL);
	json_string(j, "id", c->checkout_id);
	json_string(j, "origin", x->origin);
	if (!c->dir) {
		json_string(j, "comment", "the kernel is not known: a matrix cell that did not run");
		json_end(j);
		return;
	}
	source = mget(c, META_KERNEL_SOURCE);
	patches = mget(c, META_KERNEL_PATCHES);
	describe = mget(c, META_KERNEL_TREE_DESCRIBE);
	recipe = mget(c, META_KERNEL_RECIPE);
	patchset_hash(patches, ps);
	if (!strncmp(source, "debian:", 7))
		json_string(j, "tree_name", "debian");
	if ((commit = git_commit(source, &repo_len))) {
		json_string(j, "git_commit_hash", commit);
		if (!strncmp(source + 4, "https://", 8))
			json_string_n(j, "git_repository_url", source + 4, repo_len);
	}
	if (*describe && strncmp(describe, "none", 4))
		json_string(j, "git_commit_name", describe);
	json_string(j, "patchset_hash", ps);
	json_string(j, "comment", source);
	json_bool(j, "valid", 1);
	json_object(j, "misc");
	json_string(j, "kernel_source", source);
	if (*recipe)
		json_string(j, "recipe", base_name(recipe));
	json_array(j, "patches");
	/* "NAME sha256:HEX, ..." with kernel.patch.subject lines in the same order. */
	{
		const char *p = strcmp(patches, "none") ? patches : "", *subjects = buf_str((struct buf *)&c->meta);
		size_t slen;

		while (*p) {
			size_t n = strcspn(p, ","), sp;
			const char *subject = meta_next(&subjects, META_KERNEL_PATCH_SUBJECT, &slen);
			char *entry = xprintf("%.*s", (int)n, p), *hash = strstr(entry, " sha256:");

			json_object(j, NULL);
			if (hash) {
				*hash = '\0';
				json_string(j, "sha256", hash + 8);
			}
			json_string(j, "name", entry);
			if (subject)
				json_string_n(j, "subject", subject, slen);
			json_end(j);
			free(entry);
			p += n;
			sp = strspn(p, ", ");
			p += sp;
		}
	}
	json_end(j);
	json_end(j);
	json_end(j);
	free(source);
	free(patches);
	free(describe);
	free(recipe);
}

static void write_build(struct kx *x, const struct kcell *c)
{
	struct json *j = &x->j;
	char *kernel, *arch, *config, *recipe, *release, *source;

	json_object(j, NULL);
	json_string(j, "id", c->build_id);
	json_string(j, "origin", x->origin);
	json_string(j, "checkout_id", c->checkout_id);
	if (!c->dir) {
		/* Not built, or not booted: the harness never got that far. */
		json_string(j, "comment", c->reason);
		json_string(j, "status", "MISS");
		json_end(j);
		return;
	}
	kernel = mget(c, META_KERNEL);
	arch = mget(c, META_ARCH);
	config = mget(c, META_KERNEL_CONFIG_SHA256);
	recipe = mget(c, META_KERNEL_RECIPE);
	release = mget(c, META_KERNEL_RELEASE);
	source = mget(c, META_KERNEL_SOURCE);
	json_string(j, "comment", kernel);
	if (*arch)
		json_string(j, "architecture", arch);
	json_string_n(j, "config_name", *recipe ? base_name(recipe) : kernel, *recipe ? strcspn(base_name(recipe), ".")
										  : strcspn(kernel, " "));
	if (c->compiler)
		json_string(j, "compiler", c->compiler);
	/* It booted: the image exists and ran (a failed build leaves no cell). */
	json_string(j, "status", "PASS");
	json_object(j, "misc");
	json_string(j, "kernel", kernel);
	json_string(j, "kernel_source", source);
	if (*release)
		json_string(j, "kernel_release", release);
	if (*config)
		json_string(j, "config_sha256", config);
	json_end(j);
	json_end(j);
	free(kernel);
	free(arch);
	free(config);
	free(recipe);
	free(release);
	free(source);
}

/* ---- tests ---- */

/* One cell's tests being written. */
struct kwalk {
	struct kx *x;
	const struct kcell *c;
	int next;                  /* the cell's next test number, for ids */
	int failing, harness;      /* leaves written that fail; of those, TIMEOUT/ERROR/MISS */
};

static const char *const emulated_note =
	"EMULATED NUMA: QEMU's nodes are not pinned to host NUMA nodes, so local/remote latency and "
	"bandwidth differences are not real; page placement and kernel counters are real";

static void write_environment(struct kx *x, const struct kcell *c)
{
	struct json *j = &x->j;
	char *topology, *arch, *accel, *host_numa, *qemu, *backend, *comment, *cmdline;
	const char *meta = buf_str((struct buf *)&c->meta);
	size_t accel_word;
	int emulated;

	json_object(j, "environment");
	if (!c->dir) {
		json_object(j, "misc");
		json_string(j, "cell", c->name);
		json_end(j);
		json_end(j);
		return;
	}
	topology = mget(c, META_TOPOLOGY);
	arch = mget(c, META_ARCH);
	accel = mget(c, META_ACCEL);
	host_numa = mget(c, META_HOST_NUMA);
	qemu = mget(c, META_QEMU);
	backend = mget(c, META_BACKEND);
	accel_word = strcspn(accel, ":");
	emulated = !*host_numa || !strcmp(host_numa, "none");
	comment = xprintf("%.*s (%s), QEMU %.*s, %s NUMA", (int)strcspn(topology, " "), topology, arch,
			  (int)accel_word, accel, emulated ? "EMULATED" : "host-backed");
	json_string(j, "comment", comment);
	json_object(j, "misc");
	json_string_n(j, "topology", topology, strcspn(topology, " "));
	json_string(j, "topology_file", topology);
	json_string(j, "arch", arch);
	json_string(j, "cell", c->name);
	json_string(j, "run", c->run_id);
	json_string_n(j, "accel", accel, accel_word);
	json_string(j, "accel_why", accel[accel_word] ? accel + accel_word + 1 + (accel[accel_word + 1] == ' ') : "");
	json_string(j, "numa", emulated ? emulated_note : "host-backed NUMA: guest nodes bound to host nodes");
	json_string(j, "host_numa", *host_numa ? host_numa : "none");
	json_string(j, "backend", *backend ? backend : "qemu");
	json_string(j, "qemu", qemu);
	/* Two kernels of a matrix may be one build booted with different arguments. */
	if ((cmdline = meta_guest(meta, "cmdline")))
		json_string(j, "cmdline", cmdline);
	free(cmdline);
	/* The SLIT as the guest kernel saw it: "guest: nodeN.distance: 10 21". */
	json_object(j, "slit");
	for (int n = 0; n < TOPO_MAX_NODES; n++) {
		char item[32], node[16], *row, *save, *word;

		snprintf(item, sizeof(item), "node%d.distance", n);
		if (!(row = meta_guest(meta, item)))
			continue;
		snprintf(node, sizeof(node), "node%d", n);
		json_array(j, node);
		for (word = strtok_r(row, " ", &save); word; word = strtok_r(NULL, " ", &save))
			json_int(j, NULL, atoll(word));
		json_end(j);
		free(row);
	}
	json_end(j);
	/* The HMAT the topology declares (the guest's sysfs shows what the kernel made of it). */
	json_array(j, "hmat");
	for (int i = 0; c->topo && i < c->topo->nr_hmat_lb; i++) {
		const struct topo_hmat_lb *lb = &c->topo->hmat_lb[i];

		json_object(j, NULL);
		json_int(j, "initiator", lb->initiator);
		json_int(j, "target", lb->target);
		if (lb->latency_ns)
			json_int(j, "latency_ns", (long long)lb->latency_ns);
		if (lb->bandwidth_bps)
			json_int(j, "bandwidth_bytes_per_s", (long long)lb->bandwidth_bps);
		json_end(j);
	}
	json_end(j);
	json_array(j, "hmat_caches");
	for (int i = 0; c->topo && i < c->topo->nr_hmat_cache; i++) {
		const struct topo_hmat_cache *hc = &c->topo->hmat_cache[i];

		json_object(j, NULL);
		json_int(j, "node", hc->node);
		json_int(j, "level", hc->level);
		json_int(j, "size_bytes", (long long)hc->size_bytes);
		json_int(j, "line_bytes", hc->line_bytes);
		json_string(j, "policy", hc->write_back ? "write-back" : "write-through");
		json_end(j);
	}
	json_end(j);
	json_string(j, "hmat_source", c->topo ? c->topo_source : "none: the topology file is gone, HMAT not known");
	json_end(j);
	json_end(j);
	free(topology);
	free(arch);
	free(accel);
	free(host_numa);
	free(qemu);
	free(backend);
	free(comment);
}

/* The end of the excerpt, at most KCIDB_LOG_EXCERPT_MAX bytes, cut at a character. */
static void write_excerpt(struct json *j, const struct buf *text)
{
	const char *s = buf_str((struct buf *)text);
	size_t len = text->len;

	if (len > KCIDB_LOG_EXCERPT_MAX) {
		s += len - KCIDB_LOG_EXCERPT_MAX;
		len = KCIDB_LOG_EXCERPT_MAX;
		while (len && (*(const unsigned char *)s & 0xc0) == 0x80)
			s++, len--;
	}
	json_string_n(j, "log_excerpt", s, len);
}

struct ktest {
	const char *path, *status;
	const char *comment;       /* the TAP name and directive */
	const struct buf *excerpt; /* NULL: none */
	const double *number;
	const char *unit;
};

static void write_test(struct kwalk *w, const struct ktest *t)
{
	struct kx *x = w->x;
	struct json *j = &x->j;
	const struct kcell *c = w->c;
	char *id;

	if (c->dir)
		id = xprintf("%s:%s/%s/%d", x->origin, c->run_id, base_name(c->dir), ++w->next);
	else {
		char h[17];

		hash16(c->where, h);
		id = xprintf("%s:notrun-%s/%s/%d", x->origin, h, c->name, ++w->next);
	}
	json_object(j, NULL);
	json_string(j, "id", id);
	json_string(j, "origin", x->origin);
	json_string(j, "build_id", c->build_id);
	json_string(j, "path", t->path);
	json_string(j, "status", t->status);
	if (t->comment && *t->comment)
		json_string(j, "comment", t->comment);
	if (c->start[0])
		json_string(j, "start_time", c->start);
	write_environment(x, c);
	if (t->excerpt && t->excerpt->len)
		write_excerpt(j, t->excerpt);
	if (t->number) {
		json_object(j, "number");
		json_number(j, "value", *t->number);
		if (t->unit)
			json_string(j, "unit", t->unit);
		json_end(j);
	}
	json_end(j);
	free(id);
}

/* "numalab.SUITE...." of a node: its enclosing suites, then name parts split at '.' when dots. */
static void node_path(struct buf *path, const struct tap_node *n, int upto)
{
	buf_addstr(path, "numalab");
	for (int i = 0; i < upto; i++) {
		buf_addstr(path, ".");
		kcidb_path_part(path, n->suites[i][0] ? n->suites[i] : "unnamed");
	}
}

/* A metric's name as path parts: "bulk_calls.map2_45_pages" is two. */
static void metric_path(struct buf *path, const char *name)
{
	char *copy = xstrdup(name), *save, *part;

	for (part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		buf_addstr(path, ".");
		kcidb_path_part(path, part);
	}
	free(copy);
}

/* The unit a metric's name says ("time_s": seconds), NULL when it says none. */
static const char *metric_unit(const char *name)
{
	static const struct { const char *suffix, *unit; } units[] = {
		{ "_per_s", "1/s" }, { "_ns", "ns" }, { "_us", "us" }, { "_ms", "ms" }, { "_s", "s" },
		{ "_kib", "KiB" }, { "_bytes", "B" }, { "_pct", "%" },
	};
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].suffix);

		if (len > n && !strcmp(name + len - n, units[i].suffix))
			return units[i].unit;
	}
	return NULL;
}

static void write_metric(struct kwalk *w, const char *prefix, const char *name, double v)
{
	struct buf path = BUF_INIT;

	buf_addstr(&path, prefix);
	metric_path(&path, name);
	write_test(w, &(struct ktest){ .path = buf_str(&path), .status = "DONE", .comment = name, .number = &v,
				       .unit = metric_unit(name) });
	buf_free(&path);
}

struct yaml_ctx {
	struct kwalk *w;
	const char *prefix;
};

static void yaml_metric(void *ctx, const char *name, double v)
{
	struct yaml_ctx *y = ctx;

	write_metric(y->w, y->prefix, name, v);
}

/* The cell's way of ending that was the harness's, not the kernel's (vm.h's end names). */
static int harness_end(const char *end)
{
	return !strcmp(end, "qemu-failed") || !strcmp(end, "firmware") || !strcmp(end, "interrupted");
}

static const char *status_of(enum tap_status s, const char *reason, const char *end)
{
	switch (s) {
	case TAP_OK:
		return "PASS";
	case TAP_NOT_OK:
		return "FAIL";
	case TAP_SKIP:
	case TAP_TODO:
		return "SKIP";
	case TAP_TIMEOUT:
	case TAP_PENDING:
		return "ERROR";
	case TAP_ERROR:
		return !strncmp(reason, "not run", 7) || harness_end(end) ? "MISS" : "ERROR";
	}
	return "ERROR";
}

/* Metrics of a suite ("# metric: NAME NUMBER"); its other lines are its tests' (tap_node.diags). */
static void on_diag(void *ctx, const struct tap_node *n)
{
	struct kwalk *w = ctx;
	char name[200];
	double v;

	if (n->depth >= 1 && cmp_metric_value(n->text, name, sizeof(name), &v)) {
		struct buf path = BUF_INIT;

		node_path(&path, n, n->depth);
		write_metric(w, buf_str(&path), name, v);
		buf_free(&path);
	}
}

/* A failure's excerpt: what it said about itself (tap.h's own diagnostics, the lab's bookkeeping aside), then its line. */
static void failure_excerpt(const struct tap_node *n, struct buf *out)
{
	for (const char *l = n->diags ? n->diags : ""; *l; l = next_line(l)) {
		size_t len = strcspn(l, "\n");

		if (strncmp(l, "# metric:", 9) && strncmp(l, "# totals:", 9) && strncmp(l, "# guest.", 8) &&
		    strncmp(l, "# numalab:", 10))
			buf_addf(out, "%.*s\n", (int)len, l);
	}
	buf_addf(out, "%s %d %s%s%s\n", n->t->status == TAP_OK ? "ok" : "not ok", n->t->number, n->t->name,
		 *n->comment ? " # " : "", n->comment);
}

static void on_leaf(void *ctx, const struct tap_node *n)
{
	struct kwalk *w = ctx;
	const char *status = status_of(n->t->status, n->t->reason, w->c->end);
	struct buf path = BUF_INIT, excerpt = BUF_INIT;
	char why[TAP_LINE_MAX + 1], *comment;
	int failing = strcmp(status, "PASS") && strcmp(status, "SKIP");

	/* The test's name and why it is what it is (tap_reason(): a failure's first words, a skip's reason). */
	tap_reason(n, why, sizeof(why));
	comment = xprintf("%s%s%s", n->t->name, *why ? ": " : "", why);
	node_path(&path, n, n->depth);
	buf_addstr(&path, ".");
	kcidb_path_part(&path, n->t->name);
	if (failing) {
		failure_excerpt(n, &excerpt);
		w->failing++;
		w->harness += strcmp(status, "FAIL") != 0;
	}
	write_test(w, &(struct ktest){ .path = buf_str(&path), .status = status, .comment = comment,
				       .excerpt = &excerpt });
	if (n->yaml) {
		struct yaml_ctx y = { w, buf_str(&path) };

		cmp_yaml_metrics(n->yaml, yaml_metric, &y);
	}
	free(comment);
	buf_free(&path);
	buf_free(&excerpt);
}

static const struct tap_walk_ops kcidb_ops = { .on_diag = on_diag, .on_leaf = on_leaf };

static void write_cell_tests(struct kx *x, const struct kcell *c)
{
	struct kwalk w = { .x = x, .c = c };
	struct buf excerpt = BUF_INIT;
	const char *status = NULL;

	tap_walk(buf_str((struct buf *)&c->tap), c->tap.len, &kcidb_ops, &w);
	/* The cell's verdict must show among its tests even when its TAP does not (as report.h's testcases). */
	if (c->status == CELL_FAIL && !w.failing)
		status = "FAIL";
	else if (c->status == CELL_TIMEOUT && !w.harness)
		status = "ERROR";
	else if (c->status == CELL_ERROR && !w.harness)
		status = "MISS";
	if (status) {
		buf_addf(&excerpt, "%s: %s\n", cell_status_name(c->status), c->reason);
		write_test(&w, &(struct ktest){ .path = "numalab", .status = status, .comment = c->reason,
						.excerpt = &excerpt });
	}
	buf_free(&excerpt);
}

/* ---- the document ---- */

static void free_cells(struct kx *x)
{
	for (size_t i = 0; i < x->nr; i++) {
		struct kcell *c = &x->cells[i];

		free(c->name);
		free(c->dir);
		free(c->run_id);
		free(c->where);
		free(c->topo);
		free(c->topo_source);
		free(c->compiler);
		buf_free(&c->meta);
		buf_free(&c->tap);
	}
	free(x->cells);
	strvec_clear(&x->seen);
}

int kcidb_export(const char *dir, const char *origin, struct buf *out, struct error *err)
{
	struct kx x = { .origin = origin ? origin : KCIDB_ORIGIN_DEFAULT };
	struct buf doc = BUF_INIT;
	struct json *j = &x.j;
	char *root;
	int rc;

	if (!kcidb_origin_valid(x.origin))
		return error_input(err, "origin '%s': KCIDB origins are lower-case letters, digits and '_'", x.origin);
	/* "RUN/" and "RUN" are one directory: a run's id is its last part. */
	root = xstrdup(dir);
	for (size_t len = strlen(root); len > 1 && root[len - 1] == '/'; len--)
		root[len - 1] = '\0';
	rc = load(&x, root, err);
	free(root);
	if (rc) {
		free_cells(&x);
		return -1;
	}
	for (size_t i = 0; i < x.nr; i++)
		identify(&x, &x.cells[i]);
	json_init(j, &doc);
	json_object(j, NULL);
	json_object(j, "version");
	json_int(j, "major", KCIDB_VERSION_MAJOR);
	json_int(j, "minor", KCIDB_VERSION_MINOR);
	json_end(j);
	json_array(j, "checkouts");
	for (size_t i = 0; i < x.nr; i++)
		if (!seen(&x, x.cells[i].checkout_id))
			write_checkout(&x, &x.cells[i]);
	json_end(j);
	json_array(j, "builds");
	for (size_t i = 0; i < x.nr; i++)
		if (!seen(&x, x.cells[i].build_id))
			write_build(&x, &x.cells[i]);
	json_end(j);
	json_array(j, "tests");
	for (size_t i = 0; i < x.nr; i++)
		write_cell_tests(&x, &x.cells[i]);
	json_end(j);
	json_end(j);
	rc = json_done(j);
	if (rc)
		error_set(err, "kcidb: the JSON writer was misused (a numalab bug)");
	else
		buf_add(out, doc.data, doc.len);
	buf_free(&doc);
	free_cells(&x);
	return rc;
}
