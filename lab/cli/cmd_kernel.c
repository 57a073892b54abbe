/* numalab kernel: build kernels from recipes, or show what a build's key is made of. */
#include "cli/command.h"
#include "kernel/gittree.h"
#include "kernel/kbuild.h"
#include "base/interrupt.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

static const char help[] =
	"usage: numalab kernel build RECIPE[+FRAGMENT...]|DIR [--patch FILE]... [--arch ARCH]\n"
	"       numalab kernel key RECIPE[+FRAGMENT...] [--arch ARCH]\n"
	"       numalab kernel git-tree OUT [--source NAME|TARBALL] [PATCH...]\n"
	"\n"
	"build: build the kernel of kernels/recipes/RECIPE.recipe for ARCH, or find\n"
	"       it already built under the same key; print the image's path.\n"
	"       +FRAGMENT adds kernels/config/FRAGMENT.config (e.g. stock+debug).\n"
	"       DIR: a kernel source tree, built as it is with stock's config,\n"
	"       out of tree in the cache; DIR is only read (docs/byo.md).\n"
	"       --patch FILE: FILE's patches on top (repeatable; docs/byo.md).\n"
	"key:   print the build key and the inputs it hashes, building nothing.\n"
	"git-tree: make the git tree OUT from a source tarball and a patch series,\n"
	"       one commit per patch (tag `base` on the source), e.g. to bisect\n"
	"       without a network.\n"
	"\n"
	"  --arch ARCH  x86_64 (default) or loongarch64 (also: loongarch)\n"
	"  --source S   git-tree's source: a name pinned in kernels/prebuilt.lock\n"
	"               (default: linux-7.2) or a .tar[.gz|.xz] file\n"
	"\n"
	"Recipes, fragments and the cache: docs/kernels.md.\n"
	"Exit: 0 done, 2 bad recipe, fragment or patch, 3 the build failed.\n";

static const struct option options[] = {
	{ "arch", required_argument, NULL, 'a' },
	{ "source", required_argument, NULL, 's' },
	{ "patch", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int exit_code(int rc, struct error *err)
{
	if (!rc)
		return EXIT_PASS;
	fprintf(stderr, "numalab kernel: %s\n", err->msg);
	return err->kind == ERROR_INPUT ? EXIT_USAGE : EXIT_HARNESS;
}

static int build(const char *spec, const char *arch, const char *const *patches, int nr_patches)
{
	struct kernel_request req = { spec, patches, nr_patches };
	struct kernel k;
	struct error err;
	int rc = kbuild_kernel_request(lab_root(), &req, is_dir(spec) ? spec : NULL, arch, &k, &err);

	if (!rc)
		printf("%s\n", k.path);
	return exit_code(rc, &err);
}

static int key(const char *spec, const char *arch)
{
	struct buf text = BUF_INIT;
	struct error err;
	char hex[17];
	int rc = kbuild_explain(lab_root(), spec, arch, hex, &text, &err);

	if (!rc)
		printf("key: %s\n%s", hex, buf_str(&text));
	buf_free(&text);
	return exit_code(rc, &err);
}

static int git_tree(const char *source, char **args, int n)
{
	struct error err;
	int rc = gittree_make(lab_root(), source, (const char *const *)args + 1, n - 1, args[0], &err);

	if (!rc)
		printf("%s\n", args[0]);
	return exit_code(rc, &err);
}

int cmd_kernel(int argc, char **argv)
{
	const char *arch = "x86_64", *source = "linux-7.2";
	static const char *patches[64];
	int c, nr_patches = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'a':
			arch = !strcmp(optarg, "loongarch") ? "loongarch64" : optarg;
			if (strcmp(arch, "x86_64") && strcmp(arch, "loongarch64"))
				return command_usage_error("kernel", "--arch %s: use x86_64 or loongarch64", optarg);
			break;
		case 's': source = optarg; break;
		case 'p':
			if (nr_patches == (int)(sizeof(patches) / sizeof(patches[0])))
				return command_usage_error("kernel", "more than %d --patch files", nr_patches);
			if (access(optarg, R_OK))
				return command_usage_error("kernel", "--patch %s: %s", optarg, strerror(errno));
			patches[nr_patches++] = optarg;
			break;
		case 'h': return command_help(help);
		default:
			return command_usage_error("kernel", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && !strcmp(argv[optind], "git-tree")) {
		if (argc - optind < 2)
			return command_usage_error("kernel", "git-tree needs OUT, e.g. `git-tree /tmp/linux`");
		interrupt_catch();
		return git_tree(source, argv + optind + 1, argc - optind - 1);
	}
	if (argc - optind != 2 || (strcmp(argv[optind], "build") && strcmp(argv[optind], "key")))
		return command_usage_error("kernel", "give `build RECIPE` or `key RECIPE`");
	if (!strcmp(argv[optind], "build") && is_dir(argv[optind + 1])) {
		interrupt_catch();
		return build(argv[optind + 1], arch, patches, nr_patches);
	}
	if (strchr(argv[optind + 1], '/'))
		return command_usage_error("kernel", "'%s': give names (kernels/recipes/NAME.recipe, "
					   "+kernels/config/NAME.config), not paths", argv[optind + 1]);
	if (!kbuild_has_recipe(lab_root(), argv[optind + 1]))
		return command_usage_error("kernel", "no recipe %s/%.*s.recipe", RECIPE_DIR,
					   (int)strcspn(argv[optind + 1], "+"), argv[optind + 1]);
	interrupt_catch();
	return !strcmp(argv[optind], "build") ? build(argv[optind + 1], arch, patches, nr_patches) :
	       key(argv[optind + 1], arch);
}
