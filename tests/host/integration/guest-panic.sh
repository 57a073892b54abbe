# A kernel panic is seen on the console, reported in TAP and meta, exit 1.
. "$(dirname "$0")/lib.bash"
# No /init to run: the kernel panics after unpacking the initramfs.
expect_rc 1 $NUMALAB run --topo 2node --append rdinit=/nonexistent --timeout 120 --out "$SCRATCH/r"
expect_grep '^not ok 1 topology # ERROR (not run: )?kernel (panic|oops)' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^end: crashed$' "$cell/meta"
expect_grep '^console.finding: panic$' "$cell/meta"
# The report's first lines follow in the TAP as diagnostics.
expect_grep '^# console: .*Kernel panic - not syncing' "$cell/tap"
[ "$(grep -c '^# console: ' "$cell/tap")" -ge 2 ] || fail "want the report's first lines in the TAP"
expect_grep 'Kernel panic - not syncing' "$cell/console.log"
expect_no_qemu
