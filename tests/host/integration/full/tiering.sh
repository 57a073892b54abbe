# The tiering suite beyond make check: on cxl with the stock recipe kernel
# (built from source), on cxl-3tier (other HMAT numbers: two tiers below
# DRAM, other auto weights) with the Debian kernel, and one SKIP with the
# reason on 2node.
. "$(dirname "$0")/../lib.bash"
tiering_passes() {  # tiering_passes TOPO KERNEL: demotion and promotion checked
	expect_rc 0 $NUMALAB run --topo "$1" --kernel "$2" --tests tiering --out "$SCRATCH/$1-$2"
	expect_grep '^ok 1 tiering$' "$SCRATCH/out"
	for claim in 'cold anon pages demoted' 'cold tmpfs pages demoted' 'pgdemote_proactive' \
		     'cold anon \(node filled\) pages demoted' 'pgdemote_kswapd \+ pgdemote_direct' \
		     'hot pages promoted' 'cold pages stay' 'pgpromote_success' 'auto weights'; do
		expect_grep "^    ok [0-9]+ .*$claim" "$SCRATCH/out"
	done
	if grep -E '^    ok [0-9]+ .*# SKIP' "$SCRATCH/out"; then fail "tiering checks skipped on $1 $2"; fi
	expect_no_qemu
}
tiering_passes cxl stock
tiering_passes cxl-3tier debian
expect_grep '^    ok [0-9]+ node2 in memory_tier18 ' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ node3 in memory_tier90 ' "$SCRATCH/out"
expect_grep '^    # auto weights .*node2 5/5 node3 2/2$' "$SCRATCH/out"

expect_rc 0 $NUMALAB run --topo 2node --tests tiering --out "$SCRATCH/2node"
expect_grep '^ok 1 tiering # SKIP .*no CPU-less memory node' "$SCRATCH/out"
expect_no_qemu
