/* The run part of the initramfs: which guest test binaries a run carries. */
#include "unit.h"
#include "boot/image.h"

#include <stdlib.h>
#include <string.h>

/* Does the cpio text hold an entry named name with data? */
static int has(const char *cpio, size_t len, const char *what)
{
	return memmem(cpio, len, what, strlen(what)) != NULL;
}

UNIT_TEST(only_the_runs_tests)
{
	char *dir = unit_scratch("image");
	const char *tests[] = { "alpha", NULL };
	struct topology t;
	struct topo_error terr;
	struct error err;
	struct run_part part = { .topo = &t, .tests = tests, .test_timeout_s = 60 };
	char *tdir, *base, *out, *text;
	size_t len = 0;

	tdir = xprintf("%s/tests", dir);
	base = xprintf("%s/base.cpio", dir);
	out = xprintf("%s/initrd.cpio", dir);
	unit_put(tdir, "alpha", "alpha-binary");
	unit_put(tdir, "beta", "beta-binary");
	unit_put(dir, "base.cpio", "");
	part.guest_dir = dir;
	CHECK_INT(topo_load("topologies/2node.topo", &t, &terr), 0);

	CHECK_INT(image_run_initrd(base, &part, out, &err), 0);
	CHECK((text = unit_slurp(out, &len)) != NULL);
	CHECK(text && has(text, len, "lab/tests/alpha") && has(text, len, "alpha-binary"));
	CHECK(text && !has(text, len, "lab/tests/beta") && !has(text, len, "beta-binary"));
	free(text);

	/* A shell's user may start any test by hand: all of them. */
	part.shell = 1;
	CHECK_INT(image_run_initrd(base, &part, out, &err), 0);
	CHECK((text = unit_slurp(out, &len)) != NULL);
	CHECK(text && has(text, len, "alpha-binary") && has(text, len, "beta-binary"));
	free(text);

	remove_tree(dir);
	free(dir);
	free(tdir);
	free(base);
	free(out);
}

/*
 * The programs the lab's x86_64 image gives the guest by name, from its
 * manifest: a file in a bin/ directory (numactl, busybox); not busybox's
 * applets (crc32: `busybox crc32` in the host view), not the manifest's
 * other files (a library, the loader), not a name nothing gives.
 */
UNIT_TEST(guest_programs_from_the_manifest)
{
	struct error err;

	CHECK_INT(image_guest_program(".", TOPO_ARCH_X86_64, "numactl", &err), 1);
	CHECK_INT(image_guest_program(".", TOPO_ARCH_X86_64, "busybox", &err), 1);
	CHECK_INT(image_guest_program(".", TOPO_ARCH_X86_64, "crc32", &err), 0);
	CHECK_INT(image_guest_program(".", TOPO_ARCH_X86_64, "libnuma.so.1", &err), 0);
	CHECK_INT(image_guest_program(".", TOPO_ARCH_X86_64, "ld-linux-x86-64.so.2", &err), 0);
	CHECK_INT(image_guest_program(".", TOPO_ARCH_X86_64, "nosuchprogram", &err), 0);
}

UNIT_MAIN(UNIT_CASE(only_the_runs_tests), UNIT_CASE(guest_programs_from_the_manifest))
