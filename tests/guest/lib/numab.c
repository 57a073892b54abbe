/* numab: NUMA balancing switched on for a test, and put back (numab.h). */
#include <stdio.h>
#include <time.h>

#include "numab.h"
#include "sys.h"

#define NB_DEBUG "/sys/kernel/debug/sched/numa_balancing"

static struct knob {
	const char *name, *value;
	char old[32];
} knobs[] = {
	{ "scan_delay_ms", "0", "" },
	{ "scan_period_min_ms", "100", "" },
	{ "scan_period_max_ms", "400", "" },
};
static char old_mode[16];

static void knobs_set(int set)
{
	char path[128];

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), NB_DEBUG "/%s", knobs[i].name);
		if (set && sys_read(path, knobs[i].old, sizeof(knobs[i].old)))
			knobs[i].old[0] = '\0';
		if (knobs[i].old[0])
			sys_write(path, set ? knobs[i].value : knobs[i].old);
	}
}

int numab_start(const char *mode)
{
	if (sys_read(NUMA_BALANCING_SYSCTL, old_mode, sizeof(old_mode)) ||
	    sys_write(NUMA_BALANCING_SYSCTL, mode))
		return -1;
	knobs_set(1);
	return 0;
}

void numab_stop(void)
{
	knobs_set(0);
	sys_write(NUMA_BALANCING_SYSCTL, old_mode);
}

double numab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void numab_touch_for(char *base, size_t len, size_t stride, double seconds)
{
	double end = numab_now() + seconds;

	while (numab_now() < end)
		for (size_t off = 0; off < len; off += stride)
			base[off] += 1;
}
