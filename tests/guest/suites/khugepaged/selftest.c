/*
 * The kernel's own khugepaged selftest, as a nested KTAP subtest.
 *
 * The selftest prints "# Run test: DESC (CONTEXT:MEMORY)" per case, then
 * steps that end in OK, Fail or Skip (in ANSI colours), and a "1..N" plan;
 * its exit status is not per case.  Each case becomes one nested result: not
 * ok if a step failed, SKIP (with the step's text) if one was skipped.  A
 * case that needs swap fails in a guest without swap: that is reported as a
 * SKIP with the reason, and so is a case where the program bails out unable
 * to allocate (collapse_compound_extreme wants 2048 PMD THPs in turn: 64 GiB
 * on 32M PMDs).
 *
 * The selftest runs once per context (groups[] below), so a program that
 * gives up ("Bail out!" outside a case's child) costs at most the rest of
 * that context.  When a
 * run stops before its plan, it is run again from the start and the cases
 * after the one it stopped at are taken from the new run, as long as each
 * new run gets further (a bail out that comes from the guest's state, like
 * the 64 GiB above, repeats: then the rest are SKIPs naming where it stopped).
 * It runs SCHED_FIFO on one CPU with khugepaged moved there, so khugepaged
 * works only while the selftest waits for it (run_on_cpu_fifo() says why).
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "khugepaged.h"
#include "ktap.h"
#include "swap.h"

#define MAX_CASES 128

/*
 * The selftest's arguments: one run per context, for anonymous memory (its
 * default set) and shmem (collapse_file(), retract_page_tables(): the half
 * of khugepaged.c anonymous memory never reaches).  Not its file contexts:
 * they need a filesystem with CONFIG_READ_ONLY_THP_FOR_FS under a path, and
 * the guest's root is the initramfs.
 */
static const char *const groups[] = { "khugepaged:anon", "madvise:anon", "khugepaged:shmem", "madvise:shmem" };
#define NR_GROUPS (sizeof(groups) / sizeof(groups[0]))
_Static_assert(NR_GROUPS == SELFTEST_GROUPS, "SELFTEST_GROUPS counts groups[]");

/* The guest's memory pressure, read from /proc/vmstat. */
struct pressure {
	long reclaim_scanned;      /* pgscan_kswapd + pgscan_direct */
	long thp_split;            /* thp_split_page */
	long collapse_alloc_failed; /* thp_collapse_alloc_failed */
};

static void pressure_read(struct pressure *p)
{
	p->reclaim_scanned = vmstat("pgscan_kswapd") + vmstat("pgscan_direct");
	p->thp_split = vmstat("thp_split_page");
	p->collapse_alloc_failed = vmstat("thp_collapse_alloc_failed");
}

/* p, read at a case's start, becomes the growth since. */
static void pressure_since(struct pressure *p)
{
	struct pressure now;

	pressure_read(&now);
	p->reclaim_scanned = now.reclaim_scanned - p->reclaim_scanned;
	p->thp_split = now.thp_split - p->thp_split;
	p->collapse_alloc_failed = now.collapse_alloc_failed - p->collapse_alloc_failed;
}

struct st_case {
	char name[160];
	char why[160];             /* the failing or skipped step */
	int failed, skipped;
	int out_of_memory;         /* it bailed out failing to allocate: the guest is too small */
	struct pressure pressure;  /* at its start; once it failed, the growth since */
};

struct st_run {
	struct st_case cases[MAX_CASES];
	int nr, planned;
	char step[160];            /* the current step's message */
	char last_line[160];
};

/* What is reported: each group's cases, from its first run and its reruns. */
struct st_report {
	struct st_case cases[MAX_CASES];
	int nr;
	int expected;              /* cases the groups planned */
	int missing;               /* of those, never reached */
	int runs;
};

/* Drop ANSI colour sequences and trailing blanks in place. */
static void plain(char *s)
{
	char *out = s;

	for (char *in = s; *in; in++) {
		if (*in == '\033') {
			while (*in && *in != 'm')
				in++;
			if (!*in)
				break;
			continue;
		}
		if (*in != '\r')
			*out++ = *in;
	}
	while (out > s && (out[-1] == ' ' || out[-1] == '\n'))
		out--;
	*out = '\0';
}

static int ends_with(const char *s, const char *word)
{
	size_t n = strlen(s), w = strlen(word);

	return n >= w && !strcmp(s + n - w, word) && (n == w || s[n - w - 1] == ' ' || s[n - w - 1] == '.');
}

