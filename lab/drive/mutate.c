#include "drive/mutate.h"
#include "analysis/mutate_report.h"
#include "base/interrupt.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "drive/run.h"
#include "kernel/kbuild.h"
#include "kernel/srctree.h"
#include "model/cread.h"
#include "model/labdata.h"
#include "model/mutant.h"
#include "model/patch.h"
#include "model/topology.h"
#include "results/mutant_result.h"
#include "results/tap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_JOBS 16
/* Topologies of one --topo list at most. */
#define MAX_TOPOS 8
/* C files --patch-lines mutates at most (the rest are left out). */
#define MAX_PATCH_FILES 64

struct mrun {
	const struct mutate_opts *o;
	char arch[16];
	const char *tree;                  /* --kernel DIR; NULL: a recipe */
	struct strvec topos;               /* --topo's list, in order: as given, and */
	struct strvec topo_names;          /* their names (OUT's base/NAME, run/NAME) */
	struct strvec guest_tests;         /* the guest suites the runs pack (--tests or the topologies') */
	char guest[65];                    /* their binaries' key: verdicts hold for these (guest_key()) */
	struct strvec files;               /* the mutated sources */
	struct buf *texts;                 /* [files.nr] as built */
	char (*objects)[65];               /* [files.nr] base objects' sha256 */
	struct mutant_list list;           /* run order, after --sample or --limit */
	struct mutant_sample sample;       /* --sample: what each function's mutants were */
	struct mutant_result *results;
	struct mutant_equivalents eq;
	char eq_path[4200];
	/* parallel */
	int next, done, busy[MAX_JOBS];
	double t0;
};

