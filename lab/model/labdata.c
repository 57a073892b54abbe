#include "model/labdata.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kind {
	const char *what;     /* "topology": the error's word */
	const char *folder;   /* under the project root */
	const char *suffix;   /* of a NAME's file; "": a folder */
	const char *or_file;  /* the error's last words: the other way to name one */
};

static const struct kind kinds[] = {
	[LAB_DATA_TOPOLOGY] = { "topology", "topologies", ".topo", "; or give a .topo file (docs/topology.md)" },
	[LAB_DATA_MATRIX] = { "matrix", "matrices", ".matrix", "; or give a .matrix file (docs/matrix.md)" },
	[LAB_DATA_SUITE] = { "suite", "tests/guest/suites", "", "" },
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void lab_data_names(const char *root, enum lab_data kind, struct strvec *names)
{
	const struct kind *k = &kinds[kind];
	char *dir = xprintf("%s/%s", root, k->folder);
	size_t first = names->nr, slen = strlen(k->suffix);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *path;
		struct stat st;
		int is_dir;

		if (e->d_name[0] == '.' || len <= slen || strcmp(e->d_name + len - slen, k->suffix))
			continue;
		path = xprintf("%s/%s", dir, e->d_name);
		is_dir = !stat(path, &st) && S_ISDIR(st.st_mode);
		free(path);
		if (is_dir == (kind == LAB_DATA_SUITE))
			strvec_pushf(names, "%.*s", (int)(len - slen), e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	if (names->nr > first)
		qsort(names->items + first, names->nr - first, sizeof(*names->items), cmp_str);
}

static int unknown(const char *root, enum lab_data kind, const char *arg, struct error *err)
{
	struct strvec names = STRVEC_INIT;
	struct buf known = BUF_INIT;

	lab_data_names(root, kind, &names);
	for (size_t i = 0; i < names.nr; i++)
		buf_addf(&known, "%s%s", i ? ", " : "", names.items[i]);
	error_input(err, "unknown %s '%s'; known: %s%s", kinds[kind].what, arg,
		    names.nr ? buf_str(&known) : "none", kinds[kind].or_file);
	buf_free(&known);
	strvec_clear(&names);
	return -1;
}

int lab_data_find(const char *root, enum lab_data kind, const char *arg, char *out, size_t cap,
		  struct error *err)
{
	const struct kind *k = &kinds[kind];
	struct stat st;

	if (kind != LAB_DATA_SUITE && (strchr(arg, '/') || file_exists(arg))) {
		snprintf(out, cap, "%s", arg);
		return 0;
	}
	/* A suite's NAME is a folder, the others' a file. */
	if (!*arg || strchr(arg, '/') || (size_t)snprintf(out, cap, "%s/%s/%s%s", root, k->folder, arg, k->suffix) >= cap ||
	    stat(out, &st) || S_ISDIR(st.st_mode) != (kind == LAB_DATA_SUITE))
		return unknown(root, kind, arg, err);
	return 0;
}

int lab_topology_load(const char *root, const char *arg, struct topology *topo, struct error *err)
{
	char path[4096];
	struct topo_error terr;

	if (lab_data_find(root, LAB_DATA_TOPOLOGY, arg, path, sizeof(path), err))
		return -1;
	if (topo_load(path, topo, &terr))
		return error_input(err, "%s", terr.msg);
	return 0;
}
