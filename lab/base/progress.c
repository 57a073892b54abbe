#include "base/progress.h"

#include <stdarg.h>
#include <stdio.h>

static progress_sink_fn *sink;
static void *sink_ctx;

void progress_set_sink(progress_sink_fn *fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

static void emit(enum progress_kind kind, const char *fmt, va_list ap)
{
	char line[2048];

	if (!sink)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	sink(sink_ctx, kind, line);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(PROGRESS_STEP, fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(PROGRESS_WARNING, fmt, ap);
	va_end(ap);
}

void progress_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(PROGRESS_STATUS, fmt, ap);
	va_end(ap);
}
