/*
 * Memory tiers and weighted-interleave auto weights, both derived by the
 * kernel from the HMAT access1 (best CPU initiator) coordinates the guest
 * shows in /sys/devices/system/node/nodeN/access1/initiators/.  The checks
 * recompute the kernel's rules from those numbers, so a shape with other
 * HMAT latencies and bandwidths (cxl-far) must move the nodes exactly as
 * the rules say:
 *
 *  - mm/memory-tiers.c mt_perf_to_adistance(): a CPU-less node's abstract
 *    distance is MEMTIER_ADISTANCE_DRAM (576) * (its read+write latency) /
 *    (DRAM's) * (DRAM's read+write bandwidth) / (its); nodes with CPUs get
 *    576; the tier is memory_tier(adistance >> 7).  Fails on a kernel
 *    without ACPI_HMAT (all nodes in memory_tier4), and on the mutant that
 *    drops the latency factor from mt_perf_to_adistance().
 *  - mm/mempolicy.c reduce_interleave_weights(): weight = 32 * bw / sum of
 *    bw (min 1; bw = min(read, write) bandwidth), divided by their GCD.
 *    Fails on a kernel before 6.16 (no auto mode: all weights 1) and on the
 *    mutant weightiness = 16.
 *  - a manual weight switches auto off and sticks; auto=true brings the
 *    derived weights back.  Fails on the mutant `mode_auto = true;` in
 *    node_store().
 *  - mm/memory-tiers.c mt_set_default_dram_perf(): "The performance of all
 *    default DRAM nodes is expected to be same (that is, the variation is
 *    less than 10%)".  Where a DRAM node's numbers differ by more (cxl-
 *    mismatch), every node keeps the DRAM distance, so all share one tier,
 *    and the kernel logs why: the two nodes, and "from ACPI HMAT" for the
 *    source of each one's numbers.  That log line replaces the CPU-less-
 *    below-DRAM check there.  Kills the mutant `default_dram_perf_ref_source
 *    = kstrdup(source, GFP_KERNEL)` -> `... - 1` (2dd0425e9f5a: the
 *    reference's source printed from one byte before the string).
 *  - mt_perf_to_adistance() refuses performance without bandwidth: a CPU-
 *    less node whose HMAT gives latencies only (cxl-partial-hmat) keeps
 *    DRAM's distance and tier.  Kills its `read_bandwidth + write_bandwidth
 *    == 0` -> `== 1` (0a0eddd70cfe: a division by zero at boot).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "tiering.h"

#define ADISTANCE_DRAM 576L
#define CHUNK_BITS 7
#define WEIGHTINESS 32

struct coords {
	long read_latency, write_latency, read_bandwidth, write_bandwidth;
};

static int read_coords(int node, struct coords *c)
{
	static const char *const names[] = { "read_latency", "write_latency",
					     "read_bandwidth", "write_bandwidth" };
	long *vals[] = { &c->read_latency, &c->write_latency, &c->read_bandwidth,
			 &c->write_bandwidth };
	char path[160];

	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), NODE_DIR "/node%d/access1/initiators/%s", node, names[i]);
		if (sys_read_long(path, vals[i])) {
			ktap_diag("cannot read %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int tiers_plan(const struct tiering *t)
{
	return t->nr_nodes + 3;
}

/*
 * mt_perf_to_adistance() refuses numbers without latency or without
 * bandwidth (-EINVAL): such a node keeps DRAM's abstract distance.
 */
static int has_perf(const struct coords *c)
{
	return c->read_latency + c->write_latency && c->read_bandwidth + c->write_bandwidth;
}

/* One number off the reference's by more than 10% of it (the kernel's integer test). */
static int off_by_tenth(long v, long ref)
{
	return (v > ref ? v - ref : ref - v) * 10 > ref;
}

