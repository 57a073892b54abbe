#include "kernel/resolve.h"
#include "kernel/kbuild.h"
#include "kernel/pin.h"
#include "model/recipe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A kernel image the user named: whatever is wrong with it is theirs to fix. */
static int resolve_file(const char *spec, const char *arch, struct kernel *out,
			struct error *err)
{
	char abs[PATH_MAX], hex[65];

	if (!realpath(spec, abs))
		return error_input(err, "kernel image %s: %s; give a path to a kernel image or a "
				   "name from " KERNEL_LOCK_FILE, spec, strerror(errno));
	if (kernel_check_image(abs, arch, err) || sha256_file(abs, hex, err))
		return error_as_input(err);
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "file");
	snprintf(out->arch, sizeof(out->arch), "%s", arch);
	snprintf(out->path, sizeof(out->path), "%s", abs);
	snprintf(out->source, sizeof(out->source), "file:%.400s sha256:%s", abs, hex);
	return 0;
}

static int unknown_kernel(const struct kernel_lock *lock, const char *name, const char *arch,
			  int is_default, struct error *err)
{
	char names[512] = "";

	if (is_default)
		return error_input(err, KERNEL_LOCK_FILE " pins no '%s' kernel for %s; add one "
				   "(docs/kernels.md) or give --kernel PATH", name, arch);
	for (int i = 0; i < lock->nr; i++)
		if (!strcmp(lock->pins[i].arch, arch) && !pin_is_companion(&lock->pins[i]))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 names[0] ? ", " : "", lock->pins[i].name);
	return error_input(err, "unknown kernel '%s': not a file, a %s name in " KERNEL_LOCK_FILE
			   " (%s) or a recipe in " RECIPE_DIR "/; give a path to a kernel image, "
			   "one of those names or a recipe name", name, arch, names[0] ? names : "there are none");
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Patches go onto kernels built from source only. */
static int not_from_source(const struct kernel_request *req, const char *what, struct error *err)
{
	return error_input(err, "--patch %s: %s is not built from source, so there is nothing to patch; "
			   "use --kernel stock (Debian's 7.2.13 source with the lab's config), another "
			   "recipe, or a kernel source tree", req->patches[0], what);
}

int kernel_resolve_request(const char *root, const struct kernel_request *req, const char *arch,
			   struct kernel *out, struct error *err)
{
	const char *spec = req->spec;
	struct kernel_lock *lock;
	const struct kernel_pin *pin;
	int is_default = !spec || !*spec, rc;

	if (!arch || !kernel_arch_known(arch))
		return error_set(err, "internal: unknown kernel arch '%s'", arch ? arch : "(null)");
	if (!is_default && is_dir(spec))
		return kbuild_kernel_request(root, req, spec, arch, out, err);
	if (!is_default && strchr(spec, '/') && req->nr_patches)
		return not_from_source(req, spec, err);
	if (!is_default && strchr(spec, '/'))
		return resolve_file(spec, arch, out, err);
	lock = xmalloc(sizeof(*lock));
	rc = pin_load(root, KERNEL_LOCK_FILE, lock, err);
	if (!rc) {
		pin = kernel_lock_find(lock, is_default ? KERNEL_DEFAULT_NAME : spec, arch);
		if (pin && !pin_is_companion(pin) && req->nr_patches)
			rc = not_from_source(req, "the pinned Debian kernel", err);
		else if (pin && !pin_is_companion(pin))
			rc = pin_fetch_kernel(pin, out, err);
		else if (!is_default && kbuild_has_recipe(root, spec))
			rc = kbuild_kernel_request(root, req, NULL, arch, out, err);
		else if (!is_default && file_exists(spec) && req->nr_patches)
			rc = not_from_source(req, spec, err);
		else if (!is_default && file_exists(spec))
			rc = resolve_file(spec, arch, out, err);
		else
			rc = unknown_kernel(lock, is_default ? KERNEL_DEFAULT_NAME : spec, arch,
					    is_default, err);
	}
	free(lock);
	return rc;
}

int kernel_resolve_in(const char *root, const char *spec, const char *arch,
		      struct kernel *out, struct error *err)
{
	struct kernel_request req = { spec, NULL, 0 };

	return kernel_resolve_request(root, &req, arch, out, err);
}

int kernel_resolve(const char *spec, const char *arch, struct kernel *out, struct error *err)
{
	return kernel_resolve_in(lab_root(), spec, arch, out, err);
}
