#include "drive/matrix_run.h"
#include "results/celldir.h"
#include "results/meta.h"
#include "results/results.h"
#include "base/progress.h"
#include "kernel/kbuild.h"
#include "kernel/pin.h"
#include "model/labdata.h"
#include "model/matrix.h"
#include "base/parallel.h"
#include "base/proc.h"
#include "analysis/report.h"
#include "model/topology.h"
#include "base/interrupt.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* QEMU's own memory and the host side of a guest, beyond its RAM (LoongArch: + firmware, toolroot). */
#define QEMU_OVERHEAD_X86 (256ULL << 20)
#define QEMU_OVERHEAD_LA (512ULL << 20)
/* A cell may boot up to three times (early crashes are retried), plus image, probe and firmware time. */
#define WATCHDOG_SLACK_S 300
#define GRACE_S 20
/* Cells submitted at once to a LAVA server unless --jobs says otherwise. */
#define MATRIX_LAVA_JOBS 32

struct mcell {
	struct matrix_cell c;
	const struct topology *topo;
	char dir[4096];          /* OUT/cells/ID */
	char not_run[sizeof(((struct error *)0)->msg)];   /* why it was not started (an error's message); "" */
	int todo;                /* to run in this invocation */
	int host;                /* index into the matrix's hosts; -1 local */
	unsigned long long mem;  /* host memory it needs while running (local) */
	char lava_state[160];    /* a LAVA cell's last job line shown ("" none yet) */
	double lava_seen;        /* when its log was last read */
};

struct build_job {
	const struct matrix_kernel *k;
	const char *spec;
	const char *name;        /* in messages: the spec, or with patches the label */
	const char *arch;
	char log[4200];
	char failed[sizeof(((struct error *)0)->msg)];
};

struct mrun {
	const struct matrix_run_opts *o;   /* NULL when merging */
	const char *out;
	struct matrix m;
	struct topology *topos;  /* one per m.topos */
	struct mcell *cells;
	int nr_cells, shard, nr_shards, quiet;
	int jobs, next, done, to_run;
	double cells_start;      /* when the first cell of this invocation started */
	unsigned long long mem_budget, mem_used;
	int *host_used;
	struct build_job *builds;
	int nr_builds, next_build;
};

/* Part of the report, to the caller's show(). */
static void show_text(const struct matrix_show *sh, const char *text, size_t len)
{
	if (sh && sh->text)
		sh->text(sh->ctx, text, len);
}

__attribute__((format(printf, 2, 3)))
static void show(const struct matrix_show *sh, const char *fmt, ...)
{
	char *s;
	va_list ap;

	va_start(ap, fmt);
	s = xvprintf(fmt, ap);
	va_end(ap);
	show_text(sh, s, strlen(s));
	free(s);
}

static const char *numalab_path(void)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/numalab", lab_root());
	return path;
}

/* The matrix file as the user knows it: relative to the project when inside it. */
static const char *display_path(const char *path)
{
	size_t n = strlen(lab_root());

	return !strncmp(path, lab_root(), n) && path[n] == '/' ? path + n + 1 : path;
}

static int load_matrix(const char *path, struct matrix *m, struct error *err)
{
	struct buf text = BUF_INIT;
	int rc = read_file(path, &text, err);

	if (rc) {
		error_as_input(err);
		error_prefix(err, "matrix file (a path, or NAME for matrices/NAME.matrix)");
	} else
		rc = matrix_parse(path, buf_str(&text), text.len, m, err);
	buf_free(&text);
	return rc;
}

static int lock_names_pin(const struct kernel_lock *lock, const char *name, const char *arch)
{
	return kernel_lock_find(lock, name, arch) != NULL;
}

