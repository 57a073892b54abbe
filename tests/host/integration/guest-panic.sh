# A kernel panic is seen on the console, reported in TAP and meta, exit 1.
. "$(dirname "$0")/lib.bash"
# No /init to run: the kernel panics after unpacking the initramfs.
# maxcpus=1: with more than one vCPU, QEMU 7.2's multi-threaded TCG (Debian
# 12's) now and then runs a stale translation of a static-key site another
# vCPU has just patched, and the boot dies of "Oops: int3" in
# update_sd_lb_stats() before it reaches the panic (here in 1 of 24 boots;
# reported against QEMU 7.2's TCG and gone with 8.x: ClangBuiltLinux's
# boot-utils#111, continuous-integration2#570).  A run boots a crash before
# /init once more, and that race's int3 oops up to three times; this crash is
# a panic, meant, so it boots twice and no more.
expect_rc 1 $NUMALAB run --topo 2node --append "rdinit=/nonexistent maxcpus=1" --timeout 120 --out "$SCRATCH/r"
expect_grep '^not ok 1 topology # ERROR (not run: )?kernel (panic|oops)' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^end: crashed$' "$cell/meta"
expect_grep '^console.finding: panic$' "$cell/meta"
expect_grep '^retried: yes: crashed before /init, console.attempt1.log$' "$cell/meta"
expect_grep 'Kernel panic - not syncing' "$cell/console.attempt1.log"
[ ! -e "$cell/console.attempt2.log" ] || fail "a panic is not the int3 race: booted a third time"
# The report's first lines follow in the TAP as diagnostics.
expect_grep '^# console: .*Kernel panic - not syncing' "$cell/tap"
[ "$(grep -c '^# console: ' "$cell/tap")" -ge 2 ] || fail "want the report's first lines in the TAP"
expect_grep 'Kernel panic - not syncing' "$cell/console.log"
# With the TAP on the serial console (--tap-channel serial, as on a board)
# there is no channel to say /init started: the console's start line tells,
# and the same crash is booted again.
expect_rc 1 $NUMALAB run --topo 2node --tap-channel serial --append "rdinit=/nonexistent maxcpus=1" \
	--timeout 120 --out "$SCRATCH/s"
cell=$(cell_dir "$SCRATCH/s")
expect_grep '^retried: yes: crashed before /init, console.attempt1.log$' "$cell/meta"
expect_grep 'Kernel panic - not syncing' "$cell/console.attempt1.log"
expect_no_qemu
