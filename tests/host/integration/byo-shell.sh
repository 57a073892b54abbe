# numalab shell in a pseudo-terminal (util-linux script): the 4node guest's
# console answers `cat /sys/devices/system/node/online` with 0-3 and
# `numactl --version` with the lab's 2.0.19, `poweroff`
# ends it with exit 0, no QEMU is left and the terminal's modes are back;
# the tests of --tests run first and the last line counts them, as run's.
. "$(dirname "$0")/lib.bash"
mkfifo "$SCRATCH/in"
ts=$SCRATCH/typescript
# Inside the pty: the modes before, the shell, the modes after.
inner="stty -g >$SCRATCH/stty.before; $NUMALAB shell --topo 4node --tests topology --out $SCRATCH/r; echo \"rc=\$?\" >$SCRATCH/rc; stty -g >$SCRATCH/stty.after"
script -qfec "$inner" "$ts" <"$SCRATCH/in" >/dev/null 2>&1 &
pid=$!
exec 3>"$SCRATCH/in"
# wait_ts PATTERN SECONDS: the pty's output shows PATTERN.
wait_ts() {
	for _ in $(seq $(($2 * 2))); do grep -a -q -E -- "$1" "$ts" 2>/dev/null && return 0; sleep 0.5; done
	tail -c 2000 "$ts" | cat -v >&2
	fail "no /$1/ on the terminal within $2 s"
}
wait_ts 'numalab:[~/][^ ]*# ' 240   # bash shows the cwd under HOME as ~
echo 'cat /sys/devices/system/node/online' >&3
wait_ts $'(^|\r)0-3\r?$' 60   # bash's prompt ends with escapes and a CR
echo 'numactl --version' >&3   # the lab's, first in PATH (the host's may have no --version)
wait_ts $'(^|\r)2\.0\.19\r?$' 60
echo poweroff >&3
for _ in $(seq 120); do [ -e "$SCRATCH/stty.after" ] && break; sleep 0.5; done
exec 3>&-
wait "$pid"
[ "$(cat "$SCRATCH/rc" 2>/dev/null)" = rc=0 ] || fail "numalab shell: $(cat "$SCRATCH/rc" 2>/dev/null || echo 'did not end')"
cmp -s "$SCRATCH/stty.before" "$SCRATCH/stty.after" || fail "terminal modes not restored"
expect_grep 'numalab shell: 4node: poweroff; tests: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped( |;)' "$ts"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^# numalab: shell ended \(poweroff\)$' "$cell/tap"
expect_grep '^# guest.nodes_online: 0-3$' "$cell/tap"
expect_no_qemu
