# A guest without a virtio console, as on a board (--tap-channel serial): its
# TAP comes framed on the serial console among the kernel's messages
# (loglevel=6 here), is read back whole, and the cell passes as a virtio one
# does; LAVA's test-case signals are on the console, one per KTAP leaf.
. "$(dirname "$0")/lib.bash"
expect_rc 0 $NUMALAB run --topo 2node --tests topology --tap-channel serial --out "$SCRATCH/r"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^ok 1 topology$' "$cell/tap"
expect_grep '^    ok [0-9]+ distance matrix$' "$cell/tap"
expect_grep '^# numalab: done$' "$cell/tap"
expect_grep '^tap\.channel: serial: [1-9][0-9]* frames, [0-9]+ mended, 0 broken, 0 duplicates$' "$cell/meta"
expect_grep '^end: poweroff$' "$cell/meta"
# The QEMU had no virtio console; the guest was told so.
expect_grep '^command: .*numalab\.tap=serial' "$cell/meta"
grep -q 'virtconsole' "$cell/meta" && fail "a serial-TAP guest got the virtio console"
expect_grep '^NLTAP:0:[0-9a-f]{8}:KTAP version 1$' "$cell/console.log"
expect_grep '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=topology\.distance_matrix RESULT=pass>' "$cell/console.log"
# One signal per leaf: as many as the TAP's results at depth 1.
leaves=$(grep -c -E '^    (not )?ok ' "$cell/tap")
signals=$(grep -c '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=topology\.' "$cell/console.log")
[ "$leaves" = "$signals" ] || fail "$leaves leaves but $signals LAVA signals"
# The verdict lines a virtio cell prints.
expect_grep '^numalab run: 2node: 1 passed, 0 failed, 0 skipped; their [0-9]+ results' "$SCRATCH/err"
[ -s "$cell/initrd.cpio" ] || fail "a serial-TAP cell keeps the initramfs it booted (a board's)"
expect_no_qemu
