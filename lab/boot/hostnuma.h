/*
 * hostnuma: --host-nodes for the direct QEMU backend.  Each guest node is
 * backed by a real host NUMA node: its memory bound there
 * (memory-backend-ram host-nodes=H,policy=bind, qemu.h), its vCPU threads
 * pinned to that node's CPUs (vm.c, thread ids from QMP).  Results record
 * the map as meta's host_numa, so compare treats them as real NUMA and
 * refuses to mix them with emulated cells.
 */
#ifndef LAB_HOSTNUMA_H
#define LAB_HOSTNUMA_H

#include "boot/qemu.h"
#include "model/topology.h"
#include "base/util.h"

#define HOSTNUMA_SYSFS "/sys/devices/system/node"

/*
 * Parse arg ("auto": guest node N on host node N, or "G=H,..." naming every
 * guest node once) and check it against the host's nodes under node_dir
 * (HOSTNUMA_SYSFS; tests pass a fake tree): a guest node with CPUs needs a
 * host node with CPUs, a CPU-less one a host node with memory.  Fills *out
 * (host_cpus from the host's nodeH/cpulist).  -1 with err naming the
 * missing host node, the nodes the host has and a map that would work: the
 * user's to fix (exit 2).
 */
int hostnuma_bind(const char *arg, const struct topology *t, const char *node_dir,
		  struct vm_host_nodes *out, struct error *err) LAB_MUST_CHECK;

/* "guest0=host0,guest1=host1,..." (meta's host_numa, as the libvirt backend writes it). */
void hostnuma_line(const struct topology *t, const struct vm_host_nodes *h, struct buf *out);

#endif
