/*
 * pin: Debian packages pinned in a lock file (kernels/prebuilt.lock,
 * images/packages.lock; docs/kernels.md), fetched once into the cache.
 * The bottom of kernel acquisition: kbuild.h gets its pinned sources here,
 * resolve.h its pinned kernels.
 *
 * A fetched kernel lives in lab_cache_dir()/kernels/NAME-ARCH-VERSION/ (the
 * image, a `source` file naming package, version and sha256, and an `origin`
 * file: PIN_ORIGIN_MIRROR or PIN_ORIGIN_SNAPSHOT and the URL).  The
 * directory is built under a temporary name and renamed into place, so a
 * directory with the final name is always complete.  Apt runs with a private
 * state in lab_cache_dir()/apt/SUITE-DEBARCH/ (apt.conf, sources.list, lists,
 * cache); the host's apt configuration is only read, never changed.
 *
 * Where the .deb comes from, in order, whatever the pin (kernels, sources,
 * companions, packages.lock's userland):
 *  1. the Debian mirror (mirror.h), through apt, while its suite has the
 *     pinned version;
 *  2. else the snapshot archive (host_snapshot_base(): snapshot.debian.org,
 *     which keeps every version Debian published): its machine-readable
 *     /mr/binary/PACKAGE/VERSION/binfiles lists the .deb's SHA1 per
 *     architecture, /file/SHA1 serves it (fetched with apt-helper, so apt's
 *     proxy settings apply).  The lock needs nothing more than it has:
 *     package, version and debarch find the file, the sha256 vouches for it.
 * Whichever serves it, the .deb's sha256 must be the pin's.  When neither
 * does, one error names the lock line, both reasons and the fixes (refresh
 * the line as docs/kernels.md says, or set NUMALAB_SNAPSHOT); its kind is
 * ERROR_INPUT when the mirror answered without the pinned .deb (the line is
 * stale: the user's to refresh), ERROR_HARNESS when the mirror could not be
 * asked (the network).
 */
#ifndef LAB_PIN_H
#define LAB_PIN_H

#include <limits.h>
#include <stddef.h>
#include "base/util.h"
#include "kernel/kernel.h"

#define KERNEL_LOCK_FILE "kernels/prebuilt.lock"   /* relative to the project root */
#define KERNEL_LOCK_MAX 32
#define KERNEL_SOURCE_ARCH "source"   /* lock lines that pin a source tarball */

/* One line of the lock file. */
struct kernel_pin {
	char name[64];        /* [a-z0-9._-]: part of a cache directory name */
	char arch[16];        /* x86_64 | loongarch64 */
	char suite[32];       /* Debian suite: sid, trixie, ... */
	char debarch[16];     /* Debian architecture: amd64, loong64 */
	char package[128];
	char version[64];
	char sha256[65];      /* of the .deb, lowercase hex */
	char image[256];      /* the image's path inside the package, relative */
	int line;             /* in the lock file, for error messages */
	char lock_file[64];   /* the lock file's name as given to kernel_lock_parse() */
};

struct kernel_lock {
	int nr;
	struct kernel_pin pins[KERNEL_LOCK_MAX];
};

/*
 * Parse lock text (len bytes, need not be NUL terminated; lines as
 * base/lines.h reads them).  path names the file in messages.  Pure: no I/O.  Returns 0, or -1 with err set to
 * "PATH:LINE: what is wrong; what to do" (ERROR_INPUT).  *lock is
 * unspecified on error.
 */
int kernel_lock_parse(const char *path, const char *buf, size_t len,
		      struct kernel_lock *lock, struct error *err) LAB_MUST_CHECK;

/* The pin called name for arch, or NULL. */
const struct kernel_pin *kernel_lock_find(const struct kernel_lock *lock,
					  const char *name, const char *arch);

/* 1 for the arches the lab boots: x86_64, loongarch64. */
int kernel_arch_known(const char *arch);

/*
 * root/file (a lock file, relative to the project root root), parsed.
 * file names it in messages.  Returns 0, or -1 with err of kind ERROR_INPUT
 * (a malformed line, or a lock file that cannot be read).
 */
int pin_load(const char *root, const char *file, struct kernel_lock *lock, struct error *err) LAB_MUST_CHECK;

/*
 * A lock line that comes with kernel NAME rather than being one: NAME-modules
 * (its module tree, kernel_modules()), NAME-config (its .config) and
 * NAME-builtin (its modules.builtin).
 */
int pin_is_companion(const struct kernel_pin *pin);

/*
 * The kernel pin, fetched into lab_cache_dir()/kernels/ unless it is there
 * already (network; waits for another fetch sharing its apt state), checked
 * to be a kernel image for its arch.  Fills *out.  Returns 0, -1 with err
 * (after SIGINT, interrupt.h: "interrupted", no further download tried).
 */
int pin_fetch_kernel(const struct kernel_pin *pin, struct kernel *out, struct error *err) LAB_MUST_CHECK;

