# The new guest tests fail on a wrong kernel: the mutants recipe (stock plus
# one-line mutants, kernels/patches/mutants/) on cxl makes each of them fail
# for its own reason, while the checks the mutants leave alone still pass.
. "$(dirname "$0")/../lib.bash"
expect_rc 1 $NUMALAB run --topo cxl --kernel mutants --tests tiering,mthp,mempolicy --out "$SCRATCH/m"
for claim in 'node2 in memory_tier30' 'weighted_interleave/auto weights from HMAT bandwidth' \
	     'cold anon pages demoted' 'cold tmpfs pages demoted' 'hot pages promoted' \
	     'mthp 16kB faulted on node 0 as one folio' 'mthp 1024kB faulted on node 3 as one folio' \
	     'khugepaged collapsed 16kB of base pages' 'khugepaged collapsed 1024kB of base pages' \
	     'numactl -w 0,1 places pages 3:1 by the sysfs weights'; do
	expect_grep "^    not ok [0-9]+ $claim" "$SCRATCH/out"
done
# What no mutant touches: DRAM tiers, PMD-size THPs, numactl itself.
for claim in 'node0 in memory_tier4 ' 'mthp 2048kB faulted on node 0 as one folio' \
	     'khugepaged collapsed 2048kB of base pages' 'numactl --version >= 2\.0\.19'; do
	expect_grep "^    ok [0-9]+ $claim" "$SCRATCH/out"
done
expect_no_qemu
