/* disk: boot from a disk root (numalab.root=): modules, mount, exec its /lab/init (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init.h"
#include "sys.h"

/* The value of KEY=VALUE on the command line into out; 0, or -1 when absent. */
int cmdline_value(const char *cmdline, const char *key, char *out, size_t cap)
{
	size_t len = strlen(key);

	for (const char *p = cmdline; (p = strstr(p, key)); p += len)
		if ((p == cmdline || p[-1] == ' ') && p[len] == '=') {
			p += len + 1;
			snprintf(out, cap, "%.*s", (int)strcspn(p, " "), p);
			return 0;
		}
	return -1;
}

/* finit_module() each module of MODULES_ORDER (absent: the kernel has its drivers built in). */
void load_modules(void)
{
	static char order[8192];
	char *line, *save = NULL;

	if (sys_read_bytes(MODULES_ORDER, order, sizeof(order)) < 0)
		return;
	for (line = strtok_r(order, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int fd = open(line, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST))
			log_msg("loading %s: %s", line, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

/* Mount the disk root and become its /lab/init; returns only by init_error(). */
_Noreturn void boot_disk(const char *cmdline, const char *device)
{
	char fstype[32] = "ext4";
	int64_t deadline = now_ms() + ROOT_WAIT_MS;

	cmdline_value(cmdline, "numalab.rootfstype", fstype, sizeof(fstype));
	load_modules();
	while (access(device, F_OK) && ms_until(deadline) > 0)
		sleep_ms(50);
	mkdir(NEW_ROOT, 0755);
	if (mount(device, NEW_ROOT, fstype, 0, NULL))
		init_error("mount %s (%s) on %s: %s; does the kernel have virtio-blk and %s?",
			   device, fstype, NEW_ROOT, strerror(errno), fstype);
	log_msg("root %s mounted; starting its %s", device, DISK_INIT);
	if (chdir(NEW_ROOT) || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/"))
		init_error("switching to the root on %s: %s", device, strerror(errno));
	execv(DISK_INIT, (char *const[]){ DISK_INIT, ON_DISK_ARG, NULL });
	init_error("exec %s on %s: %s", DISK_INIT, device, strerror(errno));
}