/*
 * 0 if path is a kernel image (bzImage, ELF, PE/EFI) for arch, or a PE
 * image too broken to tell (the firmware says why); else -1 with err
 * naming what it is and what to give instead (ERROR_HARNESS: a pinned
 * package's image is the lab's to fix; resolve.h makes a user's file's
 * ERROR_INPUT).
 */
int kernel_check_image(const char *path, const char *arch, struct error *err) LAB_MUST_CHECK;

/*
 * The private apt.conf of the apt state in dir for Debian arch debarch:
 * dir's sources.list, lists and cache, no host sources or dpkg status,
 * only the host's defaults (proxies) inherited.  Pure.
 */
void pin_apt_conf(const char *dir, const char *debarch, struct buf *conf);

/*
 * The commands a fetch runs (no shell; apt reads all else from conf, the
 * private apt.conf), pure so tests pin them:
 *   PIN_CMD_VERSIONS  apt-cache -c CONF madison PACKAGE
 *   PIN_CMD_UPDATE    apt-get -c CONF update -q
 *   PIN_CMD_DOWNLOAD  apt-get -c CONF download -q PACKAGE=VERSION   (run in the download dir)
 *   PIN_CMD_UNPACK    dpkg-deb -x DEB TREE
 * deb and tree are PIN_CMD_UNPACK's only (NULL otherwise).
 */
enum pin_cmd { PIN_CMD_VERSIONS, PIN_CMD_UPDATE, PIN_CMD_DOWNLOAD, PIN_CMD_UNPACK };
void pin_cmd_argv(enum pin_cmd cmd, const struct kernel_pin *pin, const char *conf,
		  const char *deb, const char *tree, struct strvec *argv);

/*
 * The snapshot archive's side, pure so tests pin it:
 *  - pin_snapshot_url(): base/mr/binary/PACKAGE/VERSION/binfiles (sha1 NULL),
 *    the list of the pinned version's files, or base/file/SHA1, one file;
 *  - pin_snapshot_argv(): /usr/lib/apt/apt-helper -c CONF download-file URL TARGET;
 *  - pin_snapshot_hashes(): the SHA1s a binfiles answer (JSON:
 *    {"result": [{"architecture": "amd64", "hash": "SHA1"}, ...], ...})
 *    lists for debarch or "all" (or without an architecture), in its order,
 *    at most max; -1 when the text is no such answer.
 */
#define PIN_ORIGIN_MIRROR "mirror"
#define PIN_ORIGIN_SNAPSHOT "snapshot"
#define PIN_APT_HELPER "/usr/lib/apt/apt-helper"
void pin_snapshot_url(const char *base, const struct kernel_pin *pin, const char *sha1,
		      struct buf *url);
void pin_snapshot_argv(const char *conf, const char *url, const char *target, struct strvec *argv);
int pin_snapshot_hashes(const char *json, const char *debarch, char (*sha1)[41], int max);

/*
 * The source tarball pinned as name (arch "source") in root's lock file,
 * fetched into the cache if needed: its path, and its identity for build
 * keys and meta ("debian:PKG=VERSION sha256:HEX").  path NULL: only the
 * identity, nothing fetched.  Returns 0, or -1 with err: ERROR_INPUT when
 * the lock file is wrong or pins no such source, ERROR_HARNESS when
 * fetching failed.
 */
int kernel_fetch_source(const char *root, const char *name, char *path, size_t cap,
			char *source_id, size_t id_cap, struct error *err) LAB_MUST_CHECK;

/*
 * The module tree (the kernel's lib/modules/RELEASE directory) of a pinned
 * kernel k, from the lock line named "NAME-modules" for its arch, fetched
 * into the cache like a kernel.  dir is "" when the lock pins none (kernels
 * from files and recipes: their drivers must be built in).  Returns as
 * kernel_fetch_source().
 */
int kernel_modules(const struct kernel *k, char *dir, size_t cap, struct error *err) LAB_MUST_CHECK;

/*
 * The .config of a pinned kernel k, from the lock line named "NAME-config"
 * (e.g. Debian's linux-base package), fetched into the cache like a kernel;
 * path is "" when the lock pins none.  Returns as kernel_fetch_source().
 */
int kernel_config(const struct kernel *k, char *path, size_t cap, struct error *err) LAB_MUST_CHECK;

/*
 * The modules.builtin of a pinned kernel k (the drivers built in, which
 * Debian ships beside its .config, not in the module tree), from the lock
 * line named "NAME-builtin", fetched like kernel_config().
 */
int kernel_builtin(const struct kernel *k, char *path, size_t cap, struct error *err) LAB_MUST_CHECK;

/*
 * Guest userland from Debian (numactl and the libraries it needs): lines of
 * root/images/packages.lock, in the columns of the kernel lock, whose image
 * is one file of the package.  The file pinned as name for arch, fetched
 * into lab_cache_dir()/packages/NAME-ARCH-VERSION/ like a kernel: its path.
 * Returns as kernel_fetch_source().
 */
#define PACKAGE_LOCK_FILE "images/packages.lock"
int kernel_fetch_package_file(const char *root, const char *name, const char *arch,
			      char *path, size_t cap, struct error *err) LAB_MUST_CHECK;

#endif
