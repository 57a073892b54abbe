/* view: the guest's view of itself as "# guest.KEY: VALUE" lines (init.h). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "init.h"
#include "sys.h"

/* A file as one TAP-safe value: control characters become spaces, trailing ones go. */
int read_value(const char *path, char *buf, size_t size)
{
	size_t len;

	if (sys_read(path, buf, size))
		return -1;
	len = strlen(buf);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < ' ')
			buf[i] = ' ';
	while (len > 0 && buf[len - 1] == ' ')
		buf[--len] = '\0';
	return 0;
}

static void print_guest_value(const char *key, const char *path)
{
	char value[1024];

	tap_line("# guest.%s: %s", key, read_value(path, value, sizeof(value)) ? "n/a" : value);
}

static void print_node_mem(int node)
{
	char path[128], meminfo[8192];
	const char *total = NULL;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node);
	if (sys_read_bytes(path, meminfo, sizeof(meminfo)) >= 0)
		total = strstr(meminfo, "MemTotal:");
	if (total)
		tap_line("# guest.node%d.mem_kib: %llu", node,
			 strtoull(total + strlen("MemTotal:"), NULL, 10));
	else
		tap_line("# guest.node%d.mem_kib: n/a", node);
}

static void print_node_view(int node)
{
	char key[32], path[128];

	snprintf(key, sizeof(key), "node%d.cpus", node);
	snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", node);
	print_guest_value(key, path);
	print_node_mem(node);
	snprintf(key, sizeof(key), "node%d.distance", node);
	snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", node);
	print_guest_value(key, path);
}

static void print_nodes(void)
{
	char online[256];
	uint64_t nodes;

	if (read_value(NODE_DIR "/online", online, sizeof(online))) {
		tap_line("# guest.nodes_online: n/a");
		return;
	}
	tap_line("# guest.nodes_online: %s", online);
	if (idlist_parse(online, &nodes) < 0)
		return;
	for (int node = 0; node < 64; node++)
		if (nodes & UINT64_C(1) << node)
			print_node_view(node);
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* "memory_tier4=0-1 memory_tier28=2-3", by tier; nothing without tiering. */
static void print_memory_tiers(void)
{
	DIR *dir = opendir(TIERS_DIR);
	struct dirent *e;
	int tiers[MAX_TIERS], nr = 0;
	char line[2048], path[128], nodes[256];
	size_t len = 0;

	if (!dir)
		return;
	while ((e = readdir(dir)) && nr < MAX_TIERS)
		if (sscanf(e->d_name, "memory_tier%d", &tiers[nr]) == 1)
			nr++;
	closedir(dir);
	qsort(tiers, (size_t)nr, sizeof(tiers[0]), compare_ints);
	line[0] = '\0';
	for (int i = 0; i < nr && len < sizeof(line); i++) {
		snprintf(path, sizeof(path), TIERS_DIR "/memory_tier%d/nodelist", tiers[i]);
		if (read_value(path, nodes, sizeof(nodes)))
			snprintf(nodes, sizeof(nodes), "?");
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%smemory_tier%d=%s",
					i ? " " : "", tiers[i], nodes);
	}
	tap_line("# guest.memory_tiers: %s", line);
}

void print_guest_view(const char *cmdline)
{
	struct utsname u;

	if (uname(&u) == 0) {
		tap_line("# guest.kernel: %s", u.release);
		tap_line("# guest.version: %s", u.version);
	}
	tap_line("# guest.cmdline: %s", cmdline);
	tap_line("# guest.page_size: %ld", sysconf(_SC_PAGESIZE));
	print_nodes();
	print_guest_value("thp_enabled", THP_DIR "/enabled");
	print_guest_value("thp_defrag", THP_DIR "/defrag");
	print_guest_value("hpage_pmd_size", THP_DIR "/hpage_pmd_size");
	print_guest_value("numa_balancing", "/proc/sys/kernel/numa_balancing");
	print_memory_tiers();
}

static int kernel_line_matters(const char *line)
{
	static const char *const patterns[] = { "WARNING", "BUG", "Oops", "Call Trace" };

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (strstr(line, patterns[i]))
			return 1;
	return 0;
}

/* "<4>[    1.2] text" -> "[    1.2] text" */
static const char *skip_log_level(const char *line)
{
	const char *end = line[0] == '<' ? strchr(line, '>') : NULL;

	return end && end - line <= 4 ? end + 1 : line;
}

/* Warnings hidden by loglevel= on the console still reach the TAP stream. */
void print_kernel_warnings(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), printed = 0, more = 0;
	char *log = size > 0 ? malloc((size_t)size + 1) : NULL, *line, *save;

	if (!log || (size = klogctl(SYSLOG_ACTION_READ_ALL, log, size)) < 0) {
		log_msg("cannot read the kernel log: %s", strerror(errno));
		free(log);
		return;
	}
	log[size] = '\0';
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!kernel_line_matters(line))
			continue;
		if (printed < DMESG_MAX_LINES)
			tap_line("# dmesg: %s", skip_log_level(line));
		else
			more++;
		printed++;
	}
	if (more)
		tap_line("# dmesg: (%d more matching lines not shown)", more);
	free(log);
}

