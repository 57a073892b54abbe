# Every topology's argv, as numalab builds it for a QEMU from what that QEMU
# says it has (lab/boot/qemucaps.h), handed to that very QEMU, for every
# QEMU present: the host's (7.2 on Debian 12) and the toolchain root's
# QEMU 10 for x86 and LoongArch.  Each starts paused (-S), builds the whole
# machine, answers QMP and quits: an option a QEMU rejects fails here, not
# on a user's machine.  Golden files only show what the builder writes.
# Fails on 2d525bf's builder: QEMU 10 refuses its
# `-global ICH9-LPC.memory-hotplug-support=off` on every q35 shape.
. "$(dirname "$0")/lib.bash"
cache=${NUMALAB_CACHE:-$HOME/.cache/numalab}
kernel_of() { ls -d "$cache"/kernels/debian-"$1"-*/vmlinuz 2>/dev/null | tail -n 1; }
root=$(ls -dt "$cache"/toolroot/trixie-*/ 2>/dev/null | head -n 1)
root=${root%/}
[ -n "$root" ] || fail "no toolchain root in $cache/toolroot: run \`./numalab setup --arch loongarch64\`"
tests/host/qemu-from-root "$root" "$SCRATCH/root-qemu" >/dev/null || fail "cannot wrap the root's QEMU"
[ -x "$SCRATCH/root-qemu/qemu-system-x86_64" ] ||
	fail "$root has no qemu-system-x86_64 (an older root: \`./numalab setup --arch loongarch64\` builds the current one)"
head -c 4096 /dev/zero >"$SCRATCH/initrd"

# try_one QEMU_DIR TOPO: topo show with QEMU_DIR first on PATH, then that argv under QEMU_DIR's QEMU.
checked=0
try_one() {
	local dir=$1 topo=$2 arch kernel firmware=-
	arch=$(sed -n 's/^arch[[:space:]]*//p' "topologies/$topo.topo")
	arch=${arch:-x86_64}
	kernel=$(kernel_of "$arch")
	[ -n "$kernel" ] || fail "no cached $arch kernel under $cache/kernels: run \`make setup\`"
	[ "$arch" = loongarch64 ] && firmware=$root/usr/share/qemu-efi-loongarch64/QEMU_EFI.fd
	PATH=$dir:$PATH $NUMALAB topo show --format argv "$topo" >"$SCRATCH/argv" 2>"$SCRATCH/show.err" ||
		{ cat "$SCRATCH/show.err" >&2; fail "topo show $topo"; }
	! grep -q 'none of the optional' "$SCRATCH/show.err" || fail "topo show $topo found no QEMU: $(cat "$SCRATCH/show.err")"
	local -a argv=()
	mapfile -t argv <"$SCRATCH/argv"
	argv[0]=$dir/${argv[0]}
	for i in "${!argv[@]}"; do
		case ${argv[$i]} in
		KERNEL) argv[$i]=$kernel ;;
		INITRD) argv[$i]=$SCRATCH/initrd ;;
		FIRMWARE) argv[$i]=$firmware ;;
		socket,id=*,fd=[0-9]*) argv[$i]=$(echo "${argv[$i]}" | sed 's/^socket,\(id=[a-z]*\),fd=[0-9]*$/file,\1,path=\/dev\/null/') ;;
		esac
	done
	printf '{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n' |
		timeout 60 "${argv[@]}" -S -qmp stdio >"$SCRATCH/qmp" 2>"$SCRATCH/qemu.err"
	local rc=$?
	[ "$rc" = 0 ] && grep -q '"return"' "$SCRATCH/qmp" ||
		{ cat "$SCRATCH/qemu.err" >&2; fail "$("$dir/${argv[0]##*/}" --version | head -n 1) rejected the argv of $topo (exit $rc)"; }
	echo "# $topo: accepted by $("$dir/${argv[0]##*/}" --version | head -n 1)"
	checked=$((checked + 1))
}

host_qemu=$(command -v qemu-system-x86_64) || fail "no qemu-system-x86_64 on PATH: run \`make setup\`"
for topo in $(ls topologies | sed -n 's/\.topo$//p'); do
	arch=$(sed -n 's/^arch[[:space:]]*//p' "topologies/$topo.topo")
	if [ "${arch:-x86_64}" = x86_64 ]; then
		try_one "$(dirname "$host_qemu")" "$topo"
		try_one "$SCRATCH/root-qemu" "$topo"
	else
		try_one "$SCRATCH/root-qemu" "$topo"
	fi
done
[ "$checked" -ge 10 ] || fail "only $checked argv checked"
# The two x86 families differ where they should: QEMU 10 has no memory hotplug switch.
PATH=$SCRATCH/root-qemu:$PATH $NUMALAB topo show --format argv 2node >"$SCRATCH/argv10" 2>/dev/null
! grep -q 'memory-hotplug-support' "$SCRATCH/argv10" || fail "QEMU 10's argv has memory-hotplug-support"
grep -q 'acpi-pci-hotplug-with-bridge-support=off' "$SCRATCH/argv10" || fail "QEMU 10's argv lost the PCI hotplug switch"
