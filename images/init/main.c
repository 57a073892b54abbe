/*
 * numalab guest /init (docs/architecture.md, "Guest contract").
 *
 * PID 1 of a test VM: mount the kernel filesystems, print the guest's view of
 * itself, run the tests of /lab/plan and relay their KTAP to the TAP channel
 * (/dev/hvc0), then power off.  Human-readable progress goes to the console
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

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
#define VIEW_PATH_ENV "PATH=" VIEW_BIN ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define SHELL_TTY "/dev/ttyS0"
#define NODE_DIR "/sys/devices/system/node"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define TIERS_DIR "/sys/devices/virtual/memory_tiering"
#define TEST_PATH_ENV "PATH=/usr/bin:/bin:/usr/sbin:/sbin"
#define MODULES_ORDER "/lab/modules.order"
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

/* An output channel; fd < 0 once it failed, so a dead channel costs nothing. */
struct channel {
	int fd;
	const char *path;
};

static struct channel console = { -1, CONSOLE_PATH };
static struct channel tap = { -1, TAP_PATH };
static struct channel tap_copy = { -1, RESULTS_TAP };   /* on a disk root only */

struct plan_entry {
	char name[MAX_TEST_NAME];
	unsigned timeout_s;
};

/* How one plan entry runs: what, where, with which environment and skip code. */
struct launch {
	char path[512];               /* the program */
	char *const *argv;            /* NULL: { path } */
	const char *root;             /* chroot here first; NULL: the lab's root */
	const char *cwd;              /* NULL: "/" */
	char *env[ENV_MAX + 1];
	int skip_code;                /* exit status meaning skip; -1: none */
	int hard_error_code;          /* exit status meaning it could not test at all; -1: none */
	int search_path;              /* argv[0] is looked up in PATH (execvpe) */
};

/* Why the host view is missing, for the command's result (until it is mounted). */
static char host_view_error[256] = "no host root share (/lab/shares)";
static int host_view_ready;
static volatile sig_atomic_t poweroff_requested;

/*
 * Faults the lab injects to test its own reporting (docs/reliability.md),
 * from the kernel command line:
 *   numalab.fault=silent    no TAP at all, then hang: a guest that never reports
 *   numalab.fault=hang      each test hangs instead of running: its timeout fires
 *   numalab.fault=poweroff  power off as the first test starts: TAP cut mid-stream
 *   numalab.fault=garbage   each test prints hostile bytes instead of running
 *   numalab.test_timeout=S  every test's timeout is S seconds, not the plan's
 */
enum fault { FAULT_NONE, FAULT_SILENT, FAULT_HANG, FAULT_POWEROFF, FAULT_GARBAGE };

static enum fault fault;
static unsigned test_timeout_s;

/* A test's stdout on its way to the TAP channel, cut into lines. */
struct relay {
	int fd;
	char line[LINE_MAX_LEN + 1];
	size_t len;
	char skip_reason[256];    /* of the last "# SKIP" line */
	int own_failed;           /* "not ok" results at the program's own top level */
	int yaml_indent;          /* inside a result's YAML block ("  ---" ... "  ..."): its indent; else -1 */
};

enum relay_state { RELAY_DATA, RELAY_IDLE, RELAY_EOF };

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline, 0 once it has passed. */
static int ms_until(int64_t deadline)
{
	int64_t left = deadline - now_ms();

	return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int wait_writable(int fd, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int left = ms_until(deadline);

	return left > 0 && poll(&pfd, 1, left) > 0;
}

static void channel_give_up(struct channel *ch)
{
	close(ch->fd);
	ch->fd = -1;
	if (ch == &tap && console.fd >= 0)
		dprintf(console.fd, "numalab-init: %s failed or is stuck; TAP output dropped\n",
			tap.path);
}

/* Write all of buf or give the channel up: init must not hang on a stuck reader. */
static void channel_write(struct channel *ch, const char *buf, size_t len)
{
	int64_t deadline = now_ms() + WRITE_TIMEOUT_MS;

	while (ch->fd >= 0 && len > 0) {
		ssize_t n = write(ch->fd, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && wait_writable(ch->fd, deadline))
			continue;
		channel_give_up(ch);
	}
}

/* One line (the newline is added); overlong lines are cut, never split. */
static void channel_vline(struct channel *ch, const char *prefix, const char *fmt, va_list ap)
{
	char line[LINE_MAX_LEN + 128];
	int prefix_len = snprintf(line, sizeof(line), "%s", prefix);
	int n = vsnprintf(line + prefix_len, sizeof(line) - (size_t)prefix_len, fmt, ap);
	size_t len = (size_t)prefix_len + (n > 0 ? (size_t)n : 0);

	if (len > sizeof(line) - 1)
		len = sizeof(line) - 1;
	line[len++] = '\n';
	channel_write(ch, line, len);
}

static void __attribute__((format(printf, 1, 2))) log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	channel_vline(&console, "numalab-init: ", fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2))) tap_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (tap_copy.fd >= 0) {
		va_list copy;

		va_copy(copy, ap);
		channel_vline(&tap_copy, "", fmt, copy);
		va_end(copy);
	}
	channel_vline(&tap, "", fmt, ap);
	va_end(ap);
}

