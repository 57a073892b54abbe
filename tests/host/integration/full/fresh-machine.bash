# The README's two commands on a fresh machine of one Debian release, for
# fresh-machine.sh (bookworm) and fresh-machine-trixie.sh (trixie), which
# set $release and source this: a bare root of that release (debootstrap
# minbase with make, gcc, git), a clean clone of this project in it, an
# empty lab cache, and inside it `make lab-run TOPO=2node` then `make check`.
# Both must pass, the run must print passing TAP.  Then every shape kind
# boots there: make check's own boots (2node, cxl, la-2node; 2node and cxl
# through libvirt) must have passed, and 4node boots through both backends,
# libvirt's being the release's own daemon started by tests/host/libvirtd.
# Packages installed on this host earlier hide missing install steps; the
# root has none of them.  Downloads use the host's configured Debian mirror,
# its suites renamed to the release's.  Each step's time and the versions
# used (QEMU, gcc, glibc, libvirt) are printed as `# ` lines.
# FRESH_KEEP=1 keeps the root for a look afterwards.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.bash"
[ -n "${release:-}" ] || fail "fresh-machine.bash: set release (bookworm, trixie) before sourcing it"
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, bind mounts)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (make setup installs it)"
[ -e "/usr/share/debootstrap/scripts/$release" ] || fail "this debootstrap does not know $release"
root=$SCRATCH/root
mirror=${NUMALAB_MIRROR:-$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)}
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 !~ /-/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || fail "no Debian mirror in the host's apt sources; set NUMALAB_MIRROR"
host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

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
debootstrap --variant=minbase --include=make,gcc,libc6-dev,git,ca-certificates "$release" "$root" \
	"$mirror" >"$SCRATCH/debootstrap.log" 2>&1 || { tail -n 30 "$SCRATCH/debootstrap.log" >&2; fail "debootstrap $release"; }
echo "# debootstrap $release: $((SECONDS - t0)) s"
# The host's apt configuration, as a fresh machine of this kind has it
# (sources, and settings such as a snapshot mirror's Check-Valid-Until),
# its suites renamed when the root is another release (bookworm-security
# becomes trixie-security); the host's own files are only read.
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/"
rm -f "$root/etc/apt/sources.list"
mkdir -p "$root/etc/apt/sources.list.d"
for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; do
	[ -f "$f" ] || continue
	sed "s/\b$host_release\b/$release/g" "$f" >"$root$f"
done
grep -rqsw "$release" "$root/etc/apt/sources.list" "$root/etc/apt/sources.list.d" ||
	fail "the root's apt sources name no $release suite: $(cat "$root"/etc/apt/sources.list.d/* 2>&1)"
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
# step NAME LOG CMD: CMD inside, its output in $SCRATCH/LOG, its time
# printed; on failure the log's end (or show_failed_checks for make check).
step() {
	local name=$1 log=$SCRATCH/$2 cmd=$3 t=$SECONDS
	if ! inside "$cmd" >"$log" 2>&1; then
		if [ "$2" = check.log ]; then show_failed_checks; else tail -n 60 "$log" >&2; fi
		host_intact
		fail "$name failed on a fresh $release machine"
	fi
	host_intact
	echo "# $name: $((SECONDS - t)) s"
}

step 'make lab-run TOPO=2node' lab-run.log 'make lab-run TOPO=2node'
expect_grep '^ok [0-9]+ ' "$SCRATCH/lab-run.log"
! grep -E '^not ok' "$SCRATCH/lab-run.log" || fail "the fresh run printed failing TAP"
expect_grep '^numalab run: 2node: [1-9][0-9]* passed, 0 failed' "$SCRATCH/lab-run.log"

# The versions this machine ran with (make setup installed them).
cat >"$root/root/versions.sh" <<'VERSIONS'
pkg() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo none; }
echo "# Debian $(cat /etc/debian_version) ($1)"
echo "# QEMU: $(qemu-system-x86_64 --version | sed -n 's/.*version \([^ ]*\).*/\1/p') (qemu-system-x86 $(pkg qemu-system-x86))"
echo "# gcc: $(gcc -dumpfullversion) (gcc $(pkg gcc)); clang: $(clang --version | sed -n 's/.*clang version \([^ ]*\).*/\1/p')"
echo "# glibc: $(getconf GNU_LIBC_VERSION | cut -d' ' -f2) (libc6 $(pkg libc6))"
echo "# libvirt: $(libvirtd --version | sed 's/.* //') (libvirt-daemon $(pkg libvirt-daemon); virtqemud: $(command -v virtqemud || echo none))"
VERSIONS
inside "bash /root/versions.sh $release" >"$SCRATCH/versions.log" 2>&1 || { cat "$SCRATCH/versions.log" >&2; fail "versions"; }
cat "$SCRATCH/versions.log"

step 'make check' check.log 'make check'
expect_grep '^[0-9]+ passed, 0 failed' "$SCRATCH/check.log"
sed -n 's/^\([0-9]* passed, [0-9]* failed\)$/# make check: \1/p' "$SCRATCH/check.log"
# make check's own boots of every shape kind: ran, and passed.
for t in boot-2node boot-cxl boot-la-2node libvirt; do
	expect_grep "^PASS: integration/$t( |\$)" "$SCRATCH/check.log"
done
inside './numalab toolroot-exec --auto -- qemu-system-loongarch64 --version' >"$SCRATCH/toolroot-qemu.log" 2>&1 &&
	echo "# LoongArch QEMU (toolroot): $(sed -n 's/.*version \([^ ]*\).*/\1/p' "$SCRATCH/toolroot-qemu.log")"

# 4node through both backends; libvirt through the release's own daemon.
step './numalab run --topo 4node' 4node.log './numalab run --topo 4node --out /root/r-4node'
expect_grep '^numalab run: 4node: [1-9][0-9]* passed, 0 failed' "$SCRATCH/4node.log"
step './numalab run --topo 4node --backend libvirt' 4node-libvirt.log \
	'tests/host/libvirtd with /run/numalab-libvirt ./numalab run --topo 4node --backend libvirt --out /root/r-4node-lv'
expect_grep '^numalab run: 4node: [1-9][0-9]* passed, 0 failed' "$SCRATCH/4node-libvirt.log"
cell=$(cell_dir "$root/root/r-4node-lv")
expect_grep '^backend: libvirt$' "$cell/meta"
sed -n 's/^libvirt: \(.*\)/# libvirt backend: \1/p' "$cell/meta"
echo "# fresh $release machine in all: $((SECONDS - t0)) s"
