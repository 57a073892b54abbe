# CPU-less CXL-like nodes with HMAT: topology's HMAT checks run and pass.
. "$(dirname "$0")/lib.bash"
expect_rc 0 $NUMALAB run --topo cxl --out "$SCRATCH/r"
expect_grep '^ok 1 topology$' "$SCRATCH/out"
expect_grep '^ok 2 mempolicy$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ .*hmat' "$SCRATCH/out"
if grep -E '^    ok [0-9]+ .*hmat.*# SKIP' "$SCRATCH/out"; then fail "HMAT checks skipped on cxl"; fi
expect_grep '^guest: node2.cpus: *$' "$(cell_dir "$SCRATCH/r")/meta"
expect_no_qemu