/* What is in the disk's copy of the TAP reaches the disk now: a crash may follow. */
static void sync_tap_copy(void)
{
	if (tap_copy.fd >= 0)
		fdatasync(tap_copy.fd);
}

/* Wait (bounded) until the TAP tty has handed everything to the host. */
static void drain_tap(void)
{
	int64_t deadline = now_ms() + DRAIN_TIMEOUT_MS;
	int pending;

	while (tap.fd >= 0 && ioctl(tap.fd, TIOCOUTQ, &pending) == 0 && pending > 0 &&
	       ms_until(deadline) > 0)
		sleep_ms(10);
}

static _Noreturn void power_off(void)
{
	log_msg("powering off");
	sync_tap_copy();
	drain_tap();
	sync();
	reboot(RB_POWER_OFF);
	log_msg("reboot(RB_POWER_OFF): %s", strerror(errno));
	for (;;)
		pause();
}

/* Something went wrong in init itself: say so on the TAP channel (or the console) and stop. */
static _Noreturn void __attribute__((format(printf, 1, 2))) init_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg("init error: %s", msg);
	if (tap.fd >= 0)
		tap_line("# numalab: init error: %s", msg);
	else if (console.fd >= 0)
		dprintf(console.fd, "# numalab: init error: %s\n", msg);
	power_off();
}

static void mount_fs(const char *type, const char *target, unsigned long flags, int required)
{
	/* An existing directory is fine; any other mkdir failure shows up in mount(). */
	mkdir(target, 0755);
	if (mount(type, target, type, flags, NULL) == 0 || errno == EBUSY)
		return;
	if (required)
		init_error("mount %s on %s: %s", type, target, strerror(errno));
	log_msg("%s not mounted on %s: %s", type, target, strerror(errno));
}

/*
 * The kernel gives /init fds 0-2 only when the image has /dev/console.  Take
 * them, so no pipe or channel fd lands there: a child's dup2() of a pipe onto
 * its own number would keep O_CLOEXEC and lose the pipe at exec.
 */
static void claim_std_fds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= STDERR_FILENO)
		;
	if (fd > STDERR_FILENO)
		close(fd);
}

