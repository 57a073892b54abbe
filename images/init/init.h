/*
 * init.h: what the parts of the guest /init (main.c: the order of a boot)
 * share.  Each file is one seam:
 *
 *   channels.c  the console and the TAP channel: non-blocking writes with a
 *               deadline, so PID 1 never hangs on a stuck reader
 *   serial.c    the TAP on the serial console (no virtio console: a board,
 *               LAVA): framed lines, LAVA's test-case signals
 *   view.c      the guest's view of itself ("# guest.KEY: VALUE" lines) and
 *               the kernel warnings after the plan
 *   run.c       the plan (/lab/plan), each test in its own session,
 *               its KTAP relayed nested under "# Subtest:", its result
 *   skip_reason.c  why a test skips, from its output (pure: the host's
 *               unit tests check it too)
 *   disk.c      booting from a disk root (numalab.root=)
 *   shares.c    the Linux system third-party suites expect, the host's 9p
 *               shares and the host view
 *   shell.c     `poweroff` as an applet and the interactive shell
 *   modules.c   modules the kernel loads on demand (modprobe, static nodes)
 *   tools.c     the lab's numactl and busybox first in the host view's
 *               PATH, KCONFIG_PATH for tests, suites and the command
 *   faults.c    the failures the lab injects to test its own reporting
 *               (numalab.fault=, numalab.test_timeout=): nothing else in
 *               /init knows about them
 *
 * File readers and id lists come from the guest test library
 * (tests/guest/lib/ktap.h: sys_read_bytes, idlist_parse).
 */
#ifndef NUMALAB_INIT_H
#define NUMALAB_INIT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define CONSOLE_PATH "/dev/console"
#define TAP_PATH "/dev/hvc0"
#define PLAN_PATH "/lab/plan"
#define TESTS_DIR "/lab/tests"
#define SUITES_DIR "/lab/suites"
#define SHARES_PATH "/lab/shares"
#define EXEC_PATH "/lab/exec"
#define SHELL_PATH "/lab/shell"
#define EXEC_PLAN_NAME "@exec"
#define HOST_VIEW "/host"
/* In the host view: tmpfs, holding `poweroff` (this binary) first in PATH. */
#define VIEW_BIN "/run/numalab/bin"
/* In the host view: the lab's own root (read-only), for its tools and files. */
#define VIEW_LAB_ROOT "/run/numalab/root"
#define VIEW_PATH_ENV "PATH=" VIEW_BIN ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define SHELL_TTY "/dev/ttyS0"
#define NODE_DIR "/sys/devices/system/node"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define TIERS_DIR "/sys/devices/virtual/memory_tiering"
#define TEST_PATH_ENV "PATH=/usr/bin:/bin:/usr/sbin:/sbin"
#define MODULES_ORDER "/lab/modules.order"
/* busybox's; the kernel runs it (in the lab's root) to load a module on demand. */
#define MODPROBE_PATH "/sbin/modprobe"
#define NEW_ROOT "/newroot"
#define DISK_INIT "/lab/init"
#define ON_DISK_ARG "numalab-on-disk"
#define RESULTS_TAP "/lab/results/tap"
#define ROOT_WAIT_MS 20000        /* for the disk to appear after virtio_blk loads */

#define TAP_WAIT_MS 5000          /* virtio-console may probe after /init starts */
#define WRITE_TIMEOUT_MS 10000    /* a channel stuck this long is given up */
#define DRAIN_TIMEOUT_MS 2000     /* for the TAP tail to leave the guest before power-off */
#define REAP_TIMEOUT_MS 5000      /* for a SIGKILLed test to die */
#define LINE_MAX_LEN 4096
#define MAX_TESTS 256
#define MAX_TEST_NAME 64
#define MAX_NODES 64
#define MAX_TIERS 64
#define DMESG_MAX_LINES 40
#define EXEC_MAX_ARGS 256
#define ENV_MAX 32

/* klogctl() actions (<sys/klog.h> leaves them to the caller). */
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10
#define SYSLOG_ACTION_CONSOLE_LEVEL 8

struct plan_entry {
	char name[MAX_TEST_NAME];
	unsigned timeout_s;
};

/* channels.c */
int64_t now_ms(void);
/* Milliseconds left until deadline, 0 once it has passed. */
int ms_until(int64_t deadline);
int min_int(int a, int b);
void sleep_ms(int ms);
/* "numalab-init: ..." on the console. */
void __attribute__((format(printf, 1, 2))) log_msg(const char *fmt, ...);
/* One line on the TAP channel (and its disk copy). */
void __attribute__((format(printf, 1, 2))) tap_line(const char *fmt, ...);
/* What is in the disk's copy of the TAP reaches the disk now: a crash may follow. */
void sync_tap_copy(void);
_Noreturn void power_off(void);
/* Something went wrong in init itself: say so on the TAP channel (or the console) and stop. */
_Noreturn void __attribute__((format(printf, 1, 2))) init_error(const char *fmt, ...);
void claim_std_fds(void);
void open_console(void);
/* The TAP channel: /dev/hvc0, or with serial (or without hvc0) the console, framed (serial.c). */
void open_tap(int serial);
/* Bytes on the TAP channel as they are (serial.c's frames and signals). */
void serial_write(const char *buf, size_t len);
/* On a disk root, the TAP also goes to RESULTS_TAP (the host reads it back). */
void open_tap_copy(void);

