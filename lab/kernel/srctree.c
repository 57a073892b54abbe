#include "kernel/srctree.h"
#include "base/git.h"
#include "base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int srctree_is_kernel(const char *dir)
{
	static const char *const need[] = { "Makefile", "Kconfig", "mm", "arch", "scripts/kconfig", NULL };

	for (int i = 0; need[i]; i++) {
		char *path = xprintf("%s/%s", dir, need[i]);
		int ok = file_exists(path);

		free(path);
		if (!ok)
			return 0;
	}
	return 1;
}

int srctree_check_clean(const char *dir, struct error *err)
{
	static const char *const products[] = { ".config", "include/config", "include/generated",
						"arch/*/include/generated", "vmlinux", NULL };
	int rc = 0;

	for (int i = 0; products[i] && !rc; i++) {
		char *pattern = xprintf("%s/%s", dir, products[i]);
		glob_t g;

		if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc)
			rc = error_input(err, "kernel tree %s is configured or built in place (%s exists); "
					 "numalab builds it out of tree in its cache and never writes into "
					 "it, and kbuild refuses O= builds from such a tree: save your "
					 ".config if you need it, then run `make -C %s mrproper`",
					 dir, g.gl_pathv[0], dir);
		globfree(&g);
		free(pattern);
	}
	return rc;
}

/* ---- walking a tree (nftw has no user pointer: one walk at a time) ---- */

static struct {
	const char *root, *other;   /* the tree walked; the tree compared with */
	size_t root_len;
	struct strvec *entries;     /* manifest */
	struct srctree_sync_stats *st;
	struct error *err;
	int failed;
} walk;

static const char *rel_path(const char *path)
{
	return path[walk.root_len] == '/' ? path + walk.root_len + 1 : path + walk.root_len;
}

static int is_git_dir(const char *rel, int typeflag)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	return !strcmp(base, ".git") && (typeflag == FTW_D || typeflag == FTW_F || typeflag == FTW_SL);
}

