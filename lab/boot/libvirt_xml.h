/*
 * libvirt_xml: a vm spec → libvirt domain XML.  Pure: builds text, talks to
 * no daemon.  The same topology model and kernel command line as qemu.c, so
 * both backends boot the same guest, and the same QEMU capabilities
 * (spec->caps, of the emulator libvirt runs: vm_libvirt_emulator()).  Golden
 * files (tests/host/unit/golden/libvirt/FAMILY/NAME.xml) pin the output for
 * every shipped x86 topology and QEMU family; UPDATE_GOLDEN=1
 * build/unit/test_libvirt_xml rewrites them.
 *
 * The guest: <domain type='qemu'> under TCG ('kvm' with KVM), cpu
 * mode='maximum' with one NUMA cell per node (CPU-less cells have no cpus),
 * distances, HMAT interconnects and memory-side caches, ACPI, direct kernel
 * boot, the serial console and the TAP virtio console (hvc0) as unix sockets
 * QEMU connects to (the runner listens: it streams both live), no NIC, no
 * balloon, an ISA pvpanic device, and every end (poweroff, reboot, crash)
 * destroys the domain.  QEMU runs as root without relabelling (a static DAC
 * label): the kernel, initramfs and sockets live in root's directories.
 *
 * Host-backed mode binds each guest node's memory (<numatune><memnode>) and
 * vCPUs (<vcpupin>) to a host node, so remote-node latency is real.
 */
#ifndef LAB_LIBVIRT_XML_H
#define LAB_LIBVIRT_XML_H

#include "boot/qemu.h"
#include "base/util.h"

/* Guest node → host node; bound == 0: not host-backed. */
struct libvirt_host_map {
	int bound;
	int host_node[TOPO_MAX_NODES];
	char host_cpus[TOPO_MAX_NODES][256];   /* the host node's CPUs, cpuset syntax */
};

struct libvirt_domain {
	const char *name;            /* domain name, unique per run */
	const char *console_socket;  /* unix socket the runner listens on: serial console */
	const char *tap_socket;      /* ... the TAP virtio console */
	const struct libvirt_host_map *host;   /* NULL or !bound: no binding */
};

/*
 * Can this topology run under libvirt?  Not a LoongArch one, whatever the
 * host's libvirt (it would need libvirt ≥ 10.2, QEMU ≥ 9 and UEFI firmware;
 * the direct backend boots those): -1 with err naming the direct backend.
 * Also -1 when a CPU-less node's initiator is not the one libvirt derives
 * (the initiator with the lowest HMAT latency to it).
 */
int libvirt_xml_supported(const struct topology *t, struct error *err) LAB_MUST_CHECK;

/* Append the domain XML for spec to out; -1 with err when unsupported. */
int libvirt_domain_xml(const struct vm_spec *spec, const struct libvirt_domain *d,
		       struct buf *out, struct error *err) LAB_MUST_CHECK;

/*
 * Parse --host-nodes: "auto" (guest node N → host node N) or
 * "G=H,G=H,..." naming every guest node once.  Fills map->host_node and
 * sets bound; host_cpus are left for the caller (they come from the host).
 */
int libvirt_parse_host_nodes(const char *arg, const struct topology *t,
			     struct libvirt_host_map *map, struct error *err) LAB_MUST_CHECK;

/* "guest0=host0,guest1=host1,..." for meta's host_numa key. */
void libvirt_host_map_line(const struct topology *t, const struct libvirt_host_map *map,
			   struct buf *out);

#endif
