#include "host/tsc.h"
#include "base/util.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>

/* Both flags on the first "flags" line of /proc/cpuinfo. */
static int tsc_invariant(void)
{
	struct buf text = BUF_INIT;
	struct error err;
	char *flags, *eol;
	int ok = 0;

	if (read_file("/proc/cpuinfo", &text, &err))
		return 0;
	flags = strstr(buf_str(&text), "\nflags");
	if (flags) {
		eol = strchr(flags + 1, '\n');
		if (eol)
			*eol = '\0';
		ok = strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
	}
	buf_free(&text);
	return ok;
}

static double now_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

unsigned host_tsc_khz(void)
{
	static unsigned khz;
	static int measured;
	struct timespec wait = { 0, 20 * 1000 * 1000 };
	double t0, t1;
	uint64_t c0, c1;

	if (measured)
		return khz;
	measured = 1;
	if (!tsc_invariant())
		return 0;
	t0 = now_raw_ns();
	c0 = __rdtsc();
	while (nanosleep(&wait, &wait))
		;
	c1 = __rdtsc();
	t1 = now_raw_ns();
	khz = (unsigned)((double)(c1 - c0) * 1e6 / (t1 - t0) + 0.5);
	return khz;
}
#else
unsigned host_tsc_khz(void)
{
	return 0;
}
#endif
