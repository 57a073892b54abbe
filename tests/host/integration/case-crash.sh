# A guest case that crashes is one `not ok` and the suite's other cases still
# report (tests/guest/lib/harness.h): numalab.fault=case-segv makes the first
# case of each lab suite die by SIGSEGV.  In topology that case prints one
# result, in mempolicy several (the rest of them "not run"); every later
# result is there and passes, the plans hold, and both suites fail.
# Fails on a harness that runs its cases in one process (the suite dies with
# its first case) or loses the count of a crashed case.
. "$(dirname "$0")/lib.bash"
expect_rc 1 $NUMALAB run --topo 2node --tests topology,mempolicy --append numalab.fault=case-segv \
	--timeout 180 --out "$SCRATCH/r"
tap=$(cell_dir "$SCRATCH/r")/tap
# suite_results NAME: the plan and the result lines nested under "# Subtest: NAME".
suite_results() {
	awk -v s="    # Subtest: $1" '$0 == s { on = 1; next } on && /^[^ ]/ { exit }
		on && /^    (1\.\.[0-9]+$|(not )?ok [0-9]+ )/ { print }' "$tap"
}
expect_grep '^    # online: killed by signal 11 ' "$tap"
expect_grep '^not ok 1 topology # exit 1$' "$tap"
expect_grep '^not ok 2 mempolicy # exit 1$' "$tap"
expect_grep '^# numalab: done$' "$tap"
# Each suite: results 1..N in order, the first case's (its crash, then its
# results not run) not ok, every later one ok.
for s in topology:online mempolicy:defaults; do
	IFS=: read -r name first <<<"$s"
	suite_results "$name" >"$SCRATCH/$name"
	awk -v c="$first" '
		NR == 1 { if (!sub(/^    1\.\./, "")) exit 1; plan = $0; next }
		{ n = ($1 == "not") ? $3 : $2; if (n != NR - 1) exit 1 }
		NR == 2 { if ($0 != "    not ok 1 " c " # crashed by signal 11") exit 1; lost = 1; next }
		lost == n - 1 && $0 ~ "^    not ok [0-9]+ " c " \\(result " n " of [0-9]+\\) # not run$" { lost = n; next }
		$1 != "ok" { exit 1 }
		END { if (NR - 1 != plan || plan <= lost) exit 1 }' "$SCRATCH/$name" ||
		fail "$name: want its first case crashed, its other results not run, all later ones ok: $(cat "$SCRATCH/$name")"
done
expect_no_qemu
