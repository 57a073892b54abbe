/*
 * kselftest-mm: the kernel's own tools/testing/selftests/mm, built by the
 * lab from the same tree as the kernel (lab/model/kselftest.h), run as
 * run_vmtests.sh would, grouped by its categories (`-t`).
 *
 * One KTAP result per category, in the script's order; inside it one result
 * per test line of run_vmtests.sh, and inside that the test's own output
 * (stdout and stderr, as the selftests print TAP to stdout and reasons to
 * either).  A test passes with exit 0, is a SKIP with exit 4 (KSFT_SKIP,
 * with the last line that says why), fails otherwise or on its timeout.
 *
 * What does not fit is a SKIP naming why: the category needs a kernel
 * option the kernel lacks (read from the shipped kernel.config), more NUMA
 * nodes than the shape has, or a module (the lab's kernels have none); the
 * test is a shell script or needs run_vmtests.sh's shell state; its binary
 * did not build for this arch (with the compiler's reason).  Tests are not
 * started when the suite's own timeout (from /lab/plan) is nearly used up.
 *
 * Kernel command line (numalab run --append):
 *   numalab.kselftest_mm=CAT,CAT   only these categories (default: all)
 *   numalab.kselftest_mm_timeout=S each test's timeout (default 180 s)
 *
 * Fails on a wrong kernel: the one-line mutant
 * tests/host/integration/full/mutants/mlock2-onfault-ignored.patch (mlock2()
 * drops MLOCK_ONFAULT) fails mlock/mlock2-tests (kselftest-mm.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "harness.h"

#define DIR_MM "/lab/kselftest/mm"
#define PLAN_FILE DIR_MM "/vmtests.plan"
#define FAILURES_FILE DIR_MM "/build-failures"
#define CONFIG_FILE DIR_MM "/kernel.config"
#define SUITE_NAME "kselftest-mm"
#define MAX_TESTS 160
#define MAX_CATS 64
#define DEFAULT_TEST_TIMEOUT_S 180
#define SUITE_MARGIN_S 20

struct vmtest {
	char category[64];
	char cmd[512];
};

static long meminfo_kb(const char *key);

static struct vmtest tests[MAX_TESTS];
static int nr_tests;
static char *failures, *config;
static time_t deadline;
static int test_timeout_s = DEFAULT_TEST_TIMEOUT_S, suite_timeout_s;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0, n;
	char chunk[4096];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		text = realloc(text, len + n + 1);
		if (!text)
			exit(KSFT_FAIL);
		memcpy(text + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!text)
		text = calloc(1, 1);
	else
		text[len] = '\0';
	return text;
}

static void read_plan(void)
{
	char *text = slurp(PLAN_FILE);

	if (!text)
		ktap_skip_all("no %s: only kernels the lab builds from source carry their selftests "
			      "(kernels/recipes, --kernel DIR)", PLAN_FILE);
	for (char *l = strtok(text, "\n"); l && nr_tests < MAX_TESTS; l = strtok(NULL, "\n")) {
		char *tab = strchr(l, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		snprintf(tests[nr_tests].category, sizeof(tests[nr_tests].category), "%s", l);
		snprintf(tests[nr_tests].cmd, sizeof(tests[nr_tests].cmd), "%s", tab + 1);
		nr_tests++;
	}
	free(text);
}

/* CONFIG_name=y in the kernel's config. */
static int config_on(const char *name)
{
	char want[128];

	snprintf(want, sizeof(want), "\n%s=y\n", name);
	return config && strstr(config, want) != NULL;
}

/* "numalab.KEY=VALUE" from the kernel command line into value; 0 if absent. */
static int cmdline_value(const char *key, char *value, size_t cap)
{
	char line[4096], want[96];
	const char *p;

	if (sys_read("/proc/cmdline", line, sizeof(line)))
		return 0;
	snprintf(want, sizeof(want), "numalab.%s=", key);
	for (p = strstr(line, want); p && p != line && p[-1] != ' '; p = strstr(p + 1, want))
		;
	if (!p)
		return 0;
	p += strlen(want);
	snprintf(value, cap, "%.*s", (int)strcspn(p, " "), p);
	return 1;
}

static int category_wanted(const char *cat)
{
	static char list[1024];
	static int have = -1;
	size_t n = strlen(cat);

	if (have < 0)
		have = cmdline_value("kselftest_mm", list, sizeof(list));
	if (!have)
		return 1;
	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, cat, n))
			return 1;
	return 0;
}

/* This suite's timeout, as /init enforces it ("NAME SECONDS" lines of /lab/plan). */
static int own_timeout(void)
{
	char *text = slurp("/lab/plan");
	int t = 0;

	for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		char name[64];
		int s;

		if (sscanf(l, "%63s %d", name, &s) == 2 && !strcmp(name, SUITE_NAME))
			t = s;
	}
	free(text);
	return t;
}