/* The names in the file exist in this project: topologies, suites, kernels. */
static int check_names(struct mrun *r, struct error *err)
{
	const struct matrix *m = &r->m;
	struct kernel_lock *lock = xcalloc(1, sizeof(*lock));
	struct buf text = BUF_INIT;
	char path[4096];
	int rc = 0;

	r->topos = xcalloc((size_t)m->nr_topos, sizeof(*r->topos));
	for (int i = 0; i < m->nr_topos && !rc; i++)
		if (lab_topology_load(lab_root(), m->topos[i], &r->topos[i], err))
			rc = error_prefix(err, "%s:%d", m->path, m->topo_lines[i]);
	for (int i = 0; i < m->nr_suites && !rc; i++)
		if (lab_data_find(lab_root(), LAB_DATA_SUITE, m->suites[i], path, sizeof(path), err))
			rc = error_prefix(err, "%s:%d", m->path, m->suite_lines[i]);
	snprintf(path, sizeof(path), "%s/%s", lab_root(), KERNEL_LOCK_FILE);
	if (!rc && (read_file(path, &text, err) ||
		    kernel_lock_parse(path, buf_str(&text), text.len, lock, err)))
		rc = -1;
	for (int i = 0; i < m->nr_kernels && !rc; i++) {
		const struct matrix_kernel *k = &m->kernels[i];
		int known = strchr(k->spec, '/') ? file_exists(k->spec) :
			    lock_names_pin(lock, k->spec, "x86_64") ||
			    lock_names_pin(lock, k->spec, "loongarch64") ||
			    kbuild_has_recipe(lab_root(), k->spec) || file_exists(k->spec);

		if (!known)
			rc = error_input(err, "%s:%d: kernel '%s' is not a name in %s, a recipe in kernels/recipes/ "
					 "nor an existing file", m->path, k->line, k->spec, KERNEL_LOCK_FILE);
		for (size_t p = 0; p < k->patches.nr && !rc; p++)
			if (!file_exists(k->patches.items[p]))
				rc = error_input(err, "%s:%d: patch file %s does not exist (relative names are "
						 "read from the matrix file's folder)", m->path, k->patch_line,
						 k->patches.items[p]);
	}
	buf_free(&text);
	free(lock);
	return rc;
}

static unsigned long long mem_available(void)
{
	struct buf b = BUF_INIT;
	struct error ignored;
	unsigned long long kib = 0;
	const char *p;

	if (!read_file("/proc/meminfo", &b, &ignored) && (p = strstr(buf_str(&b), "MemAvailable:")))
		kib = strtoull(p + 13, NULL, 10);
	buf_free(&b);
	return kib << 10;
}

static const char *cell_arch(const struct mrun *r, const struct mcell *c)
{
	return topo_arch_name(r->topos[c->c.topo].arch);
}

/* The cells of this shard, with their directories and needs. */
static void plan_cells(struct mrun *r, struct matrix_cell *cells, int n)
{
	r->cells = xcalloc((size_t)(n ? n : 1), sizeof(*r->cells));
	r->nr_cells = n;
	for (int i = 0; i < n; i++) {
		struct mcell *c = &r->cells[i];
		const struct topology *t = &r->topos[cells[i].topo];

		c->c = cells[i];
		c->topo = t;
		c->host = -1;
		c->mem = topo_mem_bytes(t) + (t->arch == TOPO_ARCH_LOONGARCH64 ? QEMU_OVERHEAD_LA
									  : QEMU_OVERHEAD_X86);
		snprintf(c->dir, sizeof(c->dir), "%s/cells/%s", r->out, c->c.id);
	}
}

void matrix_cell_argv(const struct matrix *m, const struct matrix_cell *c, const char *dir, int host,
		      const struct matrix_lava *lava, struct strvec *argv)
{
	const struct matrix_kernel *k = &m->kernels[c->kernel];

	strvec_push(argv, numalab_path());
	strvec_push(argv, "run");
	strvec_pushf(argv, "--topo=%s", m->topos[c->topo]);
	strvec_pushf(argv, "--kernel=%s", k->spec);
	strvec_pushf(argv, "--tests=%s", m->suites[c->suite]);
	strvec_pushf(argv, "--out=%s", dir);
	if (c->timeout_s)
		strvec_pushf(argv, "--timeout=%d", c->timeout_s);
	if (c->accel != MATRIX_ACCEL_AUTO)
		strvec_pushf(argv, "--accel=%s", matrix_accel_name(c->accel));
	if (k->append[0])
		strvec_pushf(argv, "--append=%s", k->append);
	for (size_t p = 0; p < k->patches.nr; p++)
		strvec_pushf(argv, "--patch=%s", k->patches.items[p]);
	if (host >= 0 && strcmp(m->hosts[host].uri, "local")) {
		strvec_push(argv, "--backend=libvirt");
		strvec_pushf(argv, "--uri=%s", m->hosts[host].uri);
	}
	if (lava && lava->url) {
		strvec_pushf(argv, "--lava=%s", lava->url);
		if (lava->device_type)
			strvec_pushf(argv, "--lava-device-type=%s", lava->device_type);
		if (lava->artifacts)
			strvec_pushf(argv, "--lava-artifacts=%s", lava->artifacts);
	}
}

/* A cell's command line, as it is run. */
static void cell_argv(const struct mrun *r, const struct mcell *c, struct strvec *argv)
{
	matrix_cell_argv(&r->m, &c->c, c->dir, c->host, r->o ? &r->o->lava : NULL, argv);
}