static int open_output(const char *path)
{
	return open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

/* A tty turns "\n" into "\r\n" (OPOST); the TAP stream must arrive byte for byte. */
static void raw_output(int fd)
{
	struct termios tio;

	if (tcgetattr(fd, &tio) == 0) {
		tio.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(fd, TCSANOW, &tio);
	}
}

static void open_tap(void)
{
	int64_t deadline = now_ms() + TAP_WAIT_MS;

	while ((tap.fd = open_output(TAP_PATH)) < 0 && ms_until(deadline) > 0)
		sleep_ms(100);
	if (tap.fd < 0) {
		log_msg("warning: cannot open %s (%s); TAP goes to %s", TAP_PATH,
			strerror(errno), CONSOLE_PATH);
		tap.fd = open_output(CONSOLE_PATH);
		tap.path = CONSOLE_PATH;
	}
	if (tap.fd >= 0)
		raw_output(tap.fd);
}

/* Read a whole small file; returns its length, -1 (errno set; EFBIG if it does not fit). */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (n < 0)
		return -1;
	if (len == size - 1) {
		errno = EFBIG;
		return -1;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

/* A file as one TAP-safe value: control characters become spaces, trailing ones go. */
static int read_value(const char *path, char *buf, size_t size)
{
	ssize_t len = read_file(path, buf, size);

	if (len < 0)
		return -1;
	for (ssize_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < ' ')
			buf[i] = ' ';
	while (len > 0 && buf[len - 1] == ' ')
		buf[--len] = '\0';
	return 0;
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

/* numalab.fault= and numalab.test_timeout= (see enum fault); unknown values are init errors. */
static void read_faults(const char *cmdline)
{
	static const char *const names[] = { "none", "silent", "hang", "poweroff", "garbage" };
	const char *f = strstr(cmdline, "numalab.fault="), *cap = strstr(cmdline, "numalab.test_timeout=");
	size_t len;

	if (f) {
		f += strlen("numalab.fault=");
		len = strcspn(f, " ");
		for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i]) && !strncmp(f, names[i], len))
				fault = (enum fault)i;
		if (fault == FAULT_NONE)
			init_error("numalab.fault=%.*s: use silent, hang, poweroff or garbage", (int)len, f);
	}
	if (cap) {
		char *end;
		unsigned long v = strtoul(cap + strlen("numalab.test_timeout="), &end, 10);

		if (v == 0 || v > 86400 || (*end && *end != ' '))
			init_error("numalab.test_timeout: give seconds, 1..86400");
		test_timeout_s = (unsigned)v;
	}
}

/* The ids of a sysfs list like "0-1,4"; their count, or -1 if malformed or more than max. */
static int parse_id_list(const char *s, int *ids, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		long first = strtol(s, &end, 10), last = first;

		if (end == s || first < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			last = strtol(s, &end, 10);
			if (end == s || last < first)
				return -1;
		}
		for (long id = first; id <= last; id++) {
			if (n == max)
				return -1;
			ids[n++] = (int)id;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
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
	if (read_file(path, meminfo, sizeof(meminfo)) >= 0)
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
	int nodes[MAX_NODES], nr;

	if (read_value(NODE_DIR "/online", online, sizeof(online))) {
		tap_line("# guest.nodes_online: n/a");
		return;
	}
	tap_line("# guest.nodes_online: %s", online);
	nr = parse_id_list(online, nodes, MAX_NODES);
	for (int i = 0; i < nr; i++)
		print_node_view(nodes[i]);
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

static void print_guest_view(const char *cmdline)
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

/* A test name is a file name in TESTS_DIR: no '/', no leading '.'. */
static int valid_test_name(const char *name)
{
	if (name[0] == '.')
		return 0;
	for (const char *c = name; *c; c++)
		if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			return 0;
	return 1;
}

/* One "NAME TIMEOUT_SECONDS" line; blank and '#' lines are skipped (returns 0). */
static int parse_plan_line(const char *line, struct plan_entry *t, int lineno)
{
	char extra;

	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return 0;
	if (sscanf(line, "%63s %u %c", t->name, &t->timeout_s, &extra) != 2 ||
	    !(valid_test_name(t->name) || !strcmp(t->name, EXEC_PLAN_NAME)) || t->timeout_s == 0 ||
	    t->timeout_s > 86400)
		init_error("%s:%d: expected 'NAME TIMEOUT_SECONDS', got '%s'", PLAN_PATH, lineno, line);
	return 1;
}

static int read_plan(struct plan_entry *plan, int max)
{
	static char text[MAX_TESTS * (MAX_TEST_NAME + 16)];
	char *line, *next;
	struct plan_entry t;
	int nr = 0, lineno = 0;

	if (read_file(PLAN_PATH, text, sizeof(text)) < 0)
		init_error("cannot read %s: %s", PLAN_PATH, strerror(errno));
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_plan_line(line, &t, ++lineno))
			continue;
		if (nr == max)
			init_error("%s: more than %d tests", PLAN_PATH, max);
		if (test_timeout_s)
			t.timeout_s = test_timeout_s;
		plan[nr++] = t;
	}
	return nr;
}

/*
 * A line of (K)TAP: after an indentation of whole levels (4 spaces), a
 * version, plan, result, diagnostic or bail out.  (A result's YAML block,
 * "  ---" ... "  ...", is in_yaml_block()'s.)  Anything else a program
 * prints is its plain output, even indented by two ("  0:  10  21" of
 * numactl --hardware).
 */