int dram_mismatch(const struct tiering *t)
{
	struct coords ref, c;

	if (t->dram < 0 || read_coords(t->dram, &ref))
		return -1;
	for (int i = t->dram + 1; i < t->nr_nodes; i++)
		if (t->has_cpu[i] && !read_coords(i, &c) &&
		    (off_by_tenth(c.read_latency, ref.read_latency) || off_by_tenth(c.write_latency, ref.write_latency) ||
		     off_by_tenth(c.read_bandwidth, ref.read_bandwidth) ||
		     off_by_tenth(c.write_bandwidth, ref.write_bandwidth)))
			return i;
	return -1;
}

/* The tier of every node by mt_perf_to_adistance(), in the kernel's integer order. */
static void check_tier_ids(const struct tiering *t)
{
	struct coords dram, c;
	int have_dram = t->dram >= 0 && !read_coords(t->dram, &dram);

	for (int i = 0; i < t->nr_nodes; i++) {
		long adist = ADISTANCE_DRAM;

		if (!t->has_cpu[i] && t->dram_mismatch < 0) {
			if (!have_dram || read_coords(i, &c)) {
				ktap_ok(0, "node%d memory tier from HMAT", i);
				continue;
			}
			if (!has_perf(&c)) {
				ktap_diag("node%d: no HMAT bandwidth: DRAM's abstract distance", i);
				ktap_ok(t->tier[i] == (int)(adist >> CHUNK_BITS), "node%d in memory_tier%ld (guest: memory_tier%d)",
					i, adist >> CHUNK_BITS, t->tier[i]);
				continue;
			}
			adist = ADISTANCE_DRAM * (c.read_latency + c.write_latency) /
				(dram.read_latency + dram.write_latency) *
				(dram.read_bandwidth + dram.write_bandwidth) /
				(c.read_bandwidth + c.write_bandwidth);
			ktap_diag("node%d: latency %ld/%ld bandwidth %ld/%ld (DRAM %ld/%ld %ld/%ld): "
				  "abstract distance %ld", i, c.read_latency, c.write_latency,
				  c.read_bandwidth, c.write_bandwidth, dram.read_latency,
				  dram.write_latency, dram.read_bandwidth, dram.write_bandwidth, adist);
		}
		ktap_ok(t->tier[i] == (int)(adist >> CHUNK_BITS), "node%d in memory_tier%ld (guest: memory_tier%d)",
			i, adist >> CHUNK_BITS, t->tier[i]);
	}
}

/* The CPU-less nodes with HMAT performance (has_perf()) below every DRAM node. */
static void check_cpuless_below(const struct tiering *t)
{
	int worst_dram = -1, best_slow = -1;
	struct coords c;

	for (int i = 0; i < t->nr_nodes; i++) {
		if (t->has_cpu[i] && t->tier[i] > worst_dram)
			worst_dram = t->tier[i];
		if (!t->has_cpu[i] && t->tier[i] >= 0 && !read_coords(i, &c) && has_perf(&c) &&
		    (best_slow < 0 || t->tier[i] < best_slow))
			best_slow = t->tier[i];
	}
	ktap_ok(worst_dram >= 0 && best_slow > worst_dram,
		"CPU-less nodes in a lower tier than DRAM (memory_tier%d > memory_tier%d)",
		best_slow, worst_dram);
}

