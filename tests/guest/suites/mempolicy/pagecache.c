/*
 * Page-cache pages written under set_mempolicy(), page by page (issue 18).
 *
 * A page-cache page has no VMA to take an interleave index from: it is
 * placed by the task's own round robin (interleave_nodes() /
 * weighted_interleave_nodes(), current->il_prev and il_weight), which the
 * fault tests (placement.c) never reach.  The files live on a ramfs (its
 * pages come from filemap_alloc_folio() with the task's policy; tmpfs would
 * use its shared policy and an index instead), written in chunks of
 * different sizes into two files one after the other, so each write and the
 * second file start from the state the one before left.
 *
 * Checked: every step of the round robin in the trace (steptrace.h, the
 * kernel's own page-table or slab pages included) is the reference model's
 * next node (replay.h), and each file page, read back with move_pages() on
 * a shared mapping, is on the node its step chose.
 *
 * Mutant it was written for: in interleave_nodes(), `if (nid < MAX_NUMNODES)`
 * -> `if (nid > MAX_NUMNODES)` (il_prev never moves: every page on the first
 * node).  The weighted case fails with `current->il_weight--;` removed from
 * weighted_interleave_nodes().
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "mempolicy.h"
#include "replay.h"
#include "steptrace.h"
#include "weights.h"

#define RAMFS_DIR "/tmp/numalab-pagecache"
#define NR_FILES 2
#define MAX_EVENTS 2048

/* Pages per write(): into the first file, then the second. */
static const int chunks[NR_FILES][8] = { { 1, 2, 3, 1, 4, 7, 2, 5 }, { 3, 1, 8 } };
static const int nr_chunks[NR_FILES] = { 8, 3 };

struct pc_case {
	const char *name;
	int mode;
	int subset;                /* the first and last memory nodes only */
};

static const struct pc_case cases[] = {
	{ "MPOL_INTERLEAVE", MPOL_INTERLEAVE, 0 },
	{ "MPOL_WEIGHTED_INTERLEAVE", MPOL_WEIGHTED_INTERLEAVE, 0 },
	{ "MPOL_WEIGHTED_INTERLEAVE", MPOL_WEIGHTED_INTERLEAVE, 1 },
};
#define NR_CASES (int)(sizeof(cases) / sizeof(cases[0]))

static int file_pages(int f)
{
	int sum = 0;

	for (int i = 0; i < nr_chunks[f]; i++)
		sum += chunks[f][i];
	return sum;
}

/* Each file's pages' nodes, file after file, from move_pages() on shared mappings. */
static int read_back(const int *fds, int *nodes)
{
	size_t ps = (size_t)page_size();
	int at = 0;

	for (int f = 0; f < NR_FILES; f++) {
		size_t len = (size_t)file_pages(f) * ps;
		char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fds[f], 0);
		int rc;

		if (p == MAP_FAILED) {
			ktap_diag("mmap file %d: %s", f, strerror(errno));
			return -1;
		}
		for (size_t off = 0; off < len; off += ps)
			(void)*(volatile char *)(p + off);
		rc = pages_nodes(p, (size_t)file_pages(f), nodes + at);
		munmap(p, len);
		if (rc)
			return -1;
		at += file_pages(f);
	}
	return 0;
}

