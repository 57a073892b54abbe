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
