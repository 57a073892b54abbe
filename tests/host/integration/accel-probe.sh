# --accel auto: the KVM probe's verdict is cached per host boot, QEMU and
# kernel, and said so in meta; a hidden KVM device is TCG without a probe.
# On a host whose /dev/kvm cannot run the guest (kvm_pvm) the probe picks
# TCG; on one without /dev/kvm the device's absence is the reason; with a
# working KVM the probe reaches /init.  Whatever the host, the second run
# must not probe again.
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

NUMALAB_KVM_DEVICE=/nonexistent expect_rc 0 $NUMALAB run --topo 2node --tests topology --quiet --out "$SCRATCH/hidden"
expect_grep '^accel: tcg: /nonexistent: No such file or directory$' "$(cell_dir "$SCRATCH/hidden")meta"
expect_no_qemu
