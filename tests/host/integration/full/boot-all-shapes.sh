# Every shipped shape not booted by `make check` boots and passes its tests.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=loongarch64 || fail "cross build of the LoongArch guest failed"
for topo in 4node 8node la-4node la-3c5000l; do
	expect_rc 0 $NUMALAB run --topo $topo --out "$SCRATCH/$topo"
	expect_grep '^ok 1 topology$' "$SCRATCH/out"
	expect_grep '^ok 2 mempolicy$' "$SCRATCH/out"
	expect_no_qemu
done
# Every node of the 8-node LoongArch shape holds and migrates a 32M THP.
for n in 0 1 2 3 4 5 6 7; do
	expect_grep "^    ok [0-9]+ thp 32M migrated whole node $n -> $(((n + 1) % 8))\$" "$SCRATCH/out"
done
