# numalab mutate kills a fixed sample of mutants of the interleave and
# collapse-node code with the lab's suites (4node, topology, mempolicy,
# khugepaged): one of them surviving fails the test.  Then the same --out
# resumes: nothing is built or run again, the reports stay the same.
# The ids are from the mutation run of issue 18 (docs/mutate.md); a change
# of mm/mempolicy.c or mm/khugepaged.c in the stock recipe changes them, and
# --ids then says which one is gone.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
# khugepaged.c: collapse_find_target_node's tie mask == to !=, its max-load test
# if (0); alloc_charge_folio's charge failure forced, the folio not handed back.
IDS=0078f37d3bec,867a293cbefa,7970ae7bb65d,6ef893045c7b
# mempolicy.c: the weights' sysfs show and store, get_il_weight + 1, the task
# path's weight refill forced, the bulk paths (weighted: a remainder off by
# one; plain: the per-node split off by one).
IDS=$IDS,00274b22e00d,046d91dd1660,0391994643e4,05d8f5b215b4,015b5132567d,0a2318084026
ARGS=(--kernel stock --file mm/khugepaged.c --file mm/mempolicy.c
      --function collapse_find_target_node --function alloc_charge_folio
      --function node_show --function node_store --function get_il_weight
      --function weighted_interleave_nodes --function alloc_pages_bulk_weighted_interleave
      --function alloc_pages_bulk_interleave
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
