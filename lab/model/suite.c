#include "model/suite.h"
#include "base/lines.h"
#include "model/ltp.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The guest's rule for test names (images/init/ valid_test_name). */
static int valid_name(const char *name)
{
	if (!*name || name[0] == '.' || strlen(name) >= SUITE_NAME_MAX)
		return 0;
	for (const char *c = name; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.'))
			return 0;
	return 1;
}

/* A relative path inside the suite's directory: no "/..", no leading '/', printable. */
static int valid_rel_path(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			return 0;
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return 0;
	return 1;
}

static int valid_env(const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv || isdigit((unsigned char)kv[0]))
		return 0;
	for (const char *c = kv; c < eq; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_'))
			return 0;
	for (const char *c = eq; *c; c++)
		if ((unsigned char)*c < ' ' && *c != '\t')
			return 0;
	return 1;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static const struct {
	const char *name;
	enum suite_format format;
	int skip_code;
} formats[] = {
	{ "tap", SUITE_FORMAT_TAP, SUITE_DEFAULT_SKIP },
	{ "kselftest", SUITE_FORMAT_TAP, SUITE_DEFAULT_SKIP },
	{ "ltp", SUITE_FORMAT_LTP, LTP_SKIP_CODE },
	{ "automake", SUITE_FORMAT_AUTOMAKE, 77 },
	{ "plain", SUITE_FORMAT_PLAIN, SUITE_DEFAULT_SKIP },
};
#define NR_FORMATS (sizeof(formats) / sizeof(formats[0]))

/* The format's first entry: its canonical name and its skip code. */
static size_t format_entry(enum suite_format f)
{
	size_t i = 0;

	while (i + 1 < NR_FORMATS && formats[i].format != f)
		i++;
	return i;
}

/* env NAME=VALUE over what s has: a variable of the same name is replaced. */
static void set_env(struct suite *s, const char *kv)
{
	size_t name_len = (size_t)(strchr(kv, '=') - kv) + 1;

	for (size_t i = 0; i < s->env.nr; i++)
		if (!strncmp(s->env.items[i], kv, name_len)) {
			free(s->env.items[i]);
			s->env.items[i] = xstrdup(kv);
			return;
		}
	strvec_push(&s->env, kv);
}

static int sidecar_line(const char *path, int lineno, char *line, struct suite *s, struct error *err)
{
	char *key = line, *value = line + strcspn(line, " \t");

	/* lines.h took the blanks around the line: the value runs to its end, blanks inside kept. */
	if (*value)
		*value++ = '\0';
	value += strspn(value, " \t");
	if (!strcmp(key, "format")) {
		size_t i = 0;

		while (i < NR_FORMATS && strcmp(value, formats[i].name))
			i++;
		if (i == NR_FORMATS)
			return error_input(err, "%s:%d: format '%s': use tap, kselftest, ltp, automake or plain",
					   path, lineno, value);
		s->format = formats[i].format;
	} else if (!strcmp(key, "timeout")) {
		if (parse_int(value, 1, 86400, &s->timeout_s))
			return error_input(err, "%s:%d: timeout '%s': give seconds, 1..86400", path, lineno, value);
	} else if (!strcmp(key, "skip-code")) {
		if (parse_int(value, 1, 255, &s->skip_code))
			return error_input(err, "%s:%d: skip-code '%s': give an exit status, 1..255", path, lineno,
					   value);
	} else if (!strcmp(key, "file")) {
		if (!valid_rel_path(value))
			return error_input(err, "%s:%d: file '%s': give a path relative to the suite's directory, without '..'",
					   path, lineno, value);
		for (size_t i = 0; i < s->files.nr; i++)
			if (!strcmp(s->files.items[i], value))
				return 0;   /* the directory's sidecar has it already */
		strvec_push(&s->files, value);
	} else if (!strcmp(key, "env")) {
		if (!valid_env(value))
			return error_input(err, "%s:%d: env '%s': give NAME=VALUE (NAME of letters, digits, '_')",
					   path, lineno, value);
		set_env(s, value);
	} else if (!strcmp(key, "tmpdir")) {
		if (*value)
			return error_input(err, "%s:%d: tmpdir takes no value", path, lineno);
		s->tmpdir = 1;
	} else {
		return error_input(err, "%s:%d: unknown key '%s'; use format, timeout, skip-code, file, env or tmpdir",
				   path, lineno, key);
	}
	return 0;
}

int suite_parse_sidecar(const char *path, const char *text, size_t len, struct suite *s,
			struct error *err)
{
	struct lines l;
	char *line;
	int rc;

	lines_init(&l, path, text, len);
	while ((rc = lines_next(&l, &line)) > 0)
		if (sidecar_line(path, l.nr, line, s, err))
			return -1;
	return rc < 0 ? error_input(err, "%s", l.msg) : 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The executables of dir, sorted; -1 when dir cannot be read. */
static int list_executables(const char *dir, struct strvec *names, struct error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return error_input(err, "--tests-dir %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char *path = xprintf("%s/%s", dir, e->d_name);
		struct stat st;

		if (e->d_name[0] != '.' && !has_suffix(e->d_name, SUITE_SIDECAR_EXT) && !stat(path, &st) &&
		    S_ISREG(st.st_mode) && (st.st_mode & 0111))
			strvec_push(names, e->d_name);
		free(path);
	}
	closedir(d);
	if (names->nr)
		qsort(names->items, names->nr, sizeof(names->items[0]), compare_names);
	return 0;
}

/*
 * The sidecar at path, if there is one, onto s; then the files it declared
 * (those after the first `known` of s->files) must exist in dir.
 */
static int load_sidecar(const char *path, const char *dir, struct suite *s, struct error *err)
{
	struct buf text = BUF_INIT;
	size_t known = s->files.nr;
	int rc = 0;

	if (file_exists(path))
		rc = read_file(path, &text, err) || suite_parse_sidecar(path, text.data ? text.data : "", text.len, s, err);
	for (size_t i = known; !rc && i < s->files.nr; i++) {
		char *f = xprintf("%s/%s", dir, s->files.items[i]);

		if (!file_exists(f))
			rc = error_input(err, "%s: file %s: no %s", path, s->files.items[i], f);
		free(f);
	}
	buf_free(&text);
	return rc ? -1 : 0;
}

static void copy_strvec(struct strvec *to, const struct strvec *from)
{
	*to = (struct strvec)STRVEC_INIT;
	for (size_t i = 0; i < from->nr; i++)
		strvec_push(to, from->items[i]);
}

/* Suite NAME of dir: the directory's settings, then its own sidecar's. */
static int add_suite(const char *dir, const char *name, const struct suite *dir_conf, struct suite_list *list,
		     struct error *err)
{
	struct suite *s;
	char *path;
	int rc;

	list->items = xrealloc(list->items, (list->nr + 1) * sizeof(*list->items));
	s = &list->items[list->nr++];
	*s = *dir_conf;
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	copy_strvec(&s->files, &dir_conf->files);
	copy_strvec(&s->env, &dir_conf->env);
	path = xprintf("%s/%s%s", dir, name, SUITE_SIDECAR_EXT);
	rc = load_sidecar(path, dir, s, err);
	free(path);
	if (!s->skip_code)
		s->skip_code = formats[format_entry(s->format)].skip_code;
	return rc;
}

int suite_scan_dir(const char *dir, struct suite_list *list, struct error *err)
{
	struct strvec names = STRVEC_INIT;
	struct suite dir_conf = { .files = STRVEC_INIT, .env = STRVEC_INIT };
	char *dir_sidecar = xprintf("%s/%s", dir, SUITE_DIR_SIDECAR);
	int rc = list_executables(dir, &names, err);

	if (!rc && !names.nr)
		rc = error_input(err, "--tests-dir %s: no executable file in it; each executable is one suite "
			         "(chmod +x it)", dir);
	if (!rc)
		rc = load_sidecar(dir_sidecar, dir, &dir_conf, err);
	for (size_t i = 0; i < names.nr && !rc; i++) {
		if (!valid_name(names.items[i])) {
			rc = error_input(err, "--tests-dir %s: suite name '%s': use letters, digits, '-', '_', '.' "
				         "(at most %d), not starting with '.'; rename the file", dir, names.items[i],
				         SUITE_NAME_MAX - 1);
			break;
		}
		for (size_t j = 0; j < list->nr; j++)
			if (!strcmp(list->items[j].name, names.items[i]))
				rc = error_input(err, "--tests-dir %s: suite '%s' is also in %s; suite names must be unique",
					         dir, names.items[i], list->items[j].dir);
		if (!rc)
			rc = add_suite(dir, names.items[i], &dir_conf, list, err);
	}
	strvec_clear(&dir_conf.files);
	strvec_clear(&dir_conf.env);
	free(dir_sidecar);
	strvec_clear(&names);
	return rc;
}

void suite_guest_conf(const struct suite *s, struct buf *out)
{
	buf_addf(out, "format %s\nskip-code %d\n", formats[format_entry(s->format)].name, s->skip_code);
	if (s->tmpdir)
		buf_addstr(out, "tmpdir\n");
	for (size_t i = 0; i < s->env.nr; i++)
		buf_addf(out, "env %s\n", s->env.items[i]);
}

void suite_list_free(struct suite_list *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		strvec_clear(&list->items[i].files);
		strvec_clear(&list->items[i].env);
	}
	free(list->items);
	list->items = NULL;
	list->nr = 0;
}
