/* mpol: the memory-policy suites' shared helpers (mpol.h). */
#include "mpol.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "sys.h"

static char cpuset_dir[128];

char *map_pages(size_t n)
{
	size_t len = n * (size_t)page_size();
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED) {
		ktap_diag("mmap %zu bytes: %s", len, strerror(errno));
		return NULL;
	}
	/* Base pages only: a THP is placed by its own, PMD-order index. */
	if (madvise(base, len, MADV_NOHUGEPAGE))
		ktap_diag("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	return base;
}

void unmap_pages(char *base, size_t n)
{
	if (base)
		munmap(base, n * (size_t)page_size());
}

/* dir/file into path; the caller's names are short constants. */
static const char *cpuset_file(char *path, size_t size, const char *file)
{
	snprintf(path, size, "%s/%s", cpuset_dir, file);
	return path;
}

const char *cpuset_enter(const char *name, unsigned long mems)
{
	char pid[32], path[192];

	snprintf(cpuset_dir, sizeof(cpuset_dir), CGROUP_ROOT "/%s", name);
	if (sys_exists(CGROUP_ROOT "/cgroup.controllers") == 0 &&
	    mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL))
		return "cannot mount cgroup2";
	if (sys_write(CGROUP_ROOT "/cgroup.subtree_control", "+cpuset"))
		return "cannot enable the cpuset controller";
	if (mkdir(cpuset_dir, 0755) && errno != EEXIST)
		return "cannot create a child cgroup";
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (cpuset_set_mems(mems) || sys_write(cpuset_file(path, sizeof(path), "cgroup.procs"), pid))
		return "cannot set cpuset.mems or move the task into the cpuset";
	return NULL;
}

int cpuset_set_mems(unsigned long mems)
{
	char list[128], path[192];

	idlist_format(mems, list, sizeof(list));
	if (sys_write(cpuset_file(path, sizeof(path), "cpuset.mems"), list)) {
		ktap_diag("cpuset.mems = %s: %s", list, strerror(errno));
		return -1;
	}
	return 0;
}

int cpuset_step_out(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return sys_write(CGROUP_ROOT "/cgroup.procs", pid);
}

int cpuset_write(const char *file, const char *val)
{
	char path[192];

	return sys_write(cpuset_file(path, sizeof(path), file), val);
}

void cpuset_leave(void)
{
	if (cpuset_step_out() || rmdir(cpuset_dir))
		ktap_diag("cannot remove %s: %s", cpuset_dir, strerror(errno));
}
