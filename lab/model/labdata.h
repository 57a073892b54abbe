/*
 * labdata: where the project's data files are, from the name a user gives.
 *
 * Topologies and matrices are named the same way on every command line
 * (`--topo 2node`, `numalab matrix smoke`, `topology 2node` in a matrix
 * file): an argument with a '/', or one naming an existing file, is that
 * file; any other is NAME in the project's folder for the kind.  Kernel
 * recipes are not resolved here: a recipe is always a name (recipe.h).
 */
#ifndef LAB_LABDATA_H
#define LAB_LABDATA_H

#include <stddef.h>

enum lab_data {
	LAB_DATA_TOPOLOGY,   /* topologies/NAME.topo */
	LAB_DATA_MATRIX,     /* matrices/NAME.matrix */
};

/*
 * The file arg stands for, into out (cap bytes), under root (the project,
 * lab_root()).  Pure but for one stat of arg; never fails: a path that does
 * not exist is for the parser to report, which names it.
 */
void lab_data_path(const char *root, enum lab_data kind, const char *arg, char *out, size_t cap);

#endif
