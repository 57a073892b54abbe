# UEFI trouble on LoongArch is a clear harness error (exit 3), not a silent
# timeout: firmware that never starts the kernel,
# and a kernel the firmware cannot load (it falls through to the EFI shell).
. "$(dirname "$0")/lib.bash"
make -s guest GUEST_ARCH=loongarch64 || fail "cross build of the LoongArch guest failed"

# A missing $NUMALAB_LOONGARCH_FIRMWARE is bad input (exit 2): bad-input.sh.
NUMALAB_LOONGARCH_FIRMWARE=$SCRATCH/none.fd \
	expect_rc 2 $NUMALAB run --topo la-2node --out "$SCRATCH/r0"
[ ! -e "$SCRATCH/r0" ] || fail "a run directory was made for a run that could not start"

# All zeros: the CPU never reaches anything that prints.
head -c 4M /dev/zero >"$SCRATCH/zero.fd"
NUMALAB_LOONGARCH_FIRMWARE=$SCRATCH/zero.fd \
	expect_rc 3 $NUMALAB run --topo la-2node --timeout 12 --out "$SCRATCH/r1"
expect_grep 'did not start the kernel: firmware-hang: no kernel output 12 s after QEMU started' "$SCRATCH/err"
expect_grep '^not ok 1 topology # ERROR .*firmware-hang' "$(cell_dir "$SCRATCH/r1")/tap"
expect_grep '^end: firmware$' "$(cell_dir "$SCRATCH/r1")/meta"
expect_no_qemu

# The pinned kernel with its PE signature broken: QEMU still takes the
# LoongArch image header, edk2's LoadImage refuses it.
kernel=$(ls "${NUMALAB_CACHE:-$HOME/.cache/numalab}"/kernels/debian-loongarch64-*/vmlinuz | head -n 1)
[ -f "$kernel" ] || fail "no cached LoongArch kernel (make setup fetches it)"
cp "$kernel" "$SCRATCH/badpe.efi"
pe=$(od -An -tu4 -j60 -N4 "$SCRATCH/badpe.efi" | tr -d ' ')
printf 'XXXX' | dd of="$SCRATCH/badpe.efi" bs=1 seek="$pe" conv=notrunc status=none
start=$(date +%s)
expect_rc 3 $NUMALAB run --topo la-2node --kernel "$SCRATCH/badpe.efi" --out "$SCRATCH/r2"
expect_grep 'efi-shell: the firmware reached the EFI shell' "$SCRATCH/err"
expect_grep 'BdsDxe: failed to load' "$SCRATCH/err"
[ $(($(date +%s) - start)) -lt 100 ] || fail "the EFI shell was not noticed before the firmware deadline"
expect_no_qemu