static void parse_line(struct st_run *r, char *line)
{
	struct st_case *c = r->nr ? &r->cases[r->nr - 1] : NULL;
	const char *run = strstr(line, "Run test: ");
	int n;

	plain(line);
	if (*line)
		snprintf(r->last_line, sizeof(r->last_line), "%.159s", line);
	if (sscanf(line, "1..%d", &n) == 1) {
		r->planned = n;
	} else if (run && r->nr < MAX_CASES) {
		c = &r->cases[r->nr++];
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%.159s", run + 10);
		pressure_read(&c->pressure);
	} else if (c && !strncmp(line, "Bail out! ", 10) && !c->failed) {
		/* The program gives up here: the case failed, and nothing after it runs. */
		c->failed = 1;
		c->out_of_memory = strstr(line, "allocate") != NULL;
		snprintf(c->why, sizeof(c->why), "%.159s", line);
		pressure_since(&c->pressure);
	} else if (c && ends_with(line, "Fail") && !c->failed) {
		c->failed = 1;
		snprintf(c->why, sizeof(c->why), "%.159s", line);
		pressure_since(&c->pressure);
	} else if (c && ends_with(line, "Skip") && !c->failed && !c->skipped) {
		c->skipped = 1;
		snprintf(c->why, sizeof(c->why), "%.159s", line);
	}
}

/*
 * khugepaged collapses only while the selftest waits for it: the selftest
 * assumes so.  collapse_max_ptes_shared (khugepaged context) CoWs its 256th
 * of 512 pages, reads smaps twice to see the range is not huge, and only
 * then waits for khugepaged; khugepaged, rescanning every 10 ms with
 * MADV_HUGEPAGE already set, rightly collapses at 256 shared PTEs
 * (max_ptes_shared) inside that window when smaps reads are slow (KASAN
 * under TCG), and the selftest bails out "Unexpected huge page".  So the
 * selftest runs SCHED_FIFO on one CPU and khugepaged is moved to that CPU:
 * khugepaged then runs only while the selftest sleeps (usleep() in its
 * wait_for_scan(), wait() for its children), as on the quiet machine the
 * selftest was written for.  khugepaged's own CPUs are put back after each
 * run (the madvise cases set THP "never", which stops the thread; the one
 * started after it has its default CPUs).
 */
#define SELFTEST_CPU 0
#define SELFTEST_CPU_PRIO 1

struct khugepaged_pin {
	pid_t pid;                 /* 0: not found */
	cpu_set_t saved;
	int pinned;
};

/* The kernel thread (the selftest's own processes are called khugepaged too): no cmdline. */
static pid_t khugepaged_pid(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300], comm[32], cmdline[64];
	pid_t pid = 0;

	while (d && !pid && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/comm", e->d_name);
		if (sys_read(path, comm, sizeof(comm)) || strcmp(comm, "khugepaged"))
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/cmdline", e->d_name);
		if (!sys_read(path, cmdline, sizeof(cmdline)) && !cmdline[0])
			pid = (pid_t)atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return pid;
}

static void pin_khugepaged(struct khugepaged_pin *k, int cpu)
{
	cpu_set_t one;

	memset(k, 0, sizeof(*k));
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	k->pid = khugepaged_pid();
	if (!k->pid || sched_getaffinity(k->pid, sizeof(k->saved), &k->saved) ||
	    sched_setaffinity(k->pid, sizeof(one), &one))
		ktap_diag("cannot move khugepaged (pid %d) to CPU %d: %s; the selftest may race it",
			  (int)k->pid, cpu, k->pid ? strerror(errno) : "not found");
	else
		k->pinned = 1;
}

/* A khugepaged that THP "never" stopped meanwhile (ESRCH) took its pinning with it. */
static void unpin_khugepaged(const struct khugepaged_pin *k)
{
	if (k->pinned && sched_setaffinity(k->pid, sizeof(k->saved), &k->saved) && errno != ESRCH)
		ktap_diag("cannot give khugepaged its CPUs back: %s", strerror(errno));
}

/* In the selftest's child, before exec: FIFO on cpu (failures leave it as it was). */
static void run_on_cpu_fifo(int cpu)
{
	struct sched_param sp = { .sched_priority = SELFTEST_CPU_PRIO };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) || sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "khugepaged selftest: cannot run SCHED_FIFO on CPU %d: %s\n", cpu,
			strerror(errno));
}

