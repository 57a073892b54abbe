/* sys: small readers for sysfs and procfs shared by the guest tests. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

#define PMD_SIZE_PATH "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

static void strip_trailing_space(char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ' ||
			   s[len - 1] == '\t'))
		len--;
	s[len] = '\0';
}

ssize_t sys_read_bytes(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == size - 1) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
	}
	close(fd);
	if (n < 0)
		return -1;
	buf[len] = '\0';
	return (ssize_t)len;
}

int sys_read(const char *path, char *buf, size_t size)
{
	ssize_t len = sys_read_bytes(path, buf, size);

	if (len < 0)
		return -1;
	strip_trailing_space(buf, (size_t)len);
	return 0;
}

int sys_read_long(const char *path, long *val)
{
	char buf[64], *end;

	if (sys_read(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	*val = strtol(buf, &end, 10);
	if (errno || end == buf || *end) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int sys_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = write(fd, val, len);
	if (n >= 0 && (size_t)n != len)
		errno = EIO;
	close(fd);
	return n >= 0 && (size_t)n == len ? 0 : -1;
}

int sys_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

long proc_stat_field(int pid, int n)
{
	char path[64], stat[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	/* The command name (field 2) may hold spaces: count from its closing parenthesis. */
	if (sys_read(path, stat, sizeof(stat)) || !(p = strrchr(stat, ')')))
		return -1;
	for (int field = 3; p && field <= n; field++) {
		p = strchr(p + 1, ' ');
		if (p && field == n)
			return strtol(p + 1, NULL, 10);
	}
	return -1;
}

/* One "A" or "A-B" element of an id list; advances *s past it. */
static int parse_range(const char **s, uint64_t *mask)
{
	char *end;
	unsigned long first, last;

	first = last = strtoul(*s, &end, 10);
	if (end == *s)
		return -1;
	if (*end == '-') {
		const char *second = end + 1;

		last = strtoul(second, &end, 10);
		if (end == second)
			return -1;
	}
	if (first > last || last >= 64)
		return -1;
	for (unsigned long id = first; id <= last; id++)
		*mask |= UINT64_C(1) << id;
	*s = end;
	return 0;
}

int idlist_parse(const char *list, uint64_t *mask)
{
	const char *s = list;

	*mask = 0;
	while (*s == ' ' || *s == '\n')
		s++;
	while (*s && *s != '\n') {
		if (parse_range(&s, mask))
			goto bad;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto bad;
	}
	return __builtin_popcountll(*mask);
bad:
	errno = EINVAL;
	return -1;
}

void idlist_format(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int id = 0; id < 64 && len < size; id++) {
		int last = id;

		if (!(mask & (UINT64_C(1) << id)))
			continue;
		while (last + 1 < 64 && (mask & (UINT64_C(1) << (last + 1))))
			last++;
		if (last == id)
			len += (size_t)snprintf(buf + len, size - len, "%s%d",
						len ? "," : "", id);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d-%d",
						len ? "," : "", id, last);
		id = last;
	}
}

long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

long pmd_size(void)
{
	long size;

	return sys_read_long(PMD_SIZE_PATH, &size) ? 0 : size;
}

#define FILL_PASSES 5

long node_hugepages_set(struct node_hugepages *h, int node, long want)
{
	char path[128], val[32];
	long got = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-%ldkB/nr_hugepages", node,
		 pmd_size() / 1024);
	if (strcmp(h->path, path)) {
		if (sys_read(path, h->was, sizeof(h->was)))
			return -1;
		snprintf(h->path, sizeof(h->path), "%s", path);
	}
	snprintf(val, sizeof(val), "%ld", want);
	for (int pass = 0; pass < FILL_PASSES; pass++) {
		long before = got;

		if (sys_write(path, val) || sys_read_long(path, &got) || got == before || got >= want)
			break;
	}
	return got;
}

void node_hugepages_restore(const struct node_hugepages *h)
{
	if (h->path[0])
		sys_write(h->path, h->was);
}

