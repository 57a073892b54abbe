/*
 * child: run a program in the guest and take its stdout, for tests that
 * drive a tool (numactl) or a copy of themselves under another policy.
 *
 * child_run() forks, execs argv[0] (a path) with argv, reads the child's
 * stdout into out (NUL-terminated, truncated to cap-1) and reaps it.  Its
 * stderr goes to the test's stderr (the console).  A child still running
 * after timeout_s is killed with SIGKILL.  Returns the exit status as
 * waitpid() gives it (WIFEXITED ...), or -1 with errno set when it could
 * not be started or was killed for the timeout (ETIMEDOUT).
 */
#ifndef NUMALAB_CHILD_H
#define NUMALAB_CHILD_H

#include <stddef.h>

int child_run(char *const argv[], char *out, size_t cap, int timeout_s);

#endif
