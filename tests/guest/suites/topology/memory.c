/* memory: node sizes against the firmware's SRAT and the kernel's zones (memory.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "memory.h"

#define SRAT_PATH "/sys/firmware/acpi/tables/SRAT"
#define SRAT_FIRST_ENTRY 48          /* ACPI header (36), table revision (4), reserved (8) */
#define SRAT_MEMORY_AFFINITY 1
#define SRAT_MEMORY_ENTRY_LEN 40
#define SRAT_MEM_ENABLED 0x1u
#define SRAT_MEM_HOTPLUGGABLE 0x2u
#define MAX_RANGES 64
#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)

/*
 * What firmware keeps out of the kernel's present pages inside a node's
 * SRAT ranges: SeaBIOS reserves page 0, the EBDA below 640K and its tables
 * at the top of RAM (~140 KiB seen); edk2 on LoongArch keeps its runtime
 * services and ACPI memory.  Generous on purpose: a node that lost a range
 * loses far more.
 */
#define FIRMWARE_KEEPS_BYTES (16 * MIB)
/* sizeof(struct page) on 64-bit kernels without KMSAN: the memmap's cost per base page. */
#define STRUCT_PAGE_BYTES 64

struct srat_range {
	unsigned pxm;
	uint64_t start, end;   /* [start, end) in bytes */
};

/* A node as the kernel set it up: its zones' pfn span and present pages. */
struct node_zones {
	uint64_t start_pfn, end_pfn, present;
	int seen;
};

static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The enabled, not hot-pluggable memory ranges of the SRAT; their count or -1. */
static int read_srat(struct srat_range *r, int max)
{
	static unsigned char table[65536];
	ssize_t len = 0, n;
	int fd = open(SRAT_PATH, O_RDONLY | O_CLOEXEC), nr = 0;

	if (fd < 0)
		return -1;
	while (len < (ssize_t)sizeof(table) && (n = read(fd, table + len, sizeof(table) - (size_t)len)) > 0)
		len += n;
	close(fd);
	if (len < SRAT_FIRST_ENTRY || memcmp(table, "SRAT", 4) || (ssize_t)le(table + 4, 4) != len) {
		errno = EINVAL;
		return -1;
	}
	for (ssize_t off = SRAT_FIRST_ENTRY; off + 2 <= len && table[off + 1] >= 2; off += table[off + 1]) {
		const unsigned char *e = table + off;
		unsigned flags;

		if (e[0] != SRAT_MEMORY_AFFINITY || e[1] < SRAT_MEMORY_ENTRY_LEN ||
		    off + SRAT_MEMORY_ENTRY_LEN > len)
			continue;
		flags = (unsigned)le(e + 28, 4);
		if (!(flags & SRAT_MEM_ENABLED) || (flags & SRAT_MEM_HOTPLUGGABLE) || !le(e + 16, 8))
			continue;
		if (nr == max) {
			errno = E2BIG;
			return -1;
		}
		r[nr].pxm = (unsigned)le(e + 2, 4);
		r[nr].start = le(e + 8, 8);
		r[nr].end = r[nr].start + le(e + 16, 8);
		nr++;
	}
	return nr;
}

/* Each node's span and present pages from /proc/zoneinfo (zones without pages ignored). */
static int read_zoneinfo(struct node_zones z[TOPO_MAX_NODES])
{
	FILE *f = fopen("/proc/zoneinfo", "re");
	char line[512];
	unsigned long long spanned = 0, present = 0, start;
	int node = -1;

	if (!f)
		return -1;
	memset(z, 0, sizeof(*z) * TOPO_MAX_NODES);
	while (fgets(line, sizeof(line), f)) {
		int n;

		if (sscanf(line, "Node %d, zone", &n) == 1) {
			node = n >= 0 && n < TOPO_MAX_NODES ? n : -1;
			spanned = present = 0;
		} else if (sscanf(line, " spanned %llu", &spanned) == 1 ||
			   sscanf(line, " present %llu", &present) == 1) {
			continue;
		} else if (sscanf(line, " start_pfn: %llu", &start) == 1 && node >= 0 && spanned) {
			struct node_zones *nz = &z[node];

			if (!nz->seen || start < nz->start_pfn)
				nz->start_pfn = start;
			if (!nz->seen || start + spanned > nz->end_pfn)
				nz->end_pfn = start + spanned;
			nz->present += present;
			nz->seen = 1;
		}
	}
	fclose(f);
	return 0;
}