static void show(const struct mutate_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void show(const struct mutate_opts *o, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (!o->show.text)
		return;
	va_start(ap, fmt);
	text = xvprintf(fmt, ap);
	va_end(ap);
	o->show.text(o->show.ctx, text, strlen(text));
	free(text);
}

static char *out_path(const struct mutate_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *out_path(const struct mutate_opts *o, const char *fmt, ...)
{
	va_list ap;
	char *rel, *path;

	va_start(ap, fmt);
	rel = xvprintf(fmt, ap);
	va_end(ap);
	path = xprintf("%s/%s", o->out, rel);
	free(rel);
	return path;
}

/* The directory of path made. */
static int parent_dir(const char *path, struct error *err)
{
	char *dir = xprintf("%.*s", (int)(strrchr(path, '/') - path), path);
	int rc = mkdir_p(dir, err);

	free(dir);
	return rc;
}

static int write_text(const char *path, const char *text, struct error *err)
{
	return parent_dir(path, err) ? -1 : write_file_atomic(path, text, strlen(text), err);
}

static int has(const struct strvec *v, const char *s);

/* ---- the request ---- */

/* Push the names of "a,b,c" not yet in v. */
static void split_list(const char *list, struct strvec *v)
{
	for (const char *p = list; *p; p += strcspn(p, ",") + !!p[strcspn(p, ",")]) {
		char *name = xprintf("%.*s", (int)strcspn(p, ","), p);

		if (*name && !has(v, name))
			strvec_push(v, name);
		free(name);
	}
}

/*
 * r->guest: the sha256 of the guest's /init and the test binaries the runs
 * pack (`make guest`'s build/guest/ARCH).  A verdict is only as good as the
 * tests that gave it: a row added since a mutant survived might kill it, one
 * removed might not, so results judged on other binaries are judged again.
 * A suite not built is left to the run to name.
 */
static int guest_key(struct mrun *r, struct error *err)
{
	struct sha256 s;
	unsigned char digest[32];
	int rc = 0;

	sha256_init(&s);
	for (size_t i = 0; !rc && i <= r->guest_tests.nr; i++) {
		char *path = i ? xprintf("%s/build/guest/%s/tests/%s", lab_root(), r->arch, r->guest_tests.items[i - 1])
			       : xprintf("%s/build/guest/%s/init", lab_root(), r->arch);
		char hex[65];

		if (file_exists(path))
			rc = sha256_file(path, hex, err);
		else
			snprintf(hex, sizeof(hex), "none");
		if (!rc)
			sha256_update(&s, hex, strlen(hex) + 1);
		free(path);
	}
	sha256_final(&s, digest);
	sha256_hex(digest, r->guest);
	return rc;
}

static int check_request(struct mrun *r, struct error *err)
{
	const struct mutate_opts *o = r->o;
	struct topology topo;
	struct stat st;

	for (const char *p = o->topo; ; p += strcspn(p, ",") + 1) {
		strvec_pushf(&r->topos, "%.*s", (int)strcspn(p, ","), p);
		if (!p[strcspn(p, ",")])
			break;
	}
	if (r->topos.nr > MAX_TOPOS)
		return error_input(err, "--topo %s: at most %d topologies", o->topo, MAX_TOPOS);
	for (size_t i = 0; i < r->topos.nr; i++) {
		if (!*r->topos.items[i])
			return error_input(err, "--topo %s: an empty name in the list; give NAME[,NAME...]",
					   o->topo);
		if (lab_topology_load(lab_root(), r->topos.items[i], &topo, err))
			return -1;
		if (i && strcmp(r->arch, topo_arch_name(topo.arch)))
			return error_input(err, "--topo %s: %s is %s, %s is %s: one kernel is mutated, give "
					   "topologies of one architecture", o->topo, r->topos.items[0], r->arch,
					   r->topos.items[i], topo_arch_name(topo.arch));
		if (has(&r->topo_names, topo.name))
			return error_input(err, "--topo %s: %s twice", o->topo, topo.name);
		snprintf(r->arch, sizeof(r->arch), "%s", topo_arch_name(topo.arch));
		strvec_push(&r->topo_names, topo.name);
		split_list(o->tests ? o->tests : topo.tests, &r->guest_tests);
	}
	if (!stat(o->kernel, &st) && S_ISDIR(st.st_mode)) {
		if (!srctree_is_kernel(o->kernel))
			return error_input(err, "--kernel %s: not a kernel source tree (no Makefile, "
					   "Kconfig, mm/, arch/); give a recipe or the top of a tree", o->kernel);
		r->tree = o->kernel;
	} else if (!kbuild_has_recipe(lab_root(), o->kernel)) {
		return error_input(err, "--kernel %s: mutants need a kernel built from source: give a "
				   "recipe of kernels/recipes/ (stock) or a kernel source tree", o->kernel);
	}
	if (!o->nr_files && !o->patch_lines)
		return error_input(err, "give --file mm/FILE.c (with --function NAME...) or --patch-lines");
	if (o->patch_lines && !o->nr_patches)
		return error_input(err, "--patch-lines mutates the lines the --patch files add: give --patch");
	for (int i = 0; i < o->nr_files; i++)
		if (strlen(o->files[i]) < 3 || strcmp(o->files[i] + strlen(o->files[i]) - 2, ".c") ||
		    o->files[i][0] == '/' || strstr(o->files[i], ".."))
			return error_input(err, "--file %s: give a C file of the kernel tree, relative to "
					   "its top (mm/mempolicy.c)", o->files[i]);
	return 0;
}

static int load_equivalents(struct mrun *r, struct error *err)
{
	struct buf text = BUF_INIT;
	int rc;

	if (r->o->equivalents)
		snprintf(r->eq_path, sizeof(r->eq_path), "%s", r->o->equivalents);
	else
		snprintf(r->eq_path, sizeof(r->eq_path), "%s/%s", lab_root(), MUTATE_EQUIVALENTS);
	if (!r->o->equivalents && !file_exists(r->eq_path)) {
		r->eq_path[0] = '\0';
		return 0;
	}
	rc = read_file(r->eq_path, &text, err) ? error_as_input(err)
		: mutant_equivalents_parse(r->eq_path, buf_str(&text), text.len, &r->eq, err);
	buf_free(&text);
	return rc;
}

/* The .c files the patches touch (--patch-lines without --file), and the lines they add. */
static int patch_files_and_lines(struct mrun *r, int **lines, int *nr_lines, struct error *err)
{
	for (int i = 0; i < r->o->nr_patches; i++) {
		struct buf text = BUF_INIT;
		struct patch_set set;
		int rc = read_file(r->o->patches[i], &text, err) ? error_as_input(err)
			 : patch_parse(r->o->patches[i], buf_str(&text), text.len, &set, err);

		buf_free(&text);
		if (rc)
			return -1;
		for (int k = 0; k < set.nr; k++)
			for (int f = 0; f < set.items[k].nr_files; f++) {
				const char *path = set.items[k].files[f].path;
				size_t n = strlen(path);
				int seen = 0;

				for (size_t j = 0; j < r->files.nr; j++)
					seen |= !strcmp(r->files.items[j], path);
				if (!seen && !r->o->nr_files && n > 2 && !strcmp(path + n - 2, ".c") &&
				    r->files.nr < MAX_PATCH_FILES)
					strvec_push(&r->files, path);
			}
		for (size_t j = 0; j < r->files.nr; j++)
			for (int k = 0; k < set.nr; k++)
				mutant_added_lines(buf_str(&set.items[k].diff), r->files.items[j], &lines[j],
						   &nr_lines[j]);
		patch_set_free(&set);
	}
	return 0;
}

/* ---- builds ---- */

static char *slot_image(const struct mrun *r, int slot)
{
	return out_path(r->o, "slots/%d/%s", slot, strcmp(r->arch, "x86_64") ? "vmlinux.efi" : "vmlinux");
}

/* OUT/base/kselftest: the unmutated tree's mm selftests, which every run of this OUT takes. */
static char *base_selftests(const struct mrun *r)
{
	return out_path(r->o, "base/kselftest");
}

/*
 * Build the base series plus extra (a mutant's diff, or NULL) in slot;
 * sources/texts/objects as kbuild_kernel_scratch().  The unmutated build
 * also makes the mm selftests, once per OUT; every kernel then takes them
 * (k->selftests): a mutant changes the kernel, not the programs the
 * selftests are, so the kernel's own khugepaged selftest, say, judges it.
 */
static int build(const struct mrun *r, const char *extra, int slot, const char *const *sources,
		 int nr_sources, struct buf *texts, char (*objects)[65], int source_only, struct kernel *k,
		 int *make_failed, struct error *err)
{
	const char **patches = xcalloc((size_t)r->o->nr_patches + 2, sizeof(*patches));
	char slot_name[32];
	char *image = slot_image(r, slot);
	struct kernel_request req = { .spec = r->tree ? NULL : r->o->kernel, .patches = patches };
	char *kst = base_selftests(r);
	struct kbuild_scratch s = { .slot = slot_name, .image = image, .sources = sources,
				    .nr_sources = nr_sources, .texts = texts, .object_sha256 = objects,
				    .source_only = source_only,
				    .selftests = !extra && !source_only && !file_exists(kst) ? kst : NULL };
	int rc;

	for (int i = 0; i < r->o->nr_patches; i++)
		patches[req.nr_patches++] = r->o->patches[i];
	if (extra)
		patches[req.nr_patches++] = extra;
	snprintf(slot_name, sizeof(slot_name), "mutate%d", slot);
	rc = parent_dir(image, err) ? -1 : kbuild_kernel_scratch(lab_root(), &req, r->tree, r->arch, &s, k, err);
	*make_failed = s.make_failed;
	if (!rc && !source_only && file_exists(kst))
		snprintf(k->selftests, sizeof(k->selftests), "%s", kst);
	free(patches);
	free(image);
	free(kst);
	return rc;
}

/* ---- one run of the tests ---- */

/* The leaves of a run's TAP (tap.h's walk) that passed and that failed, as "SUITE/.../NAME". */
struct leaves {
	struct strvec ok, failed;
};

static void on_leaf(void *ctx, const struct tap_node *n)
{
	struct leaves *l = ctx;
	struct buf key = BUF_INIT;

	for (int d = 0; d < n->depth; d++)
		buf_addf(&key, "%s/", n->suites[d]);
	buf_addstr(&key, n->t->name);
	if (n->t->status == TAP_OK)
		strvec_push(&l->ok, buf_str(&key));
	else if (tap_status_failing(n->t->status))
		strvec_push(&l->failed, buf_str(&key));
	buf_free(&key);
}

static void run_leaves(const char *cell_dir, struct leaves *l)
{
	char *path = xprintf("%s/tap", cell_dir);
	struct tap_walk_ops ops = { .on_leaf = on_leaf };
	struct buf tap = BUF_INIT;
	struct error ignored;

	if (!read_file(path, &tap, &ignored))
		tap_walk(buf_str(&tap), tap.len, &ops, l);
	buf_free(&tap);
	free(path);
}

static void leaves_free(struct leaves *l)
{
	strvec_clear(&l->ok);
	strvec_clear(&l->failed);
}

static int has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->items[i], s))
			return 1;
	return 0;
}

