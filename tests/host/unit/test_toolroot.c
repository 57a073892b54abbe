/* toolroot: the pure parts (hash, paths, argv wrapping, option parsing, bind sets). */
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "host/toolroot.h"
#include "cli/command.h"

UNIT_TEST(hash_is_stable_and_over_the_table)
{
	const char *const a[] = { "qemu-system-misc", "gcc", NULL };
	const char *const b[] = { "qemu-system-misc", "gcc", "make", NULL };
	const char *const c[] = { "gcc", "qemu-system-misc", NULL };
	const char *const d[] = { "qemu-system-mis", "cgcc", NULL };
	char h1[17], h2[17], hb[17], hc[17], hd[17];

	toolroot_hash(a, h1);
	toolroot_hash(a, h2);
	toolroot_hash(b, hb);
	toolroot_hash(c, hc);
	toolroot_hash(d, hd);
	CHECK_STR(h1, h2);
	CHECK_INT(strlen(h1), 16);
	CHECK(strspn(h1, "0123456789abcdef") == 16);
	CHECK(strcmp(h1, hb) != 0);   /* a package more */
	CHECK(strcmp(h1, hc) != 0);   /* order is part of the table */
	CHECK(strcmp(h1, hd) != 0);   /* names are separated, not concatenated */
}

UNIT_TEST(path_is_cache_toolroot_suite_hash)
{
	char path[512], hex[17], want[512];

	toolroot_hash(toolroot_packages, hex);
	toolroot_path("/c", toolroot_packages, path, sizeof(path));
	snprintf(want, sizeof(want), "/c/toolroot/trixie-%s", hex);
	CHECK_STR(path, want);
}

UNIT_TEST(table_has_the_loongarch_tools)
{
	const char *need[] = { "qemu-system-misc", "qemu-efi-loongarch64", "gcc-loongarch64-linux-gnu",
			       "libc6-dev-loong64-cross", NULL };

	for (int i = 0; need[i]; i++) {
		int found = 0;

		for (int j = 0; toolroot_packages[j]; j++)
			found |= !strcmp(toolroot_packages[j], need[i]);
		CHECK(found);
	}
}

UNIT_TEST(qemu_version)
{
	int major = -1, minor = -1;

	CHECK_INT(toolroot_parse_qemu_version("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2)\n"
					      "Copyright (c) 2003-2025 Fabrice Bellard\n", &major, &minor), 0);
	CHECK_INT(major, 10);
	CHECK_INT(minor, 0);
	CHECK_INT(toolroot_parse_qemu_version("QEMU emulator version 7.2.15\n", &major, &minor), 0);
	CHECK_INT(major, 7);
	CHECK_INT(minor, 2);
	CHECK_INT(toolroot_parse_qemu_version("qemu: command not found", &major, &minor), -1);
	CHECK_INT(toolroot_parse_qemu_version("", &major, &minor), -1);
}

UNIT_TEST(argv_without_root_is_unchanged)
{
	const char *cmd[] = { "qemu-system-loongarch64", "--version", NULL };
	struct strvec v = STRVEC_INIT;

	CHECK_INT(toolroot_argv("", cmd, &v), 0);
	CHECK_INT(v.nr, 2);
	CHECK_STR(v.items[0], "qemu-system-loongarch64");
	CHECK_STR(v.items[1], "--version");
	CHECK(v.items[2] == NULL);
	strvec_clear(&v);
	CHECK_INT(toolroot_argv(NULL, cmd, &v), 0);
	CHECK_INT(v.nr, 2);
	strvec_clear(&v);
}

UNIT_TEST(argv_with_root_reexecs_numalab)
{
	const char *cmd[] = { "loongarch64-linux-gnu-gcc", "-static", "-o", "x", "x.c", NULL };
	const char *binds[] = { "/tmp/work", NULL };
	const char *empty[] = { NULL };
	struct strvec v = STRVEC_INIT;

	CHECK_INT(toolroot_argv_binds("/c/toolroot/trixie-0", binds, cmd, &v), 0);
	CHECK_INT(v.nr, 11);
	CHECK(v.items[0][0] == '/');    /* this binary, absolute */
	CHECK_STR(v.items[1], "toolroot-exec");
	CHECK_STR(v.items[2], "--bind");
	CHECK_STR(v.items[3], "/tmp/work");
	CHECK_STR(v.items[4], "/c/toolroot/trixie-0");
	CHECK_STR(v.items[5], "--");
	CHECK_STR(v.items[6], "loongarch64-linux-gnu-gcc");
	CHECK_STR(v.items[10], "x.c");
	CHECK(v.items[11] == NULL);
	strvec_clear(&v);
	CHECK_INT(toolroot_argv("/r", empty, &v), -1);
	strvec_clear(&v);
}

