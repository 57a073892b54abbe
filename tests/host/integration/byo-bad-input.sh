# Bad byo input: one clear line (a sidecar's file and line), exit 2, no VM.
. "$(dirname "$0")/lib.bash"
d=$SCRATCH/suites
mkdir -p "$d"
printf '#!/bin/sh\nexit 0\n' >"$d/s1" && chmod +x "$d/s1"
printf 'skip-code 77\ntimeuot 5\n' >"$d/s1.numalab"
expect_rc 2 $NUMALAB run --topo 2node --tests-dir "$d" --out "$SCRATCH/r"
expect_grep "s1\.numalab:2: unknown key 'timeuot'; use format, timeout, skip-code, file, env or tmpdir" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"
rm "$d/s1.numalab"
printf '# all suites\nformat LTP\n' >"$d/.numalab"
expect_rc 2 $NUMALAB run --topo 2node --tests-dir "$d" --out "$SCRATCH/r"
expect_grep "suites/\.numalab:2: format 'LTP': use tap, kselftest, ltp, automake or plain" "$SCRATCH/err"
rm "$d/.numalab"
expect_rc 2 $NUMALAB run --topo 2node --tests-dir "$d" --tests-dir "$d" --out "$SCRATCH/r"
expect_grep "suite 's1' is also in" "$SCRATCH/err"
cp "$d/s1" "$d/topology"
expect_rc 2 $NUMALAB run --topo 2node --tests topology --tests-dir "$d" --out "$SCRATCH/r"
expect_grep "suite 'topology' has the name of a lab test" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --tests-dir "$SCRATCH/nodir" --out "$SCRATCH/r"
expect_grep "tests-dir .*nodir: No such file or directory" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --rw "$SCRATCH/nodir" --out "$SCRATCH/r" -- true
expect_grep "rw .*nodir: No such file or directory" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --out "$SCRATCH/r" true
expect_grep "unexpected argument 'true'; a command for the guest goes after --" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --tests none --out "$SCRATCH/r"
expect_grep "nothing to run" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo la-2node --out "$SCRATCH/r" -- true
expect_grep "la-2node.topo is a loongarch64 shape: .* use an x86_64 shape" "$SCRATCH/err"
expect_rc 2 $NUMALAB shell --topo la-2node --out "$SCRATCH/r"
expect_rc 2 $NUMALAB shell --topo 2node --backend libvirt --out "$SCRATCH/r"
expect_grep "need the direct QEMU backend" "$SCRATCH/err"
[ ! -e "$SCRATCH/r" ] || fail "a results directory was created for bad input"
expect_no_qemu