/* "a, b, c (and N more)" of v's items not in but (NULL: all). */
static void name_list(const struct strvec *v, const struct strvec *but, char *out, size_t cap)
{
	struct buf b = BUF_INIT;
	int n = 0;

	for (size_t i = 0; i < v->nr; i++) {
		if (but && has(but, v->items[i]))
			continue;
		if (n++ < 3)
			buf_addf(&b, "%s\"%s\"", b.len ? ", " : "", v->items[i]);
	}
	if (n > 3)
		buf_addf(&b, " and %d more", n - 3);
	snprintf(out, cap, "%s", buf_str(&b));
	buf_free(&b);
}

/*
 * Judge a run against the unmutated kernel's passing tests (base_ok; NULL:
 * the base run itself): killed when the guest did not power off (crash,
 * timeout) or a test the base passed did not pass (failed or missing).
 */
static void judge(const struct run_outcome *o, const struct strvec *base_ok, struct mutant_result *res,
		  struct leaves *l)
{
	struct leaves lost = { STRVEC_INIT, STRVEC_INIT };

	run_leaves(o->cell_dir, l);
	if (o->verdict == RUN_PASSED) {
		res->status = MUTANT_SURVIVED;
		return;
	}
	if (o->vm.end != VM_POWEROFF) {
		res->status = MUTANT_KILLED;
		snprintf(res->why, sizeof(res->why), "guest %s", vm_end_name(o->vm.end));
		return;
	}
	for (size_t i = 0; base_ok && i < base_ok->nr; i++)
		if (!has(&l->ok, base_ok->items[i]))
			strvec_push(&lost.ok, base_ok->items[i]);
	if (base_ok && !lost.ok.nr) {
		res->status = MUTANT_SURVIVED;
		snprintf(res->why, sizeof(res->why), "fails only what the unmutated kernel fails");
	} else {
		res->status = MUTANT_KILLED;
		name_list(base_ok ? &lost.ok : &l->failed, NULL, res->why, sizeof(res->why));
	}
	leaves_free(&lost);
}

static int run_tests(const struct mrun *r, const char *topo, const struct kernel *k, const char *out,
		     int timeout_s, const struct strvec *base_ok, struct mutant_result *res, struct leaves *l,
		     struct error *err)
{
	struct run_opts ro = { .topo = topo, .kernel_built = k, .tests = r->o->tests,
			       .timeout_s = timeout_s, .out = out, .accel = r->o->accel };
	struct run_outcome *o = xcalloc(1, sizeof(*o));
	double t0 = now_s();
	int rc = mkdir_p(out, err) ? -1 : run_cell(&ro, o, err);

	res->run_s = now_s() - t0;
	if (!rc && interrupt_caught())
		rc = error_set(err, "interrupted");
	if (!rc) {
		snprintf(res->run_dir, sizeof(res->run_dir), "%s", o->cell_dir);
		judge(o, base_ok, res, l);
	}
	free(o);
	return rc;
}

/* The per-mutant run timeout: --timeout, else twice the base run and a minute. */
static int mutant_timeout(const struct mutate_opts *o, const struct mutant_result *base)
{
	return o->timeout_s ? o->timeout_s : (int)(2 * base->run_s) + 60;
}

