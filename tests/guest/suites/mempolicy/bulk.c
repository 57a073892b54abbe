/*
 * Weighted interleave through the bulk allocator, checked against the
 * reference model (tests/guest/lib/wi_model.h).
 *
 * The path from user space: a BPF array map larger than 32 KiB is vmalloc'ed
 * with no node, so vm_area_alloc_pages() places it under the task's policy.
 * Since 7.x it first tries high-order pages; fail_page_alloc (min-order=1,
 * only for this task) makes each of those attempts fail, so every page comes
 * from alloc_pages_bulk_mempolicy() in calls of at most 100 pages, and the
 * weighted-interleave bulk code carries the task's node and remaining weight
 * from one call to the next.  The model predicts, per map, the pages per
 * node that /proc/vmallocinfo reports (N<node>=<pages>):
 *   - each failed high-order attempt (orders ilog2(n)..1) still picked a
 *     node through the task policy: one page's worth of the round robin;
 *   - then n pages, page by page, carried over between the 100-page calls
 *     and into the next map.
 * A wrong count, or a right count followed by a wrong one in the next map
 * (a wrong state left behind), fails the sequence.  With the step trace
 * (steptrace.h) every step and batch of the task is replayed (replay.h):
 * each single step must be the model's, each batch must ask for the model's
 * pages and vmallocinfo must show them there, and the kernel's own
 * allocations between maps are seen, not allowed for.  Without it they are
 * guessed (explain(), at most MAX_HIDDEN per map).  Counts per map are
 * weak evidence of the state: with weights 1,1 a map shows the same counts
 * from most states, and the `delta > weight` -> `>=` mutant passed the
 * "weights 1,1" sequence under explain() (4node); replayed, its single
 * steps fail it (2node and 4node).  A kprobe on
 * alloc_pages_bulk_noprof counts the calls into the page allocator's bulk
 * path per map: reported as a metric (seed 000 is about that number).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "mempolicy.h"
#include "replay.h"
#include "steptrace.h"
#include "bulkframe.h"
#include "weights.h"
#include "wi_model.h"

#define FAIL_DIR "/sys/kernel/debug/fail_page_alloc"
#define TRACING "/sys/kernel/tracing"
#define KPROBE_EVENT "numalab_bulk"
#define BULK_SYMBOL "alloc_pages_bulk_noprof"
#define BPF_MAP_CREATE 0
#define BPF_MAP_TYPE_ARRAY 2
#define MAX_SEQ 8
#define VMALLOC_CHUNK 100          /* vm_area_alloc_pages(): pages per bulk call */

struct sequence {
	const char *name;
	unsigned weights[4];       /* for the first 4 memory nodes (0: not in the mask) */
	unsigned long pages[MAX_SEQ];
	int nr;
};

/* Smaller and larger than a round, several bulk calls, odd sizes: all > 32 KiB maps. */
static const struct sequence sequences[] = {
	{ "weights 20,7", { 20, 7 }, { 10, 45, 13, 230, 27, 101 }, 6 },
	{ "weights 1,1", { 1, 1 }, { 9, 100, 201, 11 }, 4 },
	{ "weights 5,2,3,1", { 5, 2, 3, 1 }, { 17, 99, 12, 150 }, 4 },
	{ "weights 0,4,0,9 (a node subset)", { 0, 4, 0, 9 }, { 14, 33, 160 }, 3 },
};
#define NR_SEQUENCES (int)(sizeof(sequences) / sizeof(sequences[0]))

static const char *const fail_knobs[][2] = {
	{ "probability", "100" }, { "interval", "1" }, { "times", "-1" }, { "space", "0" },
	{ "verbose", "0" }, { "task-filter", "Y" }, { "min-order", "1" },
	{ "ignore-gfp-wait", "Y" }, { "ignore-gfp-highmem", "N" },
};
#define NR_FAIL_KNOBS (int)(sizeof(fail_knobs) / sizeof(fail_knobs[0]))

static char saved_fail[NR_FAIL_KNOBS][32];

static int fail_knob(int i, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAIL_DIR "/%s", fail_knobs[i][0]);
	return sys_write(path, val);
}

