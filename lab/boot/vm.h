/*
 * vm: one guest's life under the direct QEMU backend.
 *
 * vm_run() creates two socket pairs (console, TAP), starts QEMU with the
 * argv from qemu.c (its own process group, killed if numalab dies), streams
 * both channels until QEMU exits, the timeout expires, a kernel crash is
 * seen on the console, UEFI firmware (LoongArch) fails to start the kernel
 * (its shell, or no kernel output within VM_FIRMWARE_DEADLINE_S), or the runner is
 * interrupted, and always reaps QEMU
 * before returning.  Nothing from the guest is lost: every byte read is
 * handed to io before vm_run() returns.
 */
#ifndef LAB_VM_H
#define LAB_VM_H

#include <stddef.h>

#include "boot/console.h"
#include "boot/qemu.h"
#include "host/toolroot.h"

/* How long UEFI firmware may take to hand over to the kernel (TCG, loaded host). */
#define VM_FIRMWARE_DEADLINE_S 120

/* How often a quiet guest's vm_io.stop is asked: its deadlines are this late at most. */
#define VM_STOP_POLL_MS 100

enum vm_end {
	VM_POWEROFF,           /* the guest powered off (or QEMU exited by itself) */
	VM_TIMEOUT,            /* killed at the deadline */
	VM_CRASHED,            /* the console showed a panic/oops/...: see scan */
	VM_INTERRUPTED,        /* SIGINT/SIGTERM/SIGHUP reached the runner (interrupt.h) */
	VM_FIRMWARE,           /* UEFI never started the kernel (EFI shell, hang): see scan */
	VM_QEMU_FAILED,        /* QEMU exited non-zero, died on a signal by itself (qemu_status),
				  or said KVM cannot run the guest (kvm_error) */
	VM_STOPPED,            /* io->stop asked for it */
	VM_ESCAPED,            /* interactive: the user typed VM_ESCAPE_BYTE */
};

struct vm_result {
	enum vm_end end;
	int qemu_status;       /* exit code, 128+signal, -1 unknown */
	double first_tap_s;    /* QEMU start → first TAP byte; < 0: none */
	double last_tap_s;     /* QEMU start → last TAP byte (the guest is done); < 0: none */
	double last_output_s;  /* QEMU start → last console or TAP byte; < 0: none */
	double total_s;        /* QEMU start → reaped */
	char kvm_error[200];   /* QEMU's stderr line saying KVM failed (-accel kvm); "": none */
	struct console_scan scan;
	/* Host-backed NUMA (spec->host_nodes): "vcpu0=thread123:host-cpus0-7,..."; "" otherwise. */
	char vcpu_pins[1024];
};

struct vm_io {
	int console_fd;        /* console bytes are appended here; -1: dropped */
	int qemu_log_fd;       /* QEMU's own stdout/stderr; -1: /dev/null */
	void (*on_tap)(void *ctx, const char *data, size_t len);
	/* A new phase, or NULL once a second while waiting; may be NULL. */
	void (*on_progress)(void *ctx, const char *phase);
	/*
	 * Asked after every wake-up (at least every VM_STOP_POLL_MS) with the time since
	 * QEMU started and the result so far; non-zero ends the guest now
	 * (VM_STOPPED).  May be NULL.
	 */
	int (*stop)(void *ctx, double elapsed_s, const struct vm_result *sofar);
	void *ctx;
	/*
	 * The console is this process's terminal (numalab shell): stdin's bytes
	 * go to the guest's serial console, its bytes also to stdout, and
	 * VM_ESCAPE_BYTE on stdin ends the guest (VM_ESCAPED).  The caller puts
	 * the terminal in raw mode.
	 */
	int interactive;
};

/* Ctrl-] (as telnet's and virsh console's escape) ends an interactive guest. */
#define VM_ESCAPE_BYTE 0x1d

/*
 * Run one guest.  spec's fds are filled in here; argv_out (may be NULL)
 * receives the command line used.  With spec->host_nodes QEMU starts paused
 * and each vCPU thread (from QMP's query-cpus-fast) is pinned to the host
 * CPUs of its node's host node before `cont`.  Returns 0 when the guest ran
 * (whatever its end), -1 with err when QEMU could not be started or its
 * vCPUs not pinned.
 */
int vm_run(const struct vm_spec *spec, int timeout_s, const struct vm_io *io,
	   struct vm_result *res, struct strvec *argv_out, struct error *err) LAB_MUST_CHECK;

/*
 * The command vm_run() starts for spec: QEMU's argv, wrapped to run inside
 * the toolroot when the spec has one, with the directories of the host files
 * it reads (kernel, initrd, console/TAP files, a host firmware) mounted there
 * at their own paths.
 */
void vm_build_argv(const struct vm_spec *spec, struct strvec *argv);

/*
 * The emulator and firmware for a guest of arch: LoongArch's QEMU, edk2 and
 * root from tools (toolroot_tools(); spec points into it, so tools must
 * outlive spec), x86's spec->qemu as the caller set it (the host's QEMU, or
 * libvirt's emulator) with qemu_x86_firmware(); and what that emulator
 * accepts: spec->caps = caps, filled by the caller's qemu_caps_probe() of
 * spec->qemu and spec->toolroot (caps must outlive spec).
 */
void vm_spec_set_emulator(struct vm_spec *spec, enum topo_arch arch, const struct toolroot_tools *tools,
			  const struct qemu_caps *caps);

/*
 * Pick the accelerator: KVM only if the KVM device opens and a probe boot of
 * this very guest (kernel command line + numalab.probe=1) reaches /init;
 * else TCG.  The probe ends at once when QEMU says KVM failed ("KVM internal
 * error", a paravirtual KVM) or exits, when the kernel has not started within
 * 2.5 s (firmware alone takes longer under a crawling KVM) or then fell silent
 * for 3 s, and after 10 s at most (a KVM guest reaches /init in about a
 * second).  The verdict is cached in the lab cache (CACHE/accel/) for this
 * host boot, QEMU binary, kernel image and device (its path and number), so
 * later runs pay nothing; why then says "tcg (cached, probed WHEN: REASON)".
 * Remove CACHE/accel to probe again.  why receives the reason, recorded in
 * results.  The KVM device is $NUMALAB_KVM_DEVICE, else /dev/kvm (tests hide
 * KVM with NUMALAB_KVM_DEVICE=/nonexistent).
 */
enum vm_accel vm_probe_accel(const struct vm_spec *spec, char *why, size_t cap);

const char *vm_end_name(enum vm_end end);

#endif
