#include "host/mirror.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Does the space-separated list hold word exactly? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t\n");
		if (len == n && !strncmp(p, word, n))
			return 1;
		p += len;
		if (!len)
			break;
	}
	return 0;
}

static void first_word(const char *s, char *out, size_t cap)
{
	s += strspn(s, " \t");
	snprintf(out, cap, "%.*s", (int)strcspn(s, " \t\n"), s);
}

/* One deb822 stanza's fields, already cut at its blank line. */
static int stanza_mirror(const char *types, const char *uris, const char *suites, const char *codename,
			 char *out, size_t cap)
{
	if (!has_word(types, "deb") || !has_word(suites, codename) || !*uris)
		return -1;
	first_word(uris, out, cap);
	return 0;
}

static int deb822_mirror(const char *text, const char *codename, char *out, size_t cap)
{
	char types[256] = "", uris[1024] = "", suites[512] = "";

	for (const char *l = text;; l = next_line(l)) {
		int n = (int)strcspn(l, "\n");

		if (!*l || n == 0 || strspn(l, " \t") == (size_t)n) {
			if (!stanza_mirror(types, uris, suites, codename, out, cap))
				return 0;
			types[0] = uris[0] = suites[0] = '\0';
			if (!*l)
				return -1;
			continue;
		}
		if (!strncasecmp(l, "Types:", 6))
			snprintf(types, sizeof(types), "%.*s", n - 6, l + 6);
		else if (!strncasecmp(l, "URIs:", 5))
			snprintf(uris, sizeof(uris), "%.*s", n - 5, l + 5);
		else if (!strncasecmp(l, "Suites:", 7))
			snprintf(suites, sizeof(suites), "%.*s", n - 7, l + 7);
	}
}

/* `deb [options] URI SUITE COMPONENT...` */
static int one_line_mirror(const char *text, const char *codename, char *out, size_t cap)
{
	for (const char *l = text; *l; l = next_line(l)) {
		char line[1024], *p = line, *uri, *suite;

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		p += strspn(p, " \t");
		if (strncmp(p, "deb", 3) || (p[3] != ' ' && p[3] != '\t'))
			continue;
		p += 3 + strspn(p + 3, " \t");
		if (*p == '[') {
			if (!(p = strchr(p, ']')))
				continue;
			p++;
		}
		uri = strtok(p, " \t");
		suite = strtok(NULL, " \t");
		if (uri && suite && !strcmp(suite, codename)) {
			snprintf(out, cap, "%s", uri);
			return 0;
		}
	}
	return -1;
}

int mirror_from_sources(const char *text, int deb822, const char *codename, char *out, size_t cap)
{
	return deb822 ? deb822_mirror(text, codename, out, cap) : one_line_mirror(text, codename, out, cap);
}

static int sources_name(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 8 && !strcmp(e->d_name + n - 8, ".sources");
}

static void host_codename(char *out, size_t cap)
{
	struct buf b = BUF_INIT;
	struct error err;
	const char *v;

	snprintf(out, cap, "bookworm");   /* the lab's host release, when os-release says nothing */
	if (!read_file("/etc/os-release", &b, &err) && (v = strstr(buf_str(&b), "VERSION_CODENAME=")))
		snprintf(out, cap, "%.*s", (int)strcspn(v + 17, "\n\""), v + 17);
	buf_free(&b);
}

int host_debian_mirror(char *out, size_t cap, struct error *err)
{
	const char *env = getenv("NUMALAB_MIRROR");
	char codename[64];
	struct dirent **names;
	int n, found = -1;

	if (env && *env)
		return snprintf(out, cap, "%s", env), 0;
	host_codename(codename, sizeof(codename));
	n = scandir("/etc/apt/sources.list.d", &names, sources_name, alphasort);
	for (int i = 0; i < n; i++) {
		char *path = xprintf("/etc/apt/sources.list.d/%s", names[i]->d_name);
		struct buf b = BUF_INIT;
		struct error ignored;

		if (found && !read_file(path, &b, &ignored))
			found = mirror_from_sources(buf_str(&b), 1, codename, out, cap);
		buf_free(&b);
		free(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (found) {
		struct buf b = BUF_INIT;
		struct error ignored;

		if (!read_file("/etc/apt/sources.list", &b, &ignored))
			found = mirror_from_sources(buf_str(&b), 0, codename, out, cap);
		buf_free(&b);
	}
	if (found)
		return error_set(err, "no Debian archive for %s in /etc/apt/sources.list.d/*.sources or "
				 "/etc/apt/sources.list; set NUMALAB_MIRROR=URL (e.g. your local mirror)",
				 codename);
	return 0;
}

void host_snapshot_base(char *out, size_t cap)
{
	const char *env = getenv("NUMALAB_SNAPSHOT");
	size_t n;

	snprintf(out, cap, "%s", env && *env ? env : HOST_SNAPSHOT_DEFAULT);
	for (n = strlen(out); n > 0 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
}
