/*
 * image: the guest initramfs, written as a newc cpio by the lab itself (no
 * root, no external cpio).
 *
 * A run's initrd is two archives back to back (the kernel unpacks both):
 *  - the base image: /init, busybox, numactl, listed by
 *    images/ARCH.manifest; cached in the lab cache under a hash of every
 *    input (manifest text, each file's destination, mode and content), so it
 *    is rebuilt only when an input changes;
 *  - the run part: /lab/topology (the validated topology file, verbatim),
 *    /lab/plan ("NAME TIMEOUT" lines), the binaries of the tests the run
 *    names as /lab/tests/NAME (all of them for a shell), for a kernel built from source
 *    /lab/kselftest/mm/BIN (the kernel's own selftests from that source), and
 *    the user's --guest-file as /lab/BASENAME (e.g. workloads.conf);
 *    --tests-dir suites as /lab/suites/NAME/ (the executable, its declared
 *    files) with /lab/suites/NAME.conf (suite.h); the host shares to mount
 *    as /lab/shares; the command to run as /lab/exec, and /lab/shell for an
 *    interactive shell (docs/guest.md, images/init/); a pinned kernel's
 *    .config as /lab/kernel.config;
 *  - for a kernel whose 9p is modular (Debian's), a third archive with those
 *    modules in load order (lab/modules/, lab/modules.order; disk.h).
 */
#ifndef LAB_IMAGE_H
#define LAB_IMAGE_H

#include <stddef.h>

#include "boot/qemu.h"
#include "model/suite.h"
#include "model/topology.h"
#include "base/util.h"

/* Where a share goes in the guest (the WHERE field of /lab/shares). */
enum share_view {
	SHARE_IN_HOST_VIEW,   /* under the host-root view the command and shell run in */
	SHARE_IN_LAB,         /* in the lab's own root (the initramfs), e.g. the kernel's modules */
};

/* A share as the guest mounts it: tag, where, and the path there. */
struct guest_share {
	struct vm_share vm;
	enum share_view view;
	const char *guest_path;   /* absolute; "/" for the host root */
};

/*
 * Ensure the base image for arch exists; guest_dir is where `make guest`
 * put init and tests/ for that arch.  out receives its path.
 */
int image_base(enum topo_arch arch, const char *guest_dir, char *out, size_t cap,
	       struct error *err) LAB_MUST_CHECK;

/*
 * 1 if the lab's own image for arch (ROOT/images/ARCH.manifest, root:
 * lab_root()) gives the guest a program called name: a file it puts in a
 * bin/ or sbin/ directory (numactl, busybox), so that -- CMD can be
 * checked before a boot (the guest looks there first).  Busybox's applets
 * are not: the host view has them only as `busybox NAME`.  0 if not; -1
 * with err when the manifest cannot be read.
 */
int image_guest_program(const char *root, enum topo_arch arch, const char *name,
			struct error *err) LAB_MUST_CHECK;

/* What a run adds to the base image. */
struct run_part {
	const struct topology *topo;
	const char *const *tests;  /* NULL-terminated test names */
	const char *guest_dir;     /* where `make guest` put init and tests/ for the arch */
	int test_timeout_s;        /* each test's timeout inside the guest */
	const char *kselftest;     /* the kernel's kselftest/ directory (kbuild.h); NULL: none */
	const char *guest_file;    /* a file for the tests, as /lab/BASENAME; NULL: none */
	const struct suite *suites; /* --tests-dir suites, run after the tests */
	size_t nr_suites;
	const struct guest_share *shares;
	int nr_shares;
	/* The user's command (run last, in the host-root view); NULL: none. */
	const char *const *exec_argv;
	const char *exec_cwd;       /* its working directory (the host's cwd) */
	const char *exec_name;      /* its TAP name: "exec: CMD" */
	int shell;                  /* an interactive shell on the console after the plan */
	const char *shell_term;     /* its TERM; NULL: "linux" */
	int shell_rows, shell_cols; /* the terminal's size; 0: unknown */
	const char *modules_cpio;   /* appended as is (disk.h); NULL: none */
	const char *kernel_config;  /* the kernel's .config as /lab/kernel.config; NULL: none */
};

/*
 * /lab/plan's text: "NAME TIMEOUT_SECONDS" per test, then per suite, then
 * "@exec TIMEOUT_SECONDS" for the command.
 */
void image_plan(const struct run_part *run, struct buf *out);

/* Write base + the run part to out_path (atomically), streaming: the caller holds
 * one entry at a time in memory, not the image. */
int image_run_initrd(const char *base, const struct run_part *run, const char *out_path,
		     struct error *err) LAB_MUST_CHECK;

/* Append one newc entry (file, directory or trailer when name is NULL). */
void cpio_add(struct buf *out, const char *name, unsigned mode,
	      const void *data, size_t len);

#endif
