# The matrix on a real LAVA instance (tests/host/lava-instance: PostgreSQL,
# lava-server, its scheduler, two lava-workers with a QEMU device each):
# smoke, then 2node/4node/cxl x mempolicy,topology on LAVA (the workers on
# two QEMU families: this host's and the toolroot's QEMU 10) and the same
# cells here, and la-2node x mempolicy,topology on the LoongArch device type
# numalab ships (lava/device-types/qemu-loongarch64.jinja2: UEFI, 16K pages,
# 32M THP).  Checked: the jobs ran on both workers; every cell's counts and
# verdicts equal the local ones; LAVA's API lists one test case per KTAP leaf
# and per metric; a Ctrl-C mid-matrix cancels every job it submitted that
# had not ended, and the same command resumes.  ~15-25 min under TCG.
. "$(dirname "$0")/../lib.bash"
# Its own guests: run first, or alone, no other test has built the LoongArch one.
make -s guest GUEST_ARCH=x86_64 && make -s guest GUEST_ARCH=loongarch64 || fail "guest build failed"
lava_dir="$SCRATCH/lava"
trap 'tests/host/lava-instance stop "$lava_dir"; rm -rf "$SCRATCH"' EXIT
tests/host/lava-instance start "$lava_dir" >"$SCRATCH/instance"
rc=$?
[ "$rc" = 77 ] && exit 77
read -r url token type w1 w2 la_type <"$SCRATCH/instance"
[ "$rc" = 0 ] && [ -n "${w2:-}" ] || fail "tests/host/lava-instance start exited $rc"
[ "${la_type:-none}" != none ] || fail "no LoongArch LAVA device: run \`./numalab setup --arch loongarch64\` (the toolroot's QEMU 10 runs it)"
export NUMALAB_LAVA_TOKEN=$token
api() { curl -sf -H "Authorization: Token $token" "$url/api/v0.2/$1"; }
lava=(--lava "$url/" --lava-device-type "$type")

# 1. smoke on LAVA.
expect_rc 0 $NUMALAB matrix smoke "${lava[@]}" --quiet --out "$SCRATCH/smoke"
expect_grep '^2 cells: 2 pass' "$SCRATCH/out"

# 2. The shapes x suites matrix, on LAVA and here.
m="$SCRATCH/shapes.matrix"
cat >"$m" <<'MATRIX'
topology 2node
topology 4node
topology cxl
kernel debian
suite mempolicy
suite topology
timeout 600
MATRIX
expect_rc 0 $NUMALAB matrix "$m" "${lava[@]}" --quiet --out "$SCRATCH/on-lava"
expect_rc 0 $NUMALAB matrix "$m" --jobs 2 --quiet --out "$SCRATCH/here"
# Cell, result, pass, fail, skip: the same on both (time and place differ).
cols() { awk 'NR > 1 && NF >= 5 && $1 ~ /\./ { print $1, $2, $3, $4, $5 }' "$1/summary.txt"; }
# Every leaf verdict, by its path (flat.tap names each leaf), not only the counts.
leaves() { grep -E '^(not )?ok ' "$1/flat.tap" | sed 's/^\(\(not \)\{0,1\}ok\) [0-9]* /\1 /' | sort; }
same_cells() {   # same_cells HERE ON_LAVA CELLS
	diff <(cols "$1") <(cols "$2") || fail "LAVA's cells differ from the local ones ($2)"
	[ "$(cols "$2" | wc -l)" = "$3" ] || fail "want $3 cells in $2"
	diff <(leaves "$1") <(leaves "$2") || fail "a leaf's verdict differs between LAVA and here ($2)"
}
same_cells "$SCRATCH/here" "$SCRATCH/on-lava" 6

# 3. Both workers ran jobs; each cell's meta names its job.
workers=$(cat "$SCRATCH"/on-lava/cells/*/*/*/meta | sed -n 's/^lava\.worker: //p' | sort -u | tr '\n' ' ')
[ "$workers" = "$w1 $w2 " ] || fail "jobs ran on '$workers', want both $w1 and $w2"
for meta in "$SCRATCH"/on-lava/cells/*/*/*/meta; do
	expect_grep '^backend: lava$' "$meta"
	expect_grep "^lava\.url: $url/scheduler/job/[0-9]+$" "$meta"
	expect_grep '^lava\.health: Complete$' "$meta"
	expect_grep '^tap\.channel: serial: [1-9]' "$meta"
done

# One job definition for two QEMU families: the second worker ran its x86
# jobs on the toolroot's QEMU 10 (tests/host/lava-instance), the first on
# this host's.  (QEMU 10 ends a job at once on an option it lacks.)  LAVA
# names the QEMU by its real path: the wrapper, not the PATH entry.
job_on() {   # a job of the matrix that ran on worker $1
	sed -n 's/^lava\.job: //p' "$(grep -l "^lava\.worker: $1$" "$SCRATCH"/on-lava/cells/*/*/*/meta | head -n 1)"
}
w2job=$(job_on "$w2")
api "jobs/$w2job/logs/" | grep -q "Boot command: $lava_dir/qemu/qemu-system-x86_64 " ||
	fail "LAVA job $w2job on $w2 did not run the toolroot's QEMU 10"
