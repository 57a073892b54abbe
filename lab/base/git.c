#include "base/git.h"
#include "base/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void git_argv(const struct git *g, const char *const *args, struct strvec *argv)
{
	strvec_push(argv, "git");
	if (g->read_only)
		strvec_push(argv, "--no-optional-locks");
	if (g->dir) {
		strvec_push(argv, "-C");
		strvec_push(argv, g->dir);
	}
	for (int i = 0; g->config && g->config[i]; i++) {
		strvec_push(argv, "-c");
		strvec_push(argv, g->config[i]);
	}
	for (int i = 0; args[i]; i++)
		strvec_push(argv, args[i]);
}

int git_run(const struct git *g, const char *what, const char *const *args, struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	int rc;

	git_argv(g, args, &argv);
	rc = proc_run_logged(what, strvec_argv(&argv), NULL, (const char **)g->env, g->log, err);
	strvec_clear(&argv);
	return rc ? -1 : 0;
}

/* "git -C DIR ARG ARG", for messages. */
static void command_line(const struct git *g, const char *const *args, char *out, size_t cap)
{
	size_t used = (size_t)snprintf(out, cap, "git%s%s", g->dir ? " -C " : "", g->dir ? g->dir : "");

	for (int i = 0; args[i] && used < cap; i++)
		used += (size_t)snprintf(out + used, cap - used, " %s", args[i]);
}

/* Stdout into out, trailing newlines removed; git's exit code, -1 if it did not start (err). */
static int capture(const struct git *g, const char *const *args, char *out, size_t cap,
		   struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	size_t len;
	int rc;

	if (cap)
		out[0] = '\0';
	git_argv(g, args, &argv);
	rc = proc_capture(strvec_argv(&argv), out, cap, err);
	strvec_clear(&argv);
	len = cap ? strlen(out) : 0;
	while (len && out[len - 1] == '\n')
		out[--len] = '\0';
	return rc;
}

int git_capture(const struct git *g, const char *const *args, char *out, size_t cap,
		struct error *err)
{
	char cmd[512];
	int rc = capture(g, args, out, cap, err);

	if (rc <= 0)
		return rc;
	command_line(g, args, cmd, sizeof(cmd));
	return error_set(err, "`%s` exited %d", cmd, rc);
}

int git_rev_parse(const struct git *g, const char *rev, char *hex, size_t cap, struct error *err)
{
	char *commit = xprintf("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "--verify", "-q", commit, NULL };
	int rc = capture(g, args, hex, cap, err);
	size_t len = strlen(hex);

	free(commit);
	if (rc < 0)
		return -1;
	if (rc || (len != 40 && len != 64) || strspn(hex, "0123456789abcdef") != len) {
		hex[0] = '\0';
		return error_input(err, "%s is not a commit of the git tree %s", rev, g->dir ? g->dir : ".");
	}
	return 0;
}
