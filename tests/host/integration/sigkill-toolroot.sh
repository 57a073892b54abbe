# The runner SIGKILLed while a LoongArch QEMU runs inside the toolroot
# wrapper (toolroot-exec: namespaces, chroot, exec): QEMU itself, not only
# the wrapper, dies with it.
. "$(dirname "$0")/lib.bash"
make -s guest GUEST_ARCH=loongarch64 || fail "cross build of the LoongArch guest failed"
$NUMALAB run --topo la-2node --tests topology --quiet --out "$SCRATCH/r" 2>"$SCRATCH/err" &
pid=$!
# Wait until the wrapper has become QEMU (exec'd inside the toolroot).
qemu_running() {
	local q
	for q in $(our_qemu_pids); do
		case "$(cat /proc/$q/comm 2>/dev/null)" in qemu-system-*) return 0;; esac
	done
	return 1
}
for _ in $(seq 120); do
	qemu_running && break
	kill -0 $pid 2>/dev/null || { cat "$SCRATCH/err"; fail "the runner ended before QEMU started"; }
	sleep 0.5
done
qemu_running || fail "no LoongArch QEMU started within 60 s"
kill -9 $pid
wait $pid
expect_no_qemu
