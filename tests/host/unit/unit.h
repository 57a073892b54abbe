/*
 * unit.h: the host unit tests' harness.  Each test_*.c defines its cases with
 * UNIT_TEST(name) { ... CHECK(...) ... } and ends with UNIT_MAIN(case, case...).
 * Output is TAP; the exit status is the number of failed cases (capped at 1
 * by run-all's reading, any non-zero fails).
 *
 * Tests run from the project root (paths like "topologies/2node.topo" work).
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failed_checks;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			unit_failed_checks++;                                    \
		}                                                                \
	} while (0)

#define CHECK_STR(got, want)                                                     \
	do {                                                                     \
		const char *g_ = (got), *w_ = (want);                            \
		if (!g_ || !w_ || strcmp(g_, w_)) {                              \
			printf("#   %s:%d: got \"%s\"\n#   want \"%s\"\n", __FILE__, \
			       __LINE__, g_ ? g_ : "(null)", w_ ? w_ : "(null)");  \
			unit_failed_checks++;                                    \
		}                                                                \
	} while (0)

#define CHECK_INT(got, want)                                                     \
	do {                                                                     \
		long long g_ = (long long)(got), w_ = (long long)(want);         \
		if (g_ != w_) {                                                  \
			printf("#   %s:%d: %s = %lld, want %lld\n", __FILE__,        \
			       __LINE__, #got, g_, w_);                          \
			unit_failed_checks++;                                    \
		}                                                                \
	} while (0)

#define UNIT_TEST(name) static void name(void)

struct unit_case {
	const char *name;
	void (*fn)(void);
};

static inline int unit_run(const char *file, const struct unit_case *cases, int n)
{
	int failed = 0;

	printf("# %s\n1..%d\n", file, n);
	for (int i = 0; i < n; i++) {
		int before = unit_failed_checks;

		cases[i].fn();
		if (unit_failed_checks != before)
			failed++;
		printf("%s %d - %s\n", unit_failed_checks != before ? "not ok" : "ok",
		       i + 1, cases[i].name);
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#define UNIT_CASE(fn) { #fn, fn }
#define UNIT_MAIN(...)                                                           \
	int main(void)                                                           \
	{                                                                        \
		static const struct unit_case cases[] = { __VA_ARGS__ };         \
		return unit_run(__FILE__, cases, (int)(sizeof(cases) / sizeof(cases[0]))); \
	}

#endif
