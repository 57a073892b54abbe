/*
 * cmd_bisect_run: `numalab bisect-run`'s command line as data, for the step
 * itself and for `numalab bisect`, which writes that command line
 * (bisect_step_argv(), cmd_bisect.h) and takes the options it passes on
 * from the same rows (BISECT_STEP_OPTIONS), so a value bisect-run would
 * refuse is refused by bisect before the first step.
 */
#ifndef LAB_CMD_BISECT_RUN_H
#define LAB_CMD_BISECT_RUN_H

#include "analysis/bisect.h"
#include "cli/options.h"

#include <math.h>

struct step_opts {
	const char *ksrc, *topo, *test, *recipe, *rev, *out, *log;
	const char *metric, *baseline, *record;
	int timeout_s, repeat;   /* timeout_s 0: the topology's */
	double threshold, alpha;
	struct bisect_test t;    /* test, parsed */
};

/* The defaults: recipe stock, HEAD, 3 repeats, 5 %, alpha 0.05. */
void step_opts_init(struct step_opts *so);

/* The rows bisect and bisect-run share: bisect passes these on as they are. */
#define BISECT_STEP_OPTIONS(so)                                                                   \
	OPT_STRING("topo", &(so)->topo, "NAME", "topologies/NAME.topo or a file (required)"),   \
	OPT_STRING("test", &(so)->test, "SPEC", "SUITE or SUITE:PREFIX, e.g. mempolicy:bulk (required)"), \
	OPT_STRING("recipe", &(so)->recipe, "NAME",                                              \
		   "kernels/recipes/NAME.recipe for the config (default: stock)"),                \
	OPT_INT("timeout", &(so)->timeout_s, "S", 1, 86400,                                      \
		"whole-VM timeout, 1..86400 s (default: the topology's)"),                        \
	OPT_STRING("metric", &(so)->metric, "M", "decide by metric M ([TEST:]NAME) instead of pass/fail"), \
	OPT_INT("repeat", &(so)->repeat, "N", 2, 100,                                            \
		"runs per step with --metric, 2..100 (default 3):\nstatistics need two runs a side"), \
	OPT_DOUBLE("threshold", &(so)->threshold, "P", 0, HUGE_VAL,                              \
		   "smallest change that counts, percent (default 5)"),                           \
	OPT_DOUBLE_OPEN("alpha", &(so)->alpha, "A", 0, 1, "significance level, 0 < A < 1 (default 0.05)")

/*
 * Parse bisect-run's argv (argv[0] "bisect-run") into so (initialised by
 * step_opts_init()) and check it as far as the command line goes: required
 * options, --test's form, --metric with --baseline or --record.  Returns 0,
 * OPT_HELP, or -1 with err (ERROR_INPUT).  Names (topology, recipe) are
 * checked by the command, against the project.
 */
int bisect_run_options_parse(int argc, char **argv, struct step_opts *so, struct error *err) LAB_MUST_CHECK;

#endif
