#include "drive/try.h"
#include "analysis/compare.h"
#include "base/interrupt.h"
#include "base/progress.h"
#include "kernel/kbuild.h"
#include "kernel/resolve.h"
#include "model/labdata.h"
#include "model/patch.h"
#include "model/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TRY_INPUTS_FILE "inputs"
#define TRY_IDENTITY_FILE "identity"
#define TRY_MATRIX_FILE "try.matrix"
#define TRY_ARCHES 2

struct try_state {
	const struct try_opts *o;
	struct strvec topos, suites, patch_copies, arches;
	struct buf *patch_texts;      /* each patch file as read, o->nr_patches of them */
	int repeat;
	char base_spec[4096];         /* the recipe name, or the tree's absolute path */
	struct try_identity id;
	char title[512], repeat_why[256];
};

static void split_list(const char *s, struct strvec *out)
{
	char *copy = xstrdup(s ? s : ""), *save, *item;

	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if (*item)
			strvec_push(out, item);
	free(copy);
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int out_path(const struct try_state *t, const char *name, char *path, size_t cap)
{
	return snprintf(path, cap, "%s/%s", t->o->out, name) >= (int)cap ? -1 : 0;
}

/* The shapes, suites and base exist; the arches the shapes need, in order. */
static int check_inputs(struct try_state *t, struct error *err)
{
	const struct try_opts *o = t->o;
	char path[4096];

	split_list(o->topos, &t->topos);
	split_list(o->suites, &t->suites);
	if (!t->topos.nr)
		return error_input(err, "--topos: give one or more topologies, e.g. --topos 2node,4node");
	if (!t->suites.nr)
		return error_input(err, "--suites: give one or more guest suites, e.g. --suites mempolicy");
	for (size_t i = 0; i < t->topos.nr; i++) {
		struct topology topo;
		struct topo_error terr;
		const char *arch;
		int seen = 0;

		lab_data_path(lab_root(), LAB_DATA_TOPOLOGY, t->topos.items[i], path, sizeof(path));
		if (topo_load(path, &topo, &terr))
			return error_input(err, "--topos: topology '%s': %s", t->topos.items[i], terr.msg);
		arch = topo_arch_name(topo.arch);
		for (size_t a = 0; a < t->arches.nr; a++)
			seen |= !strcmp(t->arches.items[a], arch);
		if (!seen)
			strvec_push(&t->arches, arch);
	}
	for (size_t i = 0; i < t->suites.nr; i++) {
		snprintf(path, sizeof(path), "%s/tests/guest/suites/%s/.", lab_root(), t->suites.items[i]);
		if (!file_exists(path))
			return error_input(err, "--suites: '%s' is not a guest suite under tests/guest/suites/ "
					   "(topology, mempolicy, khugepaged, workloads, ...)", t->suites.items[i]);
	}
	if (is_dir(o->base)) {
		if (!realpath(o->base, t->base_spec))
			return error_input(err, "--base %s: cannot resolve the directory", o->base);
	} else if (!strchr(o->base, '/') && kbuild_has_recipe(lab_root(), o->base)) {
		snprintf(t->base_spec, sizeof(t->base_spec), "%s", o->base);
	} else {
		return error_input(err, "--base %s: not a recipe (kernels/recipes/NAME.recipe) nor a kernel "
				   "source tree; patches go on a kernel built from source, e.g. --base stock",
				   o->base);
	}
	t->repeat = o->repeat ? o->repeat : TRY_DEFAULT_REPEAT;
	snprintf(t->repeat_why, sizeof(t->repeat_why), "%s", o->repeat ?
		 (o->repeat < 2 ? "--repeat 1: one sample a side, so no metric can be judged" : "--repeat") :
		 "the default: the fewest that give Welch's test two degrees of freedom a side");
	return 0;
}

/*
 * Before anything is written: every patch file parses (patch.h).  Their
 * texts are kept for the copies, and OUT/inputs's lines (their sha256)
 * go to inputs; a file that is no patch is ERROR_INPUT naming it.
 */
static int read_patches(struct try_state *t, struct buf *inputs, struct error *err)
{
	if (!t->o->nr_patches)
		return error_input(err, "which patches? give one or more files (format-patch, an mbox series, a mail)");
	t->patch_texts = xcalloc((size_t)t->o->nr_patches, sizeof(*t->patch_texts));
	for (int i = 0; i < t->o->nr_patches; i++) {
		const char *file = t->o->patches[i];
		struct buf *text = &t->patch_texts[i];
		struct patch_set set;
		struct sha256 s;
		unsigned char d[32];
		char hex[65];

		if (read_file(file, text, err)) {
			error_as_input(err);
			return error_prefix(err, "patch file");
		}
		if (patch_parse(file, buf_str(text), text->len, &set, err))
			return -1;
		patch_set_free(&set);
		sha256_init(&s);
		sha256_update(&s, buf_str(text), text->len);
		sha256_final(&s, d);
		sha256_hex(d, hex);
		buf_addf(inputs, "patch: %s sha256:%s\n", file, hex);
	}
	return 0;
}

/* The patches' copies under OUT/patches/, NN-BASENAME, in order. */
static int copy_patches(struct try_state *t, struct error *err)
{
	char dir[4096], path[4200];

	if (out_path(t, "patches", dir, sizeof(dir)) || mkdir_p(dir, err))
		return -1;
	for (int i = 0; i < t->o->nr_patches; i++) {
		const char *file = t->o->patches[i], *base = strrchr(file, '/');

		base = base ? base + 1 : file;
		snprintf(path, sizeof(path), "%s/%02d-%s", dir, i + 1, base);
		if (write_file_atomic(path, buf_str(&t->patch_texts[i]), t->patch_texts[i].len, err))
			return -1;
		strvec_pushf(&t->patch_copies, "patches/%02d-%s", i + 1, base);
	}
	return 0;
}

/* OUT/inputs: new, or the same as this command's (a resume). */
static int claim_out(struct try_state *t, const struct buf *patch_lines, struct error *err)
{
	struct buf inputs = BUF_INIT, old = BUF_INIT;
	char path[4096];
	struct error ignored;
	int rc = -1;

	if (mkdir_p(t->o->out, err))
		return -1;
	buf_addf(&inputs, "base: %s\ntopos:", t->base_spec);
	for (size_t i = 0; i < t->topos.nr; i++)
		buf_addf(&inputs, " %s", t->topos.items[i]);
	buf_addstr(&inputs, "\nsuites:");
	for (size_t i = 0; i < t->suites.nr; i++)
		buf_addf(&inputs, " %s", t->suites.items[i]);
	buf_addf(&inputs, "\nrepeat: %d\naccel: %s\n", t->repeat, t->o->accel ? t->o->accel : "auto");
	buf_add(&inputs, buf_str((struct buf *)patch_lines), patch_lines->len);
	if (out_path(t, TRY_INPUTS_FILE, path, sizeof(path)))
		goto done;
	if (!read_file(path, &old, &ignored) && strcmp(buf_str(&old), buf_str(&inputs))) {
		for (size_t i = 0; i < old.len; i++)
			old.data[i] = old.data[i] == '\n' ? ' ' : old.data[i];
		error_input(err, "%s holds a try of other inputs (%s: %.300s); give a new --out, "
			    "or the same arguments to resume it", t->o->out, path, buf_str(&old));
		goto done;
	}
	rc = copy_patches(t, err) || write_file_atomic(path, buf_str(&inputs), inputs.len, err) ? -1 : 0;
done:
	buf_free(&inputs);
	buf_free(&old);
	return rc;
}

/* "base x86_64: stock recipe-key K (SOURCE)" */
static void kernel_line(struct buf *b, const char *side, const struct kernel *k)
{
	buf_addf(b, "kernel: %s %s: %s", side, k->arch, k->name);
	if (k->tree[0])
		buf_addf(b, " tree %s%s%s", k->tree, k->tree_describe[0] ? " at " : "", k->tree_describe);
	if (k->version[0])
		buf_addf(b, " %s", k->version);
	if (k->source[0])
		buf_addf(b, " (%s)", k->source);
	buf_addstr(b, "\n");
}

/* "patch: SUBJECT (NAME, sha256:HEX)" for each patch of k. */
static void patch_lines(struct buf *b, const struct kernel *k)
{
	const char *names = k->patches, *subjects = k->patch_subjects;

	while (*names) {
		size_t n = strcspn(names, ","), s = strcspn(subjects, "\n");

		buf_addf(b, "patch: %.*s (%.*s)\n", (int)s, subjects, (int)n, names);
		names += n + (names[n] == ',');
		names += strspn(names, " ");
		subjects += s + (subjects[s] == '\n');
	}
}

/* Base and base + patches for every arch, in this process, so their progress shows. */
static int build_kernels(struct try_state *t, struct error *err)
{
	const char **files = xcalloc((size_t)t->o->nr_patches + 1, sizeof(char *));
	struct buf ident = BUF_INIT;
	char path[4096];
	int rc = 0;

	for (size_t i = 0; i < t->patch_copies.nr; i++) {
		files[i] = xprintf("%s/%s", t->o->out, t->patch_copies.items[i]);
	}
	for (size_t a = 0; a < t->arches.nr && !rc; a++) {
		const struct kernel_request sides[2] = {
			{ t->base_spec, NULL, 0 },
			{ t->base_spec, files, (int)t->patch_copies.nr },
		};
		static const char *const side_name[2] = { "base", "patched" };

		for (int s = 0; s < 2 && !rc; s++) {
			struct kernel k;

			progress("%s kernel for %s: %s%s", side_name[s], t->arches.items[a], t->base_spec,
				 s ? " + the patches" : "");
			memset(&k, 0, sizeof(k));
			rc = kernel_resolve_request(lab_root(), &sides[s], t->arches.items[a], &k, err);
			if (!rc) {
				progress("%s kernel for %s ready (%s, %.1f s)", side_name[s], t->arches.items[a],
					 k.built ? "built" : "cached", k.build_s);
				kernel_line(&ident, side_name[s], &k);
				if (s && !a)
					patch_lines(&ident, &k);
			}
			if (!rc && interrupt_caught())
				rc = error_set(err, "interrupted; run the same command to resume");
		}
	}
	if (!rc && !out_path(t, TRY_IDENTITY_FILE, path, sizeof(path)))
		rc = write_file_atomic(path, buf_str(&ident), ident.len, err);
	for (size_t i = 0; i < t->patch_copies.nr; i++)
		free((char *)files[i]);
	free(files);
	buf_free(&ident);
	return rc;
}

static int write_matrix(struct try_state *t, struct error *err)
{
	struct buf m = BUF_INIT;
	char path[4096];
	int rc;

	buf_addstr(&m, "# Written by numalab try from its command line (OUT/inputs); the patched\n"
		   "# kernel is the base with OUT/patches/ on top, in order.\ntopology");
	for (size_t i = 0; i < t->topos.nr; i++)
		buf_addf(&m, " %s", t->topos.items[i]);
	buf_addf(&m, "\nkernel base = %s\nkernel patched = %s\npatch patched", t->base_spec, t->base_spec);
	for (size_t i = 0; i < t->patch_copies.nr; i++)
		buf_addf(&m, " %s", t->patch_copies.items[i]);
	buf_addstr(&m, "\nsuite");
	for (size_t i = 0; i < t->suites.nr; i++)
		buf_addf(&m, " %s", t->suites.items[i]);
	buf_addf(&m, "\nrepeat %d\n", t->repeat);
	if (t->o->accel)
		buf_addf(&m, "accel %s\n", t->o->accel);
	rc = out_path(t, TRY_MATRIX_FILE, path, sizeof(path)) ? -1 :
	     write_file_atomic(path, buf_str(&m), m.len, err);
	buf_free(&m);
	return rc;
}

static int run_cells(struct try_state *t, enum matrix_verdict *mv, struct error *err)
{
	char file[4096], out[4200];
	struct matrix_run_opts mo = { .mode = MATRIX_RUN, .jobs = t->o->jobs, .shard = t->o->shard,
				      .nr_shards = t->o->nr_shards, .quiet = 1, .resume_out = t->o->out,
				      .lava = t->o->lava, .show = t->o->show };

	out_path(t, TRY_MATRIX_FILE, file, sizeof(file));
	if (t->o->nr_shards > 1)
		snprintf(out, sizeof(out), "%s/shard-%d-of-%d", t->o->out, t->o->shard, t->o->nr_shards);
	else
		snprintf(out, sizeof(out), "%s/matrix", t->o->out);
	mo.file = file;
	mo.out = out;
	return matrix_run(&mo, mv, err);
}

/* The identity for the reports, from OUT/identity (written by the build). */
static int read_identity(struct try_state *t, struct error *err)
{
	struct buf text = BUF_INIT;
	char path[4096];

	if (out_path(t, TRY_IDENTITY_FILE, path, sizeof(path)))
		return error_input(err, "--out %s: too long a path; give a shorter one", t->o->out);
	if (read_file(path, &text, err)) {
		buf_free(&text);
		error_as_input(err);   /* --out names the directory: the user's */
		return error_prefix(err, "%s is not the output of a numalab try that built its kernels",
				    t->o->out);
	}
	for (const char *l = buf_str(&text); *l; l = next_line(l)) {
		int len = (int)strcspn(l, "\n");

		if (!strncmp(l, "kernel: ", 8))
			strvec_pushf(&t->id.kernels, "%.*s", len - 8, l + 8);
		else if (!strncmp(l, "patch: ", 7))
			strvec_pushf(&t->id.patches, "%.*s", len - 7, l + 7);
	}
	buf_free(&text);
	for (size_t i = 0; i < t->topos.nr; i++)
		strvec_push(&t->id.shapes, t->topos.items[i]);
	snprintf(t->title, sizeof(t->title), "numalab try: %zu patch%s on %s", t->id.patches.nr,
		 t->id.patches.nr == 1 ? "" : "es", t->o->base);
	t->id.title = t->title;
	t->id.repeat = t->repeat;
	t->id.repeat_why = t->repeat_why;
	return 0;
}

static int write_out(const struct try_state *t, const char *name, const struct try_report *r,
		     void (*writer)(const struct try_report *, struct buf *), struct error *err)
{
	struct buf b = BUF_INIT;
	char path[4096];
	int rc;

	writer(r, &b);
	rc = out_path(t, name, path, sizeof(path)) ? -1 : write_file_atomic(path, buf_str(&b), b.len, err);
	if (!rc && !strcmp(name, "report.txt") && t->o->show.text)
		t->o->show.text(t->o->show.ctx, buf_str(&b), b.len);
	buf_free(&b);
	return rc;
}

/* Base against patched over every finished cell below OUT, judged and written. */
static int report(struct try_state *t, int *regression, struct error *err)
{
	struct cmp_options co;
	struct comparison c;
	struct try_report r = { .c = &c, .id = &t->id, .claims = t->o->claims, .nr_claims = t->o->nr_claims };
	int rc;

	cmp_options_default(&co);
	co.correct_bh = 1;
	if (t->o->threshold_pct > 0)
		co.threshold_pct = t->o->threshold_pct;
	if (t->o->alpha > 0)
		co.alpha = t->o->alpha;
	/* Cells are OUT/matrix/cells/ID/ or OUT/shard-I-of-N/cells/ID/; partial/ attempts are not. */
	co.filter_a.cells = "*cells/*.base.*";
	co.filter_b.cells = "*cells/*.patched.*";
	if (compare_run(&c, t->o->out, t->o->out, &co, err)) {
		compare_free(&c);
		error_prefix(err, "comparing base with patched under %s", t->o->out);
		return -1;
	}
	try_judge(&r);
	*regression = r.regression;
	rc = write_out(t, "try.tap", &r, try_report_tap, err) || write_out(t, "try.json", &r, try_report_json, err) ||
	     write_out(t, "try.html", &r, try_report_html, err) || write_out(t, "report.txt", &r, try_report_text, err);
	if (!rc)
		progress("wrote %s/report.txt, try.tap, try.json, try.html", t->o->out);
	try_report_free(&r);
	compare_free(&c);
	return rc ? -1 : 0;
}

static void state_free(struct try_state *t)
{
	for (int i = 0; t->patch_texts && i < t->o->nr_patches; i++)
		buf_free(&t->patch_texts[i]);
	free(t->patch_texts);
	strvec_clear(&t->topos);
	strvec_clear(&t->suites);
	strvec_clear(&t->patch_copies);
	strvec_clear(&t->arches);
	strvec_clear(&t->id.kernels);
	strvec_clear(&t->id.patches);
	strvec_clear(&t->id.shapes);
}

int try_run(const struct try_opts *o, enum try_verdict *v, struct error *err)
{
	struct try_state t = { .o = o };
	enum matrix_verdict mv = MATRIX_PASSED;
	struct buf patch_lines = BUF_INIT;
	int rc = -1, regression = 0;

	*v = TRY_INCOMPLETE;
	if (check_inputs(&t, err) || read_patches(&t, &patch_lines, err) || claim_out(&t, &patch_lines, err))
		goto done;
	interrupt_catch();
	if (!o->report_only && (build_kernels(&t, err) || write_matrix(&t, err) || run_cells(&t, &mv, err)))
		goto done;
	if (interrupt_caught()) {
		progress("interrupted: no verdict written");
		rc = 0;
		goto done;
	}
	if (read_identity(&t, err) || report(&t, &regression, err))
		goto done;
	*v = regression ? TRY_REGRESSION : mv == MATRIX_INCOMPLETE ? TRY_INCOMPLETE : TRY_NO_REGRESSION;
	rc = 0;
done:
	buf_free(&patch_lines);
	state_free(&t);
	return rc;
}
