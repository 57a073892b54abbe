# Bad input: one clear line naming file and line, exit 2, and no VM started.
. "$(dirname "$0")/lib.bash"
printf 'arch x86_64\nnode 0 cpus=0-1 mem=512M\nnode 1 cpus=1-2 mem=512M\n' >"$SCRATCH/overlap.topo"
expect_rc 2 $NUMALAB run --topo "$SCRATCH/overlap.topo" --out "$SCRATCH/r"
expect_grep "overlap.topo:3: cpus=1-2 overlaps" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"
[ ! -e "$SCRATCH/r" ] || fail "a results directory was created for a bad topology"
expect_rc 2 $NUMALAB topo check "$SCRATCH/overlap.topo"
expect_grep ":3: " "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --bogus
expect_grep "^numalab run: unknown option '--bogus'; see \`numalab run --help\`$" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "a bad option is reported once, got: $(cat "$SCRATCH/err")"
# Whole names only: a prefix getopt_long would take is refused, naming the option.
expect_rc 2 $NUMALAB run --topo 2node --kern stock
expect_grep "^numalab run: unknown option '--kern'; options take their whole name: --kernel; see" "$SCRATCH/err"
expect_rc 2 $NUMALAB topo sho 2node
expect_grep "^numalab topo: unknown subcommand 'sho'; use check or show; see \`numalab topo --help\`$" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --tests nosuchtest --out "$SCRATCH/r"
expect_grep "unknown test 'nosuchtest'" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --kernel /nonexistent/bzImage --out "$SCRATCH/r"
expect_rc 2 $NUMALAB run --topo 2node --timeout 0
expect_rc 2 $NUMALAB run --topo 2node --kernel /etc/passwd --out "$SCRATCH/r"
expect_grep "/etc/passwd is not a kernel image" "$SCRATCH/err"
# An x86 ELF that is no PVH kernel (a vmlinux built without CONFIG_PVH, here a program).
expect_rc 2 $NUMALAB run --topo 2node --kernel /bin/true --out "$SCRATCH/r"
expect_grep "/bin/true is an x86 ELF kernel without a PVH entry" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --kernel nosuchkernel --out "$SCRATCH/r"
expect_grep "unknown kernel .nosuchkernel." "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --guest-file "$SCRATCH/none.conf" --out "$SCRATCH/r"
expect_grep "guest-file .*none.conf: No such file" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --backend xen --out "$SCRATCH/r"
expect_grep "backend xen: use qemu or libvirt" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --uri test:///default --out "$SCRATCH/r"
expect_grep "uri needs --backend libvirt" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --host-nodes 0=0,1=7 --out "$SCRATCH/r"
expect_grep "guest node 1 wants host node 7, but this host has no NUMA node 7" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --backend libvirt --host-nodes 0=0 --uri test:///default --out "$SCRATCH/r"
expect_grep "host-nodes 0=0: guest node 1 is not mapped" "$SCRATCH/err"
echo junk >"$SCRATCH/junk.qcow2"
expect_rc 2 $NUMALAB run --topo 2node --disk "$SCRATCH/junk.qcow2" --out "$SCRATCH/r"
expect_grep "disk .*junk.qcow2: not a qcow2 image" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --disk "$SCRATCH/none.qcow2" --out "$SCRATCH/r"
expect_rc 2 $NUMALAB image build nosuchimage
expect_grep "unknown image 'nosuchimage'" "$SCRATCH/err"
printf 'suite bookworm\nsize 1T\n' >"$SCRATCH/bad.image"
expect_rc 2 $NUMALAB image build "$SCRATCH/bad.image"
expect_grep "bad.image:2: size '1T'" "$SCRATCH/err"
expect_rc 2 $NUMALAB image frobnicate
# git bisect takes 2 for "bad": a bisect-run request that cannot work aborts (128).
expect_rc 128 $NUMALAB bisect-run --topo 2node --test mempolicy
expect_grep 'required; aborting the bisect' "$SCRATCH/err"
expect_rc 128 $NUMALAB bisect-run --ksrc "$SCRATCH" --topo 2node --test mempolicy --recipe nosuch
expect_grep 'nosuch.recipe' "$SCRATCH/err"
expect_rc 128 $NUMALAB bisect-run --ksrc "$SCRATCH" --topo 2node --test mempolicy --metric x
expect_grep 'needs --baseline' "$SCRATCH/err"
expect_rc 128 $NUMALAB bisect-run --ksrc "$SCRATCH" --topo 2node --test mempolicy --bogus
expect_rc 2 $NUMALAB bisect --ksrc "$SCRATCH" --good a --bad b --topo 2node --test mempolicy
expect_grep 'not a git tree' "$SCRATCH/err"
git init -q "$SCRATCH/tree" && git -C "$SCRATCH/tree" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
expect_rc 2 $NUMALAB bisect --ksrc "$SCRATCH/tree" --good HEAD --bad HEAD --topo 2node \
	--test mempolicy --out "$SCRATCH/r"
