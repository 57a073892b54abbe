/*
 * memory: does each node get exactly the memory the topology declares?
 *
 * The firmware describes node memory in the ACPI SRAT (QEMU builds it from
 * the -numa sizes; on LoongArch edk2 installs QEMU's table).  The kernel's
 * nodes are read from /proc/zoneinfo: a node spans [start_pfn, end_pfn) of
 * its zones and has "present" pages inside.  Per node:
 *
 *   - the SRAT memory ranges that fall inside the node's span, summed, equal
 *     the declared size exactly (x86: less the PC's 640K..1M hole, which is
 *     never RAM and which QEMU's SRAT leaves out of the node that spans it);
 *   - the span lies within those ranges, and the present pages lie between
 *     the ranges' size less what firmware keeps (FIRMWARE_KEEPS_BYTES) and
 *     the ranges' size.
 *
 * No percentage: node 0 losing 200 MiB of MemTotal to a KASAN shadow and a
 * debug kernel image is still node 0 getting its 512 MiB.  MemTotal is only
 * a loose sanity bound on the whole machine that knows the kernel's own
 * reservations (check_memory_total).
 *
 * A wrong kernel that fails here: one that drops or misattributes an SRAT
 * range (e.g. acpi_numa_memory_affinity_init() skipping the second range of
 * a node), or QEMU given other sizes than the test is told (the lab proves
 * it: tests/host/integration/topology-wrong-sizes.sh).
 */
#ifndef NUMALAB_TEST_MEMORY_H
#define NUMALAB_TEST_MEMORY_H

#include "model/topology.h"

/* Results printed: one per node, plus the MemTotal bound. */
int memory_plan(const struct topology *t);
void check_memory(const struct topology *t);

#endif
