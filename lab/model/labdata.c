#include "model/labdata.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

void lab_data_path(const char *root, enum lab_data kind, const char *arg, char *out, size_t cap)
{
	static const char *const folder[] = {
		[LAB_DATA_TOPOLOGY] = "topologies/%s.topo",
		[LAB_DATA_MATRIX] = "matrices/%s.matrix",
	};
	char name[4096];

	if (strchr(arg, '/') || file_exists(arg)) {
		snprintf(out, cap, "%s", arg);
		return;
	}
	snprintf(name, sizeof(name), folder[kind], arg);
	snprintf(out, cap, "%s/%s", root, name);
}
