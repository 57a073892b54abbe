/*
 * toolroot: the LoongArch toolchain -- QEMU >= 9, the edk2 LoongArch
 * firmware and the loongarch64 cross gcc -- either the user's own (found on
 * PATH) or the lab's Debian trixie root (docs/toolroot.md).
 *
 * The root lives in lab_cache_dir()/toolroot/trixie-HASH/, HASH being over
 * the package table below, so a changed table builds a new root and an
 * unchanged one is never rebuilt.  It is built by debootstrap + apt-get in
 * a temporary directory and renamed into place: a directory with the final
 * name is always complete (it holds `versions`, written last).  Building
 * needs root; using it does not (a user + mount namespace).
 *
 * Commands run inside the root through numalab itself:
 *     numalab toolroot-exec [--bind DIR]... ROOT -- CMD [ARG]...
 * or, with --auto instead of ROOT, the user's own tools when they are
 * complete (then CMD just runs) and else the lab's root for the current
 * table (the Makefile's cross gcc goes this way)
 * (lab/cli/cmd_toolroot_exec.c, toolroot_enter()): a private mount namespace (plus a user namespace
 * when not root), /dev /proc /sys and the project, cache and current
 * directories bind-mounted at the same paths inside, chroot, the same cwd,
 * execvp.  Mounts die with the command; nothing leaks to the host.
 */
#ifndef LAB_TOOLROOT_H
#define LAB_TOOLROOT_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include "base/util.h"

#define TOOLROOT_SUITE "trixie"
#define TOOLROOT_QEMU "qemu-system-loongarch64"
#define TOOLROOT_CC "loongarch64-linux-gnu-gcc"
#define TOOLROOT_FIRMWARE "/usr/share/qemu-efi-loongarch64/QEMU_EFI.fd"
#define TOOLROOT_QEMU_MIN_MAJOR 9
/* Overrides the firmware: a host file, used with the user's QEMU or the root's. */
#define TOOLROOT_FIRMWARE_ENV "NUMALAB_LOONGARCH_FIRMWARE"

/* What apt installs into the root (NULL-terminated).  The root's name hashes it. */
extern const char *const toolroot_packages[];

/* The tools a LoongArch run uses, as the command will see them. */
struct toolroot_tools {
	char root[PATH_MAX];       /* the toolchain root; "": the user's own tools */
	char qemu[PATH_MAX];       /* emulator (inside the root when root[0]) */
	char firmware[PATH_MAX];   /* -bios image (same, unless firmware_on_host) */
	int firmware_on_host;      /* $NUMALAB_LOONGARCH_FIRMWARE: a host file, mounted in the root */
	char cc[PATH_MAX];         /* cross gcc (same) */
	char qemu_version[64];     /* "10.0.2", when it was asked */
};

/* ---- pure ---- */

/* First 16 hex digits of sha256 over suite, variant and packages (any mirror serves the same). */
void toolroot_hash(const char *const *packages, char hex[17]);

/* cache/toolroot/trixie-HASH for packages. */
void toolroot_path(const char *cache, const char *const *packages, char *out, size_t cap);

/* "QEMU emulator version 10.0.2 (Debian ...)" -> 10, 0.  0, or -1 if no version. */
int toolroot_parse_qemu_version(const char *text, int *major, int *minor);

/*
 * Wrap argv_in so it runs inside root: appends
 * SELF toolroot-exec [--bind B]... ROOT -- argv_in... to out, SELF being this
 * numalab binary.  root NULL or "": argv_in unchanged (the user's own tools).
 * binds: extra directories to mount at the same path (NULL-terminated; may
 * be NULL).  0, or -1 if argv_in is empty.
 */
int toolroot_argv_binds(const char *root, const char *const *binds, const char **argv_in,
			struct strvec *out);
int toolroot_argv(const char *root, const char **argv_in, struct strvec *out);

/* The parsed command line of `toolroot-exec` (lab/cli/cmd_toolroot_exec.c parses it). */
struct toolroot_exec_opts {
	const char *root;          /* NULL with --host: namespace only, no chroot */
	int bare;                  /* --bare (building a root): only /dev /proc /sys, cwd / */
	int automatic;             /* --auto: the user's own tools if complete, else the lab's root */
	const char *binds[16];
	int nr_binds;
	char **cmd;                /* NULL-terminated, points into argv */
};

/*
 * Reduce dirs (absolute, normalised) to the ones to bind: drop "/", the
 * root itself and anything inside it, duplicates, and dirs inside another
 * kept dir.  Keeps order otherwise.  Returns the new count (in place).
 */
int toolroot_bind_reduce(const char *root, const char **dirs, int nr);

/* ---- doing things ---- */

/*
 * The tools to use: the user's own if complete, else the lab's root
 * (created when create is set: network, ~2 minutes, uid 0 and debootstrap,
 * output to CACHE/toolroot/NAME.log).  $NUMALAB_LOONGARCH_FIRMWARE
 * replaces the firmware either way; naming a missing file is an error.
 * 0, or -1 with err.
 */
int toolroot_tools(struct toolroot_tools *out, int create, struct error *err) LAB_MUST_CHECK;

/* $NUMALAB_LOONGARCH_FIRMWARE, when set, names an existing file.  0, or -1 with err. */
int toolroot_check_env(struct error *err) LAB_MUST_CHECK;

/*
 * The way into o's root for the command o->cmd, which the caller then
 * execs: a private mount namespace (and user namespace when not root), the
 * binds and the chroot when o->root is set, and the parent-death signal the
 * runner gave this process armed again (parent: getppid() when it started;
 * if that parent is gone, -1).  0, or -1 with err (ERROR_HARNESS).
 */
int toolroot_enter(const struct toolroot_exec_opts *o, pid_t parent, struct error *err) LAB_MUST_CHECK;

#endif