UNIT_TEST(exec_parse_accepts)
{
	char *a1[] = { "toolroot-exec", "--bind", "/a", "--bind=/b", "/root", "--", "cc", "-v", NULL };
	char *a2[] = { "toolroot-exec", "--host", "--", "debootstrap", NULL };
	char *a3[] = { "toolroot-exec", "--bare", "/r", "--", "apt-get", "clean", NULL };
	char *a4[] = { "toolroot-exec", "--auto", "--", "cc", "-v", NULL };
	struct toolroot_exec_opts o;
	struct error err;

	CHECK_INT(toolroot_exec_parse(8, a1, &o, &err), 0);
	CHECK_STR(o.root, "/root");
	CHECK_INT(o.nr_binds, 2);
	CHECK_STR(o.binds[0], "/a");
	CHECK_STR(o.binds[1], "/b");
	CHECK_STR(o.cmd[0], "cc");
	CHECK_STR(o.cmd[1], "-v");
	CHECK(o.cmd[2] == NULL);
	CHECK_INT(o.bare, 0);
	CHECK_INT(toolroot_exec_parse(4, a2, &o, &err), 0);
	CHECK(o.root == NULL);
	CHECK_STR(o.cmd[0], "debootstrap");
	CHECK_INT(toolroot_exec_parse(6, a3, &o, &err), 0);
	CHECK_INT(o.bare, 1);
	CHECK_STR(o.root, "/r");
	CHECK_INT(toolroot_exec_parse(5, a4, &o, &err), 0);
	CHECK_INT(o.automatic, 1);
	CHECK(o.root == NULL);
	CHECK_STR(o.cmd[0], "cc");
}

UNIT_TEST(exec_parse_rejects)
{
	char *no_cmd[] = { "toolroot-exec", "/r", "--", NULL };
	char *no_sep[] = { "toolroot-exec", "/r", "cc", NULL };
	char *no_root[] = { "toolroot-exec", "--", "cc", NULL };
	char *host_root[] = { "toolroot-exec", "--host", "/r", "--", "cc", NULL };
	char *rel_bind[] = { "toolroot-exec", "--bind", "rel", "/r", "--", "cc", NULL };
	char *bad_opt[] = { "toolroot-exec", "--frob", "/r", "--", "cc", NULL };
	char *auto_root[] = { "toolroot-exec", "--auto", "/r", "--", "cc", NULL };
	struct toolroot_exec_opts o;
	struct error err;

	CHECK_INT(toolroot_exec_parse(3, no_cmd, &o, &err), -1);
	CHECK(strstr(err.msg, "missing -- CMD") != NULL);
	CHECK_INT(toolroot_exec_parse(3, no_sep, &o, &err), -1);
	CHECK_INT(toolroot_exec_parse(3, no_root, &o, &err), -1);
	CHECK(strstr(err.msg, "missing ROOT") != NULL);
	CHECK_INT(toolroot_exec_parse(5, host_root, &o, &err), -1);
	CHECK_INT(toolroot_exec_parse(6, rel_bind, &o, &err), -1);
	CHECK(strstr(err.msg, "absolute") != NULL);
	CHECK_INT(toolroot_exec_parse(5, auto_root, &o, &err), -1);
	CHECK_INT(toolroot_exec_parse(5, bad_opt, &o, &err), -1);
	CHECK(strstr(err.msg, "--frob") != NULL);
}

UNIT_TEST(bind_reduce)
{
	const char *root = "/home/u/.cache/numalab/toolroot/trixie-0";
	const char *d[] = { "/work/main", "/home/u/.cache/numalab", "/work/main/build", "/",
			    "/home/u/.cache/numalab/toolroot/trixie-0/tmp", "/tmp/x", "/work/main",
			    "/work/mainline" };
	int n = toolroot_bind_reduce(root, d, 8);

	CHECK_INT(n, 4);
	CHECK_STR(d[0], "/work/main");
	CHECK_STR(d[1], "/home/u/.cache/numalab");   /* holds the root: still bound */
	CHECK_STR(d[2], "/tmp/x");
	CHECK_STR(d[3], "/work/mainline");           /* a prefix is not a parent */
}

UNIT_TEST(bind_reduce_parent_later)
{
	const char *d[] = { "/a/b/c", "/a/b", "/a/b/d" };
	int n = toolroot_bind_reduce("/r", d, 3);

	CHECK_INT(n, 1);
	CHECK_STR(d[0], "/a/b");
}

UNIT_MAIN(UNIT_CASE(hash_is_stable_and_over_the_table),
	  UNIT_CASE(path_is_cache_toolroot_suite_hash),
	  UNIT_CASE(table_has_the_loongarch_tools),
	  UNIT_CASE(qemu_version),
	  UNIT_CASE(argv_without_root_is_unchanged),
	  UNIT_CASE(argv_with_root_reexecs_numalab),
	  UNIT_CASE(exec_parse_accepts),
	  UNIT_CASE(exec_parse_rejects),
	  UNIT_CASE(bind_reduce),
	  UNIT_CASE(bind_reduce_parent_later))
