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

#include "base/util.h"
#include "boot/qemucaps.h"

#include <errno.h>
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

/* The whole file at path, NUL terminated (free() it), *len its length; NULL with errno. */
static inline char *unit_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap && !(text = realloc(text, cap = 2 * cap + 4096 + 1)))
			abort();
		size_t got = fread(text + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
	}
	fclose(f);
	text[n] = '\0';
	*len = n;
	return text;
}

/*
 * A fresh directory /tmp/numalab-unit-WHAT.<six random characters> (made by
 * mkdtemp()): free() it, remove_tree() it when the case is done.  No
 * directory is no test: abort().
 */
static inline char *unit_scratch(const char *what)
{
	char *dir = xprintf("/tmp/numalab-unit-%s.XXXXXX", what);

	if (!mkdtemp(dir)) {
		printf("# mkdtemp %s: %s\n", dir, strerror(errno));
		abort();
	}
	return dir;
}

/* DIR/NAME holds text (DIR made as needed); a failure is said, and the case's checks then fail. */
static inline void unit_put(const char *dir, const char *name, const char *text)
{
	struct error err;
	char *path = xprintf("%s/%s", dir, name);

	if (mkdir_p(dir, &err) || write_file_atomic(path, text, strlen(text), &err))
		printf("# setup: %s\n", err.msg);
	free(path);
}

/*
 * The QEMU families the builders are pinned for, as libvirt's
 * DO_TEST_CAPS_VER: the replies each QEMU gave qemu_caps_probe(), recorded
 * in UNIT_QEMU_FAMILIES/ARCH-VERSION.replies (copied from the lab cache's
 * qemu-caps/ after a probe; see that folder's README).  UNIT_QEMU_FAMILY is
 * the one goldens of other specs (disks, shares, host nodes) are built for.
 */
#define UNIT_QEMU_FAMILIES "tests/host/unit/qemucaps"
#define UNIT_QEMU_FAMILY "x86_64-7.2"

/* caps from family's recorded replies; the case fails when there are none. */
static inline void unit_qemu_caps(const char *family, struct qemu_caps *caps)
{
	char *path = xprintf("%s/%s.replies", UNIT_QEMU_FAMILIES, family);
	struct buf replies = BUF_INIT;
	struct error err;

	memset(caps, 0, sizeof(*caps));
	if (read_file(path, &replies, &err)) {
		printf("#   %s\n", err.msg);
		CHECK(0);
	} else {
		qemu_caps_parse(buf_str(&replies), caps);
		CHECK(caps->version[0] != '\0');
	}
	buf_free(&replies);
	free(path);
}

/*
 * Golden files, as libvirt's virTestCompareToFile: got (len bytes of text)
 * must equal the file at golden; the first differing line is printed and
 * the case fails.  With UPDATE_GOLDEN=1 in the environment the file is
 * (re)written instead, through golden.tmp and rename: review the diff
 * before committing it.
 */
static inline void unit_golden(const char *golden, const char *got, size_t len)
{
	const char *update = getenv("UPDATE_GOLDEN");
	char *want;
	const char *g = got, *w, *g_end = got + len, *w_end;
	size_t want_len;
	int line = 1;

	if (update && !strcmp(update, "1")) {
		char tmp[4200];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", golden);
		f = fopen(tmp, "wb");
		if (!f || fwrite(got, 1, len, f) != len || fclose(f) || rename(tmp, golden)) {
			printf("#   cannot write %s: %s\n", golden, strerror(errno));
			CHECK(0);
		} else {
			printf("# wrote %s\n", golden);
		}
		return;
	}
	if (!(want = unit_slurp(golden, &want_len))) {
		printf("#   %s: no golden file (%s); UPDATE_GOLDEN=1 %s writes it: review it\n", golden,
		       strerror(errno), program_invocation_name);
		CHECK(0);
		return;
	}
	w = want;
	w_end = want + want_len;
	while (g < g_end || w < w_end) {
		const char *gn = memchr(g, '\n', (size_t)(g_end - g)), *wn = memchr(w, '\n', (size_t)(w_end - w));
		size_t gl = gn ? (size_t)(gn - g) : (size_t)(g_end - g), wl = wn ? (size_t)(wn - w) : (size_t)(w_end - w);

		if (gl != wl || memcmp(g, w, gl) || (g < g_end) != (w < w_end) || !gn != !wn) {
			printf("#   %s:%d: first difference\n#     got  %s%.*s%s\n#     want %s%.*s%s\n", golden,
			       line, g < g_end ? "" : "(end of output)", (int)gl, g, gn ? "" : " (no newline)",
			       w < w_end ? "" : "(end of file)", (int)wl, w, wn ? "" : " (no newline)");
			CHECK(0);
			break;
		}
		g += gl + (gn != NULL);
		w += wl + (wn != NULL);
		line++;
	}
	free(want);
}

struct unit_case {
	const char *name;
	void (*fn)(void);
};

/* argv's words joined by one space, to compare a built command line; argv is cleared, the string is the caller's. */
static inline char *unit_argv_joined(struct strvec *argv)
{
	struct buf b = BUF_INIT;
	char *s;

	for (size_t i = 0; i < argv->nr; i++)
		buf_addf(&b, "%s%s", i ? " " : "", argv->items[i]);
	s = xstrdup(buf_str(&b));
	buf_free(&b);
	strvec_clear(argv);
	return s;
}

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
