/*
 * lines: the one reader of the lab's line-oriented text files: topologies
 * (topology.h), matrices, recipes, image descriptions, suite sidecars and
 * kernels/prebuilt.lock.  Each parser gives its own statements a meaning;
 * what a line is, what a comment is and how long a line may be is said
 * here, once:
 *
 *   - a line ends at '\n' or at the end of the text; the text need not end
 *     in a newline nor be NUL terminated: nothing at or past len is read;
 *   - '#' starts a comment, wherever it stands, to the end of the line;
 *   - blanks (' ', '\t', '\r') before and after a line's content are not
 *     part of it, so CRLF files read like LF files; a line left empty is
 *     skipped, but still counted;
 *   - a line is at most LINES_MAX_LEN bytes, comment and blanks included,
 *     and holds no NUL byte; lines_words() splits one at blanks into at
 *     most LINES_MAX_WORDS words.
 *
 * A line that breaks a rule is refused with "PATH:LINE: what is wrong;
 * what to do" in l->msg: the user's to fix (host parsers hand it on with
 * error_input()).
 *
 * ISO C only, no allocation: the guest's tests link it with topology.c.
 */
#ifndef LAB_LINES_H
#define LAB_LINES_H

#include <stddef.h>

#define LINES_MAX_LEN 2047
#define LINES_MAX_WORDS 64

struct lines {
	const char *path;              /* names the file in messages */
	const char *pos, *end;         /* what is left of the text */
	/*
	 * The number of the line last returned, from 1; once lines_next() has
	 * returned 0, the number of the last line of the text (1 if it has none),
	 * for errors about the file as a whole.
	 */
	int nr;
	char text[LINES_MAX_LEN + 1];  /* the line last returned (lines_words() cuts it) */
	char msg[1024];                /* why lines_next() or lines_words() returned -1 */
};

/* Read text (len bytes) of the file path; path must outlive l. */
void lines_init(struct lines *l, const char *path, const char *text, size_t len);

/*
 * The next line that is not empty once its comment and blanks are gone:
 * 1 with *line pointing at it in l->text (NUL terminated, valid until the
 * next call), 0 at the end of the text, -1 with l->msg when the line is
 * longer than LINES_MAX_LEN or holds a NUL byte.
 */
int lines_next(struct lines *l, char **line);

/*
 * Split line (lines_next()'s, modified in place) at blanks into words[]
 * (room for LINES_MAX_WORDS).  The number of words (at least 1 for a line
 * of lines_next()), or -1 with l->msg when there are more than LINES_MAX_WORDS.
 */
int lines_words(struct lines *l, char *line, char *words[LINES_MAX_WORDS]);

#endif
