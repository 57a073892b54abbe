/*
 * topology: the lab's one model of a NUMA shape.
 *
 * A topology file (docs/topology.md) is parsed and validated here, once,
 * before any VM starts.  The resulting struct topology drives the QEMU argv
 * (qemu.c), the libvirt XML, and the guest's own checks: the guest tests link
 * this same file and read the topology file the runner put in the image, so
 * host and guest can never disagree about the format.
 *
 * topo_format() writes the format back (numalab topo capture, `topo show
 * --format topo`): what it writes parses to the same topology.
 *
 * This file uses only ISO C and POSIX stdio so it builds for the guest too;
 * it reads lines with base/lines.h, linked into the guest beside it.
 */
#ifndef LAB_TOPOLOGY_H
#define LAB_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#define TOPO_MAX_NODES 8
#define TOPO_MAX_CPUS 64
#define TOPO_MAX_CACHES 8
#define TOPO_DIST_LOCAL 10
#define TOPO_DIST_UNREACHABLE 255
#define TOPO_DESCRIPTION_MAX 1024

enum topo_arch { TOPO_ARCH_X86_64, TOPO_ARCH_LOONGARCH64 };

struct topo_node {
	int cpu_first, cpu_last;   /* inclusive range; cpu_first < 0: CPU-less */
	uint64_t mem_bytes;
	int initiator;             /* CPU-less nodes: the node that accesses it; -1 unset */
	int line;                  /* where it was declared, for later errors */
};

/* One HMAT latency/bandwidth entry: initiator (a node with CPUs) → target. */
struct topo_hmat_lb {
	int initiator, target;
	uint64_t latency_ns;       /* 0: not given */
	uint64_t bandwidth_bps;    /* bytes/s as given to QEMU; sysfs shows it / 2^20; 0: not given */
};

/* An HMAT memory-side cache in front of a node's memory. */
struct topo_hmat_cache {
	int node, level;
	uint64_t size_bytes;
	unsigned line_bytes;
	int write_back;            /* 1 write-back, 0 write-through */
	int direct_mapped;         /* 1 direct, 0 complex */
};

struct topology {
	char name[64];             /* file name without directory and ".topo" */
	char path[512];
	/* The comment lines before the first statement, '#' and one blank off, joined by '\n'. */
	char description[TOPO_DESCRIPTION_MAX];
	enum topo_arch arch;
	char machine[32];          /* QEMU machine type: q35, virt, ... */
	int nr_nodes;
	struct topo_node nodes[TOPO_MAX_NODES];
	int dist[TOPO_MAX_NODES][TOPO_MAX_NODES];
	int nr_hmat_lb;
	struct topo_hmat_lb hmat_lb[TOPO_MAX_NODES * TOPO_MAX_NODES];
	int nr_hmat_cache;
	struct topo_hmat_cache hmat_cache[TOPO_MAX_CACHES];
	/* Expectations the guest tests check. */
	uint64_t page_size;        /* bytes the guest must report; 0: not checked */
	uint64_t pmd_size;         /* hpage_pmd_size; 0: not checked */
	int timeout_s;             /* default VM timeout for runs of this shape */
	char tests[256];           /* default test plan, comma-separated */
};

/* Why parsing failed: "FILE:LINE: what is wrong; what to do" (lines.h's size). */
struct topo_error {
	char msg[1024];
};

/*
 * Parse and validate the topology text in buf (len bytes, need not be NUL
 * terminated).  path is used in error messages and for topo->name.
 * Returns 0 and fills *topo, or -1 with *err set; *topo is then unspecified.
 */
int topo_parse(const char *path, const char *buf, size_t len,
	       struct topology *topo, struct topo_error *err);

/* Read path and topo_parse() it.  A read failure is reported the same way. */
int topo_load(const char *path, struct topology *topo, struct topo_error *err);

/* Counts and sums derived from the nodes. */
int topo_nr_cpus(const struct topology *topo);
int topo_nr_cpu_nodes(const struct topology *topo);
uint64_t topo_mem_bytes(const struct topology *topo);
int topo_has_hmat(const struct topology *topo);
int topo_node_has_cpus(const struct topology *topo, int node);

/* The node CPU cpu belongs to, or -1. */
int topo_cpu_node(const struct topology *topo, int cpu);

/* The HMAT entry for initiator → target, or NULL. */
const struct topo_hmat_lb *topo_hmat_find(const struct topology *topo,
					  int initiator, int target);

const char *topo_arch_name(enum topo_arch arch);

/* bytes as the format writes a size: "512M", "2G", "64K", "4097" (the largest unit that divides it). */
void topo_size_str(uint64_t bytes, char *out, size_t cap);

/*
 * The topology as a file of the format, into out (cap bytes, NUL
 * terminated, cut when too small): its description as the leading
 * comment, then one statement per line, defaults left out.  Returns the
 * length the whole text needs, as snprintf() does.
 */
size_t topo_format(const struct topology *topo, char *out, size_t cap);

/*
 * The memory_tierN the kernel puts node in, by mm/memory-tiers.c's rule
 * from the HMAT it is given: a node with CPUs is DRAM (abstract distance
 * 576, memory_tier4); a CPU-less node's distance is 576 x its latency /
 * DRAM's x DRAM's bandwidth / its own, from its initiator (the access
 * class sysfs shows), DRAM being the first CPU node's local entry; the tier
 * is the distance >> 7.  When another CPU node's local latency or bandwidth
 * is more than 10% off the first's, the kernel gives up on HMAT distances
 * and every node is memory_tier4; a CPU-less node with latencies but no
 * bandwidth keeps DRAM's distance (mt_perf_to_adistance() refuses its
 * numbers), memory_tier4 too.  -1 when the topology has no HMAT (every
 * node is then in memory_tier4, nothing to derive).
 */
int topo_memory_tier(const struct topology *topo, int node);

#endif
