# LoongArch under UEFI (QEMU 10 from the toolroot): 2 NUMA nodes from ACPI,
# 16K pages and 32M PMD THPs as declared, a 32M THP placed on and migrated
# whole between both nodes, both guest tests pass.
. "$(dirname "$0")/lib.bash"
# A --tests-dir script runs under the image's busybox sh (sid's loong64
# busybox-static, images/packages.lock), its applets by name: without it the
# exec fails (ENOENT, no /bin/sh).
make -s guest GUEST_ARCH=loongarch64 || fail "cross build of the LoongArch guest failed"
mkdir -p "$SCRATCH/suites"
cat >"$SCRATCH/suites/shell" <<'SH'
#!/bin/sh
echo "KTAP version 1"
echo "1..1"
if grep -q '^Hugepagesize: *32768 kB$' /proc/meminfo; then echo "ok 1 sh: grep Hugepagesize"; else echo "not ok 1 sh: grep Hugepagesize"; fi
SH
chmod +x "$SCRATCH/suites/shell"
expect_rc 0 $NUMALAB run --topo la-2node --out "$SCRATCH/r" --tests-dir "$SCRATCH/suites"
expect_grep '^    ok [0-9]+ page size 16384$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ pmd size 33554432$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ distance matrix$' "$SCRATCH/out"
for n in 0 1; do
	expect_grep "^    ok [0-9]+ thp 32M faulted on node $n\$" "$SCRATCH/out"
	expect_grep "^    ok [0-9]+ thp 32M migrated whole node $n -> $((1 - n))\$" "$SCRATCH/out"
done
expect_grep '^ok 1 topology$' "$SCRATCH/out"
expect_grep '^ok 2 mempolicy$' "$SCRATCH/out"
expect_grep '^    ok 1 sh: grep Hugepagesize$' "$SCRATCH/out"
expect_grep '^ok 3 shell$' "$SCRATCH/out"
# The image's numactl (sid, images/packages.lock) has -w and places by weight.
expect_grep '^    ok [0-9]+ numactl --version >= 2\.0\.19$' "$SCRATCH/out"
expect_grep '^    ok [0-9]+ numactl -w 0,1 places pages 3:1 by the sysfs weights$' "$SCRATCH/out"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^kernel.release: 7\.2\..*loong64$' "$cell/meta"
expect_grep '^firmware: .*QEMU_EFI.fd$' "$cell/meta"
expect_grep '^qemu: QEMU emulator version (9|[1-9][0-9])\.' "$cell/meta"
expect_no_qemu
