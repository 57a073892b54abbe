/*
 * Switching demotion on gives kswapd back the nodes it had given up on.
 *
 * kswapd gives up on a node after MAX_RECLAIM_RETRIES runs that reclaimed
 * nothing: /proc/zoneinfo's node_unreclaimable becomes 1 and kswapd leaves
 * the node to direct reclaim (mm/vmscan.c, "hopeless").  Demotion changes
 * what reclaim can do (sysfs-kernel-mm-numa: with demotion_enabled, "page
 * migration during reclaim ... migrate[s] pages from fast tiers to slow
 * tiers"; without swap, anonymous pages could not leave a node before), so
 * demotion_enabled_store() resets every node's count when the switch goes
 * from false to true ("They may no longer be valid since the policy for
 * kswapd has changed") and only then: a write that changes nothing leaves a
 * node kswapd cannot balance alone, or kswapd would run on it without end
 * (kswapd_try_clear_hopeless()'s reason for its own check).
 *
 * The last memory node N (a CPU-less node of the lowest tier on cxl) is
 * filled with hugetlb pages while demotion is off, then with base pages
 * bound to it until its free pages are below the low watermark: nothing
 * there is reclaimable (hugetlb pages, anonymous pages with no swap and no
 * demotion), so kswapd must give N up.  Then "0" is written while demotion
 * is off, N must stay given up, and "1", N must be back (node_unreclaimable
 * 0) at once.
 *
 * Kills mm/memory-tiers.c's demotion_enabled_store() `&&` -> `||`
 * (9606c68bc894: the write of 0 resets N) and `numa_demotion_enabled ==
 * true` -> `!=` (03debf6e0ed6: the write of 0 resets, the write of 1 does
 * not), and its reset loop removed or skipped.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "sys.h"
#include "tiering.h"

#define HOPELESS_S 30        /* kswapd's 16 fruitless runs take well under a second on TCG */
#define FILLER_MAX 16384     /* base pages: the gap hugetlb leaves above min is < 512 */

int hopeless_plan(const struct tiering *t)
{
	(void)t;
	return 3;
}

/* node's node_unreclaimable once it is want, or after seconds (0: read once): 1, 0, -1 (no zoneinfo). */
static int wait_unreclaimable(int node, int want, int seconds)
{
	struct zone_marks z;
	struct timespec tick = { 0, 50 * 1000 * 1000 };

	for (int i = 0;; i++) {
		if (zone_marks(node, &z))
			return -1;
		if (z.unreclaimable == want || i >= seconds * 20)
			return z.unreclaimable;
		nanosleep(&tick, NULL);
	}
}

/* Base pages bound to node until its free pages are below the low watermark. */
static void fill_below_low(int node, char *filler)
{
	size_t ps = (size_t)page_size(), filled = 0;
	struct zone_marks z;

	while (filled < FILLER_MAX && !zone_marks(node, &z) && z.free >= z.low)
		for (size_t k = 0; k < 16 && filled < FILLER_MAX; k++)
			filler[filled++ * ps] = 1;
	if (!zone_marks(node, &z))
		ktap_diag("node%d: %ld pages free, watermarks min %ld low %ld high %ld, %zu filler pages", node,
			  z.free, z.min, z.low, z.high, filled);
}

void hopeless_run(const struct tiering *t)
{
	static const char *const rows[] = {
		"kswapd gives up a node holding nothing it can reclaim (node_unreclaimable 1)",
		"writing 0 to demotion_enabled while it is off leaves the node given up",
		"switching demotion_enabled from 0 to 1 gives the node back to kswapd (node_unreclaimable 0)",
	};
	size_t len = FILLER_MAX * (size_t)page_size();
	struct node_hugepages h = { "", "" };
	char old[16] = "", boost[32] = "";
	int node = t->nr_nodes - 1, given_up, kept, back;
	unsigned long mask;
	char *filler = MAP_FAILED;
	long got;

	while (node > 0 && !t->topo->nodes[node].mem_bytes)
		node--;
	mask = 1UL << node;
	if (sys_read(DEMOTION_ENABLED, old, sizeof(old)) || sys_write(DEMOTION_ENABLED, "0")) {
		ktap_diag("cannot switch " DEMOTION_ENABLED " off: %s", strerror(errno));
		for (int i = 0; i < 3; i++)
			ktap_ok(0, "%s", rows[i]);
		return;
	}
	/* A boost after a fragmenting fallback would raise the watermarks under the test. */
	watermark_boost_off(boost, sizeof(boost));
	got = node_hugepages_set(&h, node, 1L << 20);
	filler = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (got < 0 || filler == MAP_FAILED ||
	    syscall(SYS_mbind, filler, len, 2 /* MPOL_BIND */, &mask, sizeof(mask) * CHAR_BIT + 1, 0)) {
		ktap_diag("node%d: hugetlb pages %ld, a filler bound to it: %s", node, got, strerror(errno));
		given_up = kept = back = -2;
	} else {
		ktap_diag("node%d filled with %ld hugetlb pages", node, got);
		fill_below_low(node, filler);
		given_up = wait_unreclaimable(node, 1, HOPELESS_S);
		sys_write(DEMOTION_ENABLED, "0");
		kept = wait_unreclaimable(node, 1, 0);
		sys_write(DEMOTION_ENABLED, "1");
		back = wait_unreclaimable(node, 0, 0);
		ktap_diag("node%d node_unreclaimable: %d after the fill, %d after writing 0, %d after writing 1",
			  node, given_up, kept, back);
	}
	ktap_ok(given_up == 1, "%s", rows[0]);
	ktap_ok(given_up == 1 && kept == 1, "%s", rows[1]);
	ktap_ok(given_up == 1 && back == 0, "%s", rows[2]);
	sys_write(DEMOTION_ENABLED, old);
	if (filler != MAP_FAILED)
		munmap(filler, len);
	node_hugepages_restore(&h);
	watermark_boost_restore(boost);
}
