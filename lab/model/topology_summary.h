/*
 * topology_summary: a topology's shape as text for people (`numalab topo
 * show`): its description, arch and machine, nodes with their CPUs, memory
 * and initiator, the SLIT, the HMAT latency/bandwidth table and memory-side
 * caches, the memory tiers the kernel derives (topo_memory_tier()), page and
 * PMD size, the default tests.  Pure; pinned by
 * tests/host/unit/golden/topo/NAME.summary.
 */
#ifndef LAB_TOPOLOGY_SUMMARY_H
#define LAB_TOPOLOGY_SUMMARY_H

#include "base/util.h"
#include "model/topology.h"

/* How many nodes, and how many of them have no CPUs: "2", "4 (2 CPU-less)". */
void topo_nodes_str(const struct topology *t, char *out, size_t cap);

/* The summary of t, appended to out. */
void topo_summary(const struct topology *t, struct buf *out);

#endif
