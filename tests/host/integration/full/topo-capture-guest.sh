# numalab topo capture inside guests, and guests booted from what it wrote
# (issue 34's round trip): numalab itself runs in the guest (`-- CMD` runs in
# the host view, docs/byo.md) and reads the guest's own /sys; the file comes
# back through a --rw share; a guest booted from it passes the topology
# suite, which checks it against that file.  On 4node (SLIT only) and on cxl
# (CPU-less nodes, HMAT, memory-side caches): the statements sysfs shows
# exactly must come back as the shipped file declares them.
# Cost: four TCG boots, about 150 s on an idle 2-core machine.
. "$(dirname "$0")/../lib.bash"
mkdir -p "$SCRATCH/rt"
round_trip() {  # round_trip TOPO: capture inside it, then boot the capture
	expect_rc 0 $NUMALAB run --topo "$1" --tests none --rw "$SCRATCH/rt" --out "$SCRATCH/r-$1" \
		-- ./numalab topo capture "$SCRATCH/rt/$1.topo"
	expect_grep "^ok 1 exec: \./numalab topo capture " "$SCRATCH/out"
	expect_grep '^# Captured by `numalab topo capture` on numalab \(Linux ' "$SCRATCH/rt/$1.topo"
	for s in $(grep -E '^(node|distance) ' "topologies/$1.topo" | tr ' ' '~'); do
		grep -qx -- "$(echo "$s" | tr '~' ' ')" "$SCRATCH/rt/$1.topo" ||
			fail "$1: '$(echo "$s" | tr '~' ' ')' did not come back: $(cat "$SCRATCH/rt/$1.topo")"
	done
	expect_grep '^page-size 4K$' "$SCRATCH/rt/$1.topo"
	expect_grep '^pmd-size 2M$' "$SCRATCH/rt/$1.topo"
	expect_rc 0 $NUMALAB run --topo "$SCRATCH/rt/$1.topo" --tests topology --out "$SCRATCH/b-$1"
	expect_grep '^ok 1 topology$' "$SCRATCH/out"
	expect_grep '^    ok [0-9]+ distance matrix$' "$SCRATCH/out"
	expect_grep '^    ok [0-9]+ node3 memory$' "$SCRATCH/out"
	expect_grep '^    ok [0-9]+ page size 4096$' "$SCRATCH/out"
	expect_no_qemu
}
round_trip 4node
round_trip cxl
# HMAT: the pairs sysfs shows (each target's initiator) come back exact, so
# the guest's access0 and tiers checks ran and passed.
for s in 'hmat-lb 0 2 latency=250 bandwidth=10G' 'hmat-lb 1 3 latency=250 bandwidth=10G' \
	 'hmat-lb 0 0 latency=80 bandwidth=22G' 'hmat-cache 2 size=64K level=1 line=64 policy=write-back assoc=direct'; do
	grep -qx -- "$s" "$SCRATCH/rt/cxl.topo" || fail "cxl: '$s' did not come back"
done
expect_grep '^    ok [0-9]+ node2 hmat access0 from node0$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ memory tiers: CPU-less nodes below CPU nodes, or in their tier where the HMAT rule keeps them$' "$SCRATCH/out"