long file_key_value(const char *path, const char *key)
{
	char line[160];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen(path, "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == ':'))
			v = strtol(line + n + 1 + (line[n] == ':'), NULL, 10);
	if (f)
		fclose(f);
	return v;
}

long slab_objects(const char *dir)
{
	char path[160], buf[256];

	snprintf(path, sizeof(path), "%s/shrink", dir);
	if (sys_write(path, "1"))
		return -1;
	snprintf(path, sizeof(path), "%s/objects", dir);
	if (sys_read(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

long minor_faults(void)
{
	struct rusage ru = { 0 };

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

int cpu_pin_here(cpu_set_t *was)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (sched_getaffinity(0, sizeof(*was), was))
		return 0;
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	return !sched_setaffinity(0, sizeof(one), &one);
}

void cpu_unpin(const cpu_set_t *was)
{
	sched_setaffinity(0, sizeof(*was), was);
}

#define BOOST "/proc/sys/vm/watermark_boost_factor"

void watermark_boost_off(char *saved, size_t cap)
{
	if (sys_read(BOOST, saved, cap) || sys_write(BOOST, "0"))
		saved[0] = '\0';
}

void watermark_boost_restore(const char *saved)
{
	if (saved[0])
		sys_write(BOOST, saved);
}

int zone_marks(int node, struct zone_marks *z)
{
	char line[256], key[64];
	FILE *f = fopen("/proc/zoneinfo", "re");
	struct zone_marks zone = { -1, -1, -1, -1, -1 };
	int in_node = 0, found = 0;
	long v, managed = 0;

	snprintf(key, sizeof(key), "Node %d, zone", node);
	/* A zone's section runs from its "Node N, zone NAME" line to the next one. */
	for (int end = 0; !end;) {
		end = !f || !fgets(line, sizeof(line), f);
		if (end || !strncmp(line, "Node ", 5)) {
			if (in_node && managed > 0) {
				*z = zone;
				found = 1;
			}
			in_node = !end && !strncmp(line, key, strlen(key));
			managed = 0;
		} else if (!in_node) {
			continue;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			zone.free = v;
		} else if (sscanf(line, " min %ld", &v) == 1) {
			zone.min = v;
		} else if (sscanf(line, " low %ld", &v) == 1) {
			zone.low = v;
		} else if (sscanf(line, " high %ld", &v) == 1) {
			zone.high = v;
		} else if (sscanf(line, " managed %ld", &v) == 1) {
			managed = v;
		} else if (sscanf(line, " node_unreclaimable: %ld", &v) == 1) {
			zone.unreclaimable = (int)v;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

int slab_shrink_all(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[320];
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.') {   /* aliases are links: each cache once */
			snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", e->d_name);
			n += !sys_write(path, "1");
		}
	if (d)
		closedir(d);
	return n;
}

long long vmstat(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	long long val = -1;
	FILE *f;

	/* Node counters (pgdemote_*, pgpromote_*) sit in per-CPU deltas until folded. */
	sys_write("/proc/sys/vm/stat_refresh", "1");
	f = fopen("/proc/vmstat", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			val = atoll(line + len + 1);
	if (f)
		fclose(f);
	return val;
}

long long smaps_anon_huge(const void *vma_start)
{
	char line[256], start[32];
	long long kib = -1;
	int in_vma = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -1;
	snprintf(start, sizeof(start), "%" PRIxPTR "-", (uintptr_t)vma_start);
	while (fgets(line, sizeof(line), f)) {
		/* A VMA header is "start-end perms ...": its '-' comes before the first blank. */
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' '))
			in_vma = strncmp(line, start, strlen(start)) == 0;
		else if (in_vma && sscanf(line, "AnonHugePages: %lld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

long long smaps_bytes_at(const void *addr, const char *field)
{
	char line[256];
	long long kib = -1, v;
	size_t n = strlen(field);
	int in_vma = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;

		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' ') &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2)
			in_vma = lo <= (uintptr_t)addr && (uintptr_t)addr < hi;
		else if (in_vma && !strncmp(line, field, n) && line[n] == ':' &&
			 sscanf(line + n + 1, "%lld kB", &v) == 1) {
			kib = v;
			break;
		}
	}
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

int thp_setting(const char *path, char *value, size_t size)
{
	char buf[128], *open, *close;

	if (sys_read(path, buf, sizeof(buf)))
		return -1;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return -1;
	snprintf(value, size, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

int node_list(const char *file, int *nodes, int max, int *nr)
{
	char path[128], list[256];
	uint64_t mask;

	snprintf(path, sizeof(path), "/sys/devices/system/node/%s", file);
	if (sys_read(path, list, sizeof(list)) || idlist_parse(list, &mask) < 0)
		return -1;
	*nr = 0;
	for (int node = 0; node < 64 && *nr < max; node++)
		if (mask & (UINT64_C(1) << node))
			nodes[(*nr)++] = node;
	return 0;
}

#define CGROUP_SUBTREE "/sys/fs/cgroup/cgroup.subtree_control"

/* 1 if the root's subtree_control lists the memory controller. */
static int memory_in_subtree(void)
{
	char buf[256];

	for (char *save, *w = sys_read(CGROUP_SUBTREE, buf, sizeof(buf)) ? NULL : strtok_r(buf, " ", &save);
	     w; w = strtok_r(NULL, " ", &save))
		if (!strcmp(w, "memory"))
			return 1;
	return 0;
}

int memcg_controller_enable(struct memcg_controller *c)
{
	/* The mark first, whoever enabled the controller: a case killed after it still leaves it. */
	int fd = open(MEMCG_ONLINE_MARK, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	c->enabled_here = 0;
	if (fd < 0)
		return -1;
	close(fd);
	if (memory_in_subtree())
		return 0;
	if (sys_write(CGROUP_SUBTREE, "+memory"))
		return -1;
	c->enabled_here = 1;
	return 0;
}

void memcg_controller_restore(const struct memcg_controller *c)
{
	if (c->enabled_here)
		sys_write(CGROUP_SUBTREE, "-memory");
}

int memcg_kmem_may_be_on(void)
{
	char line[128];
	long memcgs = 0;
	FILE *f;

	if (sys_exists(MEMCG_ONLINE_MARK) || memory_in_subtree())
		return 1;
	/* "#subsys_name hierarchy num_cgroups enabled" (cgroups(7)) */
	if (!(f = fopen("/proc/cgroups", "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memory %*d %ld", &memcgs) == 1)
			break;
	fclose(f);
	return memcgs > 1;
}

/* /proc/self/pagemap's entry for the page at addr into *entry: 0, or -1 if unreadable. */
static int pagemap_entry(const void *addr, unsigned long long *entry)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	off_t at = (off_t)((uintptr_t)addr / (uintptr_t)page_size() * sizeof(*entry));
	int ok = fd >= 0 && pread(fd, entry, sizeof(*entry), at) == (ssize_t)sizeof(*entry);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Bit `bit` of /proc/self/pagemap's entry for the page at addr: 0 or 1, -1 if unreadable. */
static int pagemap_bit(const void *addr, int bit)
{
	unsigned long long entry = 0;

	return pagemap_entry(addr, &entry) ? -1 : (int)(entry >> bit & 1);
}

long long page_pfn(const void *addr)
{
	unsigned long long entry = 0;

	if (pagemap_entry(addr, &entry) || !(entry >> 63 & 1))
		return -1;
	return (long long)(entry & ((1ULL << 55) - 1));
}

int page_soft_dirty(const void *addr)
{
	return pagemap_bit(addr, 55);
}

int page_swapped(const void *addr)
{
	return pagemap_bit(addr, 62);
}

int page_uffd_wp(const void *addr)
{
	return pagemap_bit(addr, 57);
}
