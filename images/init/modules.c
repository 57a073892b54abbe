/* modules: the kernel loads its modules on demand, as on a real system (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "init.h"
#include "sys.h"

/* mkdir -p of path's parent directories. */
static void make_parents(const char *path)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
}

/*
 * What `kmod static-nodes` gives systemd-tmpfiles on a real system: a node
 * for each "MODULE DEVNAME TYPEMAJOR:MINOR" line of modules.devname, absent
 * from devtmpfs until its module loads; opening it makes the kernel ask
 * modprobe for "char-major-M-N" (or "block-major-M-N").  0600, as kmod's.
 */
static void make_static_nodes(const char *devname_path)
{
	static char text[16384];
	char *line, *save = NULL;

	if (sys_read_bytes(devname_path, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char module[64], name[128], type, path[160];
		unsigned major, minor;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %127s %c%u:%u", module, name, &type, &major, &minor) != 5 ||
		    (type != 'c' && type != 'b') || strstr(name, "..")) {
			log_msg("%s: bad line '%s'", devname_path, line);
			continue;
		}
		snprintf(path, sizeof(path), "/dev/%s", name);
		if (!access(path, F_OK))
			continue;   /* built in, or loaded already: devtmpfs has it */
		make_parents(path);
		if (mknod(path, (type == 'c' ? S_IFCHR : S_IFBLK) | 0600, makedev(major, minor)))
			log_msg("mknod %s (module %s): %s", path, module, strerror(errno));
	}
}

void serve_modules(void)
{
	char dir[128], path[192];
	struct utsname u;
	int fd;

	if (uname(&u))
		return;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	if (access(path, R_OK))
		return;   /* no module tree: the drivers are built in, or the run needs none */
	if (access(MODPROBE_PATH, X_OK)) {
		log_msg("no %s: modules load only as the plan's list", MODPROBE_PATH);
		return;
	}
	/* CONFIG_MODPROBE_PATH may name another; the kernel execs it in this root, not the host view's. */
	fd = open("/proc/sys/kernel/modprobe", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, MODPROBE_PATH "\n", strlen(MODPROBE_PATH) + 1) < 0)
		log_msg("/proc/sys/kernel/modprobe: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/modules.devname", dir);
	make_static_nodes(path);
}
