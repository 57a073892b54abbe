/* gittree: tarball + patch series → a git tree, one commit per patch. */
#include "kernel/gittree.h"
#include "kernel/pin.h"
#include "base/git.h"
#include "base/proc.h"
#include "base/progress.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tree {
	const char *dir;           /* OUT.tmp */
	char log[PATH_MAX + 8];    /* OUT.log: every tool's output */
	struct strvec env;
};

/* Fixed identities and dates: the same inputs make the same commit ids. */
static void tree_env(struct tree *t)
{
	const char *home = getenv("HOME");

	strvec_push(&t->env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	strvec_pushf(&t->env, "HOME=%s", home ? home : "/");
	strvec_push(&t->env, "LC_ALL=C");
	strvec_push(&t->env, "GIT_CONFIG_NOSYSTEM=1");
	strvec_push(&t->env, "GIT_AUTHOR_NAME=numalab");
	strvec_push(&t->env, "GIT_AUTHOR_EMAIL=numalab@localhost");
	strvec_push(&t->env, "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z");
	strvec_push(&t->env, "GIT_COMMITTER_NAME=numalab");
	strvec_push(&t->env, "GIT_COMMITTER_EMAIL=numalab@localhost");
	strvec_push(&t->env, "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z");
}

static int git(struct tree *t, const char *what, const char **args, struct error *err)
{
	/* A fresh tree of 90k loose objects would start a background gc: not for a scratch tree. */
	static const char *const config[] = { "gc.auto=0", NULL };
	struct git g = { t->dir, config, strvec_argv(&t->env), t->log, 0 };

	return git_run(&g, what, args, err);
}

static int unpack(struct tree *t, const char *root, const char *source, char *id, size_t cap,
		  struct error *err)
{
	char tarball[PATH_MAX];

	if (strchr(source, '/')) {
		if (!realpath(source, tarball))
			return error_input(err, "%s: %s; give a source tarball or a pinned source name",
					   source, strerror(errno));
		snprintf(id, cap, "tarball %s", strrchr(tarball, '/') + 1);
	} else if (kernel_fetch_source(root, source, tarball, sizeof(tarball), id, cap, err)) {
		return -1;
	}
	progress("unpacking %s", tarball);
	const char *argv[] = { "tar", "-xf", tarball, "-C", t->dir, "--strip-components=1", NULL };
	return proc_run_logged("tar -x", argv, NULL, NULL, t->log, err);
}

/* A patch with mail headers keeps its author and message (git am). */
static int is_mail(const char *patch)
{
	struct buf text = BUF_INIT;
	struct error ignored;
	int mail = 0;

	if (!read_file(patch, &text, &ignored))
		mail = !strncmp(buf_str(&text), "From ", 5) ||
		       (!strncmp(buf_str(&text), "From: ", 6) && strstr(buf_str(&text), "\nSubject: "));
	buf_free(&text);
	return mail;
}

static int commit_patch(struct tree *t, const char *given, struct error *err)
{
	const char *name = strrchr(given, '/') ? strrchr(given, '/') + 1 : given;
	char patch[PATH_MAX];
	int rc;

	/* git runs in the tree: the patch is named by its absolute path. */
	if (!realpath(given, patch))
		return error_input(err, "patch %s: %s", given, strerror(errno));

	progress("committing %s", name);
	if (is_mail(patch)) {
		const char *am[] = { "am", "-q", "--committer-date-is-author-date", patch, NULL };
		const char *abort_am[] = { "am", "--abort", NULL };
		struct error ignored;

		if ((rc = git(t, "git am", am, err)))
			git(t, "git am --abort", abort_am, &ignored);
	} else {
		const char *apply[] = { "apply", "--index", patch, NULL };
		const char *commit[] = { "commit", "-q", "-m", name, NULL };

		rc = git(t, "git apply", apply, err) || git(t, "git commit", commit, err) ? -1 : 0;
	}
	if (rc) {
		error_prefix(err, "%s does not apply on top of the commits before it; "
			     "rebase the series (details in %s)", given, t->log);
		return error_as_input(err);
	}
	return 0;
}

static int fill(struct tree *t, const char *root, const char *source, const char *const *patches,
		int n, struct error *err)
{
	const char *init[] = { "init", "-q", "-b", "main", NULL };
	const char *add[] = { "add", "-A", "-f", ".", NULL };
	const char *tag[] = { "tag", "base", NULL };
	char id[1024], *msg;
	int rc;

	if (mkdir_p(t->dir, err) || git(t, "git init", init, err) ||
	    unpack(t, root, source, id, sizeof(id), err))
		return -1;
	msg = xprintf("%s\n\nnumalab kernel git-tree: the unpacked source.", id);
	const char *commit[] = { "commit", "-q", "-m", msg, NULL };
	rc = git(t, "git add", add, err) || git(t, "git commit", commit, err) ||
	     git(t, "git tag", tag, err) ? -1 : 0;
	free(msg);
	for (int i = 0; !rc && i < n; i++)
		rc = commit_patch(t, patches[i], err);
	return rc;
}

int gittree_make(const char *root, const char *source, const char *const *patches, int n,
		 const char *out, struct error *err)
{
	struct tree t = { .env = STRVEC_INIT };
	char *tmp = xprintf("%s.tmp", out);
	int rc;

	if (file_exists(out)) {
		free(tmp);
		return error_input(err, "%s exists; remove it or give another directory", out);
	}
	for (int i = 0; i < n; i++)
		if (!file_exists(patches[i])) {
			free(tmp);
			return error_input(err, "patch %s: no such file", patches[i]);
		}
	t.dir = tmp;
	snprintf(t.log, sizeof(t.log), "%s.log", out);
	unlink(t.log);
	tree_env(&t);
	remove_tree(tmp);
	rc = fill(&t, root, source, patches, n, err);
	if (!rc && rename(tmp, out))
		rc = error_set(err, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
	if (rc)
		remove_tree(tmp);
	strvec_clear(&t.env);
	free(tmp);
	return rc;
}
