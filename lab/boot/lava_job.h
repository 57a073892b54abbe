/*
 * lava_job: a vm spec → a LAVA job definition (YAML, LAVA 2023.01).  Pure:
 * builds text, talks to nobody.  The same guest as a local run: the QEMU
 * arguments come from qemu_build_argv() and are sorted into what LAVA's
 * `qemu` device type (and lab-data lava/device-types/qemu-loongarch64.jinja2)
 * takes as job context:
 *
 *   -m SIZE                       memory
 *   -accel tcg...                 no_kvm: true, the -accel and -cpu kept in
 *                                 extra_options; under KVM (no_kvm: false) the
 *                                 device type adds its own -cpu host -enable-kvm
 *   -kernel/-initrd/-append       the tmpfs deploy's kernel and ramdisk
 *                                 (image_arg), the command line in the kernel's
 *   -chardev, -serial, the virtio console, -name, -nographic
 *                                 left out: LAVA owns the console (its QEMU's
 *                                 stdio, `-serial stdio` added)
 *   -bios (x86 qboot)             left out: SeaBIOS is on every worker
 *   -bios (LoongArch edk2)        the device type's own firmware
 *   the rest (-machine, -smp, -object memory-backend, -numa, HMAT, -global)
 *                                 extra_options, one option and value a line
 *
 * The spec must ask for serial TAP (spec->serial_tap): a LAVA job sees only
 * the console.  Its caps should be NULL: the worker's QEMU (7.2 on Debian 12,
 * 10 on 13) cannot be asked from here, and an optional option one of them
 * lacks (QEMU 10 has no ICH9-LPC.memory-hotplug-support) ends the job at
 * once; run.c passes NULL.  The test action is two `monitors` over /init's
 * <LAVA_SIGNAL_TESTCASE ...> lines (images/init/serial.c): suite "numalab",
 * one test case per KTAP leaf, then "numalab-measurements", one per metric,
 * without an overlay in the initramfs.  Golden files
 * (tests/host/unit/golden/lava/NAME.yaml) pin the output.
 */
#ifndef LAB_LAVA_JOB_H
#define LAB_LAVA_JOB_H

#include "base/util.h"
#include "boot/qemu.h"

/* The monitor's name in LAVA: the test suite its cases are listed under. */
#define LAVA_JOB_SUITE "numalab"
/* /init's last console line: the monitor's end. */
#define LAVA_JOB_END "numalab-init: powering off"

struct lava_job_in {
	const struct vm_spec *spec;   /* the cell's guest, serial_tap set */
	const char *device_type;      /* "qemu", "qemu-loongarch64", the user's */
	const char *job_name;
	const char *kernel_url, *initrd_url;   /* where the worker downloads them (http(s)://, file://) */
	int timeout_s;                /* the guest's, as a local run's */
};

/* The job definition into out. */
void lava_job_yaml(const struct lava_job_in *in, struct buf *out);

#endif
