# --patch: the two files of kernels/patches/wi-carryover/ on stock fail the
# weighted-interleave bulk model exactly as the wi-carryover recipe does
# (kernels-from-source.sh), meta naming each patch's subject; seed 001's
# mail as it is (the patch quoted in a review) does not apply to 7.2 and is
# named with its file and hunk; --patch on a Debian kernel is refused.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
wi=kernels/patches/wi-carryover
expect_rc 1 $NUMALAB run --topo 2node --kernel stock --patch $wi/0001-*.patch --patch $wi/0002-*.patch \
	--out "$SCRATCH/wi"
expect_grep '^    not ok [0-9]+ bulk weighted interleave weights 20,7' "$SCRATCH/out"
expect_grep '^not ok 2 mempolicy( # exit 1)?$' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/wi")
case $cell in */2node.stock+2patches/) ;; *) fail "cell $cell is not named stock+2patches" ;; esac
expect_grep '^kernel.patches: 0001-mm-mempolicy-simplify[^ ]* sha256:[0-9a-f]{64}, 0002-' "$cell/meta"
expect_grep '^kernel.patch.subject: mm/mempolicy: simplify weighted interleave bulk alloc calculations$' "$cell/meta"
expect_grep '^kernel.patch.subject: mm/mempolicy: skip extra call to __alloc_pages_bulk in weighted interleave$' "$cell/meta"
expect_no_qemu

expect_rc 2 $NUMALAB run --topo 2node --kernel stock --patch tests/host/unit/patches/seed001-quoted-reply.mail \
	--out "$SCRATCH/s1"
expect_grep '"mm/khugepaged: sched to numa node when collapse huge page" does not apply' "$SCRATCH/err"
expect_grep 'mm/khugepaged.c hunk #[0-9] \(@@ -[0-9,]+ \+[0-9,]+ @@[^)]*\) FAILED' "$SCRATCH/err"
expect_grep 'needs porting to this base' "$SCRATCH/err"

expect_rc 2 $NUMALAB run --topo 2node --kernel debian --patch $wi/0001-*.patch --out "$SCRATCH/d"
expect_grep 'not built from source' "$SCRATCH/err"
