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

# Ctrl-C or SIGTERM during a step's kernel build (or its guest, when the
# step's kernel is cached) stops that too: they run in process groups of
# their own, under git's.  Nothing of the bisect's session
# is left, the tree is reset, and the summary says it was interrupted.
setsid $NUMALAB bisect --ksrc "$tree" --good base --bad HEAD --topo 2node \
	--test mempolicy --out "$SCRATCH/interrupted" >"$SCRATCH/int.out" 2>&1 &
sid=$!
in_session() { ps -eo sid=,pid=,comm= | awk -v s="$sid" '$1 == s { print $2, $3 }'; }
busy=' (make|qemu-system-x86)$'
for _ in $(seq 600); do in_session | grep -q -E "$busy" && break; sleep 0.5; done
in_session | grep -q -E "$busy" || fail "no kernel build or guest started within 300 s"
kill -TERM "$sid"
wait "$sid"
[ $? = 3 ] || fail "an interrupted bisect should exit 3"
for _ in $(seq 20); do [ -z "$(in_session)" ] && break; sleep 0.5; done
[ -z "$(in_session)" ] || { in_session >&2; fail "processes of the interrupted bisect are left"; }
git -C "$tree" bisect log >/dev/null 2>&1 && fail "the interrupted bisect left the tree bisecting"
expect_grep '^interrupted: no verdict' "$SCRATCH/int.out"
expect_grep 'verdict: abort \(interrupted\)' "$(sed -n 's/^log: //p' "$SCRATCH/int.out")"

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
