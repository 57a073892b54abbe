#include "results/celldir.h"
#include "results/meta.h"
#include "results/results.h"

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

/* The first subdirectory of dir into out; 0 if there is one. */
static int first_subdir(const char *dir, char *out, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = -1;

	while (d && found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* A path that does not fit is none this caller can use. */
		if (snprintf(out, cap, "%s/%s", dir, e->d_name) < (int)cap && is_dir(out))
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
		char run[4096], state[32];
		struct error ignored;

		snprintf(run, sizeof(run), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || !is_dir(run) || run_state_get(run, state, sizeof(state), &ignored))
			continue;
		c->finished = !strcmp(state, RUN_STATE_COMPLETE);
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

	snprintf(path, sizeof(path), "%s/" CELL_EXIT_FILE, dir);
	if (!read_file(path, &b, &ignored)) {
		meta_copy(buf_str(&b), CELL_EXIT_CODE, v, sizeof(v));
		c->exit_code = *v ? atoi(v) : -1;
		meta_copy(buf_str(&b), CELL_EXIT_TIME, v, sizeof(v));
		c->time_s = *v ? strtod(v, NULL) : -1;
		meta_copy(buf_str(&b), CELL_EXIT_WATCHDOG, v, sizeof(v));
		c->watchdog = !strcmp(v, "yes");
		meta_copy(buf_str(&b), CELL_EXIT_INTERRUPTED, v, sizeof(v));
		c->interrupted = !strcmp(v, "yes");
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
	snprintf(path, sizeof(path), "%s/" CELL_LOG_FILE, dir);
	file_last_line(path, c->last_log, sizeof(c->last_log));
	if (!c->run_cell[0])
		return;
	if (!meta_read(c->run_cell, &meta, &ignored))
		meta_copy(buf_str(&meta), META_END, c->end, sizeof(c->end));
	buf_free(&meta);
	snprintf(path, sizeof(path), "%s/" RESULTS_TAP_FILE, c->run_cell);
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
	char path[4200];
	struct buf text = BUF_INIT;
	int rc;

	meta_add(&text, CELL_EXIT_CODE, "%d", code);
	meta_add(&text, CELL_EXIT_TIME, "%.1f", time_s);
	meta_add(&text, CELL_EXIT_WATCHDOG, "%s", watchdog ? "yes" : "no");
	meta_add(&text, CELL_EXIT_INTERRUPTED, "%s", interrupted ? "yes" : "no");
	snprintf(path, sizeof(path), "%s/" CELL_EXIT_FILE, dir);
	rc = write_file_atomic(path, text.data, text.len, err);
	buf_free(&text);
	return rc;
}
