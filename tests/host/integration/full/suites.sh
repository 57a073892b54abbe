# The suites on the stock prebuilt kernels: mempolicy, khugepaged and policy
# on the 4-node x86 shape and the LoongArch 2-node shape (16K/32M), policy
# with nothing skipped on 8node, workloads on 2node with metrics for every
# workload and placement.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 && make -s guest GUEST_ARCH=loongarch64 || fail "guest build failed"

for topo in 4node la-2node; do
	expect_rc 0 $NUMALAB run --topo $topo --tests mempolicy,khugepaged,policy --out "$SCRATCH/$topo"
	expect_grep '^ok 1 mempolicy$' "$SCRATCH/out"
	expect_grep '^ok 2 khugepaged$' "$SCRATCH/out"
	expect_grep '^ok 3 policy$' "$SCRATCH/out"
	expect_grep '^    ok [0-9]+ khugepaged collapsed (2|32)M on node 1, kept there$' "$SCRATCH/out"
	expect_no_qemu
done

# 8 memory nodes: every policy row runs, the rst's remap examples included,
# but the nearest row: it needs a CPU-less memory node, and 8node's nodes all
# have CPUs (cxl runs it: mutate-sample-numa-api's 1924546beaa2).
expect_rc 0 $NUMALAB run --topo 8node --tests policy --out "$SCRATCH/p8"
expect_grep '^ok 1 policy$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ cpuset rebind rst example: RELATIVE_NODES 2-5, mems 2-5 -> 3-7 -> 0,2,3,5$' "$SCRATCH/out"
if grep -E '^    ok [0-9]+ .*# SKIP' "$SCRATCH/out" | grep -v '# SKIP needs a CPU-less memory node whose nearest'; then
	fail "policy rows skipped on 8node"
fi
expect_no_qemu

expect_rc 0 $NUMALAB run --topo 2node --tests workloads --out "$SCRATCH/wl"
for w in mcf omnetpp astar xalancbmk bzip2 gups stream; do
	for p in local remote interleave weighted-interleave; do
		expect_grep "^    ok [0-9]+ $w $p (thp|nothp)$" "$SCRATCH/out"
	done
done
expect_grep "^      ops_per_s: [0-9]" "$SCRATCH/out"
expect_no_qemu
