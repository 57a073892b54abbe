#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Live children and what proc_kill_all() sends them, for a signal handler. */
static volatile pid_t live[PROC_MAX_LIVE];
static volatile int live_sig[PROC_MAX_LIVE];

/* A free entry of live[], or -1 when PROC_MAX_LIVE children run. */
static int live_slot(void)
{
	for (int i = 0; i < PROC_MAX_LIVE; i++)
		if (!live[i])
			return i;
	return -1;
}

static void live_del(pid_t pid)
{
	for (int i = 0; i < PROC_MAX_LIVE; i++)
		if (live[i] == pid)
			live[i] = 0;
}

void proc_kill_all(void)
{
	for (int i = 0; i < PROC_MAX_LIVE; i++)
		if (live[i] > 0)
			kill(-live[i], live_sig[i]);
}

void proc_init(struct proc *p, const char **argv)
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->in = p->out = p->err = -1;
}

static int open_devnull(int flags)
{
	return open("/dev/null", flags | O_CLOEXEC);
}

/* In the child: wire fds 0-2 and the kept fds, without close-on-exec. */
static int child_setup_fds(const struct proc *p)
{
	int want[3] = { p->in, p->out, p->err };

	for (int i = 0; i < 3; i++) {
		int fd = want[i] >= 0 ? want[i] : open_devnull(i ? O_WRONLY : O_RDONLY);

		if (fd < 0 || dup2(fd, i) < 0)
			return -1;
	}
	for (int i = 0; i < p->nr_keep_fds; i++) {
		int flags = fcntl(p->keep_fds[i], F_GETFD);

		if (flags < 0 || fcntl(p->keep_fds[i], F_SETFD, flags & ~FD_CLOEXEC) < 0)
			return -1;
	}
	return 0;
}

