# kselftest-mm on 2node with the stock kernel: the kernel's own mm
# selftests run by run_vmtests.sh category, each test nested; categories
# the shape or config rule out are SKIPs with the reason.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
$NUMALAB run --topo 2node --kernel stock --tests kselftest-mm --timeout 1500 --out "$SCRATCH/k" \
	--append numalab.kselftest_mm=mmap,mremap,mlock,madv_populate,vma_merge,mkdirty,mdwe,migration,hmm,rmap,soft_dirty \
	>"$SCRATCH/out" 2>"$SCRATCH/err"
echo "# kselftest-mm exited $? ($(grep -cE '^        (not )?ok ' "$SCRATCH/out") nested results)"
# Depths: the suite's results (categories) 4 spaces in, a category's tests 8,
# a test's own output 12.
expect_grep '^        # Subtest: mremap$' "$SCRATCH/out"
expect_grep '^        ok [0-9]+ \./mremap_dontunmap$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ hmm # SKIP the kernel has no CONFIG_TEST_HMM$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ cow # SKIP not chosen' "$SCRATCH/out"
expect_grep '^            (ok|not ok) [0-9]+ ' "$SCRATCH/out"   # a selftest's own TAP
expect_no_qemu

# The same suite on a one-line mutant (mlock2(MLOCK_ONFAULT) ignored): it fails.
expect_rc 1 $NUMALAB run --topo 2node --kernel stock --patch tests/host/integration/full/mutants/mlock2-onfault-ignored.patch \
	--tests kselftest-mm --timeout 900 --out "$SCRATCH/m" --append numalab.kselftest_mm=mlock
expect_grep '^        not ok [0-9]+ \./mlock2-tests$' "$SCRATCH/out"
expect_grep '^    not ok [0-9]+ mlock ' "$SCRATCH/out"
expect_no_qemu
