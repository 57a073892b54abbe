# Each libFuzzer target (ASan+UBSan) replays its committed corpus and fuzzes
# a few seconds more: the seeds and past crashers must stay fixed.
# `make fuzz` is the long run (tests/host/fuzz/README.md).
. "$(dirname "$0")/lib.bash"
for src in tests/host/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	bin=build/fuzz/$t
	[ -x "$bin" ] || fail "$bin is not built (make check builds it; needs clang's libFuzzer: make setup)"
	mkdir -p "$SCRATCH/$t"
	"$bin" -max_total_time=3 -artifact_prefix="$SCRATCH/$t-" "$SCRATCH/$t" "tests/host/fuzz/corpus/${t#fuzz_}" \
		>"$SCRATCH/$t.log" 2>&1 || { tail -n 40 "$SCRATCH/$t.log" >&2; fail "$t found a crash"; }
	grep -q 'Done [0-9]* runs\|DONE' "$SCRATCH/$t.log" || { tail -n 20 "$SCRATCH/$t.log" >&2; fail "$t did not run"; }
done
