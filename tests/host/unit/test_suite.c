/*
 * test_suite: --tests-dir suites (lab/model/suite.h): which files are suites, the
 * sidecar's keys and its errors (file:line and the fix), the directory's
 * sidecar under each suite's own, each format's skip code, and what the
 * guest is told.
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
	CHECK_STR(buf_str(&conf), "format tap\nskip-code 77\ntmpdir\nenv TMPDIR=/tmp/x y\n");
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
		{ "timeuot 5\n", "x.numalab:1: unknown key 'timeuot'; use format, timeout, skip-code, file, env or tmpdir" },
		{ "\n\nformat LTP\n", "x.numalab:3: format 'LTP': use tap, kselftest, ltp, automake or plain" },
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

/* The suite of list named name, or NULL. */
static const struct suite *find(const struct suite_list *list, const char *name)
{
	for (size_t i = 0; i < list->nr; i++)
		if (!strcmp(list->items[i].name, name))
			return &list->items[i];
	return NULL;
}

/*
 * DIR/.numalab applies to every suite; NAME.numalab overrides it key by key:
 * format, timeout and skip-code replaced, env replaced by name and added,
 * files added once.  An unset skip code is the format's.
 */
UNIT_TEST(directory_sidecar)
{
	struct suite_list list = { NULL, 0 };
	struct error err;
	const struct suite *s;
	struct buf conf = BUF_INIT;
	char *dir = xprintf("%s/dirconf", root), *data = xprintf("%s/dirconf/data", root);
	char *saved = root;

	mkdir(dir, 0755);
	mkdir(data, 0755);
	root = dir;
	put("data/shared", "x\n", 0644);
	put("data/own", "x\n", 0644);
	put(".numalab", "format ltp\ntimeout 300\nenv LTP_TIMEOUT_MUL=4\nenv A=1\nfile data/shared\n", 0644);
	put("inherits", "#!/bin/sh\n", 0755);
	put("overrides", "#!/bin/sh\n", 0755);
	put("overrides.numalab", "timeout 60\nenv LTP_TIMEOUT_MUL=10\nenv B=2\nfile data/shared\nfile data/own\ntmpdir\n",
	    0644);
	put("kself", "#!/bin/sh\n", 0755);
	put("kself.numalab", "format kselftest\n", 0644);
	put("am", "#!/bin/sh\n", 0755);
	put("am.numalab", "format automake\nskip-code 5\n", 0644);
	CHECK_INT(suite_scan_dir(dir, &list, &err), 0);
	CHECK_INT((int)list.nr, 4);
	if ((s = find(&list, "inherits"))) {
		CHECK_INT(s->format, SUITE_FORMAT_LTP);
		CHECK_INT(s->skip_code, 32);
		CHECK_INT(s->timeout_s, 300);
		CHECK_INT(s->tmpdir, 0);
		CHECK_INT((int)s->files.nr, 1);
		CHECK_INT((int)s->env.nr, 2);
		suite_guest_conf(s, &conf);
		CHECK_STR(buf_str(&conf), "format ltp\nskip-code 32\nenv LTP_TIMEOUT_MUL=4\nenv A=1\n");
	} else {
		CHECK(0);
	}
	if ((s = find(&list, "overrides"))) {
		CHECK_INT(s->timeout_s, 60);
		CHECK_INT(s->tmpdir, 1);
		CHECK_INT((int)s->files.nr, 2);
		if (s->files.nr == 2) {
			CHECK_STR(s->files.items[0], "data/shared");
			CHECK_STR(s->files.items[1], "data/own");
		}
		conf.len = 0;
		suite_guest_conf(s, &conf);
		CHECK_STR(buf_str(&conf), "format ltp\nskip-code 32\ntmpdir\nenv LTP_TIMEOUT_MUL=10\nenv A=1\nenv B=2\n");
	} else {
		CHECK(0);
	}
	if ((s = find(&list, "kself"))) {
		CHECK_INT(s->format, SUITE_FORMAT_TAP);
		CHECK_INT(s->skip_code, 4);
	} else {
		CHECK(0);
	}
	if ((s = find(&list, "am"))) {
		CHECK_INT(s->format, SUITE_FORMAT_AUTOMAKE);
		CHECK_INT(s->skip_code, 5);
	} else {
		CHECK(0);
	}
	suite_list_free(&list);
	/* A bad directory sidecar is named with its line; a file it declares must exist. */
	put(".numalab", "format ltp\nskip-code 300\n", 0644);
	CHECK_INT(suite_scan_dir(dir, &list, &err), -1);
	CHECK(strstr(err.msg, "dirconf/.numalab:2: skip-code '300'") != NULL);
	suite_list_free(&list);
	put(".numalab", "file data/gone\n", 0644);
	CHECK_INT(suite_scan_dir(dir, &list, &err), -1);
	CHECK(strstr(err.msg, "dirconf/.numalab: file data/gone: no ") != NULL);
	suite_list_free(&list);
	/* Without the directory's, a suite's own format gives its skip code: automake's 77. */
	put(".numalab", "", 0644);
	put("am.numalab", "format automake\n", 0644);
	CHECK_INT(suite_scan_dir(dir, &list, &err), 0);
	if ((s = find(&list, "am")))
		CHECK_INT(s->skip_code, 77);
	CHECK((s = find(&list, "inherits")) && s->format == SUITE_FORMAT_TAP && s->skip_code == 4);
	suite_list_free(&list);
	buf_free(&conf);
	root = saved;
	free(dir);
	free(data);
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
		UNIT_CASE(directory_sidecar),
	};

	root = unit_scratch("suite");
	atexit(cleanup);
	return unit_run(__FILE__, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
