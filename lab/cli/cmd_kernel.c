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

static const char build_usage[] =
	"usage: numalab kernel build RECIPE[+FRAG...]|DIR [--patch FILE]... [--arch ARCH]\n"
	"\n"
	"Build the kernel of kernels/recipes/RECIPE.recipe for ARCH, or find it\n"
	"already built under the same key; print the image's path.  +FRAG adds\n"
	"kernels/config/FRAG.config (e.g. stock+debug).  DIR: a kernel source\n"
	"tree, built as it is with stock's config, out of tree in the cache; DIR is\n"
	"only read (docs/byo.md).\n"
	"\n";

static const char key_usage[] =
	"usage: numalab kernel key RECIPE[+FRAG...] [--arch ARCH]\n"
	"\n"
	"Print the build key of RECIPE and the inputs it hashes, building nothing.\n"
	"\n";

static const char git_tree_usage[] =
	"usage: numalab kernel git-tree OUT [--source NAME|TARBALL] [PATCH...]\n"
	"\n"
	"Make the git tree OUT from a source tarball and a patch series, one commit\n"
	"per PATCH (tag `base` on the source), e.g. to bisect without a network.\n"
	"\n";

static const char fetch_usage[] =
	"usage: numalab kernel fetch NAME [--arch ARCH]\n"
	"\n"
	"Fetch the package pinned as NAME in kernels/prebuilt.lock into the cache\n"
	"unless it is there (from the mirror, else snapshot.debian.org or\n"
	"$NUMALAB_SNAPSHOT); print its path and where it came from.\n"
	"\n";

static const char kernel_usage[] =
	"usage: numalab kernel build RECIPE[+FRAG...]|DIR [--patch FILE]... [--arch ARCH]\n"
	"       numalab kernel key RECIPE[+FRAG...] [--arch ARCH]\n"
	"       numalab kernel git-tree OUT [--source NAME|TARBALL] [PATCH...]\n"
	"       numalab kernel fetch NAME [--arch ARCH]\n"
	"\n"
	"Recipes, fragments and the cache: docs/kernels.md.\n"
	"`numalab kernel SUBCOMMAND --help` says more.\n"
	"\n";

static const char build_tail[] =
	"\n"
	"Exit: 0 built (or found built), 2 bad recipe, fragment or patch, 3 the build\n"
	"failed or was interrupted.\n";

static const char key_tail[] = "\nExit: 0 printed, 2 bad recipe or fragment.\n";

static const char git_tree_tail[] =
	"\n"
	"Exit: 0 made, 2 bad source, OUT exists or a patch does not apply, 3 git or\n"
	"tar failed, or interrupted.\n";

static const char fetch_tail[] =
	"\n"
	"Exit: 0 fetched (or cached), 2 no such pin, or one neither the mirror nor the\n"
	"snapshot archive serves any more, 3 the fetch failed or was interrupted.\n";

static const char kernel_tail[] =
	"\n"
	"Exit: 0 done, 2 bad usage or input, 3 the lab failed or was interrupted.\n";

/* The options' values: one command line per process. */
static const char *opt_arch = "x86_64", *opt_source = "linux-7.2";
static struct strvec opt_patches = STRVEC_INIT;

#define ARCH_OPT \
	OPT_CHOICE("arch", &opt_arch, "ARCH", "x86_64|loongarch64|loongarch", \
		   "x86_64 (default) or loongarch64 (also: loongarch)")

static const struct opt build_opts[] = {
	ARCH_OPT,
	OPT_LIST("patch", &opt_patches, "FILE", "FILE's patches on top (repeatable; docs/byo.md)"),
	OPT_END,
};
static const struct opt arch_opts[] = { ARCH_OPT, OPT_END };
static const struct opt git_tree_opts[] = {
	OPT_STRING("source", &opt_source, "S",
		   "a name pinned in kernels/prebuilt.lock (default:\nlinux-7.2) or a .tar[.gz|.xz] file"),
	OPT_END,
};

