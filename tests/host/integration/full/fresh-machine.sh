# The README's two commands, and boots of 2node, 4node, cxl and la-2node,
# on a fresh Debian 12 (bookworm) machine: QEMU 7.2, gcc 12, glibc 2.36,
# libvirt 9.0 (fresh-machine.bash says how).
# Runnable alone: bash tests/host/integration/full/fresh-machine.sh (30-60 min).
# check-timeout: 7200
release=bookworm
. "$(dirname "$0")/fresh-machine.bash"