/* ---- a child: one mutant ---- */

static int read_line_file(const char *path, char *out, size_t cap, struct error *err)
{
	struct buf text = BUF_INIT;
	int rc = read_file(path, &text, err);

	if (!rc)
		snprintf(out, cap, "%.*s", (int)strcspn(buf_str(&text), "\n"), buf_str(&text));
	buf_free(&text);
	return rc;
}

/* The base object's sha256 of file, from base/objects. */
static void base_object(const struct mutate_opts *o, const char *file, char sha[65])
{
	char *path = out_path(o, "base/objects");
	struct buf text = BUF_INIT;
	struct error ignored;

	sha[0] = '\0';
	if (!read_file(path, &text, &ignored))
		for (const char *p = buf_str(&text); *p; p = next_line(p)) {
			size_t n = strcspn(p, " ");

			if (n == strlen(file) && !strncmp(p, file, n) && p[n] == ' ')
				snprintf(sha, 65, "%.64s", p + n + 1);
		}
	buf_free(&text);
	free(path);
}

/* OUT/rel's lines into v. */
static void read_lines(const struct mutate_opts *o, const char *rel, struct strvec *v)
{
	char *path = out_path(o, "%s", rel);
	struct buf text = BUF_INIT;
	struct error ignored;

	if (!read_file(path, &text, &ignored))
		for (const char *p = buf_str(&text); *p; p = next_line(p))
			strvec_pushf(v, "%.*s", (int)strcspn(p, "\n"), p);
	buf_free(&text);
	free(path);
}

/*
 * The mutant's kernel k on each topology in turn, judged against that
 * topology's base run: killed on the first that kills it (the rest are not
 * booted), survived if none does.  res->run_s adds the runs up.
 */
static int run_topologies(struct mrun *r, const struct kernel *k, const char *dir, struct mutant_result *res,
			  struct error *err)
{
	const struct mutate_opts *o = r->o;
	double run_s = 0;
	int rc = 0;

	for (size_t t = 0; !rc && t < r->topos.nr; t++) {
		const char *name = r->topo_names.items[t];
		char *base_result = out_path(o, "base/%s/result", name), *passed = xprintf("base/%s/passed", name);
		char *run = xprintf("%s/run/%s", dir, name);
		struct leaves l = { STRVEC_INIT, STRVEC_INIT };
		struct strvec base_ok = STRVEC_INIT;
		struct mutant_result base;

		if (mutant_result_read(base_result, &base, err))
			rc = error_set(err, "%s: no base run; run without --mutant first", base_result);
		else if (strcmp(base.guest, r->guest))
			rc = error_set(err, "%s: the base ran on other guest binaries; run without --mutant "
				       "first", base_result);
		res->why[0] = '\0';    /* a survivor's note is the last topology's */
		if (!rc) {
			read_lines(o, passed, &base_ok);
			remove_tree(run);
			rc = run_tests(r, r->topos.items[t], k, run, mutant_timeout(o, &base), &base_ok, res, &l, err);
			run_s += res->run_s;
		}
		if (!rc && r->topos.nr > 1 && res->why[0]) {
			char *why = xprintf("%s: %s", name, res->why);

			snprintf(res->why, sizeof(res->why), "%.*s", (int)sizeof(res->why) - 1, why);
			free(why);
		}
		leaves_free(&l);
		strvec_clear(&base_ok);
		free(base_result);
		free(passed);
		free(run);
		if (!rc && res->status == MUTANT_KILLED)
			break;
	}
	res->run_s = run_s;
	return rc;
}

static int mutate_one(struct mrun *r, struct error *err)
{
	const struct mutate_opts *o = r->o;
	char *dir = out_path(o, "mutants/%s", o->mutant), *diff = xprintf("%s/mutant.diff", dir);
	char *file_path = xprintf("%s/file", dir), *result = xprintf("%s/result", dir);
	char file[256], base_sha[65], objects[1][65];
	const char *sources[1] = { file };
	struct mutant_result res = { .build_s = -1, .run_s = -1 };
	struct kernel k;
	double t0 = now_s();
	int rc, make_failed = 0;

	rc = read_line_file(file_path, file, sizeof(file), err);
	if (!rc) {
		base_object(o, file, base_sha);
		progress("mutant %s: building in work tree %d", o->mutant, o->slot);
		rc = build(r, diff, o->slot, sources, 1, NULL, objects, 0, &k, &make_failed, err);
		res.build_s = now_s() - t0;
		if (rc && make_failed) {
			res.status = MUTANT_UNCOMPILABLE;
			snprintf(res.why, sizeof(res.why), "%s", err->msg);
			rc = 0;
		} else if (!rc && base_sha[0] && !strcmp(base_sha, objects[0])) {
			res.status = MUTANT_SAME_OBJECT;
			snprintf(res.why, sizeof(res.why), "%.*s.o is the original's, byte for byte",
				 (int)(strlen(file) - 2), file);
		} else if (!rc) {
			rc = run_topologies(r, &k, dir, &res, err);
		}
	}
	snprintf(res.guest, sizeof(res.guest), "%s", r->guest);
	if (!rc)
		rc = mutant_result_write(result, &res, err);
	free(dir);
	free(diff);
	free(file_path);
	free(result);
	return rc;
}

/* ---- the parent ---- */

