/*
 * Building a policy from a nodemask (issue 33 (a)): what set_mempolicy(2)
 * and mbind(2) accept and refuse, and the policy a mask turns into, read
 * back with get_mempolicy and seen in where faulted pages land.  Each row
 * cites the sentence it checks (man page section or
 * Documentation/admin-guide/mm/numa_memory_policy.rst, "rst") and names a
 * one-line mutant of mm/mempolicy.c it kills.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "policy.h"

#define NR_ERROR_ROWS 19
#define NR_BUILD_ROWS 6
#define FAULT_PAGES 16

/* mode | flags with mask (one long) must fail with EINVAL. */
static void refuse(int mode, unsigned long mask, const char *what)
{
	expect_errno(set_task(mode, mask), EINVAL, what);
}

/* A zeroed buffer of at least `bits` node bits; NULL on failure (diag printed). */
static unsigned long *big_mask(size_t bits)
{
	unsigned long *m = calloc(bits / 8 + 16, 1);

	if (!m)
		ktap_diag("calloc: %s", strerror(errno));
	return m;
}

static void check_errors(const struct nodes *n)
{
	unsigned long one = 1UL << n->mem[0], *m;
	unsigned long page_bits = (unsigned long)page_size() * 8;
	size_t ps = (size_t)page_size();
	char *two, *three;
	int ok, mode;
	unsigned long got;

	/* set_mempolicy(2) ERRORS "EINVAL mode is invalid."
	 * Kills sanitize_mpol_flags: `(unsigned int)(*mode) >= MPOL_MAX` -> `>`. */
	refuse(MPOL_MAX, one, "set_mempolicy mode MPOL_MAX (7)");
	/* set_mempolicy(2) "Or, mode is MPOL_DEFAULT and nodemask is nonempty".
	 * Kills mpol_new: `if (nodes && !nodes_empty(*nodes))` -> `if (0)`. */
	refuse(MPOL_DEFAULT, one, "set_mempolicy MPOL_DEFAULT with a nonempty mask");
	/* set_mempolicy(2) MPOL_LOCAL "The nodemask and maxnode arguments must specify the empty set."
	 * Kills mpol_new (MPOL_LOCAL branch): `!nodes_empty(*nodes) ||` -> `&&`. */
	refuse(MPOL_LOCAL, one, "set_mempolicy MPOL_LOCAL with a nonempty mask");
	/* rst MPOL_F_STATIC_NODES "It also cannot be used for MPOL_PREFERRED policies that
	 * were created with an empty nodemask (local allocation)."; MPOL_LOCAL is that policy.
	 * Kills mpol_new (MPOL_LOCAL branch): `(flags & MPOL_F_STATIC_NODES) ||` -> `&&`. */
	refuse(MPOL_LOCAL | MPOL_F_STATIC_NODES, 0, "set_mempolicy MPOL_LOCAL|STATIC_NODES");
	/* rst MPOL_F_RELATIVE_NODES, the same sentence for MPOL_PREFERRED with an empty mask.
	 * Kills mpol_new (MPOL_PREFERRED, empty mask): `if (((flags & MPOL_F_STATIC_NODES) ||` -> `&&`. */
	refuse(MPOL_PREFERRED | MPOL_F_RELATIVE_NODES, 0, "set_mempolicy MPOL_PREFERRED|RELATIVE_NODES, empty mask");
	/* set_mempolicy(2) "Or, ... mode is MPOL_BIND or MPOL_INTERLEAVE and nodemask is empty";
	 * rst MPOL_PREFERRED_MANY is "MPOL_PREFERRED allowed for a mask" (not for none).
	 * Kills mpol_new: `if (mode == MPOL_PREFERRED)` -> `if (1)` (any empty mask made local
	 * allocation; mpol_new_nodemask() refuses an empty mask too, so only a mutant that skips
	 * both tests shows). */
	refuse(MPOL_INTERLEAVE, 0, "set_mempolicy MPOL_INTERLEAVE, empty mask");
	refuse(MPOL_WEIGHTED_INTERLEAVE, 0, "set_mempolicy MPOL_WEIGHTED_INTERLEAVE, empty mask");
	refuse(MPOL_PREFERRED_MANY, 0, "set_mempolicy MPOL_PREFERRED_MANY, empty mask");
	/* set_mempolicy(2) "the MPOL_F_NUMA_BALANCING ... is used with mode other than MPOL_BIND" -> EINVAL.
	 * Kills sanitize_mpol_flags: `*mode == MPOL_BIND ||` -> `!=`. */
	ok = 1;
	for (int mode_nb = MPOL_PREFERRED; mode_nb <= MPOL_WEIGHTED_INTERLEAVE; mode_nb++) {
		if (mode_nb == MPOL_BIND || mode_nb == MPOL_PREFERRED_MANY)
			continue;
		if (set_task(mode_nb | MPOL_F_NUMA_BALANCING, mode_nb == MPOL_LOCAL ? 0 : one) == 0 ||
		    errno != EINVAL) {
			ktap_diag("mode %d|MPOL_F_NUMA_BALANCING: %s, want EINVAL", mode_nb,
				  errno_name(errno));
			ok = 0;
		}
		reset_task();
	}
	ktap_ok(ok, "set_mempolicy NUMA_BALANCING with PREFERRED, INTERLEAVE, LOCAL, WEIGHTED_INTERLEAVE: EINVAL");
	/* set_mempolicy(2) MPOL_F_NUMA_BALANCING "When mode is MPOL_BIND, enable the kernel NUMA
	 * balancing"; get_mempolicy(2) "store the policy mode and any optional mode flags".
	 * Kills sanitize_mpol_flags: `*mode == MPOL_BIND || *mode == MPOL_PREFERRED_MANY` -> `&&`. */
	ok = set_task(MPOL_BIND | MPOL_F_NUMA_BALANCING, one) == 0 && get_task(&mode, &got) == 0 &&
	     mode == (MPOL_BIND | MPOL_F_NUMA_BALANCING) && got == one;
	if (!ok)
		ktap_diag("MPOL_BIND|MPOL_F_NUMA_BALANCING %s: %s, read back mode %#x nodes %s",
			  mask_str(one), strerror(errno), mode, mask_str(got));
	reset_task();
	ktap_ok(ok, "set_mempolicy MPOL_BIND|NUMA_BALANCING accepted, read back with the flag");
	/* set_mempolicy(2) "A NULL value of nodemask ... specifies the empty set of nodes."
	 * Kills get_nodes: `if (maxnode == 0 || !nmask)` -> `&&` (a NULL mask read: EFAULT). */
	expect_errno(p_set(MPOL_BIND, NULL, MAXNODE_LONG), EINVAL, "set_mempolicy MPOL_BIND, NULL nodemask");
	m = big_mask(2 * page_bits + 128);
	if (m) {
		m[0] = one;
		/* set_mempolicy(2) "Or, maxnode specifies more than a page worth of bits."
		 * Kills get_nodes: `if (maxnode > PAGE_SIZE*BITS_PER_BYTE)` -> `if (0)`. */
		expect_errno(p_set(MPOL_BIND, m, page_bits + 2), EINVAL,
			     "set_mempolicy maxnode one bit more than a page of bits");
		/* The same bound: exactly a page of bits (maxnode - 1 used) is not "more".
		 * Kills get_nodes: `maxnode > PAGE_SIZE*BITS_PER_BYTE` -> `>=`. */
		got = 0;
		ok = p_set(MPOL_BIND, m, page_bits + 1) == 0 && get_task(&mode, &got) == 0 && got == one;
		if (!ok)
			ktap_diag("maxnode %lu: %s, read back %s", page_bits + 1, strerror(errno), mask_str(got));
		reset_task();
		ktap_ok(ok, "set_mempolicy maxnode a page of bits, high bits clear: accepted");
		/* set_mempolicy(2) "Or, nodemask specifies one or more node IDs that are greater
		 * than the maximum supported node ID."  Node page_bits - 1 is beyond MAX_NUMNODES.
		 * Kills get_nodes: `if (t) return -EINVAL;` -> `if (0)`. */
		m[(page_bits - 1) / (8 * sizeof(long))] |= 1UL << ((page_bits - 1) % (8 * sizeof(long)));
		expect_errno(p_set(MPOL_BIND, m, page_bits + 1), EINVAL,
			     "set_mempolicy a node ID beyond the maximum supported");
		free(m);
	} else {
		for (int i = 0; i < 3; i++)
			ktap_ok(0, "set_mempolicy maxnode bounds (no buffer)");
	}
	/* set_mempolicy(2) "EFAULT Part of all of the memory range specified by nodemask and
	 * maxnode points outside your accessible address space."  Two longs, the second unmapped.
	 * Kills get_bitmap: `if (ret) return -EFAULT;` -> `if (0)`. */
	two = map_pages(2);
	if (two && munmap(two + ps, ps) == 0) {
		unsigned long *edge = (unsigned long *)(two + ps) - 1;

		*edge = one;
		expect_errno(p_set(MPOL_BIND, edge, 2 * 64 + 1), EFAULT,
			     "set_mempolicy nodemask running into an unmapped page");
		munmap(two, ps);
	} else {
		ktap_ok(0, "set_mempolicy nodemask running into an unmapped page (cannot map)");
	}
	/* mbind(2) "EINVAL An invalid value was specified for flags".  1 << 3 is the kernel's
	 * internal MPOL_MF_LAZY.  Kills do_mbind: `if (flags & ~(unsigned long)MPOL_MF_VALID)` -> `if (0)`. */
	three = map_pages(3);
	expect_errno(three ? p_mbind(three, ps, MPOL_BIND, &one, MAXNODE_LONG, 1 << 3) : -1, EINVAL,
		     "mbind flags 1 << 3");
	/* mbind(2) "EFAULT ... Or, there was an unmapped hole in the specified memory range".
	 * Kills queue_pages_test_walk: the middle/tail hole's `return -EFAULT;` -> `return 0;`
	 * (hand-written).  (An addr + len that wraps is not a row: do_mbind's `end < start` and
	 * walk_page_range()'s `start >= end` both answer EINVAL, no one-line mutant shows.) */
	if (three && munmap(three + ps, ps) == 0) {
		expect_errno(p_mbind(three, 3 * ps, MPOL_BIND, &one, MAXNODE_LONG, 0), EFAULT,
			     "mbind over a range with a hole");
		munmap(three, ps);
		munmap(three + 2 * ps, ps);
	} else {
		ktap_ok(0, "mbind over a range with a hole (cannot map)");
		unmap_pages(three, 3);
	}
	/* The exception to that EFAULT, as old as the hole check (do_mbind(): "If we are using the
	 * default policy then operation on discontinuous address spaces is okay after all"):
	 * MPOL_DEFAULT over a range with a hole succeeds and resets the policy of the VMAs there.
	 * mbind(2) does not carve it out (reported in policy.h).  Kills do_mbind: `if (!new) flags |= MPOL_MF_DISCONTIG_OK;` -> `if (0)` (EFAULT). */
	three = map_pages(3);
	ok = three && p_mbind(three, 3 * ps, MPOL_BIND, &one, MAXNODE_LONG, 0) == 0 && munmap(three + ps, ps) == 0 &&
	     p_mbind(three, 3 * ps, MPOL_DEFAULT, NULL, 0, 0) == 0 &&
	     p_get(&mode, &got, MAXNODE_LONG, three + 2 * ps, MPOL_F_ADDR) == 0 && mode == MPOL_DEFAULT;
	if (!ok)
		ktap_diag("mbind MPOL_DEFAULT over a range with a hole: %s, mode after %d", strerror(errno), mode);
	if (three) {
		munmap(three, ps);
		munmap(three + 2 * ps, ps);
	}
	ktap_ok(ok, "mbind MPOL_DEFAULT over a range with a hole: success, the policy reset");
	/* mbind(2): a range of two adjacent VMAs has no hole: the policy applies to both.
	 * Kills queue_pages_test_walk: `vma->vm_end < next->vm_start` -> `<=`. */
	three = map_pages(2);
	ok = three && mprotect(three + ps, ps, PROT_READ) == 0 &&
	     p_mbind(three, 2 * ps, MPOL_BIND, &one, MAXNODE_LONG, 0) == 0 &&
	     p_get(&mode, &got, MAXNODE_LONG, three + ps, MPOL_F_ADDR) == 0 && mode == MPOL_BIND && got == one;
	if (!ok)
		ktap_diag("mbind over two adjacent VMAs: %s", strerror(errno));
	unmap_pages(three, 2);
	ktap_ok(ok, "mbind over two adjacent VMAs: both get the policy");
}

