/*
 * qemu: a vm spec → the QEMU command line.  Pure: builds an argv, starts
 * nothing.  What the QEMU at hand accepts is an input (spec->caps,
 * qemucaps.h): golden files (tests/host/unit/golden/qemu/FAMILY/NAME.argv,
 * one argument per line) pin the output for every shipped topology and every
 * recorded QEMU family of its arch, and integration/qemu-accepts.sh hands
 * each topology's argv to every QEMU present.
 */
#ifndef LAB_QEMU_H
#define LAB_QEMU_H

#include <stddef.h>
#include <stdint.h>

#include "model/topology.h"
#include "base/util.h"
#include "boot/qemucaps.h"

enum vm_accel { VM_ACCEL_TCG, VM_ACCEL_KVM };

/*
 * A host directory the guest mounts over 9p (virtio-9p-pci, QEMU's `local`
 * backend, security_model=none: the guest sees the host's owners and modes
 * and acts with QEMU's rights).  images/init/ mounts each tag listed in
 * /lab/shares (image.h).
 */
struct vm_share {
	const char *tag;           /* mount_tag, <= 31 bytes */
	const char *path;          /* host directory, absolute */
	int writable;              /* 0: readonly=on in QEMU, the guest cannot write */
};

#define VM_MAX_SHARES 16

/*
 * Host-backed NUMA for the direct backend (--host-nodes, hostnuma.h): guest
 * node i's memory is bound to host node host_node[i] by its memory backend,
 * and the vCPUs of guest node i are pinned to host_cpus[i] once QEMU is up.
 */
struct vm_host_nodes {
	int host_node[TOPO_MAX_NODES];
	char host_cpus[TOPO_MAX_NODES][256];   /* host CPUs of host_node[i], "0-7,16-23"; "" CPU-less */
	int prealloc;                          /* allocate all guest memory at start */
};

/* Everything a backend needs to start one guest. */
struct vm_spec {
	const struct topology *topo;
	const char *qemu;          /* emulator binary (PATH lookup) */
	/* What that QEMU accepts (qemucaps.h); NULL: no optional option is passed. */
	const struct qemu_caps *caps;
	const char *kernel;        /* kernel image */
	const char *initrd;        /* initramfs */
	const char *firmware;      /* -bios image; NULL: QEMU's default (SeaBIOS on x86) */
	const char *toolroot;      /* run QEMU inside this root (toolroot.h); NULL/"": host */
	int firmware_on_host;      /* with a toolroot: firmware is a host file, not the root's */
	const char *extra_cmdline; /* appended to the lab's kernel command line; may be NULL */
	enum vm_accel accel;
	int console_fd;            /* fd QEMU inherits for the serial console */
	int tap_fd;                /* fd QEMU inherits for the TAP virtio console */
	/*
	 * No virtio console, as on a board or under LAVA: the guest writes its
	 * TAP framed on the serial console (numalab.tap=serial, serialtap.h).
	 */
	int serial_tap;
	/* A qcow2 on virtio-blk holding the root (disk.h) at disk_root; NULL: initramfs only. */
	const char *disk, *disk_root;
	/* Host directories shared with the guest; nr_shares 0: none. */
	const struct vm_share *shares;
	int nr_shares;
	/* Instead of the fds: plain files (a by-hand baseline, debugging). */
	const char *console_file, *tap_file;
	/*
	 * Host-backed NUMA; NULL: emulated.  QEMU then starts paused (-S) with a
	 * QMP monitor on qmp_fd, so the vCPU threads can be pinned before the
	 * guest runs (vm.c).
	 */
	const struct vm_host_nodes *host_nodes;
	int qmp_fd;
};

/*
 * The firmware x86 guests boot through: qboot (QEMU_X86_QBOOT, Debian's
 * qemu-system-data), which loads -kernel/-initrd and QEMU's ACPI tables and
 * jumps to the kernel in milliseconds, where SeaBIOS took 0.5 s of a 1.5 s
 * boot under TCG.  NULL (SeaBIOS) when the file is missing.
 */
#define QEMU_X86_QBOOT "/usr/share/qemu/qboot.rom"
const char *qemu_x86_firmware(void);

/*
 * What an x86 guest under TCG is spared, in both backends (measured with
 * `make bench`, 2node, first TAP):
 *  - QEMU_X86_TCG_CPU_OFF: CPU features TCG makes slow.  With ERMS/FSRM the
 *    kernel's memset, clear_page and memcpy use REP STOSB/MOVSB, and TCG
 *    runs a REP string instruction one element at a time: a byte per step
 *    instead of REP STOSQ's eight (0.1 s of a 1.3 s boot).
 *  - qemu_q35_slim(): q35 without what no lab guest uses: vmport, SMM, and
 *    SATA, SMBus and the PS/2 controller (qemu_q35_slim_props(); libvirt
 *    has elements only for vmport and SMM, so it passes the others as a
 *    second -machine), and without the ACPI PCI and memory hotplug AML
 *    (qemu_q35_no_hotplug_args(), -global options), which the guest's ACPI
 *    interpreter otherwise loads and runs (0.08 s of guest boot for the PCI
 *    hotplug AML; the rest less than the host's noise, acpi_init 0.10 ->
 *    0.09 s).  No lab guest has a SATA disk or a keyboard, firmware that
 *    needs SMM, or hot-plugs a device or memory.
 * Each of these is optional: passed only when caps (qemucaps.h) says the
 * QEMU has it, since they only make the guest cheaper (QEMU 10 has no
 * ICH9-LPC.memory-hotplug-support, and refuses to start when given it).
 */
#define QEMU_X86_TCG_CPU_OFF { "erms", "fsrm" }
int qemu_q35_slim(const struct topology *t);
/*
 * Appends ",PROP=off" for each q35 machine property caps has; with_elements
 * 0 leaves out vmport and smm (libvirt writes those as <features> elements).
 */
void qemu_q35_slim_props(const struct qemu_caps *caps, int with_elements, struct buf *out);
/* Appends "-global ICH9-LPC.PROP=off" for each ACPI hotplug property caps has. */
void qemu_q35_no_hotplug_args(const struct qemu_caps *caps, struct strvec *argv);

/* The emulator binary for the topology's arch (qemu-system-x86_64, ...). */
const char *qemu_binary(enum topo_arch arch);

/* The kernel command line the lab boots with (hardened: panics end the VM). */
void qemu_cmdline(const struct vm_spec *spec, struct buf *out);

/* Append the full argv (including argv[0] = spec->qemu) to argv. */
void qemu_build_argv(const struct vm_spec *spec, struct strvec *argv);

/* The -numa hmat-lb pairs (latency, bandwidth) of one HMAT entry. */
void qemu_hmat_lb_args(const struct topo_hmat_lb *lb, struct strvec *argv);

/* Sockets: one per CPU node when they are all alike, else one per CPU. */
int qemu_sockets(const struct topology *t);

/* "20G", "512M", "4K", "3": the largest binary unit that divides n exactly. */
void qemu_format_size(uint64_t n, char *out, size_t cap);

const char *vm_accel_name(enum vm_accel accel);

#endif
