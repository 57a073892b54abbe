/*
 * test_lines: the one line reader (lab/base/lines.h): numbering, the comment
 * and blank rule, the length cap and NUL refused in one message format,
 * words, and text that is neither NUL terminated nor newline terminated.
 */
#include "base/lines.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

UNIT_TEST(lines_numbered_comments_and_blanks_dropped)
{
	static const char text[] = "# head\n\n  a b  # tail\r\n\t\r\nc#d\n   # only\n";
	struct lines l;
	char *line;

	lines_init(&l, "t.txt", text, sizeof(text) - 1);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_STR(line, "a b");
	CHECK_INT(l.nr, 3);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_STR(line, "c");
	CHECK_INT(l.nr, 5);
	CHECK_INT(lines_next(&l, &line), 0);
	CHECK_INT(l.nr, 6);
	CHECK_INT(lines_next(&l, &line), 0);
	CHECK_INT(l.nr, 6);
}

UNIT_TEST(end_without_newline_and_empty_text)
{
	struct lines l;
	char *line, *exact = malloc(5);

	/* Exactly sized, no NUL: ASan catches a read past len. */
	memcpy(exact, "x\ny z", 5);
	lines_init(&l, "t.txt", exact, 5);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_STR(line, "y z");
	CHECK_INT(l.nr, 2);
	CHECK_INT(lines_next(&l, &line), 0);
	CHECK_INT(l.nr, 2);
	free(exact);
	lines_init(&l, "e.txt", "", 0);
	CHECK_INT(lines_next(&l, &line), 0);
	CHECK_INT(l.nr, 1);   /* errors about the whole file name line 1 */
}

UNIT_TEST(overlong_and_nul_refused_with_one_message)
{
	char *text = malloc(LINES_MAX_LEN + 2);
	struct lines l;
	char *line;

	memset(text, 'a', LINES_MAX_LEN + 2);
	text[LINES_MAX_LEN] = '\n';
	lines_init(&l, "t.txt", text, LINES_MAX_LEN + 1);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_INT((int)strlen(line), LINES_MAX_LEN);
	/* A comment counts: the cap is on the line as written. */
	text[LINES_MAX_LEN] = '#';
	lines_init(&l, "t.txt", text, LINES_MAX_LEN + 2);
	CHECK_INT(lines_next(&l, &line), -1);
	CHECK_STR(l.msg, "t.txt:1: line longer than 2047 characters; shorten it");
	free(text);
	lines_init(&l, "n.txt", "ok\n# a\0b\n", 9);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_INT(lines_next(&l, &line), -1);
	CHECK_STR(l.msg, "n.txt:2: NUL byte; the file must be text");
}

UNIT_TEST(words_split_at_blanks_up_to_the_cap)
{
	char text[4 * LINES_MAX_WORDS + 8], *w[LINES_MAX_WORDS], *line;
	struct lines l;
	size_t n = 0;

	lines_init(&l, "w.txt", "key \t v1  v2\r", 13);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_INT(lines_words(&l, line, w), 3);
	CHECK_STR(w[0], "key");
	CHECK_STR(w[2], "v2");
	for (int i = 0; i < LINES_MAX_WORDS; i++)
		n += (size_t)sprintf(text + n, "%d ", i % 10);
	lines_init(&l, "w.txt", text, n);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_INT(lines_words(&l, line, w), LINES_MAX_WORDS);
	n += (size_t)sprintf(text + n, "x");
	lines_init(&l, "w.txt", text, n);
	CHECK_INT(lines_next(&l, &line), 1);
	CHECK_INT(lines_words(&l, line, w), -1);
	CHECK_STR(l.msg, "w.txt:1: more than 64 words on one line; split or shorten it");
}

UNIT_MAIN(UNIT_CASE(lines_numbered_comments_and_blanks_dropped),
	  UNIT_CASE(end_without_newline_and_empty_text),
	  UNIT_CASE(overlong_and_nul_refused_with_one_message),
	  UNIT_CASE(words_split_at_blanks_up_to_the_cap))