/*
 * x86: 640K..1M is VGA memory, option ROMs and the BIOS on every PC; QEMU's
 * SRAT cuts it out of the node that spans it (hw/i386/acpi-build.c), so that
 * node's ranges are 384 KiB short of its -numa size.  The part of the hole
 * between first and last range the ranges do not cover.
 */
static uint64_t pc_hole_bytes(const struct srat_range *r, const int *in_node, int nr,
			      uint64_t lo, uint64_t hi)
{
#if defined(__x86_64__) || defined(__i386__)
	const uint64_t hole_start = 0xa0000, hole_end = 0x100000;
	uint64_t covered = 0;

	if (lo > hole_start || hi < hole_end)
		return 0;
	for (int i = 0; i < nr; i++) {
		uint64_t s = r[i].start > hole_start ? r[i].start : hole_start;
		uint64_t e = r[i].end < hole_end ? r[i].end : hole_end;

		if (in_node[i] && e > s)
			covered += e - s;
	}
	return hole_end - hole_start - covered;
#else
	(void)r, (void)in_node, (void)nr, (void)lo, (void)hi;
	return 0;
#endif
}

static void check_node(const struct topology *t, int node, const struct srat_range *r, int nr,
		       const struct node_zones *z)
{
	uint64_t ps = (uint64_t)page_size(), want = t->nodes[node].mem_bytes;
	uint64_t span_lo = z->start_pfn * ps, span_hi = z->end_pfn * ps, present = z->present * ps;
	uint64_t sum = 0, lo = UINT64_MAX, hi = 0, hole;
	int in_node[MAX_RANGES], pxm = -1, ok = 1;
	char list[1024] = "";
	size_t len = 0;

	if (!z->seen) {
		ktap_diag("node%d has no zone with pages in /proc/zoneinfo", node);
		ktap_ok(0, "node%d memory", node);
		return;
	}
	for (int i = 0; i < nr; i++) {
		in_node[i] = r[i].start < span_hi && r[i].end > span_lo;
		if (!in_node[i])
			continue;
		if (pxm >= 0 && (unsigned)pxm != r[i].pxm) {
			ktap_diag("node%d spans ranges of PXM %d and PXM %u", node, pxm, r[i].pxm);
			ok = 0;
		}
		pxm = (int)r[i].pxm;
		sum += r[i].end - r[i].start;
		lo = r[i].start < lo ? r[i].start : lo;
		hi = r[i].end > hi ? r[i].end : hi;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, " %#" PRIx64 "-%#" PRIx64,
						r[i].start, r[i].end - 1);
	}
	hole = pc_hole_bytes(r, in_node, nr, lo, hi);
	ktap_diag("node%d: SRAT PXM %d%s = %" PRIu64 " KiB%s; kernel spans pfn %#" PRIx64 "-%#" PRIx64
		  ", %" PRIu64 " KiB present; declared %" PRIu64 " KiB", node, pxm, list, sum / KIB,
		  hole ? " + the 384 KiB PC hole" : "", z->start_pfn, z->end_pfn - 1, present / KIB,
		  want / KIB);
	if (sum + hole != want) {
		ktap_diag("node%d: the firmware describes %" PRIu64 " KiB, the topology declares %" PRIu64 " KiB",
			  node, (sum + hole) / KIB, want / KIB);
		ok = 0;
	}
	if (sum && (span_lo < lo || span_hi > hi)) {
		ktap_diag("node%d: the kernel's span reaches outside its SRAT ranges", node);
		ok = 0;
	}
	if (present > sum || present + FIRMWARE_KEEPS_BYTES < sum) {
		ktap_diag("node%d: %" PRIu64 " KiB present of %" PRIu64 " KiB described (firmware may keep up to %" PRIu64 " KiB)",
			  node, present / KIB, sum / KIB, FIRMWARE_KEEPS_BYTES / KIB);
		ok = 0;
	}
	ktap_ok(ok, "node%d memory", node);
}

