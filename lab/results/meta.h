/*
 * meta: a result cell's `meta` file (docs/results.md), both directions.
 *
 * The file is `key: value` lines, one fact per line, in the order written;
 * a key may repeat (kernel.patch.subject, guest), and a reader takes the
 * first line of a key unless it walks them with meta_next().  The key
 * names are the constants below: every writer (drive/run.c, the libvirt
 * backend's vm_libvirt_meta()) and every reader (compare, celldir) spells
 * them through these, so a renamed key is renamed everywhere.  Old result
 * directories keep being read: keys are only ever added, and a reader
 * treats a missing key as unknown.
 *
 * A matrix cell's `exit` file (celldir.h) is the same `key: value` lines and
 * is read with the same functions.
 */
#ifndef LAB_META_H
#define LAB_META_H

#include <stddef.h>
#include "base/util.h"

#define META_FILE "meta"

#define META_TOPOLOGY                "topology"       /* NAME (PATH) */
#define META_ARCH                    "arch"
#define META_KERNEL                  "kernel"         /* NAME VERSION */
#define META_KERNEL_SOURCE           "kernel.source"
#define META_KERNEL_ORIGIN           "kernel.origin"  /* a pinned kernel's: mirror URL SUITE | snapshot URL */
#define META_KERNEL_RECIPE           "kernel.recipe"
#define META_KERNEL_PATCHES          "kernel.patches"
#define META_KERNEL_PATCH_SUBJECT    "kernel.patch.subject"   /* one line per patch */
#define META_KERNEL_CONFIG_SHA256    "kernel.config_sha256"
#define META_KERNEL_SELFTESTS        "kernel.selftests"
#define META_KERNEL_TREE             "kernel.tree"
#define META_KERNEL_TREE_DESCRIBE    "kernel.tree.describe"
#define META_KERNEL_TREE_DIFF_SHA256 "kernel.tree.diff_sha256"
#define META_KERNEL_RELEASE          "kernel.release"
#define META_QEMU                    "qemu"
#define META_BACKEND                 "backend"        /* qemu | libvirt; absent: qemu */
#define META_LIBVIRT                 "libvirt"
#define META_LIBVIRT_URI             "libvirt.uri"
#define META_HOST_NUMA               "host_numa"      /* the map, or "none" */
#define META_HOST_NUMA_VCPUS         "host_numa.vcpus"
#define META_HOST_NUMA_PREALLOC      "host_numa.prealloc"
#define META_ACCEL                   "accel"          /* tcg|kvm: why */
#define META_TOOLROOT                "toolroot"
#define META_FIRMWARE                "firmware"
#define META_DISK                    "disk"
#define META_TAP_SOURCE              "tap.source"
/* virtio | serial: frames F, mended M, broken B[, gap at SEQ] (serialtap.h) */
#define META_TAP_CHANNEL             "tap.channel"
/* A cell run as a LAVA job (drive/lava_run.h): its id, page, where it ran and how it ended. */
#define META_LAVA_JOB                "lava.job"
#define META_LAVA_URL                "lava.url"
#define META_LAVA_WORKER             "lava.worker"
#define META_LAVA_DEVICE             "lava.device"
#define META_LAVA_DEVICE_TYPE        "lava.device_type"
#define META_LAVA_HEALTH             "lava.health"    /* Complete | Incomplete | Canceled: reason */
#define META_LAVA_TIME_QUEUED        "lava.time.queued_s"
#define META_LAVA_TIME_RUNNING       "lava.time.running_s"
#define META_COMMAND                 "command"
#define META_TESTS                   "tests"
#define META_TIMEOUT                 "timeout"
#define META_END                     "end"            /* vm_end_name() */
#define META_RETRIED                 "retried"
#define META_QEMU_STATUS             "qemu.status"
#define META_CONSOLE_FINDING         "console.finding"
#define META_TIME_FIRST_TAP          "time.first_tap_s"
#define META_TIME_BEFORE_KERNEL      "time.before_kernel_s"
#define META_TIME_TOTAL              "time.total_s"
#define META_RESULT                  "result"
#define META_RESULT_NESTED           "result.nested"
#define META_GUEST                   "guest"          /* "guest: ITEM: VALUE", one per item */

/* Append "key: value" to a meta buffer, value made one printable line. */
void meta_add(struct buf *meta, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write meta as dir/meta, atomically (temporary file + rename). */
int meta_write(const char *dir, const struct buf *meta, struct error *err) LAB_MUST_CHECK;

/* Read dir/meta into meta (appended); -1 with err when it cannot be read. */
int meta_read(const char *dir, struct buf *meta, struct error *err) LAB_MUST_CHECK;

/*
 * The value of the next "key: value" line at or after *pos, which moves past
 * that line: the value starts at the returned pointer and is *len bytes (no
 * newline).  NULL, *pos at the end, when there is none.
 */
const char *meta_next(const char **pos, const char *key, size_t *len);

/* The first value of key in text, allocated; NULL when absent. */
char *meta_get(const char *text, const char *key);

/* The first value of key into out (cut to cap), "" when absent; 1 if found. */
int meta_copy(const char *text, const char *key, char *out, size_t cap);

/* The value of the guest-view item ("guest: ITEM: VALUE"), allocated; NULL when absent. */
char *meta_guest(const char *text, const char *item);

#endif
