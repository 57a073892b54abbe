# Per-test timeout inside the guest: a test that hangs (numalab.fault=hang) is
# killed by /init after its timeout and reported "# TIMEOUT <s>"; the guest
# then finishes normally.  A hang longer than the VM timeout is ended by the
# host instead, and the TAP the guest sent before is kept.
. "$(dirname "$0")/lib.bash"
expect_rc 1 $NUMALAB run --topo 2node --tests topology --append "numalab.fault=hang numalab.test_timeout=3" \
	--timeout 120 --out "$SCRATCH/r1"
cell=$(cell_dir "$SCRATCH/r1")
expect_grep '^not ok 1 topology # TIMEOUT 3s$' "$cell/tap"
expect_grep '^# numalab: done$' "$cell/tap"
expect_grep '^end: poweroff$' "$cell/meta"
expect_no_qemu

expect_rc 1 $NUMALAB run --topo 2node --append "numalab.fault=hang numalab.test_timeout=3600" \
	--timeout 30 --out "$SCRATCH/r2"
cell=$(cell_dir "$SCRATCH/r2")
expect_grep '^# guest\.kernel: ' "$cell/tap"
expect_grep '^    # Subtest: topology$' "$cell/tap"
expect_grep '^not ok 1 topology # TIMEOUT vm timeout after 30 s$' "$cell/tap"
expect_grep '^not ok 2 mempolicy # ERROR not run: vm timeout after 30 s$' "$cell/tap"
expect_grep '^end: timeout$' "$cell/meta"
expect_no_tmp_files "$SCRATCH"
expect_no_qemu
