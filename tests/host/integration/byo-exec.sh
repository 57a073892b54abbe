# run -- CMD: the host's own (dynamically linked) numactl, asked for by its
# path (`numactl` alone is the lab's, guest-system.sh), runs in the guest,
# as a TAP result of its own, and prints the guest's 2 nodes (not the host's).
. "$(dirname "$0")/lib.bash"
expect_rc 0 $NUMALAB run --topo 2node --tests none --out "$SCRATCH/r" -- /usr/bin/numactl --hardware
expect_grep '^    # Subtest: exec: /usr/bin/numactl --hardware$' "$SCRATCH/out"
expect_grep '^    # available: 2 nodes \(0-1\)$' "$SCRATCH/out"
# The distance row's columns are as wide as the numactl's: 2.0.16 (Debian 12)
# prints "  1:  21  10", 2.0.19 (Debian 13) "   1:   21   10".
expect_grep '^    # +1: +21 +10 ?$' "$SCRATCH/out"
expect_grep '^ok 1 exec: /usr/bin/numactl --hardware$' "$SCRATCH/out"
expect_grep '^1\.\.1$' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^    # available: 2 nodes \(0-1\)$' "$cell/tap"
expect_grep '^tests: .exec: /usr/bin/numactl --hardware.$' "$cell/meta"
expect_no_qemu
