/*
 * config: the optional /lab/workloads.conf.
 *
 *   reps 3              # timed repetitions per run (default 1)
 *   wss_mb 32           # working set in MiB (default: from the smallest node)
 *   only mcf,gups       # run just these workloads
 *
 * The runner does not write this file; an image built by hand may carry
 * it.  A line that is not understood fails the suite rather than being
 * ignored: a typo must not silently change what was measured.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads.h"

#define MAX_REPS 1000
#define MAX_WSS_MB 65536

static int parse_count(const char *s, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end || *out < 1 || *out > max ? -1 : 0;
}

static int select_only(char *list, const struct workload *const *all, struct config *c,
		       char *why, size_t size)
{
	char *save, *name;

	memset(c->selected, 0, sizeof(c->selected));
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int i = 0; i < NR_WORKLOADS; i++)
			if (!strcmp(all[i]->name, name))
				found = c->selected[i] = 1;
		if (!found) {
			snprintf(why, size, "unknown workload '%s'", name);
			return -1;
		}
	}
	return 0;
}

static int parse_line(char *line, const struct workload *const *all, struct config *c,
		      char *why, size_t size)
{
	char key[32], value[256];
	long n;
	int fields;

	*strchrnul(line, '#') = '\0';
	fields = sscanf(line, "%31s %255s", key, value);
	if (fields <= 0)
		return 0;
	if (fields == 2 && !strcmp(key, "reps") && !parse_count(value, MAX_REPS, &n))
		c->reps = (int)n;
	else if (fields == 2 && !strcmp(key, "wss_mb") && !parse_count(value, MAX_WSS_MB, &n))
		c->wss_bytes = (size_t)n << 20;
	else if (fields == 2 && !strcmp(key, "only"))
		return select_only(value, all, c, why, size);
	else {
		snprintf(why, size, "cannot use '%.100s' (want reps N, wss_mb N or only NAME,NAME)", line);
		return -1;
	}
	return 0;
}

int config_load(const char *path, const struct workload *const *all, struct config *c,
		char *why, size_t size)
{
	char line[512];
	int lineno = 0, rc = 0;
	FILE *f;

	c->reps = 1;
	c->wss_bytes = 0;
	for (int i = 0; i < NR_WORKLOADS; i++)
		c->selected[i] = 1;
	f = fopen(path, "re");
	if (!f && errno == ENOENT)
		return 0;
	if (!f) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		char detail[WHY_MAX];

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		rc = parse_line(line, all, c, detail, sizeof(detail));
		if (rc)
			snprintf(why, size, "%s:%d: %s", path, lineno, detail);
	}
	fclose(f);
	return rc;
}
