/* Weighted-interleave sysfs knobs: set for a test, put back after (weights.c). */
#ifndef NUMALAB_TEST_WEIGHTS_H
#define NUMALAB_TEST_WEIGHTS_H

#include "mempolicy.h"

struct wi_saved {
	int nodes[MAX_NODES];
	long old[MAX_NODES];
	int nr;
	char old_auto[16];         /* "" when the kernel has no auto mode */
};

/* Remember the weights of nodes (and auto mode); -1 if unreadable (diag printed). */
int wi_save(const int *nodes, int nr, struct wi_saved *saved);
/* Write weight to the node's knob; *got: what the kernel took.  Switches auto off. */
int wi_set(int node, unsigned weight, unsigned *got);
/* Put back what wi_save() saw, auto mode included. */
void wi_restore(const struct wi_saved *saved);

#endif
