/*
 * steptrace: every step of this task's interleave round robin, in order,
 * from kprobes read through the tracing ring buffer (steptrace.c).
 *
 * The kernel's task interleave state (current->il_prev, il_weight) moves on
 * each allocation without a VMA: a single page through interleave_nodes() /
 * weighted_interleave_nodes(), a batch through the bulk allocator.  Some of
 * those allocations are the kernel's own (a slab refill, a page-table page)
 * and cannot be seen from user space; the trace sees them all, so a test
 * can replay the exact sequence against the reference model (wi_model.h)
 * instead of guessing how many steps it missed.
 *
 *   steptrace_arm()       before the policy is set; the probes record only
 *                         the calling process (a case's child)
 *   steptrace_take()      the events since the last take, oldest first
 *   steptrace_disarm()    removes the probes; 0 if no event was missed
 *
 * The probed functions are static in mm/mempolicy.c: a compiler that
 * inlines them leaves nothing to probe (steptrace_arm() then says so and
 * the tests that need it skip).
 */
#ifndef NUMALAB_TEST_STEPTRACE_H
#define NUMALAB_TEST_STEPTRACE_H

enum step_kind {
	STEP_PAGE,      /* interleave_nodes()/weighted_interleave_nodes() returned node */
	STEP_BULK,      /* alloc_pages_bulk_mempolicy_noprof(): a batch of nr pages */
	STEP_NODE_RUN,  /* alloc_pages_bulk_noprof(): nr pages asked of node */
	STEP_FILE,      /* filemap_add_folio(): the folio just allocated joins a file */
};

struct step_event {
	enum step_kind kind;
	int node;
	long nr;
};

/* Register and enable the probes for this process; NULL, or why not. */
const char *steptrace_arm(void);
/* Up to max events since the last take into ev; their number, -1 on error. */
int steptrace_take(struct step_event *ev, int max);
/* Remove the probes; the number of events the kernel missed (-1: unknown). */
long steptrace_disarm(void);

#endif
