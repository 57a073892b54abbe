/* shell: `poweroff` as an applet, and the interactive shell after the plan (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"
#include "sys.h"

volatile sig_atomic_t poweroff_requested;

void on_poweroff_signal(int sig)
{
	poweroff_requested = sig;
}

/* `poweroff` in the guest: this binary under another name asks PID 1 to power off. */
int run_as_applet(const char *argv0)
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
	if (sys_read_bytes(SHELL_PATH, text, sizeof(text)) >= 0) {
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
	/* The last: NULL (the end) when there is no kernel config to name. */
	char *env[] = { VIEW_PATH_ENV, "HOME=/root", term_var, "LANG=C.UTF-8", "PS1=numalab:\\w# ",
			kconfig_env(1), NULL };
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
		env[5] = kconfig_env(0);
		execve("/bin/sh", (char *const[]){ "sh", "-i", NULL }, env);
	}
	dprintf(STDERR_FILENO, "numalab: no shell to start: %s\r\n", strerror(errno));
	_exit(127);
}

/* The interactive shell on the serial console, until it exits or someone runs `poweroff`. */
void run_shell(void)
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

