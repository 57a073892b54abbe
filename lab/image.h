/*
 * image: the guest initramfs, written as a newc cpio by the lab itself (no
 * root, no external cpio).
 *
 * A run's initrd is two archives back to back (the kernel unpacks both):
 *  - the base image: /init, busybox, numactl, the test binaries, listed by
 *    images/ARCH.manifest; cached in the lab cache under a hash of every
 *    input (manifest text, each file's destination, mode and content), so it
 *    is rebuilt only when an input changes;
 *  - the run part: /lab/topology (the validated topology file, verbatim),
 *    /lab/plan ("NAME TIMEOUT" lines), for a kernel built from source
 *    /lab/kselftest/mm/BIN (the kernel's own selftests from that source), and
 *    the user's --guest-file as /lab/BASENAME (e.g. workloads.conf).
 */
#ifndef LAB_IMAGE_H
#define LAB_IMAGE_H

#include "topology.h"
#include "util.h"

/*
 * Ensure the base image for arch exists; guest_dir is where `make guest`
 * put init and tests/ for that arch.  out receives its path.
 */
int image_base(enum topo_arch arch, const char *guest_dir, char *out, size_t cap,
	       struct error *err);

/* What a run adds to the base image. */
struct run_part {
	const struct topology *topo;
	const char *const *tests;  /* NULL-terminated test names */
	int test_timeout_s;        /* each test's timeout inside the guest */
	const char *kselftest;     /* the kernel's kselftest/ directory (kbuild.h); NULL: none */
	const char *guest_file;    /* a file for the tests, as /lab/BASENAME; NULL: none */
};

/* /lab/plan's text: "NAME TIMEOUT_SECONDS" per test. */
void image_plan(const struct run_part *run, struct buf *out);

/* Write base + the run part to out_path (atomically), streaming: the caller holds
 * one entry at a time in memory, not the image. */
int image_run_initrd(const char *base, const struct run_part *run, const char *out_path,
		     struct error *err);

/* Append one newc entry (file, directory or trailer when name is NULL). */
void cpio_add(struct buf *out, const char *name, unsigned mode,
	      const void *data, size_t len);

#endif
