# Two runs at once with the same --out never share a run directory (nor
# anything else: their channels are socket pairs, not named sockets).
. "$(dirname "$0")/lib.bash"
for i in 1 2; do
	$NUMALAB run --topo 2node --tests topology --quiet --timeout 240 --out "$SCRATCH/r" \
		>"$SCRATCH/out$i" 2>"$SCRATCH/err$i" &
	pids[$i]=$!
done
for i in 1 2; do
	wait ${pids[$i]}
	rc=$?
	[ $rc = 0 ] || { cat "$SCRATCH/err$i"; fail "run $i exited $rc"; }
done
runs=("$SCRATCH"/r/*/)
[ ${#runs[@]} = 2 ] || fail "want 2 run directories, got ${#runs[@]}: ${runs[*]}"
for d in "${runs[@]}"; do
	expect_grep '^complete$' "$d/state"
	expect_grep '^ok 1 topology$' "$d"/*/tap
	[ "$(grep -c '^ok 1 topology$' "$d"/*/tap)" = 1 ] || fail "$d: TAP of two runs mixed"
done
expect_no_tmp_files "$SCRATCH/r"
expect_no_qemu
