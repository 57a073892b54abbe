/*
 * Every node's demotion targets, as the kernel states them in its log
 * ("Demotion targets for Node N: preferred: P, fallback: F" or "null",
 * mm/memory-tiers.c dump_demotion_targets(), printed whenever the targets
 * are established), against the rule mm/memory-tiers.c's
 * establish_demotion_targets() documents from the tiers and the distances:
 *
 *   preferred: "Find all the nodes in the memory tier node list of same best
 *   distance. add them to the preferred mask" -- the nodes of the next lower
 *   tier nearest to N (demotion_targets());
 *   fallback: "build the lower_tier mask for each node collecting node mask
 *   from all memory tier below it";
 *   a node of the lowest tier has none: null.
 *
 * demote.c moves pages from one DRAM node only; this covers every node, the
 * middle tier's too (cxl-3tier: node 2 demotes to node 3, not to itself or
 * back up).  Kills, in mm/memory-tiers.c establish_demotion_targets():
 * `memtier = list_next_entry(memtier, list);` removed (targets in the node's
 * own tier), `if (distance == best_distance || best_distance == -1)` ->
 * `&&` (no target at all), `nodes_andnot(lower_tier, lower_tier,
 * tier_nodes);` removed (fallback every memory node), and
 * `if (!memtier || list_is_last(&memtier->list, &memory_tiers))` -> `if (0)`
 * (the lowest tier given a target).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "tiering.h"

/*
 * The last log line for node: 1 for "null" (*preferred = *fallback = 0), 0
 * for the lists, -1 when there is none.
 */
static int logged_targets(const char *log, int node, unsigned long *preferred, unsigned long *fallback)
{
	char key[64], pref[128], fall[128];
	const char *p = log, *last = NULL, *end, *nl;
	size_t len;
	uint64_t pm = 0, fm = 0;

	snprintf(key, sizeof(key), "Demotion targets for Node %d: ", node);
	while ((p = strstr(p, key))) {
		last = p + strlen(key);
		p = last;
	}
	if (!last)
		return -1;
	if (!strncmp(last, "null", 4)) {
		*preferred = *fallback = 0;
		return 1;
	}
	if (strncmp(last, "preferred: ", 11))
		return -1;
	last += 11;
	/* The list itself may have commas ("2,4-5"): it ends at ", fallback: " on the same line. */
	end = strstr(last, ", fallback: ");
	nl = strchr(last, '\n');
	if (!end || (nl && nl < end) || (size_t)(end - last) >= sizeof(pref))
		return -1;
	memcpy(pref, last, (size_t)(end - last));
	pref[end - last] = '\0';
	last = end + 12;
	len = strcspn(last, "\n");
	if (len >= sizeof(fall))
		return -1;
	memcpy(fall, last, len);
	fall[len] = '\0';
	if (idlist_parse(pref, &pm) < 0 || idlist_parse(fall, &fm) < 0)
		return -1;
	*preferred = pm;
	*fallback = fm;
	return 0;
}

int targets_plan(const struct tiering *t)
{
	return t->nr_nodes;
}

void targets_run(const struct tiering *t)
{
	char *log = kernel_log();

	for (int node = 0; node < t->nr_nodes; node++) {
		unsigned long want = demotion_targets(t, node), lower = 0, pref = 0, fall = 0;
		int form = log ? logged_targets(log, node, &pref, &fall) : -1;
		/*
		 * A node with no target is logged as "null", not as empty lists:
		 * kills dump_demotion_targets()' `if (nodes_empty(preferred))` ->
		 * `if (0)` (d60f8f705cf0: "preferred: , fallback: ").
		 */
		int found = form == (want ? 0 : 1);
		char wp[128], wf[128], gp[128], gf[128];

		for (int i = 0; want && i < t->nr_nodes; i++)
			if (t->tier[i] > t->tier[node])
				lower |= 1UL << i;
		idlist_format(want, wp, sizeof(wp));
		idlist_format(lower, wf, sizeof(wf));
		idlist_format(pref, gp, sizeof(gp));
		idlist_format(fall, gf, sizeof(gf));
		if (form < 0)
			ktap_diag("no \"Demotion targets for Node %d\" line in the kernel log", node);
		else if (!found)
			ktap_diag("node%d: the kernel logs its targets as %s", node, form ? "null" : "lists");
		else if (pref != want || fall != lower)
			ktap_diag("node%d: the kernel's demotion targets preferred %s fallback %s", node,
				  pref ? gp : "null", fall ? gf : "null");
		ktap_ok(found && pref == want && fall == lower, "node%d demotes to preferred %s, fallback %s", node,
			want ? wp : "null", lower ? wf : "null");
	}
	free(log);
}
