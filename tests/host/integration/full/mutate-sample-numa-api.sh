# numalab mutate kills the fixed sample of issue 33's NUMA API mutants
# (memory-tiers.c, vmscan.c, mempolicy.c, migrate.c, huge_memory.c) with
# topology, policy and tiering on 4node and cxl at once: one of them
# surviving fails the test.  The ids and how they change: mutate-sample.sh.
# 46 mutants, each booted on both shapes, two at a time: about an hour.
# check-timeout: 7200
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"

# Issue 33's areas, on 4node and cxl at once (killed if either kills it):
# memory-tiers.c: the "null" of a node without targets, demotion_enabled's
# read-back, the 10% DRAM-performance rule, next_demotion_node() inside the
# cpuset's mems; vmscan.c: demotion without the cgroup's mems; mempolicy.c:
# the home node, a shared policy's split, tmpfs mpol=, NUMA balancing's
# MORON branch; migrate.c: move_pages' putback of a failed batch, a hole, an
# error's status, the count of pages not migrated, a page no LRU holds;
# huge_memory.c: a THP's NUMA hinting fault, a COW-shared THP made writable,
# a local THP's PMD restored PROT_NONE or sent to node -1, a THP's uffd-wp
# dropped; mempolicy.c: migrate_pages of a kernel thread.
IDS2=d60f8f705cf0,88653ab36127,ae50c1328b32,57a3ad3c994b,53cc9316e90b
IDS2=$IDS2,05a8e4288cc8,1b05e2ed9f35,678a3b9429e5,3cd95e9b52fb
IDS2=$IDS2,03e96532a30d,e7b1964011e5,8210b991f17d,92855aefee33
IDS2=$IDS2,85402039e8cb,10551dda6606,51db88bff107
IDS2=$IDS2,556c2e7e2f84,2c31711eea9d,61f74a8231d7,af7b433ec9bb
# The second round of issue 33: a THP's hinting fault not counted as
# migrated, counted on the wrong node, restored read-only; mprotect() of a THP
# under migration; mprotect() PROT_NONE -> RW leaving a THP read-only;
# numa_maps' "static|balancing"; mbind(MPOL_DEFAULT) over a hole; a hugetlb
# page never queued by MOVE; set_mempolicy_home_node() leaking a policy; no
# remote retry for a THP whose local node is full; a migrated THP reported
# as failed to migrate; a page moved into a nearly full node.
IDS2=$IDS2,3baf38954667,cd1962dd59ab,2904b50c1afe,109bc2d0bf8e,a234019c7e78
IDS2=$IDS2,207820e87cf8,c1bfc3694535,e58a4686b7a9,b727307c35ad,46d560984fbf,f3a50486a390,22e344da31d6
# Its fifth round: move_pages of the caller's own pid turned into an error,
# of a kernel thread taking a bogus mm, of another user's process allowed; a
# task faulting on a CPU-less node preferring the last node with CPUs, not
# the nearest (cxl only); a THP's PMD lock kept after a failed migration;
# mprotect() to RW making a THP writable past uffd-wp and soft-dirty.
IDS2=$IDS2,18890b17492b,2554ecd60fef,241f2d30df2e,1924546beaa2,3fc0f38b40c6
IDS2=$IDS2,09189cde528d,782427c8a0a0
# Its sixth round: a THP's migrating hinting fault counted on its source; the
# same fault returning VM_FAULT_OOM after the move (only the console's "Huh"
# line tells); auto weights rounded the wrong way on cxl's exact bandwidths.
IDS2=$IDS2,a1801151af6e,754af874411d,0c88318b271c
# Its seventh round: demotion_enabled written 0 while off resetting the nodes
# kswapd gave up on, and 0 -> 1 not resetting them; tiering mode taking the
# cpupid of a top-tier page for its access time.
IDS2=$IDS2,9606c68bc894,03debf6e0ed6,8649992ec2ea
# The last migrate.c survivor: a promotion into a nearly full node whose only
# zone is its highest never waking that node's kswapd (cxl's crowded row).
IDS2=$IDS2,841c1f781122
expect_rc 0 $NUMALAB mutate --kernel stock --file mm/memory-tiers.c --file mm/vmscan.c --file mm/mempolicy.c \
	--file mm/migrate.c --file mm/huge_memory.c --topo 4node,cxl --tests topology,policy,tiering \
	--jobs 2 --ids "$IDS2" --out "$SCRATCH/m2"
n=$(echo "$IDS2" | tr , '\n' | wc -l)
expect_grep "^score 100\.0%: $n killed of $n judged" "$SCRATCH/out"
[ -s "$SCRATCH/m2/base/4node/passed" ] && [ -s "$SCRATCH/m2/base/cxl/passed" ] || fail "no base run on each topology"
# A mutant only cxl's tiering sees was booted on both, and said so.
expect_grep '\] 57a3ad3c994b .*: killed: cxl: ' "$SCRATCH/out"
[ -d "$SCRATCH/m2/mutants/57a3ad3c994b/run/4node" ] || fail "57a3ad3c994b did not boot on 4node first"
expect_no_qemu
echo "mutate-sample-numa-api: ok"