static int is_tap_line(const char *line)
{
	static const char *const starts[] = { "ok ", "not ok", "1..", "KTAP version", "TAP version",
					      "#", "Bail out!" };
	size_t indent = strspn(line, " ");

	if (indent % 4)
		return 0;
	line += indent;
	if (!strcmp(line, "ok"))
		return 1;
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(line, starts[i], strlen(starts[i])))
			return 1;
	return 0;
}

/*
 * TAP's YAML diagnostics: "---" two spaces deeper than a result opens a
 * block, "..." at the same indent closes it; what is between is TAP too.
 */
static int in_yaml_block(struct relay *r)
{
	int indent = (int)strspn(r->line, " ");
	const char *text = r->line + indent;

	if (r->yaml_indent >= 0) {
		if (indent == r->yaml_indent && !strcmp(text, "..."))
			r->yaml_indent = -1;
		return 1;
	}
	if (indent % 4 == 2 && !strcmp(text, "---")) {
		r->yaml_indent = indent;
		return 1;
	}
	return 0;
}

/* A failure the program reported at its own top level (not SKIP, not TODO). */
static int own_failure(const char *line)
{
	const char *hash = strchr(line, '#');

	if (strncmp(line, "not ok", 6))
		return 0;
	if (!hash)
		return 1;
	hash += 1 + strspn(hash + 1, " ");
	return strncasecmp(hash, "SKIP", 4) && strncasecmp(hash, "TODO", 4);
}

/*
 * Relay one line of the program's output one level deeper: its (K)TAP as
 * is, plain output as a diagnostic ("# ..."), so it stays readable in the
 * TAP and cannot pass for results; remember its "# SKIP" reason.
 */
static void relay_line(struct relay *r)
{
	const char *skip;

	while (r->len > 0 && r->line[r->len - 1] == '\r')
		r->len--;
	r->line[r->len] = '\0';
	r->len = 0;
	if (in_yaml_block(r)) {
		tap_line("    %s", r->line);
		return;
	}
	if (!is_tap_line(r->line)) {
		tap_line("    # %s", r->line);
		return;
	}
	tap_line("    %s", r->line);
	r->own_failed += own_failure(r->line);
	skip = strstr(r->line, "# SKIP");
	if (!skip)
		return;
	skip += strlen("# SKIP");
	skip += strspn(skip, " \t");
	if (*skip)
		snprintf(r->skip_reason, sizeof(r->skip_reason), "%s", skip);
}

static void relay_bytes(struct relay *r, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			relay_line(r);
			continue;
		}
		if (r->len == LINE_MAX_LEN)   /* an overlong line is split, not lost */
			relay_line(r);
		r->line[r->len++] = data[i];
	}
}

/* Wait up to timeout_ms for the test's output and relay what came. */
static enum relay_state relay_poll(struct relay *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return RELAY_IDLE;
	n = read(r->fd, buf, sizeof(buf));
	if (n > 0) {
		relay_bytes(r, buf, (size_t)n);
		return RELAY_DATA;
	}
	return n < 0 && (errno == EINTR || errno == EAGAIN) ? RELAY_IDLE : RELAY_EOF;
}

/*
 * Relay the test's output until it has exited and its pipe is drained.
 * Returns 0 with *status set, -1 when the deadline passed first.
 */
static int relay_until_exit(pid_t pid, struct relay *r, int64_t deadline, int *status)
{
	int reaped = 0, eof = 0;

	while (!reaped || !eof) {
		int left = ms_until(deadline);

		if (left == 0)
			return -1;
		if (!reaped && waitpid(pid, status, WNOHANG) == pid)
			reaped = 1;
		if (!eof) {
			enum relay_state s = relay_poll(r, reaped ? 0 : min_int(left, 100));

			/* After the test exits, only leftovers of its group can hold the pipe: they are killed next. */
			eof = s == RELAY_EOF || (s == RELAY_IDLE && reaped);
		} else if (!reaped) {
			sleep_ms(min_int(left, 20));
		}
	}
	return 0;
}

