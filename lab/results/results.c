#include "results/results.h"

#include <errno.h>
#include <stdarg.h>
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
			return results_set_state(run_dir, "running", err);
		if (errno != EEXIST)
			return error_set(err, "cannot create %s: %s", run_dir, strerror(errno));
	}
	return error_set(err, "cannot find a free run directory under %s", out);
}

int results_set_state(const char *run_dir, const char *state, struct error *err)
{
	char path[4096], line[64];

	snprintf(path, sizeof(path), "%s/state", run_dir);
	snprintf(line, sizeof(line), "%s\n", state);
	return write_file_atomic(path, line, strlen(line), err);
}

int results_new_cell(const char *run_dir, const char *cell, char *cell_dir, size_t cap,
		     struct error *err)
{
	snprintf(cell_dir, cap, "%s/%s", run_dir, cell);
	if (mkdir(cell_dir, 0755))
		return error_set(err, "cannot create %s: %s", cell_dir, strerror(errno));
	return 0;
}

void meta_add(struct buf *meta, const char *key, const char *fmt, ...)
{
	char value[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	for (char *p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = ' ';
	buf_addf(meta, "%s: %s\n", key, value);
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