static const struct opt_spec build_spec = { .name = "kernel build", .usage = build_usage, .opts = build_opts,
					    .tail = build_tail };
static const struct opt_spec key_spec = { .name = "kernel key", .usage = key_usage, .opts = arch_opts,
					  .tail = key_tail };
static const struct opt_spec git_tree_spec = { .name = "kernel git-tree", .usage = git_tree_usage,
					       .opts = git_tree_opts, .tail = git_tree_tail };
static const struct opt_spec fetch_spec = { .name = "kernel fetch", .usage = fetch_usage, .opts = arch_opts,
					    .tail = fetch_tail };

/* The subcommand the command line names. */
static const struct opt_spec *chosen;

static const struct opt kernel_opts[] = {
	OPT_SUBCOMMAND("build", &chosen, &build_spec, "build a kernel from a recipe or a source tree"),
	OPT_SUBCOMMAND("key", &chosen, &key_spec, "show a recipe's build key and what it hashes"),
	OPT_SUBCOMMAND("git-tree", &chosen, &git_tree_spec, "a git tree from a source and a patch series"),
	OPT_SUBCOMMAND("fetch", &chosen, &fetch_spec, "fetch a pinned Debian kernel package"),
	OPT_END,
};

const struct opt_spec kernel_spec = { .name = "kernel", .usage = kernel_usage, .opts = kernel_opts,
				      .tail = kernel_tail };

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int exit_code(int rc, struct error *err)
{
	return rc ? command_fail(chosen->name, err) : EXIT_PASS;
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

/* A recipe's name, checked: RECIPE[+FRAG...], no paths: -1 when good, else the exit code. */
static int check_recipe(const char *spec)
{
	if (strchr(spec, '/'))
		return command_usage_error(chosen->name, "'%s': give names (kernels/recipes/NAME.recipe, "
					   "+kernels/config/NAME.config), not paths", spec);
	if (!kbuild_has_recipe(lab_root(), spec))
		return command_usage_error(chosen->name, "no recipe %s/%.*s.recipe", RECIPE_DIR,
					   (int)strcspn(spec, "+"), spec);
	return -1;
}

/* The subcommand chosen, with its n operands args. */
static int kernel_command(int n, char **args, const char *kernel_arch)
{
	int rc;

	if (chosen == &git_tree_spec) {
		if (n < 1)
			return command_usage_error(chosen->name, "give OUT, e.g. `git-tree /tmp/linux`");
		interrupt_catch();
		return git_tree(opt_source, args, n);
	}
	if (n != 1)
		return command_usage_error(chosen->name, "give one %s", chosen == &fetch_spec ?
					   "NAME (a line of " KERNEL_LOCK_FILE ")" :
					   chosen == &key_spec ? "RECIPE" : "RECIPE or DIR");
	if (chosen == &fetch_spec) {
		interrupt_catch();
		return fetch(args[0], kernel_arch);
	}
	for (size_t i = 0; i < opt_patches.nr; i++)
		if (access(opt_patches.items[i], R_OK))
			return command_usage_error(chosen->name, "--patch %s: %s", opt_patches.items[i],
						   strerror(errno));
	if ((chosen == &key_spec || !is_dir(args[0])) && (rc = check_recipe(args[0])) >= 0)
		return rc;
	interrupt_catch();
	return chosen == &build_spec ? build(args[0], kernel_arch, &opt_patches) : key(args[0], kernel_arch);
}

int cmd_kernel(int argc, char **argv)
{
	int rc, first;

	if ((rc = command_options(&kernel_spec, argc, argv, &first)) < 0)
		rc = kernel_command(argc - first, argv + first,
				    !strcmp(opt_arch, "loongarch") ? "loongarch64" : opt_arch);
	strvec_clear(&opt_patches);
	return rc;
}
