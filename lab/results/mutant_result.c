#include "results/mutant_result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[MUTANT_NOT_RUN] = "not-run",           [MUTANT_KILLED] = "killed",
	[MUTANT_SURVIVED] = "survived",         [MUTANT_UNCOMPILABLE] = "uncompilable",
	[MUTANT_SAME_OBJECT] = "same-object",
};

const char *mutant_status_name(enum mutant_status s)
{
	return names[s];
}

/* One line: newlines in why would start another key. */
static void add_line(struct buf *b, const char *key, const char *value)
{
	buf_addf(b, "%s ", key);
	for (const char *c = value; *c; c++)
		buf_add(b, *c == '\n' ? " " : c, 1);
	buf_addstr(b, "\n");
}

int mutant_result_write(const char *path, const struct mutant_result *r, struct error *err)
{
	struct buf b = BUF_INIT;
	int rc;

	add_line(&b, "status", mutant_status_name(r->status));
	add_line(&b, "why", r->why);
	buf_addf(&b, "build_s %.1f\nrun_s %.1f\n", r->build_s, r->run_s);
	add_line(&b, "run_dir", r->run_dir);
	if (r->guest[0])
		add_line(&b, "guest", r->guest);
	rc = write_file_atomic(path, b.data, b.len, err);
	buf_free(&b);
	return rc;
}

int mutant_result_read(const char *path, struct mutant_result *r, struct error *err)
{
	struct buf text = BUF_INIT;
	int status = -1;

	memset(r, 0, sizeof(*r));
	r->build_s = r->run_s = -1;
	if (!file_exists(path))
		return 1;
	if (read_file(path, &text, err))
		return -1;
	for (const char *p = buf_str(&text); *p; p = next_line(p)) {
		size_t n = strcspn(p, "\n"), k = strcspn(p, " \n");
		const char *v = p[k] == ' ' ? p + k + 1 : p + k;
		int vn = (int)(n - (size_t)(v - p));

		if (k == 6 && !strncmp(p, "status", 6)) {
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if ((int)strlen(names[i]) == vn && !strncmp(v, names[i], (size_t)vn))
					status = (int)i;
		} else if (k == 3 && !strncmp(p, "why", 3)) {
			snprintf(r->why, sizeof(r->why), "%.*s", vn, v);
		} else if (k == 7 && !strncmp(p, "build_s", 7)) {
			r->build_s = strtod(v, NULL);
		} else if (k == 5 && !strncmp(p, "run_s", 5)) {
			r->run_s = strtod(v, NULL);
		} else if (k == 7 && !strncmp(p, "run_dir", 7)) {
			snprintf(r->run_dir, sizeof(r->run_dir), "%.*s", vn, v);
		} else if (k == 5 && !strncmp(p, "guest", 5)) {
			snprintf(r->guest, sizeof(r->guest), "%.*s", vn, v);
		}
	}
	buf_free(&text);
	if (status <= MUTANT_NOT_RUN)
		return error_set(err, "%s: no status line: not a mutant result; remove it to run the "
				 "mutant again", path);
	r->status = (enum mutant_status)status;
	return 0;
}
