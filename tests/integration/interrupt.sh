# The runner interrupted (SIGINT, SIGTERM) or killed (SIGKILL) mid-boot never
# leaves a QEMU behind, and an interrupted run says so in its state.
. "$(dirname "$0")/lib.bash"
for sig in INT TERM KILL; do
	out="$SCRATCH/r-$sig"
	$NUMALAB run --topo 2node --quiet --out "$out" &
	pid=$!
	# Wait until QEMU is up, then signal the runner alone.
	for _ in $(seq 100); do pgrep -f -- "-name numalab-2node " >/dev/null && break; sleep 0.1; done
	pgrep -f -- "-name numalab-2node " >/dev/null || fail "QEMU never started"
	kill -s $sig $pid
	wait $pid
	rc=$?
	sleep 1
	expect_no_qemu 2node
	if [ $sig = KILL ]; then
		[ $rc = 137 ] || fail "SIGKILL: runner exit $rc"
		continue
	fi
	[ $rc = 1 ] || fail "SIG$sig: runner exited $rc, want 1"
	expect_grep '^interrupted$' "$(ls -d "$out"/*/)state"
	expect_grep '^end: interrupted$' "$(cell_dir "$out")meta"
	expect_grep 'runner interrupted by signal' "$(cell_dir "$out")tap"
done
