/*
 * counters: what the kernel counted while a run placed its memory.
 *
 * numastat (per node) says where pages were allocated and whether that was
 * the node the policy asked for (numa_hit/miss/foreign, interleave_hit) and
 * the node the CPU is on (local_node/other_node).  /proc/vmstat's thp_* and
 * pgmigrate_* say whether THPs were allocated or fell back and whether
 * anything migrated.  Both are system-wide, so a run reports deltas.
 */
#include <stdio.h>
#include <string.h>

#include "workloads.h"

static const char *const numastat_keys[NR_NUMASTAT] = {
	"numa_hit", "numa_miss", "numa_foreign", "interleave_hit", "local_node", "other_node",
};

static void read_numastat(int node, long long *values)
{
	char path[128], key[48];
	long long val;
	FILE *f;

	for (int k = 0; k < NR_NUMASTAT; k++)
		values[k] = -1;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat", node);
	f = fopen(path, "re");
	while (f && fscanf(f, "%47s %lld", key, &val) == 2)
		for (int k = 0; k < NR_NUMASTAT; k++)
			if (!strcmp(key, numastat_keys[k]))
				values[k] = val;
	if (f)
		fclose(f);
}

static int wanted_vmstat(const char *name)
{
	return !strncmp(name, "thp_", 4) || !strncmp(name, "pgmigrate_", 10);
}

static void read_vmstat(struct counters *c)
{
	char name[48];
	long long val;
	FILE *f = fopen("/proc/vmstat", "re");

	c->nr_vm = 0;
	while (f && fscanf(f, "%47s %lld", name, &val) == 2)
		if (wanted_vmstat(name) && c->nr_vm < MAX_VMSTAT) {
			snprintf(c->vm_name[c->nr_vm], sizeof(c->vm_name[0]), "%s", name);
			c->vm_val[c->nr_vm++] = val;
		}
	if (f)
		fclose(f);
}

void counters_read(const struct system *s, struct counters *c)
{
	for (int k = 0; k < s->nr_online; k++)
		read_numastat(s->online[k], c->numa[k]);
	read_vmstat(c);
}

static long long vm_before(const struct counters *before, const char *name)
{
	for (int i = 0; i < before->nr_vm; i++)
		if (!strcmp(before->vm_name[i], name))
			return before->vm_val[i];
	return 0;
}

void counters_print_delta(const struct system *s, const struct counters *before,
			  const struct counters *after)
{
	long long delta[MAX_NODES];
	char map[512];

	for (int key = 0; key < NR_NUMASTAT; key++) {
		for (int k = 0; k < s->nr_online; k++)
			delta[k] = after->numa[k][key] - before->numa[k][key];
		node_map(map, sizeof(map), s->online, s->nr_online, delta);
		yaml_field(numastat_keys[key], "%s", map);
	}
	for (int i = 0; i < after->nr_vm; i++) {
		long long d = after->vm_val[i] - vm_before(before, after->vm_name[i]);

		if (d)
			yaml_field(after->vm_name[i], "%lld", d);
	}
}
