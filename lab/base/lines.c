#include "base/lines.h"

#include <stdio.h>
#include <string.h>

#define BLANKS " \t\r"

void lines_init(struct lines *l, const char *path, const char *text, size_t len)
{
	l->path = path;
	l->pos = text;
	l->end = text + len;
	l->nr = 0;
	l->text[0] = '\0';
	l->msg[0] = '\0';
}

int lines_next(struct lines *l, char **line)
{
	while (l->pos < l->end) {
		const char *nl = memchr(l->pos, '\n', (size_t)(l->end - l->pos));
		size_t n = (size_t)((nl ? nl : l->end) - l->pos), len;
		char *start;

		l->nr++;
		if (n > LINES_MAX_LEN) {
			snprintf(l->msg, sizeof(l->msg), "%s:%d: line longer than %d characters; shorten it",
				 l->path, l->nr, LINES_MAX_LEN);
			return -1;
		}
		if (memchr(l->pos, '\0', n)) {
			snprintf(l->msg, sizeof(l->msg), "%s:%d: NUL byte; the file must be text",
				 l->path, l->nr);
			return -1;
		}
		memcpy(l->text, l->pos, n);
		l->text[n] = '\0';
		l->pos = nl ? nl + 1 : l->end;
		l->text[strcspn(l->text, "#")] = '\0';
		start = l->text + strspn(l->text, BLANKS);
		for (len = strlen(start); len && strchr(BLANKS, start[len - 1]); len--)
			start[len - 1] = '\0';
		if (len) {
			*line = start;
			return 1;
		}
	}
	if (!l->nr)
		l->nr = 1;
	return 0;
}

int lines_words(struct lines *l, char *line, char *words[LINES_MAX_WORDS])
{
	int n = 0;

	for (char *w = line + strspn(line, BLANKS); *w; w += strspn(w, BLANKS)) {
		size_t len = strcspn(w, BLANKS);

		if (n == LINES_MAX_WORDS) {
			snprintf(l->msg, sizeof(l->msg), "%s:%d: more than %d words on one line; "
				 "split or shorten it", l->path, l->nr, LINES_MAX_WORDS);
			return -1;
		}
		words[n++] = w;
		w += len;
		if (*w)
			*w++ = '\0';
	}
	return n;
}