/* SIGKILL the test's group and reap it; gives up (-1) on a task stuck in the kernel. */
static int kill_and_reap(pid_t pid, int *status)
{
	int64_t deadline = now_ms() + REAP_TIMEOUT_MS;

	killpg(pid, SIGKILL);
	kill(pid, SIGKILL);   /* should the child not have reached setpgid() */
	while (waitpid(pid, status, WNOHANG) != pid) {
		if (ms_until(deadline) == 0)
			return -1;
		sleep_ms(20);
	}
	return 0;
}

static void move_fd(int fd, int target)
{
	if (fd >= 0 && fd != target) {
		dup2(fd, target);
		close(fd);
	}
}

/*
 * What a hostile or broken test may print: escapes (title, clear screen,
 * OSC), NUL, invalid UTF-8 and C1 controls, an overlong line, a fake plan,
 * fake results and tests at every depth, a fake end marker and guest facts,
 * names that are paths, on the TAP channel and the console.  The host must
 * keep all of it inert.
 */
static _Noreturn void print_garbage(void)
{
	static const char text[] =
		"\033]0;numalab-pwned\007\033[2J\033[31mred\033[0m \033P+q\033\\\n"
		"nul\0byte \xff\xfe\xc0\x80 \xc2\x9b" "31m c1-csi\r\n"
		"1..1\n"
		"ok 1 topology\n"
		"not ok 99 ../../../../tmp/numalab-evil # SKIP /etc/passwd\n"
		"# Subtest: ../../evil\n"
		"    ok 1 deeper\n"
		"# numalab: done\n"
		"# guest.kernel: forged\n"
		"Bail out!\n";
	static char overlong[10000];

	int console_fd = open(CONSOLE_PATH, O_WRONLY | O_NOCTTY);

	write(STDOUT_FILENO, text, sizeof(text) - 1);
	write(console_fd, text, sizeof(text) - 1);   /* the console: scanned, kept raw */
	memset(overlong, 'A', sizeof(overlong));
	write(STDOUT_FILENO, overlong, sizeof(overlong));
	write(STDOUT_FILENO, "\n", 1);
	_exit(0);
}

/*
 * In the child: own process group, stdout and stderr to the relay pipe (a
 * suite's report on stderr is its output too), stdin from /dev/null.
 */
static _Noreturn void exec_test(const struct launch *l, int out_fd)
{
	char *const default_argv[] = { (char *)l->path, NULL };
	char *const *argv = l->argv ? l->argv : default_argv;

	setpgid(0, 0);
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	move_fd(open("/dev/null", O_RDONLY), STDIN_FILENO);
	if (fault == FAULT_HANG)
		for (;;)
			pause();
	if (fault == FAULT_GARBAGE)
		print_garbage();
	if (l->root && (chroot(l->root) || chdir("/"))) {
		dprintf(STDERR_FILENO, "numalab-init: chroot %s: %s\n", l->root, strerror(errno));
		_exit(127);
	}
	if (chdir(l->cwd ? l->cwd : "/")) {
		dprintf(STDERR_FILENO, "numalab-init: chdir %s: %s\n", l->cwd, strerror(errno));
		_exit(127);
	}
	if (l->search_path)
		execvpe(argv[0], argv, l->env);
	else
		execve(l->path, argv, l->env);
	dprintf(STDERR_FILENO, "numalab-init: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void report_result(int number, const char *name, const struct plan_entry *t,
			  const struct launch *l, int timed_out, int status, const struct relay *r)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (timed_out) {
		tap_line("not ok %d %s # TIMEOUT %us", number, name, t->timeout_s);
	} else if (code == 0 && r->own_failed) {
		tap_line("    # %s exited 0 but reported %d failure%s", name, r->own_failed,
			 r->own_failed == 1 ? "" : "s");
		tap_line("not ok %d %s", number, name);
	} else if (code == 0) {
		tap_line("ok %d %s", number, name);
	} else if (code >= 0 && code == l->skip_code) {
		tap_line("ok %d %s # SKIP %s", number, name, *r->skip_reason ? r->skip_reason : "skipped");
	} else if (code >= 0 && code == l->hard_error_code) {
		tap_line("not ok %d %s # ERROR hard error: exit status %d", number, name, code);
	} else if (WIFSIGNALED(status)) {
		tap_line("    # %s killed by signal %d (%s)", name, WTERMSIG(status), strsignal(WTERMSIG(status)));
		tap_line("not ok %d %s # signal %d", number, name, WTERMSIG(status));
	} else {
		tap_line("    # %s exited with status %d", name, code);
		tap_line("not ok %d %s # exit %d", number, name, code);
	}
}

