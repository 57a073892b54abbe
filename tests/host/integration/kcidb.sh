# KCIDB JSON (docs/kcidb.md) checked against KCIDB's own schema, v5.3
# (tests/host/kcidb/: vendored from kcidb-io, with the rules its prose states):
#  - a real 2node run with --kcidb: the file equals `numalab kcidb RUN`, is
#    valid, has one test per leaf of the TAP with the run's statuses;
#  - hand-made result directories for what a boot cannot be made to give on
#    demand: a failure with its diagnostics, TODO, a timeout, a crash, a
#    test never run, metrics, a >16 KiB excerpt, hostile names and bytes, a
#    recipe kernel with patches (patchset_hash as the schema defines it,
#    computed here with sha256sum), a matrix with a cell that never ran and
#    a try output holding it: each mapped as documented, and valid;
#  - the validator itself fails on a wrong status and on a missing id;
#  - --submit POSTs the same JSON with the bearer token to a local HTTP
#    server started here (which records the request); 401 is exit 2.
# One boot (~10-30 s under TCG); the rest runs in about a second.
. "$(dirname "$0")/lib.bash"
VALIDATE=tests/host/kcidb/validate
command -v python3 >/dev/null && python3 -c 'import jsonschema' 2>/dev/null ||
	{ echo "python3-jsonschema is missing: run make setup" >&2; exit 99; }

# jq-less queries: python3 -c 'EXPR' FILE, doc in d.
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$2"; }

