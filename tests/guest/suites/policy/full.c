/*
 * A full local node: where a THP fault goes, and what NUMA balancing may
 * move into it.  Pinned to a CPU of node L (the last memory node with CPUs,
 * not node 0, whose filling would starve the guest), L is filled with
 * hugetlb pages until it gives no more (watermark boosting off, as
 * khugepaged/nodes.c explains).  SKIPs where L would be node 0, or the node
 * has no hugetlb pages of the PMD size to fill it with.
 *
 *   thp     transhuge.rst, defrag: with "madvise" (the default) a region
 *           that "used madvise(MADV_HUGEPAGE)" will "enter direct reclaim
 *           like always", and "always" means an application "will stall on
 *           allocation failure and directly reclaim pages and compact
 *           memory in an effort to allocate a THP immediately".
 *           alloc_pages_mpol() reads that for the default policy: a THP is
 *           first tried on the local node alone, without reclaim; "If
 *           hugepage allocations are configured to always synchronous
 *           compact or the vma has been madvised to prefer hugepage
 *           backing, retry allowing remote memory with both reclaim and
 *           compact as well".  So a MADV_HUGEPAGE region faulted with L
 *           full is still a THP, on another node; a THP on L when the
 *           fill, taken up again, finds L had room (memory freed late,
 *           under load) is faulted again, twice at most, and one the fill
 *           then still cannot follow is a SKIP (L was not full for a THP).
 *           Kills mm/mempolicy.c:
 *           alloc_pages_mpol `if (page || !(gfp & __GFP_DIRECT_RECLAIM))`
 *           -> `if (1)` (46d560984fbf: base pages instead).
 *   nearly  NUMA balancing moves a page to the node that uses it, but "Avoid
 *           migrating to a node that is nearly full"
 *           (migrate_misplaced_folio_prepare()): below its high watermark,
 *           where an allocation would still succeed (down to min, with
 *           reclaim).  With L's free pages brought to its low watermark
 *           (base pages bound to L), pages on another node written from L stay
 *           there for STAY_S; once the hugetlb pages are given back, they
 *           move to L.  Kills mm/migrate.c:migrate_misplaced_folio_prepare
 *           `if (!migrate_balanced_pgdat(pgdat, nr_pages))` -> `if (0)`
 *           (22e344da31d6: moved into the nearly full node).  Where the
 *           shape has a CPU-less memory node X whose nearest node with CPUs
 *           is not L (cxl: node 2, nearest node 0), the pages sit on X.
 *   nearest numa_nearest_node()'s contract (mm/mempolicy.c): "Return: this
 *           @node if it is in state, otherwise the closest node by
 *           distance"; NUMA balancing's task placement asks it for a node
 *           with CPUs when the task's faults are mostly on a CPU-less node
 *           ("Cannot migrate task to CPU-less node"), as in the nearly row:
 *           its pages on X fault, fail to move (L nearly full) and count on
 *           X.  Once /proc/self/sched shows X with the most faults, the
 *           task's numa_preferred_nid must be X's nearest node with CPUs.
 *           Kills mm/mempolicy.c:numa_nearest_node `if (dist < min_dist)`
 *           -> `if (1)` (1924546beaa2: the last node with CPUs, L).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "numab.h"
#include "policy.h"
#include "sys.h"

#define NR_FULL_ROWS 3
#define NEARLY_PAGES 64
#define REMOTE_THP_ATTEMPTS 3
#define PREFER_S 30.0
#define STAY_S 6.0
#define MOVE_S 30.0
/* Fill and give-back rounds that bring a node between its min and high watermarks. */
#define FILL_ROUNDS 8
#define SLICE_S 0.2

int full_plan(const struct nodes *n)
{
	(void)n;
	return NR_FULL_ROWS;
}

/*
 * A MADV_HUGEPAGE PMD faulted now: 1 if it is a THP off node local, 0 if not (diags say
 * what it is), -1 if it is a THP on local while the fill, taken up again, still finds
 * local full: local had a huge page hugetlb cannot take (seen on Debian's loong64 kernel,
 * 2 of 2 runs), so the row's premise does not hold.  Base pages are 0 either way.
 */
static int remote_thp(int local, struct node_hugepages *h, long *filled)
{
	size_t pmd = (size_t)pmd_size();
	char *map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *huge;
	int node = -1, ok = 0, thp_on_local = 0;

	if (map == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		return 0;
	}
	huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (madvise(huge, pmd, MADV_HUGEPAGE))
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
	for (int attempt = 0; attempt < REMOTE_THP_ATTEMPTS; attempt++) {
		long long anon_huge;
		long more;

		huge[0] = 1;
		pages_nodes(huge, 1, &node);
		anon_huge = smaps_anon_huge(huge);
		ok = anon_huge == (long long)pmd && node >= 0 && node != local;
		thp_on_local = anon_huge == (long long)pmd && node == local;
		if (!ok)
			ktap_diag("the fault with node %d full: AnonHugePages %lld, on node %d", local, anon_huge,
				  node);
		madvise(huge, pmd, MADV_DONTNEED);   /* the VMA keeps MADV_HUGEPAGE for the next fault */
		/*
		 * A THP on L is a failure only if L was full: memory freed late (under load, after
		 * the fill gave up) leaves a huge page the fill takes now; then fault again.
		 */
		if (ok || node != local || (more = node_hugepages_set(h, local, 1L << 20)) <= *filled)
			break;
		ktap_diag("node %d was not full: %ld hugetlb pages more now", local, more - *filled);
		*filled = more;
	}
	munmap(map, 2 * pmd);
	return ok ? 1 : thp_on_local ? -1 : 0;
}

