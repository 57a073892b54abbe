# --accel auto: the KVM probe's verdict is cached per host boot, QEMU and
# kernel, and said so in meta; a hidden KVM device is TCG without a probe.
# On a host whose /dev/kvm cannot run the guest (kvm_pvm) the probe picks
# TCG; on one without /dev/kvm the device's absence is the reason; with a
# working KVM the probe reaches /init.  Whatever the host, the second run
# must not probe again.  Then the runs are repeated with a
# /dev/kvm that opens but fails QEMU (tests/host/with-unusable-kvm): the
# probe's QEMU must end the probe at once, its verdict be cached, and that
# verdict must stand neither for another device at that path nor for the
# host's own device afterwards.
. "$(dirname "$0")/lib.bash"
cache=${NUMALAB_CACHE:-$HOME/.cache/numalab}
rm -rf "$cache/accel"
accel_of() { sed -n 's/^accel: //p' "$(cell_dir "$1")meta"; }

expect_rc 0 $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/first"
first=$(accel_of "$SCRATCH/first")
dev=${NUMALAB_KVM_DEVICE:-/dev/kvm}
if [ -e "$dev" ]; then
	echo "$first" | grep -qE '^(tcg: kvm probe|kvm: kvm probe boot reached /init)' || fail "first run: accel '$first'"
	expect_rc 0 $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/second"
	second=$(accel_of "$SCRATCH/second")
	echo "$second" | grep -qE '^(tcg|kvm) \(cached, probed [0-9-]+ [0-9:]+ UTC: ' || fail "second run did not use the cached verdict: '$second'"
	[ "${second%% *}" = "${first%%:*}" ] || fail "the cached verdict '$second' is not the probe's '$first'"
	ls "$cache"/accel/* >/dev/null 2>&1 || fail "no verdict under $cache/accel"
else
	echo "$first" | grep -qF "tcg: $dev: No such file or directory" || fail "no KVM device: accel '$first'"
fi

tests/host/with-unusable-kvm true || fail "tests/host/with-unusable-kvm cannot make its namespace"
expect_rc 0 tests/host/with-unusable-kvm $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/unusable"
unusable=$(accel_of "$SCRATCH/unusable")
echo "$unusable" | grep -qE '^tcg: kvm probe: qemu exited with status [1-9][0-9]* after [0-2]\.[0-9] s$' ||
	fail "unusable /dev/kvm: accel '$unusable'"
expect_rc 0 tests/host/with-unusable-kvm $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/unusable2"
unusable2=$(accel_of "$SCRATCH/unusable2")
[[ $unusable2 == "tcg (cached, probed "*" UTC: ${unusable#tcg: })" ]] ||
	fail "unusable /dev/kvm, second run: accel '$unusable2', want the cached '$unusable'"
expect_rc 0 tests/host/with-unusable-kvm --as 1:5 $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/other"
other=$(accel_of "$SCRATCH/other")
echo "$other" | grep -q '^tcg: kvm probe: ' || fail "another device at /dev/kvm was not probed: accel '$other'"
expect_rc 0 $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/after"
after=$(accel_of "$SCRATCH/after")
[ "$after" = "$first" ] || [ "${after%% *}" = "${first%%:*}" ] ||
	fail "after the unusable device, the host's own got '$after' (before: '$first')"

NUMALAB_KVM_DEVICE=/nonexistent expect_rc 0 $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/hidden"
expect_grep '^accel: tcg: /nonexistent: No such file or directory$' "$(cell_dir "$SCRATCH/hidden")meta"
expect_no_qemu
