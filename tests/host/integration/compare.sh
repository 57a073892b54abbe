#!/usr/bin/env bash
# compare: two real 2-node runs of a short workloads suite (STREAM only,
# 4 MiB, one rep: under a minute each on TCG), compared.  All four outputs
# must be well formed and say the NUMA was emulated; the runs pooled
# against themselves give Welch tests with p = 1; a doctored QEMU version
# is refused (exit 2) unless --force; make lab-compare works.
source "$(dirname "$0")/lib.bash"

printf 'reps 1\nwss_mb 4\nonly stream\n' >"$SCRATCH/workloads.conf"
for side in a b; do
	expect_rc 0 $NUMALAB run --topo 2node --tests workloads --guest-file "$SCRATCH/workloads.conf" \
		--out "$SCRATCH/$side" --quiet
done
# No QEMU of these runs outlived them (other tests may run 2node guests meanwhile).
! pgrep -f -- "-initrd $SCRATCH/" >/dev/null || fail "a QEMU of this test is still running"
A=$(ls -d "$SCRATCH"/a/*/) B=$(ls -d "$SCRATCH"/b/*/)
expect_grep '^    ok 1 stream local thp$' "$(cell_dir "$SCRATCH/a")tap"

# One run a side: no metric can be tested, both runs passed: exit 0.
expect_rc 0 $NUMALAB compare "$A" "$B" --tap "$SCRATCH/c.tap" --json "$SCRATCH/c.json" \
	--html "$SCRATCH/c.html"
expect_grep '^note: topology 2node: EMULATED NUMA \(accel tcg\)' "$SCRATCH/out"
expect_grep '^Functional differences: 0$' "$SCRATCH/out"
expect_grep '^0 functional differences; [1-9][0-9]* metrics: 0 regressed, 0 changed, 0 improved, [1-9][0-9]* with too few samples' "$SCRATCH/out"

# TAP: the plan counts the results, numbered in order; a SKIP for every untestable metric.
awk '/^1\.\.[0-9]+$/ { plan = substr($0, 4) } /^(not )?ok / { n++; if ($0 !~ "^(not )?ok " n " ") bad = 1 }
     END { exit !(plan > 0 && n == plan && !bad) }' "$SCRATCH/c.tap" || fail "c.tap: plan and results disagree"
expect_grep '^ok [0-9]+ - 2node workloads/stream local thp time_s: few-samples .* # SKIP too few samples' "$SCRATCH/c.tap"
expect_grep '^ok [0-9]+ - functional 2node workloads/stream remote nothp: same' "$SCRATCH/c.tap"
expect_grep '^# note: topology 2node: EMULATED NUMA' "$SCRATCH/c.tap"

python3 -m json.tool "$SCRATCH/c.json" >/dev/null || fail "c.json is not JSON"
python3 - "$SCRATCH/c.json" <<'PY' || fail "c.json lacks what it should hold"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["emulated_numa"] is True and c["summary"]["exit"] == 0
assert c["a"]["cells"][0]["accel"] == "tcg" and c["a"]["cells"][0]["host_numa"] is None
m = [m for m in c["metrics"] if m["test"] == "stream local thp" and m["metric"] == "ops_per_s"][0]
assert m["placement"] == "local thp" and m["a"]["n"] == 1 and m["b"]["n"] == 1
assert m["a"]["values"][0] > 0 and m["verdict"] == "few-samples" and m["welch"] is None
PY

# HTML: balanced elements, charts, no script, no external reference.
python3 - "$SCRATCH/c.html" <<'PY' || fail "c.html is not well formed"
import sys
from html.parser import HTMLParser
VOID = {"meta", "br", "img", "rect", "path", "circle"}
class Check(HTMLParser):
    stack, svgs = [], 0
    def handle_starttag(self, tag, attrs):
        assert tag != "script", "a script element"
        for k, v in attrs:
            assert not (v or "").startswith(("http:", "https:", "//")) or k == "xmlns", (k, v)
        self.svgs += tag == "svg"
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-3:])
        self.stack.pop()
p = Check()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
assert not p.stack, p.stack
assert p.svgs > 10, p.svgs
PY
expect_grep '<svg' "$SCRATCH/c.html"
expect_grep 'EMULATED NUMA' "$SCRATCH/c.html"

# Both runs on each side: repetitions, a real Welch test; identical sides, p = 1.
mkdir -p "$SCRATCH/both"
cp -r "$A" "$SCRATCH/both/a" && cp -r "$B" "$SCRATCH/both/b"
expect_rc 0 $NUMALAB compare --quiet --json "$SCRATCH/pooled.json" "$SCRATCH/both" "$SCRATCH/both"
python3 - "$SCRATCH/pooled.json" <<'PY' || fail "pooled.json: no Welch test on two repetitions"
import json, sys
c = json.load(open(sys.argv[1]))
m = [m for m in c["metrics"] if m["test"] == "stream local thp" and m["metric"] == "time_s"][0]
assert m["a"]["n"] == 2 and m["welch"]["p"] == 1 and m["verdict"] == "same", m
PY

# Another QEMU version on one side: refused, naming the key and both values.
cp -r "$B" "$SCRATCH/doctored"
sed -i 's/^qemu: .*/qemu: QEMU emulator version 99.0.0/' "$SCRATCH"/doctored/*/meta
expect_rc 2 $NUMALAB compare "$A" "$SCRATCH/doctored"
expect_grep "refusing to compare: topology 2node: meta 'qemu' differs: 'QEMU emulator version [0-9.]+.*' \(A .*\) vs 'QEMU emulator version 99.0.0'" "$SCRATCH/err"
expect_rc 0 $NUMALAB compare --force "$A" "$SCRATCH/doctored"
expect_grep "^note: compared despite a difference \(--force\): topology 2node: meta 'qemu' differs" "$SCRATCH/out"

expect_rc 0 make -s lab-compare A="$A" B="$B" COMPARE_ARGS=--quiet
# make exits 2 whatever numalab's code; its error line names it (docs/exit-codes.md).
expect_rc 2 make -s lab-compare A="$A" B="$B" COMPARE_ARGS="--quiet --tap $SCRATCH/no/such/dir/c.tap"
# (make[N] when this runs under make check: MAKELEVEL comes from its environment)
expect_grep '^make(\[[0-9]+\])?: \*\*\* \[Makefile:[0-9]+: lab-compare\] Error 3$' "$SCRATCH/err"
expect_rc 2 $NUMALAB compare "$A"
echo "compare: ok"
