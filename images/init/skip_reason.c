/* skip_reason: why a test skips, from a line of its output (init.h). */
#include <stdio.h>
#include <string.h>

#include "init.h"

/*
 * Where the reason starts in line, or NULL: after LTP's "TCONF" tag and its
 * ':' ("file.c:NN: TCONF: reason", the old API's "name 1 TCONF : reason"),
 * after "# SKIP" (kselftest's "ok N name # SKIP reason", "1..0 # SKIP
 * reason", "# SKIP reason"), or after a leading "SKIP:", "SKIP " or "[SKIP]"
 * (kselftest scripts).
 */
static const char *skip_text(const char *line)
{
	const char *s = line;

	while ((s = strstr(s, "TCONF"))) {
		const char *colon = s + 5 + strspn(s + 5, " ");

		if ((s == line || s[-1] == ' ') && *colon == ':')
			return colon + 1;
		s += 5;
	}
	if ((s = strstr(line, "# SKIP")))
		return s + 6;
	s = line + strspn(line, " \t#");
	if (!strncmp(s, "[SKIP]", 6))
		return s + 6;
	if (!strncmp(s, "SKIP", 4) && (s[4] == ':' || s[4] == ' '))
		return s + 5;
	return NULL;
}

int skip_reason(const char *line, char *reason, size_t cap)
{
	const char *why = skip_text(line);

	if (!why)
		return 0;
	why += strspn(why, " \t:");
	if (!*why)
		return 0;
	snprintf(reason, cap, "%s", why);
	return 1;
}
