#include "model/kselftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int kselftest_plan(const char *script, struct buf *out)
{
	int nr = 0;

	for (const char *l = script; *l; l = next_line(l)) {
		size_t n = strcspn(l, "\n");
		const char *p = skip_blanks(l), *q, *cmd;
		char line[1024];
		size_t cat_len;

		if (strncmp(p, "CATEGORY=\"", 10))
			continue;
		p += 10;
		cat_len = strcspn(p, "\"\n");
		if (p[cat_len] != '"')
			continue;
		q = skip_blanks(p + cat_len + 1);
		if (strncmp(q, "run_test ", 9))
			continue;
		cmd = skip_blanks(q + 9);
		snprintf(line, sizeof(line), "%.*s", (int)(l + n - cmd), cmd);
		/* The one variable that only names a binary. */
		if (!strncmp(line, "${uffd_stress_bin}", 18)) {
			/* In place: the binary's name is shorter than the variable. */
			memmove(line + 13, line + 18, strlen(line + 18) + 1);
			memcpy(line, "./uffd-stress", 13);
		}
		buf_addf(out, "%.*s\t%s\n", (int)cat_len, p, line);
		nr++;
	}
	return nr;
}

/* "make: *** [../lib.mk:222: /out/NAME] Error 1" → NAME. */
static int failed_target(const char *l, size_t n, char *name, size_t cap)
{
	const char *stars = strstr(l, "*** ["), *end, *slash;

	if (!stars || stars > l + n || strncmp(l, "make", 4))
		return 0;
	end = memchr(stars, ']', (size_t)(l + n - stars));
	if (!end)
		return 0;
	for (slash = end; slash > stars && slash[-1] != '/' && slash[-1] != ' ' && slash[-1] != ':'; slash--)
		;
	snprintf(name, cap, "%.*s", (int)(end - slash), slash);
	return 1;
}

/* An error line without the build directory in front of its file name. */
static void keep_why(char *why, size_t cap, const char *l, size_t n)
{
	size_t colon = strcspn(l, ": \n");
	const char *start = l;

	for (const char *c = l; c < l + colon && c < l + n; c++)
		if (*c == '/')
			start = c + 1;
	snprintf(why, cap, "%.*s", (int)(l + n - start), start);
}

int kselftest_build_failures(const char *log, struct buf *out)
{
	char why[400] = "", name[256];
	int nr = 0;

	for (const char *l = log; *l; l = next_line(l)) {
		size_t n = strcspn(l, "\n");

		if (failed_target(l, n, name, sizeof(name))) {
			/* A target already reported (make's summary repeats it) is not counted twice. */
			char *seen = xprintf("\n%s\t", name);
			int dup = out->len && (!strncmp(buf_str(out), seen + 1, strlen(seen + 1)) ||
					       strstr(buf_str(out), seen));

			free(seen);
			if (!dup) {
				buf_addf(out, "%s\t%s\n", name, why[0] ? why : "(no error line in the log)");
				nr++;
			}
			why[0] = '\0';
		} else if (!strncmp(l, "collect2:", 9)) {
			continue;   /* "ld returned 1 exit status": the line before says why */
		} else if ((strstr(l, "error:") && strstr(l, "error:") < l + n) ||
			   (strstr(l, "cannot find -l") && strstr(l, "cannot find -l") < l + n) ||
			   (strstr(l, "undefined reference") && strstr(l, "undefined reference") < l + n)) {
			keep_why(why, sizeof(why), l, n);
		}
	}
	return nr;
}