/*
 * The full-THP row: remote_thp()'s answer as its result.  The SKIP is CMA:
 * Debian's loong64 kernel reserves 384 MB of it (CmaTotal), part on node 1,
 * whose free CMA pageblocks a movable THP may take and hugetlb may not
 * (/proc/pagetypeinfo after the fill: order-11 CMA blocks still free).
 */
static void remote_thp_row(int local, struct node_hugepages *h, long *filled, const char *row)
{
	int remote = remote_thp(local, h, filled);

	if (remote < 0)
		ktap_skip(row, "the fault found a huge page on node %d that hugetlb could not fill (CMA?)", local);
	else
		ktap_ok(remote, "%s", row);
}

/* Of the nr nodes with CPUs in cpu[], the nearest to node by its distance line (the lowest id
 * on a tie); -1 if none. */
static int nearest_of(int node, const int *cpu, int nr)
{
	int best = -1, best_dist = 0, dist[MAX_NODES], nr_dist = 0;
	char path[96], text[256], *p = text, *end;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", node);
	if (sys_read(path, text, sizeof(text)))
		return -1;
	for (long d; nr_dist < MAX_NODES && (d = strtol(p, &end, 10), end != p); p = end)
		dist[nr_dist++] = (int)d;
	for (int i = 0; i < nr; i++)
		if (cpu[i] < nr_dist && (best < 0 || dist[cpu[i]] < best_dist)) {
			best = cpu[i];
			best_dist = dist[cpu[i]];
		}
	return best;
}

/* A memory node without CPUs whose nearest node with CPUs (in *nearest) is not local; -1 if none. */
static int cpuless_away_from(const struct nodes *n, int local, int *nearest)
{
	int cpu[MAX_NODES], nr = 0;

	*nearest = -1;
	if (node_list("has_cpu", cpu, MAX_NODES, &nr))
		return -1;
	for (int k = 0; k < n->nr_mem; k++) {
		int has_cpu = 0, near;

		for (int i = 0; i < nr; i++)
			has_cpu |= cpu[i] == n->mem[k];
		near = has_cpu ? -1 : nearest_of(n->mem[k], cpu, nr);
		if (near >= 0 && near != local) {
			*nearest = near;
			return n->mem[k];
		}
	}
	return -1;
}

/* numa_preferred_nid and the node with strictly the most NUMA faults (-1: a tie or none). */
static void placement(long *preferred, int *most)
{
	struct numab_stats s;
	long max = -1;

	*most = -1;
	*preferred = numab_stats(&s) ? -2 : s.preferred;
	for (int node = 0; node < NUMAB_MAX_NODES; node++) {
		if (s.priv[node] + s.shared[node] > max) {
			max = s.priv[node] + s.shared[node];
			*most = node;
		} else if (s.priv[node] + s.shared[node] == max) {
			*most = -1;
		}
	}
}

/*
 * The nearly row, with L full of hugetlb pages: its free pages brought to the low watermark
 * (between min and high: the migration's allocation would succeed, migrate_balanced_pgdat()
 * says no), pages on far written from local (pinned there) for STAY_S: 1 if they stayed, then
 * moved to L within MOVE_S once h is given back; 0 if not.  With nearest >= 0 (far has no
 * CPUs, nearest is its nearest node with CPUs) the nearest row's verdict in *placed: the
 * writes go on, for PREFER_S at most, until far has the most faults, and numa_preferred_nid
 * must then be nearest.
 */
