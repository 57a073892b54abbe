# --kernel DIR: a 7.2 git tree with a local edit (EXTRAVERSION) builds out of
# tree, boots (uname -r shows the edit), and meta names the tree, its git
# describe and the uncommitted diff's hash; after touching one mm/ file the
# rebuild takes under a minute; a tree configured in place is refused
# (exit 2, mrproper); the tree's listing is the same before and after.
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
tree=$SCRATCH/linux
expect_rc 0 $NUMALAB kernel git-tree "$tree"
sed -i 's/^EXTRAVERSION =.*/EXTRAVERSION = -byo/' "$tree/Makefile"
listing() { (cd "$tree" && find . -printf '%P %s %T@ %m\n' | LC_ALL=C sort | sha256sum); }
before=$(listing)

expect_rc 0 $NUMALAB run --topo 2node --kernel "$tree" --tests topology --out "$SCRATCH/r1"
# The scratch tree's work tree in the cache (~2 GB) goes with the test.
work=$(sed -n 's/^numalab: copying .* into \(.*\)\/src (.*/\1/p' "$SCRATCH/err")
[ -n "$work" ] || fail "no work tree named in $SCRATCH/err"
trap 'rm -rf "$SCRATCH" "$work" "$work.lock"' EXIT
cell=$(cell_dir "$SCRATCH/r1")
expect_grep '^kernel.release: 7\.2\.13-byo' "$cell/meta"
expect_grep "^kernel.tree: $tree\$" "$cell/meta"
expect_grep '^kernel.tree.describe: .*-dirty$' "$cell/meta"
expect_grep "^kernel.tree.diff_sha256: $(git -C "$tree" diff HEAD | sha256sum | cut -d' ' -f1)\$" "$cell/meta"
expect_no_qemu

# One mm/ file edited: only it is copied and rebuilt.
echo '/* numalab kernel-tree test */' >>"$tree/mm/mempolicy.c"
before=$(listing)
start=$(date +%s)
expect_rc 0 $NUMALAB kernel build "$tree"
took=$(($(date +%s) - start))
expect_grep 'mirrored: [0-9]+ files, 1 copied, 0 removed' "$SCRATCH/err"
echo "# rebuild after one mm/ edit: $took s"
[ "$took" -lt 60 ] || fail "the rebuild took $took s, not under a minute"
expect_rc 0 $NUMALAB run --topo 2node --kernel "$tree" --tests topology --out "$SCRATCH/r2"
[ "$(listing)" = "$before" ] || fail "the tree changed"

: >"$tree/.config"
expect_rc 2 $NUMALAB run --topo 2node --kernel "$tree" --tests topology --out "$SCRATCH/r3"
expect_grep "configured or built in place .*make -C $tree mrproper" "$SCRATCH/err"
