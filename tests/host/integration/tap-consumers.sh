# The flat TAP and JUnit outputs, read by their consumers themselves: a real
# 4node run's flat TAP (results passed, skipped, and one ERROR: the crash
# suite panics the guest) through prove and automake's tap-driver.sh counts
# as many passed, failed and skipped results as `numalab run` says; so does
# a matrix's flat.tap (a passing cell, a cell whose kernel is no kernel)
# against summary.txt; `numalab tap flatten` gives the same text from the
# nested TAP; the JUnit files are XML whose totals are their testcases'.
. "$(dirname "$0")/lib.bash"
TAP_DRIVER=${TAP_DRIVER:-$(automake --print-libdir)/tap-driver.sh}

# "P F S" as prove (TAP::Parser, the library under prove) counts FILE.
prove_counts() {
	prove -e cat "$1" >"$SCRATCH/prove.out" 2>&1
	local tests failed p f s
	tests=$(sed -n 's/^Files=1, Tests=\([0-9]*\),.*/\1/p' "$SCRATCH/prove.out")
	failed=$(sed -n 's/.*Failed \([0-9]*\)\/[0-9]* subtests.*/\1/p' "$SCRATCH/prove.out")
	[ -n "$tests" ] || { cat "$SCRATCH/prove.out" >&2; fail "prove gave no count for $1"; }
	perl -MTAP::Parser -e 'my $p = TAP::Parser->new({ tap => do { local $/; <STDIN> } });
		1 while $p->next; printf "%d %d %d\n", scalar($p->passed) - scalar($p->skipped), scalar($p->failed), scalar($p->skipped)' <"$1" >"$SCRATCH/parser.out"
	read -r p f s <"$SCRATCH/parser.out"
	[ "$((p + f + s))" = "$tests" ] || fail "TAP::Parser counts $p+$f+$s, prove Tests=$tests for $1"
	[ "$f" = "${failed:-0}" ] || fail "TAP::Parser: $f failed, prove: ${failed:-0} for $1"
	echo "$p $f $s"
}

# "P F S" as tap-driver.sh counts FILE (its .trs: PASS; FAIL and ERROR; SKIP).
driver_counts() {
	"$TAP_DRIVER" --test-name flat --log-file "$SCRATCH/flat.log" --trs-file "$SCRATCH/flat.trs" \
		--color-tests no --enable-hard-errors yes --expect-failure no -- cat "$1" >/dev/null
	echo "$(grep -c '^:test-result: PASS' "$SCRATCH/flat.trs") $(grep -c '^:test-result: \(FAIL\|ERROR\)' "$SCRATCH/flat.trs") $(grep -c '^:test-result: SKIP' "$SCRATCH/flat.trs")"
}

# The JUnit file is XML, and its totals are what its testcases say.
check_junit() {
	xmllint --noout "$1" || fail "$1 is not well-formed XML"
	local attr count
	for pair in tests:testcase failures:testcase/failure errors:testcase/error skipped:testcase/skipped; do
		attr=$(xmllint --xpath "string(/testsuites/@${pair%%:*})" "$1")
		count=$(xmllint --xpath "count(//${pair#*:})" "$1")
		[ "$attr" = "$count" ] || fail "$1: testsuites ${pair%%:*}=$attr, but $count ${pair#*:} elements"
	done
}

# A matrix: a passing cell with skips, and a cell whose "kernel" QEMU cannot
# boot.  It runs while the 4node run does (two guests at once saves time).
echo 'not a kernel' >"$SCRATCH/junk"
cat >"$SCRATCH/t.matrix" <<MATRIX
topology 2node
kernel debian
kernel junk = $SCRATCH/junk
suite topology
timeout 300
MATRIX
$NUMALAB matrix "$SCRATCH/t.matrix" --jobs 2 --quiet --out "$SCRATCH/mx" >"$SCRATCH/mx.out" 2>&1 &
matrix_pid=$!
trap 'kill -INT $matrix_pid 2>/dev/null; wait $matrix_pid; rm -rf "$SCRATCH"' EXIT

# A real 4node run: without flattening, a TAP consumer would count 3 results.
expect_rc 1 $NUMALAB run --topo 4node --tests topology,mempolicy,crash --out "$SCRATCH/r" \
	--tap-flat "$SCRATCH/run.flat" --junit "$SCRATCH/run.xml"
summary=$(sed -n 's/.*; their [0-9]* results: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped .*/\1 \2 \3/p' "$SCRATCH/err")
[ -n "$summary" ] || { cat "$SCRATCH/err" >&2; fail "numalab run printed no results count"; }
read -r p f s <<<"$summary"
[ "$p" -gt 40 ] && [ "$f" = 1 ] && [ "$s" -gt 0 ] || fail "want dozens passed, 1 failed (the crash), some skipped: $summary"
[ "$(prove_counts "$SCRATCH/run.flat")" = "$summary" ] || fail "prove: $(prove_counts "$SCRATCH/run.flat"), numalab run: $summary"
[ "$(driver_counts "$SCRATCH/run.flat")" = "$summary" ] || fail "tap-driver.sh: $(driver_counts "$SCRATCH/run.flat"), numalab run: $summary"
expect_grep '^ok [0-9]+ - 4node\.debian/mempolicy/mbind MPOL_BIND node 0$' "$SCRATCH/run.flat"
expect_grep '^not ok [0-9]+ - 4node\.debian/crash # ERROR kernel panic' "$SCRATCH/run.flat"
check_junit "$SCRATCH/run.xml"
[ "$(xmllint --xpath 'string(/testsuites/@tests)' "$SCRATCH/run.xml")" = "$((p + f + s))" ] ||
	fail "run.xml lists $(xmllint --xpath 'string(/testsuites/@tests)' "$SCRATCH/run.xml") testcases, the run $((p + f + s)) results"
./numalab tap flatten "$(cell_dir "$SCRATCH/r")/tap" | sed -E '/^(not )?ok [0-9]+ - /s| - | - 4node.debian/|' |
	cmp -s - "$SCRATCH/run.flat" ||
	fail "numalab tap flatten of the run's tap differs from --tap-flat"

wait $matrix_pid
rc=$?
[ $rc = 3 ] || { cat "$SCRATCH/mx.out" >&2; fail "the matrix exited $rc, want 3 (an error cell, no failure)"; }
m=$SCRATCH/mx
# summary.txt's pass, fail, skip columns, summed over the cells.
summary=$(awk '$2 ~ /^(pass|fail|timeout|error)$/ { p += $3; f += $4; s += $5 } END { print p, f, s }' "$m/summary.txt")
read -r p f s <<<"$summary"
[ "$p" -gt 0 ] && [ "$f" = 1 ] && [ "$s" -gt 0 ] || fail "want passes, 1 failure (the junk cell) and skips in the matrix: $summary"
[ "$(prove_counts "$m/flat.tap")" = "$summary" ] || fail "prove: $(prove_counts "$m/flat.tap"), summary.txt: $summary"
[ "$(driver_counts "$m/flat.tap")" = "$summary" ] || fail "tap-driver.sh: $(driver_counts "$m/flat.tap"), summary.txt: $summary"
expect_grep '^not ok [0-9]+ - 2node\.junk\.topology\.r1(/.*)? # ERROR ' "$m/flat.tap"
./numalab tap flatten "$m/matrix.tap" | cmp -s - "$m/flat.tap" || fail "numalab tap flatten matrix.tap is not flat.tap"
check_junit "$m/junit.xml"
expect_no_qemu
