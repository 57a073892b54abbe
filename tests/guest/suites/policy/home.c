/*
 * set_mempolicy_home_node(2), as Documentation/admin-guide/mm/
 * numa_memory_policy.rst states it:
 *
 *   "sys_set_mempolicy_home_node set the home node for a VMA policy present
 *   in the task's address range. The system call updates the home node only
 *   for the existing mempolicy range. Other address ranges are ignored. A
 *   home node is the NUMA node closest to which page allocation will come
 *   from. Specifying the home node override the default allocation policy to
 *   allocate memory close to the local node for an executing CPU."
 *
 * Pinned to a CPU of node a (the first memory node with CPUs), with b the
 * last memory node: a range bound to {a, b} (MPOL_BIND) or preferring
 * {a, b} (MPOL_PREFERRED_MANY) faults on a, the local node; with home node
 * b it must fault on b.  Over a bound VMA followed by one with no policy,
 * the call succeeds, the first VMA's pages go to b and the second's, ignored,
 * stay local.  (Over policy-less VMAs alone Linux 7.2 answers ENOENT, which
 * the document does not say; not a row.)  Needs two memory nodes.
 *
 * Kills, in mm/mempolicy.c: set_mempolicy_home_node's `start =
 * untagged_addr(start)` -> `- 1` (05a8e4288cc8: every aligned start is
 * EINVAL) and `new->home_node = home_node;` removed (the pages stay on a);
 * policy_nodemask()'s `*nid = pol->home_node` removed for either mode.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"
#include "numab.h"
#include "policy.h"
#include "sys.h"

#ifndef __NR_set_mempolicy_home_node
#define __NR_set_mempolicy_home_node 450 /* the same number on every arch */
#endif
#define NR_PAGES 16
#define NR_ROWS 4
#define LEAK_CALLS 2000
#define RCU_WAIT_S 20.0
#define POLICY_CACHE "/sys/kernel/slab/numa_policy"

int home_plan(const struct nodes *n)
{
	(void)n;
	return NR_ROWS;
}

/*
 * A fresh range of 2 x NR_PAGES, its first half given mode over mask, then
 * home node home over the first half (whole = 0) or all of it (whole = 1),
 * faulted here: 1 if the call succeeded, the first half's pages are all on
 * want and the second half's (no policy) on local.
 */
static int home_row(int mode, unsigned long mask, int home, int want, int whole, int local)
{
	size_t half = NR_PAGES * (size_t)page_size();
	char *base = map_pages(2 * NR_PAGES);
	int status[2 * NR_PAGES], ok = 0;

	if (!base)
		return 0;
	if (p_mbind(base, half, mode, &mask, MAXNODE_LONG, 0))
		ktap_diag("mbind mode %d over %s: %s", mode, mask_str(mask), strerror(errno));
	else if (syscall(__NR_set_mempolicy_home_node, (unsigned long)base, half << whole, (unsigned long)home, 0UL))
		ktap_diag("set_mempolicy_home_node(home %d): %s", home, strerror(errno));
	else {
		touch_pages(base, 2 * NR_PAGES);
		ok = !pages_nodes(base, 2 * NR_PAGES, status) && all_on(status, NR_PAGES, want, "policy's half") &&
		     all_on(status + NR_PAGES, NR_PAGES, local, "half with no policy");
	}
	unmap_pages(base, 2 * NR_PAGES);
	return ok;
}

/*
 * LEAK_CALLS calls setting the home node of one bound range: each replaces the VMA's policy
 * by a copy with the new home node, and the policy it replaced is freed.  1 if the
 * numa_policy cache comes back to fewer than LEAK_CALLS / 2 more objects than before within
 * RCU_WAIT_S, 0 if not, -1 (a SKIP) without the cache's sysfs files.
 * Kills set_mempolicy_home_node's `mpol_put(new)` -> `mpol_put(old)` (b727307c35ad: the copy
 * is never put, one policy leaked per call, and the replaced one put twice).
 */
static int home_no_leak(int a, int b)
{
	unsigned long ab = 1UL << a | 1UL << b;
	char *base = map_pages(NR_PAGES);
	long before = slab_objects(POLICY_CACHE), after;
	int calls = 0;

	if (before < 0 || !base) {
		unmap_pages(base, NR_PAGES);
		return -1;
	}
	if (p_mbind(base, NR_PAGES * (size_t)page_size(), MPOL_BIND, &ab, MAXNODE_LONG, 0) == 0)
		while (calls < LEAK_CALLS && !syscall(__NR_set_mempolicy_home_node, (unsigned long)base,
						      NR_PAGES * (unsigned long)page_size(),
						      (unsigned long)(calls % 2 ? a : b), 0UL))
			calls++;
	/* __mpol_put() frees a policy after an RCU grace period (kfree_rcu(), for the
	 * mmap_lock_speculative readers): wait for the frees, RCU_WAIT_S at most. */
	for (double t0 = numab_now(); (after = slab_objects(POLICY_CACHE)) - before >= LEAK_CALLS / 2 &&
				  numab_now() - t0 < RCU_WAIT_S;)
		usleep(200000);
	unmap_pages(base, NR_PAGES);
	ktap_diag("metric: home.leak_objects %ld (after %d calls)", after - before, calls);
	if (calls < LEAK_CALLS)
		ktap_diag("call %d failed: %s", calls + 1, strerror(errno));
	return calls == LEAK_CALLS && after - before < LEAK_CALLS / 2;
}

void home_run(const struct nodes *n)
{
	int a, b, ok;
	unsigned long ab;

	if (pin_local_far(n, &a, &b, NR_ROWS, "set_mempolicy_home_node"))
		return;
	ab = 1UL << a | 1UL << b;
	ktap_ok(home_row(MPOL_BIND, ab, b, b, 0, a),
		"MPOL_BIND over %s, home node %d: pages on node %d, not local node %d", mask_str(ab), b, b, a);
	ktap_ok(home_row(MPOL_PREFERRED_MANY, ab, b, b, 0, a),
		"MPOL_PREFERRED_MANY over %s, home node %d: pages on node %d, not local node %d", mask_str(ab), b, b, a);
	ktap_ok(home_row(MPOL_BIND, ab, b, b, 1, a),
		"home node %d over a bound VMA and one with no policy: the second ignored, its pages local", b);
	ok = home_no_leak(a, b);
	if (ok < 0)
		ktap_skip("set_mempolicy_home_node leaks no policy", "no " POLICY_CACHE "/objects here");
	else
		ktap_ok(ok, "set_mempolicy_home_node leaks no policy: %d calls", LEAK_CALLS);
	unpin();
}
