/*
 * test_suite: --tests-dir suites (lab/model/suite.h): which files are suites, the
 * sidecar's keys and its errors (file:line and the fix), and what the guest
 * is told.
 */
#include "model/suite.h"
#include "unit.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *root;

static void put(const char *rel, const char *text, mode_t mode)
{
	char *path = xprintf("%s/%s", root, rel);
	struct error err;

	CHECK_INT(write_file_atomic(path, text, strlen(text), &err), 0);
	chmod(path, mode);
	free(path);
}

static int parse(const char *text, struct suite *s, struct error *err)
{
	memset(s, 0, sizeof(*s));
	s->skip_code = SUITE_DEFAULT_SKIP;
	return suite_parse_sidecar("x.numalab", text, strlen(text), s, err);
}

UNIT_TEST(sidecar_keys)
{
	struct suite s;
	struct error err;
	struct buf conf = BUF_INIT;

	CHECK_INT(parse("# a comment\n\ntimeout 600\nskip-code 77  \nfile data/in.bin\n"
			"env TMPDIR=/tmp/x y\r\ntmpdir\n", &s, &err), 0);
	CHECK_INT(s.timeout_s, 600);
	CHECK_INT(s.skip_code, 77);
	CHECK_INT(s.tmpdir, 1);
	CHECK_INT((int)s.files.nr, 1);
	CHECK_STR(s.files.items[0], "data/in.bin");
	CHECK_INT((int)s.env.nr, 1);
	CHECK_STR(s.env.items[0], "TMPDIR=/tmp/x y");
	suite_guest_conf(&s, &conf);
	CHECK_STR(buf_str(&conf), "skip-code 77\ntmpdir\nenv TMPDIR=/tmp/x y\n");
	buf_free(&conf);
	strvec_clear(&s.files);
	strvec_clear(&s.env);
}

UNIT_TEST(sidecar_errors_name_line_and_fix)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "timeout 0\n", "x.numalab:1: timeout '0': give seconds, 1..86400" },
		{ "\nskip-code 0\n", "x.numalab:2: skip-code '0': give an exit status, 1..255" },
		{ "file ../etc/passwd\n", "x.numalab:1: file '../etc/passwd': give a path relative" },
		{ "file /etc/passwd\n", "x.numalab:1: file '/etc/passwd': give a path relative" },
		{ "env 1X=2\n", "x.numalab:1: env '1X=2': give NAME=VALUE" },
		{ "env NOEQUALS\n", "x.numalab:1: env 'NOEQUALS': give NAME=VALUE" },
		{ "tmpdir yes\n", "x.numalab:1: tmpdir takes no value" },
		{ "timeuot 5\n", "x.numalab:1: unknown key 'timeuot'; use timeout, skip-code, file, env or tmpdir" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct suite s;
		struct error err;

		CHECK_INT(parse(cases[i].text, &s, &err), -1);
		CHECK(!strncmp(err.msg, cases[i].want, strlen(cases[i].want)));
		if (strncmp(err.msg, cases[i].want, strlen(cases[i].want)))
			printf("#   got '%s'\n", err.msg);
		strvec_clear(&s.files);
		strvec_clear(&s.env);
	}
}

/* Executables are suites, sorted; hidden files, sidecars, data files and directories are not. */
UNIT_TEST(scan_dir)
{
	struct suite_list list = { NULL, 0 };
	struct error err;
	char *sub = xprintf("%s/data", root);

	mkdir(sub, 0755);
	put("zeta", "#!/bin/sh\n", 0755);
	put("alpha", "#!/bin/sh\nexit 77\n", 0755);
	put("alpha.numalab", "skip-code 77\nfile data/x\n", 0755);
	put("data/x", "x\n", 0644);
	put(".hidden", "#!/bin/sh\n", 0755);
	put("notes.txt", "text\n", 0644);
	CHECK_INT(suite_scan_dir(root, &list, &err), 0);
	CHECK_INT((int)list.nr, 2);
	if (list.nr == 2) {
		CHECK_STR(list.items[0].name, "alpha");
		CHECK_INT(list.items[0].skip_code, 77);
		CHECK_STR(list.items[1].name, "zeta");
		CHECK_INT(list.items[1].skip_code, SUITE_DEFAULT_SKIP);
	}
	/* The same directory twice: the names collide. */
	CHECK_INT(suite_scan_dir(root, &list, &err), -1);
	CHECK(strstr(err.msg, "suite 'alpha' is also in") != NULL);
	suite_list_free(&list);
	/* A declared file that is missing is named. */
	put("alpha.numalab", "file data/missing\n", 0644);
	CHECK_INT(suite_scan_dir(root, &list, &err), -1);
	CHECK(strstr(err.msg, "alpha.numalab: file data/missing: no ") != NULL);
	suite_list_free(&list);
	/* No executable at all. */
	CHECK_INT(suite_scan_dir(sub, &list, &err), -1);
	CHECK(strstr(err.msg, "no executable file in it") != NULL);
	suite_list_free(&list);
	free(sub);
}

static void cleanup(void)
{
	remove_tree(root);
}

int main(void)
{
	static const struct unit_case cases[] = {
		UNIT_CASE(sidecar_keys),
		UNIT_CASE(sidecar_errors_name_line_and_fix),
		UNIT_CASE(scan_dir),
	};

	root = unit_scratch("suite");
	atexit(cleanup);
	return unit_run(__FILE__, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
