#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

/* Default dispositions: the runner's handlers (interrupt.h) are not the child's. */
static void default_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
}

/* In the child, after its process group and death signal: wire it up and exec. */
static void child_exec(const struct proc *p, int errpipe)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (child_setup_fds(p))
		child_fail(errpipe, errno);
	if (p->dir && chdir(p->dir))
		child_fail(errpipe, errno);
	if (p->env)
		environ = (char **)p->env;
	execvp(p->argv[0], (char *const *)p->argv);
	child_fail(errpipe, errno);
}

/* ---- the PID namespace: a shim as its init, the child under it ---- */

/* clone3()'s arguments (linux/sched.h), without the header's CLONE_* clashes. */
struct clone_args_v2 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size;
};

static pid_t clone3_(uint64_t flags, pid_t *set_tid)
{
	struct clone_args_v2 a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.exit_signal = SIGCHLD;
	if (set_tid) {
		a.set_tid = (uint64_t)(uintptr_t)set_tid;
		a.set_tid_size = 1;
	}
	return (pid_t)syscall(SYS_clone3, &a, sizeof(a));
}

static int subreaper;

/* -1: not tried yet; 0: unavailable here (or proc_no_pidns()); 1: in use. */
static int pidns_state = -1;

void proc_no_pidns(void)
{
	pidns_state = 0;
}

static int write_proc_self(const char *file, const char *text)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* A user namespace of our own (non-root): our uid and gid mapped to themselves. */
static int map_ids(uid_t uid, gid_t gid)
{
	char map[64];

	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_proc_self("uid_map", map) || write_proc_self("setgroups", "deny"))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_proc_self("gid_map", map);
}

static void close_all_fds(void)
{
	if (syscall(SYS_close_range, 0U, ~0U, 0U) == 0)
		return;
	for (int fd = 0; fd < 65536; fd++)
		close(fd);
}

/*
 * The last two pids of a /proc/.../status text's NSpid line (the innermost
 * namespace's in pids[1], its parent's in pids[0]; 0 where there are fewer,
 * -1 in pids[1] when there is no such line).  Allocates nothing: the shim
 * calls it between fork and exec.
 */
static void nspid_tail(const char *status, long pids[2])
{
	const char *line = strstr(status, "\nNSpid:");

	pids[0] = 0;
	pids[1] = line ? 0 : -1;
	for (const char *q = line ? line + 7 : ""; *q && *q != '\n';) {
		char *end;
		long v = strtol(q, &end, 10);

		if (end == q)
			break;
		pids[0] = pids[1];
		pids[1] = v;
		q = end;
	}
}

/* The shim's pid in its parent's namespace: the next to last of NSpid's. */
static pid_t outer_pid(void)
{
	char buf[4096];
	long pids[2];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	nspid_tail(buf, pids);
	return pids[1] == 1 ? (pid_t)pids[0] : 0;
}

static int exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * The shim: PID 1 of the namespace, still numalab's code (no exec).  It
 * forks the child (which execs), drops every fd, reaps whatever ends in the
 * namespace and exits with the child's code once the child has ended and
 * the rest had p->grace_s to end.  When it exits -- or is killed, by the
 * runner's death signal or a proc_kill() -- the kernel SIGKILLs everything
 * left in the namespace.
 *
 * As init it ignores every signal it has no handler for, from inside the
 * namespace and, but for SIGKILL and SIGSTOP, from outside: signals for
 * the child's process group (proc_signal(), proc_kill_all()) reach the
 * child and its group directly, since they stay in the shim's group.
 */
static void shim(const struct proc *p, int errpipe, int userns, uid_t uid, gid_t gid)
{
	pid_t child, outer, r;
	int status, code = 127;
	double deadline = 0;

	prctl(PR_SET_NAME, "numalab-init");
	if (userns && map_ids(uid, gid))
		child_fail(errpipe, -errno);
	/* The child's pid inside is ours in the runner's namespace: the one it knows. */
	outer = outer_pid();
	child = outer > 1 ? clone3_(0, &outer) : -1;
	if (child < 0)
		child = fork();
	if (child < 0)
		child_fail(errpipe, -errno);
	if (child == 0)
		child_exec(p, errpipe);
	close_all_fds();
	for (;;) {
		r = deadline ? waitpid(-1, &status, WNOHANG) : waitpid(-1, &status, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == child) {
			code = exit_code(status);
			if (p->grace_s <= 0)
				break;
			deadline = now_s() + p->grace_s;
		}
		if (r < 0 || (deadline && now_s() >= deadline))
			break;
		if (r == 0)
			poll(NULL, 0, 20);
	}
	_exit(code);
}

/* In the new process: its own group, death with the runner, then the shim or the child. */
static void start_child(const struct proc *p, int errpipe[2], pid_t parent, int in_pidns,
			int userns, uid_t uid, gid_t gid)
{
	struct pollfd runner = { errpipe[1], POLLOUT, 0 };

	setpgid(0, 0);
	default_signals();
	close(errpipe[0]);
	/* Die with the runner, even if it is SIGKILLed; if it is gone already, stop. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(127);
	/* Our parent is outside the namespace (getppid() is 0): its end of the pipe says. */
	if (in_pidns ? poll(&runner, 1, 0) == 1 && (runner.revents & POLLERR) : getppid() != parent)
		_exit(127);
	if (in_pidns)
		shim(p, errpipe[1], userns, uid, gid);
	child_exec(p, errpipe[1]);
}

