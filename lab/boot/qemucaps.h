/*
 * qemucaps: what the QEMU at hand accepts, so that the argv (qemu.h) and the
 * libvirt XML (libvirt_xml.h) pass it only options it has, from QEMU 7.2 to
 * 10 and whatever a distro or a user built.
 *
 * Contract:
 *  - The lab's required options (NUMA, HMAT, memory backends, 9p, virtio
 *    consoles) are in every QEMU the lab supports and are not asked about.
 *    What is asked about is each optional option: the parts of qemu_q35_slim()
 *    that only make a guest cheaper.  One a QEMU does not list is left out,
 *    never guessed: QEMU 10 dropped ICH9-LPC's memory-hotplug-support, which
 *    every earlier q35 had.
 *  - qemu_caps_probe() asks the binary once (QEMU_CAPS_QUERIES, each its own
 *    QEMU process that prints and exits, inside the toolroot when the spec has
 *    one) and keeps the replies in the lab cache beside the accelerator
 *    verdict (CACHE/qemu-caps/HASH, HASH over the binary's qemu_identity()),
 *    so later runs read one small file; remove CACHE/qemu-caps to ask again.
 *  - The replies are the one format: the cache file, and the recorded
 *    replies of each supported QEMU family under tests/host/unit/qemucaps/
 *    (from which the golden argv and XML of every family are built), are
 *    read by qemu_caps_parse() alone.
 *  - A QEMU that does not answer `--version` is an error naming it and what
 *    to install; one whose help lists nothing just has no optional options.
 */
#ifndef LAB_QEMUCAPS_H
#define LAB_QEMUCAPS_H

#include <stddef.h>
#include "base/util.h"

/* The optional options, each a property one of QEMU_CAPS_QUERIES lists. */
enum qemu_cap {
	QEMU_CAP_Q35_VMPORT,                /* -machine q35,vmport= */
	QEMU_CAP_Q35_SMM,                   /* -machine q35,smm= */
	QEMU_CAP_Q35_SATA,                  /* -machine q35,sata= */
	QEMU_CAP_Q35_SMBUS,                 /* -machine q35,smbus= */
	QEMU_CAP_Q35_I8042,                 /* -machine q35,i8042= */
	QEMU_CAP_ICH9_PCI_HOTPLUG_BRIDGE,   /* -global ICH9-LPC.acpi-pci-hotplug-with-bridge-support= */
	QEMU_CAP_ICH9_MEMORY_HOTPLUG,       /* -global ICH9-LPC.memory-hotplug-support= (gone in 10.0) */
	QEMU_CAP_NR
};

struct qemu_caps {
	char banner[160];                   /* --version's first line, for meta; "" unknown */
	char version[32];                   /* "7.2.19", from that line; "" unknown */
	unsigned char has[QEMU_CAP_NR];
};

/* The property name of cap, as QEMU's help lists it ("i8042", "memory-hotplug-support"). */
const char *qemu_cap_property(enum qemu_cap cap);

/* 1 when caps (may be NULL: nothing known) says the QEMU has cap. */
int qemu_caps_has(const struct qemu_caps *caps, enum qemu_cap cap);

/*
 * Parse replies (the text qemu_caps_probe() keeps: "== QUERY" lines, each
 * followed by what QEMU printed for it) into caps.  Pure.  A query the text
 * lacks answers "absent" for its properties.
 */
void qemu_caps_parse(const char *replies, struct qemu_caps *caps);

/*
 * What the QEMU binary qemu is (a name or path, run inside toolroot when that
 * is neither NULL nor ""), for caches keyed by it (this one's and the
 * accelerator verdict's, vm.h): appends "qemu PATH SIZE MTIME INODE" to out,
 * PATH resolved as execvp would, inside the toolroot when there is one.  -1
 * when it cannot be found.
 */
int qemu_identity(const char *qemu, const char *toolroot, struct buf *out);

/*
 * Ask qemu (run inside toolroot as above) what it accepts, or read the
 * cached replies.  0 with caps filled; -1 with err when QEMU cannot be run
 * or does not answer --version (err says to install QEMU: make setup).
 */
int qemu_caps_probe(const char *qemu, const char *toolroot, struct qemu_caps *caps, struct error *err) LAB_MUST_CHECK;

#endif