/* The value of FIELD (in kB) in /proc/meminfo, in bytes; 0 if absent. */
static uint64_t meminfo_bytes(const char *field)
{
	char buf[8192];
	const char *p;

	if (sys_read("/proc/meminfo", buf, sizeof(buf)) || !(p = strstr(buf, field)))
		return 0;
	return strtoull(p + strlen(field), NULL, 10) * KIB;
}

/* The bytes of /proc/iomem resources whose name starts with prefix ("Kernel ", "Crash kernel"). */
static uint64_t iomem_bytes(const char *prefix)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256], name[128];
	unsigned long long start, end;
	uint64_t sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %llx-%llx : %127[^\n]", &start, &end, name) == 3 &&
		    !strncmp(name, prefix, strlen(prefix)) && end >= start)
			sum += end - start + 1;
	fclose(f);
	return sum;
}

/* KASAN is built in: its report function is in the symbol table. */
static int kernel_has_kasan(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *sym = strrchr(line, ' ');

		found = sym && !strcmp(sym, " kasan_report\n");
	}
	fclose(f);
	return found;
}

/*
 * MemTotal, the whole machine: no more than the present pages, and no less
 * than a quarter below what is left of them after the reservations the
 * kernel makes knowingly (KASAN's shadow, 1 byte per 8; the kernel image;
 * the crash kernel; the memmap).  The quarter covers page tables, per-CPU
 * areas, hash tables, lockdep's tables and firmware: loose on purpose, the
 * per-node checks are the exact ones.
 */
static void check_memory_total(uint64_t present)
{
	uint64_t total = meminfo_bytes("MemTotal:"), image = iomem_bytes("Kernel "),
		 crash = iomem_bytes("Crash kernel"), shadow = kernel_has_kasan() ? present / 8 : 0,
		 memmap = present / (uint64_t)page_size() * STRUCT_PAGE_BYTES,
		 reserved = shadow + image + crash + memmap,
		 floor = reserved < present ? (present - reserved) / 4 * 3 : 0;

	ktap_diag("MemTotal %" PRIu64 " KiB of %" PRIu64 " KiB present; known reservations: "
		  "KASAN shadow %" PRIu64 ", kernel image %" PRIu64 ", crash kernel %" PRIu64
		  ", memmap %" PRIu64 " KiB; allowed %" PRIu64 "..%" PRIu64 " KiB", total / KIB,
		  present / KIB, shadow / KIB, image / KIB, crash / KIB, memmap / KIB, floor / KIB,
		  present / KIB);
	ktap_ok(total && total <= present && total >= floor, "MemTotal within the present memory less "
		"the kernel's reservations");
}

int memory_plan(const struct topology *t)
{
	return t->nr_nodes + 1;
}

void check_memory(const struct topology *t)
{
	static struct srat_range ranges[MAX_RANGES];
	struct node_zones zones[TOPO_MAX_NODES];
	int nr = read_srat(ranges, MAX_RANGES);
	uint64_t present = 0;

	if (nr < 0 || read_zoneinfo(zones)) {
		const char *what = nr < 0 ? SRAT_PATH : "/proc/zoneinfo";

		ktap_diag("cannot read %s: %s", what, strerror(errno));
		for (int i = 0; i < t->nr_nodes; i++)
			ktap_ok(0, "node%d memory", i);
		ktap_ok(0, "MemTotal within the present memory less the kernel's reservations");
		return;
	}
	for (int i = 0; i < t->nr_nodes; i++) {
		check_node(t, i, ranges, nr, &zones[i]);
		present += zones[i].present * (uint64_t)page_size();
	}
	check_memory_total(present);
}
