# The README's two commands, and boots of 2node, 4node, cxl and la-2node,
# on a fresh Debian 13 (trixie) machine: QEMU 10, gcc 14, glibc 2.41,
# libvirt 11.3 (libvirtd: Debian 13 packages no virtqemud; fresh-machine.bash
# says how).
# Runnable alone: bash tests/host/integration/full/fresh-machine-trixie.sh (35-60 min).
# check-timeout: 7200
release=trixie
. "$(dirname "$0")/fresh-machine.bash"
