# The lab as another project's test runner (docs/results.md): the automake
# project in tests/host/integration/automake/ has LOG_DRIVER = tap-driver.sh and
# LOG_COMPILER = numalab run --topo 2node --tests none --tap-flat - --, so
# each of its test programs runs inside a 2node guest.  numa-nodes passes
# only there (the host has one node) and reports its own TAP results, one of
# them a skip; exit-status exits 77 (a skip), then 99 (a hard error: ERROR),
# its output in its .log.
. "$(dirname "$0")/lib.bash"
lab=$PWD
p=$SCRATCH/project
cp -r tests/host/integration/automake "$p"
cd "$p" || fail "no $p"
expect_rc 0 autoreconf -i
expect_rc 0 ./configure NUMALAB="$lab/numalab"

expect_rc 0 make -j2 check
expect_grep '^PASS: numa-nodes 1 - 2node\.[^/]*/exec: \./numa-nodes/nodes online are 0-1 \(0-1\)$' "$SCRATCH/out"
expect_grep '^PASS: numa-nodes 2 - .*/both nodes have CPUs' "$SCRATCH/out"
expect_grep '^SKIP: numa-nodes 3 - .*/a check this shape cannot make # SKIP no CPU-less node in 2node$' "$SCRATCH/out"
expect_grep '^SKIP: exit-status 1 - 2node\.[^/]*/exec: \./exit-status # SKIP' "$SCRATCH/out"
expect_grep '^# PASS: +2$' "$SCRATCH/out"
expect_grep '^# SKIP: +2$' "$SCRATCH/out"
expect_grep '^# ERROR: +0$' "$SCRATCH/out"
for f in numa-nodes.log numa-nodes.trs exit-status.log exit-status.trs test-suite.log; do
	[ -s "$f" ] || fail "make check left no $f"
done

echo 99 >exit-status.want
expect_rc 2 make check TESTS=exit-status
expect_grep '^FAIL: exit-status 1 - .*/exec: \./exit-status # ERROR hard error: exit status 99$' "$SCRATCH/out"
expect_grep '^ERROR: exit-status - exited with status 1$' "$SCRATCH/out"
expect_grep '^# ERROR: +1$' "$SCRATCH/out"
expect_grep 'exit-status: exiting 99' exit-status.log
cd "$lab" && expect_no_qemu
