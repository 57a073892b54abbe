/* The kernel recipe parser over any text: an error or a recipe, never a crash. */
#include "fuzz.h"
#include "model/recipe.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct recipe r;
	struct error err;

	memset(&err, 0, sizeof(err));
	if (recipe_parse("fuzz.recipe", (const char *)data, size, ".", &r, &err)) {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
		return 0;
	}
	FUZZ_CHECK(r.nr_configs >= 0 && r.nr_configs <= RECIPE_MAX_CONFIGS);
	FUZZ_CHECK(r.nr_patches >= 0 && r.nr_patches <= RECIPE_MAX_PATCHES);
	return 0;
}
