# numalab try's bad input: one error naming the file or option, exit 2, and
# nothing written (no OUT) -- before any kernel is built or VM started.
. "$(dirname "$0")/lib.bash"
wi=kernels/patches/wi-carryover/0001-mm-mempolicy-simplify-weighted-interleave-bulk-alloc-calculations.patch
one_error() { [ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"; }
no_out() { [ ! -e "$SCRATCH/t" ] || fail "a bad try wrote $SCRATCH/t"; }

expect_rc 2 $NUMALAB try "$SCRATCH/none.patch" --out "$SCRATCH/t"
expect_grep "patch file.*none.patch: No such file" "$SCRATCH/err"; one_error; no_out
printf 'Subject: a note\n\nNo diff here, only prose.\n' >"$SCRATCH/prose.mail"
expect_rc 2 $NUMALAB try "$SCRATCH/prose.mail" --out "$SCRATCH/t"
expect_grep "prose.mail: no patch in it" "$SCRATCH/err"; one_error; no_out
expect_rc 2 $NUMALAB try "$wi" --base debian --out "$SCRATCH/t"
expect_grep "base debian: not a recipe .* nor a kernel source tree; patches go on a kernel built from source" "$SCRATCH/err"
one_error; no_out
expect_rc 2 $NUMALAB try "$wi" --topos 2node,5node --out "$SCRATCH/t"
expect_grep "topos: unknown topology '5node'; known: 2node, " "$SCRATCH/err"; no_out
expect_rc 2 $NUMALAB try "$wi" --suites mempolicy,nosuch --out "$SCRATCH/t"
expect_grep "suites: unknown suite 'nosuch'; known: crash, " "$SCRATCH/err"; no_out
expect_rc 2 $NUMALAB try "$wi" --expect 'bulk_calls goes down' --out "$SCRATCH/t"
expect_grep "expect 'bulk_calls goes down': want 'METRIC decreases'" "$SCRATCH/err"; no_out
expect_rc 2 $NUMALAB try --out "$SCRATCH/t"
expect_grep "which patches" "$SCRATCH/err"; no_out
expect_rc 2 $NUMALAB try "$wi" --repeat 0
expect_rc 2 $NUMALAB try "$wi" --shard 2/2
# An OUT of another try is not resumed with other inputs.
mkdir -p "$SCRATCH/other"
printf 'base: stock\ntopos: 4node\n' >"$SCRATCH/other/inputs"
expect_rc 2 $NUMALAB try "$wi" --topos 2node --out "$SCRATCH/other" --report
expect_grep "other holds a try of other inputs" "$SCRATCH/err"
grep -q '^topos: 4node$' "$SCRATCH/other/inputs" || fail "the other try's inputs were overwritten"
[ ! -e "$SCRATCH/other/patches" ] && one_error || fail "the other try was written to"
echo "try-bad-input: ok"
