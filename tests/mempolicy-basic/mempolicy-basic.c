/*
 * mempolicy-basic: do faults land where the memory policy says?
 *
 * For MPOL_BIND, MPOL_PREFERRED, MPOL_INTERLEAVE and MPOL_WEIGHTED_INTERLEAVE,
 * set once as a VMA policy (mbind) and once as the task policy
 * (set_mempolicy), fault a fresh anonymous region page by page and read
 * each page's node back with move_pages().  The expectation is exact, page by
 * page: a fault in a VMA is placed by the page's interleave index
 * ilx = vm_pgoff + page offset (get_vma_policy()), and an anonymous private
 * mapping has vm_pgoff == vm_start >> PAGE_SHIFT, so ilx = address / page size.
 *
 * Raw syscalls, no libnuma: the binary is static and cross-compiled.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"

/* uapi <linux/mempolicy.h> values; older libc headers lack the newer modes. */
#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_WEIGHTED_INTERLEAVE 6

#define NR_PAGES 64
#define MAX_NODES 64
#define HAS_MEMORY_PATH "/sys/devices/system/node/has_memory"
#define WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"
#define WI_AUTO_PATH WI_DIR "/auto"

enum via { VIA_MBIND, VIA_TASK };

struct policy {
	int mode;
	const char *mode_name;
	int nodes[MAX_NODES];          /* ascending, as the kernel walks a nodemask */
	int nr_nodes;
	unsigned weights[MAX_NODES];   /* weighted interleave: weight of nodes[k] */
};

/* Weighted-interleave sysfs state to put back when the test is done. */
struct saved_weights {
	long old[MAX_NODES];           /* per policy node index */
	char old_auto[16];             /* "" when the kernel has no auto mode */
};

static long sys_mbind(void *addr, size_t len, int mode, const unsigned long *mask,
		      unsigned long maxnode)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, 0);
}

static long sys_set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

static long sys_move_pages(unsigned long nr, void **pages, int *status)
{
	return syscall(SYS_move_pages, 0, nr, pages, NULL, status, 0);
}

static unsigned long policy_mask(const struct policy *p)
{
	unsigned long mask = 0;

	for (int k = 0; k < p->nr_nodes; k++)
		mask |= 1UL << p->nodes[k];
	return mask;
}

/* The kernel drops the last bit of maxnode (get_nodes()), hence the +1. */
static long apply_policy(const struct policy *p, enum via via, void *addr, size_t len)
{
	unsigned long mask = policy_mask(p);
	unsigned long maxnode = sizeof(mask) * CHAR_BIT + 1;

	if (via == VIA_MBIND)
		return sys_mbind(addr, len, p->mode, &mask, maxnode);
	return sys_set_mempolicy(p->mode, &mask, maxnode);
}

/* weighted_interleave_nid(): ilx % total weight picks a node's weight interval. */
static int weighted_node(const struct policy *p, unsigned long ilx)
{
	unsigned long total = 0, target;

	for (int k = 0; k < p->nr_nodes; k++)
		total += p->weights[k];
	target = ilx % total;
	for (int k = 0; k < p->nr_nodes; k++) {
		if (target < p->weights[k])
			return p->nodes[k];
		target -= p->weights[k];
	}
	return -1;
}

static int expected_node(const struct policy *p, unsigned long ilx)
{
	switch (p->mode) {
	case MPOL_INTERLEAVE:
		return p->nodes[ilx % (unsigned long)p->nr_nodes];
	case MPOL_WEIGHTED_INTERLEAVE:
		return weighted_node(p, ilx);
	default:
		return p->nodes[0];
	}
}

/*
 * Fault every page of a fresh region by writing it.  Base pages only
 * (MADV_NOHUGEPAGE): a THP would be placed by its own, PMD-order index.
 */
