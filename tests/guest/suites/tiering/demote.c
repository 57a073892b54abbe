/*
 * Demotion: with /sys/kernel/mm/numa/demotion_enabled, reclaim on a DRAM
 * node moves its cold pages to a slower node instead of dropping or
 * swapping them (the guest has no swap, so without demotion anonymous
 * pages could not leave the node at all).
 *
 * Pinned to a CPU of the first DRAM node D, the test faults NR_PAGES
 * anonymous pages and writes NR_PAGES pages of a tmpfs file (shmem: the
 * initramfs guest has no block device for disk-backed page cache), makes
 * them cold (MADV_COLD: inactive, not referenced), and asks for proactive
 * reclaim of node D (/sys/devices/system/node/nodeD/reclaim, 6.18+).
 * Every page must then be on one of D's demotion targets: the nodes of the
 * next lower tier nearest to D (demotion_targets()), and pgdemote_proactive
 * must have grown by at least the pages moved.
 *
 * Then real pressure: fresh cold anonymous pages on D, and a filler bound
 * to D (MPOL_BIND) larger than D's free memory.  kswapd and direct reclaim
 * must make room by demoting, the cold pages (older than every filler page
 * on the LRU) first: all on the targets again, pgdemote_kswapd +
 * pgdemote_direct grown by at least their number, and no OOM kill.
 *
 * Fails on: a kernel without CONFIG_MIGRATION (no demotion_enabled); the
 * mutant `return false;` at the top of can_demote() in mm/vmscan.c (anon
 * pages stay on D, tmpfs pages too: nothing to swap to; in the mutants
 * recipe, kernels/patches/mutants/); a next_demotion_node() returning any
 * lower-tier node (pages off the nearest target).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "tiering.h"

/*
 * nodeN/reclaim goes through __node_reclaim(), which does nothing unless the
 * node's unmapped page cache or reclaimable slab exceeds these ratios.
 */
#define MIN_UNMAPPED "/proc/sys/vm/min_unmapped_ratio"
#define MIN_SLAB "/proc/sys/vm/min_slab_ratio"
#define TMPFS_DIR "/tmp/numalab-tiering"
#define NR_PAGES 256
#ifndef MADV_COLD
#define MADV_COLD 20
#endif

/*
 * MADV_COLD, twice (tiering.h).  The
 * kernel queues deactivations in a per-CPU batch of 31 folios that only a
 * later lru_add_drain() on this CPU empties; kswapd reclaims from another
 * CPU and never sees the queued pages: 256 pages left 256 % 31 = 8 on the
 * node ("248 of 256 pages on node(s) 2") when no direct reclaim ran here.
 * madvise_cold() drains this CPU's batches before it starts, so a second
 * call on the range (inactive now: nothing is queued again) empties it.
 */
void make_cold(char *addr, size_t len)
{
	madvise(addr, len, MADV_COLD);
	madvise(addr, len, MADV_COLD);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int demote_plan(const struct tiering *t)
{
	(void)t;
	return 6;
}

/*
 * demotion_enabled reads back as one line, the word kstrtobool() took:
 * "true\n" after "1" (sysfs-kernel-mm-numa: the switch; sysfs.rst: one
 * value per file, as text).  Kills demotion_enabled_show()'s `return
 * sysfs_emit(...)` -> `- 1` (88653ab36127: "true", no newline) and a show
 * that prints the old state.
 */
static void demotion_enabled_reads_back(void)
{
	char got[16] = "";
	ssize_t n = sys_read_bytes(DEMOTION_ENABLED, got, sizeof(got));

	if (n >= 0 && strcmp(got, "true\n"))
		ktap_diag(DEMOTION_ENABLED " after writing 1: \"%.*s\" (%zd bytes)", (int)strcspn(got, "\n"), got,
			  n);
	ktap_ok(n == 5 && !strcmp(got, "true\n"), DEMOTION_ENABLED " reads \"true\\n\" after writing 1");
}

char *anon_pages(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		ktap_diag("mmap %zu: %s", len, strerror(errno));
		return NULL;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0x5a, len);
	return p;
}

