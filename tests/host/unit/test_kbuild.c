/*
 * test_kbuild: the make command lines of a kernel build and its selftests,
 * per arch, as they run (kbuild.h).
 */
#include "kernel/kbuild.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

/* argv, one argument a line (arguments here have spaces: CC=ccache gcc). */
static char *lines(struct strvec *argv)
{
	struct buf b = BUF_INIT;
	char *s;

	for (size_t i = 0; i < argv->nr; i++)
		buf_addf(&b, "%s\n", argv->items[i]);
	s = xstrdup(buf_str(&b));
	buf_free(&b);
	strvec_clear(argv);
	return s;
}

UNIT_TEST(make_argv_per_arch)
{
	const char *extra[] = { "-j2", "vmlinux", NULL }, *la[] = { "-j2", "vmlinux.efi", NULL };
	struct strvec argv = STRVEC_INIT;
	char *s;

	CHECK_INT(kbuild_make_argv("x86_64", "/w/src", "/w/obj", extra, &argv), 0);
	CHECK_STR(s = lines(&argv), "make\n-C/w/src\nO=/w/obj\nARCH=x86_64\nCC=ccache gcc\n-j2\nvmlinux\n");
	free(s);
	CHECK_INT(kbuild_make_argv("loongarch64", "/w/src", "/w/obj", la, &argv), 0);
	CHECK_STR(s = lines(&argv), "make\n-C/w/src\nO=/w/obj\nARCH=loongarch\n"
		  "CROSS_COMPILE=loongarch64-linux-gnu-\nCC=ccache loongarch64-linux-gnu-gcc\n-j2\n"
		  "vmlinux.efi\n");
	free(s);
	CHECK_INT(kbuild_make_argv("sparc", "/w/src", "/w/obj", extra, &argv), -1);
	CHECK_INT(argv.nr, 0);
}

UNIT_TEST(selftests_argv_per_arch)
{
	struct strvec argv = STRVEC_INIT;
	char *s;

	CHECK_INT(kbuild_selftests_argv("x86_64", "/w/src", "/w/obj", &argv), 0);
	CHECK_STR(s = lines(&argv), "make\n-k\n-C/w/src/tools/testing/selftests/mm\n-I/w/obj/kselftest/cfg\n"
		  "LOCAL_HDRS=\nOUTPUT=/w/obj/kselftest/mm\nARCH=x86_64\nCC=gcc\n"
		  "KHDR_INCLUDES=-isystem /w/obj/usr/include\nEXTRA_CFLAGS=-static -I/w/obj/kselftest/cfg\n"
		  "LDFLAGS=-static -s\nall\n");
	free(s);
	CHECK_INT(kbuild_selftests_argv("loongarch64", "/w/src", "/w/obj", &argv), 0);
	CHECK_STR(s = lines(&argv), "make\n-k\n-C/w/src/tools/testing/selftests/mm\n-I/w/obj/kselftest/cfg\n"
		  "LOCAL_HDRS=\nOUTPUT=/w/obj/kselftest/mm\nARCH=loongarch\n"
		  "CROSS_COMPILE=loongarch64-linux-gnu-\nCC=loongarch64-linux-gnu-gcc\n"
		  "KHDR_INCLUDES=-isystem /w/obj/usr/include\nEXTRA_CFLAGS=-static -I/w/obj/kselftest/cfg\n"
		  "LDFLAGS=-static -s\nall\n");
	free(s);
}

UNIT_MAIN(UNIT_CASE(make_argv_per_arch), UNIT_CASE(selftests_argv_per_arch))
