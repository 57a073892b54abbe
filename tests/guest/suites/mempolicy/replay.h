/*
 * replay: a step trace (steptrace.h) checked against the reference model
 * (wi_model.h), event by event (replay.c).
 *
 *   a single-page step must return the model's next node;
 *   a bulk batch of nr pages must ask, per node, for exactly the pages the
 *   model places page by page (alloc_pages_bulk_noprof() runs summed until
 *   they reach nr); the state it leaves is checked by whatever comes next.
 *
 * A single-page step inside a batch is the weighted-interleave bulk code's
 * own kmalloc of the weights refilling a slab: the code overwrites
 * il_prev/il_weight when the batch ends, so such a step is counted
 * (inner_steps) and does not move the model.
 */
#ifndef NUMALAB_TEST_REPLAY_H
#define NUMALAB_TEST_REPLAY_H

#include <stddef.h>

#include "steptrace.h"
#include "wi_model.h"

struct replay {
	struct wi_model m;
	int in_batch;                       /* a batch's runs not all seen yet */
	long batch_left;
	unsigned long want[WI_MAX_NODES], got[WI_MAX_NODES];
	unsigned long placed[WI_MAX_NODES]; /* batches' pages per node (the caller zeroes it) */
	long steps, inner_steps, batches;
	int last_node;                      /* node of the last single-page step */
	char why[256];                      /* the first mismatch */
};

/* A fresh policy with these weights (0: not in the mask), as set_mempolicy leaves it. */
void replay_init(struct replay *r, const unsigned weights[WI_MAX_NODES]);
/* "N0=3 N2=1": the nodes with pages in count (WI_MAX_NODES of them), into buf. */
void replay_format_counts(const unsigned long *count, char *buf, size_t size);
/* Apply one event; -1 on a mismatch (r->why says what). */
int replay_event(struct replay *r, const struct step_event *e);
/* The model's place in its round: pages of the round already used (0 .. round-1). */
unsigned replay_position(const struct wi_model *m);

#endif
