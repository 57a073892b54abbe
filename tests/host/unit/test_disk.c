/*
 * test_disk: the guest disk description parser (images/NAME.image) and the
 * choice between the streamed TAP and the one read back from a disk.
 */
#include <stdio.h>
#include <string.h>

#include "boot/disk.h"
#include "model/diskdesc.h"
#include "unit.h"

static int parse(const char *text, struct disk_desc *d, struct error *err)
{
	return diskdesc_parse("images/t.image", text, strlen(text), d, err);
}

/* text must fail with a message containing want. */
static void check_error(const char *text, const char *want)
{
	struct disk_desc d;
	struct error err = { 0 };

	CHECK_INT(parse(text, &d, &err), -1);
	if (!strstr(err.msg, want))
		printf("#   got \"%s\"\n#   want it to contain \"%s\"\n", err.msg, want);
	CHECK(strstr(err.msg, want) != NULL);
}

UNIT_TEST(shipped_debian_image)
{
	struct disk_desc d;
	struct error err;

	CHECK_INT(diskdesc_load(".", "debian", &d, &err), 0);
	CHECK_STR(d.name, "debian");
	CHECK_STR(d.suite, "bookworm");
	CHECK_STR(d.variant, "minbase");
	CHECK(d.nr_packages >= 1);
	CHECK_STR(d.packages[0], "numactl");
	CHECK_INT(d.size_bytes, 2ull << 30);
}

UNIT_TEST(defaults_and_repeats)
{
	struct disk_desc d;
	struct error err;

	CHECK_INT(parse("# c\nsuite trixie  # comment\npackages a b\npackages c+x\nsize 512M\n", &d, &err), 0);
	CHECK_STR(d.name, "t");
	CHECK_STR(d.mirror, "");   /* the host's, resolved when the image is built */
	CHECK_STR(d.variant, "minbase");
	CHECK_INT(d.nr_packages, 3);
	CHECK_STR(d.packages[2], "c+x");
	CHECK_INT(d.size_bytes, 512ull << 20);
	CHECK_INT(parse("suite sid\nsize 1073741824\nvariant -\nmirror file:///srv/m", &d, &err), 0);
	CHECK_INT(d.size_bytes, 1ull << 30);
	CHECK_STR(d.variant, "-");
	CHECK_STR(d.mirror, "file:///srv/m");
}

UNIT_TEST(errors_name_file_and_line)
{
	check_error("size 1G\n", "images/t.image: no suite line");
	check_error("suite bookworm\n", "images/t.image: no size line");
	check_error("suite bookworm\nsize 1G\ncolour blue\n", "images/t.image:3: unknown key 'colour'");
	check_error("suite bookworm\nsize 2X\n", "images/t.image:2: size '2X'");
	check_error("suite bookworm\nsize 1M\n", "at least 64M");
	check_error("suite bookworm\nsize\n", "images/t.image:2: size takes one value");
	check_error("suite Bookworm\nsize 1G\n", "images/t.image:1: suite 'Bookworm'");
	check_error("suite bookworm\nsize 1G\npackages numactl Foo\n", "images/t.image:3: 'Foo' is not");
	check_error("suite bookworm\nsize 1G\npackages\n", "images/t.image:3: packages takes");
	check_error("suite bookworm\nsize 1G\nvariant fat\n", "images/t.image:3: variant is");
	check_error("suite bookworm\nsize 1G\nmirror ftp://x\n", "images/t.image:3: mirror must be");
	check_error("suite bookworm\nsize 99999999999G\n", "images/t.image:2: size");
	/* More packages on one line than base/lines.h splits: refused, not cut. */
	check_error("suite bookworm\nsize 1G\npackages a b c d e f g h i j k l m n o p q r s t u v w x y z "
		    "a0 b0 c0 d0 e0 f0 g0 h0 i0 j0 k0 l0 m0 n0 o0 p0 q0 r0 s0 t0 u0 v0 w0 x0 y0 z0 "
		    "a1 b1 c1 d1 e1 f1 g1 h1 i1 j1 k1 l1\n", "images/t.image:3: more than 64 words on one line");
}

UNIT_TEST(unknown_image_name)
{
	struct disk_desc d;
	struct error err;

	CHECK_INT(diskdesc_load(".", "no-such-image", &d, &err), -1);
	CHECK(strstr(err.msg, "unknown image 'no-such-image'") != NULL);
}

#define DONE "# numalab: done\n"

UNIT_TEST(tap_completeness)
{
	const char *done = "KTAP version 1\n1..1\nok 1 a\n" DONE;

	CHECK(disk_tap_complete(done, strlen(done)));
	CHECK(disk_tap_complete(DONE, strlen(DONE) - 1));
	CHECK(!disk_tap_complete("ok 1 a\n", 7));
	CHECK(!disk_tap_complete("# numalab: done later\n", 22));
	CHECK(!disk_tap_complete("", 0));
}

UNIT_TEST(pick_tap)
{
	const char *part = "KTAP version 1\n1..2\nok 1 a\n";
	const char *full = "KTAP version 1\n1..2\nok 1 a\nok 2 b\n" DONE;

	/* A channel lost or cut short: the disk's complete copy wins. */
	CHECK_INT(disk_pick_tap("", 0, full, strlen(full)), DISK_TAP_DISK);
	CHECK_INT(disk_pick_tap(part, strlen(part), full, strlen(full)), DISK_TAP_DISK);
	/* The guest crashed before writing the disk: the stream wins. */
	CHECK_INT(disk_pick_tap(full, strlen(full), "", 0), DISK_TAP_STREAM);
	CHECK_INT(disk_pick_tap(full, strlen(full), part, strlen(part)), DISK_TAP_STREAM);
	/* Both cut by a crash: the longer; equal: the stream. */
	CHECK_INT(disk_pick_tap("KTAP version 1\n", 15, part, strlen(part)), DISK_TAP_DISK);
	CHECK_INT(disk_pick_tap(part, strlen(part), part, strlen(part)), DISK_TAP_STREAM);
	CHECK_INT(disk_pick_tap(full, strlen(full), full, strlen(full)), DISK_TAP_STREAM);
}

UNIT_MAIN(UNIT_CASE(shipped_debian_image), UNIT_CASE(defaults_and_repeats),
	  UNIT_CASE(errors_name_file_and_line), UNIT_CASE(unknown_image_name),
	  UNIT_CASE(tap_completeness), UNIT_CASE(pick_tap))
