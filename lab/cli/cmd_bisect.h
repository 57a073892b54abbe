/*
 * cmd_bisect: `numalab bisect`'s request and the bisect-run command line it
 * writes for each step, exported so tests/host/unit/test_options.c can parse
 * that command line back with bisect_run_options_parse() (cmd_bisect_run.h).
 */
#ifndef LAB_CMD_BISECT_H
#define LAB_CMD_BISECT_H

#include "cli/cmd_bisect_run.h"

#include <limits.h>

struct bisect_opts {
	/* What each step is given as it is: topo, test, recipe, timeout, metric, repeat, ... */
	struct step_opts step;
	const char *good, *bad, *out;
	/* Absolute: git bisect run starts each step in the tree's top directory. */
	char ksrc[PATH_MAX], topo_path[PATH_MAX], out_abs[PATH_MAX];
	char dir[4096], log[4200];   /* this bisect's run directory and its bisect.log */
};

/*
 * bisect-run's command line for a step of bo, appended to argv (its program
 * lab_root()/numalab): record NULL, a step of `git bisect run` against
 * DIR/baseline; else the baseline run of GOOD into record (--metric only).
 */
void bisect_step_argv(const struct bisect_opts *bo, const char *record, struct strvec *argv);

#endif
