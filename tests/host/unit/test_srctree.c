/*
 * The user's kernel tree (lab/kernel/srctree.h) on a tiny fake tree: the mirror
 * copies only what changed and keeps the tree's mtimes (so make rebuilds
 * just that), drops what the tree no longer has, leaves .git out; the
 * listing hash follows an edit; a tree configured in place is refused with
 * the command to clean it; and nothing is ever written into the tree.
 */
#include "kernel/srctree.h"
#include "unit.h"

#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *base;

static void put(const char *rel, const char *text)
{
	char *path = xprintf("%s/%s", base, rel), *dir = xstrdup(path);
	struct error err;

	*strrchr(dir, '/') = '\0';
	CHECK_INT(mkdir_p(dir, &err), 0);
	CHECK_INT(write_file_atomic(path, text, strlen(text), &err), 0);
	free(path);
	free(dir);
}

static long mtime_of(const char *rel)
{
	char *path = xprintf("%s/%s", base, rel);
	struct stat st;
	long t = stat(path, &st) ? -1 : (long)st.st_mtim.tv_sec;

	free(path);
	return t;
}

/* A file's mtime set back, as if it had been written long ago. */
static void age(const char *rel, long secs)
{
	char *path = xprintf("%s/%s", base, rel);
	struct timespec t[2] = { { secs, 0 }, { secs, 0 } };

	CHECK_INT(utimensat(AT_FDCWD, path, t, 0), 0);
	free(path);
}

static void make_tree(void)
{
	put("tree/Makefile", "all:\n");
	put("tree/Kconfig", "");
	put("tree/mm/mempolicy.c", "int x;\n");
	put("tree/mm/khugepaged.c", "int y;\n");
	put("tree/arch/x86/Kconfig", "");
	put("tree/scripts/kconfig/Makefile", "");
	put("tree/.git/HEAD", "ref: refs/heads/master\n");
	age("tree/mm/mempolicy.c", 1000000);
	age("tree/mm/khugepaged.c", 1000000);
}

UNIT_TEST(sync_copies_only_what_changed_with_the_trees_mtime)
{
	char *tree = xprintf("%s/tree", base), *mirror = xprintf("%s/mirror", base);
	struct srctree_sync_stats st;
	struct error err;
	char before[65], after[65];

	make_tree();
	CHECK(srctree_is_kernel(tree));
	CHECK_INT(srctree_manifest(tree, before, &err), 0);
	CHECK_INT(srctree_sync(tree, mirror, &st, &err), 0);
	CHECK_INT(st.files, 6);
	CHECK_INT(st.copied, 6);
	CHECK_INT(mtime_of("mirror/mm/mempolicy.c"), 1000000);
	CHECK_INT(mtime_of("mirror/.git/HEAD"), -1);
	/* Nothing changed: nothing copied. */
	CHECK_INT(srctree_sync(tree, mirror, &st, &err), 0);
	CHECK_INT(st.copied, 0);
	/* One edit: one copy, the listing changes; a removed file goes from the mirror. */
	put("tree/mm/mempolicy.c", "int x = 1;\n");
	age("tree/mm/mempolicy.c", 2000000);
	char *gone = xprintf("%s/mm/khugepaged.c", tree);
	CHECK_INT(unlink(gone), 0);
	free(gone);
	CHECK_INT(srctree_manifest(tree, after, &err), 0);
	CHECK(strcmp(before, after));
	CHECK_INT(srctree_sync(tree, mirror, &st, &err), 0);
	CHECK_INT(st.copied, 1);
	CHECK_INT(st.removed, 1);
	CHECK_INT(mtime_of("mirror/mm/mempolicy.c"), 2000000);
	CHECK_INT(mtime_of("mirror/mm/khugepaged.c"), -1);
	/* The tree was only read: its listing is what it was after the edit. */
	CHECK_INT(srctree_manifest(tree, before, &err), 0);
	CHECK_STR(before, after);
	free(tree);
	free(mirror);
}

UNIT_TEST(a_tree_configured_in_place_is_refused_with_the_command)
{
	char *tree = xprintf("%s/tree", base);
	struct error err;

	make_tree();
	CHECK_INT(srctree_check_clean(tree, &err), 0);
	put("tree/arch/x86/include/generated/asm/x.h", "");
	CHECK_INT(srctree_check_clean(tree, &err), -1);
	CHECK(strstr(err.msg, "arch/x86/include/generated exists") != NULL);
	CHECK(strstr(err.msg, "mrproper") != NULL);
	free(tree);
}

UNIT_TEST(not_a_git_tree_has_no_describe)
{
	char *tree = xprintf("%s/plain", base), describe[128], diff[65];
	struct error err;

	put("plain/Makefile", "");
	CHECK_INT(srctree_git(tree, describe, sizeof(describe), diff, &err), 0);
	CHECK_STR(describe, "");
	CHECK_STR(diff, "");
	free(tree);
}

static void cleanup(void)
{
	remove_tree(base);
}

int main(void)
{
	static const struct unit_case cases[] = {
		UNIT_CASE(sync_copies_only_what_changed_with_the_trees_mtime),
		UNIT_CASE(a_tree_configured_in_place_is_refused_with_the_command),
		UNIT_CASE(not_a_git_tree_has_no_describe),
	};

	base = unit_scratch("srctree");
	atexit(cleanup);
	return unit_run(__FILE__, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
