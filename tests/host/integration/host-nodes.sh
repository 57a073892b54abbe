# --host-nodes with the direct QEMU backend: a map this host cannot back is
# refused before anything boots (exit 2, naming the missing host node); one
# it can back (this 1-node host: both guest nodes on host node 0) boots with
# memory bound by the memory backends and every vCPU thread pinned, recorded
# in meta.
. "$(dirname "$0")/lib.bash"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
missing=$nodes   # the first host node that does not exist
if [ "$nodes" -lt 2 ]; then
	expect_rc 2 $NUMALAB run --topo 2node --host-nodes auto --out "$SCRATCH/auto"
	expect_grep "guest node $missing wants host node $missing, but this host has no NUMA node $missing" "$SCRATCH/err"
	[ -z "$(ls -A "$SCRATCH/auto" 2>/dev/null)" ] || fail "a refused run left results"
fi
expect_rc 2 $NUMALAB run --topo 2node --host-nodes 0=0,1=$missing --out "$SCRATCH/bad"
expect_grep "no NUMA node $missing " "$SCRATCH/err"
expect_rc 2 $NUMALAB run --topo 2node --prealloc --out "$SCRATCH/bad"
expect_grep '--prealloc needs --host-nodes' "$SCRATCH/err"

expect_rc 0 $NUMALAB run --topo 2node --tests topology --host-nodes 0=0,1=0 --prealloc --out "$SCRATCH/r"
cell=$(cell_dir "$SCRATCH/r")
expect_grep '^backend: qemu$' "$cell/meta"
expect_grep '^host_numa: guest0=host0,guest1=host0$' "$cell/meta"
expect_grep '^host_numa.prealloc: yes$' "$cell/meta"
expect_grep '^host_numa.vcpus: vcpu0=thread[1-9][0-9]*:host-cpus[0-9]' "$cell/meta"
for v in 1 2 3; do expect_grep "vcpu$v=thread[1-9][0-9]*:" "$cell/meta"; done
expect_grep 'memory-backend-ram,id=mem1,size=512M,host-nodes=0,policy=bind,prealloc=on' "$cell/meta"
expect_no_qemu