/* Write the files under the policy; 1 if every step and page is the model's. */
static int run_pc(const struct pc_case *c, const int *nodes, const unsigned *w, int nr)
{
	static struct step_event ev[MAX_EVENTS];
	unsigned weights[WI_MAX_NODES] = { 0 };
	int fds[NR_FILES], chose[256], placed[256], nchose = 0, total = 0, nev, ok = 1;
	unsigned long mask = 0;
	char *buf = malloc((size_t)page_size() * 8);
	struct replay r;

	for (int i = 0; i < nr; i++) {
		weights[nodes[i]] = c->mode == MPOL_INTERLEAVE ? 1 : w[i];
		mask |= 1UL << nodes[i];
	}
	for (int f = 0; f < NR_FILES; f++) {
		char path[64];

		snprintf(path, sizeof(path), RAMFS_DIR "/file%d", f);
		fds[f] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		total += file_pages(f);
	}
	if (!buf || fds[0] < 0 || fds[1] < 0) {
		ktap_diag("cannot create the files in " RAMFS_DIR ": %s", strerror(errno));
		ok = 0;
		goto out;
	}
	memset(buf, 0x5a, (size_t)page_size() * 8);   /* faulted before the policy */
	replay_init(&r, weights);
	steptrace_take(NULL, 0);
	if (sys_set_mempolicy(c->mode, mask)) {
		ktap_diag("set_mempolicy: %s", strerror(errno));
		ok = 0;
		goto out;
	}
	for (int f = 0; f < NR_FILES; f++)
		for (int i = 0; i < nr_chunks[f]; i++)
			if (write(fds[f], buf, (size_t)chunks[f][i] * (size_t)page_size()) !=
			    (ssize_t)((size_t)chunks[f][i] * (size_t)page_size()))
				ok = 0;
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	if (!ok) {
		ktap_diag("write: %s", strerror(errno));
		goto out;
	}
	nev = steptrace_take(ev, MAX_EVENTS);
	for (int i = 0; ok && i < nev; i++) {
		if (replay_event(&r, &ev[i])) {
			ktap_diag("%s", r.why);
			ok = 0;
		} else if (ev[i].kind == STEP_FILE && nchose < (int)(sizeof(chose) / sizeof(chose[0])))
			chose[nchose++] = r.last_node;
	}
	if (ok && nchose != total) {
		ktap_diag("the trace shows %d page-cache pages added, %d written", nchose, total);
		ok = 0;
	}
	if (ok && read_back(fds, placed))
		ok = 0;
	for (int i = 0; ok && i < total; i++)
		if (placed[i] != chose[i]) {
			ktap_diag("page %d of %d is on node %d, its step chose node %d", i + 1, total, placed[i],
				  chose[i]);
			ok = 0;
		}
	if (ok)
		ktap_diag("metric: pagecache.%s%s.kernel_steps %ld", c->mode == MPOL_INTERLEAVE ? "il" : "wi",
			  c->subset ? "_subset" : "", r.steps - total);
out:
	for (int f = 0; f < NR_FILES; f++)
		if (fds[f] >= 0)
			close(fds[f]);
	free(buf);
	return ok;
}

int pagecache_plan(const struct nodes *n)
{
	(void)n;
	return NR_CASES;
}

void pagecache_run(const struct nodes *n)
{
	const char *why = n->nr_mem < 2 ? "one memory node: interleaving needs two" : NULL;
	struct wi_saved saved;
	int saved_ok = 0, armed = 0, has_wi = sys_exists(WI_DIR);
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (!why && sched_setaffinity(0, sizeof(one), &one))
		why = "cannot pin the task to one CPU";
	mkdir("/tmp", 0755);
	mkdir(RAMFS_DIR, 0755);
	if (!why && mount("ramfs", RAMFS_DIR, "ramfs", 0, NULL))
		why = "cannot mount a ramfs";
	if (!why && has_wi && !(saved_ok = !wi_save(n->mem, n->nr_mem, &saved)))
		why = "cannot read the node weights";
	if (!why && !(why = steptrace_arm()))
		armed = 1;
	for (int k = 0; k < NR_CASES; k++) {
		const struct pc_case *c = &cases[k];
		int nodes[MAX_NODES], nr = 0, ok = 1;
		unsigned w[MAX_NODES], got;
		unsigned long mask = 0;
		char name[160];

		for (int i = 0; i < n->nr_mem; i++)
			if (!c->subset || i == 0 || i == n->nr_mem - 1) {
				nodes[nr++] = n->mem[i];
				mask |= 1UL << n->mem[i];
			}
		snprintf(name, sizeof(name), "page cache written under set_mempolicy %s nodes %s, page by page",
			 c->name, mask_str(mask));
		if (why || (c->mode == MPOL_WEIGHTED_INTERLEAVE && !has_wi) || (c->subset && n->nr_mem < 3)) {
			ktap_skip(name, "%s", why ? why : !has_wi ? "no " WI_DIR " in this kernel" :
				  "a subset needs 3 memory nodes");
			continue;
		}
		/* Weights 3,1,2,3,1,...: a weight above 1 on the first node carries across writes. */
		for (int i = 0; ok && i < nr; i++) {
			w[i] = 1 + (unsigned)(i + 2) % 3;
			if (c->mode == MPOL_WEIGHTED_INTERLEAVE && (wi_set(nodes[i], w[i], &got) || got != w[i]))
				ok = 0;
		}
		ktap_ok(ok && run_pc(c, nodes, w, nr), "%s", name);
	}
	if (armed && steptrace_disarm() > 0)
		ktap_diag("the trace missed events: a mismatch above may be the probe's");
	umount(RAMFS_DIR);
	if (saved_ok)
		wi_restore(&saved);
}
