/* numab: NUMA balancing switched on for a test, and put back (numab.h). */
#include <stdio.h>
#include <string.h>
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

int numab_stats(struct numab_stats *s)
{
	char buf[8192], *line, *save = NULL;
	int node;
	long p, sh;

	s->migrated = s->preferred = s->scan_seq = -1;
	for (int i = 0; i < NUMAB_MAX_NODES; i++)
		s->priv[i] = s->shared[i] = 0;
	if (sys_read("/proc/self/sched", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "numa_pages_migrated : %ld", &p) == 1)
			s->migrated = p;
		else if (sscanf(line, "numa_preferred_nid : %ld", &p) == 1)
			s->preferred = p;
		else if (sscanf(line, "mm->numa_scan_seq : %ld", &p) == 1)
			s->scan_seq = p;
		else if (sscanf(line, "numa_faults node=%d task_private=%ld task_shared=%ld", &node, &p, &sh) == 3 &&
			 node >= 0 && node < NUMAB_MAX_NODES) {
			s->priv[node] = p;
			s->shared[node] = sh;
		}
	}
	return s->migrated < 0 ? -1 : 0;
}