static int manifest_entry(const char *path, const struct stat *sb, int typeflag, struct FTW *ftw)
{
	const char *rel = rel_path(path);
	char target[PATH_MAX] = "";
	ssize_t n;

	(void)ftw;
	if (!*rel)
		return FTW_CONTINUE;
	if (is_git_dir(rel, typeflag))
		return typeflag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (typeflag == FTW_SL && (n = readlink(path, target, sizeof(target) - 1)) >= 0)
		target[n] = '\0';
	if (typeflag == FTW_DNR || typeflag == FTW_NS) {
		walk.failed = 1;
		error_set(walk.err, "cannot read %s; make it readable", path);
		return FTW_STOP;
	}
	strvec_pushf(walk.entries, "%s\t%o\t%lld\t%lld.%09ld\t%s", rel, (unsigned)sb->st_mode,
		     typeflag == FTW_D ? 0LL : (long long)sb->st_size,
		     typeflag == FTW_D ? 0LL : (long long)sb->st_mtim.tv_sec,
		     typeflag == FTW_D ? 0L : sb->st_mtim.tv_nsec, target);
	return FTW_CONTINUE;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int srctree_manifest(const char *dir, char hex[65], struct error *err)
{
	struct strvec entries = STRVEC_INIT;
	struct sha256 s;
	unsigned char digest[32];
	int rc;

	memset(&walk, 0, sizeof(walk));
	walk.root = dir;
	walk.root_len = strlen(dir);
	walk.entries = &entries;
	walk.err = err;
	rc = nftw(dir, manifest_entry, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	if (rc && !walk.failed)
		error_set(err, "cannot read the tree %s: %s", dir, strerror(errno));
	if (!rc) {
		qsort(entries.items, entries.nr, sizeof(*entries.items), cmp_str);
		sha256_init(&s);
		for (size_t i = 0; i < entries.nr; i++)
			sha256_update(&s, entries.items[i], strlen(entries.items[i]) + 1);
		sha256_final(&s, digest);
		sha256_hex(digest, hex);
	}
	strvec_clear(&entries);
	return rc ? -1 : 0;
}

/* ---- sync ---- */

static int same_file(const struct stat *a, const struct stat *b)
{
	return (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT) && a->st_size == b->st_size &&
	       (a->st_mode & 07777) == (b->st_mode & 07777) && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int copy_entry(const char *path, const char *to, const struct stat *sb, int typeflag)
{
	struct timespec times[2] = { sb->st_atim, sb->st_mtim };
	char target[PATH_MAX], have[PATH_MAX];
	struct stat ts;
	ssize_t n, m;

	if (typeflag == FTW_D) {
		if (!lstat(to, &ts) && S_ISDIR(ts.st_mode))
			return 0;
		remove_tree(to);
		return mkdir(to, 0755) ? error_set(walk.err, "cannot create %s: %s", to, strerror(errno)) : 0;
	}
	walk.st->files++;
	if (typeflag == FTW_SL) {
		if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
			return error_set(walk.err, "cannot read the link %s: %s", path, strerror(errno));
		target[n] = '\0';
		m = readlink(to, have, sizeof(have) - 1);
		if (m == n && !memcmp(target, have, (size_t)n))
			return 0;
		remove_tree(to);
		walk.st->copied++;
		return symlink(target, to) ? error_set(walk.err, "cannot create %s: %s", to, strerror(errno)) : 0;
	}
	if (!lstat(to, &ts) && same_file(sb, &ts))
		return 0;
	if (!lstat(to, &ts) && !S_ISREG(ts.st_mode))
		remove_tree(to);
	walk.st->copied++;
	/* mtime last: a copy cut short keeps a fresh mtime and is copied again next time. */
	if (copy_file(path, to, walk.err) || chmod(to, sb->st_mode & 07777) ||
	    utimensat(AT_FDCWD, to, times, AT_SYMLINK_NOFOLLOW))
		return walk.err->msg[0] ? -1 : error_set(walk.err, "cannot set %s's mode and times: %s", to,
							 strerror(errno));
	return 0;
}

static int sync_entry(const char *path, const struct stat *sb, int typeflag, struct FTW *ftw)
{
	const char *rel = rel_path(path);
	char *to;
	int rc;

	(void)ftw;
	if (is_git_dir(rel, typeflag))
		return typeflag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (typeflag == FTW_DNR || typeflag == FTW_NS) {
		walk.failed = 1;
		error_set(walk.err, "cannot read %s; make it readable", path);
		return FTW_STOP;
	}
	if (typeflag != FTW_D && typeflag != FTW_F && typeflag != FTW_SL)
		return FTW_CONTINUE;   /* sockets, fifos: nothing a build reads */
	if (typeflag == FTW_F && !S_ISREG(sb->st_mode))
		return FTW_CONTINUE;
	to = *rel ? xprintf("%s/%s", walk.other, rel) : xstrdup(walk.other);
	walk.err->msg[0] = '\0';
	rc = copy_entry(path, to, sb, typeflag);
	free(to);
	if (rc) {
		walk.failed = 1;
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

/* Walking the mirror: whatever from no longer has (or has as another type) goes. */
static int prune_entry(const char *path, const struct stat *sb, int typeflag, struct FTW *ftw)
{
	const char *rel = rel_path(path);
	char *from;
	struct stat fs;
	int gone;

	(void)ftw;
	if (!*rel)
		return FTW_CONTINUE;
	from = xprintf("%s/%s", walk.other, rel);
	gone = lstat(from, &fs) || (fs.st_mode & S_IFMT) != (sb->st_mode & S_IFMT) ||
	       is_git_dir(rel, typeflag);
	free(from);
	if (!gone)
		return FTW_CONTINUE;
	remove_tree(path);
	walk.st->removed++;
	return typeflag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
}

int srctree_sync(const char *from, const char *to, struct srctree_sync_stats *st,
		 struct error *err)
{
	int rc;

	memset(st, 0, sizeof(*st));
	if (mkdir_p(to, err))
		return -1;
	memset(&walk, 0, sizeof(walk));
	walk.root = to;
	walk.root_len = strlen(to);
	walk.other = from;
	walk.st = st;
	walk.err = err;
	rc = nftw(to, prune_entry, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	if (!rc) {
		walk.root = from;
		walk.root_len = strlen(from);
		walk.other = to;
		rc = nftw(from, sync_entry, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	}
	if (rc && !walk.failed)
		error_set(err, "cannot mirror %s into %s: %s", from, to, strerror(errno));
	return rc ? -1 : 0;
}

/* ---- git ---- */

/* sha256 of git args' stdout, and whether it printed anything. */
static int hash_output(const struct git *g, const char *const *args, char hex[65], int *empty,
		       struct error *err)
{
	struct strvec argv = STRVEC_INIT;
	struct proc p;
	struct sha256 s;
	unsigned char digest[32], chunk[65536];
	size_t total = 0;
	ssize_t n;
	int fd, rc;

	git_argv(g, args, &argv);
	fd = proc_start_reader(&p, strvec_argv(&argv), err);
	strvec_clear(&argv);
	if (fd < 0)
		return -1;
	sha256_init(&s);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sha256_update(&s, chunk, (size_t)n);
		total += (size_t)n;
	}
	close(fd);
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	*empty = total == 0;
	rc = proc_wait(&p, err);
	return rc == 0 ? 0 : rc < 0 ? -1 : error_set(err, "git -C %s %s exited %d", g->dir, args[0], rc);
}

int srctree_git(const char *dir, char *describe, size_t cap, char diff_sha256[65],
		struct error *err)
{
	/* read_only (--no-optional-locks): not even the index's stat cache is rewritten. */
	struct git g = { .dir = dir, .read_only = 1 };
	const char *inside[] = { "rev-parse", "--is-inside-work-tree", NULL };
	/* Not --dirty: it rewrites the index even with --no-optional-locks (git 2.39); the diff says. */
	const char *desc[] = { "describe", "--always", "--tags", NULL };
	const char *diff[] = { "diff", "HEAD", "--no-ext-diff", "--no-color", NULL };
	char *dotgit = xprintf("%s/.git", dir), out[256];
	struct error ignored;
	int is_git = file_exists(dotgit), empty;

	free(dotgit);
	describe[0] = diff_sha256[0] = '\0';
	if (!is_git || git_capture(&g, inside, out, sizeof(out), &ignored))
		return 0;
	if (git_capture(&g, desc, describe, cap, err))
		return error_set(err, "`git -C %s describe --always --tags` failed; is the tree's "
				 "repository whole?", dir);
	if (hash_output(&g, diff, diff_sha256, &empty, err))
		return -1;
	if (empty)
		diff_sha256[0] = '\0';
	else if (strlen(describe) + 7 < cap)
		strcat(describe, "-dirty");
	return 0;
}
