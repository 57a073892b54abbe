#include "model/diskdesc.h"
#include "base/lines.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Debian package and suite names: [a-z0-9.+-], starting alphanumeric. */
static int debian_name(const char *s, size_t cap)
{
	if (!isalnum((unsigned char)*s) || strlen(s) >= cap)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr(".+-", *s))
			return 0;
	return 1;
}

/* "2G", "512M", "1024K", "4096": bytes, 0 if malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 10);
	int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : -1;

	if (end == s || !isdigit((unsigned char)*s) || shift < 0 || n > (1ull << 44) >> shift)
		return 0;
	return (uint64_t)n << shift;
}

static int parse_line(const char *path, int line, char **tok, int n, struct disk_desc *d,
		      struct error *err)
{
	const char *key = tok[0];

	if (!strcmp(key, "packages")) {
		if (n < 2)
			return error_input(err, "%s:%d: packages takes one or more package names", path, line);
		for (int i = 1; i < n; i++) {
			if (!debian_name(tok[i], sizeof(d->packages[0])))
				return error_input(err, "%s:%d: '%s' is not a Debian package name ([a-z0-9.+-])",
						   path, line, tok[i]);
			if (d->nr_packages == DISKDESC_MAX_PACKAGES)
				return error_input(err, "%s:%d: more than %d packages", path, line,
						   DISKDESC_MAX_PACKAGES);
			snprintf(d->packages[d->nr_packages++], sizeof(d->packages[0]), "%s", tok[i]);
		}
		return 0;
	}
	if (n != 2)
		return error_input(err, "%s:%d: %s takes one value", path, line, key);
	if (!strcmp(key, "suite")) {
		if (!debian_name(tok[1], sizeof(d->suite)))
			return error_input(err, "%s:%d: suite '%s' is not a Debian suite name (bookworm, trixie, ...)",
					   path, line, tok[1]);
		snprintf(d->suite, sizeof(d->suite), "%s", tok[1]);
	} else if (!strcmp(key, "mirror")) {
		if ((strncmp(tok[1], "http://", 7) && strncmp(tok[1], "https://", 8) &&
		     strncmp(tok[1], "file:///", 8)) || strlen(tok[1]) >= sizeof(d->mirror))
			return error_input(err, "%s:%d: mirror must be an http://, https:// or file:/// URL "
					   "shorter than %zu characters", path, line, sizeof(d->mirror));
		snprintf(d->mirror, sizeof(d->mirror), "%s", tok[1]);
	} else if (!strcmp(key, "variant")) {
		if (strcmp(tok[1], "minbase") && strcmp(tok[1], "buildd") && strcmp(tok[1], "-"))
			return error_input(err, "%s:%d: variant is minbase, buildd or - (debootstrap's default)",
					   path, line);
		snprintf(d->variant, sizeof(d->variant), "%s", tok[1]);
	} else if (!strcmp(key, "size")) {
		d->size_bytes = parse_size(tok[1]);
		if (d->size_bytes < (64ull << 20))
			return error_input(err, "%s:%d: size '%s' must be N, NK, NM or NG, at least 64M",
					   path, line, tok[1]);
	} else {
		return error_input(err, "%s:%d: unknown key '%s'; use suite, mirror, variant, packages or size",
				   path, line, key);
	}
	return 0;
}

int diskdesc_parse(const char *path, const char *text, size_t len, struct disk_desc *d,
		   struct error *err)
{
	const char *slash = strrchr(path, '/'), *dot;
	struct lines l;
	char *line, *tok[LINES_MAX_WORDS];
	int rc, nt = 0;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->name, sizeof(d->name), "%s", slash ? slash + 1 : path);
	if ((dot = strrchr(d->name, '.')))
		d->name[dot - d->name] = '\0';
	snprintf(d->variant, sizeof(d->variant), "minbase");
	lines_init(&l, path, text, len);
	while ((rc = lines_next(&l, &line)) > 0 && (nt = lines_words(&l, line, tok)) > 0)
		if (parse_line(path, l.nr, tok, nt, d, err))
			return -1;
	if (rc < 0 || nt < 0)
		return error_input(err, "%s", l.msg);
	if (!d->suite[0])
		return error_input(err, "%s: no suite line; add e.g. `suite bookworm`", path);
	if (!d->size_bytes)
		return error_input(err, "%s: no size line; add e.g. `size 2G`", path);
	return 0;
}

int diskdesc_load(const char *root, const char *spec, struct disk_desc *d, struct error *err)
{
	struct buf text = BUF_INIT;
	char *path = strchr(spec, '/') ? xstrdup(spec) : xprintf("%s/%s/%s.image", root, DISKDESC_DIR, spec);
	int rc;

	if (!strchr(spec, '/') && !file_exists(path))
		rc = error_input(err, "unknown image '%s': no %s; the images are %s/*.image", spec, path,
			         DISKDESC_DIR);
	else
		rc = read_file(path, &text, err) || diskdesc_parse(path, buf_str(&text), text.len, d, err);
	buf_free(&text);
	free(path);
	return rc ? -1 : 0;
}
