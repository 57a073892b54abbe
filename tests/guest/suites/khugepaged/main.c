/* khugepaged: the parts (khugepaged.h) as cases, the collapses with khugepaged tuned for speed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "khugepaged.h"
#include "harness.h"

#define TOPOLOGY_PATH "/lab/topology"

static const char *const knobs[] = {
	KHP_DIR "/scan_sleep_millisecs", KHP_DIR "/alloc_sleep_millisecs", KHP_DIR "/pages_to_scan",
};
#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

struct saved {
	struct thp_knob knob[NR_KNOBS];
	struct thp_knob enabled;
};

/* Scan every 10 ms, a whole PMD range per pass; THP at least for madvised ranges. */
static void tune(struct saved *s)
{
	char fast[NR_KNOBS][32] = { "10", "10", "" }, enabled[16];

	snprintf(fast[2], sizeof(fast[2]), "%ld", 8 * (pmd_size() / page_size()));
	for (size_t i = 0; i < NR_KNOBS; i++)
		if (value_knob_set(&s->knob[i], knobs[i], fast[i]))
			ktap_diag("cannot set %s: %s", knobs[i], strerror(errno));
	s->enabled.was[0] = '\0';
	if (!thp_setting(THP_DIR "/enabled", enabled, sizeof(enabled)) && !strcmp(enabled, "never"))
		thp_knob_set(&s->enabled, THP_DIR "/enabled", "madvise");
}

static void restore(const struct saved *s)
{
	for (size_t i = 0; i < NR_KNOBS; i++)
		thp_knob_restore(&s->knob[i]);
	thp_knob_restore(&s->enabled);
}

static struct topology topo;

/* Tuned for speed and put back in the one process, around the collapses. */
GUEST_CASE(collapse, collapse_plan(&topo))
{
	struct saved saved;

	tune(&saved);
	collapse_run(&topo);
	restore(&saved);
}

/* The collapse-node rule and khugepaged's CPUs, tuned as above. */
GUEST_CASE(collapse_target, target_plan(&topo))
{
	struct saved saved;

	tune(&saved);
	target_run(&topo);
	restore(&saved);
}

/* The collapse's huge page allocated, charged and counted (alloc.c), khugepaged tuned as above. */
GUEST_CASE_TIMEOUT(collapse_alloc, alloc_plan(&topo), 2 * COLLAPSE_WAIT_S + 60)
{
	struct saved saved;

	tune(&saved);
	alloc_run(&topo);
	restore(&saved);
}

/* MADV_COLLAPSE's node rule: ties and a full node (nodes.c). */
GUEST_CASE(collapse_node_rule, nodes_plan(&topo)) { nodes_run(&topo); }

/* MADV_COLLAPSE under zone_reclaim_mode (reclaim.c): collapse_scan_abort(). */
GUEST_CASE(collapse_reclaim_distance, reclaim_plan(&topo)) { reclaim_run(&topo); }

/* MADV_COLLAPSE of shmem (shmem.c): collapse_file(). */
GUEST_CASE(collapse_shmem, shmem_plan(&topo)) { shmem_run(&topo); }

/* MADV_COLLAPSE of shmem something else holds (shmem_held.c). */
GUEST_CASE(collapse_shmem_held, shmem_held_plan()) { shmem_held_run(); }

/* MADV_COLLAPSE past khugepaged's max_ptes_none (limits.c). */
GUEST_CASE(collapse_limits, limits_plan()) { limits_run(); }

/* MADV_COLLAPSE of zero pages KSM mapped (ksm.c): ksm_zero_pages given back. */
GUEST_CASE(collapse_ksm_zero_pages, ksm_plan()) { ksm_run(); }

/* Two threads' MADV_COLLAPSE of one range at once (race.c). */
GUEST_CASE(collapse_race, race_plan()) { race_run(); }

/* khugepaged and pages referenced through get_user_pages only (referenced.c), tuned as above. */
GUEST_CASE_TIMEOUT(collapse_referenced, referenced_plan(), COLLAPSE_WAIT_S + 60)
{
	struct saved saved;

	tune(&saved);
	referenced_run();
	restore(&saved);
}

/* What a collapse and THP leave in RssAnon, min_free_kbytes, swap and MemFree (accounting.c), tuned as above. */
GUEST_CASE_TIMEOUT(collapse_accounting, accounting_plan(), COLLAPSE_WAIT_S + 60)
{
	struct saved saved;

	tune(&saved);
	accounting_run();
	restore(&saved);
}

/* A uprobe set and cleared on a shmem THP's text (uprobe.c): collapse_pte_mapped_thp(). */
GUEST_CASE(collapse_after_uprobe, uprobe_plan()) { uprobe_run(); }

/* khugepaged's own sysfs files, thread and sleep (controls.c); each row puts back what it set. */
GUEST_CASE(khugepaged_controls, controls_plan()) { controls_run(); }

/* khugepaged's pass (pass.c), started tuned as above; its rows set their own pass. */
GUEST_CASE_TIMEOUT(khugepaged_pass, pass_plan(), 4 * COLLAPSE_WAIT_S + 60)
{
	struct saved saved;

	tune(&saved);
	pass_run();
	restore(&saved);
}

/* The selftest saves, sets and restores khugepaged's settings itself. */
GUEST_CASE_TIMEOUT(selftest, selftest_plan(), SELFTEST_CASE_TIMEOUT_S) { selftest_run(); }

int main(int argc, char **argv)
{
	struct topo_error err;

	if (argc == 2 && !strcmp(argv[1], IDLE_ARG))
		return idle_main();
	if (topo_load(TOPOLOGY_PATH, &topo, &err))
		ktap_skip_all("%s", err.msg);
	if (pmd_size() <= 0)
		ktap_skip_all("the kernel has no transparent huge pages");
	guest_header();
	ktap_diag("PMD %ld bytes, base page %ld bytes", pmd_size(), page_size());
	guest_run();
	ktap_exit();
}
