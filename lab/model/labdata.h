/*
 * labdata: where the project's data files are, from the name a user gives,
 * and which names there are.
 *
 * Topologies and matrices are named the same way on every command line
 * (`--topo 2node`, `numalab matrix smoke`, `topology 2node` in a matrix
 * file): an argument with a '/', or one naming an existing file, is that
 * file; any other is NAME in the project's folder for the kind.  Guest
 * suites (`--tests`, `suite` in a matrix, `--suites`) are always names: the
 * folders of tests/guest/suites/.  A NAME the project does not ship is the
 * user's error, and its message lists the names that are: "unknown
 * topology 'x'; known: 2node, 4node, ...; or give a .topo file".  Kernel
 * recipes are not resolved here: a recipe is always a name (recipe.h).
 */
#ifndef LAB_LABDATA_H
#define LAB_LABDATA_H

#include <stddef.h>

#include "base/util.h"
#include "model/topology.h"

enum lab_data {
	LAB_DATA_TOPOLOGY,   /* topologies/NAME.topo */
	LAB_DATA_MATRIX,     /* matrices/NAME.matrix */
	LAB_DATA_SUITE,      /* tests/guest/suites/NAME/ (a name only, never a path) */
};

/*
 * The file (a suite: the folder) arg stands for, into out (cap bytes),
 * under root (the project, lab_root()).  0; or -1 with err (ERROR_INPUT)
 * when arg is a NAME the project has none of, listing those it has.  A path
 * is not checked: a file that does not exist is for its parser to report,
 * which names it.
 */
int lab_data_find(const char *root, enum lab_data kind, const char *arg, char *out, size_t cap,
		  struct error *err) LAB_MUST_CHECK;

/* The NAMEs of kind the project ships under root, sorted, pushed onto names. */
void lab_data_names(const char *root, enum lab_data kind, struct strvec *names);

/*
 * lab_data_find() and topo_load(): the topology arg stands for into *topo.
 * 0, or -1 with err (ERROR_INPUT): the unknown name, or the parser's
 * "FILE:LINE: what; fix".
 */
int lab_topology_load(const char *root, const char *arg, struct topology *topo, struct error *err) LAB_MUST_CHECK;

#endif