static unsigned gcd(unsigned a, unsigned b)
{
	while (b) {
		unsigned r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* reduce_interleave_weights() over the nodes' access1 bandwidths. */
static int derived_weights(const struct tiering *t, unsigned *w)
{
	unsigned long long sum = 0, bw[MAX_NODES];
	unsigned g = 0;
	struct coords c;

	for (int i = 0; i < t->nr_nodes; i++) {
		if (read_coords(i, &c))
			return -1;
		bw[i] = (unsigned long long)(c.read_bandwidth < c.write_bandwidth ?
					     c.read_bandwidth : c.write_bandwidth);
		sum += bw[i];
	}
	for (int i = 0; i < t->nr_nodes; i++) {
		w[i] = bw[i] && sum < WEIGHTINESS * bw[i] ? (unsigned)(WEIGHTINESS * bw[i] / sum) : 1;
		g = g ? gcd(g, w[i]) : w[i];
	}
	for (int i = 0; i < t->nr_nodes; i++)
		w[i] /= g;
	return 0;
}

static int read_weights(const struct tiering *t, long *w)
{
	char path[128];

	for (int i = 0; i < t->nr_nodes; i++) {
		snprintf(path, sizeof(path), WI_DIR "/node%d", i);
		if (sys_read_long(path, &w[i])) {
			ktap_diag("cannot read %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int weights_are(const struct tiering *t, const unsigned *want, const char *what)
{
	long got[MAX_NODES];
	char line[256] = "";
	int ok = !read_weights(t, got);

	for (int i = 0; ok && i < t->nr_nodes; i++) {
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " node%d %ld/%u", i, got[i], want[i]);
		ok = got[i] == (long)want[i];
	}
	ktap_diag("%s weights (guest/expected):%s", what, line);
	return ok;
}

/* Auto weights, then a manual weight on the slowest node overriding them, then auto again. */
static void check_auto_weights(const struct tiering *t)
{
	unsigned want[MAX_NODES], manual[MAX_NODES];
	char mode[16] = "";
	int slow = -1, derived = 0, overridden = 0;

	if (!sys_exists(WI_DIR "/auto")) {
		ktap_ok(0, "weighted_interleave/auto weights from HMAT bandwidth");
		ktap_diag("the kernel has no " WI_DIR "/auto (added in 6.16)");
		ktap_skip("manual weight overrides auto", "no auto mode");
		return;
	}
	if (derived_weights(t, want) == 0 && !sys_write(WI_DIR "/auto", "true"))
		derived = weights_are(t, want, "auto");
	ktap_ok(derived, "weighted_interleave/auto weights from HMAT bandwidth");
	for (int i = 0; i < t->nr_nodes; i++)
		if (!t->has_cpu[i] && (slow < 0 || want[i] <= want[slow]))
			slow = i;
	memcpy(manual, want, sizeof(manual));
	manual[slow] = want[slow] + 7;
	if (derived) {
		char val[16], path[64];

		snprintf(val, sizeof(val), "%u", manual[slow]);
		snprintf(path, sizeof(path), WI_DIR "/node%d", slow);
		overridden = !sys_write(path, val) && !sys_read(WI_DIR "/auto", mode, sizeof(mode)) &&
			     !strcmp(mode, "false") && weights_are(t, manual, "manual");
		if (!overridden)
			ktap_diag("after writing node%d: auto is '%s'", slow, mode);
		overridden = overridden && !sys_write(WI_DIR "/auto", "true") &&
			     weights_are(t, want, "auto again");
	}
	ktap_ok(overridden, "manual weight on node%d overrides auto; auto=true restores the derived weights",
		slow);
}

/* The mismatch as the kernel logs it (mt_set_default_dram_perf()'s pr_info lines). */
static void check_mismatch_logged(const struct tiering *t)
{
	char *log = kernel_log(), want[4][96];
	int found = 0;

	snprintf(want[0], sizeof(want[0]), "the performance of DRAM node %d mismatches that of the reference",
		 t->dram_mismatch);
	snprintf(want[1], sizeof(want[1]), "DRAM node %d.\n", t->dram);
	snprintf(want[2], sizeof(want[2]), "performance of reference DRAM node %d from ACPI HMAT:\n", t->dram);
	snprintf(want[3], sizeof(want[3]), "performance of DRAM node %d from ACPI HMAT:\n", t->dram_mismatch);
	for (int i = 0; log && i < 4; i++) {
		if (strstr(log, want[i]))
			found++;
		else
			ktap_diag("not in the kernel log: \"%s\"", want[i]);
	}
	free(log);
	ktap_ok(found == 4, "the kernel logs DRAM node%d's HMAT mismatch with node%d, both from ACPI HMAT",
		t->dram_mismatch, t->dram);
}

void tiers_run(const struct tiering *t)
{
	check_tier_ids(t);
	if (t->dram_mismatch >= 0)
		check_mismatch_logged(t);
	else
		check_cpuless_below(t);
	check_auto_weights(t);
}