/* The selftest's child: on its CPU, then the program with group as its argument. */
struct st_child {
	struct st_run *r;
	const char *group;
};

static void exec_selftest(void *ctx)
{
	const struct st_child *c = ctx;
	char *argv[] = { (char *)KSELFTEST, (char *)c->group, NULL };

	run_on_cpu_fifo(SELFTEST_CPU);
	/*
	 * Without address randomization: the selftest maps its ranges at a fixed hint, BASE_ADDR
	 * (1 GiB), and takes another address as a failure ("Failed to allocate VMA at 0x40000000",
	 * "mmap(): ..."), while x86-64 places a process's brk anywhere in the 1 GiB after its bss
	 * (arch_randomize_brk()), so the heap of the static program sometimes sits there: its first
	 * case failed so in about one cell in eight, on 2node and cxl alike.
	 */
	if (personality(ADDR_NO_RANDOMIZE) < 0)
		fprintf(stderr, "khugepaged selftest: cannot turn address randomization off: %s\n", strerror(errno));
	execv(KSELFTEST, argv);
}

static void selftest_line(void *ctx, char *line)
{
	parse_line(((struct st_child *)ctx)->r, line);
}

/* Run the selftest for group, parsing its output as it comes; returns its wait status. */
static int run_selftest(struct st_run *r, const char *group)
{
	struct khugepaged_pin pin;
	struct st_child c = { r, group };
	struct child_spec spec = { .in_child = exec_selftest, .ctx = &c, .timeout_s = SELFTEST_TIMEOUT_S,
				   .line = selftest_line, .with_stderr = 1 };
	enum child_end end;
	int status;

	/*
	 * Hand the selftest as many free huge pages as the guest can: the
	 * previous context leaves page cache and split THPs behind, and
	 * collapse_compound_extreme bails out when it cannot fault a THP (on
	 * the debug kernel's 2node guest, KASAN leaves it just enough memory).
	 */
	sys_write("/proc/sys/vm/drop_caches", "3");
	sys_write("/proc/sys/vm/compact_memory", "1");
	pin_khugepaged(&pin, SELFTEST_CPU);
	end = child_deadline(&spec, &status);
	if (end == CHILD_TIMED_OUT)
		snprintf(r->last_line, sizeof(r->last_line), "timed out after %d s", SELFTEST_TIMEOUT_S);
	unpin_khugepaged(&pin);
	return end == CHILD_NOT_RUN ? -1 : status;
}

/* The run's planned cases (its plan counts one setup step, alloc_at_fault). */
static int planned_cases(const struct st_run *r)
{
	return r->planned > r->nr ? r->planned - 1 : r->nr;
}

/*
 * A khugepaged-context case that failed while the guest was reclaiming.
 * The selftest gives khugepaged two full scans of its (tiny) mm to
 * collapse the range; reclaim's shrinkers hold references on the range's
 * pages meanwhile (the deferred-split shrinker takes one on each folio of
 * its batch), and khugepaged rightly passes over such a range until a later
 * scan (SCAN_PAGE_COUNT).  collapse_compound_extreme (512 partly unmapped
 * PMD THPs) brings the debug kernel's 1 GiB 2node guest into reclaim, and
 * there it failed so in 2 of 6 runs: tracing mm_khugepaged_scan_pmd showed
 * 32 scans in a row stopped at the same page by SCAN_PAGE_COUNT.  Without
 * reclaim during the case, a failure stays a failure.
 */
static int failed_under_reclaim(const struct st_case *c)
{
	return c->failed && strstr(c->name, "(khugepaged:") && c->pressure.reclaim_scanned > 0;
}

static void print_case(int number, const struct st_case *c, int swap)
{
	if (c->failed && c->out_of_memory)
		printf("    ok %d %s # SKIP the guest has too little memory for it (%s)\n", number,
		       c->name, c->why);
	else if (failed_under_reclaim(c))
		printf("    ok %d %s # SKIP the guest was reclaiming memory meanwhile (%ld pages "
		       "scanned, %ld THPs split; %s)\n", number, c->name, c->pressure.reclaim_scanned,
		       c->pressure.thp_split, c->why);
	else if (c->failed && strstr(c->name, "swap") && !swap)
		printf("    ok %d %s # SKIP needs swap, the guest has none (%s)\n", number, c->name, c->why);
	else if (c->failed)
		printf("    not ok %d %s\n    # failed step: %s (meanwhile: %ld pages scanned by "
		       "reclaim, %ld THPs split, %ld collapse allocations failed)\n", number, c->name,
		       c->why, c->pressure.reclaim_scanned, c->pressure.thp_split,
		       c->pressure.collapse_alloc_failed);
	else if (c->skipped)
		printf("    ok %d %s # SKIP %s\n", number, c->name, c->why);
	else
		printf("    ok %d %s\n", number, c->name);
}

