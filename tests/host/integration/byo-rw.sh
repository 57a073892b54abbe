# run -- CMD: a program built here with plain gcc (dynamic) runs in the guest
# at this directory, which it cannot write, and writes into the --rw
# directory, which the host then reads; its exit status is the result and
# numalab's exit code (here 3: not ok, exit 1).
. "$(dirname "$0")/lib.bash"
top=$PWD
mkdir -p "$SCRATCH/work/out"
cat >"$SCRATCH/work/prog.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	FILE *ro = fopen("here.txt", "w"), *rw = fopen(argv[1], "w");

	printf("cwd write: %s\n", ro ? "allowed" : strerror(errno));
	if (!rw)
		return perror(argv[1]), 2;
	fprintf(rw, "written in the guest\n");
	return fclose(rw) ? 2 : atoi(argv[2]);
}
C
gcc -o "$SCRATCH/work/prog" "$SCRATCH/work/prog.c" || fail "gcc"
cd "$SCRATCH/work"
expect_rc 1 "$top/$NUMALAB" run --topo 2node --tests none --out "$SCRATCH/r" --rw out -- ./prog out/result.txt 3
expect_grep '^    # cwd write: Read-only file system$' "$SCRATCH/out"
expect_grep '^not ok 1 exec: \./prog out/result\.txt 3 # exit 3$' "$SCRATCH/out"
[ "$(cat out/result.txt)" = "written in the guest" ] || fail "the host does not read the guest's file"
[ ! -e here.txt ] || fail "the guest wrote the read-only cwd"
cd "$top"
expect_no_qemu
