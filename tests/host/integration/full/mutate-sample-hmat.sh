# numalab mutate kills the fixed sample's memory-tiers.c mutants that only
# the HMAT shapes made for them see (cxl-switch, cxl-mismatch,
# cxl-partial-hmat; topology and tiering).  The ids and how they change:
# mutate-sample.sh.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"

# memory-tiers.c's HMAT rules on the shapes made for them: two equally near
# lower-tier nodes both preferred (cxl-switch), the DRAM mismatch's log line
# (cxl-mismatch), a CPU-less node without bandwidth keeping DRAM's distance
# (cxl-partial-hmat: the mutant divides by zero at boot).
IDS3=239f27d806d1,2dd0425e9f5a,0a0eddd70cfe
expect_rc 0 $NUMALAB mutate --kernel stock --file mm/memory-tiers.c --topo cxl-switch,cxl-mismatch,cxl-partial-hmat \
	--tests topology,tiering --jobs 2 --ids "$IDS3" --out "$SCRATCH/m3"
expect_grep "^score 100\.0%: 3 killed of 3 judged" "$SCRATCH/out"
expect_grep '\] 0a0eddd70cfe .*: killed: cxl-partial-hmat: ' "$SCRATCH/out"
expect_no_qemu
echo "mutate-sample-hmat: ok"
