# Every host and guest source, and each header alone, compiles with a newer
# toolchain than the host's: the lab's trixie toolroot (gcc 14, glibc 2.41;
# docs/toolroot.md), `make syntax` (-fsyntax-only, -Wall -Wextra -Werror)
# with the optional libraries off, since their headers are not in the root.
# A file that gets open() or O_RDWR through a header that stops including
# <fcntl.h> (glibc 2.41's <sys/mount.h>) builds on bookworm and fails here.
#
# Proof: run on the tree with this branch's include fixes reverted
# ("init: include fcntl.h and the rest of what each file uses", "Include
# what each file uses: lab, guest suites, unit, fuzz") it fails on
# images/init/{channels,disk,run,shares,shell}.c: "implicit declaration of
# function 'open'", "'O_RDWR' undeclared"; on the fixed tree it passes.
#
# Time: 13 s of CPU (the root's gcc over ~230 files, make -j2), measured
# 18-34 s wall on the 2-core host at load 8, so ~8 s on an idle one.  The
# warnings gcc 14 gives only when optimising are not checked here: a full
# -O2 build of it all is ~45 s of CPU.
. "$(dirname "$0")/lib.bash"

# The newest complete trixie root with a native gcc and libc6-dev (the
# table in lab/host/toolroot.c has both); make check's setup builds it for
# the LoongArch boots.
find_root() {
	local cache=${NUMALAB_CACHE:-${HOME:-/tmp}/.cache/numalab} r
	for r in $(ls -dt "$cache"/toolroot/trixie-*/ 2>/dev/null); do
		[ -f "$r/versions" ] && grep -q '^libc6-dev ' "$r/versions" && [ -x "$r/usr/bin/gcc" ] &&
			{ echo "${r%/}"; return 0; }
	done
	return 1
}
root=$(find_root)
if [ -z "$root" ] && [ "$(id -u)" = 0 ]; then
	$NUMALAB setup --quiet --arch loongarch64 >"$SCRATCH/setup.log" 2>&1 ||
		{ tail -n 20 "$SCRATCH/setup.log" >&2; fail "numalab setup --arch loongarch64 failed"; }
	root=$(find_root)
fi
# Setup builds no root when your own LoongArch tools are complete.
[ -n "$root" ] || fail "no trixie toolroot with gcc: run \`sudo ./numalab setup --arch loongarch64\`" \
	"(with your own LoongArch tools on PATH it builds none: see docs/toolroot.md)"

in_root() { $NUMALAB toolroot-exec --bind "$SCRATCH" "$root" -- "$@"; }
gcc_version=$(in_root gcc -dumpfullversion) || fail "cannot run gcc inside $root"
echo "# toolroot $root: gcc $gcc_version, $(grep '^libc6-dev ' "$root/versions")"
[ "${gcc_version%%.*}" -ge 14 ] || fail "the toolroot's gcc $gcc_version is not newer than bookworm's"

# B in the scratch directory: its config.h (both libraries off) is this
# test's, not the tree's build/.
if ! in_root make -s -j2 BUILD="$SCRATCH/b" CC=gcc HAVE_LIBVIRT=no HAVE_GUESTFS=no syntax \
	>"$SCRATCH/log" 2>&1; then
	grep -m 30 -E 'error|warning' "$SCRATCH/log" >&2 || tail -n 30 "$SCRATCH/log" >&2
	fail "the sources do not compile with the toolroot's gcc $gcc_version and glibc"
fi
expect_grep 'NUMALAB_HAVE_LIBVIRT 0' "$SCRATCH/b/config.h"
