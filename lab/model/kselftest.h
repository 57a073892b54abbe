/*
 * kselftest: what the guest suite `kselftest-mm` (tests/guest/suites/kselftest-mm) needs
 * from a kernel tree's tools/testing/selftests/mm, prepared on the host.
 *
 * kbuild builds every target of that directory with `make -k` (static, for
 * the guest's arch) and ships, next to the binaries in kselftest/mm/:
 *
 *   vmtests.plan    the tests of run_vmtests.sh, one a line:
 *                   "CATEGORY<TAB>ARGV..." (kselftest_plan())
 *   build-failures  the targets that did not build, one a line:
 *                   "NAME<TAB>WHY" (kselftest_build_failures())
 *   kernel.config   the kernel's .config, so the guest knows what is built in
 *
 * Both text formats are the contract with the guest suite; these functions
 * are pure.
 */
#ifndef LAB_KSELFTEST_H
#define LAB_KSELFTEST_H

#include "base/util.h"

#define KSELFTEST_PLAN "vmtests.plan"
#define KSELFTEST_FAILURES "build-failures"
#define KSELFTEST_CONFIG "kernel.config"

/*
 * run_vmtests.sh's `CATEGORY="C" run_test CMD ARG...` lines as plan lines,
 * in the script's order.  ${uffd_stress_bin} becomes ./uffd-stress; a line
 * continued with '\' or using any other shell variable is kept as it is
 * written (the guest reports it as needing the script).  Returns the number
 * of tests.
 */
int kselftest_plan(const char *script, struct buf *out);

/*
 * The targets a `make -k` log (serial) says failed, each with the last
 * compiler or linker error before make gave up on it: "NAME<TAB>WHY" lines.
 * Returns the number of failures.
 */
int kselftest_build_failures(const char *log, struct buf *out);

#endif