w1job=$(job_on "$w1")
api "jobs/$w1job/logs/" | grep -q "Boot command: /usr/bin/qemu-system-x86_64 " ||
	fail "LAVA job $w1job on $w1 did not run this host's QEMU"

# 3b. LoongArch: la-2node on numalab's device type (a QEMU 10 and edk2 on the
# first worker), its cell equal to the local one, 16K/32M leaves included.
sed 's/^topology .*//; 1i topology la-2node' "$m" >"$SCRATCH/la.matrix"
expect_rc 0 $NUMALAB matrix "$SCRATCH/la.matrix" --lava "$url/" --lava-device-type "$la_type" --quiet --out "$SCRATCH/la-on-lava"
expect_rc 0 $NUMALAB matrix "$SCRATCH/la.matrix" --quiet --out "$SCRATCH/la-here"
same_cells "$SCRATCH/la-here" "$SCRATCH/la-on-lava" 2
for meta in "$SCRATCH"/la-on-lava/cells/*/*/*/meta; do
	expect_grep "^lava\.device: $w1-la$" "$meta"
	expect_grep "^lava\.device_type: $la_type$" "$meta"
	expect_grep '^lava\.health: Complete$' "$meta"
done
expect_grep '^ok [0-9]+ .*pmd size 33554432$' "$SCRATCH/la-on-lava/flat.tap"

# 4. LAVA lists the per-test results: one "numalab" test case per leaf, and the metrics.
cell=$(ls -d "$SCRATCH"/on-lava/cells/2node.debian.mempolicy.r1/*/*/)
job=$(sed -n 's/^lava\.job: //p' "$cell/meta")
leaves=$(grep -c '^<LAVA_SIGNAL_TESTCASE .* RESULT=[a-z]*>' "$cell/console.log")
metrics=$(grep -c '^<LAVA_SIGNAL_TESTCASE .* MEASUREMENT=' "$cell/console.log")
[ "$leaves" -gt 20 ] || fail "only $leaves leaf signals in $cell/console.log"
suite_count() {   # the test cases of job's suite $1
	local id
	id=$(api "jobs/$job/suites/" | python3 -c "import json,sys; print([s['id'] for s in json.load(sys.stdin)['results'] if s['name'] == '$1'][0])") ||
		fail "LAVA job $job has no suite $1"
	api "jobs/$job/suites/$id/tests/?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'
}
[ "$(suite_count numalab)" = "$leaves" ] || fail "LAVA job $job lists $(suite_count numalab) numalab test cases, want $leaves"
if [ "$metrics" -gt 0 ]; then
	[ "$(suite_count numalab-measurements)" = "$metrics" ] || fail "LAVA job $job: want $metrics measurements"
fi

# 5. Ctrl-C mid-matrix: the jobs it submitted end (Canceled, or Complete if they beat it); a rerun resumes.
out="$SCRATCH/cancel"
setsid $NUMALAB matrix "$m" "${lava[@]}" --quiet --out "$out" >"$SCRATCH/cancel.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
	grep -qs 'running on' "$out"/cells/*/log && break
	sleep 1
done
grep -qs 'running on' "$out"/cells/*/log || fail "no LAVA job started running within 300 s"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 3 ] || { cat "$SCRATCH/cancel.log" >&2; fail "interrupted matrix exited $rc, want 3"; }
expect_grep 'interrupted; run the same command' "$SCRATCH/cancel.log"
ids=$(cat "$out"/cells/*/log | sed -n 's/.*LAVA job \([0-9]*\) submitted.*/\1/p' | sort -u)
[ -n "$ids" ] || fail "no job ids in the cells' logs"
for _ in $(seq 60); do
	left=$(for id in $ids; do api "jobs/$id/" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["id"], j["state"]) if j["state"] != "Finished" else None'; done)
	[ -z "$left" ] && break
	sleep 2
done
[ -z "$left" ] || fail "jobs not ended after the interrupt: $left"
canceled=$(for id in $ids; do api "jobs/$id/" | python3 -c 'import json,sys; print(json.load(sys.stdin)["health"])'; done | grep -c Canceled)
[ "$canceled" -ge 1 ] || fail "no job was cancelled"
expect_rc 0 $NUMALAB matrix "$m" "${lava[@]}" --quiet --out "$out"
expect_grep '^numalab matrix: resuming ' "$SCRATCH/out"
expect_grep '^6 cells: 6 pass' "$SCRATCH/out"