/* view.c */
/* A file as one TAP-safe value: control characters become spaces, trailing ones go. */
int read_value(const char *path, char *buf, size_t size);
void print_guest_view(const char *cmdline);
/* Warnings hidden by loglevel= on the console still reach the TAP stream. */
void print_kernel_warnings(void);

/* run.c */
/* The plan's entries into plan (at most max); their number. */
int read_plan(struct plan_entry *plan, int max);
/* dup2 fd onto target and close fd (nothing if fd < 0). */
void move_fd(int fd, int target);
/* Test number of the plan: "# Subtest:", its relayed KTAP, its result line. */
void run_test(int number, const struct plan_entry *t);
/* As PID 1, init inherits every orphan; reap them between tests. */
void reap_orphans(void);

/* skip_reason.c */
/*
 * If line says why its test skips -- LTP's "TCONF: reason", kselftest's
 * "# SKIP reason", "SKIP: reason", "[SKIP] reason" -- the reason into
 * reason (cap bytes, cut) and 1; else 0 and reason untouched.  A test that
 * exits with its skip code is reported with its last such line.
 */
int skip_reason(const char *line, char *reason, size_t cap);

/* serial.c: TAP lines framed on the console, LAVA's test-case signals for its results. */
void serial_tap_start(void);
void serial_tap_line(const char *text, size_t len);
/* The walk's last held result out (before power-off). */
void serial_tap_end(void);

/* disk.c */
/* The value of KEY=VALUE on the command line into out; 0, or -1 when absent. */
int cmdline_value(const char *cmdline, const char *key, char *out, size_t cap);
/* finit_module() each module of MODULES_ORDER (absent: the kernel has its drivers built in). */
void load_modules(void);
/* Mount the disk root and become its /lab/init; returns only by init_error(). */
_Noreturn void boot_disk(const char *cmdline, const char *device);

/* shares.c */
/* Why the host view is missing, for the command's result (until it is mounted). */
extern char host_view_error[256];
extern int host_view_ready;
void furnish_guest(void);
/* Every share of SHARES_PATH, in order (the root first, then what goes inside it). */
void mount_shares(void);

/* shell.c */
extern volatile sig_atomic_t poweroff_requested;
void on_poweroff_signal(int sig);
/* `poweroff` in the guest: this binary under another name asks PID 1 to power off. */
int run_as_applet(const char *argv0);
/* The interactive shell on the serial console, until it exits or someone runs `poweroff`. */
void run_shell(void);

/* modules.c */
/*
 * With the kernel's module tree at /lib/modules/RELEASE (a modular kernel
 * and a run that shares it, lab/drive/run.c), the kernel can load modules
 * on demand as on a real system: /proc/sys/kernel/modprobe is MODPROBE_PATH,
 * and the nodes of modules.devname (/dev/loop-control, /dev/fuse, ...)
 * exist, so opening one loads its module.  Without the tree: nothing.
 */
void serve_modules(void);

/* tools.c */
/* This binary as `numactl` in the host view runs the lab's numactl; returns if it is not. */
void run_lab_tool(char **argv);
/*
 * Into the host view, once every share is mounted: the lab's root at
 * VIEW_LAB_ROOT, its tools in VIEW_BIN, the kernel's module tree and config
 * at /lib/modules/RELEASE and /boot/config-RELEASE.
 */
void add_view_tools(void);
/* "KCONFIG_PATH=..." naming the kernel's config in the lab's root or the host view; NULL: none. */
char *kconfig_env(int in_host_view);

/* main.c */
void mount_fs(const char *type, const char *target, unsigned long flags, int required);

/*
 * faults.c: numalab.fault=, numalab.test_timeout= and numalab.case_timeout=
 * from the command line (unknown values are init errors), then the hooks
 * where a fault plays.
 */
void read_faults(const char *cmdline);
/* silent: no TAP at all, hang here. */
void fault_before_tap(void);
/* poweroff: power off as the first test starts (after its "# Subtest:"). */
void fault_at_test_start(void);
/* In a test's child before exec: hang, or print hostile bytes and exit. */
void fault_in_test_child(void);
/* numalab.test_timeout=S overrides the plan's timeout of every test. */
unsigned fault_test_timeout(unsigned plan_s);
/*
 * The environment the lab's suites get for case-segv and case_timeout
 * (tests/guest/lib/harness.h): its i-th variable, NULL after the last.
 */
char *fault_test_env(int i);

#endif
