/* numalab kernel: build kernels from recipes, or show what a build's key is made of. */
#include "cli/command.h"
#include "cli/options.h"
#include "kernel/gittree.h"
#include "kernel/kbuild.h"
#include "kernel/pin.h"
#include "base/interrupt.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: numalab kernel build RECIPE[+FRAGMENT...]|DIR [--patch FILE]... [--arch ARCH]\n"
	"       numalab kernel key RECIPE[+FRAGMENT...] [--arch ARCH]\n"
	"       numalab kernel git-tree OUT [--source NAME|TARBALL] [PATCH...]\n"
	"       numalab kernel fetch NAME [--arch ARCH]\n"
	"\n"
	"build: build the kernel of kernels/recipes/RECIPE.recipe for ARCH, or find\n"
	"       it already built under the same key; print the image's path.\n"
	"       +FRAGMENT adds kernels/config/FRAGMENT.config (e.g. stock+debug).\n"
	"       DIR: a kernel source tree, built as it is with stock's config,\n"
	"       out of tree in the cache; DIR is only read (docs/byo.md).\n"
	"key:   print the build key and the inputs it hashes, building nothing.\n"
	"git-tree: make the git tree OUT from a source tarball and a patch series,\n"
	"       one commit per patch (tag `base` on the source), e.g. to bisect\n"
	"       without a network.\n"
	"fetch: fetch the package pinned as NAME in kernels/prebuilt.lock into the\n"
	"       cache unless it is there (from the mirror, else snapshot.debian.org\n"
	"       or $NUMALAB_SNAPSHOT); print its path and where it came from.\n"
	"\n";

static const char tail[] =
	"\n"
	"Recipes, fragments and the cache: docs/kernels.md.\n"
	"Exit: 0 done, 2 bad recipe, fragment or patch, 3 the build failed.\n";

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int exit_code(int rc, struct error *err)
{
	return rc ? command_fail("kernel", err) : EXIT_PASS;
}

static int build(const char *spec, const char *arch, struct strvec *patches)
{
	struct kernel_request req = { spec, strvec_argv(patches), (int)patches->nr };
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

static int fetch(const char *name, const char *arch)
{
	struct kernel_lock *lock = xmalloc(sizeof(*lock));
	const struct kernel_pin *pin;
	struct kernel k;
	struct error err;
	int rc = pin_load(lab_root(), KERNEL_LOCK_FILE, lock, &err);

	if (!rc && !(pin = kernel_lock_find(lock, name, arch)))
		rc = error_input(&err, KERNEL_LOCK_FILE ": no '%s' pinned for %s; see docs/kernels.md",
				 name, arch);
	if (!rc && !(rc = pin_fetch_kernel(pin, &k, &err)))
		printf("%s\norigin: %s\n", k.path, k.origin);
	free(lock);
	return exit_code(rc, &err);
}

/* args: the operands (build SPEC, key SPEC, git-tree OUT [PATCH...]). */
static int kernel_command(int n, char **args, const char *arch, const char *source, struct strvec *patches)
{
	for (size_t i = 0; i < patches->nr; i++)
		if (access(patches->items[i], R_OK))
			return command_usage_error("kernel", "--patch %s: %s", patches->items[i], strerror(errno));
	if (n && !strcmp(args[0], "git-tree")) {
		if (n < 2)
			return command_usage_error("kernel", "git-tree needs OUT, e.g. `git-tree /tmp/linux`");
		interrupt_catch();
		return git_tree(source, args + 1, n - 1);
	}
	if (n == 2 && !strcmp(args[0], "fetch")) {
		interrupt_catch();
		return fetch(args[1], arch);
	}
	if (n != 2 || (strcmp(args[0], "build") && strcmp(args[0], "key")))
		return command_usage_error("kernel", "give `build RECIPE`, `key RECIPE` or `fetch NAME`");
	if (!strcmp(args[0], "build") && is_dir(args[1])) {
		interrupt_catch();
		return build(args[1], arch, patches);
	}
	if (strchr(args[1], '/'))
		return command_usage_error("kernel", "'%s': give names (kernels/recipes/NAME.recipe, "
					   "+kernels/config/NAME.config), not paths", args[1]);
	if (!kbuild_has_recipe(lab_root(), args[1]))
		return command_usage_error("kernel", "no recipe %s/%.*s.recipe", RECIPE_DIR,
					   (int)strcspn(args[1], "+"), args[1]);
	interrupt_catch();
	return !strcmp(args[0], "build") ? build(args[1], arch, patches) : key(args[1], arch);
}

int cmd_kernel(int argc, char **argv)
{
	const char *arch = "x86_64", *source = "linux-7.2";
	struct strvec patches = STRVEC_INIT;
	int rc, first;
	const struct opt opts[] = {
		OPT_CHOICE("arch", &arch, "ARCH", "x86_64|loongarch64|loongarch",
			   "x86_64 (default) or loongarch64 (also: loongarch)"),
		OPT_LIST("patch", &patches, "FILE", "build: FILE's patches on top (repeatable; docs/byo.md)"),
		OPT_STRING("source", &source, "S",
			   "git-tree's source: a name pinned in kernels/prebuilt.lock\n"
			   "(default: linux-7.2) or a .tar[.gz|.xz] file"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "kernel", .usage = usage, .opts = opts, .tail = tail };

	if ((rc = command_options(&spec, argc, argv, &first)) < 0)
		rc = kernel_command(argc - first, argv + first, !strcmp(arch, "loongarch") ? "loongarch64" : arch,
				    source, &patches);
	strvec_clear(&patches);
	return rc;
}