static void dry_run(struct mrun *r)
{
	struct buf line = BUF_INIT;

	for (int i = 0; i < r->nr_cells; i++) {
		struct strvec argv = STRVEC_INIT;
		struct mcell *c = &r->cells[i];

		if (r->m.nr_hosts)
			c->host = r->cells[i].c.index % r->m.nr_hosts;
		cell_argv(r, c, &argv);
		line.len = 0;
		buf_addf(&line, "%-4d %s:", c->c.index, c->c.id);
		for (size_t a = 1; a < argv.nr; a++)
			buf_addf(&line, " %s", argv.items[a]);
		buf_addstr(&line, "\n");
		show_text(&r->o->show, buf_str(&line), line.len);
		strvec_clear(&argv);
	}
	buf_free(&line);
}

static void print_arches(const struct mrun *r)
{
	int seen[2] = { 0, 0 };

	for (int i = 0; i < r->nr_cells; i++) {
		enum topo_arch a = r->topos[r->cells[i].c.topo].arch;
		int k = a == TOPO_ARCH_LOONGARCH64;

		if (!seen[k]++)
			show(&r->o->show, "%s\n", topo_arch_name(a));
	}
}

/* Keep finished cells, move partial ones aside; count what is left to run. */
static int sort_out_cells(struct mrun *r, struct error *err)
{
	int kept = 0, aside = 0;

	for (int i = 0; i < r->nr_cells; i++) {
		struct mcell *c = &r->cells[i];
		struct celldir cd;
		char moved[4200];

		celldir_load(c->dir, &cd);
		c->todo = !cd.finished;
		kept += cd.finished;
		if (!cd.finished && cd.exists) {
			if (celldir_set_aside(r->out, c->c.id, moved, sizeof(moved), err))
				return celldir_free(&cd), -1;
			aside++;
		}
		celldir_free(&cd);
	}
	if (kept || aside)
		progress("resuming %s: %d of %d cells already finished (kept), "
			 "%d partial attempts moved to %s/partial/", r->out, kept, r->nr_cells, aside, r->out);
	return 0;
}

/* --- kernel builds: each recipe kernel once per arch, one at a time, before the cells */

static int is_recipe_kernel(const struct kernel_lock *lock, const char *spec, const char *arch)
{
	return !strchr(spec, '/') && !kernel_lock_find(lock, spec, arch) &&
	       kbuild_has_recipe(lab_root(), spec);
}

/* Two kernels of the matrix that are one build: the same spec and patches. */
static int same_build(const struct matrix_kernel *a, const struct matrix_kernel *b)
{
	if (strcmp(a->spec, b->spec) || a->patches.nr != b->patches.nr)
		return 0;
	for (size_t p = 0; p < a->patches.nr; p++)
		if (strcmp(a->patches.items[p], b->patches.items[p]))
			return 0;
	return 1;
}

static void plan_builds(struct mrun *r)
{
	struct kernel_lock *lock = xcalloc(1, sizeof(*lock));
	struct buf text = BUF_INIT;
	struct error ignored;
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", lab_root(), KERNEL_LOCK_FILE);
	if (read_file(path, &text, &ignored) || kernel_lock_parse(path, buf_str(&text), text.len, lock, &ignored))
		lock->nr = 0;
	r->builds = xcalloc((size_t)(r->nr_cells ? r->nr_cells : 1), sizeof(*r->builds));
	for (int i = 0; i < r->nr_cells; i++) {
		const struct matrix_kernel *k = &r->m.kernels[r->cells[i].c.kernel];
		const char *arch = cell_arch(r, &r->cells[i]);
		int seen = 0;

		if (!r->cells[i].todo || !is_recipe_kernel(lock, k->spec, arch))
			continue;
		for (int b = 0; b < r->nr_builds; b++)
			seen |= same_build(r->builds[b].k, k) && !strcmp(r->builds[b].arch, arch);
		if (seen)
			continue;
		r->builds[r->nr_builds].k = k;
		r->builds[r->nr_builds].spec = k->spec;
		r->builds[r->nr_builds].name = k->patches.nr ? k->label : k->spec;
		r->builds[r->nr_builds].arch = arch;
		snprintf(r->builds[r->nr_builds].log, sizeof(r->builds[0].log), "%s/kernels/%s.%s.log",
			 r->out, r->builds[r->nr_builds].name, arch);
		r->nr_builds++;
	}
	buf_free(&text);
	free(lock);
}

