# The runner interrupted (SIGINT, SIGTERM, SIGHUP) or killed (SIGKILL)
# mid-boot never leaves a QEMU behind, and an interrupted run keeps its TAP
# and says so in its state.
. "$(dirname "$0")/lib.bash"
for sig in INT TERM HUP KILL; do
	out="$SCRATCH/r-$sig"
	$NUMALAB run --topo 2node --quiet --out "$out" &
	pid=$!
	# Wait until QEMU is up, then signal the runner alone.
	wait_for_qemu 30
	kill -s $sig $pid
	wait $pid
	rc=$?
	expect_no_qemu
	if [ $sig = KILL ]; then
		[ $rc = 137 ] || fail "SIGKILL: runner exit $rc"
		continue
	fi
	[ $rc = 3 ] || fail "SIG$sig: runner exited $rc, want 3 (interrupted: the lab stopped, no verdict)"
	expect_grep '^interrupted$' "$(ls -d "$out"/*/)state"
	expect_grep '^end: interrupted$' "$(cell_dir "$out")meta"
	expect_grep '^not ok 1 topology # ERROR .*runner interrupted by signal' "$(cell_dir "$out")tap"
	expect_grep '^1\.\.2$' "$(cell_dir "$out")tap"
	expect_no_tmp_files "$out"
done
