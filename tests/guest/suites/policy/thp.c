/*
 * Where a THP fault goes when the local node has no huge page left.
 *
 * transhuge.rst, defrag: with "madvise" (the default) a region that "used
 * madvise(MADV_HUGEPAGE)" will "enter direct reclaim like always", and
 * "always" means an application "will stall on allocation failure and
 * directly reclaim pages and compact memory in an effort to allocate a THP
 * immediately".  mm/mempolicy.c (alloc_pages_mpol()) reads that for the
 * default policy: a THP is first tried on the local node alone, without
 * reclaim; "If hugepage allocations are configured to always synchronous
 * compact or the vma has been madvised to prefer hugepage backing, retry
 * allowing remote memory with both reclaim and compact as well".
 *
 * So: pinned to a CPU of node L (the last memory node with CPUs, not node 0,
 * whose filling would starve the guest), L filled with hugetlb pages until
 * it gives no more, a MADV_HUGEPAGE region faulted under the default policy
 * must still be a THP, on another node.  Kills mm/mempolicy.c:
 * alloc_pages_mpol `if (page || !(gfp & __GFP_DIRECT_RECLAIM))` -> `if (1)`
 * (46d560984fbf: no remote retry, the region falls back to base pages).
 * SKIPs where L would be node 0, or the node has no hugetlb pages of the
 * PMD size to fill it with.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "policy.h"
#include "sys.h"

#define NR_THP_ROWS 1
#define BOOST "/proc/sys/vm/watermark_boost_factor"

int thp_plan(const struct nodes *n)
{
	(void)n;
	return NR_THP_ROWS;
}

/* A MADV_HUGEPAGE PMD faulted now: 1 if it is a THP off node local; diags say what it is. */
static int remote_thp(int local)
{
	size_t pmd = (size_t)pmd_size();
	char *map = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *huge;
	int node = -1, ok;

	if (map == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		return 0;
	}
	huge = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (madvise(huge, pmd, MADV_HUGEPAGE))
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
	huge[0] = 1;
	pages_nodes(huge, 1, &node);
	ok = smaps_anon_huge(huge) == (long long)pmd && node >= 0 && node != local;
	if (!ok)
		ktap_diag("the fault with node %d full: AnonHugePages %lld, on node %d", local, smaps_anon_huge(huge),
			  node);
	munmap(map, 2 * pmd);
	return ok;
}

void thp_run(const struct nodes *n)
{
	const char *row = "a MADV_HUGEPAGE fault whose local node has no huge page left: a THP from another node";
	struct node_hugepages h = { "", "" };
	int local = last_cpu_node(n);
	char boost[32] = "";
	long got;

	if (local <= 0 || n->nr_mem < 2) {
		ktap_skip(row, "needs a memory node with CPUs other than node 0, and a second memory node");
		return;
	}
	if (pin_to_node(local)) {
		ktap_skip(row, "cannot pin to node %d", local);
		return;
	}
	/* Watermark boosting off (khugepaged/nodes.c says why); as many hugetlb pages as L gives. */
	if (sys_read(BOOST, boost, sizeof(boost)) || sys_write(BOOST, "0"))
		boost[0] = '\0';
	got = node_hugepages_set(&h, local, 1L << 20);
	if (got <= 0) {
		ktap_skip(row, "no hugetlb pages of the PMD size on node %d", local);
	} else {
		ktap_diag("node %d filled with %ld hugetlb pages", local, got);
		ktap_ok(remote_thp(local), "%s", row);
	}
	node_hugepages_restore(&h);
	if (boost[0])
		sys_write(BOOST, boost);
	unpin();
}
