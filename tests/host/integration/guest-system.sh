# The guest behaves like a real system for outside suites (docs/guest.md):
# one boot of the default kernel (Debian's: loop and ext4 are modules) with
# a --tests-dir suite in the lab's root and a command in the host view.
#  - Modules load on demand: /dev/loop-control exists before loop is loaded
#    and opening it loads loop; `losetup -f`, mkfs.ext2/3/4 and mounting
#    ext4 (its module loads on demand too) work.  Fails without
#    images/init/modules.c:make_static_nodes() (no /dev/loop-control until
#    someone runs modprobe) and with serve_modules() writing a modprobe that
#    does not exist (the open fails ENODEV); without the manifest's e2fsprogs
#    lines (no mkfs.ext4).
#  - KCONFIG_PATH names the kernel's config (LTP's tst_kconfig reads it
#    first) in the lab's root and in the host view, unless a sidecar sets
#    its own.  Fails with images/init/tools.c:kconfig_env() returning NULL,
#    and with run.c:run_test() calling env_add(), not env_add_default().
#  - The host view has the running kernel's files where a real system has
#    them: /boot/config-RELEASE, and /lib/modules/RELEASE, from which the
#    host's modprobe loads nbd and knows virtio_pci is built in.  Fails
#    without add_view_kernel_files(), and without lab/drive/run.c:
#    module_index()'s copy of modules.builtin (kmod: "Module virtio_pci not
#    found").
#  - `-- CMD` finds the lab's numactl (2.0.19) before the host's, and it
#    runs the host's programs.  Fails without add_view_tools()'s links
#    (the host's numactl, /usr/bin/numactl, is found).
. "$(dirname "$0")/lib.bash"
d=$SCRATCH/suites
mkdir -p "$d"
cat >"$d/real-system" <<'SH'
#!/bin/sh
echo "KTAP version 1"
echo "1..6"
n=0
check() {
	n=$((n + 1)); name=$1; shift
	if out=$("$@" 2>&1); then echo "ok $n $name"; else echo "$out" | sed 's/^/# /'; echo "not ok $n $name"; fi
}
check static-node-before-load sh -c '! grep -q "^loop " /proc/modules && [ -c /dev/loop-control ]'
check open-loads-module sh -c 'exec 3</dev/loop-control && grep -q "^loop " /proc/modules'
check mkfs-ext2-ext3 sh -c 'dd if=/dev/zero of=/tmp/fs.img bs=1M count=16 2>/dev/null &&
	mkfs.ext2 -q -F /tmp/fs.img && mkfs.ext3 -q -F /tmp/fs.img'
check losetup-mkfs-ext4-mount sh -c 'mkfs.ext4 -q -F /tmp/fs.img && dev=$(losetup -f) &&
	losetup "$dev" /tmp/fs.img && mkdir -p /tmp/mnt && mount -t ext4 "$dev" /tmp/mnt &&
	echo x >/tmp/mnt/file && umount /tmp/mnt && losetup -d "$dev"'
check kconfig-path sh -c 'grep -q "^CONFIG_NUMA=y" "$KCONFIG_PATH"'
check modprobe-builtin modprobe virtio_pci
SH
# A sidecar's KCONFIG_PATH is the only one the suite gets (getenv() takes
# the first of two).
cat >"$d/own-kconfig" <<'SH'
#!/bin/sh
[ "$(tr '\0' '\n' </proc/$$/environ | grep '^KCONFIG_PATH=')" = KCONFIG_PATH=/my/config ]
SH
echo 'env KCONFIG_PATH=/my/config' >"$d/own-kconfig.numalab"
chmod +x "$d/real-system" "$d/own-kconfig"
cmd='echo "numactl=$(command -v numactl)"; numactl --version &&
numactl -w 0,1 sh -c "echo host child ran" && grep -q "^CONFIG_NUMA=y" "$KCONFIG_PATH" &&
echo "kconfig: $KCONFIG_PATH" && grep -q "^CONFIG_NUMA=y" /boot/config-$(uname -r) &&
modprobe nbd && grep -q "^nbd " /proc/modules && echo "host modprobe loaded nbd" &&
modprobe virtio_pci && echo "host modprobe knows built-in virtio_pci"'
expect_rc 0 $NUMALAB run --topo 2node --tests none --out "$SCRATCH/r" --tests-dir "$d" -- sh -c "$cmd"
out=$SCRATCH/out
grep -q '^    not ok' "$out" && { grep -B3 '^    not ok' "$out" >&2; fail "a real-system check failed"; }
expect_grep '^    ok 5 kconfig-path$' "$out"
expect_grep '^ok [0-9] real-system$' "$out"
expect_grep '^ok [0-9] own-kconfig$' "$out"
expect_grep '^    # numactl=/run/numalab/bin/numactl$' "$out"
expect_grep '^    # 2\.0\.19$' "$out"
expect_grep '^    # host child ran$' "$out"
expect_grep '^    # kconfig: /run/numalab/root/lab/kernel\.config$' "$out"
expect_grep '^    # host modprobe loaded nbd$' "$out"
expect_grep '^    # host modprobe knows built-in virtio_pci$' "$out"
expect_grep '^ok [0-9] exec: sh -c ' "$out"
expect_no_qemu
