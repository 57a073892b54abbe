/*
 * ltp: the Linux Test Project's result lines as TAP results, for a
 * --tests-dir suite whose sidecar says `format ltp` (docs/byo.md).
 *
 * Called by the guest's /init on each line of such a suite's output as it
 * arrives (so the results show live and the saved TAP is plain nested KTAP
 * every reader already counts); pure and libc only, as it is linked into
 * /init too.
 *
 * An LTP test prints one line per result, in one of two shapes:
 *
 *   FILE:LINE: TYPE: MESSAGE       the tst_test.h API
 *                                  ("mbind01.c:253: TPASS: Test passed")
 *   TCID N TYPE : MESSAGE          the old test.h API, blank-padded
 *                                  ("move_pages01    1  TPASS  :  Test passed")
 *
 * TYPE is TPASS, TFAIL, TBROK, TCONF, TWARN, TINFO or TDEBUG, maybe in a
 * terminal's colour (the escape sequences are skipped).  Each TPASS, TFAIL,
 * TBROK, TCONF and TWARN line is one result, named by where LTP reported it
 * ("FILE:LINE", or "TCID N"): a message may hold '#' and numbers that change
 * from run to run, so it follows as the result's reason, with its type:
 *
 *   TPASS  ok N LOC # TPASS: MESSAGE
 *   TFAIL  not ok N LOC # TFAIL: MESSAGE
 *   TBROK  not ok N LOC # ERROR TBROK: MESSAGE    the test could not test
 *   TCONF  ok N LOC # SKIP TCONF: MESSAGE
 *   TWARN  not ok N LOC # TWARN: MESSAGE          LTP's exit status says
 *                                                 4 for it: a failure
 *
 * TINFO, TDEBUG, the "Summary:" block and anything else are not results.
 * LTP's exit status is a sum of bits: 0 passed, 1 TFAIL, 2 TBROK, 4 TWARN,
 * 32 TCONF (only when nothing passed); its skip code is 32.
 */
#ifndef LAB_LTP_H
#define LAB_LTP_H

#include <stddef.h>

#define LTP_SKIP_CODE 32

/*
 * When line is an LTP result, its TAP result line numbered number (no
 * indent, no newline) into out and 1; else 0 and out untouched.  cap (at
 * least 64 bytes) bounds it: a cut never takes the directive ("# SKIP",
 * "# ERROR") that says what the result is; location and message share
 * the rest.
 */
int ltp_tap_result(const char *line, int number, char *out, size_t cap);

#endif
