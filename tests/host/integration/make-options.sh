# The Makefile's variables are numalab's options by one rule (Makefile:
# "make variables -> numalab options"): every name a target lists is an
# option of its command, run, shell and bisect have a variable for each of
# their options, and a variable set reaches the command line as its option.
. "$(dirname "$0")/lib.bash"
var() { make -s --no-print-directory --eval="print-var: ; @echo \$($1)" print-var; }
# has_option CMD NAME: NAME is in the option list of `numalab CMD --help`.
# CMD may be a subcommand, "kernel build": the words unquoted.
has_option() { $NUMALAB $1 --help | grep -qE -- "^  --$2( |\$)"; }
options_of() { $NUMALAB $1 --help | sed -nE 's/^  --([a-z-]+).*/\1/p'; }

for t in RUN SHELL BISECT MATRIX TRY KERNEL IMAGE MUTATE; do
	cmd=$(echo "$t" | tr A-Z a-z)
	# make kernel runs `numalab kernel build`, make image `numalab image build`.
	case $t in KERNEL | IMAGE) cmd="$cmd build";; esac
	names="$(var ${t}_OPTIONS) $(var ${t}_LISTS) $(var ${t}_FLAGS)"
	[ "$t" = SHELL ] && names="$names $(var RUN_LISTS)"
	[ -n "${names// }" ] || fail "no ${t}_OPTIONS in the Makefile"
	for o in $names; do
		has_option "$cmd" "$o" || fail "the Makefile's $t lists '$o', not an option of numalab $cmd"
	done
	case $t in RUN | SHELL | BISECT)
		for o in $(options_of "$cmd"); do
			case " $names " in *" $o "*) ;; *) fail "numalab $cmd --$o has no make variable";; esac
		done;;
	esac
done

# Every run option set by its variable: one value quoted, lists once per word, flags bare.
args=() want=()
for o in $(var RUN_OPTIONS); do
	v=$(echo "$o" | tr a-z- A-Z_)
	args+=("$v=x.$o y"); want+=("--$o \"x.$o y\"")
done
for o in $(var RUN_LISTS); do
	v=$(echo "$o" | tr a-z- A-Z_)
	args+=("$v=a.$o b.$o"); want+=("--$o a.$o --$o b.$o")
done
for o in $(var RUN_FLAGS); do
	v=$(echo "$o" | tr a-z- A-Z_)
	args+=("$v=1"); want+=("--$o")
done
expect_rc 0 make -n lab-run "${args[@]}" CMD='numactl --hardware'
line=$(grep -E '^ *(tests/host/libvirtd .* )?\./numalab run ' "$SCRATCH/out") || fail "no numalab run line in: $(cat "$SCRATCH/out")"
for w in "${want[@]}"; do
	case "$line" in *"$w"*) ;; *) fail "make lab-run: no '$w' in: $line";; esac
done
case "$line" in *" -- numactl --hardware") ;; *) fail "CMD is not last, after --: $line";; esac
# Unset variables pass nothing; TOPO and RECIPE have defaults.
expect_rc 0 make -n lab-run
expect_grep '^\./numalab run --topo "2node" *$' "$SCRATCH/out"
expect_rc 0 make -n lab-bisect PREALLOC=1
expect_grep '^\./numalab bisect --topo "2node" --recipe "stock" *$' "$SCRATCH/out"
# lab-try: the patches are operands, a claim with a space stays one option.
expect_rc 0 make -n lab-try PATCH='a.patch b.patch' TOPOS=2node,la-2node EXPECT='bulk_calls decreases' REPORT=1
expect_grep '^\./numalab try a\.patch b\.patch --topos "2node,la-2node" --expect "bulk_calls decreases" --report *$' "$SCRATCH/out"
expect_grep 'GUEST_ARCH=\$a' "$SCRATCH/out"
# A target's variable never clobbers the build: B is lab-compare's second
# tree, not where make compiles numalab (that is BUILD).  -W: as if
# runner.c had changed, so numalab is rebuilt (shown, -n, not done).
expect_rc 0 make -n -W runner.c lab-compare A="$SCRATCH/x" B="$SCRATCH/y"
expect_grep ' -o build/host/runner\.o runner\.c$' "$SCRATCH/out"
expect_grep "^\./numalab compare +$SCRATCH/x $SCRATCH/y\$" "$SCRATCH/out"
! grep -q "$SCRATCH/y/" "$SCRATCH/out" || fail "make lab-compare B=DIR builds into DIR: $(cat "$SCRATCH/out")"
# The environment's ARCH, TESTS, OUT, ... are not options (make's command line's are).
expect_rc 0 env ARCH=arm64 TESTS=env-tests OUT=env-out TOPO=env-topo KERNEL=env-kernel make -n lab-run
expect_grep '^\./numalab run --topo "2node" *$' "$SCRATCH/out"
expect_rc 0 env ARCH=arm64 make -n kernel
expect_grep '^\./numalab kernel build stock --arch "x86_64" *$' "$SCRATCH/out"
# make does not pass numalab's exit code through (docs/exit-codes.md): it
# exits 2 and names numalab's code on its error line.
expect_rc 2 make -s lab-compare A="$SCRATCH/x" B="$SCRATCH/y"
expect_grep '^make(\[[0-9]+\])?: \*\*\* \[Makefile:[0-9]+: lab-compare\] Error 2$' "$SCRATCH/err"   # make[N] under make check
echo "make-options: ok"
