# numalab mutate refuses a request it cannot carry out with exit 2 and one
# line naming what to fix, before building or booting anything.
. "$(dirname "$0")/lib.bash"
M() { $NUMALAB mutate --topo 4node --tests mempolicy --out "$SCRATCH/m" "$@"; }

expect_rc 2 M --kernel debian --file mm/mempolicy.c
expect_grep 'mutants need a kernel built from source' "$SCRATCH/err"
expect_rc 2 M --kernel stock --file /abs/mm/mempolicy.c
expect_grep 'give a C file of the kernel tree, relative to its top' "$SCRATCH/err"
expect_rc 2 M --kernel stock --file mm/mempolicy.h
expect_grep 'file mm/mempolicy.h: give a C file' "$SCRATCH/err"
expect_rc 2 M --kernel stock
expect_grep 'give .-file mm/FILE.c' "$SCRATCH/err"
expect_rc 2 M --kernel stock --patch-lines
expect_grep 'patch-lines mutates the lines the --patch files add' "$SCRATCH/err"
expect_rc 2 M --kernel stock --file mm/mempolicy.c --ids 123
expect_grep '"123" is no mutant id' "$SCRATCH/err"
expect_rc 2 $NUMALAB mutate --kernel stock --file mm/mempolicy.c --topo nosuchshape --tests mempolicy
expect_grep 'nosuchshape' "$SCRATCH/err"
expect_rc 2 $NUMALAB mutate --kernel stock --file mm/mempolicy.c --topo 4node,la-2node --tests policy
expect_grep 'topo 4node,la-2node: 4node is x86_64, la-2node is loongarch64: one kernel is mutated' "$SCRATCH/err"
expect_rc 2 $NUMALAB mutate --kernel stock --file mm/mempolicy.c --topo 4node,cxl,4node --tests policy
expect_grep 'topo 4node,cxl,4node: 4node twice' "$SCRATCH/err"
expect_rc 2 $NUMALAB mutate --kernel stock --file mm/mempolicy.c --topo 4node, --tests policy
expect_grep 'topo 4node,: an empty name in the list' "$SCRATCH/err"
printf '0123456789ab the loop never runs\n0123456789ab\n' >"$SCRATCH/eq"
expect_rc 2 M --kernel stock --file mm/mempolicy.c --equivalents "$SCRATCH/eq"
expect_grep "$SCRATCH/eq:2: mutant 0123456789ab has no reason" "$SCRATCH/err"
[ ! -e "$SCRATCH/m" ] || fail "a refused request left $SCRATCH/m behind"
echo "mutate-bad-input: ok"
