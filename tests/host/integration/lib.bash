# Shared by the integration tests: a scratch dir, assertions, orphan checks.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
NUMALAB=./numalab
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/numalab-it.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# The system's python3, the one `make setup` installs python3-jsonschema for,
# not a pyenv or virtualenv shim earlier in PATH (other modules; 4 s to start
# under load).
python3() { /usr/bin/python3 "$@"; }

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

# This test's guest QEMUs (or toolroot wrappers about to become QEMU): their
# argv names files under $SCRATCH (the initrd), which no other run shares.
# The KVM probe's QEMU boots the same initrd with numalab.probe=1: not the
# guest's, so it is left out (killing it would only make the run pick TCG).
OUR_QEMU="qemu-system.*$SCRATCH/"
our_qemu_pids() {
	local pid found=1
	for pid in $(pgrep -f -- "$OUR_QEMU"); do
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'numalab\.probe=1' && continue
		echo "$pid"
		found=0
	done
	return $found
}

# Wait up to $1 seconds for one of our QEMUs to start.
wait_for_qemu() {
	for _ in $(seq $(($1 * 10))); do our_qemu_pids >/dev/null && return 0; sleep 0.1; done
	fail "no QEMU started within $1 s"
}

# No QEMU of ours, the probe's included, may outlive a run (give a SIGKILLed
# one a moment to be reaped).
expect_no_qemu() {
	for _ in $(seq 20); do pgrep -f -- "$OUR_QEMU" >/dev/null || return 0; sleep 0.1; done
	pgrep -af -- "$OUR_QEMU" >&2
	fail "a QEMU of this test is still running"
}

# No file is left half-written under $1 (write_file_atomic's temporaries).
expect_no_tmp_files() {
	local left
	left=$(find "$1" -name '*.tmp.*' 2>/dev/null)
	[ -z "$left" ] || fail "half-written files left: $left"
}

# Fail if stdout or stderr carries a raw control byte (ESC, NUL, BEL...) other than TAB/LF/CR.
expect_clean_terminal_text() {
	if LC_ALL=C grep -q -P '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' "$@"; then
		LC_ALL=C grep -n -P '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' "$@" | cat -v | head >&2
		fail "raw control bytes reached the terminal"
	fi
}

# libvirt_up: libvirtd + virtlogd for the libvirt backend (tests/host/libvirtd),
# LIBVIRT_DEFAULT_URI set; the ones started here are stopped when the test
# exits, a daemon that already ran is left alone.
LIBVIRT_DIR=/run/numalab-libvirt
libvirt_up() {
	local how uri
	read -r how uri < <(tests/host/libvirtd start "$LIBVIRT_DIR") || true
	[ -n "${uri:-}" ] || fail "tests/host/libvirtd start $LIBVIRT_DIR failed"
	export LIBVIRT_DEFAULT_URI=$uri
	if [ "$how" = started ]; then
		LIBVIRT_STARTED=1
		trap 'tests/host/libvirtd stop "$LIBVIRT_DIR"; rm -rf "$SCRATCH"' EXIT
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
	tests/host/libvirtd stop "$LIBVIRT_DIR"
	for p in $pids; do
		kill -0 "$p" 2>/dev/null && fail "libvirt daemon $p still runs after stop"
	done
	trap 'rm -rf "$SCRATCH"' EXIT
}
