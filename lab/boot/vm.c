#include "boot/vm.h"
#include "base/interrupt.h"
#include "base/proc.h"
#include "host/toolroot.h"

#include <libgen.h>
#include <sched.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* After a crash is seen, how long QEMU gets to exit by itself (panic=-1). */
#define CRASH_GRACE_S 10

const char *vm_end_name(enum vm_end end)
{
	/* Written to meta `end` and read back by compare and the reports: never rename one. */
	static const char *const names[] = {
		[VM_POWEROFF] = "poweroff",
		[VM_TIMEOUT] = "timeout",
		[VM_CRASHED] = "crashed",
		[VM_INTERRUPTED] = "interrupted",
		[VM_FIRMWARE] = "firmware",
		[VM_QEMU_FAILED] = "qemu-failed",
		[VM_STOPPED] = "stopped",
		[VM_ESCAPED] = "escaped",
	};

	return names[end];
}

enum stream_kind { STREAM_CONSOLE, STREAM_TAP, STREAM_QEMU_STDERR };

struct stream {
	int fd;                  /* our end; -1 once closed */
	enum stream_kind kind;
};

struct session {
	const struct vm_io *io;
	struct vm_result *res;
	struct stream console, tap, qemu_err;
	double start;
	double firmware_deadline;  /* 0: no firmware to watch */
	int watch_kvm;             /* QEMU runs with -accel kvm: read its stderr for KVM's failure */
	char err_tail[512];        /* QEMU's stderr not yet matched (a line may span reads) */
	size_t err_len;
};

/*
 * What QEMU prints when KVM cannot run the guest: it then hangs with the vCPU
 * paused (a paravirtual KVM such as kvm_pvm), so waiting is pointless.
 */
static const char *const kvm_fatal[] = {
	"KVM internal error", "emulation failure", "failed to set MSR", NULL,
};

/* Look for kvm_fatal in QEMU's stderr; the first match lands in res->kvm_error. */
static void scan_qemu_stderr(struct session *s, const char *data, size_t len)
{
	size_t keep = sizeof(s->err_tail) - 1;

	if (!s->watch_kvm || s->res->kvm_error[0])
		return;
	while (len) {
		size_t room = keep - s->err_len, n = len < room ? len : room;

		memcpy(s->err_tail + s->err_len, data, n);
		s->err_len += n;
		s->err_tail[s->err_len] = '\0';
		data += n;
		len -= n;
		for (int i = 0; kvm_fatal[i]; i++) {
			char *hit = strstr(s->err_tail, kvm_fatal[i]), *line = hit;

			if (!hit)
				continue;
			while (line > s->err_tail && line[-1] != '\n')
				line--;
			snprintf(s->res->kvm_error, sizeof(s->res->kvm_error), "%.*s",
				 (int)strcspn(line, "\r\n"), line);
			return;
		}
		/* Keep the last partial line's worth for a match across reads. */
		if (s->err_len > keep / 2) {
			memmove(s->err_tail, s->err_tail + s->err_len - keep / 4, keep / 4);
			s->err_len = keep / 4;
		}
	}
}

/* A guest's bytes to fd (-1: dropped); a full disk must not stop the guest's streams. */
static void write_all_fd(int fd, const char *data, size_t len)
{
	if (fd >= 0)
		(void)write_all(fd, data, len);
}

/* Read what is there; returns 1 if data came, 0 if nothing, -1 at EOF. */
static int pump(struct session *s, struct stream *st)
{
	char chunk[16384];
	ssize_t n;

	if (st->fd < 0)
		return -1;
	n = read(st->fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		close(st->fd);
		st->fd = -1;
		return -1;
	}
	switch (st->kind) {
	case STREAM_TAP:
		s->res->last_output_s = s->res->last_tap_s = now_s() - s->start;
		if (s->res->first_tap_s < 0)
			s->res->first_tap_s = s->res->last_tap_s;
		s->io->on_tap(s->io->ctx, chunk, (size_t)n);
		break;
	case STREAM_CONSOLE:
		s->res->last_output_s = now_s() - s->start;
		write_all_fd(s->io->console_fd, chunk, (size_t)n);
		if (s->io->interactive)
			write_all_fd(STDOUT_FILENO, chunk, (size_t)n);
		console_scan_feed(&s->res->scan, chunk, (size_t)n);
		break;
	case STREAM_QEMU_STDERR:
		write_all_fd(s->io->qemu_log_fd, chunk, (size_t)n);
		scan_qemu_stderr(s, chunk, (size_t)n);
		break;
	}
	return 1;
}