/* Relay the running test's KTAP, enforce its timeout, and report its result. */
static void run_started_test(int number, const char *name, const struct plan_entry *t,
			     const struct launch *l, pid_t pid, int out_fd)
{
	struct relay r = { .fd = out_fd, .yaml_indent = -1 };
	int status = 0, timed_out;

	timed_out = relay_until_exit(pid, &r, now_ms() + t->timeout_s * INT64_C(1000), &status);
	if (r.len)
		relay_line(&r);
	if (timed_out) {
		if (kill_and_reap(pid, &status))
			log_msg("%s (pid %d) did not die after SIGKILL", name, (int)pid);
	} else {
		killpg(pid, SIGKILL);   /* leftovers of the test's process group */
	}
	close(out_fd);
	report_result(number, name, t, l, timed_out, status, &r);
	sync_tap_copy();
}

static void env_init(struct launch *l, const char *path_env)
{
	l->env[0] = (char *)path_env;
	l->env[1] = "HOME=/";
	l->env[2] = NULL;
}

static void env_add(struct launch *l, char *var)
{
	int n = 0;

	while (l->env[n])
		n++;
	if (n < ENV_MAX) {
		l->env[n] = var;
		l->env[n + 1] = NULL;
	}
}

/*
 * A suite's settings (/lab/suites/NAME.conf, written by the host from its
 * sidecar, lab/model/suite.h): "skip-code N", "tmpdir", "env NAME=VALUE".
 */
static void read_suite_conf(const char *name, struct launch *l)
{
	static char text[8192], tmpdir[96];
	char path[256], *line, *save = NULL;

	snprintf(path, sizeof(path), SUITES_DIR "/%.63s.conf", name);
	if (read_file(path, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "skip-code ", 10)) {
			l->skip_code = atoi(line + 10);
		} else if (!strncmp(line, "env ", 4)) {
			env_add(l, line + 4);
		} else if (!strcmp(line, "tmpdir")) {
			snprintf(tmpdir, sizeof(tmpdir), "/tmp/%.40s.XXXXXX", name);
			if (mkdtemp(tmpdir)) {
				static char var[128];

				snprintf(var, sizeof(var), "TMPDIR=%s", tmpdir);
				env_add(l, var);
			}
		}
	}
}

/* /lab/exec: TAP name, cwd, argv, each NUL-terminated; 0, or -1 (unreadable, malformed). */
static int read_exec(char *name, size_t cap, struct launch *l)
{
	static char text[65536];
	static char *argv[EXEC_MAX_ARGS + 1];
	ssize_t len = read_file(EXEC_PATH, text, sizeof(text));
	char *p, *end;
	int n = 0;

	if (len < 0)
		return -1;
	end = text + len;
	snprintf(name, cap, "%.*s", (int)cap - 1, text);
	p = text + strlen(text) + 1;
	if (p >= end)
		return -1;
	l->cwd = p;
	for (p += strlen(p) + 1; p < end && n < EXEC_MAX_ARGS; p += strlen(p) + 1)
		argv[n++] = p;
	argv[n] = NULL;
	if (!n)
		return -1;
	l->argv = argv;
	snprintf(l->path, sizeof(l->path), "%s", argv[0]);
	return 0;
}

/* The user's command ("@exec"): in the host view at the host's cwd, its argv[0] looked up in PATH. */
static int exec_launch(char *name, size_t cap, struct launch *l)
{
	if (read_exec(name, cap, l)) {
		snprintf(name, cap, "exec");
		return -1;
	}
	env_init(l, VIEW_PATH_ENV);
	l->env[1] = "HOME=/root";
	env_add(l, "TERM=dumb");
	env_add(l, "LANG=C.UTF-8");
	l->root = HOST_VIEW;
	/* Automake's convention (and meson's): the command may be any project's test. */
	l->skip_code = 77;
	l->hard_error_code = 99;
	l->search_path = 1;
	return 0;
}

