# numalab builds with none of the optional -dev packages installed: make setup
# installs libvirt-dev and libguestfs-dev, but setup is numalab, so it must
# build first.  A clean copy of the tree is built with both switched off (as
# on a fresh machine); the binary links neither and says what to install.
. "$(dirname "$0")/lib.bash"
src=$SCRATCH/src
mkdir -p "$src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$src" || fail "cannot copy the tree"
make -C "$src" -s -j2 HAVE_LIBVIRT=no HAVE_GUESTFS=no numalab guest >"$SCRATCH/build.log" 2>&1 ||
	{ tail -n 40 "$SCRATCH/build.log" >&2; fail "numalab does not build without libvirt-dev and libguestfs-dev"; }
expect_grep 'NUMALAB_HAVE_LIBVIRT 0' "$src/build/config.h"
expect_grep 'NUMALAB_HAVE_GUESTFS 0' "$src/build/config.h"
! ldd "$src/numalab" | grep -E 'libvirt|libguestfs' || fail "the build links an optional library"
expect_rc 3 "$src/numalab" run --topo 2node --backend libvirt --out "$SCRATCH/r"
expect_grep 'built without libvirt-dev: run `make setup`' "$SCRATCH/err"
