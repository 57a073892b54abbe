# numalab mutate judges a mutant again when the guest binaries that judged it
# are not the current ones (a row added since might kill a survivor), and runs
# the unmutated kernel again when its run was on other binaries; a resume on
# the same binaries runs nothing.  The mutant is get_il_weight's weight + 1
# (mutate-sample.sh's), which the mempolicy suite kills on 2node.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
ID=0391994643e4
ARGS=(--kernel stock --file mm/mempolicy.c --function get_il_weight --topo 2node --tests mempolicy
      --ids $ID --out "$SCRATCH/m")
RESULT="$SCRATCH/m/mutants/$ID/result" BASE="$SCRATCH/m/base/2node/result"

expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep '^status killed$' "$RESULT"
expect_grep '^guest [0-9a-f]{64}$' "$RESULT"
key=$(sed -n 's/^guest //p' "$RESULT")
expect_grep "^guest $key\$" "$BASE"

# The same binaries: nothing runs again.
expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep "1 mutants \(1 already judged\)" "$SCRATCH/out"

# A verdict of other binaries (an OUT from before a `make guest`): judged
# again, on the base run that is still current.
sed -i 's/^guest .*/guest 0000/' "$RESULT"
expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep "1 mutants judged by other guest binaries" "$SCRATCH/out"
grep -q "on the unmutated kernel" "$SCRATCH/out" && fail "the current base ran again"
expect_grep "^guest $key\$" "$RESULT"
expect_grep '^status killed$' "$RESULT"

# A result from before keys were kept has none: judged again as well.
sed -i '/^guest /d' "$RESULT"
expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep "1 mutants judged by other guest binaries" "$SCRATCH/out"

# The base of other binaries: run again before the mutants are judged.
sed -i 's/^guest .*/guest 0000/' "$BASE" "$RESULT"
expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep "the guest binaries changed since the unmutated kernel's run on 2node" "$SCRATCH/out"
expect_grep "^guest $key\$" "$BASE"
expect_grep "^guest $key\$" "$RESULT"
expect_grep "^score 100\.0%: 1 killed of 1 judged" "$SCRATCH/out"
expect_no_qemu
