/*
 * Recipes and kernel build keys, without building a kernel: parsing and its
 * errors, key stability and sensitivity, and a patch that does not apply
 * (run for real with `patch` on a tiny source tarball).
 */
#include "kernel/kbuild.h"
#include "base/proc.h"
#include "model/recipe.h"
#include "kernel/srctree.h"
#include "unit.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *text, struct recipe *r, struct error *err)
{
	return recipe_parse("kernels/recipes/t.recipe", text, strlen(text), "/lab", r, err);
}

UNIT_TEST(parse_pinned_with_series)
{
	struct recipe r;
	struct error err;

	CHECK_INT(parse("# c\nsource pinned linux-7.2\nbase defconfig\nconfig lab # why\n"
			"patch a/0001-x.patch\npatch /abs/0002.patch\n", &r, &err), 0);
	CHECK_STR(r.name, "t");
	CHECK_INT(r.source, RECIPE_SOURCE_PINNED);
	CHECK_STR(r.source_ref, "linux-7.2");
	CHECK_STR(r.base, "defconfig");
	CHECK_INT(r.nr_configs, 1);
	CHECK_INT(r.nr_patches, 2);
	CHECK_STR(r.patches[0].path, "/lab/kernels/patches/a/0001-x.patch");
	CHECK_STR(r.patches[1].path, "/abs/0002.patch");
	CHECK_INT(r.patches[1].line, 6);
}

UNIT_TEST(parse_git_and_tarball_are_relative_to_the_recipe)
{
	struct recipe r;
	struct error err;

	CHECK_INT(parse("source git ../../linux v7.2\nconfig lab\n", &r, &err), 0);
	CHECK_INT(r.source, RECIPE_SOURCE_GIT);
	CHECK_STR(r.source_ref, "kernels/recipes/../../linux");
	CHECK_STR(r.rev, "v7.2");
	CHECK_STR(r.base, "allnoconfig");
	CHECK_INT(parse("source tarball /x/linux.tar.xz\nconfig lab\n", &r, &err), 0);
	CHECK_STR(r.source_ref, "/x/linux.tar.xz");
}

UNIT_TEST(parse_errors_name_file_and_line)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "config lab\n", "kernels/recipes/t.recipe: no source line" },
		{ "source pinned a\n", "kernels/recipes/t.recipe: no config line" },
		{ "source pinned a\nsource pinned b\nconfig lab\n", "t.recipe:2: a second source (the first is on line 1)" },
		{ "source svn x\n", "t.recipe:1: source takes" },
		{ "source pinned a\nbase tinyconfig\n", "t.recipe:2: base is allnoconfig or defconfig" },
		{ "source pinned a\nconfig Lab\n", "t.recipe:2: config takes one fragment name" },
		{ "source pinned a\nconfig lab\npatch\n", "t.recipe:3: patch takes one file" },
		{ "source pinned a\nconfig lab\nfrobnicate yes\n", "t.recipe:3: unknown key 'frobnicate'" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct recipe r;
		struct error err = { 0 };

		CHECK_INT(parse(bad[i].text, &r, &err), -1);
		if (!strstr(err.msg, bad[i].want))
			printf("#   case %zu: got \"%s\"\n#   want \"%s\"\n", i, err.msg, bad[i].want),
				unit_failed_checks++;
	}
}

UNIT_TEST(spec_with_fragments)
{
	char name[64], extras[4][64];
	int n;
	struct error err;

	CHECK_INT(recipe_spec_parse("stock+debug+kasan", name, sizeof(name), extras, 4, &n, &err), 0);
	CHECK_STR(name, "stock");
	CHECK_INT(n, 2);
	CHECK_STR(extras[1], "kasan");
	CHECK_INT(recipe_spec_parse("+debug", name, sizeof(name), extras, 4, &n, &err), -1);
	CHECK_INT(recipe_spec_parse("stock+", name, sizeof(name), extras, 4, &n, &err), -1);
	CHECK_INT(recipe_spec_parse("stock+De/bug", name, sizeof(name), extras, 4, &n, &err), -1);
}