static int nr_online_nodes(void)
{
	int nodes[64], nr = 0;

	return node_list("online", nodes, 64, &nr) ? 1 : nr;
}

/*
 * Why a whole category cannot run here, or NULL.  The options are what
 * run_vmtests.sh's tests need to do more than skip; modules: the lab's
 * kernels are built without module support.
 */
static const char *category_unfit(const char *cat, char *why, size_t cap)
{
	static const struct { const char *cat, *option; } needs[] = {
		{ "hugetlb", "CONFIG_HUGETLBFS" }, { "userfaultfd", "CONFIG_USERFAULTFD" },
		{ "ksm", "CONFIG_KSM" }, { "ksm_numa", "CONFIG_KSM" }, { "thp", "CONFIG_TRANSPARENT_HUGEPAGE" },
		{ "migration", "CONFIG_MIGRATION" }, { "gup_test", "CONFIG_GUP_TEST" },
		{ "compaction", "CONFIG_COMPACTION" }, { "memfd_secret", "CONFIG_SECRETMEM" },
		{ "soft_dirty", "CONFIG_MEM_SOFT_DIRTY" }, { "memory-failure", "CONFIG_MEMORY_FAILURE" },
		{ "pkey", "CONFIG_ARCH_HAS_PKEYS" }, { "cow", "CONFIG_TRANSPARENT_HUGEPAGE" },
		{ "hmm", "CONFIG_TEST_HMM" }, { "vmalloc", "CONFIG_TEST_VMALLOC" },
		{ "page_frag", "CONFIG_MODULES" }, { "process_mrelease", "CONFIG_MMU" },
	};
	static const char *const numa[] = { "migration", "ksm_numa", NULL };

	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!strcmp(cat, needs[i].cat) && !config_on(needs[i].option)) {
			snprintf(why, cap, "the kernel has no %s", needs[i].option);
			return why;
		}
	for (int i = 0; numa[i]; i++)
		if (!strcmp(cat, numa[i]) && nr_online_nodes() < 2) {
			snprintf(why, cap, "needs 2 NUMA nodes, the shape has %d", nr_online_nodes());
			return why;
		}
	if (!category_wanted(cat)) {
		snprintf(why, cap, "not chosen (numalab.kselftest_mm= on the kernel command line)");
		return why;
	}
	return NULL;
}

/*
 * Single tests that need more than their category: a kernel option, or
 * memory (mremap_test maps 2 GiB regions, which a smaller guest refuses).
 */
static const char *program_unfit(const char *name, char *why, size_t cap)
{
	static const struct { const char *name, *option; long min_mib; } needs[] = {
		{ "hugetlb-soft-offline", "CONFIG_MEMORY_FAILURE", 0 },
		{ "hugetlb-read-hwpoison", "CONFIG_MEMORY_FAILURE", 0 },
		{ "map_populate", "CONFIG_UNIX", 0 },   /* socketpair(AF_UNIX) */
		{ "mremap_test", NULL, 3072 },
	};

	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
		if (strcmp(name, needs[i].name))
			continue;
		if (needs[i].option && !config_on(needs[i].option)) {
			snprintf(why, cap, "the kernel has no %s", needs[i].option);
			return why;
		}
		if (needs[i].min_mib && meminfo_kb("MemTotal:") / 1024 < needs[i].min_mib) {
			snprintf(why, cap, "needs %ld MiB of memory, the guest has %ld", needs[i].min_mib,
				 meminfo_kb("MemTotal:") / 1024);
			return why;
		}
	}
	return NULL;
}

/* Why this test line cannot run as a plain program here, or NULL; bin gets its program's path. */
static const char *test_unfit(const char *cmd, char *bin, size_t bcap, char *why, size_t cap)
{
	const char *f;
	char name[128];
	size_t n;

	if (strncmp(cmd, "./", 2) || strchr(cmd, '$') || cmd[strlen(cmd) - 1] == '\\') {
		snprintf(why, cap, "needs run_vmtests.sh's shell (%s)", cmd);
		return why;
	}
	n = strcspn(cmd + 2, " ");
	snprintf(name, sizeof(name), "%.*s", (int)n, cmd + 2);
	snprintf(bin, bcap, "%s/%s", DIR_MM, name);
	if (n > 3 && !strcmp(name + n - 3, ".sh")) {
		snprintf(why, cap, "a shell script (%s): needs bash and the script's tools", name);
		return why;
	}
	if (!access(bin, X_OK))
		return program_unfit(name, why, cap);
	if (failures) {
		char want[160];

		snprintf(want, sizeof(want), "%s\t", name);
		for (f = failures; f && *f; f = strchr(f, '\n') ? strchr(f, '\n') + 1 : NULL)
			if (!strncmp(f, want, strlen(want))) {
				snprintf(why, cap, "did not build for this arch: %.*s", (int)strcspn(f + strlen(want), "\n"),
					 f + strlen(want));
				return why;
			}
	}
	snprintf(why, cap, "%s is not built for this arch (its Makefile leaves it out)", name);
	return why;
}

