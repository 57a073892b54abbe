# What a paravirtual KVM (kvm_pvm) does to QEMU, which a host without one
# cannot show for real: /dev/kvm opens, then QEMU's `-accel kvm` prints "KVM
# internal error. Suberror: 1" and "emulation failure" and hangs with its
# vCPU paused (issue 14).  A QEMU stand-in first on PATH does that for
# `-accel kvm` and execs the real QEMU for any other accelerator, so each
# run's own guest is a real TCG boot.  NUMALAB_KVM_DEVICE=/dev/null is a
# device that opens, so the probe runs.
#
# The probe must end on QEMU's message at once (not at a deadline), kill the
# hung QEMU, cache the verdict, and boot the run under TCG (`--accel kvm`:
# end the run at once with the reason, exit 3); a KVM that hangs
# without a word is given up when no kernel starts within 2.5 s, not at the
# probe's 10 s deadline.  Each stand-in is its own QEMU binary, so each has
# its own cached verdict.
#
# Fails if scan_qemu_stderr stops matching "KVM internal error" (the probe
# then waits 2.5 s and says no kernel started), if the probe's QEMU is not
# killed (the stand-in outlives the run), or if probe_stop waits for the
# 10 s deadline on a silent guest (mutant: PROBE_KERNEL_S -> PROBE_DEADLINE_S
# in probe_stop).
. "$(dirname "$0")/lib.bash"
real_qemu=$(command -v qemu-system-x86_64) || fail "no qemu-system-x86_64 on PATH"

# stand_in DIR MODE: a qemu-system-x86_64 in DIR; MODE "message" or "silent".
stand_in() {
	mkdir -p "$1"
	cat >"$1/qemu-system-x86_64" <<-EOF
		#!/bin/bash
		# kvm_pvm's QEMU for -accel kvm (accel-probe-kvm-pvm.sh), the real one otherwise
		prev=
		for a; do
			if [ "\$prev" = -accel ] && [ "\$a" = kvm ]; then
				echo \$\$ >>"$1/hung.pids"
				if [ $2 = message ]; then
					printf 'KVM internal error. Suberror: 1\nextra data[0]: 0x0000000000000000\nemulation failure\nRAX=0000000000000000 RBX=0000000000000000\n' >&2
				fi
				exec sleep 600
			fi
			prev=\$a
		done
		exec "$real_qemu" "\$@"
	EOF
	chmod +x "$1/qemu-system-x86_64"
}

# with_stand_in DIR CMD...: CMD with DIR's QEMU first on PATH and a KVM device that opens.
with_stand_in() {
	local dir=$1
	shift
	NUMALAB_KVM_DEVICE=/dev/null PATH="$dir:$PATH" "$@"
}

# run_with DIR OUT: a passing numalab run with DIR's stand-in.
run_with() {
	with_stand_in "$1" expect_rc 0 $NUMALAB run --topo 2node --tests topology --quiet --out "$2"
	expect_grep '^result: 1 passed, 0 failed' "$(cell_dir "$2")meta"
}

# No stand-in QEMU may outlive its run (the runner kills the probe's group).
expect_hung_gone() {
	local pid
	[ -s "$1/hung.pids" ] || fail "$1: the probe never ran QEMU with -accel kvm"
	for pid in $(cat "$1/hung.pids"); do
		for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || continue 2; sleep 0.1; done
		fail "$1: the probe's QEMU (pid $pid) outlived the run"
	done
}

stand_in "$SCRATCH/message" message
run_with "$SCRATCH/message" "$SCRATCH/m1"
expect_grep '^accel: tcg: kvm probe: qemu said "KVM internal error\. Suberror: 1" after 0\.[0-9] s$' \
	"$(cell_dir "$SCRATCH/m1")meta"
expect_grep '^command: qemu-system-x86_64 .*-accel tcg' "$(cell_dir "$SCRATCH/m1")meta"
expect_hung_gone "$SCRATCH/message"

run_with "$SCRATCH/message" "$SCRATCH/m2"
expect_grep '^accel: tcg \(cached, probed [0-9-]+ [0-9:]+ UTC: kvm probe: qemu said "KVM internal error\. Suberror: 1" after 0\.[0-9] s\)$' \
	"$(cell_dir "$SCRATCH/m2")meta"
[ "$(wc -l <"$SCRATCH/message/hung.pids")" = 1 ] || fail "the cached verdict did not spare the second run a probe"

# --accel kvm asked for by name: no probe, no fallback; the run ends on
# QEMU's words, not at its timeout, and says why (exit 3).
with_stand_in "$SCRATCH/message" expect_rc 3 \
	$NUMALAB run --topo 2node --tests topology --accel kvm --timeout 60 --quiet --out "$SCRATCH/k"
expect_grep '^not ok 1 topology # ERROR not run: KVM cannot run this guest here \(qemu: KVM internal error\. Suberror: 1\); use --accel tcg or auto$' \
	"$(cell_dir "$SCRATCH/k")tap"
expect_grep '^time\.total_s: 0\.[0-9]+$' "$(cell_dir "$SCRATCH/k")meta"
expect_hung_gone "$SCRATCH/message"

stand_in "$SCRATCH/silent" silent
run_with "$SCRATCH/silent" "$SCRATCH/s1"
expect_grep '^accel: tcg: kvm probe: no kernel had started after (2\.[5-9]|3\.[0-9]) s \(no output at all\)$' \
	"$(cell_dir "$SCRATCH/s1")meta"
expect_hung_gone "$SCRATCH/silent"
expect_no_qemu
