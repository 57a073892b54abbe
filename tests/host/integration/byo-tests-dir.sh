# --tests-dir: each executable is a suite of the plan.  KTAP it prints is
# nested (a tab kept, its stderr part of its output); a plain program's exit
# status counts (0 pass, a sidecar's skip-code skips, else fail); a sidecar's
# file, env and tmpdir reach it; the summary counts the nested results.  The
# guest-env suite checks what third-party suites expect of the guest: it
# fails on a kernel without BLK_DEV_LOOP (Debian's: no loop module) or
# without CGROUPS, and on an /init without furnish_guest() or a lab without
# the debian-config pin.
. "$(dirname "$0")/lib.bash"
d=$SCRATCH/suites
mkdir -p "$d/data"
cat >"$d/ktap" <<'SH'
#!/bin/sh
echo "KTAP version 1"
echo "1..3"
printf 'ok 1 first\tcolumn\n'
echo "ok 2 second # SKIP not here"
echo "a line on stderr" >&2
echo "ok 3 third"
SH
printf '#include <stdio.h>\nint main(void) { puts("plain output"); return 0; }\n' >"$SCRATCH/plain.c"
gcc -static -o "$d/plain" "$SCRATCH/plain.c" || fail "gcc -static"
cat >"$d/skipper" <<'SH'
#!/bin/sh
cat data/note.txt
echo "FOO=$FOO TMPDIR=$TMPDIR"
[ -d "$TMPDIR" ] && touch "$TMPDIR/x" && echo "tmpdir writable"
exit 77
SH
echo "a file the suite needs" >"$d/data/note.txt"
printf 'skip-code 77\nfile data/note.txt\nenv FOO=bar baz\ntmpdir\n' >"$d/skipper.numalab"
printf '#!/bin/sh\necho "about to fail"\nexit 3\n' >"$d/failer"
cat >"$d/guest-env" <<'SH'
#!/bin/sh
echo "KTAP version 1"
echo "1..9"
n=0
check() { n=$((n + 1)); name=$1; shift; if "$@" >/dev/null 2>&1; then echo "ok $n $name"; else echo "not ok $n $name"; fi; }
check passwd-nobody grep -q '^nobody:' /etc/passwd
check group-nogroup grep -q '^nogroup:' /etc/group
check kernel-config sh -c 'grep -q "^CONFIG_NUMA=y" /boot/config-$(uname -r)'
check modprobe-loop sh -c 'modprobe loop; [ -e /dev/loop-control ]'
check dev-shm sh -c 'echo x > /dev/shm/t && rm /dev/shm/t'
check tmp-writable sh -c 'echo x > /tmp/t && rm /tmp/t'
check bin-sh-applets sh -c '[ -x /bin/sh ] && [ -e /bin/ls ] && [ -e /sbin/modprobe ]'
check cgroup2 test -r /sys/fs/cgroup/cgroup.controllers
check debugfs sh -c '[ -n "$(ls /sys/kernel/debug)" ]'
SH
chmod +x "$d/ktap" "$d/skipper" "$d/failer" "$d/guest-env"
expect_rc 1 $NUMALAB run --topo 2node --tests none --out "$SCRATCH/r" --tests-dir "$d"
out=$SCRATCH/out
expect_grep '^1\.\.5$' "$out"
expect_grep '^    # Subtest: ktap$' "$out"
expect_grep "^    ok 1 first	column$" "$out"
expect_grep '^    # a line on stderr$' "$out"
expect_grep '^    ok 2 second # SKIP not here$' "$out"
expect_grep '^ok [0-9] ktap$' "$out"
expect_grep '^    # plain output$' "$out"
expect_grep '^ok [0-9] plain$' "$out"
expect_grep '^    # a file the suite needs$' "$out"
expect_grep '^    # FOO=bar baz TMPDIR=/tmp/skipper\.' "$out"
expect_grep '^    # tmpdir writable$' "$out"
expect_grep '^ok [0-9] skipper # SKIP' "$out"
expect_grep '^    # about to fail$' "$out"
expect_grep '^not ok [0-9] failer # exit 3$' "$out"
grep -q '^    not ok' "$out" && { grep '^    not ok' "$out" >&2; fail "a guest-env check failed"; }
expect_grep '^ok [0-9] guest-env$' "$out"
# Results as flat TAP and JUnit count them: suites without subtests (plain, skipper, failer) are results too.
expect_grep '^numalab run: 2node: 3 passed, 1 failed, 1 skipped; their 15 results: 12 passed, 1 failed, 2 skipped ' "$SCRATCH/err"
expect_no_qemu