/*
 * Interactive: the terminal's bytes to the guest's console, up to an escape
 * byte.  Returns 1 when the user escaped, 0 otherwise (stdin's end included:
 * the guest goes on until it powers off).
 */
static int forward_input(struct session *s, int *stdin_open)
{
	char chunk[4096];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
	char *esc;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		*stdin_open = 0;
		return 0;
	}
	esc = memchr(chunk, VM_ESCAPE_BYTE, (size_t)n);
	if (s->console.fd >= 0)
		(void)write_all(s->console.fd, chunk, esc ? (size_t)(esc - chunk) : (size_t)n);
	return esc != NULL;
}

static void drain(struct session *s)
{
	while (pump(s, &s->console) > 0)
		;
	while (pump(s, &s->tap) > 0)
		;
	while (pump(s, &s->qemu_err) > 0)
		;
}

static int make_channel(int ours[2], struct error *err)
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ours))
		return error_set(err, "socketpair: %s", strerror(errno));
	fcntl(ours[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static void progress(const struct vm_io *io, const char *phase)
{
	if (io->on_progress)
		io->on_progress(io->ctx, phase);
}

/* The EFI shell came up, or the firmware is past its deadline without a kernel. */
static int firmware_failed(struct session *s)
{
	struct console_scan *scan = &s->res->scan;

	if (console_finding_is_firmware(scan->finding))
		return 1;
	if (!s->firmware_deadline || scan->kernel_started || now_s() < s->firmware_deadline)
		return 0;
	console_scan_firmware_hang(scan, (int)(s->firmware_deadline - s->start + 0.5));
	return 1;
}

/* The poll loop; returns how the guest ended (before reaping). */
static enum vm_end supervise(struct session *s, struct proc *qemu, int timeout_s)
{
	int pidfd = (int)syscall(SYS_pidfd_open, qemu->pid, 0);
	double deadline = s->start + timeout_s, crash_deadline = 0, last_tick = s->start;
	enum vm_end end = VM_POWEROFF;
	int stdin_open = s->io->interactive;
	/* A stop rule is a deadline of its own (the KVM probe's 2.5 s): ask it often. */
	int wake_ms = s->io->stop ? VM_STOP_POLL_MS : 1000;

	for (;;) {
		struct pollfd fds[5] = {
			{ s->console.fd, POLLIN, 0 }, { s->tap.fd, POLLIN, 0 }, { s->qemu_err.fd, POLLIN, 0 },
			{ stdin_open ? STDIN_FILENO : -1, POLLIN, 0 }, { pidfd, POLLIN, 0 },
		};
		double limit = crash_deadline ? crash_deadline : deadline;
		int wait_ms = (int)((limit - now_s()) * 1000) + 1;

		if (interrupt_caught()) {
			end = VM_INTERRUPTED;
			break;
		}
		if (wait_ms <= 0 || wait_ms > wake_ms)
			wait_ms = wait_ms <= 0 ? 0 : wake_ms;   /* also wakes to check the clock */
		if (poll(fds, pidfd >= 0 ? 5 : 4, wait_ms) < 0 && errno != EINTR)
			break;
		if (now_s() >= last_tick + 1) {
			last_tick = now_s();
			progress(s->io, NULL);
		}
		if (fds[0].revents)
			pump(s, &s->console);
		if (fds[1].revents)
			pump(s, &s->tap);
		if (fds[2].revents)
			pump(s, &s->qemu_err);
		if (s->res->kvm_error[0]) {
			end = VM_QEMU_FAILED;
			progress(s->io, "KVM cannot run this guest");
			break;
		}
		if (s->io->stop && s->io->stop(s->io->ctx, now_s() - s->start, s->res)) {
			end = VM_STOPPED;
			break;
		}
		if (fds[3].revents && forward_input(s, &stdin_open)) {
			end = VM_ESCAPED;
			break;
		}
		if (pidfd >= 0 && fds[4].revents)
			break;   /* QEMU exited */
		if (pidfd < 0 && kill(qemu->pid, 0) && errno == ESRCH)
			break;
		if (firmware_failed(s)) {
			end = VM_FIRMWARE;
			progress(s->io, "firmware failed");
			break;
		}
		if (s->res->scan.finding != CONSOLE_CLEAN && !crash_deadline) {
			end = VM_CRASHED;
			crash_deadline = now_s() + CRASH_GRACE_S;
			progress(s->io, "guest crashed");
		}
		if (now_s() >= limit) {
			if (!crash_deadline)
				end = VM_TIMEOUT;
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return end;
}

/* ---- host-backed NUMA: pin the vCPU threads QMP names, then start the guest ---- */

#define QMP_TIMEOUT_S 30

struct qmp {
	int fd;
	char buf[16384];
	size_t len;
	double deadline;
};

/*
 * The next QMP message (one JSON object per line) containing want, skipping
 * events, into line.  -1 with err on an error reply, EOF or the deadline.
 */
static int qmp_expect(struct qmp *q, const char *want, char *line, size_t cap, struct error *err)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		struct pollfd p = { q->fd, POLLIN, 0 };
		int wait_ms = (int)((q->deadline - now_s()) * 1000);
		ssize_t n;

		if (nl) {
			size_t len = (size_t)(nl - q->buf) + 1;

			snprintf(line, cap, "%.*s", (int)len - 1, q->buf);
			memmove(q->buf, q->buf + len, q->len - len);
			q->len -= len;
			if (strstr(line, "\"error\""))
				return error_set(err, "QMP: %s", line);
			if (strstr(line, want))
				return 0;
			continue;
		}
		if (q->len == sizeof(q->buf))
			return error_set(err, "QMP: a message longer than %zu bytes", sizeof(q->buf));
		if (wait_ms <= 0 || poll(&p, 1, wait_ms) <= 0)
			return error_set(err, "QMP: no answer within %d s (waiting for %s)", QMP_TIMEOUT_S, want);
		n = read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (n <= 0)
			return error_set(err, "QMP: QEMU closed its monitor (%s)", n ? strerror(errno) : "EOF");
		q->len += (size_t)n;
	}
}

static int qmp_command(struct qmp *q, const char *command, char *reply, size_t cap, struct error *err)
{
	char *msg = xprintf("{\"execute\": \"%s\"}\n", command);
	ssize_t len = (ssize_t)strlen(msg), n = write(q->fd, msg, (size_t)len);

	free(msg);
	if (n != len)
		return error_set(err, "QMP: cannot send %s: %s", command, strerror(errno));
	return qmp_expect(q, "\"return\"", reply, cap, err);
}

/* "0-3,8" into set; -1 if malformed. */
static int cpulist_set(const char *list, cpu_set_t *set)
{
	const char *p = list;

	CPU_ZERO(set);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return -1;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (a < 0 || b < a || b >= CPU_SETSIZE)
			return -1;
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

/* The next `"key": N` in *p (advancing it), or -1. */
static long next_number(const char **p, const char *key)
{
	const char *at = strstr(*p, key);

	if (!at)
		return -1;
	*p = at + strlen(key);
	return strtol(*p, NULL, 10);
}

/* Drop every `"props": {...}` (no nesting inside): its "thread-id" is the SMT thread's number. */
static void drop_props(char *json)
{
	char *p;

	while ((p = strstr(json, "\"props\": {"))) {
		char *end = strchr(p, '}');

		if (!end)
			break;
		memmove(p, end + 1, strlen(end + 1) + 1);
	}
}

/*
 * query-cpus-fast names each vCPU's thread (by its id in QEMU's PID
 * namespace: proc_thread_id() gives ours); pin it to the host CPUs of its
 * guest node's host node, then `cont`.  res->vcpu_pins records what was done.
 */
static int pin_vcpus(const struct vm_spec *spec, const struct proc *qemu, int fd, struct vm_result *res,
		     struct error *err)
{
	struct qmp q = { .fd = fd, .len = 0, .deadline = now_s() + QMP_TIMEOUT_S };
	char reply[16384];
	const char *tids, *idxs;
	size_t len = 0;
	int pinned = 0;

	if (qmp_expect(&q, "\"QMP\"", reply, sizeof(reply), err) ||
	    qmp_command(&q, "qmp_capabilities", reply, sizeof(reply), err) ||
	    qmp_command(&q, "query-cpus-fast", reply, sizeof(reply), err))
		return -1;
	/* Every object has one thread-id and one cpu-index: the k-th of each belong together. */
	drop_props(reply);
	for (tids = idxs = reply;;) {
		long tid = next_number(&tids, "\"thread-id\":"), cpu = next_number(&idxs, "\"cpu-index\":");
		int node = cpu >= 0 ? topo_cpu_node(spec->topo, (int)cpu) : -1;
		cpu_set_t set;

		if (tid < 0 || cpu < 0)
			break;
		if (tid <= 0)   /* 0 would pin numalab itself */
			return error_set(err, "QMP: vCPU %ld has thread id %ld: %.200s", cpu, tid, reply);
		if ((tid = proc_thread_id(qemu, (pid_t)tid)) <= 0)
			return error_set(err, "QMP: vCPU %ld's thread is not among QEMU's: %.200s", cpu, reply);
		if (node < 0 || cpulist_set(spec->host_nodes->host_cpus[node], &set))
			return error_set(err, "QMP: vCPU %ld is in no guest node with host CPUs", cpu);
		if (sched_setaffinity((pid_t)tid, sizeof(set), &set))
			return error_set(err, "pin vCPU %ld (thread %ld) to host CPUs %s: %s", cpu, tid,
					 spec->host_nodes->host_cpus[node], strerror(errno));
		len += (size_t)snprintf(res->vcpu_pins + len, len < sizeof(res->vcpu_pins) ?
					sizeof(res->vcpu_pins) - len : 0, "%svcpu%ld=thread%ld:host-cpus%s",
					pinned++ ? "," : "", cpu, tid, spec->host_nodes->host_cpus[node]);
	}
	if (pinned != topo_nr_cpus(spec->topo))
		return error_set(err, "QMP: query-cpus-fast named %d vCPUs, the topology has %d: %.200s",
				 pinned, topo_nr_cpus(spec->topo), reply);
	return qmp_command(&q, "cont", reply, sizeof(reply), err);
}

void vm_spec_set_emulator(struct vm_spec *spec, enum topo_arch arch, const struct toolroot_tools *tools,
			  const struct qemu_caps *caps)
{
	if (arch == TOPO_ARCH_LOONGARCH64) {
		spec->qemu = tools->qemu;
		spec->firmware = tools->firmware;
		spec->firmware_on_host = tools->firmware_on_host;
		spec->toolroot = tools->root;
	} else {
		spec->firmware = qemu_x86_firmware();
	}
	spec->caps = caps;
}

void vm_build_argv(const struct vm_spec *spec, struct strvec *argv)
{
	struct strvec plain = STRVEC_INIT;
	char *kernel_dir = xstrdup(spec->kernel), *initrd_dir = xstrdup(spec->initrd);
	char *firmware_dir = xstrdup(spec->firmware_on_host ? spec->firmware : "");
	const char *binds[] = { dirname(kernel_dir), dirname(initrd_dir),
				*firmware_dir ? dirname(firmware_dir) : NULL, NULL };

	qemu_build_argv(spec, &plain);
	toolroot_argv_binds(spec->toolroot, binds, strvec_argv(&plain), argv);
	strvec_clear(&plain);
	free(kernel_dir);
	free(initrd_dir);
	free(firmware_dir);
}

int vm_run(const struct vm_spec *spec_in, int timeout_s, const struct vm_io *io,
	   struct vm_result *res, struct strvec *argv_out, struct error *err)
{
	struct vm_spec spec = *spec_in;
	struct strvec argv = STRVEC_INIT;
	struct session s = { .io = io, .res = res };
	int con[2], tap[2], qerr[2] = { -1, -1 }, qmp[2] = { -1, -1 }, keep[3];
	struct proc qemu;

	memset(res, 0, sizeof(*res));
	res->first_tap_s = res->last_tap_s = res->last_output_s = -1;
	console_scan_init(&res->scan);
	if (make_channel(con, err))
		return -1;
	if (make_channel(tap, err)) {
		close(con[0]);
		close(con[1]);
		return -1;
	}
	/* QEMU's stderr through us (to the log): it says at once when KVM fails. */
	if (pipe2(qerr, O_CLOEXEC) == 0)
		fcntl(qerr[0], F_SETFL, O_NONBLOCK);
	else
		qerr[0] = qerr[1] = -1;
	spec.console_fd = keep[0] = con[1];
	spec.tap_fd = keep[1] = tap[1];
	if (spec.host_nodes && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, qmp)) {
		error_set(err, "socketpair: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			close(con[i]);
			close(tap[i]);
		}
		return -1;
	}
	spec.qmp_fd = keep[2] = qmp[1];
	vm_build_argv(&spec, &argv);
	proc_init(&qemu, strvec_argv(&argv));
	qemu.out = io->qemu_log_fd;
	qemu.err = qerr[1] >= 0 ? qerr[1] : io->qemu_log_fd;
	qemu.keep_fds = keep;
	qemu.nr_keep_fds = spec.host_nodes ? 3 : 2;
	s.console = (struct stream){ con[0], STREAM_CONSOLE };
	s.tap = (struct stream){ tap[0], STREAM_TAP };
	s.qemu_err = (struct stream){ qerr[0], STREAM_QEMU_STDERR };
	s.watch_kvm = spec.accel == VM_ACCEL_KVM;
	s.start = now_s();
	/* UEFI firmware may hang or drop to its shell; qboot (x86) hands over at once. */
	if (spec.firmware && spec.topo->arch != TOPO_ARCH_X86_64)
		s.firmware_deadline = s.start + (timeout_s < VM_FIRMWARE_DEADLINE_S ? timeout_s
										: VM_FIRMWARE_DEADLINE_S);
	progress(io, "booting");
	int rc = proc_start(&qemu, err);

	close(con[1]);
	close(tap[1]);
	if (qerr[1] >= 0)
		close(qerr[1]);
	if (qmp[1] >= 0)
		close(qmp[1]);
	if (!rc && spec.host_nodes && pin_vcpus(&spec, &qemu, qmp[0], res, err)) {
		/* Not the guest's failure: QEMU never ran it. */
		proc_kill(&qemu);
		if (proc_wait(&qemu, NULL)) {
			/* Killed: its status adds nothing to err. */
		}
		rc = -1;
	}
	if (qmp[0] >= 0)
		close(qmp[0]);
	if (!rc) {
		res->end = supervise(&s, &qemu, timeout_s);
		proc_kill(&qemu);
		res->qemu_status = proc_wait(&qemu, err);
		/* The handler may kill QEMU before the loop sees the flag. */
		if (interrupt_caught() && res->end != VM_CRASHED && res->end != VM_FIRMWARE)
			res->end = VM_INTERRUPTED;
		/* A guest's power-off or panic (-no-reboot) ends QEMU with 0: anything else is QEMU's. */
		if (res->end == VM_POWEROFF && res->qemu_status != 0)
			res->end = VM_QEMU_FAILED;
		drain(&s);
		res->total_s = now_s() - s.start;
	}
	if (s.console.fd >= 0)
		close(s.console.fd);
	if (s.tap.fd >= 0)
		close(s.tap.fd);
	if (s.qemu_err.fd >= 0)
		close(s.qemu_err.fd);
	if (argv_out)
		for (size_t i = 0; i < argv.nr; i++)
			strvec_push(argv_out, argv.items[i]);
	strvec_clear(&argv);
	return rc;
}

/* The KVM device the probe opens (vm.h). */
static const char *kvm_device(void)
{
	const char *dev = getenv("NUMALAB_KVM_DEVICE");

	return dev && *dev ? dev : "/dev/kvm";
}

/*
 * A KVM guest prints its firmware's banner within milliseconds and reaches
 * /init in about a second.  A paravirtual KVM (kvm_pvm) that cannot run it
 * either says so on stderr at once, or crawls: its SeaBIOS banner comes after
 * 3.5 s, "Booting from ROM" after 10 s.  A hung vCPU prints nothing.
 */
#define PROBE_DEADLINE_S 10
#define PROBE_KERNEL_S 2.5
#define PROBE_SILENCE_S 3
#define PROBE_MARK "# numalab: probe"
/* Bumped when what a cached verdict depends on changes. */
#define ACCEL_CACHE_FORMAT "numalab-accel 1"

struct probe_ctx {
	char seen[256];
	size_t len;
};

static void probe_tap(void *ctx, const char *data, size_t len)
{
	struct probe_ctx *p = ctx;
	size_t room = sizeof(p->seen) - 1 - p->len;

	if (len > room)
		len = room;
	memcpy(p->seen + p->len, data, len);
	p->len += len;
	p->seen[p->len] = '\0';
}

/* Done once /init answered, or when the guest is too slow to be under a working KVM. */
static int probe_stop(void *ctx, double elapsed_s, const struct vm_result *sofar)
{
	struct probe_ctx *p = ctx;

	if (strstr(p->seen, PROBE_MARK))
		return 1;
	if (!sofar->scan.kernel_started)
		return elapsed_s >= PROBE_KERNEL_S;
	return elapsed_s - sofar->last_output_s >= PROBE_SILENCE_S;
}

/*
 * What a verdict holds for: this boot of the host, this QEMU binary, this
 * kernel image and KVM device, the device by path and by what it is (kvm_st,
 * its fstat): a test's stand-in at /dev/kvm in a mount namespace must not
 * decide for the host's real one.  The file under the cache is named by its
 * hash; -1 when one of them cannot be read (no caching then).
 */
static int accel_cache_path(const struct vm_spec *spec, const char *dev, const struct stat *kvm_st,
			    char *out, size_t cap)
{
	struct buf key = BUF_INIT, boot_id = BUF_INIT;
	char kernel_hex[65];
	struct error err;
	int rc = -1;

	buf_addf(&key, "%s\n", ACCEL_CACHE_FORMAT);
	if (!read_file("/proc/sys/kernel/random/boot_id", &boot_id, &err) &&
	    !qemu_identity(spec->qemu, spec->toolroot, &key) &&
	    !sha256_file(spec->kernel, kernel_hex, &err)) {
		buf_addf(&key, "\nboot %s\nkernel %s\nkvm %s %llu %llu %llu\n",
			 buf_str(&boot_id), kernel_hex, dev, (unsigned long long)kvm_st->st_rdev,
			 (unsigned long long)kvm_st->st_dev, (unsigned long long)kvm_st->st_ino);
		lab_cache_keyed("accel", &key, out, cap);
		rc = 0;
	}
	buf_free(&key);
	buf_free(&boot_id);
	return rc;
}

/* A cached verdict ("kvm|tcg EPOCH WHY"): the accelerator and why = "tcg (cached ...: WHY)". */
static int accel_cache_read(const char *path, enum vm_accel *accel, char *why, size_t cap)
{
	struct buf b = BUF_INIT;
	struct error err;
	char name[8], when[32];
	long long epoch;
	int used = 0, rc = -1;

	if (!read_file(path, &b, &err) && sscanf(buf_str(&b), "%7s %lld %n", name, &epoch, &used) == 2 &&
	    used && (!strcmp(name, "kvm") || !strcmp(name, "tcg"))) {
		time_t t = (time_t)epoch;
		const char *reason = buf_str(&b) + used;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime(&t));
		*accel = !strcmp(name, "kvm") ? VM_ACCEL_KVM : VM_ACCEL_TCG;
		snprintf(why, cap, "%s (cached, probed %s UTC: %.*s)", name, when,
			 (int)strcspn(reason, "\n"), reason);
		rc = 0;
	}
	buf_free(&b);
	return rc;
}

/* The verdict for later runs; a lost cache write only costs a probe. */
static void accel_cache_write(const char *path, enum vm_accel accel, const char *why)
{
	char *dir = xstrdup(path), *line;
	struct error err;

	*strrchr(dir, '/') = '\0';
	line = xprintf("%s %lld %s\n", accel == VM_ACCEL_KVM ? "kvm" : "tcg", (long long)time(NULL), why);
	if (mkdir_p(dir, &err) || write_file_atomic(path, line, strlen(line), &err)) {
		/* Lost: the next run probes again (see above). */
	}
	free(line);
	free(dir);
}

/* One probe boot: the verdict, and whether it is worth keeping (not if QEMU could not start). */
static enum vm_accel probe_boot(const struct vm_spec *spec, char *why, size_t cap, int *definite)
{
	struct vm_spec probe = *spec;
	struct probe_ctx ctx = { .len = 0 };
	struct vm_io io = { .console_fd = -1, .qemu_log_fd = -1, .on_tap = probe_tap, .stop = probe_stop,
			    .ctx = &ctx };
	struct vm_result res;
	struct error err;
	char cmdline[1024];

	snprintf(cmdline, sizeof(cmdline), "%s%snumalab.probe=1",
		 spec->extra_cmdline ? spec->extra_cmdline : "", spec->extra_cmdline ? " " : "");
	probe.extra_cmdline = cmdline;
	probe.accel = VM_ACCEL_KVM;
	probe.serial_tap = 0;   /* its answer comes on the TAP channel */
	*definite = 1;
	if (vm_run(&probe, PROBE_DEADLINE_S, &io, &res, NULL, &err)) {
		*definite = 0;
		snprintf(why, cap, "kvm probe could not start: %s", err.msg);
		return VM_ACCEL_TCG;
	}
	if (strstr(ctx.seen, PROBE_MARK)) {
		snprintf(why, cap, "kvm probe boot reached /init in %.1f s", res.first_tap_s);
		return VM_ACCEL_KVM;
	}
	if (res.kvm_error[0]) {
		snprintf(why, cap, "kvm probe: qemu said \"%s\" after %.1f s", res.kvm_error, res.total_s);
		return VM_ACCEL_TCG;
	}
	if (res.end == VM_QEMU_FAILED || (res.end == VM_POWEROFF && res.first_tap_s < 0)) {
		snprintf(why, cap, "kvm probe: qemu exited with status %d after %.1f s", res.qemu_status,
			 res.total_s);
		return VM_ACCEL_TCG;
	}
	if (res.end == VM_STOPPED && !res.scan.kernel_started)
		snprintf(why, cap, "kvm probe: no kernel had started after %.1f s (%s)", res.total_s,
			 res.last_output_s < 0 ? "no output at all" : "firmware output only");
	else
		snprintf(why, cap, "kvm probe boot did not reach /init (%s after %.1f s%s)",
			 vm_end_name(res.end), res.total_s,
			 res.end == VM_STOPPED ? ", silent since its last output" : "");
	return VM_ACCEL_TCG;
}

enum vm_accel vm_probe_accel(const struct vm_spec *spec, char *why, size_t cap)
{
	const char *dev = kvm_device();
	char cache[4200], reason[sizeof(((struct error *)0)->msg) + 64];   /* reason: the probe's error and a prefix */
	enum vm_accel accel;
	int fd = open(dev, O_RDWR | O_CLOEXEC), cacheable, definite;
	struct stat kvm_st;

	if (fd < 0) {
		snprintf(why, cap, "tcg: %s: %s", dev, strerror(errno));
		return VM_ACCEL_TCG;
	}
	cacheable = !fstat(fd, &kvm_st) && !accel_cache_path(spec, dev, &kvm_st, cache, sizeof(cache));
	close(fd);
	if (cacheable && !accel_cache_read(cache, &accel, why, cap))
		return accel;
	accel = probe_boot(spec, reason, sizeof(reason), &definite);
	snprintf(why, cap, "%s: %s", accel == VM_ACCEL_KVM ? "kvm" : "tcg", reason);
	if (cacheable && definite)
		accel_cache_write(cache, accel, reason);
	return accel;
}
