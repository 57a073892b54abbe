/*
 * git: the one way numalab runs git, over proc.h (an argv, never a shell;
 * the child in its own process group, always reaped).
 *
 * Contract:
 *  - A struct git says where and how: every command is
 *      git [--no-optional-locks] [-C DIR] [-c KEY=VALUE]... ARGS...
 *    built by git_argv() (pure), so a caller that needs its own plumbing
 *    (a pipe, stdout to a file) still spells git the same way.
 *  - git_run() appends the command's output to g->log behind a "$ argv"
 *    line; git_capture() returns its stdout.  Both return 0 when git exited
 *    0, else -1 with err (ERROR_HARNESS): "git ARGS exited N ...".
 *  - git_rev_parse() names a commit by its full id; -1 with err
 *    (ERROR_INPUT) when rev is not a commit of the tree.
 *  - Nothing here reads the user's git configuration differently from git
 *    itself; what a caller must pin (identities, dates, gc) it passes in
 *    config and env.
 */
#ifndef LAB_GIT_H
#define LAB_GIT_H

#include <stddef.h>
#include "base/util.h"

struct git {
	const char *dir;            /* -C DIR; NULL: the current directory */
	const char *const *config;  /* "KEY=VALUE"s for -c, NULL-terminated; NULL: none */
	const char *const *env;     /* git_run()'s environment; NULL: inherited */
	const char *log;            /* git_run()'s output, appended (required for git_run) */
	int read_only;              /* --no-optional-locks: git rewrites nothing, not even the index's stat cache */
};

/* g's command line for args (NULL-terminated) appended to argv. */
void git_argv(const struct git *g, const char *const *args, struct strvec *argv);

/* Run git args to completion; what names it in err ("git checkout"). */
int git_run(const struct git *g, const char *what, const char *const *args, struct error *err) LAB_MUST_CHECK;

/*
 * Run git args and capture its stdout into out (at most cap-1 bytes, NUL
 * terminated, trailing newlines removed).  g->env and g->log are not used.
 */
int git_capture(const struct git *g, const char *const *args, char *out, size_t cap,
		struct error *err) LAB_MUST_CHECK;

/*
 * The full commit id (40 or 64 hex digits) that rev names in g's tree into
 * hex (cap >= 65).  -1 with err "REV is not a commit of the git tree DIR".
 */
int git_rev_parse(const struct git *g, const char *rev, char *hex, size_t cap, struct error *err) LAB_MUST_CHECK;

#endif
