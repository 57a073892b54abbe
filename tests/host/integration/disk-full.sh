# The results directory's disk fills up: a clear error, exit 3, no
# half-written file, no QEMU left.  Needs root (a small tmpfs as --out).
. "$(dirname "$0")/lib.bash"
[ "$(id -u)" = 0 ] || fail "needs root to mount a tmpfs"
mnt="$SCRATCH/small"
mkdir -p "$mnt"
mount -t tmpfs -o size=1m numalab-full "$mnt" || fail "cannot mount a tmpfs"
trap 'umount -l "$mnt"; rm -rf "$SCRATCH"' EXIT
# Too small for the run's initrd: refused before any VM starts.
expect_rc 3 $NUMALAB run --topo 2node --tests topology --out "$mnt/r"
expect_grep '^numalab run: cannot write .*/initrd\.cpio: No space left on device$' "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"
expect_grep '^error$' "$mnt"/r/*/state
expect_no_tmp_files "$mnt"
expect_no_qemu
# Full while the guest runs: the TAP cannot be kept, so the run says so.
umount "$mnt"
mount -t tmpfs -o size=64m numalab-full "$mnt" || fail "cannot mount a tmpfs"
$NUMALAB run --topo 2node --tests topology --timeout 120 --out "$mnt/r" >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
wait_for_qemu 60
dd if=/dev/zero of="$mnt/filler" bs=1M 2>/dev/null
wait $pid
rc=$?
[ $rc = 3 ] || { cat "$SCRATCH/err"; fail "runner exited $rc, want 3"; }
expect_grep '^numalab run: cannot write .*(tap|meta).*No space left on device' "$SCRATCH/err"
expect_no_tmp_files "$mnt"
expect_no_qemu
