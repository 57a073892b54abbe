# The lab kernel (stock) runs the byo guest with everything built in: 9p
# for the host's numactl (no modules to load), loop devices, cgroup v2 with
# memory and cpuset controllers, MEMORY_FAILURE (madvise(MADV_SOFT_OFFLINE)
# of an anonymous page succeeds) and /proc/config.gz.  The lab-kernel suite
# fails on a stock built without any of BLK_DEV_LOOP, MEMCG, CPUSETS,
# MEMORY_FAILURE or IKCONFIG_PROC (kernels/config/lab*.config).
. "$(dirname "$0")/../lib.bash"
d=$SCRATCH/suites
mkdir -p "$d"
cat >"$SCRATCH/soft-offline.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101
#endif
int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(p, 1, page);
	if (madvise(p, page, MADV_SOFT_OFFLINE))
		return perror("madvise(MADV_SOFT_OFFLINE)"), 1;
	return p[0] == 1 ? 0 : 1;   /* the data moved with the page */
}
C
gcc -static -o "$d/soft-offline" "$SCRATCH/soft-offline.c" || fail "gcc -static"
cat >"$d/lab-kernel" <<'SH'
#!/bin/sh
echo "KTAP version 1"
echo "1..4"
n=0
check() { n=$((n + 1)); name=$1; shift; if "$@" >/dev/null 2>&1; then echo "ok $n $name"; else echo "not ok $n $name"; fi; }
check config-gz sh -c 'zcat /proc/config.gz | grep -q "^CONFIG_9P_FS=y"'
check loop-built-in test -e /dev/loop-control
check cgroup-memory-cpuset sh -c 'grep -qw memory /sys/fs/cgroup/cgroup.controllers && grep -qw cpuset /sys/fs/cgroup/cgroup.controllers'
check no-modules-needed sh -c '[ ! -e /lab/modules.order ]'
SH
chmod +x "$d/lab-kernel"
expect_rc 0 $NUMALAB run --topo 2node --kernel stock --tests none --tests-dir "$d" --out "$SCRATCH/r" \
	-- numactl --hardware
grep -q '^    not ok' "$SCRATCH/out" && { grep '^    not ok' "$SCRATCH/out" >&2; fail "a lab-kernel check failed"; }
expect_grep '^ok 1 lab-kernel$' "$SCRATCH/out"
expect_grep '^ok 2 soft-offline$' "$SCRATCH/out"
expect_grep '^    # available: 2 nodes \(0-1\)$' "$SCRATCH/out"
expect_grep '^ok 3 exec: numactl --hardware$' "$SCRATCH/out"
expect_no_qemu
