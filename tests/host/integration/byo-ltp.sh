# --tests-dir with a directory sidecar (.numalab: format ltp) over programs
# that print LTP's result lines (both APIs) and exit as LTP does (0, 32 =
# TCONF, 1|2, 4 = TWARN): each TPASS/TFAIL/TBROK/TCONF/TWARN line is a
# nested result with its reason, a TCONF exit skips with the last TCONF's
# reason, TWARN's 4 is a failure (not kselftest's skip), and the summary
# counts the results.  A suite's own sidecar overrides the directory's
# (format kselftest: its 4 skips, its LTP-looking lines stay output).
# Fails if /init does not convert (no nested results), if the skip code
# stays 4 under format ltp, or if .numalab is not read.
. "$(dirname "$0")/lib.bash"
d=$SCRATCH/ltp
mkdir -p "$d"
cat >"$SCRATCH/fake.c" <<'C'
#include <stdio.h>
int main(void)
{
	fputs("tst_test.c:1900: TINFO: LTP version: fake\n", stderr);
#if KIND == 0   /* passes, with a skipped case */
	puts("fake.c:10: TPASS: set_mempolicy(MPOL_BIND) node 0");
	puts("fake.c:11: TPASS: Node 0 allocated 16 # of pages");
	puts("fake01    1  TPASS  :  old API passed");
	puts("fake.c:12: TCONF: MPOL_WEIGHTED_INTERLEAVE not supported");
	return 0;
#elif KIND == 1 /* nothing to test here */
	puts("fake.c:20: TCONF: This arch 'x86_64' is not supported");
	return 32;
#elif KIND == 2 /* fails and breaks */
	puts("fake.c:30: TPASS: first");
	puts("fake.c:31: TFAIL: expected 16 pages on node 1, found 9 (N0=7)");
	puts("tst_device.c:450: TBROK: Failed to acquire device");
	return 3;
#else           /* warns */
	puts("fake.c:40: TPASS: first");
	puts("tst_test.c:1130: TWARN: Failed to restore /proc/sys/vm/x");
	return 4;
#endif
}
C
n=0
for name in ltp-pass ltp-conf ltp-fail ltp-warn; do
	gcc -static -DKIND=$n -o "$d/$name" "$SCRATCH/fake.c" || fail "gcc -static $name"
	n=$((n + 1))
done
printf '# every suite of this directory\nformat ltp\n' >"$d/.numalab"
printf '#!/bin/sh\necho "x.c:1: TFAIL: not LTP here"\nexit 4\n' >"$d/kself"
chmod +x "$d/kself"
echo "format kselftest" >"$d/kself.numalab"
expect_rc 1 $NUMALAB run --topo 2node --tests none --out "$SCRATCH/r" --tests-dir "$d"
out=$SCRATCH/out
# Sorted by name: kself first.
expect_grep '^    # Subtest: kself$' "$out"
expect_grep '^    # x\.c:1: TFAIL: not LTP here$' "$out"
expect_grep '^ok 1 kself # SKIP' "$out"
expect_grep '^    ok 1 fake\.c:20 # SKIP TCONF: This arch .x86_64. is not supported$' "$out"
expect_grep "^ok 2 ltp-conf # SKIP (TCONF: )?This arch 'x86_64' is not supported$" "$out"
expect_grep '^    ok 1 fake\.c:30 # TPASS: first$' "$out"
expect_grep '^    not ok 2 fake\.c:31 # TFAIL: expected 16 pages on node 1, found 9 \(N0=7\)$' "$out"
expect_grep '^    not ok 3 tst_device\.c:450 # ERROR TBROK: Failed to acquire device$' "$out"
expect_grep '^    1\.\.3$' "$out"
expect_grep '^not ok 3 ltp-fail # exit 3$' "$out"
expect_grep '^    # tst_test\.c:1900: TINFO: LTP version: fake$' "$out"
expect_grep '^    ok 2 fake\.c:11 # TPASS: Node 0 allocated 16 # of pages$' "$out"
expect_grep '^    ok 3 fake01 1 # TPASS: old API passed$' "$out"
expect_grep '^    ok 4 fake\.c:12 # SKIP TCONF: MPOL_WEIGHTED_INTERLEAVE not supported$' "$out"
expect_grep '^ok 4 ltp-pass$' "$out"
expect_grep '^    not ok 2 tst_test\.c:1130 # TWARN: Failed to restore /proc/sys/vm/x$' "$out"
expect_grep '^not ok 5 ltp-warn # exit 4$' "$out"
expect_grep '^numalab run: 2node: 1 passed, 2 failed, 2 skipped; their 11 results: 5 passed, 3 failed, 3 skipped' "$SCRATCH/err"
expect_no_qemu
