/*
 * Bulk weighted interleave cut short (issue 18): the paths of
 * alloc_pages_bulk_weighted_interleave() that only a failing allocation
 * reaches, driven by fault injection for this task alone.
 *
 * Maps are vmalloc'ed under the task policy as in bulk.c (a BPF array map,
 * fail_page_alloc failing the high-order attempts: bulk_fault_arm()), every
 * step and batch read from the step trace (steptrace.h) and checked against
 * the reference model (wi_model.h).  One map at a time is a "shot":
 *
 *   the weights kmalloc failing: failslab with task-filter (make-it-fail is
 *   on for the case), cache-filter on the kmalloc cache of nr_node_ids bytes
 *   (kmalloc-8 on x86, kmalloc-16 on LoongArch, whose kmalloc alignment is
 *   16) and times 1: the next object this task takes from that cache fails,
 *   which in a map's creation is the weights copy.  The batch then keeps
 *   what its carried weight got (one run on il_prev, W pages, or none when
 *   W is 0), clears il_weight and returns those pages; vmalloc takes the
 *   rest page by page, each a step of the round robin that must continue
 *   the model from "W pages placed": the first on the node after il_prev.
 *   Shots are taken until one met a carried weight W > 0 and one W == 0.
 *   Kills 60fe930ee795 (`me->il_weight = 0;` removed: with W > 0 the next
 *   step stays on il_prev), e9d9b49ffb10 (`me->il_weight = 1`: the next step
 *   stays on il_prev), 8d230fa474fc (`if (!weights)` -> `if (0)`: the table
 *   copied into NULL, an oops), 1db5e8caf994 and 7966e22ccdbf (that branch's
 *   `return total_allocated` + 1 / - 1: vmalloc counts a page it never got,
 *   pages[W] is NULL, or with W == 0 -1 is ULONG_MAX: an oops either way).
 *
 *   a node's run failing: fail_page_alloc for every order (min-order 0,
 *   ignore-gfp-wait off) and times = the map's high-order attempts + 1, so
 *   the batch's first run gets no page.  The batch still asks every node for
 *   the model's pages once, leaves the model's state, and vmalloc takes the
 *   missing pages page by page from there.
 *   Kills b37d5808fe40 (`nnodes = read_once_policy_nodemask(...) + 1`: a
 *   batch that came back short runs one more node, asking the first node of
 *   the round again: a run after the batch's runs added up).
 *
 * And the weights copy is freed: kmalloc objects of that cache in use
 * (its sysfs `objects`, read after `shrink` flushed the per-CPU caches) do
 * not grow with LEAK_MAPS maps of one batch each.  Kills 63964ce6eacb
 * (`kfree(weights);` removed: one object leaked per batch).  And
 * 531abae37956 (the loop's `i < nnodes` -> `<=`) as b37d5808fe40 above.
 *
 * And a batch the carried weight covers exactly (maps of 100 + k pages,
 * k the weight left after the first 100) returns all its pages: nothing
 * is left for vmalloc to take page by page after it.  Kills efcdd2f10695
 * (that branch's `return total_allocated` -> - 1: vmalloc takes one more
 * page, a single step after the last batch, in every such map).
 *
 * A shot that missed (the failure taken by another allocation: a slab
 * refill, the map refused with ENOMEM) is checked like any map and taken
 * again, up to MAX_SHOTS times.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "mempolicy.h"
#include "replay.h"
#include "steptrace.h"
#include "bulkframe.h"
#include "weights.h"

#define FAILSLAB_DIR "/sys/kernel/debug/failslab"
#define FAILPAGE_DIR "/sys/kernel/debug/fail_page_alloc"
#define SLAB_DIR "/sys/kernel/slab"
#define MAX_EVENTS 4096
#define MAX_SHOTS 8
#define FIRST_MAP 9                /* smaller maps are kmalloc'ed, not vmalloc'ed */
#define SHOT_MAX 60                /* one batch (<= 100 pages) per shot map */
#define LEAK_MAPS 256
#define EXACT_MAPS 24
#define KM_NAME "bulk weighted interleave, the weights kmalloc failing (failslab): the carried " \
		"weight's pages kept, the rest page by page from the next node as the model"
