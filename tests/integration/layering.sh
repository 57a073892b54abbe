# The layering check (tests/layering, lab/layers) passes on the tree and
# fails, naming FILE:LINE, on a copy of lab/ with a back edge (base/ including
# the CLI's header) and on a copy with a cycle (base/util and base/proc
# including each other).
. "$(dirname "$0")/lib.bash"
expect_rc 0 tests/layering
[ ! -s "$SCRATCH/out" ] || fail "tests/layering printed on a clean tree: $(cat "$SCRATCH/out")"

cp -r lab "$SCRATCH/back"
echo '#include "cli/command.h"' >>"$SCRATCH/back/base/proc.c"
n=$(wc -l <"$SCRATCH/back/base/proc.c")
expect_rc 1 tests/layering "$SCRATCH/back"
expect_grep "^$SCRATCH/back/base/proc\.c:$n: base/ may not include cli/command\.h" "$SCRATCH/out"

cp -r lab "$SCRATCH/cycle"
echo '#include "base/proc.h"' >>"$SCRATCH/cycle/base/util.c"
n=$(wc -l <"$SCRATCH/cycle/base/util.c")
expect_rc 1 tests/layering "$SCRATCH/cycle"
expect_grep "^$SCRATCH/cycle/base/util\.c:$n: base/util includes base/proc\.h, closing a cycle" "$SCRATCH/out"
expect_grep "^$SCRATCH/cycle/base/proc\.[ch]:[0-9]+: base/proc includes base/util\.h, closing a cycle" "$SCRATCH/out"
