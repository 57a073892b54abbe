/*
 * The frame the traced bulk cases (sweep.c, ilbulk.c, cutbulk.c) run in,
 * set up and taken down in one place (bulk.c):
 *   bulk_frame_begin()  pins the task to the CPU it runs on (the trace's
 *                       per-CPU buffers then need no merging to keep the
 *                       order), saves the node weights, sets fail_page_alloc
 *                       (bulk_fault_arm()) and arms the step trace; NULL, or
 *                       why the case cannot run.  make-it-fail stays the
 *                       caller's: it turns it on when its own setup is done.
 *   bulk_frame_end()    make-it-fail off, the trace removed, fail_page_alloc
 *                       and the weights put back, whatever begin got to;
 *                       returns the events the trace missed (0 untraced).
 * A zeroed frame may be ended (begin not called: nothing to undo).
 */
#ifndef NUMALAB_TEST_BULKFRAME_H
#define NUMALAB_TEST_BULKFRAME_H

#include "weights.h"

struct bulk_frame {
	struct wi_saved saved;
	int saved_ok, traced;
};

const char *bulk_frame_begin(const struct nodes *n, struct bulk_frame *f);
long bulk_frame_end(struct bulk_frame *f);

#endif