static void run_test(int number, const struct plan_entry *t)
{
	static char name[256];
	struct launch l = { .skip_code = 4, .hard_error_code = -1 };
	int pipefd[2], is_exec = !strcmp(t->name, EXEC_PLAN_NAME);
	pid_t pid;

	snprintf(name, sizeof(name), "%.63s", t->name);
	if (is_exec && exec_launch(name, sizeof(name), &l)) {
		tap_line("    # Subtest: %s", name);
		tap_line("not ok %d %s # ERROR cannot read %s", number, name, EXEC_PATH);
		return;
	}
	tap_line("    # Subtest: %s", name);
	sync_tap_copy();   /* a crash now still shows which test was running */
	if (fault == FAULT_POWEROFF) {
		log_msg("numalab.fault=poweroff: powering off in the middle of the TAP stream");
		power_off();
	}
	if (is_exec && !host_view_ready) {
		tap_line("not ok %d %s # ERROR %s", number, name, host_view_error);
		return;
	}
	if (!is_exec) {
		env_init(&l, TEST_PATH_ENV);
		snprintf(l.path, sizeof(l.path), TESTS_DIR "/%.*s", MAX_TEST_NAME - 1, t->name);
		if (access(l.path, F_OK)) {
			static char cwd[256];

			/* A --tests-dir suite runs in its own directory, next to its files. */
			snprintf(cwd, sizeof(cwd), SUITES_DIR "/%.*s", MAX_TEST_NAME - 1, t->name);
			snprintf(l.path, sizeof(l.path), "%s/%.*s", cwd, MAX_TEST_NAME - 1, t->name);
			l.cwd = cwd;
			read_suite_conf(t->name, &l);
		}
		if (access(l.path, F_OK)) {
			tap_line("not ok %d %s # ERROR no such test", number, t->name);
			return;
		}
	}
	log_msg("running %s (timeout %us)", name, t->timeout_s);
	if (pipe2(pipefd, O_CLOEXEC)) {
		tap_line("not ok %d %s # ERROR pipe: %s", number, name, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0)
		exec_test(&l, pipefd[1]);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		tap_line("not ok %d %s # ERROR fork: %s", number, name, strerror(errno));
		return;
	}
	setpgid(pid, pid);   /* also here, so killpg() works before the child runs */
	run_started_test(number, name, t, &l, pid, pipefd[0]);
}

/* As PID 1, init inherits every orphan; reap them between tests. */
static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
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
static void print_kernel_warnings(void)
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

