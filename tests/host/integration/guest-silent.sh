# A guest whose /init never prints TAP (numalab.fault=silent): the VM timeout
# ends it, every planned test is reported as not run with the reason, exit 1.
. "$(dirname "$0")/lib.bash"
expect_rc 1 $NUMALAB run --topo 2node --append numalab.fault=silent --timeout 25 --out "$SCRATCH/r"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^not ok 1 topology # ERROR not run: vm timeout after 25 s$' "$cell/tap"
expect_grep '^not ok 2 mempolicy # ERROR not run: vm timeout after 25 s$' "$cell/tap"
expect_grep '^1\.\.2$' "$cell/tap"
expect_grep '^end: timeout$' "$cell/meta"
expect_grep '^time.first_tap_s: -1' "$cell/meta"
expect_grep 'numalab.fault=silent: no TAP' "$cell/console.log"
expect_grep '^complete$' "$SCRATCH/r"/*/state
expect_no_tmp_files "$SCRATCH/r"
expect_no_qemu
