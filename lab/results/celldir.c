#include "results/celldir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The value of "key: value" in text, into out ("" if absent). */
static void key_value(const char *text, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);

	out[0] = '\0';
	for (const char *l = text; *l; l = next_line(l))
		if (!strncmp(l, key, klen) && l[klen] == ':' && l[klen + 1] == ' ') {
			snprintf(out, cap, "%.*s", (int)strcspn(l + klen + 2, "\n"), l + klen + 2);
			return;
		}
}

/* The first subdirectory of dir into out; 0 if there is one. */
static int first_subdir(const char *dir, char *out, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = -1;

	while (d && found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(out, cap, "%s/%s", dir, e->d_name);
		if (is_dir(out))
			found = 0;
	}
	if (d)
		closedir(d);
	return found;
}

/* The run directory under dir whose state is complete, else any run directory, into c. */
static void find_run(const char *dir, struct celldir *c)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && !c->finished && (e = readdir(d))) {
		char run[4096], state_path[4200], state[32];
		struct buf b = BUF_INIT;
		struct error ignored;

		snprintf(run, sizeof(run), "%s/%s", dir, e->d_name);
		snprintf(state_path, sizeof(state_path), "%s/state", run);
		if (e->d_name[0] == '.' || !is_dir(run) || read_file(state_path, &b, &ignored)) {
			buf_free(&b);
			continue;
		}
		snprintf(state, sizeof(state), "%.*s", (int)strcspn(buf_str(&b), "\n"), buf_str(&b));
		buf_free(&b);
		c->finished = !strcmp(state, "complete");
		if ((c->finished || !c->run_cell[0]) && first_subdir(run, c->run_cell, sizeof(c->run_cell)))
			c->run_cell[0] = '\0';
	}
	if (d)
		closedir(d);
}

static void read_exit(const char *dir, struct celldir *c)
{
	char path[4200], v[64];
	struct buf b = BUF_INIT;
	struct error ignored;

	snprintf(path, sizeof(path), "%s/exit", dir);
	if (!read_file(path, &b, &ignored)) {
		key_value(buf_str(&b), "exit", v, sizeof(v));
		c->exit_code = *v ? atoi(v) : -1;
		key_value(buf_str(&b), "time_s", v, sizeof(v));
		c->time_s = *v ? strtod(v, NULL) : -1;
		key_value(buf_str(&b), "watchdog", v, sizeof(v));
		c->watchdog = !strcmp(v, "yes");
		key_value(buf_str(&b), "interrupted", v, sizeof(v));
		c->interrupted = !strcmp(v, "yes");
	}
	buf_free(&b);
}

static void read_last_log_line(const char *dir, struct celldir *c)
{
	char path[4200];
	struct buf b = BUF_INIT;
	struct error ignored;
	char *s, *nl;

	snprintf(path, sizeof(path), "%s/log", dir);
	if (!read_file(path, &b, &ignored) && b.len) {
		s = b.data;
		while (b.len && (s[b.len - 1] == '\n' || s[b.len - 1] == '\r'))
			s[--b.len] = '\0';
		nl = strrchr(s, '\n');
		snprintf(c->last_log, sizeof(c->last_log), "%s", nl ? nl + 1 : s);
	}
	buf_free(&b);
}

void celldir_load(const char *dir, struct celldir *c)
{
	char path[4200];
	struct buf meta = BUF_INIT;
	struct error ignored;

	memset(c, 0, sizeof(*c));
	c->exit_code = -1;
	c->time_s = -1;
	if (!(c->exists = is_dir(dir)))
		return;
	find_run(dir, c);
	read_exit(dir, c);
	read_last_log_line(dir, c);
	if (!c->run_cell[0])
		return;
	snprintf(path, sizeof(path), "%s/meta", c->run_cell);
	if (!read_file(path, &meta, &ignored))
		key_value(buf_str(&meta), "end", c->end, sizeof(c->end));
	buf_free(&meta);
	snprintf(path, sizeof(path), "%s/tap", c->run_cell);
	if (read_file(path, &c->tap, &ignored))
		c->tap.len = 0;
}

void celldir_free(struct celldir *c)
{
	buf_free(&c->tap);
}

int celldir_set_aside(const char *out, const char *id, char *moved_to, size_t cap,
		      struct error *err)
{
	char from[4096], partial[4096];

	snprintf(from, sizeof(from), "%s/cells/%s", out, id);
	snprintf(partial, sizeof(partial), "%s/partial", out);
	if (mkdir_p(partial, err))
		return -1;
	for (int n = 1; n < 1000; n++) {
		snprintf(moved_to, cap, "%s/%s.%d", partial, id, n);
		if (file_exists(moved_to))
			continue;
		if (rename(from, moved_to))
			return error_set(err, "cannot move %s to %s: %s", from, moved_to, strerror(errno));
		return 0;
	}
	return error_set(err, "%s: 999 partial attempts of %s already; remove some", partial, id);
}

int celldir_write_exit(const char *dir, int code, double time_s, int watchdog, int interrupted,
		       struct error *err)
{
	char path[4200], text[160];
	int len = snprintf(text, sizeof(text), "exit: %d\ntime_s: %.1f\nwatchdog: %s\ninterrupted: %s\n",
			   code, time_s, watchdog ? "yes" : "no", interrupted ? "yes" : "no");

	snprintf(path, sizeof(path), "%s/exit", dir);
	return write_file_atomic(path, text, (size_t)len, err);
}
