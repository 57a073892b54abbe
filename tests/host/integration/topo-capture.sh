# numalab topo capture on this host: the file it writes validates and reads
# back as the same shape; '-' and no FILE are stdout; a FILE that cannot be
# written is exit 3 with nothing left behind.  Also `topo list` names every
# shipped topology and `topo show --format topo` writes each one back as the
# same shape.  (The round trip through guests: full/topo-capture-guest.sh.)
. "$(dirname "$0")/lib.bash"
expect_rc 0 $NUMALAB topo capture "$SCRATCH/host.topo"
expect_grep "^$SCRATCH/host.topo: (x86_64|loongarch64), [0-9]+ nodes?, [0-9]+ CPUs, [0-9]+ MiB" "$SCRATCH/out"
expect_rc 0 $NUMALAB topo check "$SCRATCH/host.topo"
expect_rc 0 $NUMALAB topo show "$SCRATCH/host.topo"
expect_grep '^  Captured by `numalab topo capture` on ' "$SCRATCH/out"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
expect_grep "^(x86_64|loongarch64) \(QEMU machine [a-z0-9]+\): $nodes (nodes|\()" "$SCRATCH/out"
expect_grep "^page size $(( $(getconf PAGESIZE) / 1024 ))K" "$SCRATCH/out"
# The CPUs and nodes are this machine's.
expect_grep ", $nodes nodes?, $(ls -d /sys/devices/system/node/node*/cpu[0-9]* | wc -l) CPUs" <(./numalab topo check "$SCRATCH/host.topo")
for dash in "" "-"; do
	expect_rc 0 $NUMALAB topo capture $dash
	grep -v '^#' "$SCRATCH/out" >"$SCRATCH/stdout.topo"
	grep -v '^#' "$SCRATCH/host.topo" | cmp -s - "$SCRATCH/stdout.topo" ||
		fail "topo capture ${dash:-(no FILE)} differs from the file it wrote"
done
expect_rc 3 $NUMALAB topo capture "$SCRATCH/no/such/dir/x.topo"
expect_grep "^numalab topo capture: .*no/such/dir" "$SCRATCH/err"
[ ! -e "$SCRATCH/no" ] || fail "a FILE that could not be written left something"
expect_rc 2 $NUMALAB topo capture a b
expect_grep "^numalab topo capture: give at most one FILE" "$SCRATCH/err"

# topo list: one line per shipped topology, its description's first sentence.
expect_rc 0 $NUMALAB topo list
[ "$(($(wc -l <"$SCRATCH/out") - 1))" = "$(ls topologies/*.topo | wc -l)" ] || fail "topo list: not one line per topology"
expect_grep '^cxl +x86_64 +4 \(2 CPU-less\) +4 +2G +Two CPU sockets' "$SCRATCH/out"
expect_grep '^la-2node +loongarch64 +2 +4 +2G +LoongArch: ' "$SCRATCH/out"
for t in topologies/*.topo; do
	expect_rc 0 $NUMALAB topo show --format topo "$t"
	cp "$SCRATCH/out" "$SCRATCH/again.topo"
	expect_rc 0 $NUMALAB topo show --format topo "$SCRATCH/again.topo"
	cmp -s "$SCRATCH/out" "$SCRATCH/again.topo" || fail "$t: --format topo does not read back the same"
	grep -v '^#' "$t" | sed 's/ *#.*//' | grep -v '^memory\|^$' >"$SCRATCH/a"
	grep -v '^#\|^memory' "$SCRATCH/again.topo" >"$SCRATCH/b"
	cmp -s "$SCRATCH/a" "$SCRATCH/b" || { diff "$SCRATCH/a" "$SCRATCH/b" >&2; fail "$t: --format topo changed a statement"; }
done
