/*
 * thp: can a PMD-size transparent huge page be faulted on every node with
 * memory, and migrated from node to node whole?
 *
 * thp_plan() results are printed by check_thp(): per memory node one
 * "placed" result and one "migrated" result, all skips when the kernel has
 * no THP.  THP "enabled" is switched from never to madvise for the test and
 * put back after.
 */
#ifndef NUMALAB_TEST_THP_H
#define NUMALAB_TEST_THP_H

#include "model/topology.h"

int thp_plan(const struct topology *t);
void check_thp(const struct topology *t);

#endif
