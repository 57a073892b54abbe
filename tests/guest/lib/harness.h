/*
 * harness: guest test cases that register themselves and run one process
 * each, in the spirit of the kernel's kselftest_harness.h.
 *
 *   GUEST_TEST(online_nodes) { ktap_ok(..., "online nodes"); }
 *   GUEST_CASE(node_cpus, topo.nr_nodes) { for each node: ktap_ok(...); }
 *   GUEST_CASE_TIMEOUT(collapse, collapse_plan(&topo), 600) { ... }
 *
 *   int main(void)
 *   {
 *           setup (may ktap_skip_all());
 *           guest_header();         the summed plan: "KTAP version 1", "1..N"
 *           ktap_diag(...);         what the suite says first, if anything
 *           guest_run();            every case, each in its own child
 *           teardown, if any;       the suite's process holds what setup saved
 *           ktap_exit();
 *   }
 *
 * A case is a block of checks printing its results with ktap_ok() and
 * ktap_skip().  GUEST_TEST prints exactly one; GUEST_CASE(name, n) prints n,
 * an expression evaluated by guest_header() after the suite's setup (so it
 * may depend on the guest's shape, e.g. one result per node).  The harness
 * sums the cases' counts into the plan: nobody types a plan number.  Checks
 * that share state (one mapping, one policy, a model carried from one
 * allocation to the next) belong in one case, since each case is a fresh
 * process: state a case builds in memory is gone for the next one, while
 * what it changes in the kernel (sysfs knobs, memory) stays.
 *
 * Cases run in the order they are defined (registration by constructor;
 * across files of one suite, in link order: register a suite's cases in
 * one file when their order matters).  Each runs in a forked child with a
 * timeout (GUEST_TIMEOUT_DEFAULT, or the case's own; the environment's
 * NUMALAB_CASE_TIMEOUT=S, set by /init from numalab.case_timeout=S,
 * overrides every case's).  The child is a process group of its own
 * (child_deadline(), child.h): the timeout kills the whole group, a process
 * the case forked included, and the end of the case kills what it left
 * behind.  /init kills the suite's whole session, so its kill reaches every
 * case's group.  When a case dies early:
 *
 *   not ok N NAME # crashed by signal S        killed by a signal
 *   not ok N NAME # TIMEOUT Ts                 killed after its timeout
 *   not ok N NAME # exited with status S       exit() before its results
 *   not ok N NAME # ended after K of M results returned early
 *
 * for the first result it did not print, and "not ok N NAME (result I of M)
 * # not run" for each further one, so the plan still holds and every other
 * case still runs.  A case that crashes after all its results makes the
 * suite fail (exit status 1) with a diagnostic.
 *
 * numalab.fault=case-segv (images/init/faults.c) reaches the suite as
 * NUMALAB_FAULT=case-segv: the first case of every suite then dies by
 * SIGSEGV instead of running (tests/host/integration/case-crash.sh).
 */
#ifndef NUMALAB_HARNESS_H
#define NUMALAB_HARNESS_H

#include "ktap.h"

/* kselftest's TEST_TIMEOUT_DEFAULT is 30 s on hardware; guests run under TCG. */
#define GUEST_TIMEOUT_DEFAULT 180

struct guest_case {
	const char *name;
	int (*plan)(void);          /* results it prints on this guest */
	void (*run)(const struct guest_case *self);
	unsigned timeout_s;         /* 0: GUEST_TIMEOUT_DEFAULT */
	const void *data;           /* for run(), in cases a suite makes at run time */
	int planned;                /* plan(), from guest_header() */
	struct guest_case *next;
};

/*
 * Append c to the suite's cases.  The GUEST_* macros call it from a
 * constructor; a suite whose cases are only known at run time (one per
 * category of a script) calls it before guest_header(), c living as long.
 */
void guest_case_register(struct guest_case *c);

#define GUEST_CASE_TIMEOUT(case_name, nr_results, seconds)                                      \
	static void guest_case_##case_name##_run(const struct guest_case *);                    \
	static int guest_case_##case_name##_plan(void)                                          \
	{                                                                                       \
		return (nr_results);                                                            \
	}                                                                                       \
	static struct guest_case guest_case_##case_name = {                                     \
		.name = #case_name, .plan = guest_case_##case_name##_plan,                      \
		.run = guest_case_##case_name##_run, .timeout_s = (seconds),                    \
	};                                                                                      \
	__attribute__((constructor)) static void guest_case_##case_name##_register(void)        \
	{                                                                                       \
		guest_case_register(&guest_case_##case_name);                                   \
	}                                                                                       \
	static void guest_case_##case_name##_run(const struct guest_case *self __attribute__((unused)))

#define GUEST_CASE(name, nr_results) GUEST_CASE_TIMEOUT(name, nr_results, GUEST_TIMEOUT_DEFAULT)
#define GUEST_TEST(name) GUEST_CASE(name, 1)

/* Evaluate every case's count and print the plan (ktap_header) of their sum. */
void guest_header(void);
/* Run each case in its own child, in order (the suite calls ktap_exit() after). */
void guest_run(void);

#endif
