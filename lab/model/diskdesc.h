/*
 * diskdesc: parse a guest disk description (images/NAME.image), the recipe
 * of a Debian root for `numalab image build` (disk.h, docs/images.md).
 *
 * Lines of `KEY VALUE...`, read by base/lines.h ('#' starts a comment):
 *
 *   suite SUITE           Debian suite for debootstrap (bookworm, trixie, ...)
 *   mirror URL            archive to bootstrap from (default: the host's, mirror.h)
 *   variant minbase|buildd|-   debootstrap --variant (default minbase; - is debootstrap's own)
 *   packages NAME...      extra packages (--include); repeatable
 *   size N[KMG]           the disk's virtual size (qcow2: only used blocks take space)
 *
 * suite and size are required.  Errors are "FILE:LINE: what is wrong; what
 * to do".  Pure: diskdesc_parse() does no I/O.
 */
#ifndef LAB_DISKDESC_H
#define LAB_DISKDESC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "base/util.h"

#define DISKDESC_DIR "images"
#define DISKDESC_MAX_PACKAGES 64

struct disk_desc {
	char name[64];              /* the file's base name without .image */
	char path[PATH_MAX];
	char suite[32];
	char mirror[256];                 /* "": the host's (mirror.h) */
	char variant[16];           /* "minbase", "buildd" or "-" */
	int nr_packages;
	char packages[DISKDESC_MAX_PACKAGES][64];
	uint64_t size_bytes;
};

/* Parse text (len bytes) read from path. 0, or -1 with err. */
int diskdesc_parse(const char *path, const char *text, size_t len, struct disk_desc *d,
		   struct error *err) LAB_MUST_CHECK;

/*
 * spec is a NAME (root/images/NAME.image) or a path to a .image file; load
 * and parse it.  0, or -1 with err.
 */
int diskdesc_load(const char *root, const char *spec, struct disk_desc *d, struct error *err) LAB_MUST_CHECK;

#endif
