/*
 * Two threads of one process MADV_COLLAPSE the same PMD range at once.
 *
 * madvise(2): MADV_COLLAPSE is a "best-effort synchronous collapse", and
 * EAGAIN means "a kernel resource was temporarily unavailable".  A range a
 * concurrent collapse has just made a THP is a collapsed range: the kernel
 * counts SCAN_PMD_MAPPED as a success, and for a race with another
 * collapser it answers EAGAIN, "an errno that is non-intrinsic to that
 * memory" (0f3e2a2c4243, the commit that chose EAGAIN for it), never
 * EINVAL, which says the range or the call is wrong.
 *
 * RACE_TRIALS times (pmd_rounds(): 25 on la-2node's 32 MB PMD): a fresh PMD
 * range written as base pages, two threads spinning until both are ready,
 * then each MADV_COLLAPSE of the whole range.
 * Each call must answer 0 or EAGAIN, and the range must end a THP (after one
 * more collapse_range() if both said EAGAIN) with every page's contents.
 * The loser of the race usually finds the PMD a THP while it still holds
 * the PTE table it scanned, in collapse_huge_page()'s check under the mmap
 * write lock.  Kills mm/khugepaged.c:check_pmd_still_valid's `return
 * result` -> `(result) - 1` (0f8f3c3e5f92: SCAN_PMD_MAPPED read as
 * SCAN_NO_PTE_TABLE, so the loser's MADV_COLLAPSE fails with EINVAL).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "khugepaged.h"
#include "ktap.h"

#define RACE_TRIALS 100

/* One trial's shared state: the range, the start line, each thread's answer. */
struct race {
	char *huge;
	size_t pmd;
	atomic_int ready, go;
	int err[2];
};

struct racer {
	struct race *race;
	int id;
};

static void *racer_collapse(void *arg)
{
	struct racer *r = arg;
	struct race *race = r->race;

	atomic_fetch_add(&race->ready, 1);
	while (!atomic_load(&race->go))
		;
	race->err[r->id] = madvise(race->huge, race->pmd, MADV_COLLAPSE) ? errno : 0;
	return NULL;
}

/* One trial on a fresh range: 1 if both answers were 0 or EAGAIN and the range ends a whole THP. */
static int race_once(size_t pmd, int *both_collapsed)
{
	size_t nr = pmd / (size_t)page_size();
	struct race race = { .pmd = pmd };
	struct racer racers[2] = { { &race, 0 }, { &race, 1 } };
	pthread_t threads[2];
	char *map;
	int started = 0, ok = 0;

	if (!(race.huge = pmd_range_map(pmd, &map))) {
		ktap_diag("mmap: %s", strerror(errno));
		return 0;
	}
	/* Base pages (THP always would fault a THP), then a range MADV_COLLAPSE may take. */
	if (madvise(map, 2 * pmd, MADV_NOHUGEPAGE))
		ktap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
	for (size_t i = 0; i < nr; i++)
		pmd_range_fill_page(race.huge, i);
	if (madvise(map, 2 * pmd, MADV_HUGEPAGE))
		ktap_diag("MADV_HUGEPAGE: %s", strerror(errno));
	for (; started < 2; started++)
		if (pthread_create(&threads[started], NULL, racer_collapse, &racers[started])) {
			ktap_diag("pthread_create failed");
			break;
		}
	while (started == 2 && atomic_load(&race.ready) < 2)
		;
	atomic_store(&race.go, 1);
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (started == 2) {
		*both_collapsed += !race.err[0] && !race.err[1];
		for (int i = 0; i < 2; i++)
			if (race.err[i] && race.err[i] != EAGAIN)
				ktap_diag("thread %d: MADV_COLLAPSE: %s", i, strerror(race.err[i]));
		ok = (!race.err[0] || race.err[0] == EAGAIN) && (!race.err[1] || race.err[1] == EAGAIN);
		if (ok && race.err[0] && race.err[1] && collapse_range(race.huge, pmd))
			ktap_diag("MADV_COLLAPSE after two EAGAINs: %s", strerror(errno));
		if (ok && (smaps_anon_huge(race.huge) != (long long)pmd || !pmd_range_intact(race.huge, pmd, nr))) {
			ktap_diag("the range is not one THP holding its pages' contents (AnonHugePages %lld)",
				  smaps_anon_huge(race.huge));
			ok = 0;
		}
	}
	munmap(map, 2 * pmd);
	return ok;
}

int race_plan(void)
{
	return 1;
}

void race_run(void)
{
	const char *row = "two threads MADV_COLLAPSE the same range at once: each gets 0 or EAGAIN, the range one THP";
	size_t pmd = (size_t)pmd_size();
	int trials = 0, both_collapsed = 0, want = pmd_rounds(RACE_TRIALS);

	while (trials < want && race_once(pmd, &both_collapsed))
		trials++;
	ktap_diag("%d of %d trials as madvise(2) says; in %d both threads got 0", trials, want, both_collapsed);
	ktap_ok(trials == want, "%s", row);
}