int bulk_fault_arm(void)
{
	char path[128];

	for (int i = 0; i < NR_FAIL_KNOBS; i++) {
		snprintf(path, sizeof(path), FAIL_DIR "/%s", fail_knobs[i][0]);
		if (sys_read(path, saved_fail[i], sizeof(saved_fail[i])) || fail_knob(i, fail_knobs[i][1])) {
			ktap_diag("cannot set %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

void bulk_fault_disarm(void)
{
	sys_write("/proc/self/make-it-fail", "0");
	for (int i = NR_FAIL_KNOBS - 1; i >= 0; i--)
		if (saved_fail[i][0])
			fail_knob(i, saved_fail[i]);
}

const char *bulk_frame_begin(const struct nodes *n, struct bulk_frame *f)
{
	const char *why;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return "cannot pin the task to one CPU";
	if (!(f->saved_ok = !wi_save(n->mem, n->nr_mem, &f->saved)))
		return "cannot read the node weights";
	if (bulk_fault_arm())
		return "cannot configure fail_page_alloc";
	why = steptrace_arm();
	f->traced = !why;
	return why;
}

long bulk_frame_end(struct bulk_frame *f)
{
	long missed;

	sys_write("/proc/self/make-it-fail", "0");   /* before the probes go */
	missed = f->traced ? steptrace_disarm() : 0;
	bulk_fault_disarm();
	if (f->saved_ok)
		wi_restore(&f->saved);
	f->traced = f->saved_ok = 0;
	return missed;
}

/* The kprobe counting bulk calls: 0 when registered and enabled. */
static int arm_kprobe(void)
{
	int fd = open(TRACING "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	const char *def = "p:" KPROBE_EVENT " " BULK_SYMBOL "\n";
	int ok = fd >= 0 && write(fd, def, strlen(def)) == (ssize_t)strlen(def);

	if (fd >= 0)
		close(fd);
	return ok && !sys_write(TRACING "/events/kprobes/" KPROBE_EVENT "/enable", "1") ? 0 : -1;
}

static void disarm_kprobe(void)
{
	int fd;
	const char *undef = "-:" KPROBE_EVENT "\n";

	sys_write(TRACING "/events/kprobes/" KPROBE_EVENT "/enable", "0");
	if ((fd = open(TRACING "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC)) >= 0) {
		if (write(fd, undef, strlen(undef)) < 0)
			ktap_diag("cannot remove the kprobe: %s", strerror(errno));
		close(fd);
	}
}

/* Hits of the kprobe so far; -1 when unknown. */
static long kprobe_hits(void)
{
	char buf[4096], *line;
	long hits = -1;

	if (sys_read(TRACING "/kprobe_profile", buf, sizeof(buf)))
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char name[64];
		long h;

		if (sscanf(line, " %63s %ld", name, &h) == 2 && strstr(name, KPROBE_EVENT))
			hits = h;
	}
	return hits;
}

/* A BPF array map of exactly pages pages (header + pages-1 page-size values). */
int bulk_map_create(unsigned long pages)
{
	struct {
		uint32_t map_type, key_size, value_size, max_entries, map_flags;
		uint32_t rest[28];
	} attr = { BPF_MAP_TYPE_ARRAY, 4, (uint32_t)page_size(), (uint32_t)pages - 1, 0, { 0 } };

	return (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

/* vmallocinfo lines of areas of `pages` pages, as one buffer (sorted as the kernel prints). */
static int vmalloc_areas(char *buf, size_t size)
{
	int fd = open("/proc/vmallocinfo", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return 0;
}

/*
 * /proc/vmallocinfo read by a child with the default policy.  Read in this
 * task, it costs the round robin steps and even whole bulk batches: its
 * seq_file buffer grows by kvmalloc(), whose high-order kmalloc
 * fail_page_alloc refuses here, so it falls back to vmalloc under the
 * policy -- with a few nodes' worth of areas that was most of the "hidden"
 * steps the old tolerance allowed for.  The two tasks talk through a shared
 * page and polling, which allocates nothing in this one.
 */
struct areas_reader {
	volatile int request, done;  /* 1: read into before, 2: into after; done: request seen */
	char before[65536], after[65536];
};

static struct areas_reader *reader;
static pid_t reader_pid = -1;

static int reader_start(void)
{
	reader = mmap(NULL, sizeof(*reader), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reader == MAP_FAILED)
		return -1;
	memset(reader, 0, sizeof(*reader));     /* faulted here, before any policy */
	reader_pid = fork();
	if (reader_pid < 0)
		return -1;
	if (reader_pid == 0) {
		for (;;) {
			int req = reader->request;

			if (req < 0)
				_exit(0);
			if (req > 0 && reader->done != req) {
				vmalloc_areas(req == 1 ? reader->before : reader->after, sizeof(reader->before));
				__atomic_store_n(&reader->done, req, __ATOMIC_RELEASE);
			}
			if (getppid() == 1)
				_exit(0);
			usleep(200);
		}
	}
	return 0;
}

/* The areas now into which (1: before, 2: after). */
static void reader_read(int which)
{
	reader->done = 0;
	__atomic_store_n(&reader->request, which, __ATOMIC_RELEASE);
	while (__atomic_load_n(&reader->done, __ATOMIC_ACQUIRE) != which)
		usleep(200);
	reader->request = 0;
}

static void reader_stop(void)
{
	if (reader_pid > 0) {
		reader->request = -1;
		waitpid(reader_pid, NULL, 0);
	}
	reader_pid = -1;
	if (reader && reader != MAP_FAILED)
		munmap(reader, sizeof(*reader));
	reader = NULL;
}

/* The per-node counts of the area with `pages` pages that is in after but not in before. */
static int new_area_counts(const char *before, const char *after, unsigned long pages,
			   unsigned long count[WI_MAX_NODES])
{
	char want[32];
	const char *p;

	snprintf(want, sizeof(want), " pages=%lu ", pages);
	for (p = after; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t n = strcspn(p, "\n");
		char line[512];
		const char *f;

		snprintf(line, sizeof(line), "%.*s", (int)(n < 511 ? n : 511), p);
		if (!strstr(line, want) || strstr(before, line))
			continue;
		memset(count, 0, sizeof(unsigned long) * WI_MAX_NODES);
		for (f = strstr(line, " N"); f; f = strstr(f + 1, " N")) {
			int node;
			unsigned long c;

			if (sscanf(f, " N%d=%lu", &node, &c) == 2 && node >= 0 && node < WI_MAX_NODES)
				count[node] = c;
		}
		return 0;
	}
	return -1;
}

static unsigned ilog2_ul(unsigned long n)
{
	unsigned l = 0;

	while (n >>= 1)
		l++;
	return l;
}

/* The model's prediction for one map of n pages (see the header). */
static void predict(struct wi_model *m, unsigned long n, unsigned long count[WI_MAX_NODES])
{
	memset(count, 0, sizeof(unsigned long) * WI_MAX_NODES);
	for (unsigned i = 0; i < ilog2_ul(n); i++)
		wi_model_page(m);
	wi_model_bulk(m, n, count);
}

struct seq_run {
	int fds[MAX_SEQ];
	int traced;                /* steptrace armed: replay instead of explain() */
	struct replay r;
	struct step_event ev[4096];
};

/*
 * Without a trace (steptrace.h): the model state that explains got.  The
 * kernel's own allocations in this task between maps take steps of the
 * round robin unseen from here; up to MAX_HIDDEN of them are allowed before
 * each map, and the number used is reported.  Within a map (its bulk calls
 * back to back) nothing hides: that part is exact.  -1 if no such number
 * explains got.
 *
 * MAX_HIDDEN is the most the trace has shown (sweep.c's kernel_steps metric,
 * 2node/4node/cxl/la-2node stock, every step seen): at most 2 per map.
 * Their callers, from a stack trace of every step of the suite on 4node
 * (beside 7263 failed high-order attempts and 74 page-cache pages): 55
 * kernel page-table pages (__pte_alloc_kernel: the area starts a fresh
 * 2 MiB of vmalloc space), 43 pages of the pipe the case's own TAP lines
 * go through (anon_pipe_write: a diagnostic printed under the policy), 9
 * slab refills (vmap_area, the map's idr node, vm_struct).  None of them
 * has a bound the kernel promises (a slab refill can come at any
 * allocation), so the bound is the one measured; with the trace there is
 * nothing to tolerate at all.
 */
#define MAX_HIDDEN 2

static int explain(struct wi_model *m, unsigned long n, const unsigned long got[WI_MAX_NODES],
		   unsigned long want0[WI_MAX_NODES])
{
	for (int hidden = 0; hidden <= MAX_HIDDEN; hidden++) {
		struct wi_model try = *m;
		unsigned long want[WI_MAX_NODES];

		for (int i = 0; i < hidden; i++)
			wi_model_page(&try);
		predict(&try, n, want);
		if (hidden == 0)
			memcpy(want0, want, sizeof(want));
		if (!memcmp(want, got, sizeof(want))) {
			*m = try;
			return hidden;
		}
	}
	return -1;
}

/*
 * With the trace: replay every step and batch of the map (replay.h), then
 * the pages must be where the batches asked.  The replay's own check says
 * whether the kernel asked for the model's pages; vmallocinfo says whether
 * they landed there.
 */
static int replay_map(struct seq_run *s, int k, unsigned long n, int nev,
		      const unsigned long got[WI_MAX_NODES])
{
	long steps = s->r.steps;
	char w[256], g[256];

	memset(s->r.placed, 0, sizeof(s->r.placed));
	for (int i = 0; i < nev; i++)
		if (replay_event(&s->r, &s->ev[i])) {
			ktap_diag("map %d (%lu pages): %s", k + 1, n, s->r.why);
			return 0;
		}
	if (nev < 0 || s->r.in_batch) {
		ktap_diag("map %d (%lu pages): the trace is %s", k + 1, n, nev < 0 ? "unreadable" : "cut short");
		return 0;
	}
	ktap_diag("metric: hidden_steps.map%d %ld (seen in the trace)", k + 1,
		  s->r.steps - steps - (long)ilog2_ul(n));
	if (!memcmp(s->r.placed, got, sizeof(s->r.placed)))
		return 1;
	replay_format_counts(s->r.placed, w, sizeof(w));
	replay_format_counts(got, g, sizeof(g));
	ktap_diag("map %d (%lu pages): the kernel asked for %s (as the model), its pages are on %s", k + 1, n,
		  w, g);
	return 0;
}

/* One map of the sequence; 1 if the model explains its counts. */
static int check_map(struct seq_run *s, int k, unsigned long n, struct wi_model *m)
{
	unsigned long want[WI_MAX_NODES], got[WI_MAX_NODES];
	char w[256], g[256];
	long hits = kprobe_hits();
	int hidden, nev = 0;

	reader_read(1);
	s->fds[k] = bulk_map_create(n);
	if (s->fds[k] < 0) {
		ktap_diag("map %d (%lu pages): bpf(BPF_MAP_CREATE): %s", k + 1, n, strerror(errno));
		return 0;
	}
	if (s->traced)
		nev = steptrace_take(s->ev, (int)(sizeof(s->ev) / sizeof(s->ev[0])));
	reader_read(2);
	if (hits >= 0)
		ktap_diag("metric: bulk_calls.map%d_%lu_pages %ld (%lu calls of <= %d into the mempolicy "
			  "bulk allocator)", k + 1, n, kprobe_hits() - hits,
			  (n + VMALLOC_CHUNK - 1) / VMALLOC_CHUNK, VMALLOC_CHUNK);
	if (new_area_counts(reader->before, reader->after, n, got)) {
		ktap_diag("map %d: no new %lu-page area in /proc/vmallocinfo", k + 1, n);
		return 0;
	}
	if (s->traced)
		return replay_map(s, k, n, nev, got);
	hidden = explain(m, n, got, want);
	if (hidden >= 0) {
		ktap_diag("metric: hidden_steps.map%d %d", k + 1, hidden);
		return 1;
	}
	replay_format_counts(want, w, sizeof(w));
	replay_format_counts(got, g, sizeof(g));
	ktap_diag("map %d (%lu pages): model %s, kernel %s (no 0..%d hidden steps explain it)", k + 1,
		  n, w, g, MAX_HIDDEN);
	return 0;
}

static int run_sequence(const struct nodes *n, const struct sequence *q, int traced, char *name, size_t size)
{
	static struct seq_run s;
	unsigned weights[WI_MAX_NODES] = { 0 };
	unsigned long mask = 0;
	struct wi_model m;
	size_t len;
	int ok = 1, k;

	len = (size_t)snprintf(name, size, "bulk weighted interleave %s, maps of", q->name);
	for (k = 0; k < q->nr; k++)
		len += (size_t)snprintf(name + len, size - len, "%s%lu", k ? "," : " ", q->pages[k]);
	snprintf(name + len, size - len, " pages");
	for (int i = 0; i < 4 && i < n->nr_mem; i++) {
		unsigned got;

		if (!q->weights[i])
			continue;
		if (wi_set(n->mem[i], q->weights[i], &got) || got != q->weights[i])
			return 0;
		weights[n->mem[i]] = got;
		mask |= 1UL << n->mem[i];
	}
	wi_model_init(&m, weights);
	s.traced = traced;
	replay_init(&s.r, weights);
	if (traced)
		steptrace_take(NULL, 0);
	if (sys_write("/proc/self/make-it-fail", "1") || sys_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, mask)) {
		ktap_diag("make-it-fail / set_mempolicy: %s", strerror(errno));
		sys_write("/proc/self/make-it-fail", "0");
		return 0;
	}
	for (k = 0; k < q->nr && ok; k++)
		ok = check_map(&s, k, q->pages[k], &m);
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	sys_write("/proc/self/make-it-fail", "0");
	while (k--)
		if (s.fds[k] >= 0)
			close(s.fds[k]);
	return ok;
}

/* Why the bulk path cannot be driven here, or NULL. */
const char *bulk_unsupported(const struct nodes *n)
{
	int fd;

	if (n->nr_mem < 2)
		return "one memory node: interleaving needs two";
	if (!sys_exists(WI_DIR))
		return "no " WI_DIR " in this kernel";
	if (!sys_exists(FAIL_DIR) || !sys_exists("/proc/self/make-it-fail"))
		return "the kernel has no fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC + FAULT_INJECTION_DEBUG_FS; "
		       "the lab's recipe kernels have it) to steer vmalloc onto the bulk path";
	/* On stock, khugepaged,mempolicy in one boot failed every bulk row here without it. */
	if (memcg_kmem_may_be_on())
		return "a memory cgroup came online earlier in this boot (khugepaged and tiering make one): "
		       "the bulk allocator then refuses accounted pages (page_alloc.c: \"Bulk allocator does "
		       "not support memcg accounting\"); put mempolicy first in --tests";
	fd = bulk_map_create(16);
	if (fd < 0)
		return "bpf(BPF_MAP_CREATE) is not available";
	close(fd);
	return NULL;
}

int bulk_plan(const struct nodes *n)
{
	(void)n;
	return NR_SEQUENCES;
}

/*
 * Create and drop maps of the sequence's sizes first, so the slab caches the
 * map and vmalloc bookkeeping come from have free objects: a slab refill
 * during the sequence would take pages under the policy too.
 */
static void warm_up(const struct sequence *q)
{
	for (int k = 0; k < q->nr; k++) {
		int fd = bulk_map_create(q->pages[k]);

		if (fd >= 0)
			close(fd);
	}
}

void bulk_run(const struct nodes *n)
{
	const char *why = bulk_unsupported(n);
	const char *untraced = NULL;
	struct wi_saved saved;
	int saved_ok = 0, traced = 0;
	cpu_set_t one;
	char name[256];

	if (!why && !(saved_ok = !wi_save(n->mem, n->nr_mem, &saved)))
		why = "cannot read the node weights";
	if (!why && reader_start())
		why = "cannot start the /proc/vmallocinfo reader";
	if (!why && bulk_fault_arm())
		why = "cannot configure fail_page_alloc";
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	/* One CPU keeps the trace in order; without it explain() guesses the kernel's steps. */
	if (!why && !sched_setaffinity(0, sizeof(one), &one) && !(untraced = steptrace_arm()))
		traced = 1;
	else if (!why)
		ktap_diag("no step trace (%s): the kernel's own steps are guessed, up to %d per map",
			  untraced ? untraced : "cannot pin to one CPU", MAX_HIDDEN);
	for (int i = 0; i < NR_SEQUENCES; i++) {
		const struct sequence *q = &sequences[i];
		int needs = q->weights[3] ? 4 : q->weights[2] ? 3 : 2;

		if (why)
			ktap_skip("bulk weighted interleave", "%s", why);
		else if (n->nr_mem < needs)
			ktap_skip("bulk weighted interleave", "%s needs %d memory nodes", q->name, needs);
		else {
			int probed = arm_kprobe() == 0, ok;

			warm_up(q);
			ok = run_sequence(n, q, traced, name, sizeof(name));
			if (!ok) {
				/*
				 * A page-table or slab page taken under the policy in the
				 * middle of a map shifts it by a page, once; a kernel bug
				 * breaks every run of the sequence alike.
				 */
				ktap_diag("%s: mismatch; once more, to rule out a stray allocation", name);
				warm_up(q);
				ok = run_sequence(n, q, traced, name, sizeof(name));
			}

			if (probed)
				disarm_kprobe();
			ktap_ok(ok, "%s", name);
		}
	}
	if (traced && steptrace_disarm() > 0)
		ktap_diag("the trace missed events: a mismatch above may be the probe's");
	bulk_fault_disarm();
	reader_stop();
	if (saved_ok)
		wi_restore(&saved);
}