/* The request's identity: a resume must be the same request. */
static void request_text(const struct mrun *r, const struct kernel *base, struct buf *out)
{
	const struct mutate_opts *o = r->o;

	buf_addf(out, "kernel %s\nkernel.key %s\narch %s\ntopo %s\ntests %s\n", o->kernel, base->version,
		 r->arch, o->topo, o->tests ? o->tests : "(the topology's)");
	for (int i = 0; i < o->nr_patches; i++)
		buf_addf(out, "patch %s\n", o->patches[i]);
	for (size_t i = 0; i < r->files.nr; i++)
		buf_addf(out, "file %s\n", r->files.items[i]);
	for (int i = 0; i < o->nr_functions; i++)
		buf_addf(out, "function %s\n", o->functions[i]);
	buf_addf(out, "patch-lines %d\n", o->patch_lines);
}

static int check_out(const struct mrun *r, const struct kernel *base, struct error *err)
{
	char *path = out_path(r->o, "request");
	struct buf want = BUF_INIT, have = BUF_INIT;
	struct error ignored;
	int rc = 0;

	request_text(r, base, &want);
	if (!read_file(path, &have, &ignored)) {
		if (strcmp(buf_str(&have), buf_str(&want)))
			rc = error_input(err, "%s was made for another request (%s differs); give another "
					 "--out, or remove it to start over", r->o->out, path);
	} else {
		rc = write_text(path, buf_str(&want), err);
	}
	buf_free(&want);
	buf_free(&have);
	free(path);
	return rc;
}

/* Keep only the mutants --ids names; an id not among them is the user's error. */
static int pick_ids(struct mrun *r, struct error *err)
{
	int kept = 0;

	for (int k = 0; k < r->o->nr_ids; k++) {
		int found = 0;

		for (int i = 0; i < r->list.nr; i++)
			found |= !strcmp(r->list.items[i].id, r->o->ids[k]);
		if (!found)
			return error_input(err, "--ids: no mutant %s among the %d of this request (the source "
					   "or the operators changed?); list them with --limit 0 --dry-run",
					   r->o->ids[k], r->list.nr);
	}
	for (int i = 0; i < r->list.nr; i++) {
		int wanted = 0;

		for (int k = 0; k < r->o->nr_ids; k++)
			wanted |= !strcmp(r->list.items[i].id, r->o->ids[k]);
		if (wanted) {
			struct mutant m = r->list.items[i];

			r->list.items[i] = r->list.items[kept];
			r->list.items[kept++] = m;
		}
	}
	for (int i = kept; i < r->list.nr; i++) {
		free(r->list.items[i].orig);
		free(r->list.items[i].repl);
	}
	r->list.nr = kept;
	return 0;
}

/* Of o->functions, those text defines, into fns; each found one marked in found[]. */
static int functions_of(const struct mutate_opts *o, const struct buf *text, const char **fns, int *found)
{
	struct c_function *f;
	int nr, n = 0;

	c_functions(text->data ? text->data : "", text->len, &f, &nr);
	for (int k = 0; k < o->nr_functions; k++)
		for (int i = 0; i < nr; i++)
			if (!strcmp(f[i].name, o->functions[k])) {
				fns[n++] = o->functions[k];
				found[k] = 1;
				break;
			}
	free(f);
	return n;
}

static int generate(struct mrun *r, int **lines, int *nr_lines, struct error *err)
{
	const char **fns = xcalloc((size_t)r->o->nr_functions + 1, sizeof(*fns));
	int *found = xcalloc((size_t)r->o->nr_functions + 1, sizeof(*found)), rc = 0;

	for (size_t i = 0; !rc && i < r->files.nr; i++) {
		int n = functions_of(r->o, &r->texts[i], fns, found);
		struct mutant_scope sc = { .functions = fns, .nr_functions = n, .lines = lines[i],
					   .nr_lines = nr_lines[i] };

		if ((r->o->patch_lines && !nr_lines[i]) || (r->o->nr_functions && !n))
			continue;
		rc = mutant_generate(r->files.items[i], buf_str(&r->texts[i]), r->texts[i].len, &sc, &r->list,
				     err);
	}
	for (int k = 0; !rc && k < r->o->nr_functions; k++)
		if (!found[k]) {
			struct buf names = BUF_INIT;

			for (size_t i = 0; i < r->files.nr; i++)
				buf_addf(&names, "%s%s", i ? ", " : "", r->files.items[i]);
			rc = error_input(err, "--function %s: not defined in %s; give a function of the "
					 "--file(s)", r->o->functions[k], buf_str(&names));
			buf_free(&names);
		}
	free(fns);
	free(found);
	if (rc)
		return -1;
	mutant_sort_by_id(&r->list);
	if (r->o->nr_ids && pick_ids(r, err))
		return -1;
	if (r->o->sample)
		mutant_sample(&r->list, r->o->sample, (unsigned)r->o->seed, &r->sample);
	if (r->o->limit && r->list.nr > r->o->limit) {
		struct mutant_list all = r->list;

		for (int i = r->o->limit; i < all.nr; i++) {
			free(all.items[i].orig);
			free(all.items[i].repl);
		}
		r->list.nr = r->o->limit;
	}
	return 0;
}

static const struct buf *text_of(const struct mrun *r, const char *file)
{
	for (size_t i = 0; i < r->files.nr; i++)
		if (!strcmp(r->files.items[i], file))
			return &r->texts[i];
	return NULL;
}

