/*
 * Weighted-interleave weights from sysfs: manual weights are taken and read
 * back, a weight of 0 is refused, and in auto mode (weights the kernel
 * derives from HMAT bandwidth) a node with more bandwidth never gets less
 * weight than one with less.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "weights.h"

static void weight_path(int node, char *path, size_t size)
{
	snprintf(path, size, WI_DIR "/node%d", node);
}

int wi_save(const int *nodes, int nr, struct wi_saved *saved)
{
	char path[128];

	saved->nr = nr;
	if (sys_read(WI_AUTO_PATH, saved->old_auto, sizeof(saved->old_auto)))
		saved->old_auto[0] = '\0';
	for (int k = 0; k < nr; k++) {
		saved->nodes[k] = nodes[k];
		weight_path(nodes[k], path, sizeof(path));
		if (sys_read_long(path, &saved->old[k])) {
			ktap_diag("cannot read %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int wi_set(int node, unsigned weight, unsigned *got)
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

void wi_restore(const struct wi_saved *saved)
{
	char path[128], val[32];

	for (int k = 0; k < saved->nr; k++) {
		weight_path(saved->nodes[k], path, sizeof(path));
		snprintf(val, sizeof(val), "%ld", saved->old[k]);
		if (sys_write(path, val))
			ktap_diag("cannot restore %s: %s", path, strerror(errno));
	}
	if (strcmp(saved->old_auto, "true") || sys_write(WI_AUTO_PATH, "true") == 0)
		return;
	/* Without HMAT bandwidths auto mode only meant "all weights 1", as restored. */
	if (errno != ENODEV)
		ktap_diag("cannot restore %s: %s", WI_AUTO_PATH, strerror(errno));
}

/* Manual weights 1..nr are taken as written; 0 is refused with EINVAL. */
static void check_manual(const struct nodes *n)
{
	char path[128], val[8];
	unsigned got;
	int ok = 1;

	for (int k = 0; k < n->nr_mem && ok; k++) {
		ok = wi_set(n->mem[k], (unsigned)k + 1, &got) == 0 && got == (unsigned)k + 1;
		if (!ok)
			ktap_diag("node%d: wrote %d, read %u", n->mem[k], k + 1, got);
	}
	ktap_ok(ok, "manual weights 1..%d read back", n->nr_mem);
	weight_path(n->mem[0], path, sizeof(path));
	snprintf(val, sizeof(val), "0");
	errno = 0;
	ok = sys_write(path, val) != 0 && errno == EINVAL;
	if (!ok)
		ktap_diag("writing 0 to %s: %s", path, errno ? strerror(errno) : "accepted");
	ktap_ok(ok, "weight 0 refused with EINVAL");
}

/*
 * node's bandwidth from its best initiator (0: none declared): what the
 * kernel's access class 0 reports and auto weights are derived from.
 */
static unsigned long long bandwidth(const struct topology *t, int node)
{
	unsigned long long best = 0;

	for (int i = 0; i < t->nr_hmat_lb; i++)
		if (t->hmat_lb[i].target == node && t->hmat_lb[i].bandwidth_bps > best)
			best = t->hmat_lb[i].bandwidth_bps;
	return best;
}

/*
 * The auto weights exactly as documented for the weighted_interleave sysfs:
 * each node's bandwidth (MiB/s, as sysfs shows it) scaled to
 * 32 * bw / sum-of-bw rounded down (1 when that is below 1 or bw is 0), then
 * all divided by their gcd.  Written for reduce_interleave_weights()'s
 * mutants (issue 18): on cxl's bandwidths (22G, 22G, 10G, 10G: 11,11,5,5,
 * each 32 * bw / sum exact) it kills a wrong scale or rounding, sum_bw
 * starting at 1 (0c88318b271c: 10,10,4,4, then 5,5,2,2); the gcd is 1 there,
 * so dropping the gcd division cannot show on that shape.
 */
static long gcd(long a, long b)
{
	return b ? gcd(b, a % b) : a;
}

static void check_auto_exact(const struct nodes *n, const long *w)
{
	unsigned long long bw[MAX_NODES], sum = 0;
	long want[MAX_NODES], g = 0;
	int ok = w != NULL;

	for (int k = 0; k < n->nr_mem; k++)
		sum += bw[k] = bandwidth(n->topo, n->mem[k]) >> 20;
	for (int k = 0; k < n->nr_mem; k++) {
		want[k] = bw[k] && sum < 32 * bw[k] ? (long)(32 * bw[k] / sum) : 1;
		g = gcd(g, want[k]);
	}
	for (int k = 0; ok && k < n->nr_mem; k++)
		if (w[n->mem[k]] != want[k] / g) {
			ktap_diag("auto weight node%d = %ld, the reference (32 * bw / sum, / gcd): %ld",
				  n->mem[k], w[n->mem[k]], want[k] / g);
			ok = 0;
		}
	ktap_ok(ok, "auto weights equal the reference computed from HMAT bandwidth");
}

static void check_auto(const struct nodes *n)
{
	long w[MAX_NODES];
	char path[128], mode[16];
	int ok = 1;

	if (!topo_has_hmat(n->topo) || sys_exists(WI_AUTO_PATH) == 0) {
		for (int i = 0; i < 2; i++)
			ktap_skip(i ? "auto weights equal the reference computed from HMAT bandwidth"
				    : "auto weights follow HMAT bandwidth", "%s",
				  sys_exists(WI_AUTO_PATH) ? "the topology declares no HMAT bandwidth"
							   : "this kernel has no auto mode");
		return;
	}
	if (sys_write(WI_AUTO_PATH, "true") || sys_read(WI_AUTO_PATH, mode, sizeof(mode))) {
		ktap_diag("cannot switch %s on: %s", WI_AUTO_PATH, strerror(errno));
		ok = 0;
	}
	for (int k = 0; ok && k < n->nr_mem; k++) {
		weight_path(n->mem[k], path, sizeof(path));
		ok = sys_read_long(path, &w[n->mem[k]]) == 0;
	}
	for (int a = 0; ok && a < n->nr_mem; a++)
		for (int b = 0; b < n->nr_mem; b++) {
			int na = n->mem[a], nb = n->mem[b];

			if (bandwidth(n->topo, na) > bandwidth(n->topo, nb) && w[na] < w[nb]) {
				ktap_diag("node%d (%llu B/s) has weight %ld < node%d (%llu B/s) weight %ld",
					  na, bandwidth(n->topo, na), w[na], nb, bandwidth(n->topo, nb), w[nb]);
				ok = 0;
			}
		}
	for (int k = 0; ok && k < n->nr_mem; k++)
		ktap_diag("auto weight node%d = %ld", n->mem[k], w[n->mem[k]]);
	ktap_ok(ok, "auto weights follow HMAT bandwidth");
	check_auto_exact(n, ok ? w : NULL);
}

int weights_plan(const struct nodes *n)
{
	(void)n;
	return 4;
}

void weights_run(const struct nodes *n)
{
	struct wi_saved saved;

	if (!sys_exists(WI_DIR) || wi_save(n->mem, n->nr_mem, &saved)) {
		for (int i = 0; i < 4; i++)
			ktap_skip("weighted interleave sysfs", "no readable %s in this kernel", WI_DIR);
		return;
	}
	check_manual(n);
	check_auto(n);
	wi_restore(&saved);
}
