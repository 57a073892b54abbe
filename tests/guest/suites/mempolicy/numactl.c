/*
 * numactl in the guest: the image's numactl is >= 2.0.19, the first with
 * -w/--weighted-interleave, and `numactl -w A,B CMD` places CMD's pages by
 * the sysfs weights of A and B.
 *
 * CMD is this binary again (`mempolicy --touch-pages N`, touch_pages_main()):
 * it faults N fresh base pages under the policy numactl gave it and prints
 * how many landed on each node.  Faults in a VMA are placed by the page's
 * index, so N a multiple of the weight sum gives exact counts.
 *
 * Fails on: the bookworm image (numactl 2.0.16: no -w, version check fails
 * too); a kernel without MPOL_WEIGHTED_INTERLEAVE (< 6.9: numactl -w gets
 * EINVAL); the one-line mutant `weight = 1;` after the weight lookup in
 * mm/mempolicy.c weighted_interleave_nid() (pages split 1:1, not 3:1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "ktap.h"
#include "mempolicy.h"
#include "weights.h"

#define NUMACTL "/usr/bin/numactl"
#define SELF "/lab/tests/mempolicy"
#define TOUCH_PAGES 64             /* a multiple of the weights' sum 3 + 1 */

int touch_pages_main(const char *count)
{
	static int status[4096];
	int per_node[MAX_NODES] = { 0 };
	size_t n = strtoul(count, NULL, 10);
	char *base;

	if (!n || n > sizeof(status) / sizeof(status[0]) || !(base = map_pages(n)))
		return 1;
	for (size_t i = 0; i < n; i++)
		base[i * (size_t)page_size()] = 1;
	if (pages_nodes(base, n, status))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < MAX_NODES)
			per_node[status[i]]++;
	for (int node = 0; node < MAX_NODES; node++)
		if (per_node[node])
			printf("N%d=%d\n", node, per_node[node]);
	return 0;
}

int numactl_plan(const struct nodes *n)
{
	(void)n;
	return 2;
}

/* 2.0.19 prints "2.0.19"; some releases print "numactl 2.0.16". */
static void check_version(void)
{
	char *argv[] = { NUMACTL, "--version", NULL }, out[256];
	int major = 0, minor = 0, patch = 0;
	int st = child_run(argv, out, sizeof(out), 30);

	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		ktap_diag("%s --version: %s", NUMACTL, st < 0 ? strerror(errno) : "failed");
		ktap_ok(0, "numactl --version >= 2.0.19");
		return;
	}
	if (sscanf(out + (strncmp(out, "numactl ", 8) ? 0 : 8), "%d.%d.%d", &major, &minor, &patch) != 3)
		ktap_diag("cannot parse `numactl --version`: %s", out);
	else
		ktap_diag("numactl %d.%d.%d", major, minor, patch);
	ktap_ok(major * 10000 + minor * 100 + patch >= 20019, "numactl --version >= 2.0.19");
}

static int count_on(const char *out, int node)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), "N%d=", node);
	for (p = out; (p = strstr(p, key)); p++)
		if (p == out || p[-1] == '\n')
			return atoi(p + strlen(key));
	return 0;
}

/* Weights 3 and 1 on the first two memory nodes: 48 and 16 of 64 pages. */
static void check_weighted(const struct nodes *n)
{
	int a, b, got_a, got_b, ok = 0;
	unsigned wa, wb;
	struct wi_saved saved;
	char nodes[32], count[16], out[256];
	char *argv[] = { NUMACTL, "-w", nodes, SELF, "--touch-pages", count, NULL };

	if (n->nr_mem < 2 || !sys_exists(WI_DIR)) {
		ktap_skip("numactl -w", "%s", n->nr_mem < 2 ? "fewer than 2 memory nodes" :
			  "the kernel has no " WI_DIR);
		return;
	}
	a = n->mem[0];
	b = n->mem[1];
	snprintf(nodes, sizeof(nodes), "%d,%d", a, b);
	snprintf(count, sizeof(count), "%d", TOUCH_PAGES);
	if (wi_save(n->mem, 2, &saved) == 0) {
		if (wi_set(a, 3, &wa) == 0 && wi_set(b, 1, &wb) == 0 && wa == 3 && wb == 1) {
			int st = child_run(argv, out, sizeof(out), 60);

			if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				ktap_diag("numactl -w %s %s --touch-pages %s: %s", nodes, SELF, count,
					  st < 0 ? strerror(errno) : "failed");
			got_a = count_on(out, a);
			got_b = count_on(out, b);
			ktap_diag("weights %d:3 %d:1, pages N%d=%d N%d=%d", a, b, a, got_a, b, got_b);
			ok = got_a == TOUCH_PAGES * 3 / 4 && got_b == TOUCH_PAGES / 4;
		}
		wi_restore(&saved);
	}
	ktap_ok(ok, "numactl -w %s places pages 3:1 by the sysfs weights", nodes);
}

void numactl_run(const struct nodes *n)
{
	check_version();
	check_weighted(n);
}