#define RUN_NAME "bulk weighted interleave, a node's run failing (fail_page_alloc): no node asked " \
		 "twice, the missing pages page by page from the state the batch left"
#define EXACT_NAME "bulk weighted interleave, a batch the carried weight covers: all its pages returned, " \
		   "none taken page by page after it"
#define LEAK_NAME "bulk weighted interleave: the weights copy freed after each batch (no kmalloc object kept)"

static const char *const slab_knobs[][2] = {
	{ "times", "0" }, { "probability", "100" }, { "interval", "1" }, { "space", "0" },
	{ "verbose", "0" }, { "task-filter", "Y" }, { "ignore-gfp-wait", "N" }, { "cache-filter", "Y" },
};
#define NR_SLAB_KNOBS (int)(sizeof(slab_knobs) / sizeof(slab_knobs[0]))

static char slab_saved[NR_SLAB_KNOBS][32];
static char cache_path[96];

/* fds opened before any shot: a write through them allocates nothing. */
static int slab_times = -1, page_times = -1, page_order = -1, page_wait = -1;

static int fd_write(int fd, const char *val)
{
	return write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
}

/* The kmalloc cache a kmalloc(nr_node_ids) comes from: the smallest one that exists and fits. */
static const char *weights_cache(void)
{
	static const int sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256 };
	int possible[MAX_NODES], nr;

	if (node_list("possible", possible, MAX_NODES, &nr) || !nr)
		return NULL;
	for (int i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		char dir[64];

		snprintf(dir, sizeof(dir), SLAB_DIR "/kmalloc-%d", sizes[i]);
		if (sizes[i] >= possible[nr - 1] + 1 && sys_exists(dir)) {
			snprintf(cache_path, sizeof(cache_path), "%s/failslab", dir);
			return cache_path;
		}
	}
	return NULL;
}

