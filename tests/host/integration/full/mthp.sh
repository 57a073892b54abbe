# The mthp suite on LoongArch's 16K pages (sizes 64kB..32768kB) and on cxl
# (4 nodes): every size faulted on every node, migrated whole and collapsed
# by khugepaged, nothing skipped.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=loongarch64 || fail "cross build of the LoongArch guest failed"
for topo in la-2node cxl; do
	expect_rc 0 $NUMALAB run --topo $topo --tests mthp --out "$SCRATCH/$topo"
	expect_grep '^ok 1 mthp$' "$SCRATCH/out"
	if grep -E '^    ok [0-9]+ .*# SKIP' "$SCRATCH/out"; then fail "mthp checks skipped on $topo"; fi
	expect_no_qemu
done
d=$(cell_dir "$SCRATCH/la-2node")
for s in 64 2048 32768; do
	expect_grep "^    ok [0-9]+ mthp ${s}kB migrated whole node 0 -> 1$" "$d/tap"
	expect_grep "^    ok [0-9]+ khugepaged collapsed ${s}kB of base pages into one folio on node 0$" "$d/tap"
done
d=$(cell_dir "$SCRATCH/cxl")
for n in 0 1 2 3; do expect_grep "^    ok [0-9]+ mthp 16kB faulted on node $n as one folio$" "$d/tap"; done