static int write_mutants(struct mrun *r, struct error *err)
{
	int rc = 0;

	for (int i = 0; !rc && i < r->list.nr; i++) {
		const struct mutant *m = &r->list.items[i];
		const struct buf *t = text_of(r, m->file);
		char *diff = out_path(r->o, "mutants/%s/mutant.diff", m->id);
		char *file = out_path(r->o, "mutants/%s/file", m->id);
		struct buf d = BUF_INIT;

		buf_addf(&d, "numalab mutant %s: %s:%d (%s) %s: %s\n\n", m->id, m->file, m->line, m->function,
			 mutant_op_name(m->op), m->what);
		mutant_diff(m, t->data, t->len, &d);
		rc = write_text(diff, buf_str(&d), err);
		if (!rc) {
			char *line = xprintf("%s\n", m->file);

			rc = write_text(file, line, err);
			free(line);
		}
		buf_free(&d);
		free(diff);
		free(file);
	}
	return rc;
}

/*
 * The unmutated kernel's run, once per OUT: its passing tests (base/passed)
 * are what a mutant must keep passing; tests it fails already are named
 * and left out.  A base that crashes, times out or passes nothing cannot
 * judge mutants.
 */
static int base_run(struct mrun *r, const struct kernel *k, size_t t, struct mutant_result *base,
		    struct error *err)
{
	const char *name = r->topo_names.items[t];
	char *path = out_path(r->o, "base/%s/result", name), *run = out_path(r->o, "base/%s/run", name);
	char *passed = out_path(r->o, "base/%s/passed", name);
	int rc = mutant_result_read(path, base, err);

	if (!rc && strcmp(base->guest, r->guest)) {
		progress("the guest binaries changed since the unmutated kernel's run on %s", name);
		rc = 1;
	}
	if (rc == 1) {
		struct leaves l = { STRVEC_INIT, STRVEC_INIT };
		struct buf text = BUF_INIT;

		progress("running %s on the unmutated kernel on %s", r->o->tests ? r->o->tests : "the tests",
			 name);
		remove_tree(run);
		memset(base, 0, sizeof(*base));
		rc = run_tests(r, r->topos.items[t], k, run, r->o->timeout_s, NULL, base, &l, err);
		base->build_s = k->build_s;
		if (!rc && (!l.ok.nr || !strncmp(base->why, "guest ", 6)))
			rc = error_input(err, "the unmutated kernel on %s %s (see %s): mutants cannot be judged; "
					 "fix the tests or the kernel first", name, l.ok.nr ? base->why :
					 "passes no test", base->run_dir);
		if (!rc && l.failed.nr) {
			char names[400];

			name_list(&l.failed, NULL, names, sizeof(names));
			warning("the unmutated kernel on %s fails %zu tests already (%s): mutants are judged "
				"by the %zu it passes", name, l.failed.nr, names, l.ok.nr);
		}
		for (size_t i = 0; i < l.ok.nr; i++)
			buf_addf(&text, "%s\n", l.ok.items[i]);
		snprintf(base->guest, sizeof(base->guest), "%s", r->guest);
		if (!rc)
			rc = write_text(passed, buf_str(&text), err);
		if (!rc)
			rc = mutant_result_write(path, base, err);
		buf_free(&text);
		leaves_free(&l);
	}
	free(path);
	free(run);
	free(passed);
	return rc;
}

static void numalab_argv(const struct mrun *r, const char *id, int slot, struct strvec *argv)
{
	strvec_pushf(argv, "%s/numalab", lab_root());
	for (int i = 0; r->o->self_argv[i]; i++)
		strvec_push(argv, r->o->self_argv[i]);
	strvec_push(argv, "--mutant");
	strvec_push(argv, id);
	strvec_pushf(argv, "--slot=%d", slot);
}

static int next_mutant(void *ctx, struct parallel_task *task)
{
	struct mrun *r = ctx;
	int slot = -1;

	while (r->next < r->list.nr && r->results[r->next].status != MUTANT_NOT_RUN)
		r->next++;
	if (r->next >= r->list.nr)
		return PARALLEL_DONE;
	for (int k = 0; k < r->o->jobs && slot < 0; k++)
		if (!r->busy[k])
			slot = k;
	if (slot < 0)
		return PARALLEL_WAIT;
	r->busy[slot] = 1;
	numalab_argv(r, r->list.items[r->next].id, r->o->slot + slot, &task->argv);
	snprintf(task->log, sizeof(task->log), "%s/mutants/%s/log", r->o->out, r->list.items[r->next].id);
	task->data = (void *)(long)(r->next * MAX_JOBS + slot);
	r->next++;
	return PARALLEL_START;
}

