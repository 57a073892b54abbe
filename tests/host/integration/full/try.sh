# numalab try on the seed patches (docs/try.md), its three claims:
#  - wi-carryover on 2node with mempolicy exits 1 (a regression), names the
#    failing bulk weighted-interleave sequence with what the test printed,
#    and judges seed 000's claim on bulk_calls with its statistics;
#  - khugepaged-numa on 4node and cxl with khugepaged exits 0 and reports
#    khugepaged's allowed CPUs as behaviour (following node 0 on 4node, not
#    moving for cxl's CPU-less nodes);
#  - interrupted during its cells and run again with the same --out, it
#    resumes: no kernel rebuilt, finished cells kept, the same verdict.
# The stock kernel builds once (cached), each patched one incrementally.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"

out=$SCRATCH/wi
$NUMALAB try kernels/patches/wi-carryover/*.patch --topos 2node --suites mempolicy \
	--expect 'bulk_calls decreases' --out "$out" --kcidb "$SCRATCH/wi.json" >"$SCRATCH/wi.log" 2>&1
rc=$?
cat "$SCRATCH/wi.log"
[ $rc = 1 ] || fail "wi-carryover: exit $rc, want 1 (a regression)"
head -n 1 "$out/report.txt" | grep -q 'REGRESSION$' || fail "the report does not lead with the verdict"
expect_grep '^  bulk_calls decreases: (holds|does not hold|cannot be judged here) ' "$out/report.txt"
expect_grep '^    mempolicy/bulk weighted interleave weights .* patched: 0 pass [1-9]' "$out/report.txt"
expect_grep '^      \| map [0-9]+ \([0-9]+ pages\): (batch [0-9]+: kernel asked N0=[0-9]+.*, model N0=|single-page step [0-9]+ went to node [0-9]+, model: node )' "$out/report.txt"
expect_grep '^    changed +bulk_calls\.map[0-9]+_[0-9]+_pages .* q ' "$out/report.txt"
expect_grep 'EMULATED NUMA' "$out/report.txt"
expect_grep '^not ok [0-9]+ - 2node tests: [1-9][0-9]* broken' "$out/try.tap"
python3 -m json.tool "$out/try.json" >/dev/null || fail "try.json does not parse"
expect_grep '"verdict": "regression", "exit": 1' "$out/try.json"
expect_grep '<svg' "$out/try.html"
! grep -q '<script' "$out/try.html" || fail "try.html has a script"
expect_grep "default-src 'none'" "$out/try.html"
expect_grep 'mm/mempolicy: skip extra call to __alloc_pages_bulk in weighted interleave .*sha256:' "$out/report.txt"
# KCIDB (docs/kcidb.md): valid; base and patched are two checkouts, the
# patched one's patchset_hash KCIDB's sha256 over its patches' sha256s
# (meta kernel.patches, in order), computed here with sha256sum.
tests/host/kcidb/validate "$SCRATCH/wi.json" || fail "the try's KCIDB JSON is not valid"
patched_meta=$(ls "$out"/matrix/cells/2node.patched.*/*/*/meta | head -n 1)
hashes=$(sed -n 's/^kernel\.patches: //p' "$patched_meta" | grep -o 'sha256:[0-9a-f]\{64\}' | cut -c8-)
[ -n "$hashes" ] || fail "no patches in $patched_meta"
want=$(printf '%s\n' $hashes | sha256sum | cut -c-64)
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sorted(c['patchset_hash'] for c in d['checkouts']))" \
	"$SCRATCH/wi.json" | grep -q "$want" || fail "no checkout with the patched kernel's patchset_hash $want"
[ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['checkouts']))" "$SCRATCH/wi.json")" = 2 ] ||
	fail "base and patched are not two checkouts"

out=$SCRATCH/kh
$NUMALAB try kernels/patches/khugepaged-numa/*.patch --topos 4node,cxl --suites khugepaged \
	--out "$out" >"$SCRATCH/kh.log" 2>&1
rc=$?
cat "$SCRATCH/kh.log"
[ $rc = 0 ] || fail "khugepaged-numa: exit $rc, want 0"
expect_grep '^== 4node .*: no regression$' "$out/report.txt"
expect_grep '^== cxl .*: no regression$' "$out/report.txt"
# shape NAME: that shape's part of the report.
shape() { sed -n "/^== $1 /,/^\$/p" "$out/report.txt"; }
shape 4node >"$SCRATCH/4node"
shape cxl >"$SCRATCH/cxl"
# 4node: one CPU a node; after a collapse on node N khugepaged may run on node N's CPU only.
expect_grep '^    khugepaged node0\.khugepaged_cpus_allowed: base "0-3 -> 0-3", patched "[0-9-]+ -> 0"$' "$SCRATCH/4node"
expect_grep '^    khugepaged node3\.khugepaged_cpus_allowed: base "0-3 -> 0-3", patched "[0-9-]+ -> 3"$' "$SCRATCH/4node"
# cxl: nodes 0, 1 have CPUs 0-1, 2-3; nodes 2, 3 have none: khugepaged stays where it was.
expect_grep '^    khugepaged node0\.khugepaged_cpus_allowed: base "0-3 -> 0-3", patched "[0-9-]+ -> 0-1"$' "$SCRATCH/cxl"
for n in 2 3; do
	grep -E "^    khugepaged node$n\.khugepaged_cpus_allowed: " "$SCRATCH/cxl" >"$SCRATCH/line" ||
		fail "cxl: no allowed-CPUs fact for node $n"
	grep -qE 'patched "([0-9-]+) -> \1"$' "$SCRATCH/line" || fail "cxl node $n: khugepaged moved: $(cat "$SCRATCH/line")"
done

# Interrupted while its cells run, then resumed with the same --out.
out=$SCRATCH/resume
setsid $NUMALAB try kernels/patches/khugepaged-numa/*.patch --topos 4node --suites khugepaged \
	--repeat 2 --jobs 1 --out "$out" >"$SCRATCH/r1.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
	grep -q '^\[1/4\]' "$SCRATCH/r1.log" && break
	sleep 1
done
kill -INT -- -$pid
wait $pid
rc=$?
cat "$SCRATCH/r1.log"
[ $rc = 3 ] || fail "interrupted try: exit $rc, want 3"
expect_grep "interrupted; run the same command with --out $out to resume" "$SCRATCH/r1.log"
expect_grep 'interrupted: no verdict written' "$SCRATCH/r1.log"
[ ! -e "$out/report.txt" ] || fail "an interrupted try wrote a verdict"
$NUMALAB try kernels/patches/khugepaged-numa/*.patch --topos 4node --suites khugepaged \
	--repeat 2 --jobs 1 --out "$out" >"$SCRATCH/r2.log" 2>&1
rc=$?
cat "$SCRATCH/r2.log"
[ $rc = 0 ] || { cat "$out/report.txt"; fail "resumed try: exit $rc"; }
expect_grep 'kernel for x86_64 ready \(cached' "$SCRATCH/r2.log"
! grep -q 'building ' "$SCRATCH/r2.log" || fail "the resumed try rebuilt a kernel"
expect_grep 'resuming .*: [1-9] of 4 cells already finished \(kept\)' "$SCRATCH/r2.log"
expect_grep '^== 4node .*: no regression$' "$out/report.txt"
echo "try: ok"
