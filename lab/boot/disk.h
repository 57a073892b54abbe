/*
 * disk: guest disk images through libguestfs (docs/images.md).  No root
 * tricks: no loop mounts, no mount(8) on the host; libguestfs runs its own
 * small appliance VM for every launch (35-50 s under TCG), so each
 * operation below is exactly ONE launch, whatever it writes or reads.
 *
 *  - disk_build(): a Debian root (debootstrap into the cache, as a tar) plus
 *    the lab's /lab (init, test binaries) written into a fresh qcow2 (one
 *    MBR partition, ext4).  Cached in lab_cache_dir()/images/ under a hash
 *    of its inputs (description text, debootstrap's, the payload's bytes);
 *    built under a temporary name and renamed, so a cached image is whole.
 *  - disk_inject(): a copy-on-write overlay of any qcow2 (the base is never
 *    written), the run's payload put under /lab of its root filesystem, and
 *    /lab/results emptied.
 *  - disk_readback(): /lab/results/tap out of the overlay after the guest
 *    stopped, crashed or timed out.
 *
 * The boot: a small initramfs (disk_boot_initrd()) holds the lab's /init and
 * the run kernel's modules for virtio-blk and the root's filesystem; /init
 * loads them, mounts numalab.root= and becomes /lab/init of the disk
 * (images/init/), which runs the plan with the disk's userland and writes
 * the TAP to the TAP channel and to /lab/results/tap.
 *
 * With tcg set, libguestfs's appliance runs under TCG (direct backend,
 * force_tcg): where the lab's accelerator probe found KVM unusable.
 */
#ifndef LAB_DISK_H
#define LAB_DISK_H

#include <stddef.h>

#include "model/diskdesc.h"
#include "boot/image.h"
#include "base/util.h"

#define DISK_RESULTS_TAP "/lab/results/tap"

/*
 * Ensure the image of d exists; guest_dir is build/guest/x86_64 (init,
 * tests/).  out receives its path; *cached says whether it was there already.
 * Progress lines go through progress().  0, or -1 with err.
 */
int disk_build(const struct disk_desc *d, const char *guest_dir, int tcg, char *out, size_t cap,
	       int *cached, struct error *err) LAB_MUST_CHECK;

/* Where a disk's root filesystem is, as libguestfs and the guest kernel see it. */
struct disk_root {
	char device[64];       /* libguestfs: /dev/sda1 */
	char guest_device[64]; /* the guest, virtio-blk: /dev/vda1 */
	char fstype[16];       /* ext4 */
};

/*
 * Create overlay (qcow2, backed by base read-only) and put the run's payload
 * into its root filesystem: /lab/init (guest_dir/init), /lab/tests/NAME,
 * /lab/topology, /lab/plan, kselftests and guest file as image.h's run part
 * says, an empty /lab/results.  root receives where the root is.
 * 0, or -1 with err (a base that is no qcow2, has no ext2/3/4 root, ...).
 */
int disk_inject(const char *base, const char *overlay, const char *guest_dir,
		const struct run_part *run, int tcg, struct disk_root *root, struct error *err) LAB_MUST_CHECK;

/* Whether path starts like a qcow2 image ("QFI\xfb"). */
int disk_is_qcow2(const char *path);

/* DISK_RESULTS_TAP of overlay's root into out ("" when the guest wrote none). */
int disk_readback(const char *overlay, const struct disk_root *root, int tcg, struct buf *out,
		  struct error *err) LAB_MUST_CHECK;

/*
 * The boot initramfs for a disk root: /init (guest_dir/init) and, from
 * modules_dir (kernel.h kernel_modules(); "" when the kernel has them built
 * in), the modules for virtio-blk and fstype with their dependencies,
 * decompressed, in load order (/lab/modules.order).  Cached by content;
 * out receives its path.
 */
int disk_boot_initrd(const char *guest_dir, const char *modules_dir, const char *fstype,
		     char *out, size_t cap, struct error *err) LAB_MUST_CHECK;

/*
 * A cpio of the modules called names (NULL-terminated, e.g. the 9p stack)
 * from modules_dir, with their dependencies, decompressed, in load order:
 * lab/modules/NAME.ko and lab/modules.order, which /init loads before it
 * mounts anything.  A name the tree lacks is taken as built in.  Cached by
 * content; out receives its path.
 */
int disk_modules_cpio(const char *modules_dir, const char *const *names, char *out, size_t cap,
		      struct error *err) LAB_MUST_CHECK;


/* The TAP a run keeps: the streamed copy or the one read back from the disk. */
enum disk_tap_pick { DISK_TAP_STREAM, DISK_TAP_DISK };

/*
 * The more complete of the two: a copy that reached "# numalab: done" beats
 * one that did not, else the longer one; ties go to the stream.  Pure.
 */
enum disk_tap_pick disk_pick_tap(const char *stream, size_t stream_len, const char *disk,
				 size_t disk_len);

/* Whether text holds the guest's "# numalab: done" line. */
int disk_tap_complete(const char *text, size_t len);

#endif
