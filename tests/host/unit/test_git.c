/*
 * test_git: the command lines git.h builds (pure), and running them on a
 * scratch repository: a commit's id, a revision that is none, a failing
 * command's message.
 */
#include "base/git.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

UNIT_TEST(argv_spells_git_one_way)
{
	const char *config[] = { "gc.auto=0", "core.abbrev=12", NULL };
	const char *status[] = { "status", "--short", NULL };
	struct strvec argv = STRVEC_INIT;
	char *s;

	git_argv(&(struct git){ 0 }, status, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "git status --short");
	free(s);
	git_argv(&(struct git){ .dir = "/k/linux" }, status, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "git -C /k/linux status --short");
	free(s);
	git_argv(&(struct git){ .dir = "/k/linux", .config = config, .read_only = 1 }, status, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "git --no-optional-locks -C /k/linux -c gc.auto=0 -c core.abbrev=12 "
		  "status --short");
	free(s);
	/* Appended: a caller's own words may follow (git bisect run CMD...). */
	strvec_push(&argv, "env");
	git_argv(&(struct git){ .dir = "d" }, status, &argv);
	CHECK_STR(s = unit_argv_joined(&argv), "env git -C d status --short");
	free(s);
}

UNIT_TEST(run_capture_and_rev_parse_on_a_repository)
{
	char *dir = unit_scratch("git"), hex[65], out[256], *log, *file;
	const char *env[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
			      "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			      "GIT_COMMITTER_EMAIL=t@t", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
			      "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", NULL };
	const char *init[] = { "init", "-q", "-b", "main", NULL };
	const char *add[] = { "add", "f", NULL };
	const char *commit[] = { "commit", "-q", "-m", "the subject", NULL };
	const char *subject[] = { "log", "-1", "--format=%s", NULL };
	const char *bad[] = { "log", "nosuchref", "--", NULL };
	struct error err;
	struct buf text = BUF_INIT;

	log = xprintf("%s.log", dir);
	file = xprintf("%s/f", dir);
	struct git g = { .dir = dir, .env = env, .log = log };

	CHECK_INT(git_run(&g, "git init", init, &err), 0);
	CHECK_INT(write_file_atomic(file, "x\n", 2, &err), 0);
	CHECK_INT(git_run(&g, "git add", add, &err), 0);
	CHECK_INT(git_run(&g, "git commit", commit, &err), 0);
	CHECK_INT(read_file(log, &text, &err), 0);
	CHECK(strstr(buf_str(&text), "$ git -C ") != NULL);

	CHECK_INT(git_rev_parse(&g, "HEAD", hex, sizeof(hex), &err), 0);
	CHECK_INT(strlen(hex), 40);
	/* g.env reached git: its fixed identities and dates make this commit id. */
	CHECK_STR(hex, "c98362657b9e03789e354750a47f8aafd0fe6525");
	CHECK_INT(git_capture(&g, subject, out, sizeof(out), &err), 0);
	CHECK_STR(out, "the subject");

	CHECK_INT(git_rev_parse(&g, "nosuchref", hex, sizeof(hex), &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK_STR(hex, "");
	CHECK(strstr(err.msg, "nosuchref is not a commit of the git tree /tmp/numalab-unit-git.") != NULL);
	CHECK_INT(git_capture(&g, bad, out, sizeof(out), &err), -1);
	CHECK_INT(err.kind, ERROR_HARNESS);
	CHECK(strstr(err.msg, " log nosuchref --` exited 128") != NULL);

	remove_tree(dir);
	free(dir);
	unlink(log);
	buf_free(&text);
	free(log);
	free(file);
}

UNIT_MAIN(UNIT_CASE(argv_spells_git_one_way), UNIT_CASE(run_capture_and_rev_parse_on_a_repository))
