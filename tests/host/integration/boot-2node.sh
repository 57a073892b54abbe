# A real 2-node boot: both guest tests pass and the results are complete.
. "$(dirname "$0")/lib.bash"
expect_rc 0 $NUMALAB run --topo 2node --out "$SCRATCH/r"
expect_grep '^ok 1 topology$' "$SCRATCH/out"
expect_grep '^ok 2 mempolicy$' "$SCRATCH/out"
# The image's numactl (sid, images/packages.lock) has -w and places by weight.
expect_grep '^    ok [0-9]+ numactl --version >= 2\.0\.19$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ numactl -w 0,1 places pages 3:1 by the sysfs weights$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ distance matrix$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ mbind MPOL_WEIGHTED_INTERLEAVE' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
for f in tap console.log meta; do [ -s "$cell/$f" ] || fail "missing $cell/$f"; done
expect_grep '^# numalab: done$' "$cell/tap"
expect_grep '^accel: (tcg|kvm)' "$cell/meta"
expect_grep '^kernel.release: 7\.2\.' "$cell/meta"
expect_grep '^guest: node1.distance: 21 10$' "$cell/meta"
expect_grep '^complete$' "$(dirname "$cell")/state"

expect_no_qemu