static int next_build(void *ctx, struct parallel_task *task)
{
	struct mrun *r = ctx;
	struct build_job *b;

	if (r->next_build == r->nr_builds)
		return PARALLEL_DONE;
	b = &r->builds[r->next_build++];
	if (snprintf(task->log, sizeof(task->log), "%s", b->log) >= (int)sizeof(task->log)) {
		snprintf(b->failed, sizeof(b->failed), "kernel %s: its log's path %.200s... is longer than "
			 "%zu characters; give a shorter --out", b->name, b->log, sizeof(task->log) - 1);
		return next_build(ctx, task);
	}
	strvec_push(&task->argv, numalab_path());
	strvec_push(&task->argv, "kernel");
	strvec_push(&task->argv, "build");
	strvec_push(&task->argv, b->spec);
	strvec_pushf(&task->argv, "--arch=%s", b->arch);
	for (size_t p = 0; p < b->k->patches.nr; p++)
		strvec_pushf(&task->argv, "--patch=%s", b->k->patches.items[p]);
	task->data = b;
	progress("kernel %s for %s (log %s)", b->name, b->arch, b->log);
	return PARALLEL_START;
}

static void build_finished(void *ctx, struct parallel_task *task, const struct parallel_end *end)
{
	struct build_job *b = task->data;
	char last[sizeof(((struct error *)0)->msg)];

	(void)ctx;
	if (end->code == 0) {
		progress("kernel %s for %s ready (%.1f s)", b->name, b->arch, end->elapsed_s);
		return;
	}
	if (end->code < 0)
		snprintf(last, sizeof(last), "%s", end->err->msg);
	else
		file_last_line(b->log, last, sizeof(last));
	snprintf(b->failed, sizeof(b->failed), "kernel %s (%s) build failed: %.200s; see %.200s", b->name,
		 b->arch, last, b->log);
	warning("%s", b->failed);
}

static int build_kernels(struct mrun *r)
{
	struct parallel pp = { 1, GRACE_S, next_build, build_finished, interrupt_caught, r, NULL };
	char dir[4200];
	struct error err;
	int interrupted;

	plan_builds(r);
	if (!r->nr_builds)
		return 0;
	snprintf(dir, sizeof(dir), "%s/kernels", r->out);
	if (mkdir_p(dir, &err)) {
		for (int b = 0; b < r->nr_builds; b++)
			snprintf(r->builds[b].failed, sizeof(r->builds[b].failed), "%s", err.msg);
		interrupted = 0;
	} else {
		interrupted = parallel_run(&pp);
	}
	for (int i = 0; i < r->nr_cells; i++) {
		struct mcell *c = &r->cells[i];

		for (int b = 0; b < r->nr_builds && c->todo; b++)
			if (r->builds[b].failed[0] && same_build(r->builds[b].k, &r->m.kernels[c->c.kernel]) &&
			    !strcmp(r->builds[b].arch, cell_arch(r, c))) {
				snprintf(c->not_run, sizeof(c->not_run), "%s", r->builds[b].failed);
				c->todo = 0;
			}
	}
	return interrupted;
}

/* --- the cells */

static int pick_host(struct mrun *r, struct mcell *c)
{
	if (!r->m.nr_hosts)
		return -1;
	for (int h = 0; h < r->m.nr_hosts; h++)
		if (r->host_used[h] < r->m.hosts[h].capacity && (strcmp(r->m.hosts[h].uri, "local") ||
		    !r->mem_used || r->mem_used + c->mem <= r->mem_budget))
			return h;
	return -2;
}

/* The cells are LAVA jobs: their children only wait on the server. */
static int on_lava(const struct mrun *r)
{
	return r->o && r->o->lava.url;
}

static int is_local(const struct mrun *r, const struct mcell *c)
{
	return !on_lava(r) && (c->host < 0 || !strcmp(r->m.hosts[c->host].uri, "local"));
}