/* Every page of a fresh map faulted under the task policy on nodes `want` exactly. */
static int lands_on(unsigned long want, const char *what)
{
	unsigned long seen = fault_nodes(FAULT_PAGES);

	if (seen != want)
		ktap_diag("%s: pages on nodes %s, want %s", what, mask_str(seen), mask_str(want));
	return seen == want;
}

static void check_builds(const struct nodes *n)
{
	unsigned long m0 = 1UL << n->mem[0], got = 0, mask;
	int mode = -1, ok, local, last = n->mem[n->nr_mem - 1];

	/* set_mempolicy(2) MPOL_PREFERRED "If nodemask specifies more than one node ID, the first
	 * node in the mask will be selected as the preferred node."
	 * Kills mpol_new_preferred: `node_set(first_node(*nodes), pol->nodes);` -> `last_node`
	 * (hand-written). */
	if (n->nr_mem < 2) {
		ktap_skip("MPOL_PREFERRED over two nodes: the first is preferred", "one memory node");
	} else {
		mask = m0 | 1UL << last;
		ok = set_task(MPOL_PREFERRED, mask) == 0 && get_task(&mode, &got) == 0 && got == m0 &&
		     lands_on(m0, "MPOL_PREFERRED");
		if (!ok)
			ktap_diag("MPOL_PREFERRED %s: read back mode %d nodes %s", mask_str(mask), mode,
				  mask_str(got));
		reset_task();
		ktap_ok(ok, "MPOL_PREFERRED over two nodes: the first is preferred");
	}
	/* set_mempolicy(2) MPOL_PREFERRED "If the nodemask and maxnode arguments specify the empty
	 * set, then the policy specifies "local allocation"".  Run on the last node with CPUs.
	 * Kills mpol_new: `mode = MPOL_LOCAL;` (empty MPOL_PREFERRED) removed: EINVAL. */
	local = last_cpu_node(n);
	if (local < 0 || pin_to_node(local)) {
		ktap_skip("MPOL_PREFERRED with an empty mask: local allocation", "cannot pin to a node's CPU");
	} else {
		ok = set_task(MPOL_PREFERRED, 0) == 0;
		if (!ok)
			ktap_diag("MPOL_PREFERRED, empty mask: %s", strerror(errno));
		ok = ok && lands_on(1UL << local, "MPOL_PREFERRED, empty mask");
		reset_task();
		unpin();
		ktap_ok(ok, "MPOL_PREFERRED with an empty mask: local allocation (node %d)", local);
	}
	/* rst "If the nodemask specified for the policy contains nodes that are not allowed by the
	 * cpuset and MPOL_F_RELATIVE_NODES is not used, the intersection of the set of nodes
	 * specified for the policy and the set of nodes with memory is used."  Node 62: no shape's.
	 * Kills mpol_set_nodemask: `if (pol->flags & MPOL_F_RELATIVE_NODES)` -> `if (1)` (node 62
	 * folded onto the memory nodes: one more node). */
	mask = m0 | 1UL << 62;
	ok = set_task(MPOL_BIND, mask) == 0 && get_task(&mode, &got) == 0 && got == m0 &&
	     lands_on(m0, "MPOL_BIND partly outside");
	if (!ok)
		ktap_diag("MPOL_BIND %s: %s, read back %s", mask_str(mask), strerror(errno), mask_str(got));
	reset_task();
	ktap_ok(ok, "MPOL_BIND over a mask partly outside the memory nodes: the intersection");
	/* rst MPOL_F_STATIC_NODES "the nodemask passed by the user should not be remapped" and
	 * "the memory policy is applied to their intersection"; get_mempolicy(2) returns the
	 * policy's nodemask: the user's, as passed, and pages on the intersection.
	 * Kills do_get_mempolicy: `if (mpol_store_user_nodemask(pol))` -> `if (0)`. */
	ok = set_task(MPOL_BIND | MPOL_F_STATIC_NODES, mask) == 0 && get_task(&mode, &got) == 0 &&
	     got == mask && mode == (MPOL_BIND | MPOL_F_STATIC_NODES) && lands_on(m0, "MPOL_BIND|STATIC_NODES");
	if (!ok)
		ktap_diag("MPOL_BIND|STATIC_NODES %s: %s, read back mode %#x nodes %s", mask_str(mask),
			  strerror(errno), mode, mask_str(got));
	reset_task();
	ktap_ok(ok, "MPOL_BIND|STATIC_NODES partly outside: the user's mask kept, pages on the intersection");
	/* set_mempolicy(2) "the kernel will use bits only up to maxnode": bit 62 with maxnode 9
	 * is not read (STATIC_NODES keeps the mask as read, so get_mempolicy shows it).
	 * Kills get_bitmap: `if (maxnode % BITS_PER_LONG)` -> `if (0)` (the last long unmasked). */
	ok = n->mem[0] < 8 && p_set(MPOL_BIND | MPOL_F_STATIC_NODES, &mask, 9) == 0 &&
	     get_task(&mode, &got) == 0 && got == m0;
	if (!ok)
		ktap_diag("MPOL_BIND|STATIC_NODES %s, maxnode 9: %s, read back %s", mask_str(mask),
			  strerror(errno), mask_str(got));
	reset_task();
	ktap_ok(ok, "set_mempolicy ignores mask bits beyond maxnode");
	/* rst MPOL_F_RELATIVE_NODES "If the user's nodemask includes nodes that are outside the
	 * range of the new set of allowed nodes ..., then the remap wraps around to the beginning
	 * of the nodemask".  Relative node nr_mem is the first memory node again.
	 * Kills mpol_relative_nodemask: `nodes_fold(tmp, *orig, nodes_weight(*rel));` removed. */
	if (n->nr_mem < 2 || n->nr_mem > 60) {
		ktap_skip("MPOL_INTERLEAVE|RELATIVE_NODES beyond the allowed nodes wraps", "%d memory nodes",
			  n->nr_mem);
	} else {
		mask = 1UL << n->nr_mem | 1UL << 1;
		ok = set_task(MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, mask) == 0 &&
		     lands_on(mem_mask(n, "01"), "MPOL_INTERLEAVE|RELATIVE_NODES wrapped");
		if (!ok)
			ktap_diag("relative %s over %d memory nodes: %s", mask_str(mask), n->nr_mem, strerror(errno));
		reset_task();
		ktap_ok(ok, "MPOL_INTERLEAVE|RELATIVE_NODES beyond the allowed nodes wraps");
	}
}

int build_plan(const struct nodes *n)
{
	(void)n;
	return NR_ERROR_ROWS + NR_BUILD_ROWS;
}

void build_run(const struct nodes *n)
{
	check_errors(n);
	check_builds(n);
}
