# A matrix with two real kernels: Debian's pinned 7.2 and the stock recipe
# built from source (the kernels-from-source test's build, cached), on 2node
# with the topology and mempolicy suites, twice each, two cells at a time;
# then `numalab compare` between the two kernels of that one matrix.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
m="$SCRATCH/two.matrix"
out="$SCRATCH/mx"
cat >"$m" <<'MATRIX'
topology 2node
kernel debian stock
suite topology mempolicy
repeat 2
timeout 600
MATRIX
expect_rc 0 $NUMALAB matrix "$m" --jobs 2 --out "$out"
cat "$out/summary.txt"
[ "$(grep -c '^ok [0-9]* 2node\.' "$out/matrix.tap")" = 8 ] || fail "want 8 passing cells in matrix.tap"
expect_grep '^ +# Subtest: mempolicy' "$out/matrix.tap"
xmllint --noout "$out/junit.xml" || fail "junit.xml is not well-formed"
[ "$(grep -c '<testsuite ' "$out/junit.xml")" = 8 ] || fail "want 8 testsuites in junit.xml"
expect_grep '2node\.stock\.mempolicy\.r2' "$out/summary.txt"
# The two kernels of the matrix as A and B (1: they may differ; 2 or 3 would be a refusal or a fault).
$NUMALAB compare "$out" "$out" --kernel-a debian --kernel-b stock \
	--tap "$SCRATCH/c.tap" --json "$SCRATCH/c.json" --html "$SCRATCH/c.html" >"$SCRATCH/out" 2>&1
rc=$?
cat "$SCRATCH/out"
[ $rc -le 1 ] || fail "compare exited $rc"
expect_grep 'EMULATED NUMA' "$SCRATCH/out"
python3 -m json.tool "$SCRATCH/c.json" >/dev/null || fail "compare's JSON does not parse"
expect_grep '<svg' "$SCRATCH/c.html"
expect_grep '^1\.\.[0-9]+' "$SCRATCH/c.tap"
