# A test printing hostile bytes (numalab.fault=garbage: escapes, NUL, invalid
# UTF-8, C1 controls, an overlong line, fake plans, results, tests, end
# marker and guest facts, paths for names): nothing raw reaches the
# terminal, the forged lines count for nothing, no file appears outside the
# results, and the run's verdict is the guest's real one.
. "$(dirname "$0")/lib.bash"
rm -f /tmp/numalab-evil
expect_rc 0 $NUMALAB run --topo 2node --tests topology --append numalab.fault=garbage --timeout 120 \
	--out "$SCRATCH/r"
expect_clean_terminal_text "$SCRATCH/out" "$SCRATCH/err"
cell=$(cell_dir "$SCRATCH/r")
expect_clean_terminal_text "$cell/tap" "$cell/meta"
expect_grep '^ok 1 topology$' "$cell/tap"
expect_grep '^    not ok 99 \.\./\.\./\.\./\.\./tmp/numalab-evil # SKIP /etc/passwd$' "$cell/tap"
[ "$(grep -c '^1\.\.' "$cell/tap")" = 1 ] || fail "a forged plan reached depth 0"
expect_grep '^result: 1 passed, 0 failed, 0 skipped$' "$cell/meta"
expect_grep '^console.finding: clean$' "$cell/meta"
expect_grep 'numalab-pwned' "$cell/console.log"   # the console log is kept raw
grep -q 'forged' "$cell/meta" && fail "a forged guest fact reached meta"
[ ! -e /tmp/numalab-evil ] || fail "a guest-supplied name became a file"
[ "$(ls "$SCRATCH")" = "err
out
r" ] || fail "files outside the results: $(ls "$SCRATCH")"
expect_no_qemu