static int next_cell(void *ctx, struct parallel_task *task)
{
	struct mrun *r = ctx;
	struct mcell *c;
	struct error err;

	while (r->next < r->nr_cells && !r->cells[r->next].todo)
		r->next++;
	if (r->next == r->nr_cells)
		return PARALLEL_DONE;
	c = &r->cells[r->next];
	if ((c->host = pick_host(r, c)) == -2 ||
	    (c->host == -1 && !on_lava(r) && r->mem_used && r->mem_used + c->mem > r->mem_budget))
		return PARALLEL_WAIT;
	r->next++;
	if (mkdir_p(c->dir, &err) ||
	    (snprintf(task->log, sizeof(task->log), "%s/" CELL_LOG_FILE, c->dir) >= (int)sizeof(task->log) &&
	     error_input(&err, "%s/" CELL_LOG_FILE ": longer than %zu characters; give a shorter --out",
			 c->dir, sizeof(task->log) - 1))) {
		snprintf(c->not_run, sizeof(c->not_run), "%s", err.msg);
		return next_cell(ctx, task);
	}
	if (c->host >= 0)
		r->host_used[c->host]++;
	if (is_local(r, c))
		r->mem_used += c->mem;
	cell_argv(r, c, &task->argv);
	/* A LAVA job may wait in the queue for as long as the server lets it; its run has its own deadline. */
	task->timeout_s = on_lava(r) ? 0 : 2 * (c->c.timeout_s ? c->c.timeout_s : c->topo->timeout_s) + WATCHDOG_SLACK_S;
	task->data = c;
	return PARALLEL_START;
}

static void print_log(const struct mrun *r, const struct mcell *c, const char *log)
{
	struct buf b = BUF_INIT;
	struct error ignored;

	show(&r->o->show, "--- %s (%s)\n", c->c.id, log);
	if (!read_file(log, &b, &ignored))
		show_text(&r->o->show, buf_str(&b), b.len);
	buf_free(&b);
}

/*
 * A cell's verdict from its directory.  Not run, or stopped because the
 * matrix was interrupted, is an ERROR that says so (the next run with the
 * same --out runs it again); otherwise the run's exit code and TAP decide.
 */
static enum cell_status judge_cell(const struct mcell *c, const struct celldir *cd, char *reason,
				   size_t cap)
{
	if (c->not_run[0] || (!cd->finished && cd->exit_code < 0)) {
		snprintf(reason, cap, "not run: %s", c->not_run[0] ? c->not_run : interrupt_caught() ?
			 "the matrix was interrupted" : "no result");
		return CELL_ERROR;
	}
	if (!cd->finished && (cd->interrupted || !strcmp(cd->end, "interrupted") || cd->exit_code < 2)) {
		snprintf(reason, cap, "interrupted: the run did not complete%s",
			 cd->exit_code == 128 + SIGKILL ? " (it did not stop on SIGTERM and was killed)" : "");
		return CELL_ERROR;
	}
	return report_classify(cd->exit_code, cd->watchdog, cd->end, buf_str((struct buf *)&cd->tap),
			       cd->tap.len, cd->last_log, reason, cap);
}

/* "; ~3 min left": the cells left at the pace of those done so far ("" before the first or after the last). */
static const char *time_left(const struct mrun *r)
{
	static char text[64];
	double left = r->done ? (now_s() - r->cells_start) / r->done * (r->to_run - r->done) : 0;

	if (!r->done || r->done >= r->to_run)   /* no pace yet, or nothing left */
		return "";
	if (left < 90)
		snprintf(text, sizeof(text), "; ~%.0f s left", left);
	else
		snprintf(text, sizeof(text), "; ~%.0f min left", left / 60);
	return text;
}

/* " on LAVA job N (DEVICE, worker W; queued Q s)" for a LAVA cell, else "". */
static void lava_where(const struct celldir *cd, char *out, size_t cap)
{
	struct buf meta = BUF_INIT;
	struct error ignored;
	char job[32], device[128], worker[128], queued[32];

	out[0] = '\0';
	if (cd->run_cell[0] && !meta_read(cd->run_cell, &meta, &ignored) &&
	    meta_copy(buf_str(&meta), META_LAVA_JOB, job, sizeof(job))) {
		meta_copy(buf_str(&meta), META_LAVA_DEVICE, device, sizeof(device));
		meta_copy(buf_str(&meta), META_LAVA_WORKER, worker, sizeof(worker));
		meta_copy(buf_str(&meta), META_LAVA_TIME_QUEUED, queued, sizeof(queued));
		snprintf(out, cap, " on LAVA job %s (%s, worker %s; queued %s s)", job, device, worker, queued);
	}
	buf_free(&meta);
}

/*
 * A LAVA cell's job as it goes: its log's last "LAVA job N ..." line, each
 * change shown once ("queued", "running on DEVICE (worker W)"), its log read
 * once a second.
 */
static void cell_running(void *ctx, struct parallel_task *task)
{
	struct mrun *r = ctx;
	struct mcell *c = task->data;
	char last[256];
	const char *job;

	if (!on_lava(r) || now_s() - c->lava_seen < 1)
		return;
	c->lava_seen = now_s();
	file_last_line(task->log, last, sizeof(last));
	if (!(job = strstr(last, "LAVA job ")) || !strcmp(job, c->lava_state))
		return;
	snprintf(c->lava_state, sizeof(c->lava_state), "%s", job);
	show(&r->o->show, "[%d/%d] %s: %s%s\n", r->done, r->to_run, c->c.id, job, time_left(r));
}