static void finished_mutant(void *ctx, struct parallel_task *task, const struct parallel_end *end)
{
	struct mrun *r = ctx;
	long data = (long)task->data;
	int i = (int)(data / MAX_JOBS), slot = (int)(data % MAX_JOBS);
	const struct mutant *m = &r->list.items[i];
	char *path = out_path(r->o, "mutants/%s/result", m->id);
	struct mutant_result *res = &r->results[i];
	struct error err;

	r->busy[slot] = 0;
	r->done++;
	if (mutant_result_read(path, res, &err) || res->status == MUTANT_NOT_RUN) {
		char last[300];

		file_last_line(task->log, last, sizeof(last));
		res->status = MUTANT_NOT_RUN;
		show(r->o, "[%d/%d] %s %s:%d %s: no result (%s%s): %s\n", r->done, r->list.nr, m->id,
		     m->function, m->line, mutant_op_name(m->op), end->interrupted ? "interrupted, " : "",
		     end->code < 0 && end->err ? end->err->msg : "see its log", last);
	} else {
		show(r->o, "[%d/%d] %s %s:%d %s (%s): %s%s%s; build %.0f s, run %.0f s, %.0f s in all\n",
		     r->done, r->list.nr, m->id, m->function, m->line, mutant_op_name(m->op), m->what,
		     mutant_status_name(res->status), res->why[0] ? ": " : "", res->status == MUTANT_UNCOMPILABLE ?
		     "" : res->why, res->build_s, res->run_s < 0 ? 0 : res->run_s, end->elapsed_s);
	}
	free(path);
}

/* path as the user knows it: relative to the project when inside it. */
static const char *display_path(const char *path)
{
	size_t n = strlen(lab_root());

	return !strncmp(path, lab_root(), n) && path[n] == '/' ? path + n + 1 : path;
}

static int write_reports(struct mrun *r, const struct mutate_report *rep, struct error *err)
{
	static const struct {
		const char *ext;
		void (*fn)(const struct mutate_report *, struct buf *);
	} kinds[] = { { "txt", mutate_report_text }, { "tap", mutate_report_tap },
		      { "json", mutate_report_json }, { "html", mutate_report_html } };
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct buf b = BUF_INIT;
		char *path = out_path(r->o, "report.%s", kinds[i].ext);

		kinds[i].fn(rep, &b);
		rc = write_file_atomic(path, b.data ? b.data : "", b.len, err);
		if (i == 0 && !rc)
			show(r->o, "%s", buf_str(&b));
		buf_free(&b);
		free(path);
	}
	if (!rc)
		progress("reports: %s/report.{txt,tap,json,html}", r->o->out);
	return rc;
}

static int report(struct mrun *r, enum mutate_verdict *v, struct error *err)
{
	const char **diffs = xcalloc((size_t)r->list.nr + 1, sizeof(*diffs));
	struct buf title = BUF_INIT;
	struct mutate_score s;
	int rc;

	for (int i = 0; i < r->list.nr; i++) {
		const struct mutant *m = &r->list.items[i];
		const struct buf *t = text_of(r, m->file);
		struct buf d = BUF_INIT;

		mutant_diff(m, t->data, t->len, &d);
		diffs[i] = xstrdup(buf_str(&d));
		buf_free(&d);
	}
	for (size_t i = 0; i < r->files.nr; i++)
		buf_addf(&title, "%s%s", i ? ", " : "", r->files.items[i]);
	buf_addf(&title, "; kernel %s", r->o->kernel);
	for (int i = 0; i < r->o->nr_patches; i++)
		buf_addf(&title, " + %s", r->o->patches[i]);
	buf_addf(&title, "; topology %s; tests %s", r->o->topo, r->o->tests ? r->o->tests : "(the topology's)");
	struct mutate_report rep = { .title = buf_str(&title), .mutants = r->list.items, .results = r->results,
				     .diffs = diffs, .nr = r->list.nr, .eq = &r->eq,
				     .equivalents_path = r->eq_path[0] ? display_path(r->eq_path) : NULL,
				     .sample = r->o->sample ? &r->sample : NULL };

	rc = write_reports(r, &rep, err);
	mutate_score_of(&rep, NULL, NULL, &s);
	*v = s.survived ? MUTATE_SURVIVORS : s.not_run ? MUTATE_INCOMPLETE : MUTATE_ALL_KILLED;
	for (int i = 0; i < r->list.nr; i++)
		free((char *)diffs[i]);
	free(diffs);
	buf_free(&title);
	return rc;
}