/* A tmpfs file of len bytes written from this CPU, mapped shared. */
static char *tmpfs_pages(size_t len)
{
	char *buf, *p = MAP_FAILED;
	int fd;

	mkdir("/tmp", 0755);
	mkdir(TMPFS_DIR, 0755);
	if (mount("tmpfs", TMPFS_DIR, "tmpfs", 0, "size=64m") && errno != EBUSY) {
		ktap_diag("mount tmpfs on " TMPFS_DIR ": %s", strerror(errno));
		return NULL;
	}
	fd = open(TMPFS_DIR "/cold", O_RDWR | O_CREAT | O_TRUNC, 0600);
	buf = malloc(len);
	if (fd >= 0 && buf) {
		memset(buf, 0xa5, len);
		if (write(fd, buf, len) == (ssize_t)len)
			p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	}
	if (p == MAP_FAILED)
		ktap_diag("tmpfs file of %zu bytes: %s", len, strerror(errno));
	else
		for (size_t off = 0; off < len; off += (size_t)page_size())
			(void)*(volatile char *)(p + off);
	free(buf);
	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * One result: after reclaim, the pages placed on node are on a target,
 * at least min_in of them, and none on a node that is neither (a wrong
 * demotion target).  Returns how many were demoted, 0 when it failed.
 */
static size_t report(const char *what, char *base, int node, unsigned long targets, int before_ok,
		     size_t min_in, int *status)
{
	char tl[64];
	int stray, ok = 0;
	size_t in = 0, left;

	idlist_format(targets, tl, sizeof(tl));
	if (!before_ok)
		ktap_diag("%s: the pages were not all on node%d to begin with", what, node);
	else if (!pages_where(base, NR_PAGES, status)) {
		in = pages_in(status, NR_PAGES, targets, &stray);
		left = pages_in(status, NR_PAGES, 1UL << node, &stray);
		ok = in >= min_in && in + left == NR_PAGES;
		if (in != NR_PAGES)
			ktap_diag("%s: %zu of %d pages on node(s) %s, %zu left on node %d%s", what, in,
				  NR_PAGES, tl, left, node, in + left == NR_PAGES ? "" : ", some elsewhere");
	}
	ktap_ok(ok, "cold %s pages demoted node%d -> node(s) %s", what, node, tl);
	return ok ? in : 0;
}

static int all_on(char *base, int node, int *status, const char *what)
{
	int stray;

	if (!base || pages_where(base, NR_PAGES, status))
		return 0;
	if (pages_in(status, NR_PAGES, 1UL << node, &stray) != NR_PAGES) {
		ktap_diag("%s: before reclaim a page is on node %d, not node %d", what, stray, node);
		return 0;
	}
	return 1;
}

static void demote_under_pressure(int node, unsigned long targets,
				  int *status)
{
	size_t len = NR_PAGES * (size_t)page_size(), fill;
	long long before = vmstat("pgdemote_kswapd") + vmstat("pgdemote_direct"), after;
	unsigned long mask = 1UL << node;
	char *cold = anon_pages(len), *filler = MAP_FAILED;
	int placed = all_on(cold, node, status, "anon (pressure)"), ok = 0;
	size_t demoted = 0;
	double t0 = now_s();

	if (cold)
		make_cold(cold, len);
	fill = (size_t)node_free(node) + 4 * len;
	if (placed)
		filler = mmap(NULL, fill, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (filler != MAP_FAILED &&
	    !syscall(SYS_mbind, filler, fill, 2 /* MPOL_BIND */, &mask, sizeof(mask) * CHAR_BIT + 1, 0)) {
		memset(filler, 1, fill);
		ktap_diag("filled node%d with %zu MiB in %.1f s", node, fill >> 20, now_s() - t0);
		/*
		 * Reclaim under pressure stops once the node is above its
		 * watermark again, so a few cold pages may stay behind (8 of
		 * 256 here under a loaded host); all must go to a target and
		 * most must go.  Mutant this catches: demotion off or to a
		 * wrong node (next_demotion_node() returning NUMA_NO_NODE or
		 * node + 1).
		 */
		ok = (int)(demoted = report("anon (node filled)", cold, node, targets, placed,
					    NR_PAGES * 9 / 10, status));
	} else {
		ktap_diag("filler of %zu bytes bound to node%d: %s", fill, node, strerror(errno));
		ktap_ok(0, "cold anon (node filled) pages demoted");
	}
	after = vmstat("pgdemote_kswapd") + vmstat("pgdemote_direct");
	ktap_diag("pgdemote_kswapd + pgdemote_direct %lld -> %lld", before, after);
	ktap_ok(ok && after - before >= (long long)demoted, "pgdemote_kswapd + pgdemote_direct count the demoted pages");
	if (filler != MAP_FAILED)
		munmap(filler, fill);
	if (cold)
		munmap(cold, len);
}

void demote_run(const struct tiering *t)
{
	static int status[NR_PAGES];
	size_t len = NR_PAGES * (size_t)page_size();
	int node = t->dram, anon_ok, file_ok, moved = 0;
	unsigned long targets = demotion_targets(t, node);
	char old[16] = "", path[96], amount[32], tl[64], unmapped[16] = "", slab[16] = "";
	long long before = vmstat("pgdemote_proactive"), after;
	char *anon, *file;
	double t0;

	idlist_format(targets, tl, sizeof(tl));
	ktap_diag("demotion: node%d, targets by the kernel's rule: %s", node, tl);
	if (sys_read(DEMOTION_ENABLED, old, sizeof(old)) || sys_write(DEMOTION_ENABLED, "1")) {
		ktap_diag("cannot enable " DEMOTION_ENABLED ": %s", strerror(errno));
		for (int i = 0; i < demote_plan(t); i++)
			ktap_ok(0, "demotion (no " DEMOTION_ENABLED ")");
		return;
	}
	demotion_enabled_reads_back();
	pin_to_cpu(t->dram_cpu);
	anon = anon_pages(len);
	file = tmpfs_pages(len);
	anon_ok = all_on(anon, node, status, "anon");
	file_ok = all_on(file, node, status, "tmpfs");
	if (anon)
		make_cold(anon, len);
	if (file)
		make_cold(file, len);
	snprintf(path, sizeof(path), NODE_DIR "/node%d/reclaim", node);
	/*
	 * The whole node: reclaim takes the LRU from its tail, and whatever else
	 * is reclaimable there may sit in front of the test's pages.  EAGAIN:
	 * less than that was reclaimable, and all of it has gone.
	 */
	snprintf(amount, sizeof(amount), "%lluM", (unsigned long long)(t->topo->nodes[node].mem_bytes >> 20));
	t0 = now_s();
	if (sys_read(MIN_UNMAPPED, unmapped, sizeof(unmapped)) || sys_read(MIN_SLAB, slab, sizeof(slab)) ||
	    sys_write(MIN_UNMAPPED, "0") || sys_write(MIN_SLAB, "0"))
		ktap_diag("cannot set " MIN_UNMAPPED " and " MIN_SLAB " to 0: %s", strerror(errno));
	if (sys_write(path, amount) && errno != EAGAIN)
		ktap_diag("write %s to %s: %s", amount, path, strerror(errno));
	ktap_diag("reclaim %s on node%d: %s after %.1f s", amount, node, strerror(errno), now_s() - t0);
	if (unmapped[0] && slab[0]) {
		sys_write(MIN_UNMAPPED, unmapped);
		sys_write(MIN_SLAB, slab);
	}
	moved += (int)report("anon", anon, node, targets, anon_ok, NR_PAGES, status);
	moved += (int)report("tmpfs", file, node, targets, file_ok, NR_PAGES, status);
	after = vmstat("pgdemote_proactive");
	ktap_diag("pgdemote_proactive %lld -> %lld, pages seen moved %d", before, after, moved);
	ktap_ok(before >= 0 && moved && after - before >= moved,
		"pgdemote_proactive counts the demoted pages");
	if (anon)
		munmap(anon, len);
	if (file)
		munmap(file, len);
	unlink(TMPFS_DIR "/cold");
	umount(TMPFS_DIR);
	/* Without demotion, a filler bound to the node ends in an OOM kill of this test. */
	if (moved)
		demote_under_pressure(node, targets, status);
	else
		for (int i = 0; i < 2; i++)
			ktap_ok(0, "demotion under pressure (not tried: proactive reclaim demoted nothing, "
				"filling node%d would only OOM)", node);
	sys_write(DEMOTION_ENABLED, old);
}