static void faults_disarm(void)
{
	int *fds[] = { &slab_times, &page_times, &page_order, &page_wait };

	if (cache_path[0])
		sys_write(cache_path, "0");
	for (int i = NR_SLAB_KNOBS - 1; i >= 0; i--) {
		char path[128];

		snprintf(path, sizeof(path), FAILSLAB_DIR "/%s", slab_knobs[i][0]);
		if (slab_saved[i][0])
			sys_write(path, slab_saved[i]);
	}
	for (int i = 0; i < 4; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

/* failslab armed with times 0 on the weights' kmalloc cache; the fds open.  NULL or why not. */
static const char *faults_arm(void)
{
	const char *cache;

	if (!sys_exists(FAILSLAB_DIR))
		return "the kernel has no failslab (CONFIG_FAILSLAB + FAULT_INJECTION_DEBUG_FS; the lab's "
		       "recipe kernels have it)";
	if (!(cache = weights_cache()))
		return "no kmalloc cache for nr_node_ids bytes under " SLAB_DIR;
	for (int i = 0; i < NR_SLAB_KNOBS; i++) {
		char path[128];

		snprintf(path, sizeof(path), FAILSLAB_DIR "/%s", slab_knobs[i][0]);
		if (sys_read(path, slab_saved[i], sizeof(slab_saved[i])) || sys_write(path, slab_knobs[i][1])) {
			slab_saved[i][0] = '\0';
			faults_disarm();
			return "cannot configure failslab";
		}
	}
	if (sys_write(cache, "1")) {
		cache_path[0] = '\0';
		faults_disarm();
		return "cannot set the kmalloc cache's failslab flag";
	}
	slab_times = open(FAILSLAB_DIR "/times", O_RDWR | O_CLOEXEC);
	page_times = open(FAILPAGE_DIR "/times", O_RDWR | O_CLOEXEC);
	page_order = open(FAILPAGE_DIR "/min-order", O_WRONLY | O_CLOEXEC);
	page_wait = open(FAILPAGE_DIR "/ignore-gfp-wait", O_WRONLY | O_CLOEXEC);
	if (slab_times < 0 || page_times < 0 || page_order < 0 || page_wait < 0) {
		faults_disarm();
		return "cannot open the fault-injection knobs";
	}
	return NULL;
}

static unsigned ilog2_ul(unsigned long n)
{
	unsigned l = 0;

	while (n >>= 1)
		l++;
	return l;
}

/* The weight the bulk code carries over: il_weight when il_prev is in the mask. */
static unsigned carried(const struct wi_model *m)
{
	return m->node >= 0 && m->weights[m->node] ? m->remaining : 0;
}

/* What a map's events showed, beyond matching the model. */
struct map_seen {
	int cut;                   /* a batch ended short of its pages: the kmalloc failed */
	unsigned carried;          /* W at the (first) batch */
	long first_run;            /* the model's first run of the first batch */
	long after;                /* single steps after the last batch */
	long pages;                /* pages asked of the batches */
};

/* Is there a run before the next batch from ev[i] on? (A step inside a batch is then a slab refill.) */
static int run_follows(const struct step_event *ev, int i, int nev)
{
	for (; i < nev && ev[i].kind != STEP_BULK; i++)
		if (ev[i].kind == STEP_NODE_RUN)
			return 1;
	return 0;
}

/* The model's first run of a batch of nr pages from m: the carried weight, else the next node's share. */
static long model_first_run(const struct wi_model *m, long nr)
{
	unsigned long round = wi_model_round(m);
	struct wi_model t = *m;
	int node;
	unsigned w;

	if (carried(m))
		return nr < (long)carried(m) ? nr : (long)carried(m);
	if (!round)
		return 0;
	wi_model_next(&t, &node, &w);
	w = m->weights[node];
	return (long)(w * (nr / (long)round)) + ((nr % (long)round) < (long)w ? nr % (long)round : (long)w);
}

/*
 * One map's events against the model m (moved along); 0 if they match.  A
 * batch must either ask every node for the model's pages (its runs add up
 * to the batch) or stop after its carried weight (the weights kmalloc
 * failed): one run of W pages on il_prev, or none when W is 0.  A run after
 * a batch's runs added up is a node asked twice.
 */
static int check_events(struct wi_model *m, const struct step_event *ev, int nev, struct map_seen *s,
			char *why, size_t size)
{
	unsigned long want[WI_MAX_NODES], got[WI_MAX_NODES];
	long nr = 0, asked = 0;
	int in_batch = 0, batches = 0, start_node = -1;
	unsigned w = 0;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < nev; i++) {
		const struct step_event *e = &ev[i];
		int node;

		if (e->kind == STEP_FILE)
			continue;
		if (in_batch && (e->kind == STEP_BULK || (e->kind == STEP_PAGE && !run_follows(ev, i + 1, nev)))) {
			/* The batch stopped short: only the kmalloc failure's form is right. */
			if (asked != (long)w || (w && got[start_node] != w)) {
				snprintf(why, size, "batch %d of %ld pages stopped after %ld, want the carried %u "
					 "on node %d", batches, nr, asked, w, start_node);
				return -1;
			}
			memset(want, 0, sizeof(want));
			wi_model_bulk(m, w, want);
			in_batch = 0;
			s->cut = 1;
			if (e->kind == STEP_BULK) {
				snprintf(why, size, "a batch after batch %d stopped short", batches);
				return -1;
			}
		}
		switch (e->kind) {
		case STEP_PAGE:
			if (in_batch)
				continue;   /* the weights kmalloc refilling its slab */
			node = wi_model_page(m);
			if (node != e->node) {
				snprintf(why, size, "a single-page step went to node %d, model: node %d%s", e->node,
					 node, s->cut ? " (after the cut batch)" : "");
				return -1;
			}
			if (batches)
				s->after++;
			break;
		case STEP_BULK:
			nr = e->nr;
			asked = 0;
			w = carried(m);
			start_node = m->node;
			if (!batches) {
				s->carried = w;
				s->first_run = model_first_run(m, nr);
			}
			batches++;
			s->after = 0;
			s->pages += nr;
			memset(got, 0, sizeof(got));
			in_batch = nr > 0;
			break;
		case STEP_NODE_RUN:
			if (!in_batch && e->nr == 0)
				break;      /* no page asked (a node past the batch's last with pages) */
			if (!in_batch) {
				snprintf(why, size, "a run of %ld pages on node %d after batch %d's runs added up "
					 "(a node asked twice)", e->nr, e->node, batches);
				return -1;
			}
			if (e->node < 0 || e->node >= WI_MAX_NODES) {
				snprintf(why, size, "a run on node %d", e->node);
				return -1;
			}
			got[e->node] += (unsigned long)e->nr;
			asked += e->nr;
			if (asked < nr)
				break;
			in_batch = 0;
			memset(want, 0, sizeof(want));
			wi_model_bulk(m, (unsigned long)nr, want);
			if (memcmp(want, got, sizeof(want))) {
				char a[96], b[96];

				replay_format_counts(got, a, sizeof(a));
				replay_format_counts(want, b, sizeof(b));
				snprintf(why, size, "batch %d: the kernel asked %s, model %s", batches, a, b);
				return -1;
			}
			break;
		case STEP_FILE:
			break;
		}
	}
	if (in_batch) {
		snprintf(why, size, "the trace ends inside batch %d (%ld of %ld pages asked)", batches, asked, nr);
		return -1;
	}
	return 0;
}

struct cut_run {
	struct wi_model m;
	unsigned long mask;
	struct step_event ev[MAX_EVENTS];
	char why[256];
};

/* One map of n pages, its events checked; the map's fd closed.  1 if it matched. */
static int one_map(struct cut_run *c, unsigned long n, int shot, unsigned long times, struct map_seen *s,
		   int *created)
{
	int fd, nev, err;

	if (shot == 1) {
		fd_write(slab_times, "1");
	} else if (shot == 2) {
		/* Every order fails for `times` checks: the high-order attempts, then the first run. */
		char val[24];

		snprintf(val, sizeof(val), "%lu", times);
		fd_write(page_times, "0");
		fd_write(page_order, "0");
		fd_write(page_wait, "N");
		fd_write(page_times, val);
	}
	fd = bulk_map_create(n);
	err = errno;
	if (shot == 1) {
		fd_write(slab_times, "0");
	} else if (shot == 2) {
		fd_write(page_times, "0");
		fd_write(page_wait, "Y");
		fd_write(page_order, "1");
		fd_write(page_times, "-1");
	}
	*created = fd >= 0 ? 1 : -err;   /* 1, or minus the errno of a map refused */
	if (fd >= 0)
		close(fd);
	nev = steptrace_take(c->ev, MAX_EVENTS);
	if (nev < 0) {
		ktap_diag("map of %lu pages: the trace is unreadable", n);
		return 0;
	}
	if (check_events(&c->m, c->ev, nev, s, c->why, sizeof(c->why))) {
		ktap_diag("map of %lu pages%s: %s", n, shot == 1 ? " (kmalloc shot)" : shot == 2 ? " (run shot)" : "",
			  c->why);
		return 0;
	}
	return 1;
}

/* A map size whose batch meets carried weight zero (want_zero) or not, from the model's state. */
static unsigned long choose(const struct wi_model *m, int want_zero, unsigned long from)
{
	for (unsigned long n = from; n <= SHOT_MAX; n++) {
		struct wi_model t = *m;

		for (unsigned i = 0; i < ilog2_ul(n); i++)
			wi_model_page(&t);
		if ((carried(&t) == 0) == want_zero && n > carried(&t))
			return n;
	}
	return from;
}

int cutbulk_plan(const struct nodes *n)
{
	(void)n;
	return 4;
}

/*
 * EXACT_MAPS maps whose last batch the carried weight covers exactly; their
 * single steps after the last batch are only the kernel's page-table pages
 * (a fresh 2 MiB of vmalloc space, rare), never one per map.
 */
static int exact_maps(struct cut_run *c)
{
	long after = 0;
	int maps = 0;
	struct map_seen s;

	for (int k = 0; k < 4 * EXACT_MAPS && maps < EXACT_MAPS; k++) {
		unsigned long n = 0;
		int created;

		for (unsigned long left = 1; left <= 3 && !n; left++) {
			struct wi_model t = *&c->m;
			unsigned long count[WI_MAX_NODES] = { 0 };

			for (unsigned i = 0; i < ilog2_ul(100 + left); i++)
				wi_model_page(&t);
			wi_model_bulk(&t, 100, count);
			if (carried(&t) == left)
				n = 100 + left;
		}
		if (!n)
			n = 13;     /* no k from here: move the state on */
		if (!one_map(c, n, 0, 0, &s, &created))
			return 0;
		if (n > 100) {
			maps++;
			after += s.after;
		}
	}
	ktap_diag("metric: cutbulk.exact_after_steps %ld (in %d maps)", after, maps);
	return maps == EXACT_MAPS && after < EXACT_MAPS / 2;
}

/* LEAK_MAPS maps of one batch each (the trace no longer read: the last check of the case). */
static int leak_check(void)
{
	char dir[96];
	long before, after;
	size_t len = strlen(cache_path) - strlen("/failslab");

	snprintf(dir, sizeof(dir), "%.*s", (int)len, cache_path);
	/* Let the maps' deferred frees of the shots finish first. */
	usleep(200000);
	before = slab_objects(dir);
	for (int k = 0; k < LEAK_MAPS; k++) {
		int fd = bulk_map_create(13);

		if (fd < 0) {
			ktap_diag("map %d of 13 pages: bpf(BPF_MAP_CREATE): %s", k + 1, strerror(errno));
			return 0;
		}
		close(fd);
	}
	usleep(200000);
	after = slab_objects(dir);
	if (before < 0 || after < 0) {
		ktap_diag("cannot read %s/objects", dir);
		return 0;
	}
	/* Other users of the cache move it by a few objects; a leak moves it by one per map. */
	ktap_diag("metric: cutbulk.leak_objects %ld (after %d maps of one batch each)", after - before, LEAK_MAPS);
	return after - before < LEAK_MAPS / 2;
}

/* Shots of the weights kmalloc failing until both W > 0 and W == 0 were met. */
static int kmalloc_shots(struct cut_run *c)
{
	int met_zero = 0, met_some = 0;
	struct map_seen s;

	for (int k = 0; k < MAX_SHOTS && !(met_zero && met_some); k++) {
		unsigned long n = choose(&c->m, !met_zero, FIRST_MAP + (unsigned long)k);
		int created;

		/* A map of the same size first: its slab objects then come without a refill. */
		if (!one_map(c, n, 0, 0, &s, &created))
			return 0;
		n = choose(&c->m, !met_zero, FIRST_MAP + (unsigned long)k);
		if (!one_map(c, n, 1, 0, &s, &created))
			return 0;
		if (created <= 0 || !s.cut) {
			ktap_diag("kmalloc shot %d (%lu pages): %s; again", k + 1, n,
				  created > 0 ? "no batch was cut" : strerror(-created));
			continue;
		}
		ktap_diag("kmalloc shot %d: a map of %lu pages, carried weight %u, then %ld single steps", k + 1,
			  n, s.carried, s.after);
		if (s.carried)
			met_some = 1;
		else
			met_zero = 1;
		/* The state it left, seen by the next map. */
		if (!one_map(c, 13, 0, 0, &s, &created))
			return 0;
	}
	if (!(met_zero && met_some))
		ktap_diag("in %d shots the failing kmalloc met %s", MAX_SHOTS,
			  met_zero ? "no carried weight > 0" : "no carried weight 0");
	return met_zero && met_some;
}

/* Shots of a batch's first run failing until one was met. */
static int run_shots(struct cut_run *c)
{
	struct map_seen s;

	for (int k = 0; k < MAX_SHOTS; k++) {
		unsigned long n = choose(&c->m, 1, 30 + (unsigned long)k);
		int created;

		if (!one_map(c, n, 0, 0, &s, &created))
			return 0;
		n = choose(&c->m, 1, 30 + (unsigned long)k);
		if (!one_map(c, n, 2, ilog2_ul(n) + 1, &s, &created))
			return 0;
		/*
		 * With no weight carried the first run is a node's share of >= 30
		 * pages (>= 6), more single steps than the kernel's own after a
		 * batch (page-table pages, <= 2 per map): a hit is unmistakable.
		 */
		if (created <= 0 || s.cut || s.carried || s.after < s.first_run) {
			ktap_diag("run shot %d (%lu pages): %s; again", k + 1, n,
				  created <= 0 ? strerror(-created) : s.cut ? "the kmalloc failed instead"
				  : s.carried ? "a weight was carried after all" : "no run came back short");
			continue;
		}
		ktap_diag("run shot %d: a map of %lu pages, first run %ld pages, then %ld single steps", k + 1,
			  n, s.first_run, s.after);
		return one_map(c, 13, 0, 0, &s, &created);
	}
	ktap_diag("in %d shots no run came back short", MAX_SHOTS);
	return 0;
}

void cutbulk_run(const struct nodes *n)
{
	static struct cut_run c;
	const char *why = bulk_unsupported(n);
	unsigned weights[WI_MAX_NODES] = { 0 }, got;
	struct bulk_frame frame = { 0 };
	int faults = 0;

	if (!why)
		why = bulk_frame_begin(n, &frame);
	if (!why && !(why = faults_arm()))
		faults = 1;
	/* Weights 3 and 2 on the first two memory nodes: carried weights 0, 1 and 2 all occur. */
	for (int k = 0; !why && k < 2; k++) {
		weights[n->mem[k]] = 3 - (unsigned)k;
		c.mask |= 1UL << n->mem[k];
		if (wi_set(n->mem[k], weights[n->mem[k]], &got) || got != weights[n->mem[k]])
			why = "cannot set the node weights";
	}
	if (!why && sys_write("/proc/self/make-it-fail", "1"))
		why = "cannot write /proc/self/make-it-fail";
	/* From here on every event is the model's: none is dropped (diagnostics take steps too). */
	if (!why)
		steptrace_take(NULL, 0);
	if (!why && sys_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, c.mask))
		why = "set_mempolicy(MPOL_WEIGHTED_INTERLEAVE) failed";
	if (why) {
		ktap_skip(KM_NAME, "%s", why);
		ktap_skip(RUN_NAME, "%s", why);
		ktap_skip(EXACT_NAME, "%s", why);
		ktap_skip(LEAK_NAME, "%s", why);
	} else {
		wi_model_init(&c.m, weights);
		ktap_ok(kmalloc_shots(&c), KM_NAME);
		ktap_ok(run_shots(&c), RUN_NAME);
		ktap_ok(exact_maps(&c), EXACT_NAME);
		ktap_ok(leak_check(), LEAK_NAME);
	}
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	if (faults)
		faults_disarm();
	if (bulk_frame_end(&frame) > 0)
		ktap_diag("the trace missed events: a mismatch above may be the probe's");
}
