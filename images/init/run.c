/* run: the plan, each test in its own session, its KTAP relayed (init.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "init.h"
#include "model/ltp.h"
#include "sys.h"

/* How a program's output reads (a suite's sidecar "format", lab/model/suite.h). */
enum output_format {
	OUTPUT_TAP,      /* its (K)TAP lines are results */
	OUTPUT_LTP,      /* its LTP result lines become results (model/ltp.h) */
	OUTPUT_PLAIN,    /* no line is a result: only the exit status counts */
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
	enum output_format format;
};

/* A test's stdout on its way to the TAP channel, cut into lines. */
struct relay {
	int fd;
	enum output_format format;
	int results;              /* LTP result lines converted so far */
	char line[LINE_MAX_LEN + 1];
	size_t len;
	char skip_reason[256];    /* of the last line saying why it skips (skip_reason()) */
	int own_failed;           /* "not ok" results at the program's own top level */
	int yaml_indent;          /* inside a result's YAML block ("  ---" ... "  ..."): its indent; else -1 */
};

enum relay_state { RELAY_DATA, RELAY_IDLE, RELAY_EOF };

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

int read_plan(struct plan_entry *plan, int max)
{
	static char text[MAX_TESTS * (MAX_TEST_NAME + 16)];
	char *line, *next;
	struct plan_entry t;
	int nr = 0, lineno = 0;

	if (sys_read_bytes(PLAN_PATH, text, sizeof(text)) < 0)
		init_error("cannot read %s: %s", PLAN_PATH, strerror(errno));
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_plan_line(line, &t, ++lineno))
			continue;
		if (nr == max)
			init_error("%s: more than %d tests", PLAN_PATH, max);
		t.timeout_s = fault_test_timeout(t.timeout_s);
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

/* A (K)TAP line of the program, one level deeper; a failure of its own noted. */
static void relay_tap(struct relay *r, const char *line)
{
	tap_line("    %s", line);
	r->own_failed += own_failure(line);
}

/*
 * Relay one line of the program's output one level deeper: its results as
 * its format reads them (its (K)TAP as is, an LTP result line as a TAP
 * result), plain output as a diagnostic ("# ..."), so it stays readable in
 * the TAP and cannot pass for results; remember its skip reason.
 */
static void relay_line(struct relay *r)
{
	static char result[LINE_MAX_LEN + 64];

	while (r->len > 0 && r->line[r->len - 1] == '\r')
		r->len--;
	r->line[r->len] = '\0';
	r->len = 0;
	if (r->format == OUTPUT_TAP && in_yaml_block(r)) {
		tap_line("    %s", r->line);
		return;
	}
	/* a skip by exit status gives the last reason (report_result()) */
	skip_reason(r->line, r->skip_reason, sizeof(r->skip_reason));
	if (r->format == OUTPUT_LTP && ltp_tap_result(r->line, r->results + 1, result, sizeof(result))) {
		r->results++;
		relay_tap(r, result);
	} else if (r->format == OUTPUT_TAP && is_tap_line(r->line)) {
		relay_tap(r, r->line);
	} else {
		tap_line("    # %s", r->line);
	}
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

/*
 * Everything the test started: its session, whatever process groups it
 * made in it (a suite's cases, their selftests), and the test itself
 * should it not have reached its setsid() yet.
 */
static void kill_test(pid_t pid)
{
	child_kill_session(pid);
	kill(pid, SIGKILL);
}

/* SIGKILL all the test started and reap it; gives up (-1) on a task stuck in the kernel. */
static int kill_and_reap(pid_t pid, int *status)
{
	int64_t deadline = now_ms() + REAP_TIMEOUT_MS;

	kill_test(pid);
	while (waitpid(pid, status, WNOHANG) != pid) {
		if (ms_until(deadline) == 0)
			return -1;
		sleep_ms(20);
	}
	return 0;
}

void move_fd(int fd, int target)
{
	if (fd >= 0 && fd != target) {
		dup2(fd, target);
		close(fd);
	}
}

/*
 * In the child: own session (so its own process group, and no group it
 * makes leaves what kill_test() reaches), stdout and stderr to the relay
 * pipe (a suite's report on stderr is its output too), stdin from /dev/null.
 */
static _Noreturn void exec_test(const struct launch *l, int out_fd)
{
	char *const default_argv[] = { (char *)l->path, NULL };
	char *const *argv = l->argv ? l->argv : default_argv;

	setsid();
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	move_fd(open("/dev/null", O_RDONLY), STDIN_FILENO);
	fault_in_test_child();
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
		if (*r->skip_reason)
			tap_line("ok %d %s # SKIP %s", number, name, r->skip_reason);
		else
			tap_line("ok %d %s # SKIP exit %d", number, name, code);
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
	struct relay r = { .fd = out_fd, .format = l->format, .yaml_indent = -1 };
	int status = 0, timed_out;

	/* The results made of LTP's lines are a KTAP document of their own: version first, plan last. */
	if (l->format == OUTPUT_LTP)
		tap_line("    KTAP version 1");
	timed_out = relay_until_exit(pid, &r, now_ms() + t->timeout_s * INT64_C(1000), &status);
	if (r.len)
		relay_line(&r);
	if (l->format == OUTPUT_LTP)
		tap_line("    1..%d", r.results);
	if (timed_out) {
		if (kill_and_reap(pid, &status))
			log_msg("%s (pid %d) did not die after SIGKILL", name, (int)pid);
	} else {
		kill_test(pid);   /* its leftovers */
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

/* var ("NAME=VALUE") unless NAME is set already (a sidecar's env wins). */
static void env_add_default(struct launch *l, char *var)
{
	size_t name_len = strcspn(var, "=") + 1;

	for (int n = 0; l->env[n]; n++)
		if (!strncmp(l->env[n], var, name_len))
			return;
	env_add(l, var);
}

/*
 * A suite's settings (/lab/suites/NAME.conf, written by the host from its
 * sidecars, lab/model/suite.h): "format NAME", "skip-code N", "tmpdir",
 * "env NAME=VALUE".
 */
static void read_suite_conf(const char *name, struct launch *l)
{
	static char text[8192], tmpdir[96];
	char path[256], *line, *save = NULL;

	snprintf(path, sizeof(path), SUITES_DIR "/%.63s.conf", name);
	if (sys_read_bytes(path, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "format ltp")) {
			l->format = OUTPUT_LTP;
		} else if (!strcmp(line, "format plain")) {
			l->format = OUTPUT_PLAIN;
		} else if (!strcmp(line, "format automake")) {
			l->format = OUTPUT_PLAIN;
			l->hard_error_code = 99;
		} else if (!strncmp(line, "skip-code ", 10)) {
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
	ssize_t len = sys_read_bytes(EXEC_PATH, text, sizeof(text));
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

void run_test(int number, const struct plan_entry *t)
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
	fault_at_test_start();
	if (is_exec && !host_view_ready) {
		tap_line("not ok %d %s # ERROR %s", number, name, host_view_error);
		return;
	}
	if (!is_exec) {
		env_init(&l, TEST_PATH_ENV);
		for (int i = 0; fault_test_env(i); i++)
			env_add(&l, fault_test_env(i));
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
	if (kconfig_env(is_exec))
		env_add_default(&l, kconfig_env(is_exec));
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
	run_started_test(number, name, t, &l, pid, pipefd[0]);
}

/* As PID 1, init inherits every orphan; reap them between tests. */
void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

