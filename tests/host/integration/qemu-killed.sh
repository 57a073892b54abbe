# QEMU killed from outside mid-boot: not the guest's fault but the harness's.
# The cell reports ERROR with the reason, the run exits 3, the TAP stays
# well-formed, the state says error, and nothing is left running.
. "$(dirname "$0")/lib.bash"
$NUMALAB run --topo 2node --tests topology --out "$SCRATCH/r" >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
wait_for_qemu 30
sleep 2   # mid-boot
kill -9 $(our_qemu_pids)
wait $pid
rc=$?
[ $rc = 3 ] || { cat "$SCRATCH/err"; fail "runner exited $rc, want 3"; }
expect_grep '^numalab run: 2node: qemu killed by signal 9 \(not by numalab\) before the guest finished \(qemu.log: ' "$SCRATCH/err"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^not ok 1 topology # ERROR .*qemu killed by signal 9' "$cell/tap"
expect_grep '^1\.\.1$' "$cell/tap"
expect_grep '^end: qemu-failed$' "$cell/meta"
expect_grep '^error$' "$SCRATCH/r"/*/state
expect_no_tmp_files "$SCRATCH/r"
expect_no_qemu
