#include "results/results.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int results_new_run(const char *out, char *run_dir, size_t cap, struct error *err)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	if (mkdir_p(out, err))
		return -1;
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
	for (int n = 0; n < 1000; n++) {
		snprintf(run_dir, cap, "%s/%s-%d-%d", out, stamp, (int)getpid(), n);
		if (!mkdir(run_dir, 0755))
			return run_state_set(run_dir, RUN_STATE_RUNNING, err);
		if (errno != EEXIST)
			return error_set(err, "cannot create %s: %s", run_dir, strerror(errno));
	}
	return error_set(err, "cannot find a free run directory under %s", out);
}

int run_state_set(const char *dir, const char *state, struct error *err)
{
	char path[4200], line[64];

	snprintf(path, sizeof(path), "%s/" RUN_STATE_FILE, dir);
	snprintf(line, sizeof(line), "%s\n", state);
	return write_file_atomic(path, line, strlen(line), err);
}

int run_state_get(const char *dir, char *state, size_t cap, struct error *err)
{
	char path[4200];
	struct buf b = BUF_INIT;

	snprintf(path, sizeof(path), "%s/" RUN_STATE_FILE, dir);
	if (read_file(path, &b, err)) {
		buf_free(&b);
		return -1;
	}
	snprintf(state, cap, "%.*s", (int)strcspn(buf_str(&b), "\n"), buf_str(&b));
	buf_free(&b);
	return 0;
}

int results_new_cell(const char *run_dir, const char *cell, char *cell_dir, size_t cap,
		     struct error *err)
{
	snprintf(cell_dir, cap, "%s/%s", run_dir, cell);
	if (mkdir(cell_dir, 0755))
		return error_set(err, "cannot create %s: %s", cell_dir, strerror(errno));
	return 0;
}

void argv_to_line(char *const *argv, size_t n, struct buf *out)
{
	for (size_t i = 0; i < n; i++) {
		const char *a = argv[i];

		if (i)
			buf_addstr(out, " ");
		if (*a && !a[strcspn(a, " \t'\"\\$`*?[]<>|&;()#~")]) {
			buf_addstr(out, a);
			continue;
		}
		buf_addstr(out, "'");
		for (; *a; a++)
			if (*a == '\'')
				buf_addstr(out, "'\\''");
			else
				buf_add(out, a, 1);
		buf_addstr(out, "'");
	}
}