static void cell_finished(void *ctx, struct parallel_task *task, const struct parallel_end *end)
{
	struct mrun *r = ctx;
	struct mcell *c = task->data;
	struct celldir cd;
	struct report_counts k;
	struct error err;
	char reason[sizeof(((struct error *)0)->msg) + 16];   /* "not run: " and a message */
	char where[400];
	enum cell_status st;

	if (c->host >= 0)
		r->host_used[c->host]--;
	if (is_local(r, c))
		r->mem_used -= c->mem;
	r->done++;
	if (end->code < 0) {
		snprintf(c->not_run, sizeof(c->not_run), "%s", end->err->msg);
		show(&r->o->show, "[%d/%d] %s: error: %s\n", r->done, r->to_run, c->c.id, c->not_run);
		return;
	}
	if (celldir_write_exit(c->dir, end->code, end->elapsed_s, end->timed_out, end->interrupted, &err))
		warning("%s", err.msg);
	celldir_load(c->dir, &cd);
	st = judge_cell(c, &cd, reason, sizeof(reason));
	report_count(&(struct report_cell){ .id = c->c.id, .status = st, .reason = reason,
					    .tap = buf_str(&cd.tap), .tap_len = cd.tap.len }, &k);
	if (!r->quiet)
		print_log(r, c, task->log);
	lava_where(&cd, where, sizeof(where));
	show(&r->o->show, "[%d/%d] %s: %s (%d passed, %d failed, %d skipped) %.1f s%s%s%s%s\n", r->done,
	     r->to_run, c->c.id, cell_status_name(st), k.passed, k.failed + k.errors, k.skipped,
	     end->elapsed_s, where, *reason ? ": " : "", reason, time_left(r));
	celldir_free(&cd);
}

static unsigned long long max_cell_mem(const struct mrun *r)
{
	unsigned long long max = 0;

	for (int i = 0; i < r->nr_cells; i++)
		if (r->cells[i].mem > max)
			max = r->cells[i].mem;
	return max;
}

/* Room for the cells and the runner's own children (git, a kernel build). */
_Static_assert(MATRIX_MAX_JOBS + 8 <= PROC_MAX_LIVE, "proc.h could not register every cell");

static void choose_jobs(struct mrun *r, int asked)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long need = max_cell_mem(r);
	int by_mem;

	r->mem_budget = mem_available();
	by_mem = need ? (int)(r->mem_budget / need) : 1;
	if (asked)
		r->jobs = asked;
	else if (on_lava(r))   /* the server queues them; each child only polls */
		r->jobs = r->to_run < MATRIX_LAVA_JOBS ? r->to_run : MATRIX_LAVA_JOBS;
	else if (r->m.nr_hosts) {
		r->jobs = 0;
		for (int h = 0; h < r->m.nr_hosts; h++)
			r->jobs += r->m.hosts[h].capacity;
	} else {
		r->jobs = (int)(cores < by_mem ? cores : by_mem);
	}
	if (r->jobs < 1)
		r->jobs = 1;
	if (r->jobs > MATRIX_MAX_JOBS)   /* the hosts' capacities add up to more */
		r->jobs = MATRIX_MAX_JOBS;
	progress("%d cells to run, %d at a time (%ld cores, %.1f GiB available, "
		 "a cell needs up to %.1f GiB)", r->to_run, r->jobs, cores,
		 (double)r->mem_budget / (1 << 30), (double)need / (1 << 30));
}

static int run_cells(struct mrun *r, int asked_jobs)
{
	struct parallel pp = { 0, GRACE_S, next_cell, cell_finished, interrupt_caught, r, cell_running };

	r->to_run = 0;
	for (int i = 0; i < r->nr_cells; i++)
		r->to_run += r->cells[i].todo;
	if (!r->to_run)
		return 0;
	choose_jobs(r, asked_jobs);
	pp.jobs = r->jobs;
	r->cells_start = now_s();
	r->host_used = xcalloc((size_t)(r->m.nr_hosts + 1), sizeof(int));
	return parallel_run(&pp);
}

/* --- outputs */

struct loaded {
	struct celldir cd;
	char reason[sizeof(((struct error *)0)->msg) + 16];   /* "not run: " and a message */
	char dir[4200];
};

static int write_out(const char *out, const char *name, const struct buf *b, struct error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", out, name);
	return write_file_atomic(path, buf_str((struct buf *)b), b->len, err);
}

