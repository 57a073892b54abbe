# LTP's 25 NUMA syscall tests (set_mempolicy, mbind, get_mempolicy,
# move_pages, migrate_pages), built statically from the LTP source tree
# named by LTP_SRC (a git clone of github.com/linux-test-project/ltp; only
# read: built in a copy), brought with --tests-dir and one directory
# sidecar (format ltp), on 4node and cxl with the default kernel: 24
# passed, 0 failed, 1 skipped, each binary's TPASS/TCONF lines counted as
# its results.  Without LTP_SRC it is a SKIP (exit 77): CI has no copy.
# Fails when a guest lacks what LTP needs (set_mempolicy03/04: a loop
# device), when /init stops converting LTP's lines (no nested results),
# or when TCONF's 32 is not the skip code.
# check-timeout: 7200
. "$(dirname "$0")/../lib.bash"
if [ -z "${LTP_SRC:-}" ]; then
	echo "SKIP: set LTP_SRC to an LTP source tree (git clone https://github.com/linux-test-project/ltp)" >&2
	exit 77
fi
[ -f "$LTP_SRC/configure.ac" ] && [ -d "$LTP_SRC/testcases/kernel/syscalls/mbind" ] ||
	fail "LTP_SRC=$LTP_SRC: not an LTP source tree (no configure.ac, testcases/kernel/syscalls/mbind)"
folders="set_mempolicy mbind get_mempolicy move_pages migrate_pages"
b=$SCRATCH/ltp
mkdir -p "$b"
tar -C "$LTP_SRC" --exclude=.git -cf - . | tar -C "$b" -xf - || fail "copying $LTP_SRC"
# LDFLAGS on make's command line would drop LTP's own -L flags; WLDFLAGS is appended to them.
# libnuma's static archive comes from the host's libnuma-dev.
{ make -C "$b" autotools && (cd "$b" && ./configure) && make -C "$b/lib" -j2 &&
	for f in $folders; do make -C "$b/testcases/kernel/syscalls/$f" -j2 WLDFLAGS=-static || exit 1; done
} >"$SCRATCH/build.log" 2>&1 || { tail -n 40 "$SCRATCH/build.log" >&2; fail "building LTP's NUMA tests (libnuma-dev installed?)"; }
d=$SCRATCH/numa
mkdir -p "$d"
for f in $folders; do
	find "$b/testcases/kernel/syscalls/$f" -maxdepth 1 -type f -perm -u+x -exec cp {} "$d/" \;
done
[ "$(ls "$d" | wc -l)" = 25 ] || fail "want 25 test binaries, built: $(ls "$d" | tr '\n' ' ')"
echo "format ltp" >"$d/.numalab"
for topo in 4node cxl; do
	t0=$SECONDS
	expect_rc 0 $NUMALAB run --topo $topo --tests none --timeout 3600 --out "$SCRATCH/r-$topo" --tests-dir "$d"
	echo "# $topo: $((SECONDS - t0)) s: $(grep "^numalab run: $topo:" "$SCRATCH/err")"
	expect_grep "^numalab run: $topo: 24 passed, 0 failed, 1 skipped; their [0-9]+ results: [0-9]+ passed, 0 failed, [0-9]+ skipped" "$SCRATCH/err"
	# Every binary's own results are nested and counted, not the binary alone.
	for t in $(ls "$d"); do
		sed -n "/^    # Subtest: $t\$/,/^\(not \)\?ok [0-9]* $t\\b/p" "$SCRATCH/out" | grep -qE '^    ok [0-9]+ ' ||
			fail "$topo: $t has no nested result"
	done
	expect_grep '^ok [0-9]+ [a-z_]+[0-9]+ # SKIP .+' "$SCRATCH/out"
	expect_no_qemu
done
