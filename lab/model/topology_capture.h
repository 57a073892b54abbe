/*
 * topology_capture: the running machine's NUMA shape, read from its sysfs,
 * as a topology (topology.h): what `numalab topo capture` writes, so a user
 * can emulate their production box and check a real board against it.
 *
 * What it reads under sysfs and procfs (parameters: "/sys" and "/proc", or
 * a fake tree in the unit tests), with the kernel's own documentation as the
 * oracle (Documentation/ABI/stable/sysfs-devices-node,
 * admin-guide/mm/numaperf.rst, filesystems/proc.rst):
 *
 *   devices/system/node/online             the nodes; renumbered 0..N-1 if sparse
 *   devices/system/node/nodeN/cpulist      CPUs per node; renumbered into one
 *                                          range per node, in node order (the
 *                                          format's rule), the count kept
 *   PROCFS/zoneinfo "present"              the node's present pages: the
 *                                          firmware's (SRAT) ranges less the few
 *                                          MiB it keeps, rounded up to 128M,
 *                                          which gives back the SRAT's size
 *                                          (else nodeN/meminfo MemTotal, rounded
 *                                          the same way).  Not memory blocks: a
 *                                          block may straddle two nodes
 *                                          (LoongArch's 512M blocks do)
 *   devices/system/node/nodeN/distance     the SLIT row
 *   devices/system/node/nodeN/access0/initiators/{nodeI,read_latency,read_bandwidth}
 *                                          HMAT: the nearest initiators of each
 *                                          target and their latency (ns) and
 *                                          bandwidth (MiB/s); sysfs shows no
 *                                          other pair, so the format's other
 *                                          hmat-lb pairs are estimated (the best
 *                                          one scaled by the SLIT ratio), and a
 *                                          CPU-less node's initiator= is its
 *                                          nearest listed initiator
 *   devices/system/node/nodeN/memory_side_cache/indexL/{size,line_size,write_policy,indexing}
 *   kernel/mm/transparent_hugepage/hpage_pmd_size
 *
 * The page size and the arch (uname's machine) are the caller's to give.
 * HMAT is kept only when the format can hold it (a CPU-less node, every
 * pair known or estimated); what was renumbered, estimated or left out is
 * said in the topology's description, which topo_format() writes as the
 * file's leading comment.
 *
 * ISO C and POSIX only, no allocation: the guest links it beside topology.c.
 */
#ifndef LAB_TOPOLOGY_CAPTURE_H
#define LAB_TOPOLOGY_CAPTURE_H

#include <stdint.h>

#include "model/topology.h"

struct topo_capture_in {
	const char *sysfs;      /* "/sys" */
	const char *procfs;     /* "/proc" */
	const char *machine;    /* uname(2)'s machine: "x86_64", "loongarch64" */
	uint64_t page_size;     /* sysconf(_SC_PAGESIZE) */
	const char *origin;     /* the description's first line: where and when, e.g. "host h, Linux 6.1" */
};

/* Why a capture failed: "what; what to do". */
struct topo_capture_error {
	int unreadable;         /* 1: sysfs could not be read (the machine's fault); 0: the shape does not fit the format */
	char msg[1024];
};

/*
 * Read the machine under in->sysfs into *topo: 0, or -1 with *err.  What
 * it returns is valid: it was written with topo_format() and parsed back
 * (topo->path "captured.topo").
 */
int topo_capture(const struct topo_capture_in *in, struct topology *topo, struct topo_capture_error *err);

#endif
