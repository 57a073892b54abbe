# Every output keeps the reason (issue 35), from one 2node boot of a
# --tests-dir: a suite that prints why it failed and exits 1 has that line
# as JUnit's message (its output in <system-out>), after its flat TAP line
# (with /init's "# exit 1"), and beside it in compare's text and HTML; a
# suite that exits 4 (the skip code) skips with its last TCONF or SKIP
# line as the reason (images/init/skip_reason.c), or "exit 4" when it gave
# none.  Fails on an /init that drops the TCONF line (`skip_reason()`
# returning 0), on a report that writes message="failed", and on a flat
# TAP without diagnostics.
. "$(dirname "$0")/lib.bash"
d=$SCRATCH/suites
mkdir -p "$d"
why='expected 16 pages on node 1, found 9 (N0=7)'
printf '#!/bin/sh\necho "%s"\necho "pages: <N1=9> & ]]>"\nexit 1\n' "$why" >"$d/numa-check"
cat >"$d/ltp-tconf" <<'SH'
#!/bin/sh
echo "tst_test.c:1733: TINFO: LTP version: 20240930"
echo "tst_test.c:1739: TCONF: This arch 'x86_64' is not supported for test!"
echo ""
echo "Summary:"
echo "skipped  1"
exit 4
SH
printf '#!/bin/sh\necho "# SKIP: an older reason"\necho "SKIP: CONFIG_FOO is not set"\nexit 4\n' >"$d/ksft-skip"
printf '#!/bin/sh\necho "nothing to say"\nexit 4\n' >"$d/mute-skip"
chmod +x "$d"/*
expect_line() {  # expect_line LINE FILE: LINE, a fixed string, is a whole line of FILE
	grep -qxF -- "$1" "$2" || { tail -n 60 "$2" >&2; fail "no line '$1' in $2"; }
}
expect_rc 1 nice -n 2 $NUMALAB run --topo 2node --tests none --out "$SCRATCH/r" --tests-dir "$d" \
	--junit "$SCRATCH/junit.xml" --tap-flat "$SCRATCH/flat.tap"
cell=$(cell_dir "$SCRATCH/r")
tap=$cell/tap
# The guest's TAP: the skip reasons /init found, the exit it wrote.
expect_grep "^ok [0-9] ltp-tconf # SKIP This arch 'x86_64' is not supported for test!$" "$tap"
expect_grep '^ok [0-9] ksft-skip # SKIP CONFIG_FOO is not set$' "$tap"
expect_grep '^ok [0-9] mute-skip # SKIP exit 4$' "$tap"
expect_grep '^not ok [0-9] numa-check # exit 1$' "$tap"
# JUnit: the reason as the message, the output escaped in system-out; the skips' reasons.
xml=$SCRATCH/junit.xml
expect_line "      <failure type=\"NOT OK\" message=\"$why\"/>" "$xml"
expect_line "      <system-out># $why" "$xml"
expect_grep '^# pages: &lt;N1=9&gt; &amp; \]\]&gt;$' "$xml"
expect_grep "<skipped type=\"SKIP\" message=\"This arch &apos;x86_64&apos; is not supported for test!\"/>" "$xml"
expect_grep '<skipped type="SKIP" message="CONFIG_FOO is not set"/>' "$xml"
if command -v xmllint >/dev/null; then
	xmllint --noout "$xml" || fail "junit.xml is not well-formed"
fi
# Flat TAP: the comment kept, the diagnostics after the result.
flat=$SCRATCH/flat.tap
grep -A1 -E '^not ok [0-9]+ - 2node\.[^/]+/numa-check # exit 1$' "$flat" | tail -n 1 | grep -qxF "# $why" ||
	{ cat "$flat" >&2; fail "flat TAP lacks numa-check's comment or reason"; }
expect_grep "^ok [0-9]+ - 2node\.[^/]+/ltp-tconf # SKIP This arch 'x86_64' is not supported for test!$" "$flat"
# compare: side A is the same run with numa-check passing; B shows why it broke.
mkdir -p "$SCRATCH/A" "$SCRATCH/B"
cp -r "$SCRATCH/r"/* "$SCRATCH/B/"
cp -r "$SCRATCH/r"/* "$SCRATCH/A/"
a_tap=$(cell_dir "$SCRATCH/A")tap
sed -i -E 's/^not ok ([0-9]+) numa-check # exit 1$/ok \1 numa-check/' "$a_tap"
expect_rc 1 $NUMALAB compare --html "$SCRATCH/cmp.html" "$SCRATCH/A" "$SCRATCH/B"
expect_line "  broken       2node numa-check  A: 1 pass 0 fail 0 skip  B: 0 pass 1 fail 0 skip  ($why)" "$SCRATCH/out"
expect_line "      | $why" "$SCRATCH/out"
grep -qF "<td>$why<pre>" "$SCRATCH/cmp.html" || fail "compare's HTML lacks the reason"
expect_grep '^<h1>numalab compare: changed</h1>$' "$SCRATCH/cmp.html"
expect_no_qemu