expect_grep 'is not a range of commits' "$SCRATCH/err"
# What bisect passes on to each step is checked before the bisect starts.
expect_rc 2 $NUMALAB bisect --ksrc "$SCRATCH/tree" --good HEAD --bad HEAD --topo 2node \
	--test mempolicy --metric m --alpha x --out "$SCRATCH/r"
expect_grep '^numalab bisect: --alpha x: give a number > 0 and < 1' "$SCRATCH/err"
expect_rc 2 $NUMALAB kernel git-tree "$SCRATCH/tree"
expect_grep 'exists; remove it' "$SCRATCH/err"
expect_rc 2 $NUMALAB kernel git-tree "$SCRATCH/t2" "$SCRATCH/none.patch"
expect_grep 'none.patch: no such file' "$SCRATCH/err"
[ ! -e "$SCRATCH/t2" ] && [ ! -e "$SCRATCH/t2.tmp" ] || fail "git-tree left a half-made tree"
expect_rc 2 $NUMALAB run --topo 2node --timeout 12abc
expect_grep "^numalab run: --timeout 12abc: give an integer 1..86400" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --accel hvf
expect_grep "^numalab run: --accel hvf: use auto, tcg or kvm" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo nosuchtopo --out "$SCRATCH/r"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"
# Garbage bytes in a topology: one line naming file and line, nothing echoed raw.
printf 'arch x86_64\nnode 0 cpus=0-1 mem=512M\n\033[2J\xff\x00junk\n' >"$SCRATCH/binary.topo"
expect_rc 2 $NUMALAB run --topo "$SCRATCH/binary.topo" --out "$SCRATCH/r"
expect_grep "binary.topo:3: " "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat -v "$SCRATCH/err")"
expect_clean_terminal_text "$SCRATCH/err"
# The environment the runner reads.
expect_rc 2 env NUMALAB_CACHE=relative/cache $NUMALAB run --topo 2node --out "$SCRATCH/r"
expect_grep "^numalab run: NUMALAB_CACHE=relative/cache: not an absolute path" "$SCRATCH/err"
touch "$SCRATCH/a-file"
expect_rc 2 env NUMALAB_CACHE="$SCRATCH/a-file" $NUMALAB run --topo 2node --out "$SCRATCH/r"
expect_grep "NUMALAB_CACHE=.*a-file: not a directory" "$SCRATCH/err"
expect_rc 2 env NUMALAB_LOONGARCH_FIRMWARE=/nonexistent/QEMU_EFI.fd $NUMALAB run --topo la-2node --out "$SCRATCH/r"
expect_grep "^numalab run: NUMALAB_LOONGARCH_FIRMWARE=/nonexistent/QEMU_EFI.fd: no such firmware file" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" = 1 ] || fail "expected one error line, got: $(cat "$SCRATCH/err")"
expect_rc 2 $NUMALAB kernel build nosuchrecipe
expect_grep "no recipe kernels/recipes/nosuchrecipe.recipe" "$SCRATCH/err"
expect_rc 2 $NUMALAB kernel build stock --arch sparc
expect_rc 2 $NUMALAB kernel key stock+nosuchfragment
expect_grep "stock.recipe: config fragment kernels/config/nosuchfragment.config does not exist" "$SCRATCH/err"
expect_rc 2 $NUMALAB kernel key 'stock+../../etc/passwd'
expect_grep "^numalab kernel key: 'stock\+\.\./\.\./etc/passwd': give names" "$SCRATCH/err"
# --patch: only onto kernels built from source, only files holding a patch;
# a kernel tree configured in place is the user's to clean (docs/byo.md).
wi=kernels/patches/wi-carryover/0001-mm-mempolicy-simplify-weighted-interleave-bulk-alloc-calculations.patch
expect_rc 2 $NUMALAB run --topo 2node --kernel debian --patch $wi --out "$SCRATCH/r"
expect_grep "^numalab run: --patch .*: the pinned Debian kernel is not built from source" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --kernel stock --patch tests/host/integration/lib.bash --out "$SCRATCH/r"
expect_grep "lib.bash: no patch in it" "$SCRATCH/err"
mkdir -p "$SCRATCH/ktree/mm" "$SCRATCH/ktree/arch" "$SCRATCH/ktree/scripts/kconfig"
touch "$SCRATCH/ktree/Makefile" "$SCRATCH/ktree/Kconfig" "$SCRATCH/ktree/.config"
expect_rc 2 $NUMALAB run --topo 2node --kernel "$SCRATCH/ktree" --out "$SCRATCH/r"
expect_grep "configured or built in place .*make -C $SCRATCH/ktree mrproper" "$SCRATCH/err"
# -- CMD whose program the guest would not find: refused before any build or boot.
expect_rc 2 $NUMALAB run --topo 2node --out "$SCRATCH/r" -- nosuchprogram --flag
expect_grep "^numalab run: -- nosuchprogram: no such program in the guest: .*; give its path" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --out "$SCRATCH/r" -- ./nosuchprogram
expect_grep "^numalab run: -- \./nosuchprogram: No such file or directory in $PWD; give the path" "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --out "$SCRATCH/r" -- /etc/passwd
expect_grep "^numalab run: -- /etc/passwd: not an executable file; give the path" "$SCRATCH/err"
# A busybox applet the host lacks is no program by name (`busybox crc32` is).
expect_rc 2 $NUMALAB run --topo 2node --out "$SCRATCH/r" -- crc32 /etc/hostname
expect_grep "^numalab run: -- crc32: no such program in the guest: .*\`busybox crc32\` for an applet\)$" "$SCRATCH/err"
# The lab's guest programs count, as do the host's in the guest's PATH:
# what stops these is the kernel, checked after the command.
for cmd in numactl busybox ls ./numalab; do
	expect_rc 2 $NUMALAB run --topo 2node --kernel nosuchkernel --out "$SCRATCH/r" -- $cmd
	expect_grep "unknown kernel 'nosuchkernel'" "$SCRATCH/err"
