/* shares: a Linux system for third-party suites, the host's 9p shares and its view (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"
#include "sys.h"

/* Why the host view is missing, for the command's result (until it is mounted). */
char host_view_error[256] = "no host root share (/lab/shares)";
int host_view_ready;

/* mkdir -p; errors show up in the mount that follows. */
static void make_dirs(const char *path, mode_t mode)
{
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	mkdir(dir, mode);
}

static int mount_at(const char *source, const char *target, const char *type, unsigned long flags,
		    const char *data)
{
	make_dirs(target, 0755);
	if (mount(source, target, type, flags, data) == 0)
		return 0;
	log_msg("mount %s (%s) on %s: %s", source, type ? type : "bind", target, strerror(errno));
	return -1;
}

static void write_if_absent(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd >= 0) {
		write(fd, text, strlen(text));
		close(fd);
	}
}

/*
 * What third-party suites expect of a Linux system (docs/guest.md): users
 * root and nobody, writable /tmp and /run, /dev/shm, /dev/pts, cgroup2,
 * /bin/sh and busybox's other applets, and the kernel's config (at
 * /boot/config-RELEASE when the host sent /lab/kernel.config, as
 * /proc/config.gz when the kernel has IKCONFIG_PROC).
 */
void furnish_guest(void)
{
	struct utsname u;

	mount_fs("cgroup2", "/sys/fs/cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
	mount_at("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	mount_at("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	mount_at("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	mount_at("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "mode=620,ptmxmode=666");
	mkdir("/etc", 0755);
	write_if_absent("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"
			"nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n");
	write_if_absent("/etc/group", "root:x:0:\nnogroup:x:65534:\n");
	write_if_absent("/etc/hostname", "numalab\n");
	sethostname("numalab", 7);
	mkdir("/root", 0700);
	if (uname(&u) == 0 && !access("/lab/kernel.config", R_OK)) {
		char link[128];

		mkdir("/boot", 0755);
		snprintf(link, sizeof(link), "/boot/config-%s", u.release);
		symlink("/lab/kernel.config", link);
	}
	if (!access("/bin/busybox", X_OK) && access("/bin/sh", F_OK)) {
		pid_t pid;

		make_dirs("/usr/bin", 0755);
		make_dirs("/usr/sbin", 0755);
		mkdir("/sbin", 0755);
		pid = fork();
		if (pid == 0) {
			move_fd(open("/dev/null", O_WRONLY), STDOUT_FILENO);
			move_fd(open("/dev/null", O_WRONLY), STDERR_FILENO);
			execv("/bin/busybox", (char *const[]){ "/bin/busybox", "--install", "-s", NULL });
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/*
 * The host view: the host's root (read-only) at HOST_VIEW with this guest's
 * /proc, /sys, /dev, fresh tmpfs on /tmp, /run and /var/tmp, and this
 * binary as VIEW_BIN/poweroff (and reboot, halt).
 */
static int build_host_view(void)
{
	static const char *const binds[] = { "/proc", "/sys", "/dev" };
	static const char *const tmpfs[] = { "/tmp", "/run", "/var/tmp" };
	static const char *const applets[] = { "poweroff", "reboot", "halt" };
	char path[256];

	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		snprintf(path, sizeof(path), HOST_VIEW "%s", binds[i]);
		if (mount_at(binds[i], path, NULL, MS_BIND | MS_REC, NULL))
			return -1;
	}
	for (size_t i = 0; i < sizeof(tmpfs) / sizeof(tmpfs[0]); i++) {
		snprintf(path, sizeof(path), HOST_VIEW "%s", tmpfs[i]);
		if (mount_at("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"))
			return -1;
	}
	make_dirs(HOST_VIEW VIEW_BIN, 0755);
	for (size_t i = 0; i < sizeof(applets) / sizeof(applets[0]); i++) {
		snprintf(path, sizeof(path), HOST_VIEW VIEW_BIN "/%s", applets[i]);
		write_if_absent(path, "");
		if (mount("/init", path, NULL, MS_BIND, NULL))
			log_msg("bind /init on %s: %s", path, strerror(errno));
	}
	return 0;
}

/* One "TAG ro|rw host|lab PATH" line of SHARES_PATH. */
static void mount_share(char *line)
{
	char tag[64], mode[4], view[8], target[1200], opts[160];
	int n = 0;

	if (sscanf(line, "%63s %3s %7s %n", tag, mode, view, &n) != 3 || !n || line[n] != '/') {
		log_msg("%s: bad line '%s'", SHARES_PATH, line);
		return;
	}
	snprintf(target, sizeof(target), "%s%s", strcmp(view, "host") ? "" : HOST_VIEW,
		 strcmp(line + n, "/") ? line + n : "");
	if (!target[0])
		snprintf(target, sizeof(target), "/");
	/* Read-only shares cannot change under the guest: let it cache them. */
	snprintf(opts, sizeof(opts), "trans=virtio,version=9p2000.L,msize=512000%s",
		 strcmp(mode, "ro") ? "" : ",cache=loose");
	make_dirs(target, 0755);
	if (mount(tag, target, "9p", strcmp(mode, "ro") ? 0 : MS_RDONLY, opts) == 0) {
		if (!strcmp(view, "host") && !strcmp(line + n, "/")) {
			host_view_ready = !build_host_view();
			if (!host_view_ready)
				snprintf(host_view_error, sizeof(host_view_error), "cannot build the host view at %s",
					 HOST_VIEW);
		}
		return;
	}
	log_msg("mount 9p %s on %s: %s", tag, target, strerror(errno));
	if (!strcmp(view, "host") && !strcmp(line + n, "/"))
		snprintf(host_view_error, sizeof(host_view_error),
			 "the host's root (9p) did not mount: %s; the kernel needs NET_9P_VIRTIO and 9P_FS "
			 "(built in, or as modules the lab loads)", strerror(errno));
}

/* Every share of SHARES_PATH, in order (the root first, then what goes inside it). */
void mount_shares(void)
{
	static char text[16384];
	char *line, *save = NULL;

	if (sys_read_bytes(SHARES_PATH, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		mount_share(line);
}

