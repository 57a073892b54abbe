# The guest powers off in the middle of its TAP stream (numalab.fault=poweroff):
# what it sent is kept, the test it was on and the ones never started are
# errors with the reason, the saved TAP stays well-formed, exit 1.
. "$(dirname "$0")/lib.bash"
expect_rc 1 $NUMALAB run --topo 2node --append numalab.fault=poweroff --timeout 120 --out "$SCRATCH/r"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^KTAP version 1$' "$cell/tap"
expect_grep '^# guest\.kernel: ' "$cell/tap"
expect_grep '^    # Subtest: topology$' "$cell/tap"
expect_grep '^not ok 1 topology # ERROR guest stopped before finishing \(qemu status 0\)$' "$cell/tap"
expect_grep '^not ok 2 mempolicy # ERROR not run: guest stopped before finishing' "$cell/tap"
[ "$(grep -c '^1\.\.' "$cell/tap")" = 1 ] || fail "the TAP has more or fewer than one plan"
expect_grep '^end: poweroff$' "$cell/meta"
expect_grep '^result: 0 passed, 2 failed' "$cell/meta"
expect_no_qemu