/* A scratch project root: kernels/{recipes,config,patches}. */
static char *root;

static void put(const char *rel, const char *text)
{
	char path[512];
	struct error err;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	*strrchr(path, '/') = '\0';
	CHECK_INT(mkdir_p(path, &err), 0);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK_INT(write_file_atomic(path, text, strlen(text), &err), 0);
}

static void key_of(struct recipe *r, const char *arch, const char *source, const char *cc,
		   int with_patches, char hex[17])
{
	struct error err;

	if (recipe_key(r, root, arch, source, cc, with_patches, hex, &err))
		printf("#   recipe_key: %s\n", err.msg), unit_failed_checks++;
}

static int load(const char *spec, struct recipe *r)
{
	struct error err;
	int rc = recipe_load(root, spec, r, &err);

	if (rc)
		printf("#   recipe_load: %s\n", err.msg);
	return rc;
}

UNIT_TEST(keys_change_with_every_input)
{
	struct recipe r;
	char base[17], k[17], cfg[17], cfg2[17];

	put("kernels/config/lab.config", "CONFIG_NUMA=y\n");
	put("kernels/config/lab-x86_64.config", "CONFIG_X86_64_ACPI_NUMA=y\n");
	put("kernels/config/debug.config", "CONFIG_DEBUG_VM=y\n");
	put("kernels/patches/p1.patch", "one\n");
	put("kernels/patches/p2.patch", "two\n");
	put("kernels/recipes/k.recipe", "source pinned linux-7.2\nconfig lab\npatch p1.patch\npatch p2.patch\n");
	CHECK_INT(load("k", &r), 0);
	key_of(&r, "x86_64", "src 1", "gcc 12", 1, base);
	key_of(&r, "x86_64", "src 1", "gcc 12", 1, k);
	CHECK_STR(k, base);                                   /* same inputs, same key */
	key_of(&r, "loongarch64", "src 1", "gcc 12", 1, k);
	CHECK(strcmp(k, base) != 0);
	key_of(&r, "x86_64", "src 2", "gcc 12", 1, k);
	CHECK(strcmp(k, base) != 0);
	key_of(&r, "x86_64", "src 1", "gcc 13", 1, k);
	CHECK(strcmp(k, base) != 0);
	key_of(&r, "x86_64", "src 1", "gcc 12", 0, cfg);
	CHECK(strcmp(cfg, base) != 0);

	put("kernels/patches/p2.patch", "two, rebased\n");  /* patch content */
	CHECK_INT(load("k", &r), 0);
	key_of(&r, "x86_64", "src 1", "gcc 12", 1, k);
	CHECK(strcmp(k, base) != 0);
	key_of(&r, "x86_64", "src 1", "gcc 12", 0, cfg2);
	CHECK_STR(cfg2, cfg);                                 /* patches only: same work tree */

	put("kernels/recipes/k.recipe", "source pinned linux-7.2\nconfig lab\npatch p2.patch\npatch p1.patch\n");
	CHECK_INT(load("k", &r), 0);
	key_of(&r, "x86_64", "src 1", "gcc 12", 1, base);
	put("kernels/patches/p2.patch", "two\n");
	CHECK_INT(load("k", &r), 0);
	key_of(&r, "x86_64", "src 1", "gcc 12", 1, k);      /* order matters */
	CHECK(strcmp(k, base) != 0);

	put("kernels/config/lab-x86_64.config", "CONFIG_X86_64_ACPI_NUMA=y\nCONFIG_HMEM_REPORTING=y\n");
	key_of(&r, "x86_64", "src 1", "gcc 12", 0, cfg2);    /* an arch fragment's content */
	CHECK(strcmp(cfg2, cfg) != 0);
	key_of(&r, "loongarch64", "src 1", "gcc 12", 0, k);
	CHECK_INT(load("k+debug", &r), 0);                   /* an extra fragment */
	key_of(&r, "loongarch64", "src 1", "gcc 12", 0, cfg);
	CHECK(strcmp(k, cfg) != 0);
}