static int nearly_full(int local, int far, struct node_hugepages *h, int nearest, int *placed)
{
	size_t ps = (size_t)page_size(), filler_max = 16384, filled = 0, given_back = 0;
	struct zone_marks z;
	long count;
	char *pages = pages_on(far, NEARLY_PAGES), *filler = NULL;
	unsigned long mask = 1UL << local;
	int status[NEARLY_PAGES], ok = 0, stayed;
	double t0;

	if (!pages || zone_marks(local, &z)) {
		ktap_diag("no pages on node %d, or no watermarks of node %d in /proc/zoneinfo", far, local);
		goto out;
	}
	/* Room above the low watermark first: hugetlb pages back while the node is at or below it. */
	if (sys_read_long(h->path, &count))
		count = 0;
	while (z.free <= z.low && count > 0)
		if ((count = node_hugepages_set(h, local, count - 1)) < 0 || zone_marks(local, &z))
			break;
	filler = mmap(NULL, filler_max * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (filler == MAP_FAILED || p_mbind(filler, filler_max * ps, MPOL_BIND, &mask, MAXNODE_LONG, 0)) {
		ktap_diag("the filler mapping: %s", strerror(errno));
		filler = NULL;
		goto out;
	}
	/*
	 * Filled 16 pages at a time down to low; a fill that lands below min (a refill of the
	 * per-CPU page lists can take a large batch from the free lists at once; seen on 8node under
	 * load) gives filler pages back until above min, and a give-back that a drained batch lifts
	 * to high or above is filled again: FILL_ROUNDS rounds at most.
	 */
	for (int round = 0; round < FILL_ROUNDS; round++) {
		while (filled < filler_max && !zone_marks(local, &z) && z.free > z.low)
			for (size_t k = 0; k < 16 && filled < filler_max; k++)
				filler[filled++ * ps] = 1;
		while (filled > 0 && !zone_marks(local, &z) && z.free <= z.min) {
			size_t back = filled < 16 ? filled : 16;

			filled -= back;
			given_back += back;
			madvise(filler + filled * ps, back * ps, MADV_DONTNEED);
		}
		if (zone_marks(local, &z) || (z.free > z.min && z.free < z.high))
			break;
	}
	ktap_diag("node %d: %ld pages free, watermarks min %ld low %ld high %ld (%zu filler pages, %zu given back)", local,
		  z.free, z.min, z.low, z.high, filled, given_back);
	if (z.free >= z.high || z.free <= z.min) {
		ktap_diag("cannot bring node %d between its min and high watermarks", local);
		goto out;
	}
	numab_touch_for(pages, NEARLY_PAGES * ps, ps, STAY_S);
	if (nearest >= 0) {
		long preferred = -2;
		int most = -1;

		for (t0 = numab_now(); most != far && numab_now() - t0 < PREFER_S;) {
			numab_touch_for(pages, NEARLY_PAGES * ps, ps, SLICE_S);
			placement(&preferred, &most);
		}
		*placed = most == far && preferred == nearest;
		ktap_diag("after %.1f s more: node %d has %s faults, numa_preferred_nid %ld (its nearest node "
			  "with CPUs: %d)", numab_now() - t0, far, most == far ? "the most" : "not the most",
			  preferred, nearest);
	}
	stayed = !pages_nodes(pages, NEARLY_PAGES, status) && all_on(status, NEARLY_PAGES, far, "node nearly full");
	munmap(filler, filler_max * ps);
	filler = NULL;
	node_hugepages_restore(h);
	for (t0 = numab_now(); stayed && !ok && numab_now() - t0 < MOVE_S;) {
		numab_touch_for(pages, NEARLY_PAGES * ps, ps, SLICE_S);
		ok = !pages_nodes(pages, NEARLY_PAGES, status) && status[0] == local &&
		     status[NEARLY_PAGES - 1] == local;
	}
	if (stayed && !ok)
		ktap_diag("the pages did not move to node %d within %.0f s of its room coming back", local, MOVE_S);
out:
	if (filler)
		munmap(filler, filler_max * ps);
	unmap_pages(pages, NEARLY_PAGES);
	return ok;
}

void full_run(const struct nodes *n)
{
	const char *rows[NR_FULL_ROWS] = {
		"a MADV_HUGEPAGE fault whose local node has no huge page left: a THP from another node",
		"NUMA balancing moves no page into a nearly full node, and moves them once it has room",
		"NUMA balancing prefers for a task faulting on a CPU-less node its nearest node with CPUs",
	};
	struct node_hugepages h = { "", "" };
	int local = last_cpu_node(n), far = n->mem[0], nearest, away = cpuless_away_from(n, local, &nearest);
	int placed = 0;
	char boost[32] = "";
	long got;

	if (away >= 0)
		far = away;
	if (local <= 0 || n->nr_mem < 2 || pin_to_node(local)) {
		for (int i = 0; i < NR_FULL_ROWS; i++)
			ktap_skip(rows[i], "needs a memory node with CPUs other than node 0, and a second memory node");
		return;
	}
	watermark_boost_off(boost, sizeof(boost));
	got = node_hugepages_set(&h, local, 1L << 20);
	if (got <= 0) {
		for (int i = 0; i < NR_FULL_ROWS; i++)
			ktap_skip(rows[i], "no hugetlb pages of the PMD size on node %d", local);
	} else if (numab_start("1")) {
		ktap_diag("node %d filled with %ld hugetlb pages", local, got);
		remote_thp_row(local, &h, &got, rows[0]);
		for (int i = 1; i < NR_FULL_ROWS; i++)
			ktap_skip(rows[i], "cannot set " NUMA_BALANCING_SYSCTL " to 1: %s", strerror(errno));
	} else {
		ktap_diag("node %d filled with %ld hugetlb pages", local, got);
		remote_thp_row(local, &h, &got, rows[0]);
		ktap_ok(nearly_full(local, far, &h, nearest, &placed), "%s", rows[1]);
		if (nearest >= 0)
			ktap_ok(placed, "%s", rows[2]);
		else
			ktap_skip(rows[2], "needs a CPU-less memory node whose nearest node with CPUs is not "
				  "node %d", local);
		numab_stop();
	}
	node_hugepages_restore(&h);
	watermark_boost_restore(boost);
	unpin();
}