/* Split cmd at blanks into argv (in place). */
static int split_argv(char *cmd, char **argv, int max)
{
	int n = 0;

	for (char *t = strtok(cmd, " "); t && n < max - 1; t = strtok(NULL, " "))
		argv[n++] = t;
	argv[n] = NULL;
	return n;
}

/* A test's child and its output: argv run in DIR_MM; the last line that says it skipped. */
struct test_child {
	const char *bin;
	char **argv;
	char *last_skip;
	size_t cap;
};

static void exec_in_dir(void *ctx)
{
	const struct test_child *t = ctx;

	if (!chdir(DIR_MM))
		execv(t->bin, t->argv);
}

/* Each line of the test's output, 8 spaces in (depth 2). */
static void relay_line(void *ctx, char *line)
{
	struct test_child *t = ctx;

	printf("        %s\n", line);
	fflush(stdout);
	if (strstr(line, "SKIP") || strstr(line, "skip"))
		snprintf(t->last_skip, t->cap, "%.200s", line);
}

/* Run the test, its output relayed, until it exits or times out: its wait status, -1 not run. */
static int run_one(const char *bin, const char *cmd, char *last_skip, size_t cap, int *timed_out)
{
	char copy[512], *argv[32];
	struct test_child t = { bin, argv, last_skip, cap };
	struct child_spec spec = { .in_child = exec_in_dir, .ctx = &t, .line = relay_line, .with_stderr = 1 };
	int timeout = test_timeout_s, status;
	enum child_end end;

	if (time(NULL) + timeout > deadline)
		timeout = (int)(deadline - time(NULL));
	spec.timeout_s = timeout > 0 ? (unsigned)timeout : 0;
	snprintf(copy, sizeof(copy), "%s", cmd);
	split_argv(copy, argv, 32);
	end = child_deadline(&spec, &status);
	*timed_out = end == CHILD_TIMED_OUT;
	return end == CHILD_NOT_RUN ? -1 : status;
}

/* A /proc/meminfo value in kB; 0 if absent. */
static long meminfo_kb(const char *key)
{
	char *text = slurp("/proc/meminfo"), *p = text ? strstr(text, key) : NULL;
	long v = p ? atol(p + strlen(key)) : 0;

	free(text);
	return v;
}

/*
 * Huge pages for the hugetlb tests, as run_vmtests.sh reserves them (up to
 * 64, at most a quarter of the guest's memory: 32 MiB pages on LoongArch);
 * the count before is restored after.
 */
static long reserve_hugepages(void)
{
	long hp = meminfo_kb("Hugepagesize:"), want = 64, got = 0;
	char v[32];

	if (hp > 0 && want > meminfo_kb("MemTotal:") / 4 / hp)
		want = meminfo_kb("MemTotal:") / 4 / hp;
	if (want < 1)
		return 0;

	snprintf(v, sizeof(v), "%ld", want);
	if (sys_write("/proc/sys/vm/nr_hugepages", v) || sys_read_long("/proc/sys/vm/nr_hugepages", &got))
		return 0;
	return got;
}