static void take_cases(struct st_report *rep, const struct st_run *r, int from)
{
	for (int i = from; i < r->nr && rep->nr < MAX_CASES; i++)
		rep->cases[rep->nr++] = r->cases[i];
}

/*
 * One group: its first run, then reruns while it stops before its plan and
 * each rerun gets further.  Its cases (and SKIPs for the ones never reached)
 * go into rep; returns the first run's wait status.
 */
static int run_group(struct st_report *rep, const char *group)
{
	static struct st_run first, again;
	int status, reached, planned;

	memset(&first, 0, sizeof(first));
	status = run_selftest(&first, group);
	rep->runs++;
	reached = first.nr;
	planned = planned_cases(&first);
	take_cases(rep, &first, 0);
	for (int rerun = 0; reached > 0 && reached < planned && rerun < MAX_RERUNS; rerun++) {
		ktap_diag("selftest %s stopped in case %d of %d (%s) after \"%s\": running it again "
			  "for the cases after it", group, reached, planned, first.cases[reached - 1].name,
			  first.last_line);
		memset(&again, 0, sizeof(again));
		run_selftest(&again, group);
		rep->runs++;
		if (again.nr <= reached) {
			ktap_diag("the rerun stopped in case %d again: the rest cannot run here", again.nr);
			break;
		}
		take_cases(rep, &again, reached);
		reached = again.nr;
		snprintf(first.last_line, sizeof(first.last_line), "%s", again.last_line);
	}
	rep->expected += planned;
	for (int i = reached; i < planned && rep->nr < MAX_CASES; i++) {
		struct st_case *c = &rep->cases[rep->nr++];

		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "case %d (%s)", i + 1, group);
		snprintf(c->why, sizeof(c->why), "not reached: the selftest stopped after \"%.100s\"",
			 first.last_line);
		c->skipped = 1;
		rep->missing++;
	}
	return status;
}

int selftest_plan(void)
{
	return 1;
}

/*
 * The swap cases (collapse_swapin_single_pte, collapse_max_ptes_swap) page a
 * PMD range out with MADV_PAGEOUT: a zram swap area of a few PMDs (swap.h),
 * taken away again after.  1 if swap is on.
 */
static int swap_on(void)
{
	long pmd = pmd_size();
	uint64_t bytes = (uint64_t)(pmd * 4 > (64L << 20) ? pmd * 4 : (64L << 20));
	char why[256];

	if (!swap_zram_on(bytes, why, sizeof(why)))
		return 1;
	ktap_diag("no swap for the selftest's swap cases: %s", why);
	return 0;
}

void selftest_run(void)
{
	static struct st_report rep;
	int failed = 0, swap, status = 0;

	if (access(KSELFTEST, X_OK)) {
		ktap_skip("kernel selftest mm/khugepaged", "not in this image: only kernels built by "
			  "the lab from source carry their selftests (kernels/recipes)");
		return;
	}
	swap = swap_on();
	memset(&rep, 0, sizeof(rep));
	for (size_t g = 0; g < NR_GROUPS; g++) {
		int st = run_group(&rep, groups[g]);

		if (!status)
			status = st;
	}
	swap_zram_off();
	printf("    # Subtest: kernel selftest mm/khugepaged\n    KTAP version 1\n    1..%d\n", rep.nr);
	for (int i = 0; i < rep.nr; i++)
		print_case(i + 1, &rep.cases[i], swap);
	fflush(stdout);
	for (int i = 0; i < rep.nr; i++)
		failed += rep.cases[i].failed && !rep.cases[i].out_of_memory &&
			  !failed_under_reclaim(&rep.cases[i]) &&
			  (swap || !strstr(rep.cases[i].name, "swap"));
	ktap_diag("metric: kselftest_khugepaged.cases_run %d", rep.nr - rep.missing);
	ktap_diag("selftest: %d runs (%zu contexts); first exit status %d%s", rep.runs, NR_GROUPS,
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? " (killed)" : "");
	ktap_ok(!failed && rep.nr > rep.missing, "kernel selftest mm/khugepaged (%d cases run, %d failed)",
		rep.nr - rep.missing, failed);
}