/* The value of KEY=VALUE on the command line into out; 0, or -1 when absent. */
static int cmdline_value(const char *cmdline, const char *key, char *out, size_t cap)
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
static void load_modules(void)
{
	static char order[8192];
	char *line, *save = NULL;

	if (read_file(MODULES_ORDER, order, sizeof(order)) < 0)
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
static _Noreturn void boot_disk(const char *cmdline, const char *device)
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
static void furnish_guest(void)
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
static void mount_shares(void)
{
	static char text[16384];
	char *line, *save = NULL;

	if (read_file(SHARES_PATH, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		mount_share(line);
}

static void on_poweroff_signal(int sig)
{
	poweroff_requested = sig;
}

/* `poweroff` in the guest: this binary under another name asks PID 1 to power off. */
static int run_as_applet(const char *argv0)
{
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;

	if (getpid() == 1 || (strcmp(base, "poweroff") && strcmp(base, "reboot") && strcmp(base, "halt")))
		return 0;
	if (kill(1, SIGUSR2)) {
		dprintf(STDERR_FILENO, "%s: %s\n", base, strerror(errno));
		exit(1);
	}
	exit(0);
}

/* /lab/shell: "TERM ROWS COLS\nCWD\n"; the cwd into cwd ("" if none). */
static void read_shell_conf(char *term_var, size_t cap, struct winsize *ws, char *cwd, size_t cwd_cap)
{
	char text[4400], term[128] = "linux";
	unsigned rows = 0, cols = 0;
	const char *nl;

	cwd[0] = '\0';
	if (read_file(SHELL_PATH, text, sizeof(text)) >= 0) {
		sscanf(text, "%127s %u %u", term, &rows, &cols);
		if ((nl = strchr(text, '\n')))
			snprintf(cwd, cwd_cap, "%.*s", (int)strcspn(nl + 1, "\n"), nl + 1);
	}
	snprintf(term_var, cap, "TERM=%s", term);
	ws->ws_row = (unsigned short)rows;
	ws->ws_col = (unsigned short)cols;
}

static _Noreturn void exec_shell(const char *tty, const char *cwd, char *term_var, const struct winsize *ws)
{
	char *env[] = { VIEW_PATH_ENV, "HOME=/root", term_var, "LANG=C.UTF-8", "PS1=numalab:\\w# ", NULL };
	int fd;

	setsid();
	fd = open(tty, O_RDWR);
	if (fd < 0)
		_exit(127);
	ioctl(fd, TIOCSCTTY, 1);
	if (ws->ws_row && ws->ws_col)
		ioctl(fd, TIOCSWINSZ, ws);
	for (int i = 0; i <= STDERR_FILENO; i++)
		dup2(fd, i);
	if (fd > STDERR_FILENO)
		close(fd);
	if (host_view_ready && !chroot(HOST_VIEW) && !chdir("/")) {
		if (!cwd || chdir(cwd))
			chdir("/root");
		execve("/bin/bash", (char *const[]){ "bash", "--norc", "-i", NULL }, env);
		execve("/bin/sh", (char *const[]){ "sh", "-i", NULL }, env);
	} else {
		dprintf(STDERR_FILENO, "numalab: no host view (%s); busybox sh of the lab's root\r\n",
			host_view_error);
		env[0] = TEST_PATH_ENV;
		execve("/bin/sh", (char *const[]){ "sh", "-i", NULL }, env);
	}
	dprintf(STDERR_FILENO, "numalab: no shell to start: %s\r\n", strerror(errno));
	_exit(127);
}

/* The interactive shell on the serial console, until it exits or someone runs `poweroff`. */
static void run_shell(void)
{
	static char term_var[160], cwd[4096];
	struct winsize ws;
	pid_t pid, w;

	read_shell_conf(term_var, sizeof(term_var), &ws, cwd, sizeof(cwd));
	klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, 4);   /* warnings and worse only, while typing */
	log_msg("starting the shell on %s", SHELL_TTY);
	pid = fork();
	if (pid == 0)
		exec_shell(SHELL_TTY, cwd[0] ? cwd : NULL, term_var, &ws);
	while (pid > 0 && !poweroff_requested) {
		w = waitpid(-1, NULL, 0);
		if (w == pid)
			break;
	}
	if (poweroff_requested && pid > 0) {
		kill(-pid, SIGHUP);
		kill(-pid, SIGKILL);
	}
	tap_line("# numalab: shell ended (%s)", poweroff_requested ? "poweroff" : "shell exited");
}

/* On a disk root, the TAP also goes to RESULTS_TAP (the host reads it back). */
static void open_tap_copy(void)
{
	tap_copy.fd = open(RESULTS_TAP, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (tap_copy.fd < 0)
		log_msg("cannot write %s: %s; results only on the TAP channel", RESULTS_TAP,
			strerror(errno));
}

int main(int argc, char **argv)
{
	static struct plan_entry plan[MAX_TESTS];
	struct timespec boottime;
	char cmdline[4096], root[256];
	int nr, on_disk = argc > 1 && !strcmp(argv[1], ON_DISK_ARG);
	struct sigaction sa = { .sa_handler = on_poweroff_signal };

	run_as_applet(argv[0]);
	/* busybox's convention (halt, poweroff, reboot): any of them powers off here. */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	mount_fs("devtmpfs", "/dev", MS_NOSUID, 1);
	claim_std_fds();
	console.fd = open_output(CONSOLE_PATH);
	mount_fs("proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 1);
	mount_fs("sysfs", "/sys", MS_NOSUID | MS_NODEV | MS_NOEXEC, 1);
	mount_fs("debugfs", "/sys/kernel/debug", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
	mount_fs("tracefs", "/sys/kernel/tracing", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
	open_tap();
	if (read_value("/proc/cmdline", cmdline, sizeof(cmdline)))
		init_error("cannot read /proc/cmdline: %s", strerror(errno));
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
	if (fault == FAULT_SILENT) {
		log_msg("numalab.fault=silent: no TAP, hanging");
		for (;;)
			pause();
	}
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
