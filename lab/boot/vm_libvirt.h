/*
 * vm_libvirt: one guest's life under libvirt (docs/libvirt.md), the same
 * contract as vm.h's vm_run(): the same struct vm_result, the same console
 * and TAP bytes handed to the same struct vm_io, so run.c's results do not
 * depend on the backend.
 *
 * The domain is transient (virDomainCreateXML) and AUTODESTROY: it dies with
 * our connection, so a runner killed by SIGKILL takes it along.  Everything
 * is driven by libvirt's event loop: lifecycle events (no polling of the
 * domain state), the console and TAP sockets QEMU connects to (streamed as
 * they come, the console through the console.h scanner for live panic
 * detection), a timer destroying the domain at its deadline, and a one
 * second tick for progress and SIGINT/SIGTERM/SIGHUP (interrupt_catch()),
 * which destroy the domain.
 *
 * The sockets are local files: with a remote URI the guest's QEMU must run
 * on this host's filesystem view (kernel, initramfs and sockets), i.e. the
 * URI names this host (qemu+ssh://localhost/system, a private socket, ...).
 */
#ifndef LAB_VM_LIBVIRT_H
#define LAB_VM_LIBVIRT_H

#include <stddef.h>

#include "boot/libvirt_xml.h"
#include "boot/vm.h"

struct vm_libvirt;   /* an open connection */

/*
 * Connect to uri (NULL: LIBVIRT_DEFAULT_URI, else libvirt's default).
 * The first connection to a fresh daemon takes ~30 s (it probes every
 * installed QEMU).  -1 with err naming the URI and what to do.
 */
int vm_libvirt_open(const char *uri, struct vm_libvirt **out, struct error *err) LAB_MUST_CHECK;
void vm_libvirt_close(struct vm_libvirt *lv);

/*
 * Host-backed mode: parse map_arg (libvirt_parse_host_nodes()), check that
 * the host has every node asked for and note each one's CPUs.  -1 with err
 * (a usage error: the host lacks a node) otherwise.
 */
int vm_libvirt_bind_host(struct vm_libvirt *lv, const struct topology *t, const char *map_arg,
			 struct error *err) LAB_MUST_CHECK;

/*
 * Run one guest like vm_run().  The domain XML is written to xml_path
 * (atomically) before the domain is created; argv_out (may be NULL) gets
 * the line meta records as "command".  Returns 0 when the guest ran
 * (whatever its end), -1 with err when it could not be created.
 */
int vm_libvirt_run(struct vm_libvirt *lv, const struct vm_spec *spec, int timeout_s,
		   const struct vm_io *io, struct vm_result *res, const char *xml_path,
		   struct strvec *argv_out, struct error *err) LAB_MUST_CHECK;

/*
 * The emulator libvirt starts for guests of arch (the <emulator> of its
 * capabilities), into path: the QEMU whose capabilities (qemucaps.h) the
 * domain XML is built for.  It runs on this host (see above).  -1 with err
 * when libvirt names none for arch.
 */
int vm_libvirt_emulator(struct vm_libvirt *lv, enum topo_arch arch, char *path, size_t cap,
			struct error *err) LAB_MUST_CHECK;

/* meta keys: backend, libvirt (library and daemon versions), libvirt.uri, host_numa. */
void vm_libvirt_meta(const struct vm_libvirt *lv, const struct topology *t, struct buf *meta);

#endif