static void child_fail(int errpipe, int e)
{
	if (write(errpipe, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void child_exec(const struct proc *p, int errpipe, pid_t parent)
{
	sigset_t none;

	setpgid(0, 0);
	/* Die with the runner, even if it is SIGKILLed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (child_setup_fds(p))
		child_fail(errpipe, errno);
	if (p->dir && chdir(p->dir))
		child_fail(errpipe, errno);
	if (p->env)
		environ = (char **)p->env;
	execvp(p->argv[0], (char *const *)p->argv);
	child_fail(errpipe, errno);
}

int proc_start(struct proc *p, struct error *err)
{
	int errpipe[2], child_errno = 0, slot = live_slot();
	pid_t parent = getpid();
	ssize_t n;

	if (slot < 0)
		return error_set(err, "cannot run %s: %d children of numalab already run", p->argv[0],
				 PROC_MAX_LIVE);
	if (pipe2(errpipe, O_CLOEXEC))
		return error_set(err, "cannot run %s: pipe: %s", p->argv[0], strerror(errno));
	p->pid = fork();
	if (p->pid < 0) {
		close(errpipe[0]);
		close(errpipe[1]);
		return error_set(err, "cannot run %s: fork: %s", p->argv[0], strerror(errno));
	}
	if (p->pid == 0)
		child_exec(p, errpipe[1], parent);
	/* Also from the parent, so the group exists before we may signal it. */
	setpgid(p->pid, p->pid);
	live_sig[slot] = p->interrupt_signal ? p->interrupt_signal : SIGKILL;
	live[slot] = p->pid;
	close(errpipe[1]);
	do
		n = read(errpipe[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(errpipe[0]);
	if (n > 0) {
		if (proc_wait(p, err)) {
			/* Only reaped: its status is the failed exec's, said below. */
		}
		return error_set(err, "cannot run %s: %s", p->argv[0], strerror(child_errno));
	}
	return 0;
}

/* With grace 0: proc_wait(); the group's other members die at once. */
int proc_wait(struct proc *p, struct error *err)
{
	return proc_wait_group(p, 0, err);
}

int proc_adopt_orphans(struct error *err)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return error_set(err, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
	return 0;
}

/* Reap the members of group that are our children; ECHILD ends it, or the deadline. */
static void reap_group(pid_t group, double deadline)
{
	int status;

	for (;;) {
		pid_t r = waitpid(-group, &status, WNOHANG);

		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0 || now_s() >= deadline)
			return;
		poll(NULL, 0, 20);
	}
}

int proc_wait_group(struct proc *p, double grace_s, struct error *err)
{
	pid_t group = p->pid;
	int status;
	pid_t r;

	if (group <= 0)
		return error_set(err, "internal: waiting for a child that was not started");
	do
		r = waitpid(group, &status, 0);
	while (r < 0 && errno == EINTR);
	live_del(group);
	p->pid = 0;
	reap_group(group, now_s() + grace_s);
	/* Anything the child left in its group dies with it. */
	kill(-group, SIGKILL);
	reap_group(group, now_s() + 1);
	if (r < 0)
		return error_set(err, "waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void proc_kill(struct proc *p)
{
	proc_signal(p, SIGKILL);
}

void proc_signal(struct proc *p, int sig)
{
	if (p->pid > 0)
		kill(-p->pid, sig);
}

int proc_poll(struct proc *p, int *code)
{
	int status;

	if (p->pid <= 0 || waitpid(p->pid, &status, WNOHANG) != p->pid)
		return 0;
	live_del(p->pid);
	kill(-p->pid, SIGKILL);
	p->pid = 0;
	*code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	return 1;
}

/* Wait up to timeout_s (<= 0: forever), killing the child when it expires. */
static int wait_deadline(struct proc *p, int timeout_s, struct error *err)
{
	double deadline = now_s() + timeout_s;

	while (timeout_s > 0) {
		int code;

		if (proc_poll(p, &code))
			return code;
		if (now_s() >= deadline) {
			proc_kill(p);
			break;
		}
		poll(NULL, 0, 50);
	}
	return proc_wait(p, err);
}

int proc_run(const char **argv, const char *log_path, int timeout_s, struct error *err)
{
	struct proc p;
	int fd = -1, rc;

	proc_init(&p, argv);
	if (log_path) {
		fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			return error_set(err, "cannot write %s: %s", log_path, strerror(errno));
	}
	p.out = p.err = fd;
	rc = proc_start(&p, err);
	if (fd >= 0)
		close(fd);
	if (rc)
		return -1;
	return wait_deadline(&p, timeout_s, err);
}

int proc_run_logged(const char *what, const char **argv, const char *dir,
		    const char **env, const char *log, struct error *err)
{
	struct proc p;
	char last[256];
	int rc, fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		return error_set(err, "cannot write %s: %s", log, strerror(errno));
	dprintf(fd, "$");
	for (int i = 0; argv[i]; i++)
		dprintf(fd, " %s", argv[i]);
	dprintf(fd, "\n");
	proc_init(&p, argv);
	p.dir = dir;
	p.env = env;
	p.out = p.err = fd;
	rc = proc_start(&p, err);
	close(fd);
	if (rc)
		return -1;
	rc = proc_wait(&p, err);
	if (rc <= 0)
		return rc;
	file_last_line(log, last, sizeof(last));
	return error_set(err, "%s exited %d (%s); see %s", what, rc, last, log);
}

int proc_start_reader(struct proc *p, const char **argv, struct error *err)
{
	int pfd[2];

	if (pipe2(pfd, O_CLOEXEC))
		return error_set(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	proc_init(p, argv);
	p->out = pfd[1];
	if (proc_start(p, err)) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	close(pfd[1]);
	return pfd[0];
}

int proc_capture(const char **argv, char *out, size_t cap, struct error *err)
{
	struct proc p;
	int fd;
	size_t len = 0;
	ssize_t n;
	char sink[4096];

	if ((fd = proc_start_reader(&p, argv, err)) < 0)
		return -1;
	for (;;) {
		char *dst = len + 1 < cap ? out + len : sink;
		size_t room = len + 1 < cap ? cap - 1 - len : sizeof(sink);

		n = read(fd, dst, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (dst != sink)
			len += (size_t)n;
	}
	close(fd);
	if (cap)
		out[len] = '\0';
	return proc_wait(&p, err);
}