/*
 * matrix.tap, flat.tap, junit.xml, summary.txt from every cell of the shard,
 * the summary shown; 0 and *v, or -1 with err when an output could not be
 * written.
 */
static int write_reports(struct mrun *r, const char *title, const struct matrix_show *sh,
			 enum matrix_verdict *v, struct error *err)
{
	struct report_cell *rc = xcalloc((size_t)(r->nr_cells ? r->nr_cells : 1), sizeof(*rc));
	struct loaded *ld = xcalloc((size_t)(r->nr_cells ? r->nr_cells : 1), sizeof(*ld));
	struct buf tap = BUF_INIT, flat = BUF_INIT, junit = BUF_INIT, summary = BUF_INIT;
	int failed = 0, harness = 0, wrc;

	for (int i = 0; i < r->nr_cells; i++) {
		struct mcell *c = &r->cells[i];
		struct loaded *l = &ld[i];

		celldir_load(c->dir, &l->cd);
		rc[i].id = c->c.id;
		rc[i].reason = l->reason;
		rc[i].time_s = l->cd.time_s;
		snprintf(l->dir, sizeof(l->dir), "%s", l->cd.run_cell[0] ? l->cd.run_cell : c->dir);
		rc[i].dir = l->dir;
		rc[i].status = judge_cell(c, &l->cd, l->reason, sizeof(l->reason));
		rc[i].tap = buf_str(&l->cd.tap);
		rc[i].tap_len = l->cd.tap.len;
		failed |= rc[i].status == CELL_FAIL;
		harness |= rc[i].status == CELL_TIMEOUT || rc[i].status == CELL_ERROR;
	}
	report_tap(rc, r->nr_cells, title, &tap);
	report_flat_tap(rc, r->nr_cells, &flat);
	report_junit(rc, r->nr_cells, title, &junit);
	report_summary(rc, r->nr_cells, &summary);
	wrc = write_out(r->out, "matrix.tap", &tap, err) || write_out(r->out, "flat.tap", &flat, err) ||
	      write_out(r->out, "junit.xml", &junit, err) ||
	      write_out(r->out, "summary.txt", &summary, err);
	show_text(sh, buf_str(&summary), summary.len);
	if (!wrc)
		progress("wrote %s/matrix.tap, flat.tap, junit.xml, summary.txt", r->out);
	for (int i = 0; i < r->nr_cells; i++)
		celldir_free(&ld[i].cd);
	free(ld);
	free(rc);
	buf_free(&tap);
	buf_free(&flat);
	buf_free(&junit);
	buf_free(&summary);
	*v = failed ? MATRIX_FAILED : harness ? MATRIX_INCOMPLETE : MATRIX_PASSED;
	return wrc ? -1 : 0;
}

static int set_state(const char *out, const char *state)
{
	struct error err;

	if (run_state_set(out, state, &err)) {
		warning("%s", err.msg);
		return -1;
	}
	return 0;
}

/* The cell list of this output, in order (for humans and for merging shards). */
static int write_cell_list(struct mrun *r, const char *matrix_path, struct error *err)
{
	struct buf b = BUF_INIT;
	char path[4200];
	int rc;

	buf_addf(&b, "# numalab matrix %s, shard %d/%d: INDEX ID\n", display_path(matrix_path), r->shard,
		 r->nr_shards);
	for (int i = 0; i < r->nr_cells; i++)
		buf_addf(&b, "%d %s\n", r->cells[i].c.index, r->cells[i].c.id);
	snprintf(path, sizeof(path), "%s/cells.list", r->out);
	rc = write_file_atomic(path, b.data, b.len, err);
	buf_free(&b);
	return rc;
}

static int run_matrix(struct mrun *r, const char *matrix_path, int asked_jobs, enum matrix_verdict *v,
		      struct error *err)
{
	char lock_path[4200], title[1200];
	int lock, rc, interrupted;

	if (mkdir_p(r->out, err))
		return -1;
	snprintf(lock_path, sizeof(lock_path), "%s/.lock", r->out);
	if ((lock = lock_file(lock_path, "matrix in this --out", err)) < 0)
		return -1;
	interrupt_catch();
	if (sort_out_cells(r, err) || write_cell_list(r, matrix_path, err)) {
		close(lock);
		return -1;
	}
	set_state(r->out, RUN_STATE_RUNNING);
	interrupted = build_kernels(r);
	if (!interrupted && !interrupt_caught())
		interrupted = run_cells(r, asked_jobs);
	interrupted = interrupted || interrupt_caught();
	snprintf(title, sizeof(title), "%s shard %d/%d", display_path(matrix_path), r->shard, r->nr_shards);
	rc = write_reports(r, title, &r->o->show, v, err);
	set_state(r->out, interrupted ? RUN_STATE_INTERRUPTED : RUN_STATE_COMPLETE);
	if (interrupted)
		progress("interrupted; run the same command with --out %s to resume",
			 r->o->resume_out ? r->o->resume_out : r->out);
	close(lock);
	return rc;
}