done
expect_rc 2 $NUMALAB frobnicate
expect_rc 0 $NUMALAB help
expect_grep '^  run ' "$SCRATCH/out"
# As git and curl: the version; `help CMD` is `CMD --help`.
expect_rc 0 $NUMALAB --version
expect_grep '^numalab version [0-9a-z.-]+$' "$SCRATCH/out"
cp "$SCRATCH/out" "$SCRATCH/version"
expect_rc 0 $NUMALAB version
cmp -s "$SCRATCH/out" "$SCRATCH/version" || fail "numalab version and --version differ"
for c in run kernel image; do
	expect_rc 0 $NUMALAB help $c
	cp "$SCRATCH/out" "$SCRATCH/help"
	expect_rc 0 $NUMALAB $c --help
	cmp -s "$SCRATCH/out" "$SCRATCH/help" || fail "numalab help $c is not numalab $c --help"
done
expect_rc 2 $NUMALAB help frobnicate
expect_grep "^numalab: unknown command 'frobnicate'" "$SCRATCH/err"
for c in run topo bench setup kernel bisect bisect-run; do expect_rc 0 $NUMALAB $c --help; expect_grep 'usage: numalab' "$SCRATCH/out"; done
for c in run topo bench setup kernel image; do expect_rc 0 $NUMALAB $c --help; expect_grep 'usage: numalab' "$SCRATCH/out"; done
[ ! -e "$SCRATCH/r" ] || fail "a results directory was created for bad input"
