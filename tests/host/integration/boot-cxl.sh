# CPU-less CXL-like nodes with HMAT: topology's HMAT checks run and pass, and
# the tiering suite's demotion and promotion are checked, not skipped.
. "$(dirname "$0")/lib.bash"
expect_rc 0 $NUMALAB run --topo cxl --out "$SCRATCH/r"
expect_grep '^ok 1 topology$' "$SCRATCH/out"
expect_grep '^ok 2 mempolicy$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ .*hmat' "$SCRATCH/out"
if grep -E '^    ok [0-9]+ .*hmat.*# SKIP' "$SCRATCH/out"; then fail "HMAT checks skipped on cxl"; fi
expect_grep '^ok 3 tiering$' "$SCRATCH/out"
for claim in 'in memory_tier30' 'cold anon pages demoted' 'cold tmpfs pages demoted' \
	     'pgdemote_proactive' 'cold anon \(node filled\) pages demoted' 'pgdemote_kswapd \+ pgdemote_direct' \
	     'hot pages promoted' 'cold pages stay' 'pgpromote_success'; do
	expect_grep "^    ok [0-9]+ .*$claim" "$SCRATCH/out"
done
expect_grep '^guest: node2.cpus: *$' "$(cell_dir "$SCRATCH/r")/meta"
expect_no_qemu
