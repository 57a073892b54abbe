/* tools: the lab's numactl, busybox and the kernel's files where programs look for them (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"

/* The loader and libraries of the lab's dynamic programs (images/ARCH.manifest). */
#if defined(__x86_64__)
#define LAB_LOADER "/lib64/ld-linux-x86-64.so.2"
#define LAB_LIBDIR "/lib/x86_64-linux-gnu"
#elif defined(__loongarch__)
#define LAB_LOADER "/lib64/ld-linux-loongarch-lp64d.so.1"
#define LAB_LIBDIR "/lib/loongarch64-linux-gnu"
#else
#error "the lab's guest image has no loader for this architecture"
#endif

#define LAB_NUMACTL "/usr/bin/numactl"
#define LAB_KCONFIG "/lab/kernel.config"

static int lab_root_in_view;

/*
 * In the host view the lab's numactl needs the lab's glibc, newer than the
 * host's: run it through the lab's loader with the lab's libraries.  Given
 * explicitly (not LD_LIBRARY_PATH), they are not inherited by the command
 * numactl starts, which is the host's and runs with the host's libraries.
 */
void run_lab_tool(char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	char **args;
	int argc = 0, n = 0;

	/* By name alone: as PID 1 of a new PID namespace (`unshare -fp numactl …`) it is still numactl. */
	if (strcmp(base, "numactl"))
		return;
	while (argv[argc])
		argc++;
	args = calloc((size_t)argc + 6, sizeof(*args));
	if (!args) {
		dprintf(STDERR_FILENO, "numactl: out of memory\n");
		exit(127);
	}
	args[n++] = VIEW_LAB_ROOT LAB_LOADER;
	args[n++] = "--library-path";
	args[n++] = VIEW_LAB_ROOT LAB_LIBDIR;
	args[n++] = "--argv0";
	args[n++] = argv[0];
	args[n++] = VIEW_LAB_ROOT LAB_NUMACTL;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	execv(args[0], args);
	dprintf(STDERR_FILENO, "numactl: the lab's loader %s: %s\n", args[0], strerror(errno));
	exit(127);
}

/*
 * A fresh tmpfs on dir (a path in the current root) with source, a file or
 * a directory given as an open fd, bound at dir/name; failures are logged.
 */
static void overlay_one(const char *dir, const char *name, int source, int is_dir)
{
	char target[256], from[64];
	int fd;

	snprintf(target, sizeof(target), "%s/%s", dir, name);
	snprintf(from, sizeof(from), "/proc/self/fd/%d", source);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) {
		log_msg("tmpfs on %s in the host view: %s", dir, strerror(errno));
		return;
	}
	if (is_dir)
		mkdir(target, 0755);
	else if ((fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
		close(fd);
	if (mount(from, target, NULL, MS_BIND, NULL))
		log_msg("bind on %s in the host view: %s", target, strerror(errno));
}

/*
 * The running kernel's files where a real system has them, in the host
 * view, whose /lib/modules and /boot are the host's kernels': the module
 * tree at /lib/modules/RELEASE (the host's modprobe loads the guest's
 * modules) and the config at /boot/config-RELEASE (kselftests read it),
 * each on a tmpfs hiding the host's.  Done in a child chrooted into the
 * view, so the host's symlinks (/lib -> usr/lib) resolve in the view.
 */
static void add_view_kernel_files(void)
{
	char modules[128], config[128];
	struct utsname u;
	int tree, conf;
	pid_t pid;

	if (uname(&u))
		return;
	snprintf(modules, sizeof(modules), "/lib/modules/%s", u.release);
	snprintf(config, sizeof(config), "config-%s", u.release);
	tree = open(modules, O_PATH | O_DIRECTORY);
	conf = open(LAB_KCONFIG, O_PATH);
	if (tree >= 0 || conf >= 0) {
		pid = fork();
		if (pid == 0) {
			if (chroot(HOST_VIEW) || chdir("/"))
				_exit(1);
			if (tree >= 0 && !access("/lib/modules", F_OK))
				overlay_one("/lib/modules", u.release, tree, 1);
			if (conf >= 0 && !access("/boot", F_OK))
				overlay_one("/boot", config, conf, 0);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	if (tree >= 0)
		close(tree);
	if (conf >= 0)
		close(conf);
}

/*
 * The lab's root, read-only, at VIEW_LAB_ROOT in the host view (its own
 * files only: the mounts inside it stay out), and links in VIEW_BIN to the
 * lab's numactl (this binary, run_lab_tool()) and busybox: first in PATH,
 * they win over the host's; the host's stay at their own paths.
 */
void add_view_tools(void)
{
	/* The link, what it points to, the lab's program it runs. */
	static const char *const links[][3] = {
		{ HOST_VIEW VIEW_BIN "/numactl", VIEW_LAB_ROOT "/init", LAB_NUMACTL },
		{ HOST_VIEW VIEW_BIN "/busybox", VIEW_LAB_ROOT "/bin/busybox", "/bin/busybox" },
	};

	mkdir(HOST_VIEW VIEW_LAB_ROOT, 0755);
	if (mount("/", HOST_VIEW VIEW_LAB_ROOT, NULL, MS_BIND, NULL) ||
	    mount(NULL, HOST_VIEW VIEW_LAB_ROOT, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL)) {
		log_msg("the lab's root in the host view (%s): %s", VIEW_LAB_ROOT, strerror(errno));
		return;
	}
	lab_root_in_view = 1;
	add_view_kernel_files();
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (!access(links[i][2], X_OK) && symlink(links[i][1], links[i][0]))
			log_msg("symlink %s: %s", links[i][0], strerror(errno));
}

/*
 * KCONFIG_PATH (LTP's tst_kconfig reads it first) naming the kernel's
 * config the host sent, as seen in the lab's root or in the host view
 * (where /boot/config-RELEASE needs a /boot on the host); NULL when the
 * host sent none (a lab kernel's is /proc/config.gz, a --kernel FILE's is
 * unknown).
 */
char *kconfig_env(int in_host_view)
{
	static char lab[] = "KCONFIG_PATH=" LAB_KCONFIG;
	static char view[] = "KCONFIG_PATH=" VIEW_LAB_ROOT LAB_KCONFIG;

	if (access(LAB_KCONFIG, R_OK) || (in_host_view && !lab_root_in_view))
		return NULL;
	return in_host_view ? view : lab;
}
