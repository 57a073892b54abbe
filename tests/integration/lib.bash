# Shared by the integration tests: a scratch dir, assertions, orphan checks.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
NUMALAB=./numalab
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/numalab-it.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_rc WANT CMD...: run CMD, output to $SCRATCH/out and $SCRATCH/err.
expect_rc() {
	local want=$1; shift
	"$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		cat "$SCRATCH/out" "$SCRATCH/err" >&2
		fail "$* exited $rc, want $want"
	fi
}

expect_grep() {  # expect_grep PATTERN FILE
	grep -q -E -- "$1" "$2" || { tail -n 60 "$2" >&2; fail "no /$1/ in $2"; }
}

# The one cell directory of the run under $1.
cell_dir() { ls -d "$1"/*/*/ | head -n 1; }

# No QEMU of ours may outlive a run: -name numalab-TOPO marks them.
expect_no_qemu() {
	if pgrep -f -- "-name numalab-$1 " >/dev/null; then
		pgrep -af -- "-name numalab-$1 " >&2
		fail "a numalab-$1 QEMU is still running"
	fi
}

# libvirt_up: libvirtd + virtlogd for the libvirt backend (tests/libvirtd),
# LIBVIRT_DEFAULT_URI set; the ones started here are stopped when the test
# exits, a daemon that already ran is left alone.
LIBVIRT_DIR=/run/numalab-libvirt
libvirt_up() {
	local how uri
	read -r how uri < <(tests/libvirtd start "$LIBVIRT_DIR") || true
	[ -n "${uri:-}" ] || fail "tests/libvirtd start $LIBVIRT_DIR failed"
	export LIBVIRT_DEFAULT_URI=$uri
	if [ "$how" = started ]; then
		LIBVIRT_STARTED=1
		trap 'tests/libvirtd stop "$LIBVIRT_DIR"; rm -rf "$SCRATCH"' EXIT
	fi
}

# No numalab domain may outlive a run.
expect_no_domain() {
	local left
	left=$(virsh -q list --all --name | grep '^numalab-') && fail "libvirt domains left: $left"
	return 0
}

# Stop what libvirt_up started, now, and check it is gone.
libvirt_down() {
	[ -n "${LIBVIRT_STARTED:-}" ] || return 0
	local pids
	pids=$(cat "$LIBVIRT_DIR"/*.pid 2>/dev/null)
	tests/libvirtd stop "$LIBVIRT_DIR"
	for p in $pids; do
		kill -0 "$p" 2>/dev/null && fail "libvirt daemon $p still runs after stop"
	done
	trap 'rm -rf "$SCRATCH"' EXIT
}