UNIT_TEST(missing_files_are_named)
{
	struct recipe r;
	struct error err;

	put("kernels/recipes/m.recipe", "source pinned linux-7.2\nconfig lab\npatch nope.patch\n");
	CHECK_INT(recipe_load(root, "m", &r, &err), -1);
	CHECK(strstr(err.msg, "m.recipe:3: patch") != NULL);
	CHECK(strstr(err.msg, "nope.patch") != NULL);
	CHECK_INT(recipe_load(root, "k+nofrag", &r, &err), -1);
	CHECK(strstr(err.msg, "kernels/config/nofrag.config does not exist") != NULL);
	CHECK_INT(recipe_load(root, "absent", &r, &err), 1);
}

/* A real `patch` run: the failing patch is named with its file and hunk, nothing is built. */
UNIT_TEST(patch_that_does_not_apply)
{
	struct kernel k;
	struct error err;
	char cache[600], tarball[600], tree[600];
	const char *tar_argv[] = { "tar", "-cf", tarball, "-C", tree, "linux", NULL };

	snprintf(cache, sizeof(cache), "%s/cache", root);
	snprintf(tree, sizeof(tree), "%s/tree", root);
	snprintf(tarball, sizeof(tarball), "%s/linux.tar", root);
	put("tree/linux/mm/mempolicy.c", "int a;\nint b;\nint c;\n");
	CHECK_INT(proc_run(tar_argv, NULL, 30, &err), 0);
	put("kernels/patches/good.patch",
	    "--- a/mm/mempolicy.c\n+++ b/mm/mempolicy.c\n@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int bb;\n int c;\n");
	put("kernels/patches/bad.patch",
	    "--- a/mm/mempolicy.c\n+++ b/mm/mempolicy.c\n@@ -1,3 +1,3 @@\n int x;\n-int y;\n+int z;\n int w;\n");
	put("kernels/recipes/t.recipe", "source tarball ../../linux.tar\nconfig lab\n"
	    "patch good.patch\npatch bad.patch\n");
	setenv("NUMALAB_CACHE", cache, 1);
	CHECK_INT(kbuild_kernel(root, "t", "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "t.recipe:4: patch bad.patch does not apply") != NULL);
	CHECK(strstr(err.msg, "mm/mempolicy.c hunk #1 (@@ -1,3 +1,3 @@) FAILED at line 1") != NULL);
	if (!strstr(err.msg, "hunk #1"))
		printf("#   got: %s\n", err.msg);
	/* The good patch stays applied, as the work tree's record says. */
	put("kernels/recipes/t.recipe", "source tarball ../../linux.tar\nconfig lab\npatch bad.patch\n");
	CHECK_INT(kbuild_kernel(root, "t", "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "t.recipe:3: patch bad.patch") != NULL);
}

/* The tree's listing, to show it was never written. */
static void tree_listing(const char *tree, char hex[65])
{
	struct error err;

	CHECK_INT(srctree_manifest(tree, hex, &err), 0);
}

/*
 * --patch on a kernel tree (kbuild_kernel_request): a quoted patch that does
 * not apply names the file, its subject and the hunk; one that applies goes
 * onto the lab's mirror, not the tree (the fake tree then fails to
 * configure: a harness error, not the user's); a tree configured in place is
 * the user's to clean.
 */
UNIT_TEST(patches_on_a_tree_go_onto_the_mirror_only)
{
	char *tree = xprintf("%s/ktree", root), *mirror = xprintf("%s/cache/kbuild", root);
	const char *bad[] = { NULL }, *good[] = { NULL };
	struct kernel_request req = { "stock", bad, 1 };
	char before[65], after[65], *path, *cache = xprintf("%s/cache", root);
	struct buf text = BUF_INIT;
	struct kernel k;
	struct error err;
	glob_t g;

	put("kernels/config/lab.config", "CONFIG_NUMA=y\n");
	put("kernels/recipes/stock.recipe", "source pinned linux-7.2\nconfig lab\n");
	put("ktree/Makefile", "all:\n\tfalse\n");
	put("ktree/Kconfig", "");
	put("ktree/arch/x86/Kconfig", "");
	put("ktree/scripts/kconfig/Makefile", "");
	put("ktree/mm/mempolicy.c", "int a;\nint b;\nint c;\n");
	put("bad.mail", "Re: [PATCH] mm: rename y\n\n>> diff --git a/mm/mempolicy.c b/mm/mempolicy.c\n"
	    ">> --- a/mm/mempolicy.c\n>> +++ b/mm/mempolicy.c\n>> @@ -1,3 +1,3 @@ struct s {\n>>  int x;\n"
	    "> Why?\n>> -int y;\n>> +int z;\n>>  int w;\n");
	put("good.mail", "Re: [PATCH] mm: rename b\n\n> --- a/mm/mempolicy.c\n> +++ b/mm/mempolicy.c\n"
	    "> @@ -1,3 +1,3 @@\n>  int a;\n> -int b;\n> +int bb;\n>  int c;\n");
	bad[0] = xprintf("%s/bad.mail", root);
	good[0] = xprintf("%s/good.mail", root);
	setenv("NUMALAB_CACHE", cache, 1);
	tree_listing(tree, before);

	CHECK_INT(kbuild_kernel_request(root, &req, tree, "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "bad.mail: \"mm: rename y\" does not apply") != NULL);
	CHECK(strstr(err.msg, "mm/mempolicy.c hunk #1 (@@ -1,3 +1,3 @@ struct s {) FAILED") != NULL);
	CHECK(strstr(err.msg, "needs porting to this base") != NULL);
	if (!strstr(err.msg, "hunk #1"))
		printf("#   got: %s\n", err.msg);

	req.patches = good;
	CHECK_INT(kbuild_kernel_request(root, &req, tree, "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_HARNESS);
	path = xprintf("%s/x86_64-*/src/mm/mempolicy.c", mirror);
	CHECK_INT(glob(path, 0, NULL, &g), 0);
	if (g.gl_pathc == 1 && !read_file(g.gl_pathv[0], &text, &err))
		CHECK_STR(buf_str(&text), "int a;\nint bb;\nint c;\n");
	tree_listing(tree, after);
	CHECK_STR(after, before);

	put("ktree/.config", "CONFIG_NUMA=y\n");
	CHECK_INT(kbuild_kernel_request(root, &req, tree, "x86_64", &k, &err), -1);
	CHECK_INT(err.kind, ERROR_INPUT);
	CHECK(strstr(err.msg, "mrproper") != NULL);
	globfree(&g);
	buf_free(&text);
	free(path);
	free(tree);
	free(mirror);
	free(cache);
	free((char *)bad[0]);
	free((char *)good[0]);
}

static void cleanup(void)
{
	remove_tree(root);
}

int main(void)
{
	struct unit_case cases[] = {
		UNIT_CASE(parse_pinned_with_series),
		UNIT_CASE(parse_git_and_tarball_are_relative_to_the_recipe),
		UNIT_CASE(parse_errors_name_file_and_line),
		UNIT_CASE(spec_with_fragments),
		UNIT_CASE(keys_change_with_every_input),
		UNIT_CASE(missing_files_are_named),
		UNIT_CASE(patch_that_does_not_apply),
		UNIT_CASE(patches_on_a_tree_go_onto_the_mirror_only),
	};

	root = unit_scratch("recipe");
	atexit(cleanup);
	return unit_run(__FILE__, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
