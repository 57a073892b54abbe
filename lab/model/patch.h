/*
 * patch: patches as they come from the mailing list, made ready for
 * `patch -p1`, and a failed application explained.
 *
 * A file given to `--patch` (and later `numalab try` / `mutate`) is one of
 *  - `git format-patch` output: one mail starting "From <sha> Mon Sep 17 ...";
 *  - an mbox holding a series (`b4 am` output, or format-patch files
 *    concatenated): messages split at lines starting "From ", in order;
 *  - a mail whose patch is quoted in a reply ("> ", ">> ", "> > " ...): the
 *    lines at the quote depth where the diff starts are the patch, so
 *    reviewer comments between its lines (a shallower depth) drop out;
 *  - the lab's seed form: the subject on the first line, no headers;
 *  - a plain unified diff.
 *
 * patch_parse() gives every message holding a diff as one patch, in order;
 * messages without one (a cover letter, a comment-only reply) are left out.
 * Its subject is the Subject header (or the first line of a headerless
 * mail) without "Re:" and "[PATCH v2 1/3]" tags; a "Subject:" line in the
 * body before the diff (akpm's mm-commits mails, git am's in-body headers)
 * takes precedence.  The diff is read by its grammar: file headers, then
 * hunks of exactly the line counts their "@@" header says; it ends at the
 * first line that is neither (a "-- " signature, akpm's "_", prose).  A hunk
 * cut short (a reply that trims the quote) is an error naming the file and
 * the hunk: half a patch is never applied.  A quoted empty context line
 * (">>" trimmed of its trailing blank) is restored as " ".
 *
 * Everything here is pure (no I/O): callers read the file and write the
 * diff where `patch` can read it.
 */
#ifndef LAB_PATCH_H
#define LAB_PATCH_H

#include <stddef.h>
#include "base/util.h"

#define PATCH_SUBJECT_MAX 256

struct patch_hunk {
	char header[200];        /* its "@@ -a,b +c,d @@ context" line */
	int number;              /* 1-based within its file, as `patch` counts "Hunk #N" */
	int old_start;
};

struct patch_file {
	char path[256];          /* as patched, without the a/ b/ prefix */
	int nr_hunks;
	struct patch_hunk *hunks;
};

struct patch {
	char subject[PATCH_SUBJECT_MAX];
	int line;                /* where its message starts in the file, 1-based */
	int quote_depth;         /* 0: not quoted */
	struct buf diff;         /* the unquoted diff, '\n'-terminated lines */
	char sha256[65];         /* of diff */
	int nr_files;
	struct patch_file *files;
};

struct patch_set {
	int nr;
	struct patch *items;
};

/*
 * Split text (len bytes from the file path, named in messages) into the
 * patches it holds.  Returns 0 with set->nr >= 1, or -1 with err:
 * "PATH: no patch in it ..." or "PATH:LINE: hunk N of FILE is cut short ...".
 * set is empty (and needs no freeing) on error.
 */
int patch_parse(const char *path, const char *text, size_t len, struct patch_set *set,
		struct error *err) LAB_MUST_CHECK;

void patch_set_free(struct patch_set *set);

/*
 * GNU patch's output for p (a dry run that failed) as one phrase naming each
 * failed file and hunk with its "@@" header, e.g. "mm/khugepaged.c hunk #2
 * (@@ -1066,6 +1067,7 @@ static void collapse_huge_page(...)) FAILED at 1066".
 * p may be NULL (only what patch said).  Pure.
 */
void patch_explain_failure(const struct patch *p, const char *patch_output, char *out,
			   size_t cap);

#endif
