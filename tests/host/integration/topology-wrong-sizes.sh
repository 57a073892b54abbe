# The topology test fails on a guest whose nodes do not get the declared
# sizes: QEMU boots 2node (512M + 512M) while the guest is told 768M + 256M
# (--guest-file replaces /lab/topology).  Both node memory checks must fail,
# naming the sizes the firmware describes, and so must the capture check;
# the run must exit 1.
. "$(dirname "$0")/lib.bash"
mkdir -p "$SCRATCH/told"
sed -e 's/^node 0 cpus=0-1 mem=512M$/node 0 cpus=0-1 mem=768M/' \
    -e 's/^node 1 cpus=2-3 mem=512M$/node 1 cpus=2-3 mem=256M/' topologies/2node.topo >"$SCRATCH/told/topology"
grep -q 'mem=768M' "$SCRATCH/told/topology" || fail "could not derive the wrong-size topology from 2node"
expect_rc 1 $NUMALAB run --topo 2node --tests topology --guest-file "$SCRATCH/told/topology" --out "$SCRATCH/r"
expect_grep '^    not ok [0-9]+ node0 memory$' "$SCRATCH/out"
expect_grep '^    not ok [0-9]+ node1 memory$' "$SCRATCH/out"
expect_grep 'node0: the firmware describes 524288 KiB, the topology declares 786432 KiB' "$SCRATCH/out"
expect_grep 'node1: the firmware describes 524288 KiB, the topology declares 262144 KiB' "$SCRATCH/out"
# numalab's capture of the guest's /sys sees the memory QEMU gave too (the
# kernel's present pages), and prints what it captured.
expect_grep '^    not ok [0-9]+ topo capture gives the declared shape$' "$SCRATCH/out"
expect_grep 'node0: captured 512 MiB \(present pages rounded up\), declared 768 MiB' "$SCRATCH/out"
expect_grep '# captured: node 1 cpus=2-3 mem=512M$' "$SCRATCH/out"
# The rest of the shape still agrees: only the memory checks failed.
expect_grep '^    ok [0-9]+ distance matrix$' "$SCRATCH/out"
expect_grep '^not ok 1 topology( # exit 1)?$' "$SCRATCH/out"
expect_no_qemu
