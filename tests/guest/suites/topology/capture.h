/*
 * capture: `numalab topo capture`'s reader (lab/model/topology_capture.h),
 * linked into this suite, run on the guest's own /sys: does it give back
 * the shape the lab declared?  One result.  It runs wherever the topology
 * suite runs (LoongArch and a board without the host view included), so the
 * reader a user trusts to describe their machine is checked against real
 * kernels of every arch.
 *
 * Compared: nodes, CPUs per node, node memory (present pages rounded up),
 * the SLIT, page and PMD size when declared, each CPU-less node's HMAT
 * initiator and its latency and bandwidth (the pair sysfs shows), and the
 * memory-side caches.  On a mismatch the captured file is printed as
 * diagnostics.
 *
 * The wrong kernel it catches that the other checks do not (none reads
 * memory_side_cache): the mutant drivers/acpi/numa/hmat.c:hmat_parse_cache(),
 * `(attrs & ACPI_HMAT_CACHE_LINE_SIZE) >> 16` → `>> 15`: sysfs shows cxl's
 * 64-byte cache lines as 128.
 */
#ifndef NUMALAB_TEST_CAPTURE_H
#define NUMALAB_TEST_CAPTURE_H

#include "model/topology.h"

void check_capture(const struct topology *declared);

#endif
