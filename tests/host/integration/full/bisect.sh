# The bisect demo, end to end: Debian's linux-source-7.2 plus a series of
# seven commits (five harmless fillers and the two wi-carryover patches)
# made into a git tree; `numalab bisect` between the source and the last
# commit must name the prerequisite "simplify ... calculations" within
# ceil(log2 7)+1 = 4 kernel builds, each step in the log with its verdict:
# its `if (delta && delta < weight)` no longer moves the resume node when
# the remainder ends exactly at a node, so the next page repeats that node,
# which the bulk tests' replay of every step sees (issue 18; before it, the
# seed's own bug in "skip extra call" was the first one the tests saw).
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
series=tests/host/integration/full/bisect-series
tree=$SCRATCH/linux
expect_rc 0 $NUMALAB kernel git-tree "$tree" \
	$series/filler-1-*.patch kernels/patches/wi-carryover/0001-*.patch \
	$series/filler-2-*.patch kernels/patches/wi-carryover/0002-*.patch \
	$series/filler-3-*.patch $series/filler-4-*.patch $series/filler-5-*.patch
[ "$(git -C "$tree" rev-list --count base..HEAD)" = 7 ] || fail "the tree should have 7 commits on base"
# The same inputs make the same commits.
expect_rc 2 $NUMALAB kernel git-tree "$tree"
expect_grep 'exists; remove it' "$SCRATCH/err"

start=$(date +%s)
expect_rc 0 $NUMALAB bisect --ksrc "$tree" --good base --bad HEAD --topo 2node \
	--test "mempolicy:bulk weighted interleave" --out "$SCRATCH/results"
cat "$SCRATCH/out"
log=$(sed -n 's/^log: //p' "$SCRATCH/out")
cat "$log"
expect_grep '^first bad commit: [0-9a-f]{12} mm/mempolicy: simplify weighted interleave bulk alloc calculations$' "$log"
builds=$(sed -n 's/.*kernel builds: \([0-9]*\) (at most.*/\1/p' "$log")
[ -n "$builds" ] && [ "$builds" -le 4 ] || fail "the bisect took $builds kernel builds, more than 4"
expect_grep '^  verdict: bad \(mempolicy: subtest .bulk weighted interleave' "$log"
expect_grep '^  verdict: good \(mempolicy: the [0-9]+ subtests' "$log"
# The tree is left as it was, not mid-bisect.
git -C "$tree" bisect log >/dev/null 2>&1 && fail "the tree was left bisecting"
[ "$(git -C "$tree" rev-parse HEAD)" = "$(git -C "$tree" rev-parse main)" ] || fail "HEAD moved"
expect_no_qemu 2node
echo "# bisect: $(($(date +%s) - start)) s, $builds kernel builds"
