#include "cli/command.h"
#include "cli/options.h"
#include "base/interrupt.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

int command_help(const char *help)
{
	fputs(help, stdout);
	return EXIT_PASS;
}

int command_options(const struct opt_spec *spec, int argc, char **argv, int *first)
{
	struct error err;
	struct buf help = BUF_INIT;
	int rc = opt_parse(spec, argc, argv, &err);

	if (rc == OPT_HELP) {
		opt_help(opt_chosen(spec), &help);
		fputs(buf_str(&help), stdout);
		buf_free(&help);
		return EXIT_PASS;
	}
	if (rc < 0 && err.kind != ERROR_INPUT)
		return command_fail(spec->name, &err);
	if (rc < 0)
		return command_usage_error(opt_chosen(spec)->name, "%s", err.msg);
	*first = rc;
	return -1;
}

int command_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "numalab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see `numalab %s --help`\n", cmd);
	return EXIT_USAGE;
}

int command_lava_check(const char *cmd, struct matrix_lava *lava)
{
	const char *token = getenv("NUMALAB_LAVA_TOKEN");

	if (!lava->url)
		return lava->device_type || lava->artifacts ?
		       command_usage_error(cmd, "--lava-device-type and --lava-artifacts need --lava URL") : -1;
	if (!lava->device_type)
		lava->device_type = getenv("NUMALAB_LAVA_DEVICE_TYPE");
	if (!lava->artifacts)
		lava->artifacts = getenv("NUMALAB_LAVA_ARTIFACTS");
	if (strncmp(lava->url, "http://", 7) && strncmp(lava->url, "https://", 8))
		return command_usage_error(cmd, "--lava %s: not an http:// or https:// URL", lava->url);
	if (!token || !*token)
		return command_usage_error(cmd, "--lava needs the API token in $NUMALAB_LAVA_TOKEN "
					   "(`lava-server manage tokens add --user USER` on the server)");
	return -1;
}

int command_exit_for(const struct error *err)
{
	return err->kind == ERROR_INPUT ? EXIT_USAGE : EXIT_HARNESS;
}

int command_exit_compare(enum compare_result r)
{
	return r == COMPARE_SAME ? EXIT_PASS : EXIT_FAIL;
}

int command_exit_matrix(enum matrix_verdict v)
{
	return v == MATRIX_PASSED ? EXIT_PASS : v == MATRIX_FAILED ? EXIT_FAIL : EXIT_HARNESS;
}

void command_stamped_out(char *out, size_t cap, const char *name)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
	snprintf(out, cap, "results/%s-%s", name, stamp);
}

void command_show_on_stdout(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	fwrite(text, 1, len, stdout);
	fflush(stdout);
}

int command_exit_try(enum try_verdict v)
{
	return v == TRY_NO_REGRESSION ? EXIT_PASS : v == TRY_REGRESSION ? EXIT_FAIL : EXIT_HARNESS;
}

int command_fail(const char *cmd, const struct error *err)
{
	/* The signal killed the children: what failed then is its consequence, not the cause. */
	if (interrupt_caught()) {
		fprintf(stderr, "numalab %s: interrupted by signal %d: %s\n", cmd, interrupt_caught(), err->msg);
		return EXIT_HARNESS;
	}
	fprintf(stderr, "numalab %s: %s\n", cmd, err->msg);
	return command_exit_for(err);
}

int command_run_cell(const struct run_opts *o, struct run_outcome *out, struct error *err)
{
	if (run_cell(o, out, err))
		return command_exit_for(err);
	return out->verdict == RUN_PASSED ? EXIT_PASS : EXIT_FAIL;
}

/*
 * Steps and warnings one line each; a status line (a kernel build's clock
 * and last make line) only on a terminal, redrawn in place and taken down
 * before the next line is written.
 */
static void sink_lines(void *ctx, enum progress_kind kind, const char *line)
{
	static int status_shown;
	const struct command_sink *s = ctx;
	FILE *f = kind == PROGRESS_STEP ? s->steps : stderr;

	if (kind == PROGRESS_STATUS) {
		if (isatty(2)) {
			fprintf(stderr, "\r\033[K%s%s", *line ? s->prefix : "", line);
			status_shown = *line != '\0';
		}
		return;
	}
	if (status_shown)
		fputs("\r\033[K", stderr);
	status_shown = 0;
	if (!f)
		return;
	fprintf(f, "%s%s%s\n", s->prefix, kind == PROGRESS_WARNING ? "warning: " : "", line);
	fflush(f);
}

void command_set_sink(struct command_sink *sink)
{
	progress_set_sink(sink_lines, sink);
}

/* The status line drawn in place on a terminal, gone before anything else is written. */
static void clear_status(struct command_run_view *v)
{
	if (v->drawn)
		fputs("\r\033[K", stderr);
	v->drawn = 0;
}

static void view_tap_line(void *ctx, const char *line)
{
	struct command_run_view *v = ctx;

	if (!v->echo_tap)
		return;
	clear_status(v);
	printf("%s\n", line);
	fflush(stdout);
}

static void view_phase(void *ctx, double elapsed_s, const char *phase)
{
	struct command_run_view *v = ctx;

	if (!v->progress || (!phase && !v->tty))
		return;
	if (phase)
		snprintf(v->phase, sizeof(v->phase), "%s", phase);
	if (v->tty) {
		fprintf(stderr, "\r\033[K[%6.1fs] %s", elapsed_s, v->phase);
		v->drawn = 1;
	} else {
		fprintf(stderr, "numalab: [%6.1fs] %s\n", elapsed_s, v->phase);
	}
}

static void view_done(void *ctx)
{
	clear_status(ctx);
}

const struct run_view *command_run_view(struct command_run_view *v, int echo_tap, int progress)
{
	memset(v, 0, sizeof(*v));
	v->echo_tap = echo_tap;
	v->progress = progress;
	v->tty = isatty(STDERR_FILENO);
	v->view = (struct run_view){ view_tap_line, view_phase, view_done, v };
	return &v->view;
}
