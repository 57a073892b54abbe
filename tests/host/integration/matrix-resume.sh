# numalab matrix for real: three 2node cells, two at a time; SIGINT once the
# first cell finished; the same --out again resumes (finished cells kept,
# the rest run); then matrix.tap, junit.xml and summary.txt are checked.
. "$(dirname "$0")/lib.bash"
m="$SCRATCH/t.matrix"
out="$SCRATCH/mx"
cat >"$m" <<'MATRIX'
topology 2node
kernel debian
kernel madv = debian transparent_hugepage=madvise
suite topology
repeat 2 kernel=debian
timeout 300
MATRIX

# A bad file is rejected before anything runs, naming file and line.
printf 'topology 2node\nkernel debian\nsuite topology\nexclude suite=topolgy\n' >"$SCRATCH/bad.matrix"
expect_rc 2 $NUMALAB matrix "$SCRATCH/bad.matrix" --out "$SCRATCH/bad"
expect_grep 'bad.matrix:4: suite=topolgy matches no declared suite' "$SCRATCH/err"
[ ! -e "$SCRATCH/bad" ] || fail "a bad matrix created its --out"
# A host-test folder is no suite: suites are found under tests/guest/suites/ only.
printf 'topology 2node\nkernel debian\nsuite unit\n' >"$SCRATCH/host.matrix"
expect_rc 2 $NUMALAB matrix "$SCRATCH/host.matrix" --dry-run --out /o
expect_grep "host.matrix:3: suite 'unit' is not a guest suite under tests/guest/suites/" "$SCRATCH/err"

# The cells' commands: kernel arguments and libvirt hosts pass through, shards split by index.
cp "$m" "$SCRATCH/hosts.matrix"
echo 'host qemu+ssh://lab1/system capacity 2' >>"$SCRATCH/hosts.matrix"
expect_rc 0 $NUMALAB matrix "$SCRATCH/hosts.matrix" --dry-run --shard 1/2 --out /o
[ "$(cat "$SCRATCH/out")" = "1    2node.debian.topology.r2: run --topo=2node --kernel=debian --tests=topology --out=/o/cells/2node.debian.topology.r2 --timeout=300 --backend=libvirt --uri=qemu+ssh://lab1/system" ] ||
	fail "dry run: $(cat "$SCRATCH/out")"
expect_rc 0 $NUMALAB matrix "$m" --dry-run --shard 0/2 --out /o
expect_grep '^2    2node\.madv\.topology\.r1: run .* --append=transparent_hugepage=madvise$' "$SCRATCH/out"

$NUMALAB matrix "$m" --jobs 2 --out "$out" >"$SCRATCH/run1" 2>&1 &
pid=$!
for _ in $(seq 1500); do
	grep -q '^\[1/3\] ' "$SCRATCH/run1" && break
	kill -0 $pid 2>/dev/null || { cat "$SCRATCH/run1" >&2; fail "the matrix ended before any cell finished"; }
	sleep 0.2
done
grep -q '^\[1/3\] ' "$SCRATCH/run1" || { kill -INT $pid; wait $pid; cat "$SCRATCH/run1" >&2; fail "no cell finished"; }
kill -INT $pid
wait $pid
rc=$?
[ $rc = 3 ] || { cat "$SCRATCH/run1" >&2; fail "interrupted matrix exited $rc, want 3"; }
sleep 1
# No QEMU of this matrix is left (its initrd lives under $out; other 2node runs may be about).
if pgrep -f -- "-initrd $out/" >/dev/null; then
	pgrep -af -- "-initrd $out/" >&2
	fail "a QEMU of the interrupted matrix is still running"
fi
expect_grep '^interrupted$' "$out/state"
expect_grep 'interrupted; run the same command with --out' "$SCRATCH/run1"