static int mutate_all(struct mrun *r, enum mutate_verdict *v, struct error *err)
{
	const struct mutate_opts *o = r->o;
	int **lines = xcalloc((size_t)o->nr_files + MAX_PATCH_FILES, sizeof(*lines));
	int *nr_lines = xcalloc((size_t)o->nr_files + MAX_PATCH_FILES, sizeof(*nr_lines));
	struct mutant_result base;
	struct kernel k;
	int rc = 0, make_failed, kept = 0, stale = 0;
	double base_run_s = 0;
	int timeout_s = 0, fresh_selftests;
	char *kst = base_selftests(r);

	for (int i = 0; i < o->nr_files; i++)
		strvec_push(&r->files, o->files[i]);
	if (o->patch_lines)
		rc = patch_files_and_lines(r, lines, nr_lines, err);
	if (!rc && !r->files.nr)
		rc = error_input(err, "the --patch files change no C file: nothing to mutate");
	if (rc)
		goto out;
	r->texts = xcalloc(r->files.nr, sizeof(*r->texts));
	r->objects = xcalloc(r->files.nr, sizeof(*r->objects));
	/* The sources first, so that a function they lack is said before a build. */
	rc = build(r, NULL, o->slot, (const char *const *)r->files.items, (int)r->files.nr, r->texts, r->objects, 1,
		   &k, &make_failed, err);
	if (!rc)
		rc = generate(r, lines, nr_lines, err);
	if (!rc && o->dry_run) {
		for (int i = 0; i < r->list.nr; i++) {
			const struct mutant *m = &r->list.items[i];

			show(o, "%s %s:%d %s %s (%s)\n    %s\n", m->id, m->file, m->line, m->function,
			     mutant_op_name(m->op), m->what, m->repl);
		}
		if (o->sample) {
			int population = 0;

			for (int h = 0; h < r->sample.nr; h++)
				population += r->sample.strata[h].population;
			show(o, "%d of %d mutants (a sample stratified by %d functions, seed %d)\n", r->list.nr,
			     population, r->sample.nr, o->seed);
		} else {
			show(o, "%d mutants\n", r->list.nr);
		}
		*v = MUTATE_ALL_KILLED;
		goto out;
	}
	if (!rc)
		rc = check_out(r, &k, err);
	if (!rc)
		rc = write_mutants(r, err);
	if (rc)
		goto out;
	r->results = xcalloc((size_t)r->list.nr + 1, sizeof(*r->results));
	for (int i = 0; i < r->list.nr; i++) {
		char *path = out_path(o, "mutants/%s/result", r->list.items[i].id);
		struct error ignored;

		if (mutant_result_read(path, &r->results[i], &ignored))
			r->results[i].status = MUTANT_NOT_RUN;
		if ((r->results[i].status == MUTANT_KILLED || r->results[i].status == MUTANT_SURVIVED) &&
		    strcmp(r->results[i].guest, r->guest)) {
			r->results[i].status = MUTANT_NOT_RUN;
			stale++;
		}
		kept += r->results[i].status != MUTANT_NOT_RUN;
		free(path);
	}
	if (stale)
		progress("%d mutants judged by other guest binaries (`make guest` since): judging them "
			 "again", stale);
	if (kept == r->list.nr) {   /* all judged: nothing to build or boot */
		progress("%d mutants (%d already judged)", r->list.nr, kept);
		rc = report(r, v, err);
		goto out;
	}
	fresh_selftests = !file_exists(kst);
	progress("building the unmutated kernel in work tree %d", o->slot);
	rc = build(r, NULL, o->slot, (const char *const *)r->files.items, (int)r->files.nr, NULL, r->objects, 0,
		   &k, &make_failed, err);
	if (rc && make_failed)   /* the user's tree, unmutated, does not build: theirs to fix */
		error_as_input(err);
	if (!rc) {
		struct buf objs = BUF_INIT;
		char *path = out_path(o, "base/objects");

		for (size_t i = 0; i < r->files.nr; i++)
			buf_addf(&objs, "%s %s\n", r->files.items[i], r->objects[i]);
		rc = write_text(path, buf_str(&objs), err);
		buf_free(&objs);
		free(path);
	}
	for (size_t t = 0; !rc && fresh_selftests && k.selftests[0] && t < r->topos.nr; t++) {
		/* An OUT from before mutants took the selftests: its base ran without them. */
		char *result = out_path(o, "base/%s/result", r->topo_names.items[t]);

		unlink(result);
		free(result);
	}
	for (size_t t = 0; !rc && t < r->topos.nr; t++) {
		rc = base_run(r, &k, t, &base, err);
		base_run_s += base.run_s;
		timeout_s += mutant_timeout(o, &base);
	}
	if (rc)
		goto out;
	progress("%d mutants (%d already judged); base: build %.0f s, tests %.0f s; per-mutant timeout %d s%s",
		 r->list.nr, kept, k.build_s, base_run_s, timeout_s, r->topos.nr > 1 ? " (all topologies)" : "");
	r->done = kept;
	r->t0 = now_s();
	struct parallel pp = { .jobs = o->jobs, .grace_s = 10, .next = next_mutant, .finished = finished_mutant,
			       .interrupted = interrupt_caught, .ctx = r };

	if (parallel_run(&pp))
		rc = error_set(err, "interrupted (signal %d): run again with --out %s to resume",
			       interrupt_caught(), o->out);
	if (r->done > kept)
		progress("%d mutants in %.0f s: %.0f s per mutant", r->done - kept, now_s() - r->t0,
			 (now_s() - r->t0) / (r->done - kept));
	if (report(r, v, rc ? &(struct error){ 0 } : err) && !rc)
		rc = -1;
out:
	for (int i = 0; i < o->nr_files + MAX_PATCH_FILES; i++)
		free(lines[i]);
	free(lines);
	free(nr_lines);
	free(kst);
	return rc;
}

int mutate_run(const struct mutate_opts *o, enum mutate_verdict *v, struct error *err)
{
	struct mrun *r = xcalloc(1, sizeof(*r));
	int rc;

	r->o = o;
	*v = MUTATE_INCOMPLETE;
	rc = check_request(r, err);
	if (!rc && o->jobs > MAX_JOBS)
		rc = error_input(err, "--jobs %d: at most %d work trees", o->jobs, MAX_JOBS);
	if (!rc)
		rc = load_equivalents(r, err);
	if (!rc)
		rc = guest_key(r, err);
	if (!rc)
		rc = o->mutant ? mutate_one(r, err) : mutate_all(r, v, err);
	if (r->texts)
		for (size_t i = 0; i < r->files.nr; i++)
			buf_free(&r->texts[i]);
	free(r->texts);
	free(r->objects);
	strvec_clear(&r->files);
	strvec_clear(&r->topos);
	strvec_clear(&r->topo_names);
	strvec_clear(&r->guest_tests);
	mutant_list_free(&r->list);
	mutant_sample_free(&r->sample);
	mutant_equivalents_free(&r->eq);
	free(r->results);
	free(r);
	return rc;
}
