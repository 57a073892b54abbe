/*
 * dynlib: an optional shared library loaded when a feature first needs it
 * (libvirt for the libvirt backend, libguestfs for guest disks), not when
 * numalab starts.  A direct-QEMU run then maps neither: their dependencies
 * (glib, gnutls, libxml2, OpenSSL, ...) were most of the runner's memory.
 * The headers are still needed at build time (config.h says which are).
 *
 * Use, per library, with the functions it calls listed once:
 *
 *	#define GUESTFS_API(X) X(guestfs_create) X(guestfs_close) ...
 *	static struct { GUESTFS_API(DYNLIB_SLOT) } gfs;
 *	#define GFS_RESOLVE(f) || dynlib_symbol(h, #f, (void **)&gfs.f, err)
 *	static int gfs_load(struct error *err)
 *	{
 *		static void *h;
 *		return dynlib_open(&h, "libguestfs.so.0", "libguestfs0", err)
 *		       GUESTFS_API(GFS_RESOLVE) ? -1 : 0;
 *	}
 *
 * and call gfs.guestfs_create().  Each slot has the type of the function's
 * declaration in the library's header, so calls are type-checked as before.
 */
#ifndef LAB_DYNLIB_H
#define LAB_DYNLIB_H

#include "base/util.h"

/* A struct member: a pointer to function f, typed as f is declared. */
#define DYNLIB_SLOT(f) __typeof__(f) *f;

/*
 * Open soname once (*handle keeps it; later calls return 0 at once): 0, or
 * -1 with err naming the library, dlopen's reason and the Debian package.
 */
int dynlib_open(void **handle, const char *soname, const char *package, struct error *err) LAB_MUST_CHECK;

/* *slot = the address of name in handle: 0, or -1 with err. */
int dynlib_symbol(void *handle, const char *name, void **slot, struct error *err) LAB_MUST_CHECK;

#endif