static int run_category(const char *cat, int first)
{
	int idx[MAX_TESTS], n = 0, failed = 0, skipped = 0, ran = 0;
	char why[512], reason[512] = "", bin[256];
	long huge = 0, huge_before = 0;
	const char *unfit = category_unfit(cat, why, sizeof(why));

	for (int i = first; i < nr_tests; i++)
		if (!strcmp(tests[i].category, cat))
			idx[n++] = i;
	if (unfit) {
		ktap_skip(cat, "%s", unfit);
		return 0;
	}
	if (!strcmp(cat, "hugetlb")) {
		sys_read_long("/proc/sys/vm/nr_hugepages", &huge_before);
		if (!(huge = reserve_hugepages())) {
			ktap_skip(cat, "no huge page could be reserved (/proc/sys/vm/nr_hugepages)");
			return 0;
		}
	}
	printf("    # Subtest: %s\n    KTAP version 1\n    1..%d\n", cat, n);
	if (huge)
		printf("    # %ld huge pages reserved\n", huge);
	fflush(stdout);
	for (int k = 0; k < n; k++) {
		const char *cmd = tests[idx[k]].cmd;
		char skip_line[256] = "";
		int status, timed_out;

		if ((unfit = test_unfit(cmd, bin, sizeof(bin), why, sizeof(why)))) {
			printf("    ok %d %s # SKIP %s\n", k + 1, cmd, unfit);
			skipped++;
			if (!reason[0])
				snprintf(reason, sizeof(reason), "%s", unfit);
			continue;
		}
		if (time(NULL) + 10 > deadline) {
			printf("    ok %d %s # SKIP not started: the suite's %d s are nearly used up "
			       "(raise --timeout or pick categories with numalab.kselftest_mm=)\n",
			       k + 1, cmd, suite_timeout_s);
			skipped++;
			snprintf(reason, sizeof(reason), "the suite's time ran out");
			continue;
		}
		printf("        # Subtest: %s\n", cmd);
		fflush(stdout);
		status = run_one(bin, cmd, skip_line, sizeof(skip_line), &timed_out);
		ran++;
		if (timed_out) {
			printf("    not ok %d %s # TIMEOUT %d s\n", k + 1, cmd, test_timeout_s);
			failed++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("    ok %d %s\n", k + 1, cmd);
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP) {
			printf("    ok %d %s # SKIP %s\n", k + 1, cmd,
			       skip_line[0] ? skip_line : "exit status 4 (KSFT_SKIP)");
			skipped++;
			if (!reason[0])
				snprintf(reason, sizeof(reason), "%s: %s", cmd, skip_line[0] ? skip_line : "exit 4");
		} else {
			printf("    not ok %d %s\n    # %s %d\n", k + 1, cmd,
			       WIFSIGNALED(status) ? "killed by signal" : "exit status",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			failed++;
		}
		fflush(stdout);
	}
	if (huge) {
		char v[32];

		snprintf(v, sizeof(v), "%ld", huge_before);
		sys_write("/proc/sys/vm/nr_hugepages", v);
	}
	if (!failed && skipped == n) {
		ktap_skip(cat, "every test skipped (%s)", reason);
		return 0;
	}
	ktap_ok(!failed, "%s (%d run, %d failed, %d skipped)", cat, ran, failed, skipped);
	return 1;
}

/* shm_open() (rmap's migrate.shm) needs a tmpfs on /dev/shm; mounted unless the guest has one. */
static void shm_mounted(void)
{
	struct stat dev, shm;

	mkdir("/dev/shm", 01777);
	if (!stat("/dev", &dev) && !stat("/dev/shm", &shm) && dev.st_dev == shm.st_dev)
		mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
}

/* One case per category (harness.h), made at run time from the script. */
static int one_result(void)
{
	return 1;
}

static void run_category_case(const struct guest_case *self)
{
	run_category(self->name, *(const int *)self->data);
}

int main(void)
{
	static struct guest_case cases[MAX_CATS];
	static int firsts[MAX_CATS];
	const char *cats[MAX_CATS];
	int nr_cats = 0;
	char v[32];

	read_plan();
	failures = slurp(FAILURES_FILE);
	config = slurp(CONFIG_FILE);
	if (config) {   /* config_on() looks for "\nCONFIG_X=y\n" */
		char *c = malloc(strlen(config) + 3);

		if (!c)
			return KSFT_FAIL;
		sprintf(c, "\n%s\n", config);
		free(config);
		config = c;
	}
	if (cmdline_value("kselftest_mm_timeout", v, sizeof(v)) && atoi(v) > 0)
		test_timeout_s = atoi(v);
	suite_timeout_s = own_timeout();
	deadline = time(NULL) + (suite_timeout_s > 2 * SUITE_MARGIN_S ? suite_timeout_s - SUITE_MARGIN_S : 3600);
	/* The selftests want these, as run_vmtests.sh's environment has them. */
	mkdir("/tmp", 01777);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	shm_mounted();
	for (int i = 0; i < nr_tests; i++) {
		int seen = 0;

		for (int c = 0; c < nr_cats; c++)
			seen |= !strcmp(cats[c], tests[i].category);
		if (!seen && nr_cats < MAX_CATS)
			cats[nr_cats++] = tests[i].category;
	}
	/* The deadline bounds each category's tests; the case's timeout is the suite's. */
	for (int c = 0; c < nr_cats; c++) {
		while (strcmp(tests[firsts[c]].category, cats[c]))
			firsts[c]++;
		cases[c] = (struct guest_case){ .name = cats[c], .plan = one_result, .run = run_category_case,
						.timeout_s = suite_timeout_s > 0 ? (unsigned)suite_timeout_s : 3600,
						.data = &firsts[c] };
		guest_case_register(&cases[c]);
	}
	guest_header();
	ktap_diag("%d tests of run_vmtests.sh in %d categories; each test's timeout %d s, the suite's %d s",
		  nr_tests, nr_cats, test_timeout_s, suite_timeout_s);
	guest_run();
	ktap_exit();
}
