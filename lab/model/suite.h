/*
 * suite: test suites from outside the lab (`numalab run --tests-dir DIR`,
 * docs/byo.md).
 *
 * Every executable regular file of DIR (not hidden, not a sidecar) is one
 * suite, named by its file name.  In the guest it runs like the lab's own
 * tests (images/init/): its own process group, the per-test timeout, its
 * stdout and stderr as its output, nested one level under its result.
 *
 * A sidecar declares its convention, one "KEY VALUE" per line, read by
 * base/lines.h ('#' starts a comment; the VALUE is the rest of the line,
 * blanks inside kept):
 *
 *   format ltp           how its output and exit status read (below)
 *   timeout 600          this suite's timeout in seconds (default: the run's)
 *   skip-code 77         the exit status that means "skipped" (default: the
 *                        format's)
 *   file data/input.bin  a file or directory of DIR the suite needs, put
 *                        next to it (relative, no "..")
 *   env TMPDIR=/tmp      a variable of its environment
 *   tmpdir               a fresh directory on the guest's /tmp tmpfs as
 *                        TMPDIR (and its cwd stays its own directory)
 *
 * DIR/.numalab holds the settings of every suite of DIR; DIR/NAME.numalab
 * those of suite NAME, over the directory's key by key: its format,
 * timeout and skip-code replace the directory's, its env replaces a
 * variable of the same name and adds the others, its files and tmpdir add
 * to the directory's.
 *
 * The formats (the conversion happens in the guest's /init, as the output
 * arrives, so the saved TAP is nested KTAP every reader counts):
 *
 *   tap        (the default; "kselftest" is another name for it) (K)TAP
 *              lines it prints are its results; skip-code 4, kselftest's
 *              KSFT_SKIP
 *   ltp        LTP's TPASS/TFAIL/TBROK/TCONF/TWARN lines are its results
 *              (model/ltp.h); skip-code 32, LTP's TCONF
 *   automake   only the exit status: 77 skip, 99 a hard error (ERROR)
 *   plain      only the exit status; skip-code 4
 *
 * Other lines of its output are diagnostics; with no result of its own,
 * the exit status decides: 0 pass, the skip code skip, anything else fail.
 *
 * Pure but for reading DIR: nothing is copied here (image.c does that).
 */
#ifndef LAB_SUITE_H
#define LAB_SUITE_H

#include <stddef.h>

#include "base/util.h"

#define SUITE_NAME_MAX 64
#define SUITE_SIDECAR_EXT ".numalab"
#define SUITE_DIR_SIDECAR ".numalab"   /* DIR's own: every suite of DIR */
#define SUITE_DEFAULT_SKIP 4           /* format tap's */

enum suite_format {
	SUITE_FORMAT_TAP,
	SUITE_FORMAT_LTP,
	SUITE_FORMAT_AUTOMAKE,
	SUITE_FORMAT_PLAIN,
};

struct suite {
	char name[SUITE_NAME_MAX];
	char dir[4096];            /* the --tests-dir it came from, as given */
	enum suite_format format;
	int timeout_s;             /* 0: the run's per-test timeout */
	int skip_code;             /* 0 while only sidecars are parsed: the format's */
	int tmpdir;
	struct strvec files;       /* relative to dir */
	struct strvec env;         /* NAME=VALUE */
};

struct suite_list {
	struct suite *items;
	size_t nr;
};

/*
 * Parse sidecar text (len bytes) onto s, over what s holds (the directory's
 * settings, as above); path names it in messages.  Returns 0, or -1 with err
 * "PATH:LINE: what is wrong; what to write instead".
 */
int suite_parse_sidecar(const char *path, const char *text, size_t len, struct suite *s,
			struct error *err) LAB_MUST_CHECK;

/*
 * Add DIR's suites to list, sorted by name (strcmp: bytes, not the locale),
 * each with DIR/.numalab and its own sidecar applied and its skip_code
 * resolved.  -1 with err on an unreadable DIR, one without executables, a
 * bad name, a bad sidecar, a declared file that is missing, or a name
 * already in list.
 */
int suite_scan_dir(const char *dir, struct suite_list *list, struct error *err) LAB_MUST_CHECK;

/* The sidecar's settings as the guest reads them (/lab/suites/NAME.conf). */
void suite_guest_conf(const struct suite *s, struct buf *out);

void suite_list_free(struct suite_list *list);

#endif
