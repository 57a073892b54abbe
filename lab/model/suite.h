/*
 * suite: test suites from outside the lab (`numalab run --tests-dir DIR`,
 * docs/byo.md).
 *
 * Every executable regular file of DIR (not hidden, not a sidecar) is one
 * suite, named by its file name.  In the guest it runs like the lab's own
 * tests (images/init/): its own process group, the per-test timeout, its
 * stdout and stderr as its output, TAP/KTAP it prints nested one level, and
 * else its exit status decides (0 pass, 4 skip as kselftest's KSFT_SKIP,
 * anything else fail).
 *
 * A sidecar DIR/NAME.numalab may declare another convention, one
 * "KEY VALUE" per line, read by base/lines.h ('#' starts a comment; the
 * VALUE is the rest of the line, blanks inside kept):
 *
 *   timeout 600          this suite's timeout in seconds (default: the run's)
 *   skip-code 77         the exit status that means "skipped" (default 4)
 *   file data/input.bin  a file or directory of DIR the suite needs, put
 *                        next to it (relative, no "..")
 *   env TMPDIR=/tmp      a variable of its environment
 *   tmpdir               a fresh directory on the guest's /tmp tmpfs as
 *                        TMPDIR (and its cwd stays its own directory)
 *
 * Pure but for reading DIR: nothing is copied here (image.c does that).
 */
#ifndef LAB_SUITE_H
#define LAB_SUITE_H

#include <stddef.h>

#include "base/util.h"

#define SUITE_NAME_MAX 64
#define SUITE_SIDECAR_EXT ".numalab"
#define SUITE_DEFAULT_SKIP 4

struct suite {
	char name[SUITE_NAME_MAX];
	char dir[4096];            /* the --tests-dir it came from, as given */
	int timeout_s;             /* 0: the run's per-test timeout */
	int skip_code;
	int tmpdir;
	struct strvec files;       /* relative to dir */
	struct strvec env;         /* NAME=VALUE */
};

struct suite_list {
	struct suite *items;
	size_t nr;
};

/*
 * Parse sidecar text (len bytes) for s; path names it in messages.  Returns
 * 0, or -1 with err "PATH:LINE: what is wrong; what to write instead".
 */
int suite_parse_sidecar(const char *path, const char *text, size_t len, struct suite *s,
			struct error *err) LAB_MUST_CHECK;

/*
 * Add DIR's suites to list, sorted by name, each with its sidecar applied.
 * -1 with err on an unreadable DIR, one without executables, a bad name, a
 * bad sidecar, a declared file that is missing, or a name already in list.
 */
int suite_scan_dir(const char *dir, struct suite_list *list, struct error *err) LAB_MUST_CHECK;

/* The sidecar's settings as the guest reads them (/lab/suites/NAME.conf). */
void suite_guest_conf(const struct suite *s, struct buf *out);

void suite_list_free(struct suite_list *list);

#endif