static int fault_region(const struct policy *p, enum via via, char *base, size_t len,
			void **pages)
{
	size_t ps = (size_t)page_size();

	if (madvise(base, len, MADV_NOHUGEPAGE)) {
		ktap_diag("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
		return -1;
	}
	if (via == VIA_MBIND && apply_policy(p, via, base, len)) {
		ktap_diag("mbind: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < NR_PAGES; i++) {
		pages[i] = base + (size_t)i * ps;
		base[(size_t)i * ps] = 1;
	}
	return 0;
}

/* Map NR_PAGES pages under the policy, fault them, and read each page's node into status[]. */
static int place_pages(const struct policy *p, enum via via, void **pages, int *status)
{
	size_t len = NR_PAGES * (size_t)page_size();
	char *base;
	int rc;

	if (via == VIA_TASK && apply_policy(p, via, NULL, 0)) {
		ktap_diag("set_mempolicy: %s", strerror(errno));
		return -1;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		rc = -1;
	} else {
		rc = fault_region(p, via, base, len, pages);
	}
	if (via == VIA_TASK)
		sys_set_mempolicy(MPOL_DEFAULT, NULL, 0);
	if (rc == 0 && sys_move_pages(NR_PAGES, pages, status)) {
		ktap_diag("move_pages: %s", strerror(errno));
		rc = -1;
	}
	if (base != MAP_FAILED)
		munmap(base, len);
	return rc;
}

/* "node0=32 node1=32" from per-node counts; pages with no node as "none=N". */
static void format_counts(const int *count, int nowhere, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int node = 0; node < MAX_NODES && len < size; node++)
		if (count[node])
			len += (size_t)snprintf(buf + len, size - len, "%snode%d=%d",
						len ? " " : "", node, count[node]);
	if (nowhere && len < size)
		snprintf(buf + len, size - len, "%snone=%d", len ? " " : "", nowhere);
}

static int check_placement(const struct policy *p, void **pages, const int *status)
{
	int want_count[MAX_NODES] = { 0 }, got_count[MAX_NODES] = { 0 };
	int nowhere = 0, misplaced = 0, first = -1;
	unsigned long ps = (unsigned long)page_size();
	char counts[512];

	for (int i = 0; i < NR_PAGES; i++) {
		int want = expected_node(p, (uintptr_t)pages[i] / ps);

		want_count[want]++;
		if (status[i] >= 0 && status[i] < MAX_NODES)
			got_count[status[i]]++;
		else
			nowhere++;
		if (status[i] != want && misplaced++ == 0)
			first = i;
	}
	if (!misplaced)
		return 1;
	ktap_diag("%d of %d pages misplaced; first: page %d (ilx %lu) on node %d, expected node %d",
		  misplaced, NR_PAGES, first, (unsigned long)((uintptr_t)pages[first] / ps),
		  status[first], expected_node(p, (uintptr_t)pages[first] / ps));
	format_counts(want_count, 0, counts, sizeof(counts));
	ktap_diag("expected: %s", counts);
	format_counts(got_count, nowhere, counts, sizeof(counts));
	ktap_diag("actual:   %s", counts);
	return 0;
}

/* "mbind MPOL_INTERLEAVE nodes 0-1" and the like. */
static void describe(const struct policy *p, enum via via, char *buf, size_t size)
{
	char nodes[128];
	size_t len;

	idlist_format(policy_mask(p), nodes, sizeof(nodes));
	len = (size_t)snprintf(buf, size, "%s %s node%s %s",
			       via == VIA_MBIND ? "mbind" : "set_mempolicy",
			       p->mode_name, p->nr_nodes > 1 ? "s" : "", nodes);
	for (int k = 0; p->mode == MPOL_WEIGHTED_INTERLEAVE && k < p->nr_nodes && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%u",
					k ? "," : " weights ", p->weights[k]);
}

static void run_case(const struct policy *p, enum via via)
{
	void *pages[NR_PAGES];
	int status[NR_PAGES];
	char name[256];

	describe(p, via, name, sizeof(name));
	if (place_pages(p, via, pages, status)) {
		ktap_ok(0, "%s", name);
		return;
	}
	ktap_ok(check_placement(p, pages, status), "%s", name);
}

static void run_single_node_cases(const struct policy *mem, enum via via)
{
	struct policy p = { .nr_nodes = 1 };

	for (int k = 0; k < mem->nr_nodes; k++) {
		p.nodes[0] = mem->nodes[k];
		p.mode = MPOL_BIND;
		p.mode_name = "MPOL_BIND";
		run_case(&p, via);
		p.mode = MPOL_PREFERRED;
		p.mode_name = "MPOL_PREFERRED";
		run_case(&p, via);
	}
}

static void run_interleave_case(const struct policy *mem, enum via via)
{
	struct policy p = *mem;

	p.mode = MPOL_INTERLEAVE;
	p.mode_name = "MPOL_INTERLEAVE";
	if (p.nr_nodes < 2) {
		ktap_skip(via == VIA_MBIND ? "mbind MPOL_INTERLEAVE" : "set_mempolicy MPOL_INTERLEAVE",
			  "one memory node: interleaving needs two");
		return;
	}
	run_case(&p, via);
}

static void weight_path(int node, char *path, size_t size)
{
	snprintf(path, size, WI_DIR "/node%d", node);
}

static void restore_weights(const struct policy *p, const struct saved_weights *saved)
{
	char path[128], val[32];

	for (int k = 0; k < p->nr_nodes; k++) {
		weight_path(p->nodes[k], path, sizeof(path));
		snprintf(val, sizeof(val), "%ld", saved->old[k]);
		if (sys_write(path, val))
			ktap_diag("cannot restore %s: %s", path, strerror(errno));
	}
	if (strcmp(saved->old_auto, "true") || sys_write(WI_AUTO_PATH, "true") == 0)
		return;
	/* Without HMAT bandwidths auto mode only meant "all weights 1", as restored. */
	if (errno == ENODEV)
		ktap_diag("%s: no bandwidth data to switch back to auto; weights restored in manual mode",
			  WI_AUTO_PATH);
	else
		ktap_diag("cannot restore %s: %s", WI_AUTO_PATH, strerror(errno));
}

static int save_weights(const struct policy *p, struct saved_weights *saved)
{
	char path[128];

	if (sys_read(WI_AUTO_PATH, saved->old_auto, sizeof(saved->old_auto)))
		saved->old_auto[0] = '\0';
	if (!strcmp(saved->old_auto, "true"))
		ktap_diag("weights are in auto mode: setting them switches to manual until restored");
	for (int k = 0; k < p->nr_nodes; k++) {
		weight_path(p->nodes[k], path, sizeof(path));
		if (sys_read_long(path, &saved->old[k])) {
			ktap_diag("cannot read %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Write weight to the node's knob and read back what the kernel took. */
static int set_weight(int node, unsigned weight, unsigned *got)
{
	char path[128], val[16];
	long now;

	weight_path(node, path, sizeof(path));
	snprintf(val, sizeof(val), "%u", weight);
	if (sys_write(path, val) || sys_read_long(path, &now) || now <= 0) {
		ktap_diag("cannot set %s to %s: %s", path, val, strerror(errno));
		return -1;
	}
	*got = (unsigned)now;
	return 0;
}

/*
 * Give the policy's nodes the weights 3,1,3,1,... and expect what the kernel
 * took.  Writing a node weight switches auto mode (weights derived from HMAT
 * bandwidth) to manual; restore_weights() switches it back.
 */
static int set_weights(struct policy *p, struct saved_weights *saved)
{
	if (save_weights(p, saved))
		return -1;
	for (int k = 0; k < p->nr_nodes; k++) {
		if (set_weight(p->nodes[k], k % 2 ? 1 : 3, &p->weights[k])) {
			restore_weights(p, saved);
			return -1;
		}
	}
	return 0;
}

static void skip_weighted_cases(const char *reason)
{
	ktap_skip("mbind MPOL_WEIGHTED_INTERLEAVE", "%s", reason);
	ktap_skip("set_mempolicy MPOL_WEIGHTED_INTERLEAVE", "%s", reason);
}

static void run_weighted_cases(const struct policy *mem)
{
	struct policy p = *mem;
	struct saved_weights saved;

	p.mode = MPOL_WEIGHTED_INTERLEAVE;
	p.mode_name = "MPOL_WEIGHTED_INTERLEAVE";
	if (p.nr_nodes < 2) {
		skip_weighted_cases("one memory node: interleaving needs two");
		return;
	}
	if (!sys_exists(WI_DIR)) {
		skip_weighted_cases("no " WI_DIR " in this kernel");
		return;
	}
	if (set_weights(&p, &saved)) {
		ktap_ok(0, "mbind MPOL_WEIGHTED_INTERLEAVE: set node weights");
		ktap_ok(0, "set_mempolicy MPOL_WEIGHTED_INTERLEAVE: set node weights");
		return;
	}
	run_case(&p, VIA_MBIND);
	run_case(&p, VIA_TASK);
	restore_weights(&p, &saved);
}

/* The nodes with memory, from sysfs: the nodes any policy may name. */
static int read_memory_nodes(struct policy *mem)
{
	char list[256];
	uint64_t mask;

	if (sys_read(HAS_MEMORY_PATH, list, sizeof(list)) || idlist_parse(list, &mask) < 0)
		return -1;
	mem->nr_nodes = 0;
	for (int node = 0; node < MAX_NODES; node++)
		if (mask & (UINT64_C(1) << node))
			mem->nodes[mem->nr_nodes++] = node;
	return 0;
}

int main(void)
{
	struct policy mem = { 0 };
	long balancing;

	if (read_memory_nodes(&mem) || mem.nr_nodes == 0)
		ktap_skip_all("cannot read the memory nodes from %s", HAS_MEMORY_PATH);
	/* per via: BIND and PREFERRED per node, INTERLEAVE, WEIGHTED_INTERLEAVE */
	ktap_header(2 * (2 * mem.nr_nodes + 2));
	ktap_diag("%d memory nodes, %d pages of %ld bytes per case", mem.nr_nodes, NR_PAGES,
		  page_size());
	if (!sys_read_long("/proc/sys/kernel/numa_balancing", &balancing) && balancing)
		ktap_diag("numa_balancing is on: pages may migrate after the fault");
	for (enum via via = VIA_MBIND; via <= VIA_TASK; via++) {
		run_single_node_cases(&mem, via);
		run_interleave_case(&mem, via);
	}
	run_weighted_cases(&mem);
	ktap_exit();
}
