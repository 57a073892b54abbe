# The libvirt backend: 2node and cxl boot through libvirt with the same TAP
# verdicts and guest view keys as the direct backend (cxl host-backed on the
# host's node 0); a hung guest is destroyed at its timeout; a panicking guest
# is reported as crashed; SIGTERM (the runner) and SIGKILL (AUTODESTROY)
# destroy the domain; refusals (a host node the host lacks, LoongArch) are
# one line, exit 2; no domain is left and the daemons started here stop.
. "$(dirname "$0")/lib.bash"
libvirt_up

# verdicts FILE: every ok / not ok line (subtests too), as the guest sent it.
verdicts() { grep -E '^ *(not )?ok ' "$1"; }
guest_keys() { sed -n 's/^guest: \([^:]*\):.*/\1/p' "$1" | sort; }

same_as_direct() {  # same_as_direct TOPO [run options...]
	local topo=$1 d l; shift
	if ! $NUMALAB run --topo "$topo" --quiet --out "$SCRATCH/direct-$topo" >"$SCRATCH/out" 2>&1; then
		d=$(cell_dir "$SCRATCH/direct-$topo")
		cat "$SCRATCH/out" >&2
		grep -B 8 -E '^ *not ok ' "$d/tap" >&2
		fail "$topo through the direct backend did not pass"
	fi
	if ! $NUMALAB run --topo "$topo" --quiet --backend libvirt "$@" --out "$SCRATCH/lv-$topo" 2>"$SCRATCH/err"; then
		l=$(cell_dir "$SCRATCH/lv-$topo")
		cat "$SCRATCH/err" "$l/meta" >&2
		tail -n 30 "$l/console.log" >&2
		fail "$topo through libvirt did not pass"
	fi
	d=$(cell_dir "$SCRATCH/direct-$topo") l=$(cell_dir "$SCRATCH/lv-$topo")
	diff <(verdicts "$d/tap") <(verdicts "$l/tap") >&2 || fail "$topo: TAP verdicts differ (direct < > libvirt)"
	diff <(guest_keys "$d/meta") <(guest_keys "$l/meta") >&2 || fail "$topo: guest view keys differ"
	[ "$(verdicts "$l/tap" | wc -l)" -gt 10 ] || fail "$topo: too few verdicts in $l/tap"
	expect_grep '^backend: libvirt$' "$l/meta"
	expect_grep '^backend: qemu$' "$d/meta"
	expect_grep '^libvirt: [0-9.]+ \(daemon [0-9.]+, qemu [0-9.]+\)$' "$l/meta"
	expect_grep "^libvirt.uri: qemu" "$l/meta"
	expect_grep '^end: poweroff$' "$l/meta"
	expect_grep "<name>numalab-$topo-[0-9]+</name>" "$l/domain.xml"
	expect_grep 'Linux version' "$l/console.log"
	expect_grep 'starting up libvirt' "$l/qemu.log"
}
same_as_direct 2node
expect_grep '^host_numa: none$' "$(cell_dir "$SCRATCH/lv-2node")meta"
same_as_direct cxl --host-nodes 0=0,1=0,2=0,3=0
cell=$(cell_dir "$SCRATCH/lv-cxl")
expect_grep '^host_numa: guest0=host0,guest1=host0,guest2=host0,guest3=host0$' "$cell/meta"
expect_grep "<memnode cellid='3' mode='strict' nodeset='0'/>" "$cell/domain.xml"
expect_grep '^guest: node2.cpus: *$' "$cell/meta"
expect_no_domain

# The host has one NUMA node (this lab's CI host): auto wants node 1 too.
if [ "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" = 1 ]; then
	expect_rc 2 $NUMALAB run --topo 2node --quiet --backend libvirt --host-nodes auto --out "$SCRATCH/refused"
	expect_grep '^numalab run: --host-nodes auto: guest node 1 wants host node 1, but the host .* has NUMA node 0' "$SCRATCH/err"
	[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "refusal is not one line: $(cat "$SCRATCH/err")"
	[ ! -e "$SCRATCH/refused" ] || fail "a refused run left a results directory"
fi
expect_rc 2 $NUMALAB run --topo la-2node --backend libvirt --out "$SCRATCH/la"
expect_grep 'the libvirt backend boots x86 guests only .*--backend qemu' "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "LoongArch refusal is not one line"

# Hung (still booting) at 3 s: destroyed, reported as a timeout.
expect_rc 1 $NUMALAB run --topo 2node --backend libvirt --timeout 3 --out "$SCRATCH/timeout"
expect_grep '^not ok 1 topology # (TIMEOUT|ERROR).*vm timeout after 3 s' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/timeout")
expect_grep '^end: timeout$' "$cell/meta"
awk '/^time.total_s:/ { exit !($2 < 15) }' "$cell/meta" || fail "timeout took too long: $(grep total_s "$cell/meta")"

# No /init: the kernel panics; seen live on the console.
expect_rc 1 $NUMALAB run --topo 2node --backend libvirt --append rdinit=/nonexistent --timeout 120 --out "$SCRATCH/panic"
expect_grep '^not ok 1 topology # ERROR (not run: )?kernel (panic|oops)' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/panic")
expect_grep '^end: crashed$' "$cell/meta"
expect_grep '^console.finding: panic$' "$cell/meta"
expect_grep 'Kernel panic - not syncing' "$cell/console.log"
expect_no_domain

# A running domain of ours, within 20 s.
wait_domain() {
	for _ in $(seq 100); do virsh -q list --name | grep -q '^numalab-2node-' && return; sleep 0.2; done
	fail "the domain never started"
}

# SIGTERM mid-boot: the runner destroys its domain and says so.
$NUMALAB run --topo 2node --backend libvirt --quiet --out "$SCRATCH/term" &
pid=$!
wait_domain
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 3 ] || fail "SIGTERM: runner exited $rc, want 3 (interrupted)"
expect_grep '^end: interrupted$' "$(cell_dir "$SCRATCH/term")meta"
expect_no_domain

# SIGKILL: AUTODESTROY takes the domain along with the runner's connection.
$NUMALAB run --topo 2node --backend libvirt --quiet --out "$SCRATCH/kill" &
pid=$!
wait_domain
kill -KILL $pid
wait $pid 2>/dev/null
for _ in $(seq 50); do virsh -q list --name | grep -q '^numalab-2node-' || break; sleep 0.2; done
expect_no_domain

libvirt_down
