# Guest disks (docs/images.md): build the Debian image (cached by its
# inputs), boot 2node from an overlay of it, and read the results back out
# of the overlay: equal to the streamed TAP.  Then a guest whose TAP channel
# is gone (virtio-console's init skipped) and whose kernel crashes after the
# first test: the results come from the disk.  Costs ~2 min of libguestfs per
# run under TCG (inject + readback), plus the first build's debootstrap.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"

# No QEMU may outlive a run: ours are the ones on this test's overlays
# (expect_no_qemu would also see other runs of 2node on a shared host).
expect_no_disk_qemu() {
	! pgrep -f -- "file=$SCRATCH/" >/dev/null || fail "a QEMU on an overlay under $SCRATCH is still running"
}

start=$(date +%s)
expect_rc 0 $NUMALAB image build debian
image=$(tail -n 1 "$SCRATCH/out")
[ -f "$image" ] || fail "image build printed '$image', not a file"
echo "# image build: $(($(date +%s) - start)) s ($(grep -o 'cached\|built' "$SCRATCH/err" | tail -n 1))"
expect_rc 0 $NUMALAB image build debian
expect_grep 'debian cached' "$SCRATCH/err"
[ "$(tail -n 1 "$SCRATCH/out")" = "$image" ] || fail "a second build gave another image"

# The tests run with the disk's userland; TAP streamed and read back agree.
start=$(date +%s)
expect_rc 0 $NUMALAB run --topo 2node --tests topology --disk "$image" --timeout 600 --out "$SCRATCH/r1"
echo "# disk run: $(($(date +%s) - start)) s"
expect_grep '^ok 1 topology$' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r1")
expect_grep "^disk: $image \\(overlay disk.qcow2, root /dev/sda1, in the guest /dev/vda1\\)\$" "$cell/meta"
expect_grep '^tap.source: stream \(stream [0-9]+ bytes complete, disk [0-9]+ bytes complete\)$' "$cell/meta"
expect_grep '^guest: cmdline: .*numalab.root=/dev/vda1' "$cell/meta"
cmp "$cell/tap" "$cell/tap.disk" || fail "the TAP read back from the disk differs from the stream"
expect_grep 'root /dev/vda1 mounted' "$cell/console.log"
expect_no_disk_qemu

# No TAP channel, then a kernel crash: only the disk has the first result.
start=$(date +%s)
expect_rc 1 $NUMALAB run --topo 2node --tests topology,crash --disk "$image" --timeout 600 \
	--append initcall_blacklist=virtio_console_init --out "$SCRATCH/r2"
echo "# crash run: $(($(date +%s) - start)) s"
cell=$(cell_dir "$SCRATCH/r2")
expect_grep '^end: crashed$' "$cell/meta"
expect_grep '^tap.source: disk \(stream 0 bytes, disk [0-9]+ bytes\)$' "$cell/meta"
expect_grep '^ok 1 topology$' "$cell/tap"
expect_grep '^not ok 2 crash # ERROR (not run: )?kernel panic' "$cell/tap"
expect_grep '^ok 1 topology$' "$SCRATCH/out"
expect_grep 'sysrq triggered crash' "$cell/console.log"
expect_no_disk_qemu
