/*
 * proc: starting and reaping child processes (after git's run-command).
 *
 * Contract:
 *  - argv[0] is looked up in PATH unless it contains a '/'; no shell is ever
 *    involved.
 *  - Nothing a child starts outlives numalab, even on SIGKILL: the child
 *    runs in a PID namespace of its own (a user namespace too when not
 *    root), under a shim that is the namespace's init: the shim gets SIGKILL
 *    when the runner dies (PR_SET_PDEATHSIG), and when the shim ends --
 *    killed, or after the child ended (and p->grace_s passed) -- the kernel
 *    SIGKILLs every process left in the namespace, whatever its process
 *    group or session.  The child's process group is the shim's (p->pid):
 *    proc_signal() and proc_kill_all() reach the child and its group; the
 *    shim itself, as init, ignores all but SIGKILL.  Inside, the child's
 *    getpid() is p->pid, and /proc is still the host's.  In the user
 *    namespace (non-root) our uid and gid map to themselves: other ids show
 *    as nobody (access checks are unchanged) and set-user-ID programs do
 *    not gain their owner's rights.
 *    Where no namespace can be had (user namespaces off or confined for
 *    non-root, root without CAP_SYS_ADMIN, nesting limits; p->pidns then
 *    stays 0), the child itself has the parent-death SIGKILL and its
 *    process group is SIGKILLed when it is reaped or killed: its
 *    descendants outlive a SIGKILLed numalab unless they die with it on
 *    their own.
 *  - If exec fails, the child sends errno back over a close-on-exec pipe and
 *    proc_start() returns -1 with the reason in err: "cannot run X: why".
 *  - Every started child must be passed to proc_wait() (or proc_kill() then
 *    proc_wait()); proc_wait() reaps it.
 *  - All started children are registered so proc_kill_all() (called from
 *    signal handling) can stop them: SIGKILL, or interrupt_signal for a child
 *    that records its own interruption (a `numalab run` cell); whoever set
 *    it SIGKILLs the child later if it does not end.  The register is a
 *    fixed table (a signal handler reads it): at most PROC_MAX_LIVE children
 *    at once, and proc_start() refuses one more (-1, err) rather than start
 *    a child nothing could stop.  The most numalab starts at once is
 *    MATRIX_MAX_JOBS cells (matrix_run.h, --jobs) and a git or two.
 *  - File descriptors: in, out, err and keep_fds stay the caller's.  The
 *    child gets its own copies (dup2 onto 0-2; keep_fds with close-on-exec
 *    cleared in the child only); proc_start() closes none of them, on
 *    success or failure, and the caller closes each when done (a pipe's
 *    write end at once after proc_start(), or its reader never sees EOF).
 *    Any other fd the caller has open reaches the child unless it is
 *    close-on-exec: numalab opens every fd with O_CLOEXEC.
 *    proc_start_reader() closes its pipe's write end itself and hands the
 *    read end to the caller to close.
 */
#ifndef LAB_PROC_H
#define LAB_PROC_H

#include <sys/types.h>
#include "base/util.h"

#define PROC_MAX_LIVE 320

struct proc {
	const char **argv;     /* NULL-terminated */
	const char **env;      /* NULL: inherit */
	const char *dir;       /* NULL: current directory */
	int in, out, err;      /* fds for the child's 0/1/2; -1: /dev/null */
	const int *keep_fds;   /* further fds passed to the child as they are */
	int nr_keep_fds;
	int interrupt_signal;  /* what proc_kill_all() sends; 0: SIGKILL */
	double grace_s;        /* after the child ends, the rest of its tree may run this
	                        * long (reaped as it ends) before it is killed; 0: at once */
	pid_t pid;             /* set by proc_start */
	int pidns;             /* set by proc_start: 1 if in a PID namespace of its own */
};

/* Initialise with stdin/stdout/stderr to /dev/null and no extra fds. */
void proc_init(struct proc *p, const char **argv);

/* Fork and exec.  0 on success, -1 with err set (nothing left running). */
int proc_start(struct proc *p, struct error *err) LAB_MUST_CHECK;

/*
 * Reap the child, after the rest of its tree had p->grace_s to end (a child
 * that passes an interrupt on to a descendant which must finish writing
 * its record: git bisect run, whose step logs "interrupted").  Returns its
 * exit code, 128+signal if killed by a signal, -1 on waitpid failure (err set).
 */
int proc_wait(struct proc *p, struct error *err) LAB_MUST_CHECK;

/*
 * Start children without PID namespaces from now on (the fallback proc.h
 * describes), for tests and measurements.
 */
void proc_no_pidns(void);

/*
 * The id this process knows a thread of p's tree by, from the id a process
 * there reported for it (QEMU's QMP "thread-id" is an id inside p's PID
 * namespace): the thread in p's namespace whose innermost NSpid is ns_tid.
 * ns_tid itself when p has no namespace of its own; -1 when no thread has it.
 */
pid_t proc_thread_id(const struct proc *p, pid_t ns_tid);

/* SIGKILL the child's whole process group (no-op if already reaped). */
void proc_kill(struct proc *p);

/* Send sig to the child's process group (no-op if already reaped). */
void proc_signal(struct proc *p, int sig);

/*
 * Reap the child if it has ended, without blocking: 1 with *code as
 * proc_wait() returns it, 0 while it runs.
 */
int proc_poll(struct proc *p, int *code);

/*
 * Signal every started, not yet reaped child's process group (SIGKILL or its
 * interrupt_signal).  Async-signal-safe.
 */
void proc_kill_all(void);

/*
 * Start argv (proc_init + proc_start) with its stdout on a pipe: the
 * pipe's read end (close-on-exec; the caller reads and closes it, then
 * proc_wait(p)), or -1 with err and nothing left running.
 */
int proc_start_reader(struct proc *p, const char **argv, struct error *err) LAB_MUST_CHECK;

/*
 * Run argv to completion, stdout and stderr to the file log_path (appended;
 * NULL: /dev/null).  Returns the exit code as proc_wait(), -1 if it could not
 * start (err set).  timeout_s > 0 kills the child after that many seconds
 * (returns 128+SIGKILL).
 */
int proc_run(const char **argv, const char *log_path, int timeout_s, struct error *err) LAB_MUST_CHECK;

/*
 * Run argv to completion in dir (NULL: here) with env (NULL: inherited),
 * stdout and stderr appended to log behind a "$ argv" line.  Returns 0 if it
 * exited 0, else -1 with err: "WHAT exited N (the log's last line); see LOG".
 */
int proc_run_logged(const char *what, const char **argv, const char *dir,
		    const char **env, const char *log, struct error *err) LAB_MUST_CHECK;

/*
 * Run argv and capture its stdout (at most cap-1 bytes, NUL terminated).
 * Returns the exit code, -1 if it could not start.
 */
int proc_capture(const char **argv, char *out, size_t cap, struct error *err) LAB_MUST_CHECK;

#endif
