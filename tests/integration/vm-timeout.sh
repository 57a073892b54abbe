# A guest past its VM timeout is killed, the TAP says TIMEOUT, exit 1, no orphan.
. "$(dirname "$0")/lib.sh"
expect_rc 1 $NUMALAB run --topo 2node --timeout 3 --out "$SCRATCH/r"
expect_grep '# TIMEOUT vm timeout after 3 s' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^end: timeout$' "$cell/meta"
expect_grep '# TIMEOUT' "$cell/tap"
expect_no_qemu 2node
