/*
 * numalab guest /init (docs/architecture.md, "Guest contract").
 *
 * PID 1 of a test VM: mount the kernel filesystems, print the guest's view of
 * itself, run the tests of /lab/plan and relay their KTAP to the TAP channel
 * (/dev/hvc0; with numalab.tap=serial, or without hvc0, framed on the
 * console: serial.c), then power off.  Human-readable progress goes to the console
 * as "numalab-init: ..." lines.
 *
 * PID 1 must never exit (the kernel panics) and must never block for good:
 * output fds are non-blocking with a deadline per write, each test has a
 * timeout, and every failure of init itself ends in "# numalab: init error"
 * and a power-off.
 *
 * Booting from a disk (lab/boot/disk.h): with numalab.root=DEV on the command line
 * the initramfs /init loads /lab/modules.order's modules, mounts DEV as the
 * new root and execs the disk's /lab/init (ON_DISK_ARG), which runs the plan
 * with the disk's userland and also writes the TAP to /lab/results/tap,
 * synced after every test, so results survive a crash of the guest.
 *
 * Bring your own (docs/byo.md, docs/guest.md): /lab/shares lists 9p shares
 * of the host (its root, read-only, becomes the "host view" at HOST_VIEW:
 * the host's programs with the guest's /proc, /sys, /dev and fresh tmpfs on
 * /tmp and /run); /lab/suites/NAME/ holds --tests-dir suites; "@exec" in the
 * plan runs /lab/exec's command in the host view; /lab/shell asks for an
 * interactive shell on the serial console after the plan, which `poweroff`
 * (this binary under that name: it signals PID 1) or exit ends.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "init.h"

void mount_fs(const char *type, const char *target, unsigned long flags, int required)
{
	/* An existing directory is fine; any other mkdir failure shows up in mount(). */
	mkdir(target, 0755);
	if (mount(type, target, type, flags, NULL) == 0 || errno == EBUSY)
		return;
	if (required)
		init_error("mount %s on %s: %s", type, target, strerror(errno));
	log_msg("%s not mounted on %s: %s", type, target, strerror(errno));
}

/* token appears in the (space-separated) kernel command line. */
static int cmdline_has(const char *cmdline, const char *token)
{
	size_t len = strlen(token);

	for (const char *p = cmdline; (p = strstr(p, token)); p += len)
		if ((p == cmdline || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct plan_entry plan[MAX_TESTS];
	struct timespec boottime;
	char cmdline[4096], root[256];
	int nr, on_disk = argc > 1 && !strcmp(argv[1], ON_DISK_ARG);
	struct sigaction sa = { .sa_handler = on_poweroff_signal };

	run_as_applet(argv[0]);
	run_lab_tool(argv);
	/* busybox's convention (halt, poweroff, reboot): any of them powers off here. */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	mount_fs("devtmpfs", "/dev", MS_NOSUID, 1);
	claim_std_fds();
	open_console();
	mount_fs("proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 1);
	mount_fs("sysfs", "/sys", MS_NOSUID | MS_NODEV | MS_NOEXEC, 1);
	mount_fs("debugfs", "/sys/kernel/debug", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
	mount_fs("tracefs", "/sys/kernel/tracing", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
	if (read_value("/proc/cmdline", cmdline, sizeof(cmdline)))
		init_error("cannot read /proc/cmdline: %s", strerror(errno));
	open_tap(cmdline_has(cmdline, "numalab.tap=serial"));
	if (cmdline_has(cmdline, "numalab.probe=1")) {
		tap_line("# numalab: probe");
		power_off();
	}
	if (!on_disk && !cmdline_value(cmdline, "numalab.root", root, sizeof(root)))
		boot_disk(cmdline, root);
	if (on_disk)
		open_tap_copy();
	read_faults(cmdline);
	furnish_guest();
	if (!on_disk)
		load_modules();   /* a modular kernel's 9p (lab/boot/image.h) */
	mount_shares();
	serve_modules();
	if (host_view_ready)
		add_view_tools();   /* after every share: the module tree is one */
	fault_before_tap();
	clock_gettime(CLOCK_BOOTTIME, &boottime);
	tap_line("KTAP version 1");
	/* The host subtracts this from its first-TAP time: what came before the kernel. */
	tap_line("# guest.boottime_s: %lld.%03ld", (long long)boottime.tv_sec, boottime.tv_nsec / 1000000);
	print_guest_view(cmdline);
	nr = read_plan(plan, MAX_TESTS);
	tap_line("1..%d", nr);
	for (int i = 0; i < nr; i++) {
		run_test(i + 1, &plan[i]);
		reap_orphans();
	}
	if (!access(SHELL_PATH, F_OK))
		run_shell();
	print_kernel_warnings();
	tap_line("# numalab: done");
	power_off();
}

