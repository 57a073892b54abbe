#include "base/dynlib.h"

#include <dlfcn.h>

int dynlib_open(void **handle, const char *soname, const char *package, struct error *err)
{
	const char *why;

	if (*handle)
		return 0;
	*handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (*handle)
		return 0;
	why = dlerror();
	return error_set(err, "cannot load %s (%s); install %s (`make setup` does)", soname,
			 why ? why : "not found", package);
}

int dynlib_symbol(void *handle, const char *name, void **slot, struct error *err)
{
	*slot = dlsym(handle, name);
	if (*slot)
		return 0;
	return error_set(err, "%s is missing from the loaded library (an older version?); "
			 "`make setup` installs the one numalab was built against", name);
}
