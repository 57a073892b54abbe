# A pin the mirror no longer has is fetched from the snapshot archive by
# package, version and sha256 (lab/kernel/pin.h); when neither has it, one
# error names the lock line and the fixes (exit 2).  The snapshot archive is a
# loopback server ($NUMALAB_SNAPSHOT) laid out as snapshot.debian.org's
# /mr/binary/PKG/VERSION/binfiles and /file/SHA1; the mirror is the host's,
# asked for a package its small suite bookworm-updates has never carried.
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || fail "python3 is needed for the loopback snapshot server"

# A stand-in kernel (a bzImage header is all kernel_check_image() reads) and a
# decoy built under the same package and version: only the pinned sha256 may be taken.
deb() {  # deb OUT MARKER
	local pkg=$SCRATCH/pkg
	rm -rf "$pkg" && mkdir -p "$pkg/DEBIAN" "$pkg/boot"
	printf 'Package: numalab-test-kernel\nVersion: 1.0-1\nArchitecture: amd64\nMaintainer: numalab <numalab@localhost>\nDescription: stand-in kernel (%s)\n' "$2" >"$pkg/DEBIAN/control"
	python3 -c 'import sys; b = bytearray(4096); b[0x202:0x206] = b"HdrS"; b[8:8 + len(sys.argv[2])] = sys.argv[2].encode(); open(sys.argv[1], "wb").write(b)' "$pkg/boot/vmlinuz" "$2"
	dpkg-deb --root-owner-group -Znone -b "$pkg" "$1" >/dev/null || fail "dpkg-deb -b $1"
}
srv=$SCRATCH/snapshot
mkdir -p "$srv/file" "$srv/mr/binary/numalab-test-kernel/1.0-1"
deb "$SCRATCH/good.deb" good
deb "$SCRATCH/decoy.deb" decoy
good1=$(sha1sum <"$SCRATCH/good.deb" | cut -d' ' -f1)
good256=$(sha256sum <"$SCRATCH/good.deb" | cut -d' ' -f1)
decoy1=$(sha1sum <"$SCRATCH/decoy.deb" | cut -d' ' -f1)
cp "$SCRATCH/good.deb" "$srv/file/$good1"
cp "$SCRATCH/decoy.deb" "$srv/file/$decoy1"
# The decoy first; an arm64 file that is not there, which must not even be asked for.
cat >"$srv/mr/binary/numalab-test-kernel/1.0-1/binfiles" <<EOF
{"_comment": "test", "binary": "numalab-test-kernel", "binary_version": "1.0-1",
 "result": [{"architecture": "amd64", "hash": "$decoy1"},
            {"architecture": "arm64", "hash": "0000000000000000000000000000000000000000"},
            {"architecture": "amd64", "hash": "$good1"}]}
EOF

# The server: loopback only, bounded, stopped when the test ends.
timeout 120 python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$srv" \
	>"$SCRATCH/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 50); do
	port=$(sed -n 's/^Serving HTTP on 127.0.0.1 port \([0-9]*\).*/\1/p' "$SCRATCH/http.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { cat "$SCRATCH/http.log" >&2; fail "the loopback server did not start"; }

# A lab root of its own: the binary finds its lock next to itself.
root=$SCRATCH/root
mkdir -p "$root/kernels"
cp "$NUMALAB" "$root/numalab"
zeros=$(printf '0%.0s' $(seq 64))
cat >"$root/kernels/prebuilt.lock" <<EOF
# name  arch    suite             debarch  package              version  sha256    image
testk   x86_64  bookworm-updates  amd64    numalab-test-kernel  1.0-1    $good256  boot/vmlinuz
gone    x86_64  bookworm-updates  amd64    numalab-test-kernel  9.9-1    $good256  boot/vmlinuz
other   x86_64  bookworm-updates  amd64    numalab-test-kernel  1.0-1    $zeros    boot/vmlinuz
EOF
export NUMALAB_CACHE=$SCRATCH/cache NUMALAB_SNAPSHOT=http://127.0.0.1:$port/

# The mirror lacks it: the snapshot archive's file with the pinned sha256 is taken.
expect_rc 0 "$root/numalab" kernel fetch testk
kdir=$NUMALAB_CACHE/kernels/testk-x86_64-1.0-1
expect_grep "^$kdir/vmlinuz$" "$SCRATCH/out"
expect_grep "^origin: snapshot http://127.0.0.1:$port/file/$good1$" "$SCRATCH/out"
expect_grep "^snapshot http://127.0.0.1:$port/file/$good1$" "$kdir/origin"
expect_grep "kernels/prebuilt.lock:2: numalab-test-kernel=1.0-1 came from the snapshot archive .*the mirror \(.* bookworm-updates\) has no package numalab-test-kernel" "$SCRATCH/err"
cmp -s "$kdir/vmlinuz" <(dpkg-deb --fsys-tarfile "$SCRATCH/good.deb" | tar -xO ./boot/vmlinuz) ||
	fail "the cached image is not the pinned package's"
grep -q "GET /mr/binary/numalab-test-kernel/1.0-1/binfiles" "$SCRATCH/http.log" || fail "binfiles not asked for"
grep -q "GET /file/0000000000000000000000000000000000000000" "$SCRATCH/http.log" &&
	fail "a file of another architecture was fetched"

# Nothing works: one line naming the lock line, both reasons and the fixes; exit 2.
expect_rc 2 "$root/numalab" kernel fetch gone
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"
expect_grep "^numalab kernel fetch: kernels/prebuilt.lock:3: gone x86_64 pins numalab-test-kernel=9.9-1 \(sha256 ${good256:0:12}…\), which neither the mirror \(.* bookworm-updates has no package numalab-test-kernel.*\) nor the snapshot archive \(http://127.0.0.1:$port/mr/binary/numalab-test-kernel/9.9-1/binfiles: 404 .*\) gives; refresh the line \(docs/kernels.md, \"Refreshing a pin\"\), or set NUMALAB_SNAPSHOT=URL" "$SCRATCH/err"
[ ! -e "$NUMALAB_CACHE/kernels/gone-x86_64-9.9-1" ] || fail "a directory was left for a failed fetch"

# The sha256 stays mandatory: files the snapshot serves under the version but not the pin's are refused.
expect_rc 2 "$root/numalab" kernel fetch other
expect_grep "kernels/prebuilt.lock:4: other x86_64 pins .*snapshot archive \(http://127.0.0.1:$port/file/$good1: has sha256 $good256, not the pinned 000000000000…\)" "$SCRATCH/err"
[ ! -e "$NUMALAB_CACHE/kernels/other-x86_64-1.0-1" ] || fail "a directory was left for a refused file"

# Once fetched, the cache serves it and still says where it came from: no server needed.
kill $server
wait $server 2>/dev/null
expect_rc 0 "$root/numalab" kernel fetch testk
expect_grep "^origin: snapshot http://127.0.0.1:$port/file/$good1$" "$SCRATCH/out"
