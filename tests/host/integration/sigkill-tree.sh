# Nothing outlives numalab, whatever kills it (issue 35): numalab SIGKILLed
# during each long step -- fetch, unpack, configure, build, boot, a matrix
# cell -- leaves no process behind: none whose command line or working
# directory names this test's scratch dir.  Each step but the boot is
# reached with stand-ins that leave a grandchild running, as make's
# sub-make does: fake apt tools on PATH (a pin of a fake .deb in a copy of
# the lab), a fake kernel tree whose Makefile hangs in a sub-make.
#
# Fails on the code before proc.h's PID namespaces (9b7978b) at the first
# step, fetch: the fake apt-get dies with numalab but its child, the
# hanging `sh -c`, keeps running with parent 1; so do the sub-makes of
# configure and build, and of a matrix cell's build.  Without namespaces
# (the fallback step below) it fails unless the build's lock is inherited
# by the build's processes (kbuild.c, lock_work_tree()).  SIGINT during the
# fetch and during the build ends numalab with exit 3 and nothing left
# (before bd50c85 the fetch went on: update, then the snapshot archive).
# About 12-20 s (one boot, the rest stand-ins).
. "$(dirname "$0")/lib.bash"

# Processes of this test: $SCRATCH in their command line or working
# directory (the bracket keeps grep from finding itself).
ours() {
	local re=${SCRATCH//./[.]}
	{
		grep -lsE -- "$re" /proc/[0-9]*/cmdline | cut -d/ -f3
		find /proc/[0-9]*/cwd -maxdepth 0 -lname "$SCRATCH*" 2>/dev/null | cut -d/ -f3
	} | sort -u
}

# Whatever ends the test, nothing of it is left running.
trap 'left=$(ours); [ -n "$left" ] && kill -9 $left; rm -rf "$SCRATCH"' EXIT

# The stand-in of STEP hangs: its sub-process runs.
hanging() { grep -qsaE -- ": ${SCRATCH//./[.]}/hang-$1" /proc/[0-9]*/cmdline; }

# start NAME CMD...: start CMD (its pid in $pid), wait for NAME's stand-in to hang.
start() {
	local name=$1
	shift
	echo "$name" >"$SCRATCH/hang"
	"$@" >"$SCRATCH/$name.out" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		hanging "$name" && break
		kill -0 $pid 2>/dev/null || { cat "$SCRATCH/$name.out"; fail "$name: numalab ended before the step"; }
		sleep 0.1
	done
	hanging "$name" || { cat "$SCRATCH/$name.out"; fail "$name: the step did not start within 30 s"; }
}

# step NAME CMD...: start CMD, wait for NAME's stand-in to hang, SIGKILL
# CMD, and find nothing of ours left.
step() {
	start "$@"
	kill -9 $pid
	wait $pid 2>/dev/null
	settle "$1"
}

# interrupt NAME: SIGINT to the started numalab ($pid) in NAME's step: it
# ends within 10 s, exit 3, saying so, and nothing of ours is left.
interrupt() {
	local rc
	kill -INT $pid
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -0 $pid 2>/dev/null && { kill -9 $pid; fail "$1: numalab went on for 10 s after SIGINT"; }
	wait $pid
	rc=$?
	[ $rc = 3 ] || { cat "$SCRATCH/$1.out"; fail "$1 interrupted: exit $rc, want 3"; }
	grep -q 'interrupted (signal 2)' "$SCRATCH/$1.out" || { cat "$SCRATCH/$1.out"; fail "$1: no 'interrupted' said"; }
	settle "$1, interrupted"
}

# No process of ours may be left (a moment for the kernel's kills).
settle() {
	local left
	for _ in $(seq 30); do
		left=$(ours)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	for p in $left; do ps -o pid=,ppid=,args= -p "$p"; done >&2
	kill -9 $left 2>/dev/null
	fail "$1: numalab SIGKILLed, and these still run"
}

# A hang: a grandchild of numalab (the caller's child) that runs until killed.
HANG_SH="sleep 300; : $SCRATCH/hang-"

# --- fetch and unpack: a fake pin in a copy of the lab, fake apt tools ---
mkdir -p "$SCRATCH/lab/kernels" "$SCRATCH/bin"
cp numalab "$SCRATCH/lab/"
printf 'not a deb\n' >"$SCRATCH/fake.deb"
sum=$(sha256sum "$SCRATCH/fake.deb" | cut -d' ' -f1)
echo "fake x86_64 sid amd64 linux-image-fake 1.0-1 $sum boot/vmlinuz" >"$SCRATCH/lab/kernels/prebuilt.lock"
cat >"$SCRATCH/bin/apt-cache" <<'EOF'
#!/bin/sh
echo "linux-image-fake | 1.0-1 | http://127.0.0.1:9/debian sid/main amd64 Packages"
EOF
cat >"$SCRATCH/bin/apt-get" <<EOF
#!/bin/sh
[ "\$(cat $SCRATCH/hang)" = fetch ] && { sh -c "${HANG_SH}fetch" & wait; }
cp $SCRATCH/fake.deb linux-image-fake_1.0-1_amd64.deb
EOF
cat >"$SCRATCH/bin/dpkg-deb" <<EOF
#!/bin/sh
sh -c "${HANG_SH}unpack" & wait
EOF
chmod +x "$SCRATCH"/bin/*
# exec: $pid is numalab itself, not a subshell around it.
fetch_fake() {
	exec env PATH="$SCRATCH/bin:$PATH" NUMALAB_CACHE="$SCRATCH/cache" \
		NUMALAB_MIRROR=http://127.0.0.1:9/debian "$SCRATCH/lab/numalab" kernel fetch fake
}
for s in fetch unpack; do
	rm -rf "$SCRATCH/cache"
	step $s fetch_fake
done

# SIGINT during the download ends the fetch, exit 3: no `apt-get update`
# and no snapshot archive after it (before, the killed download looked like
# a stale list: the update that followed hung here in the stand-in again).
rm -rf "$SCRATCH/cache"
start fetch fetch_fake
interrupt fetch

# --- configure and build: a fake kernel tree (kbuild.c runs make -C SRC O=OBJ) ---
tree=$SCRATCH/tree
mkdir -p "$tree/mm" "$tree/arch/x86" "$tree/scripts/kconfig"
echo 'config FAKE' >"$tree/Kconfig"
cat >"$tree/Makefile" <<EOF
# Each step hangs in a sub-make when $SCRATCH/hang names it.
HANG := \$(shell cat $SCRATCH/hang)
obj := \$(or \$(O),.)
%config:
	mkdir -p \$(obj) && touch \$(obj)/.config
	if [ "\$(HANG)" = configure ]; then \$(MAKE) -f \$(CURDIR)/Makefile hang-configure; fi
vmlinux:
	if [ "\$(HANG)" = build ]; then \$(MAKE) -f \$(CURDIR)/Makefile hang-build; fi
	false
hang-%:
	${HANG_SH}\$*
EOF
cat >"$tree/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
# merge_config.sh -m -O OBJ CONFIG FRAGMENT...: the fragments appended.
config=$4
shift 4
cat "$@" >>"$config"
EOF
chmod +x "$tree/scripts/kconfig/merge_config.sh"
export NUMALAB_CACHE=$SCRATCH/cache
for s in configure build; do
	step $s ./numalab kernel build "$tree"
done

# SIGINT during the build: make is stopped with its sub-make, exit 3.
start build ./numalab kernel build "$tree"
interrupt build

# The work tree is free again: the next build takes its lock at once.
echo none >"$SCRATCH/hang"
./numalab kernel build "$tree" >"$SCRATCH/again.out" 2>&1
grep -q 'waiting for another numalab' "$SCRATCH/again.out" && fail "the build's lock outlived the build"

# Where no PID namespace can be had (here: a user namespace allowing none),
# the orphaned sub-make keeps the work tree's lock: the next build waits.
if unshare -Ur true 2>/dev/null; then
	echo build >"$SCRATCH/hang"
	unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_pid_namespaces && exec "$@"' sh \
		./numalab kernel build "$tree" >"$SCRATCH/nons.out" 2>&1 &
	pid=$!
	for _ in $(seq 300); do hanging build && break; sleep 0.1; done
	hanging build || { cat "$SCRATCH/nons.out"; fail "no build without namespaces"; }
	kill -9 $pid
	wait $pid 2>/dev/null
	sleep 0.3
	hanging build || fail "without namespaces the sub-make died too: test the fallback otherwise"
	echo none >"$SCRATCH/hang"
	timeout 3 ./numalab kernel build "$tree" >"$SCRATCH/waits.out" 2>&1
	grep -q 'waiting for another numalab kernel build' "$SCRATCH/waits.out" ||
		{ cat "$SCRATCH/waits.out"; fail "a build started beside an orphaned one"; }
	left=$(ours)
	[ -n "$left" ] && kill -9 $left
	settle "the fallback's orphans, killed"
fi

# --- a matrix cell (numalab run, a child of the matrix) building the tree ---
printf 'topology 2node\nkernel fake = %s\nsuite topology\n' "$tree" >"$SCRATCH/fake.matrix"
step build ./numalab matrix "$SCRATCH/fake.matrix" --out "$SCRATCH/m" --quiet

# --- boot: QEMU, with the lab's own cache (its kernel and images) ---
unset NUMALAB_CACHE
./numalab run --topo 2node --tests topology --quiet --out "$SCRATCH/r" >"$SCRATCH/boot.out" 2>&1 &
pid=$!
wait_for_qemu 60
kill -9 $pid
wait $pid 2>/dev/null
settle boot
