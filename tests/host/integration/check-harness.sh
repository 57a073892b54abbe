# make check's harness (tests/host/check, tests/host/tap-wrap, automake's tap-driver.sh)
# on made-up tests: a hung script and a hung TAP producer are killed at the
# per-test timeout (or a script's own `# check-timeout:`) and reported
# TIMEOUT while the rest still run; exit 77 is
# a skip, 99 a hard error; each test has its .log and .trs, test-suite.log
# holds the failures' logs; the last line counts tests; --recheck runs again
# only what did not pass; a stopped check stops its test (below).
. "$(dirname "$0")/lib.bash"
t=$SCRATCH/t
mkdir -p "$t"
cat >"$t/ok.sh" <<SH
echo ran >>"$t/ok.runs"
echo "all good"
SH
cp "$(command -v sleep)" "$t/hangsleep"	# its path names this test's hung processes
echo 'echo "about to hang"; "'"$t"'/hangsleep" 600' >"$t/hang.sh"
printf '# check-timeout: 1\n"%s" 600\n' "$t/hangsleep" >"$t/hang1.sh"
echo 'echo "broken" >&2; [ -e "'"$t"'/fixed" ]' >"$t/fail.sh"
echo 'exit 77' >"$t/skip.sh"
echo 'exit 99' >"$t/hard.sh"
printf '#!/bin/sh\necho 1..3\necho "ok 1 - first"\necho "ok 2 - second"\n%s 600\n' "$t/hangsleep" >"$t/taphang"
chmod +x "$t/taphang"
tests="$t/ok.sh $t/hang.sh $t/hang1.sh $t/fail.sh $t/skip.sh $t/hard.sh $t/taphang"
export CHECK_DIR=$SCRATCH/check TEST_TIMEOUT=3

SECONDS=0
TESTS=$tests expect_rc 1 tests/host/check
[ $SECONDS -lt 60 ] || fail "two hung tests with a 3 s timeout took $SECONDS s"
[ "$(tail -n 1 "$SCRATCH/out")" = "2 passed, 5 failed" ] || fail "last line: $(tail -n 1 "$SCRATCH/out")"
d=$CHECK_DIR$t
expect_grep '^PASS: .*/t/ok 1 - ok ' "$SCRATCH/out"
expect_grep '^FAIL: .*/t/hang 1 - hang # TIMEOUT killed after 3 s$' "$SCRATCH/out"
expect_grep '^FAIL: .*/t/hang1 1 - hang1 # TIMEOUT killed after 1 s$' "$SCRATCH/out"
expect_grep '^FAIL: .*/t/fail 1 - fail ' "$SCRATCH/out"
expect_grep '^SKIP: .*/t/skip 1 - skip ' "$SCRATCH/out"
expect_grep '^ERROR: .*/t/hard - Bail out! hard: exit status 99' "$SCRATCH/out"
expect_grep '^PASS: .*/t/taphang 2 - second$' "$SCRATCH/out"
expect_grep '^FAIL: .*/t/taphang 3 - taphang # TIMEOUT killed after 3 s$' "$SCRATCH/out"
for n in ok hang fail skip hard taphang; do
	[ -s "$d/$n.log" ] && [ -s "$d/$n.trs" ] || fail "no $n.log and $n.trs in $d"
done
expect_grep '^about to hang$' "$d/hang.log"
expect_grep '^broken$' "$d/fail.log"
expect_grep '^:recheck: no$' "$d/ok.trs"
expect_grep '^:recheck: yes$' "$d/hang.trs"
expect_grep '^numalab: make check: 2 passed, 5 failed$' "$CHECK_DIR/test-suite.log"
expect_grep '^broken$' "$CHECK_DIR/test-suite.log"
grep -q '^all good$' "$CHECK_DIR/test-suite.log" && fail "test-suite.log holds a passing test's log"
pgrep -f "$t/hangsleep" && fail "a hung test outlived its timeout"

# Fixed: --recheck runs the five that did not pass, not ok.sh.
touch "$t/fixed"
expect_rc 1 tests/host/check --recheck
expect_grep '^recheck: 5 of 7 tests run again$' "$SCRATCH/out"
expect_grep '^PASS: .*/t/fail 1 - fail ' "$SCRATCH/out"
[ "$(wc -l <"$t/ok.runs")" = 1 ] || fail "recheck ran ok.sh again"
[ "$(tail -n 1 "$SCRATCH/out")" = "3 passed, 4 failed" ] || fail "recheck's last line: $(tail -n 1 "$SCRATCH/out")"

# Stopped (a Ctrl-C, or a TERM to the check's process group): the running
# test's own group goes too (timeout(1) made it; without tap-wrap's trap it
# runs on to its timeout), the rest do not run, the summary still comes, and
# the exit status is 130.  For a script test and a TAP producer, by INT and
# by TERM.
for stopper in "INT $t/hang.sh" "TERM $t/taphang"; do
	read -r sig first <<<"$stopper"
	rm -f "$t/ok.runs"
	set -m   # the check in a process group of its own, as make's under a terminal
	TESTS="$first $t/ok.sh" TEST_TIMEOUT=60 tests/host/check >"$SCRATCH/out" 2>"$SCRATCH/err" &
	check=$!
	set +m
	for _ in $(seq 100); do pgrep -f "$t/hangsleep" >/dev/null && break; sleep 0.1; done
	pgrep -f "$t/hangsleep" >/dev/null || fail "$first did not start"
	kill -"$sig" -- -"$check"
	SECONDS=0
	wait "$check"
	rc=$?
	[ $SECONDS -lt 20 ] || fail "SIG$sig: the check took $SECONDS s to stop: it waited for the test's timeout"
	[ $rc = 130 ] || { cat "$SCRATCH/out" "$SCRATCH/err" >&2; fail "SIG$sig: the check exited $rc, want 130"; }
	for _ in $(seq 50); do pgrep -f "$t/hangsleep" >/dev/null || break; sleep 0.2; done
	pgrep -f "$t/hangsleep" && fail "SIG$sig: $first outlived the stopped check"
	[ -e "$t/ok.runs" ] && fail "SIG$sig: ok.sh ran after the stop"
	[ "$(tail -n 1 "$SCRATCH/out")" = "0 passed, 1 failed" ] || fail "SIG$sig: last line: $(tail -n 1 "$SCRATCH/out")"
	expect_grep 'interrupted, 1 not run' "$SCRATCH/err"
done