# Which cells finished (their run's state is complete), and their run dirs.
finished() { grep -l '^complete$' "$out"/cells/*/*/state 2>/dev/null | sort; }
finished >"$SCRATCH/done1"
n1=$(wc -l <"$SCRATCH/done1")
[ "$n1" -ge 1 ] && [ "$n1" -lt 3 ] || fail "after SIGINT $n1 cells finished, want 1 or 2"
expect_grep "^not ok [0-9] .* # ERROR (not run|interrupted)" "$out/matrix.tap"
# Two cells started together: with one finished, the other was running. It
# got SIGTERM (not SIGKILL), so its own run recorded the interruption.
if [ "$n1" = 1 ]; then
	expect_grep "^not ok [0-9] .* # ERROR interrupted: the run did not complete$" "$out/matrix.tap"
	grep -q '^interrupted$' "$out"/cells/*/*/state || fail "no cell's run recorded that it was interrupted"
	grep -q '^interrupted: yes$' "$out"/cells/*/exit || fail "no cell's exit file says it was interrupted"
fi

# KCIDB of the interrupted matrix (docs/kcidb.md): valid, and each unfinished
# cell's tests are MISS (the harness did not run them), none FAIL.
expect_rc 0 $NUMALAB kcidb "$out" --output "$SCRATCH/part.json"
tests/host/kcidb/validate "$SCRATCH/part.json" || fail "the interrupted matrix's KCIDB JSON is not valid"
kstatus() { python3 -c "import json,sys; print(sum(t['status'] == sys.argv[2] for t in json.load(open(sys.argv[1]))['tests']))" "$@"; }
[ "$(kstatus "$SCRATCH/part.json" MISS)" -ge $((3 - n1)) ] || fail "fewer MISS tests than unfinished cells"
[ "$(kstatus "$SCRATCH/part.json" FAIL)" = 0 ] || fail "an interrupted matrix has FAIL tests in KCIDB"

expect_rc 0 $NUMALAB matrix "$m" --jobs 2 --out "$out" --kcidb "$SCRATCH/mx.json"
expect_grep "resuming $out: $n1 of 3 cells already finished \\(kept\\)" "$SCRATCH/out"
tests/host/kcidb/validate "$SCRATCH/mx.json" || fail "the matrix's KCIDB JSON is not valid"
# A test per flat.tap line (metrics aside); the two kernels are one build (the madvise one differs in its command line only).
[ "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(t['status'] != 'DONE' for t in d['tests']), len(d['builds']))" "$SCRATCH/mx.json")" = \
  "$(grep -c '^\(not \)\?ok ' "$out/flat.tap") 1" ] || fail "matrix KCIDB: not a test per flat.tap line, or not one build"
[ "$(kstatus "$SCRATCH/mx.json" MISS)" = 0 ] || fail "a resumed, complete matrix has MISS tests"
ran=$(grep -c '^\[[0-9]/[0-9]\] .*: pass ' "$SCRATCH/out")
[ "$ran" = $((3 - n1)) ] || fail "the resumed matrix ran $ran cells, want $((3 - n1))"
# The kept cells' runs are untouched: still one run each, the same one.
while read -r state; do
	cell=$(dirname "$(dirname "$state")")
	[ -e "$state" ] || fail "$state is gone after resuming"
	[ "$(ls -d "$cell"/*/ | wc -l)" = 1 ] || fail "$cell was run again"
done <"$SCRATCH/done1"
[ "$(finished | wc -l)" = 3 ] || fail "not every cell finished after resuming"
expect_grep '^complete$' "$out/state"

# The merged outputs.
tap="$out/matrix.tap"
expect_grep '^KTAP version 1$' "$tap"
expect_grep '^1\.\.3$' "$tap"
[ "$(grep -c '^ok [1-3] 2node\.' "$tap")" = 3 ] || fail "matrix.tap lacks three ok cells"
[ "$(grep -c '^[^ #]' "$tap")" = 5 ] || fail "matrix.tap has depth-0 lines other than version, plan, cells"
expect_grep '^    # Subtest: 2node\.madv\.topology\.r1$' "$tap"
expect_grep '^        ok [0-9]+ thp 2M faulted on node 0$' "$tap"
expect_grep '^    # guest\.cmdline: .*transparent_hugepage=madvise' "$tap"
if command -v xmllint >/dev/null; then
	xmllint --noout "$out/junit.xml" || fail "junit.xml is not well-formed XML"
fi
[ "$(grep -c '<testsuite name=' "$out/junit.xml")" = 3 ] || fail "junit.xml lacks a testsuite per cell"
expect_grep '<testsuites name=".*" tests="[1-9][0-9]*" failures="0" errors="0"' "$out/junit.xml"
expect_grep '^3 cells: 3 pass, 0 fail, 0 timeout, 0 error$' "$out/summary.txt"
expect_grep '^2node\.debian\.topology\.r2 +pass +[1-9]' "$out/summary.txt"

# Shard outputs merge back in cell order; a cell given twice is refused.
expect_rc 0 $NUMALAB matrix --merge --out "$SCRATCH/merged" "$out"
diff <(tail -n +3 "$out/matrix.tap") <(tail -n +3 "$SCRATCH/merged/matrix.tap") ||
	fail "merging one output changed its cells"
expect_rc 2 $NUMALAB matrix --merge --out "$SCRATCH/merged2" "$out" "$out"
expect_grep 'cell 0 is in two outputs' "$SCRATCH/err"
