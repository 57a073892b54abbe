/*
 * wi_model: the reference model of weighted interleave for allocations
 * without a VMA (the task's policy), as the kernel documents it: a weighted
 * round robin over the policy's nodes, page by page; the task keeps the node
 * it is on and that node's remaining weight from one allocation to the next.
 *
 * One page: if the remaining weight is 0 or the current node left the mask,
 * move to the next node of the mask (wrapping) and take its full weight;
 * place the page there; use one unit of weight.  set_mempolicy() starts from
 * "before the first node" with no weight.  A bulk allocation of n pages must
 * place exactly what n single-page allocations would, and leave the same
 * state behind.
 *
 * Pure C, no kernel headers: linked into the guest's mempolicy test and the
 * host's unit tests.
 */
#ifndef NUMALAB_WI_MODEL_H
#define NUMALAB_WI_MODEL_H

#define WI_MAX_NODES 64

struct wi_model {
	unsigned weights[WI_MAX_NODES];   /* per node; 0: not in the policy's mask */
	int node;                         /* current node; -1 before the first */
	unsigned remaining;               /* weight left on node */
};

/* A fresh policy over the nodes with a non-zero weight (as set_mempolicy leaves it). */
void wi_model_init(struct wi_model *m, const unsigned weights[WI_MAX_NODES]);

/* Place one page: returns its node (-1 when the mask is empty). */
int wi_model_page(struct wi_model *m);

/* Place n pages, adding each node's share to count[node]. */
void wi_model_bulk(struct wi_model *m, unsigned long n, unsigned long count[WI_MAX_NODES]);

/*
 * The state as the next allocation sees it: the node it will use and the
 * weight left there before it.  Kernels may represent "node X used up" as
 * (X, 0) or as (next, full weight); both mean the same next page.
 */
void wi_model_next(const struct wi_model *m, int *node, unsigned *remaining);

/* Sum of the weights: pages in one full round. */
unsigned long wi_model_round(const struct wi_model *m);

#endif
