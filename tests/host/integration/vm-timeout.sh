# A guest past its VM timeout is killed, the TAP says TIMEOUT, exit 1, no orphan.
. "$(dirname "$0")/lib.bash"
expect_rc 1 $NUMALAB run --topo 2node --timeout 3 --out "$SCRATCH/r"
# 3 s ends the guest during boot: its tests are reported, not lost.
expect_grep '^not ok 1 topology # (TIMEOUT|ERROR).*vm timeout after 3 s' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^end: timeout$' "$cell/meta"
expect_grep '^not ok 2 mempolicy # (TIMEOUT|ERROR)' "$cell/tap"
expect_no_qemu
