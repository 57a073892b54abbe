# numalab mutate kills a fixed sample of mutants of the interleave and
# collapse-node code with the lab's suites (4node, topology, mempolicy,
# khugepaged): one of them surviving fails the test.  Then the same --out
# resumes: nothing is built or run again, the reports stay the same.
# The ids are from the mutation run of issue 18 (docs/mutate.md); a change
# of mm/mempolicy.c or mm/khugepaged.c in the stock recipe changes them, and
# --ids then says which one is gone.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
# collapse_find_target_node: == to != in the tie mask, if (...) to if (0) on the max
# load, the loop index off by one; alloc_charge_folio: the allocation's
# result off by one, the charge failure forced, the folio not handed back.
IDS=0078f37d3bec,867a293cbefa,98d9351c470d,64c39db21270,7970ae7bb65d,6ef893045c7b
# mempolicy.c: interleave and weighted interleave (fault, task and bulk paths).
IDS=$IDS,@MEMPOLICY_IDS@
ARGS=(--kernel stock --file mm/khugepaged.c --file mm/mempolicy.c
      --function collapse_find_target_node --function alloc_charge_folio
      --function interleave_nodes --function weighted_interleave_nodes --function interleave_nid
      --function weighted_interleave_nid --function alloc_pages_bulk_interleave
      --function alloc_pages_bulk_weighted_interleave
      --topo 4node --tests topology,mempolicy,khugepaged --ids "$IDS" --out "$SCRATCH/m")

expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
n=$(echo "$IDS" | tr , '\n' | wc -l)
expect_grep "^all +$n +$n +0 " "$SCRATCH/out"
expect_grep "^score 100\.0%: $n killed of $n judged" "$SCRATCH/out"
for f in report.txt report.tap report.json report.html; do
	[ -s "$SCRATCH/m/$f" ] || fail "no $f"
done
expect_grep "^1\.\.$n$" "$SCRATCH/m/report.tap"
[ "$(grep -c '^ok .* # killed$' "$SCRATCH/m/report.tap")" = "$n" ] || fail "not $n killed in report.tap"
cp "$SCRATCH/m/report.txt" "$SCRATCH/first.txt"

expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep "$n mutants \($n already judged\)" "$SCRATCH/out"
cmp -s "$SCRATCH/first.txt" "$SCRATCH/m/report.txt" || fail "the resumed report differs"
expect_no_qemu
echo "mutate-sample: ok"