# ---- a real run ----
expect_rc 0 $NUMALAB run --topo 2node --tests topology --out "$SCRATCH/results" --quiet --kcidb "$SCRATCH/run.json"
run=$(ls -d "$SCRATCH"/results/*/)
expect_rc 0 $NUMALAB kcidb "$run"
cmp -s "$SCRATCH/out" "$SCRATCH/run.json" || fail "run --kcidb and numalab kcidb RUN differ"
$VALIDATE "$SCRATCH/run.json" || fail "a real run's KCIDB JSON is not valid"
leaves=$($NUMALAB tap flatten "$(cell_dir "$SCRATCH/results")tap" | grep -c '^\(not \)\?ok ')
[ "$(q 'len(d["tests"])' "$SCRATCH/run.json")" = "$leaves" ] || fail "not one KCIDB test per leaf ($leaves)"
passed=$($NUMALAB tap flatten "$(cell_dir "$SCRATCH/results")tap" | grep -c '^ok [0-9]* - [^#]*$')
[ "$(q 'sum(t["status"] == "PASS" for t in d["tests"])' "$SCRATCH/run.json")" = "$passed" ] ||
	fail "PASS tests are not the run's passed leaves ($passed)"
[ "$(q 'd["tests"][0]["path"]' "$SCRATCH/run.json")" = "numalab.topology.online_nodes_0-1" ] ||
	fail "first test path: $(q 'd["tests"][0]["path"]' "$SCRATCH/run.json")"
[ "$(q 'd["tests"][0]["environment"]["misc"]["slit"]["node1"]' "$SCRATCH/run.json")" = "[21, 10]" ] ||
	fail "environment.misc.slit is not the guest's"
q 'd["tests"][0]["environment"]["misc"]["numa"]' "$SCRATCH/run.json" | grep -q '^EMULATED NUMA' ||
	fail "no EMULATED NUMA note"
[ "$(q 'd["builds"][0]["architecture"], d["checkouts"][0]["patchset_hash"] == ""' "$SCRATCH/run.json")" = "x86_64 True" ] ||
	fail "the build's arch or the pinned kernel's empty patch set"
# The compiler, as the kernel's boot banner ("Linux version R (B) (COMPILER, LINKER)") says it.
compiler=$(q 'd["builds"][0].get("compiler", "")' "$SCRATCH/run.json")
[ -n "$compiler" ] && grep -aF "Linux version" "$(cell_dir "$SCRATCH/results")console.log" | grep -qF ") ($compiler, " ||
	fail "the build's compiler '$compiler' is not the boot banner's"

# ---- hand-made directories ----
commit=0123456789abcdef0123456789abcdef01234567
p1=$(printf 'patch one\n' | sha256sum | cut -c-64)
p2=$(printf 'patch two\n' | sha256sum | cut -c-64)
cell_meta() {  # cell_meta DIR END: a recipe kernel with two patches on cxl
	mkdir -p "$1"
	cat >"$1/meta" <<META
topology: cxl (topologies/cxl.topo)
arch: x86_64
kernel: stock+2patches recipe-key 42
kernel.source: git:https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git@$commit
kernel.recipe: kernels/recipes/stock.recipe
kernel.patches: 0001-one.patch sha256:$p1, 0002-two.patch sha256:$p2
kernel.patch.subject: mm: one
kernel.patch.subject: mm: two
kernel.config_sha256: $p1
qemu: QEMU emulator version 10.0.0
host_numa: none
accel: tcg: /dev/kvm: No such file or directory
end: $2
time.total_s: 12.5
guest: node0.distance: 10 21 14 24
guest: node1.distance: 21 10 24 14
META
}
long=$(head -c 1000 /dev/zero | tr '\0' 'x')
runid=20261205-101010-1-0
cell_meta "$SCRATCH/hand/$runid/cxl.stock" crashed
echo complete >"$SCRATCH/hand/$runid/state"
{
	printf 'KTAP version 1\n# guest.kernel: 7.2\n1..4\n'
	printf '    # Subtest: mempolicy\n    KTAP version 1\n    1..5\n'
	printf '    ok 1 mbind MPOL_BIND node 0\n      ---\n      time_s: 1.5\n      pages: {node0: 512, node1: 0}\n      ...\n'
	printf '    # page 3 on node 1, want node 0\n    not ok 2 weighted: 3 -> 1 "quoted" \\ \xff\xfe\n'
	printf '    ok 3 hmat # SKIP no HMAT\n    not ok 4 flaky # TODO known\n'
	printf '    # metric: bulk_calls.map2_45_pages 17\n    # metric: khugepaged_cpus 0-3 -> 0\n'
	for i in $(seq 30); do printf '    # line %d %s\n' "$i" "$long"; done
	printf '    not ok 5 slow one # TIMEOUT case timeout after 60 s\nnot ok 1 mempolicy\n'
	printf '    # Subtest: khugepaged\n    KTAP version 1\n    1..2\n    ok 1 collapse\n'
	printf 'not ok 2 khugepaged # ERROR kernel panic: Oops\n'
	printf 'not ok 3 workloads # ERROR not run: the guest crashed\n'
	printf 'ok 4 ...\n'
} >"$SCRATCH/hand/$runid/cxl.stock/tap"
expect_rc 0 $NUMALAB kcidb "$SCRATCH/hand/$runid" --origin lab_x --output "$SCRATCH/hand.json"
$VALIDATE "$SCRATCH/hand.json" || fail "the hand-made run's JSON is not valid"
# path STATUS [unit], one line per test.
q '"\n".join(" ".join([t["path"], t["status"]] + ([t["number"].get("unit", "-")] if "number" in t else [])) for t in d["tests"])' \
	"$SCRATCH/hand.json" >"$SCRATCH/hand.tests"
cat >"$SCRATCH/want.tests" <<'WANT'
numalab.mempolicy.mbind_MPOL_BIND_node_0 PASS
numalab.mempolicy.mbind_MPOL_BIND_node_0.time_s DONE s
numalab.mempolicy.mbind_MPOL_BIND_node_0.pages.node0 DONE -
numalab.mempolicy.mbind_MPOL_BIND_node_0.pages.node1 DONE -
numalab.mempolicy.weighted_3_-_1_quoted FAIL
numalab.mempolicy.hmat SKIP
numalab.mempolicy.flaky SKIP
numalab.mempolicy.bulk_calls.map2_45_pages DONE -
numalab.mempolicy.slow_one ERROR
numalab.khugepaged.collapse PASS
numalab.khugepaged ERROR
numalab.workloads MISS
numalab._ PASS
WANT
diff "$SCRATCH/want.tests" "$SCRATCH/hand.tests" || fail "the hand-made run's tests are not mapped as docs/kcidb.md says"
excerpt() { q "[t for t in d['tests'] if t['path'] == '$1'][0]['log_excerpt']" "$SCRATCH/hand.json"; }
excerpt numalab.mempolicy.weighted_3_-_1_quoted | grep '^# page 3 on node 1, want node 0$' >/dev/null ||
	fail "a failure's diagnostic line is not its log_excerpt"
excerpt numalab.mempolicy.weighted_3_-_1_quoted | grep '"quoted" \\ ??' >/dev/null ||
	fail "a failure's own line (sanitised bytes) is not in its log_excerpt"
n=$(excerpt numalab.mempolicy.slow_one | wc -c)
[ "$n" -le 16385 ] && [ "$n" -gt 15000 ] || fail "a long excerpt is $n bytes, want its last 16384"
excerpt numalab.mempolicy.slow_one | grep 'not ok 5 slow one # TIMEOUT case timeout after 60 s$' >/dev/null ||
	fail "the excerpt lost its end"
# The schema's patchset_hash: "sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64".
want=$(printf '%s\n%s\n' "$p1" "$p2" | sha256sum | cut -c-64)
[ "$(q 'd["checkouts"][0]["patchset_hash"]' "$SCRATCH/hand.json")" = "$want" ] || fail "patchset_hash is not KCIDB's"
[ "$(q 'd["checkouts"][0]["git_commit_hash"], d["checkouts"][0]["git_repository_url"]' "$SCRATCH/hand.json")" = \
  "$commit https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git" ] || fail "the recipe's git source"
[ "$(q 'len(d["tests"][0]["environment"]["misc"]["hmat"])' "$SCRATCH/hand.json")" = 8 ] || fail "cxl's HMAT"
[ "$(q 'd["tests"][0]["start_time"][-6:], d["tests"][0]["id"]' "$SCRATCH/hand.json")" = "+00:00 lab_x:$runid/cxl.stock/1" ] ||
	fail "test id or start_time"
# Stable: the same directory, the same document.
$NUMALAB kcidb "$SCRATCH/hand/$runid" --origin lab_x | cmp -s - "$SCRATCH/hand.json" || fail "a second export differs"

# A matrix with a finished cell and one that never ran, inside a try's OUT.
mx=$SCRATCH/try/matrix
mkdir -p "$mx/cells/cxl.patched.mempolicy.r1/$runid"
cp -r "$SCRATCH/hand/$runid/." "$mx/cells/cxl.patched.mempolicy.r1/$runid/"
printf 'exit: 1\ntime_s: 14.0\nwatchdog: no\ninterrupted: no\n' >"$mx/cells/cxl.patched.mempolicy.r1/exit"
printf '0 cxl.patched.mempolicy.r1\n1 cxl.patched.topology.r1\n' >"$mx/cells.list"
echo complete >"$mx/state"
expect_rc 0 $NUMALAB kcidb "$SCRATCH/try" --output "$SCRATCH/try.json"
$VALIDATE "$SCRATCH/try.json" || fail "the try output's JSON is not valid"
[ "$(q 'len(d["tests"]), len(d["builds"]), len(d["checkouts"])' "$SCRATCH/try.json")" = "14 2 2" ] ||
	fail "try: $(q 'len(d["tests"]), len(d["builds"]), len(d["checkouts"])' "$SCRATCH/try.json") tests, builds, checkouts"
[ "$(q 'd["tests"][-1]["path"], d["tests"][-1]["status"], d["builds"][-1]["status"]' "$SCRATCH/try.json")" = "numalab MISS MISS" ] ||
	fail "a cell that never ran is not a MISS"
expect_rc 0 $NUMALAB kcidb "$mx" --output "$SCRATCH/matrix.json"
cmp -s "$SCRATCH/matrix.json" "$SCRATCH/try.json" || fail "the try's one matrix exported differently"

# Bad input: not a result directory, a bad origin; nothing written.
expect_rc 2 $NUMALAB kcidb "$SCRATCH/hand/$runid/cxl.stock" --output "$SCRATCH/no.json"
expect_grep 'is not a run .* a matrix output .* or a try output' "$SCRATCH/err"
expect_rc 2 $NUMALAB kcidb "$run" --origin Numa-Lab --output "$SCRATCH/no.json"
expect_grep "origin 'Numa-Lab': KCIDB origins are lower-case letters, digits and '_'" "$SCRATCH/err"
[ ! -e "$SCRATCH/no.json" ] || fail "bad input wrote a file"

# ---- the validator fails what the schema forbids ----
python3 - "$SCRATCH/run.json" "$SCRATCH" <<'PY'
import json, sys
for name, change in (("status", lambda d: d["tests"][0].update(status="BROKEN")),
                     ("id", lambda d: d["builds"][0].pop("id")),
                     ("ref", lambda d: d["tests"][0].update(build_id="numalab:none")),
                     ("dup", lambda d: d["tests"][1].update(id=d["tests"][0]["id"]))):
    d = json.load(open(sys.argv[1]))
    change(d)
    json.dump(d, open(f"{sys.argv[2]}/bad-{name}.json", "w"))
PY
for bad in status id ref dup; do
	expect_rc 1 $VALIDATE "$SCRATCH/bad-$bad.json"
done
expect_rc 1 $VALIDATE "$SCRATCH/bad-status.json"
expect_grep "/tests/0/status: 'BROKEN' is not one of" "$SCRATCH/out"
expect_rc 1 $VALIDATE "$SCRATCH/bad-id.json"
expect_grep "/builds/0: 'id' is a required property" "$SCRATCH/out"

# ---- submitting ----
cat >"$SCRATCH/server.py" <<'PY'
# A kcidb-ng stand-in: records each POST (path, Authorization, body); the token "bad" is refused.
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        auth = self.headers.get("Authorization", "")
        with open(sys.argv[2], "ab") as f:
            f.write(json.dumps({"path": self.path, "auth": auth, "type": self.headers.get("Content-Type")}).encode() + b"\n")
        with open(sys.argv[2] + ".body", "wb") as f:
            f.write(body)
        ok = auth == "Bearer s3cret\"tok"
        self.send_response(200 if ok else 401)
        self.end_headers()
        self.wfile.write(b'{"id": "sub-1", "message": "File submitted successfully"}\n' if ok else b'{"detail": "bad token"}\n')
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$SCRATCH/server.py" "$SCRATCH/port" "$SCRATCH/posts" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 50); do [ -s "$SCRATCH/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$SCRATCH/port")"
KCIDB_TOKEN='s3cret"tok' expect_rc 0 $NUMALAB kcidb "$run" --submit "$url/"
expect_grep "submitted to $url/: \\{\"id\": \"sub-1\"" "$SCRATCH/err"
[ ! -s "$SCRATCH/out" ] || fail "--submit alone printed the JSON"
expect_grep '^\{"path": "/submit", "auth": "Bearer s3cret\\"tok", "type": "application/json"\}$' "$SCRATCH/posts"
cmp -s "$SCRATCH/posts.body" "$SCRATCH/run.json" || fail "the POSTed body is not the run's JSON"
KCIDB_TOKEN=bad expect_rc 2 $NUMALAB kcidb "$run" --submit "$url"
expect_grep 'HTTP 401 .*refused the token; check KCIDB_TOKEN' "$SCRATCH/err"
KCIDB_TOKEN= expect_rc 2 $NUMALAB kcidb "$run" --submit "$url"
expect_grep 'needs the service.s token in \$KCIDB_TOKEN' "$SCRATCH/err"
kill $server
wait $server 2>/dev/null
KCIDB_TOKEN=x expect_rc 3 $NUMALAB kcidb "$run" --submit "$url"
expect_grep "POST $url/submit: curl exited 7" "$SCRATCH/err"
exit 0