/*
 * The child as PID 1's child in a new PID namespace (a user namespace too
 * when not root).  Returns what fork() does; -1 with errno when the
 * namespace cannot be had (then nothing was started).
 */
static pid_t fork_pidns(const struct proc *p, int errpipe[2], pid_t parent)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int userns = uid != 0;
	pid_t pid = clone3_(CLONE_NEWPID | (userns ? CLONE_NEWUSER : 0), NULL);

	if (pid == 0)
		start_child(p, errpipe, parent, 1, userns, uid, gid);
	return pid;
}

/*
 * One try: in a namespace (use_ns) or not.  0 with the child running, 1
 * when the namespace could not be set up (nothing left running), -1 with
 * err.
 */
static int start(struct proc *p, int use_ns, struct error *err)
{
	int errpipe[2], child_errno = 0, slot = live_slot();
	pid_t parent = getpid();
	sigset_t all, old;
	ssize_t n;

	if (slot < 0)
		return error_set(err, "cannot run %s: %d children of numalab already run", p->argv[0],
				 PROC_MAX_LIVE);
	if (pipe2(errpipe, O_CLOEXEC))
		return error_set(err, "cannot run %s: pipe: %s", p->argv[0], strerror(errno));
	/* No handler of ours may run in the child before it has reset them. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	p->pidns = use_ns;
	if (use_ns) {
		p->pid = fork_pidns(p, errpipe, parent);
	} else {
		/* Orphans of the group, for the grace: ours to reap (a shim's otherwise). */
		if (p->grace_s > 0 && !subreaper)
			subreaper = !prctl(PR_SET_CHILD_SUBREAPER, 1);
		p->pid = fork();
		if (p->pid == 0)
			start_child(p, errpipe, parent, 0, 0, 0, 0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (p->pid < 0) {
		int e = errno;

		close(errpipe[0]);
		close(errpipe[1]);
		if (use_ns && e != ENOMEM && e != EAGAIN)
			return 1;
		return error_set(err, "cannot run %s: fork: %s", p->argv[0], strerror(e));
	}
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
			/* Only reaped: its status is the failed exec's or the shim's, said below. */
		}
		/* The shim's setup: a user namespace without rights (AppArmor), or fork. */
		if (child_errno < 0 && -child_errno != EAGAIN && -child_errno != ENOMEM)
			return 1;
		if (child_errno < 0)
			return error_set(err, "cannot run %s: fork: %s", p->argv[0], strerror(-child_errno));
		return error_set(err, "cannot run %s: %s", p->argv[0], strerror(child_errno));
	}
	return 0;
}

int proc_start(struct proc *p, struct error *err)
{
	int rc = 1;

	if (pidns_state != 0) {
		rc = start(p, 1, err);
		if (rc == 1)
			pidns_state = 0;   /* EPERM, EINVAL, ENOSPC (nesting), ENOSYS: not here */
		else if (!rc)
			pidns_state = 1;
	}
	return rc == 1 ? start(p, 0, err) : rc;
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

int proc_wait(struct proc *p, struct error *err)
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
	/* In a namespace the shim did this, and its end killed the rest. */
	if (!p->pidns) {
		reap_group(group, now_s() + p->grace_s);
		/* Anything the child left in its group dies with it. */
		kill(-group, SIGKILL);
		reap_group(group, now_s() + 1);
	}
	if (r < 0)
		return error_set(err, "waitpid: %s", strerror(errno));
	return exit_code(status);
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
	if (!p->pidns)
		kill(-p->pid, SIGKILL);
	p->pid = 0;
	*code = exit_code(status);
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

/* The thread of process dir (a /proc/PID path) whose innermost NSpid is ns_tid; -1 if none. */
static pid_t thread_in(const char *dir, pid_t ns_tid)
{
	char *tasks = xprintf("%s/task", dir);
	DIR *d = opendir(tasks);
	struct dirent *e;
	pid_t found = -1;

	while (d && found < 0 && (e = readdir(d))) {
		char *status = xprintf("%s/%s/status", tasks, e->d_name);
		struct buf text = BUF_INIT;
		struct error ignored;
		long pids[2];

		if (e->d_name[0] != '.' && !read_file(status, &text, &ignored) &&
		    (nspid_tail(buf_str(&text), pids), pids[1] == ns_tid))
			found = (pid_t)atol(e->d_name);
		buf_free(&text);
		free(status);
	}
	if (d)
		closedir(d);
	free(tasks);
	return found;
}

pid_t proc_thread_id(const struct proc *p, pid_t ns_tid)
{
	char ns[64], link[64], path[64];
	ssize_t n;
	DIR *d;
	struct dirent *e;
	pid_t found = -1;

	if (!p->pidns)
		return ns_tid;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)p->pid);
	if ((n = readlink(path, ns, sizeof(ns) - 1)) <= 0)
		return -1;
	ns[n] = '\0';
	/* The processes of the shim's namespace, then their threads. */
	d = opendir("/proc");
	while (d && found < 0 && (e = readdir(d))) {
		char *dir;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		dir = xprintf("/proc/%s", e->d_name);
		snprintf(path, sizeof(path), "%s/ns/pid", dir);
		if ((n = readlink(path, link, sizeof(link) - 1)) > 0 && (link[n] = '\0', !strcmp(link, ns)))
			found = thread_in(dir, ns_tid);
		free(dir);
	}
	if (d)
		closedir(d);
	return found;
}
