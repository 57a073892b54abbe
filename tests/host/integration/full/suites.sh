# The suites on the stock prebuilt kernels: mempolicy and khugepaged on the
# 4-node x86 shape and the LoongArch 2-node shape (16K/32M), workloads on
# 2node with metrics for every workload and placement.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 && make -s guest GUEST_ARCH=loongarch64 || fail "guest build failed"

for topo in 4node la-2node; do
	expect_rc 0 $NUMALAB run --topo $topo --tests mempolicy,khugepaged --out "$SCRATCH/$topo"
	expect_grep '^ok 1 mempolicy$' "$SCRATCH/out"
	expect_grep '^ok 2 khugepaged$' "$SCRATCH/out"
	expect_grep '^    ok [0-9]+ khugepaged collapsed (2|32)M on node 1, kept there$' "$SCRATCH/out"
	expect_no_qemu
done

expect_rc 0 $NUMALAB run --topo 2node --tests workloads --out "$SCRATCH/wl"
for w in mcf omnetpp astar xalancbmk bzip2 gups stream; do
	for p in local remote interleave weighted-interleave; do
		expect_grep "^    ok [0-9]+ $w $p (thp|nothp)$" "$SCRATCH/out"
	done
done
expect_grep "^      ops_per_s: [0-9]" "$SCRATCH/out"
expect_no_qemu