/* --- merging shards: each shard's cells.list names its cells and their global index */

static int valid_cell_id(const char *id)
{
	if (!*id || *id == '.' || strlen(id) >= MATRIX_ID_MAX)
		return 0;
	for (; *id; id++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-.", *id))
			return 0;
	return 1;
}

static int read_cell_list(struct mrun *r, const char *dir, int *cap, struct error *err)
{
	char path[4200];
	struct buf text = BUF_INIT;
	int line = 0;

	snprintf(path, sizeof(path), "%s/cells.list", dir);
	if (read_file(path, &text, err)) {
		error_as_input(err);   /* a directory the user named (--merge) */
		return error_prefix(err, "%s is not a matrix output directory", dir);
	}
	for (const char *l = buf_str(&text); *l; l = next_line(l)) {
		struct mcell *c;
		char id[256];
		int index;

		line++;
		if (*l == '#')
			continue;
		if (sscanf(l, "%d %255s", &index, id) != 2 || index < 0 || !valid_cell_id(id)) {
			buf_free(&text);
			return error_input(err, "%s:%d: not `INDEX ID`", path, line);
		}
		if (r->nr_cells == *cap)
			r->cells = xrealloc(r->cells, (size_t)(*cap = *cap ? 2 * *cap : 64) * sizeof(*r->cells));
		c = &r->cells[r->nr_cells++];
		memset(c, 0, sizeof(*c));
		c->c.index = index;
		memcpy(c->c.id, id, strlen(id) + 1);   /* valid_cell_id(): it fits */
		snprintf(c->dir, sizeof(c->dir), "%s/cells/%s", dir, id);
	}
	buf_free(&text);
	return 0;
}

static int by_index(const void *a, const void *b)
{
	const struct mcell *x = a, *y = b;

	return (x->c.index > y->c.index) - (x->c.index < y->c.index);
}

int matrix_merge(char *const *dirs, int n, const char *out, const struct matrix_show *sh,
		 enum matrix_verdict *v, struct error *err)
{
	struct mrun r = { .out = out };
	int cap = 0, rc = -1;

	for (int i = 0; i < n; i++)
		if (read_cell_list(&r, dirs[i], &cap, err))
			goto done;
	qsort(r.cells, (size_t)r.nr_cells, sizeof(*r.cells), by_index);
	for (int i = 1; i < r.nr_cells; i++)
		if (r.cells[i].c.index == r.cells[i - 1].c.index) {
			error_input(err, "cell %d is in two outputs (%s, %s): merge the shards of one matrix, once each",
				    r.cells[i].c.index, r.cells[i - 1].dir, r.cells[i].dir);
			goto done;
		}
	if (!mkdir_p(out, err))
		rc = write_reports(&r, "merged shards", sh, v, err);
done:
	free(r.cells);
	return rc;
}

int matrix_run(const struct matrix_run_opts *o, enum matrix_verdict *v, struct error *err)
{
	struct mrun r = { .o = o, .out = o->out, .shard = o->shard, .nr_shards = o->nr_shards, .quiet = o->quiet };
	struct matrix_cell *cells;
	int n, rc = -1;

	*v = MATRIX_PASSED;
	if (load_matrix(o->file, &r.m, err))
		return -1;
	if (check_names(&r, err))
		goto done;
	if (o->lava.url && r.m.nr_hosts) {
		error_input(err, "%s: `host` statements place cells on libvirt hosts; --lava places them on "
			    "LAVA's workers: one or the other", r.m.path);
		goto done;
	}
	matrix_expand(&r.m, &cells, &n);
	n = matrix_shard(cells, n, r.shard, r.nr_shards);
	plan_cells(&r, cells, n);
	free(cells);
	rc = 0;
	if (o->mode == MATRIX_ARCHES)
		print_arches(&r);
	else if (o->mode == MATRIX_DRY_RUN)
		dry_run(&r);
	else
		rc = run_matrix(&r, o->file, o->jobs, v, err);
done:
	free(r.cells);
	free(r.builds);
	free(r.host_used);
	free(r.topos);
	matrix_free(&r.m);
	return rc;
}
