// SPDX-License-Identifier: GPL-2.0
/* A kernel-style fixture for test_mutant.c: "a < b" in a comment is not code. */
#include <linux/mempolicy.h>
#define WEIGHT_MAX(a, b) ((a) > (b) ? (a) : (b))

static const int weights[] = { 1, 2, 3 };
static struct ops table = {
	.next = next_fn,
};

static unsigned int pick_node(struct mempolicy *pol, unsigned int prev, unsigned int skip)
{
	unsigned int node = prev, other = 0;
	int i, total = 0;
	const char *why = "x <= y";

	for_each_node_mask(i, pol->nodes)
		total += weights[i];
	if (node == MAX_NUMNODES || total < 0x10)
		node = next_node_in(prev, pol->nodes);
	while (skip-- > 0)
		node = next_node_in(node, pol->nodes);
	pol->last = node;
	pol->count++;
	WARN_ON(node >= MAX_NUMNODES);
	if (total > 3 &&
	    other != 1)
		return other;
	return node;
}

#ifdef CONFIG_NUMA
static int find_target(struct cc *cc)
	__must_hold(&cc->lock)
{
	int nid, target = 0, max = 0;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		if (cc->load[nid] > max) {
			max = cc->load[nid];
			target = nid;
		}
	node_set(target, cc->mask);
	return target;
}
#else
static int find_target(struct cc *cc)
{
	return 0;
}
#endif
