/* channels: the console and the TAP channel, writes that never block for good (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "init.h"

/* An output channel; fd < 0 once it failed, so a dead channel costs nothing. */
struct channel {
	int fd;
	const char *path;
};

static struct channel console = { -1, CONSOLE_PATH };
static struct channel tap = { -1, TAP_PATH };
static struct channel tap_copy = { -1, RESULTS_TAP };   /* on a disk root only */
/* The TAP goes framed to the console (serial.c): there is no TAP channel of its own. */
static int serial_tap;

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline, 0 once it has passed. */
int ms_until(int64_t deadline)
{
	int64_t left = deadline - now_ms();

	return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

int min_int(int a, int b)
{
	return a < b ? a : b;
}

void sleep_ms(int ms)
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
	if (ch == &tap && serial_tap) {   /* framed, without the newline (serial.c) */
		serial_tap_line(line, len);
		return;
	}
	line[len++] = '\n';
	channel_write(ch, line, len);
}

void serial_write(const char *buf, size_t len)
{
	channel_write(&tap, buf, len);
}

void __attribute__((format(printf, 1, 2))) log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	channel_vline(&console, "numalab-init: ", fmt, ap);
	va_end(ap);
}

void __attribute__((format(printf, 1, 2))) tap_line(const char *fmt, ...)
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
void sync_tap_copy(void)
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

_Noreturn void power_off(void)
{
	if (serial_tap)
		serial_tap_end();   /* the last result's LAVA signal */
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
_Noreturn void __attribute__((format(printf, 1, 2))) init_error(const char *fmt, ...)
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

/*
 * The kernel gives /init fds 0-2 only when the image has /dev/console.  Take
 * them, so no pipe or channel fd lands there: a child's dup2() of a pipe onto
 * its own number would keep O_CLOEXEC and lose the pipe at exec.
 */
void claim_std_fds(void)
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

void open_tap(int serial)
{
	int64_t deadline = now_ms() + TAP_WAIT_MS;

	while (!serial && (tap.fd = open_output(TAP_PATH)) < 0 && ms_until(deadline) > 0)
		sleep_ms(100);
	if (!serial && tap.fd < 0)
		log_msg("warning: cannot open %s (%s); TAP goes framed to %s", TAP_PATH,
			strerror(errno), CONSOLE_PATH);
	if (tap.fd < 0) {
		tap.fd = open_output(CONSOLE_PATH);
		tap.path = CONSOLE_PATH;
		serial_tap = 1;
		serial_tap_start();
	}
	if (tap.fd >= 0)
		raw_output(tap.fd);
}

/* On a disk root, the TAP also goes to RESULTS_TAP (the host reads it back). */
void open_tap_copy(void)
{
	tap_copy.fd = open(RESULTS_TAP, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (tap_copy.fd < 0)
		log_msg("cannot write %s: %s; results only on the TAP channel", RESULTS_TAP,
			strerror(errno));
}

void open_console(void)
{
	console.fd = open_output(CONSOLE_PATH);
}
