# The README's two commands on a fresh machine: a bare Debian 12 root
# (debootstrap minbase with make, gcc, git), a clean clone of this project
# in it, an empty lab cache, and inside it `make lab-run TOPO=2node` then
# `make check`.  Both must pass, the run must print passing TAP.  Packages
# installed on this host earlier hide missing install steps; this root has
# none of them.  Downloads use the host's configured Debian mirror.
# Runnable alone: bash tests/host/integration/full/fresh-machine.sh (~30 min);
# FRESH_KEEP=1 keeps the root for a look afterwards.
. "$(dirname "$0")/../lib.bash"
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, bind mounts)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (make setup installs it)"
root=$SCRATCH/root
mirror=${NUMALAB_MIRROR:-$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)}
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
[ -n "$mirror" ] || fail "no Debian mirror in the host's apt sources; set NUMALAB_MIRROR"

# Never remove the root while something is mounted in it (that would be the
# host's /dev, /proc, /sys): unmount, stop what runs inside, then remove.
cleanup() {
	local pid
	for pid in $(ls /proc | grep -E '^[0-9]+$'); do
		[ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$root" ] && kill -9 "$pid" 2>/dev/null
	done
	sleep 1
	for m in $(findmnt -rn -o TARGET | grep -E "^$root(/|$)" | sort -r); do umount -l "$m"; done
	if findmnt -rn -o TARGET | grep -qE "^$root(/|$)"; then
		echo "fresh-machine: $root still has mounts; left in place" >&2
		return
	fi
	[ "${FRESH_KEEP:-0}" = 1 ] && { echo "fresh-machine: kept $root" >&2; return; }
	rm -rf "$SCRATCH"
}
trap cleanup EXIT

t0=$SECONDS
debootstrap --variant=minbase --include=make,gcc,libc6-dev,git,ca-certificates bookworm "$root" \
	"$mirror" >"$SCRATCH/debootstrap.log" 2>&1 || { tail -n 30 "$SCRATCH/debootstrap.log" >&2; fail "debootstrap"; }
echo "# debootstrap: $((SECONDS - t0)) s"
# The host's apt configuration, as a fresh machine of this kind has it
# (sources, and settings such as a snapshot mirror's Check-Valid-Until).
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/"
rm -f "$root/etc/apt/sources.list"
mkdir -p "$root/etc/apt/sources.list.d"
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/sources.list"
# / of a machine is a mount point (the toolroot's namespace makes it private).
mount --bind "$root" "$root"
# Its own /dev: copies of the host's device nodes on a tmpfs (a package's
# postinst may chgrp /dev/kvm: qemu-system's once gave the host's /dev/kvm
# the root's kvm gid), its own devpts and shm.
mkdir -p "$root/dev" "$root/proc" "$root/sys"
mount -t tmpfs -o mode=755 tmpfs "$root/dev"
cp -ax /dev/. "$root/dev/"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
ln -sf pts/ptmx "$root/dev/ptmx"
mount -t tmpfs tmpfs "$root/dev/shm"
for d in proc sys; do
	mount --bind "/$d" "$root/$d"
done
mkdir -p "$root/run" "$root/tmp"
mount -t tmpfs tmpfs "$root/run"
git clone -q --no-hardlinks "$PWD" "$root/root/numalab" || fail "git clone"

# Inside: the README's two commands, no stdin, a clean environment, in a
# mount and PID namespace whose root is the fresh root (pivot_root, not
# chroot).  Under chroot, libvirtd's helpers that setns() into a QEMU's mount
# namespace land at the host's /, and once replaced the host's /dev/kvm with
# the /dev/null that tests/host/libvirtd binds over it.  The PID namespace
# ends every daemon the run leaves behind when the command ends.
inside() {
	unshare --mount --propagation private --pid --fork --kill-child /bin/sh -c '
		cd "$1" && mkdir -p .host && pivot_root . .host && cd / &&
		umount -l /.host && rmdir /.host && umount -l /proc &&
		mount -t proc proc /proc || exit 3
		shift
		exec /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
			DEBIAN_FRONTEND=noninteractive "$@" /bin/bash -c "cd /root/numalab && $0"' \
		"$1" "$root" ${NUMALAB_KVM_DEVICE:+NUMALAB_KVM_DEVICE=$NUMALAB_KVM_DEVICE} </dev/null
}
# Which tests failed and the end of each one's log (build/check/NAME.log),
# before the root and its logs are gone.
show_failed_checks() {
	local name
	grep -E '^(FAIL|ERROR): ' "$SCRATCH/check.log" >&2
	for name in $(sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\) .*/\2/p' "$SCRATCH/check.log" | sort -u); do
		echo "--- $name" >&2
		tail -n 25 "$root/root/numalab/build/check/$name.log" >&2
	done
	tail -n 5 "$SCRATCH/check.log" >&2
}
# Nothing inside may change the host: its /dev/kvm must be the same device,
# owner and mode after.
kvm_dev=$(stat -c '%t:%T %U:%G %a' /dev/kvm 2>/dev/null)
host_intact() {
	[ "$(stat -c '%t:%T %U:%G %a' /dev/kvm 2>/dev/null)" = "$kvm_dev" ] ||
		fail "the run inside changed the host's /dev/kvm (was ${kvm_dev:-absent}, now $(stat -c '%t:%T %U:%G %a' /dev/kvm 2>&1))"
}
t1=$SECONDS
inside 'make lab-run TOPO=2node' >"$SCRATCH/lab-run.log" 2>&1 ||
	{ tail -n 60 "$SCRATCH/lab-run.log" >&2; host_intact; fail "make lab-run TOPO=2node failed on a fresh machine"; }
host_intact
echo "# make lab-run TOPO=2node: $((SECONDS - t1)) s"
expect_grep '^ok [0-9]+ ' "$SCRATCH/lab-run.log"
! grep -E '^not ok' "$SCRATCH/lab-run.log" || fail "the fresh run printed failing TAP"
expect_grep '^numalab run: 2node: [1-9][0-9]* passed, 0 failed' "$SCRATCH/lab-run.log"
t2=$SECONDS
inside 'make check' >"$SCRATCH/check.log" 2>&1 ||
	{ show_failed_checks; host_intact; fail "make check failed on a fresh machine"; }
host_intact
echo "# make check: $((SECONDS - t2)) s"
expect_grep '^[0-9]+ passed, 0 failed' "$SCRATCH/check.log"
echo "# fresh machine in all: $((SECONDS - t0)) s"
