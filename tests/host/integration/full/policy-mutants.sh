# The policy suite (and tiering's demotion targets) fail on a wrong kernel:
# stock with the ten one-line mutants of mutants/policy-contract.patch, one
# or two per area of issue 33, on cxl (four memory nodes, two tiers).  Each
# mutant fails its own row; the rows next to it, which it leaves alone,
# still pass.  One kernel build, one boot.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
expect_rc 1 $NUMALAB run --topo cxl --kernel stock --patch tests/host/integration/full/mutants/policy-contract.patch \
	--tests policy,tiering --out "$SCRATCH/m"
for claim in 'set_mempolicy MPOL_BIND\|NUMA_BALANCING accepted' \
	     'set_mempolicy a node ID beyond the maximum supported' \
	     'get_mempolicy\(MPOL_F_NODE\) under MPOL_WEIGHTED_INTERLEAVE' \
	     'get_mempolicy clears the nodemask beyond nr_node_ids' \
	     'cpuset rebind RELATIVE_NODES: 1,2 in mems m1,m2' \
	     'migrate_pages m1-3 -> m0-2 \(equal size, overlapping\)' \
	     'move_pages a shared page without MOVE_ALL' \
	     'mbind MPOL_DEFAULT with MPOL_MF_STRICT' \
	     'mbind BIND elsewhere with MPOL_MF_MOVE, pages shared' \
	     'node0 demotes to preferred 2, fallback 2-3'; do
	expect_grep "^    not ok [0-9]+ $claim" "$SCRATCH/out"
done
# Their neighbours, which no mutant touches.
for claim in 'set_mempolicy NUMA_BALANCING with PREFERRED' 'get_mempolicy\(MPOL_F_NODE\) under MPOL_INTERLEAVE' \
	     'cpuset rebind no flag' 'migrate_pages m0-2 -> m1-3' 'move_pages a shared page with MOVE_ALL' \
	     'mbind BIND elsewhere with MPOL_MF_MOVE_ALL, pages shared' 'node3 demotes to preferred null'; do
	expect_grep "^    ok [0-9]+ $claim" "$SCRATCH/out"
done
expect_no_qemu
