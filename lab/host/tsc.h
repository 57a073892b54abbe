/*
 * tsc: the rate of this host's time-stamp counter, for x86 guests under TCG.
 *
 * TCG's RDTSC reads the host's counter (QEMU's cpu_get_host_ticks() without
 * icount), so a TCG guest's TSC runs at the host's rate on every vCPU alike.
 * A guest left to find that rate calibrates against an emulated PIT or HPET
 * (0.1-0.2 s of a 1.4 s boot, and a few 0.1% off) and then, seeing the
 * vCPUs' counters drift under emulation, marks the TSC unstable and reads
 * the HPET for every clock read.  The lab tells the guest instead
 * (qemu_cmdline(): tsc_early_khz=, tsc=reliable).
 *
 * Contract:
 *  - The rate in kHz, measured once per process against CLOCK_MONOTONIC_RAW
 *    over 20 ms (well under 0.01% off); later calls return the same value.
 *  - 0 where it does not apply: a host that is not x86_64, or whose TSC is
 *    not invariant (no constant_tsc and nonstop_tsc in /proc/cpuinfo: its
 *    rate changes with the CPU's frequency or stops in idle).
 *  - Never fails otherwise; prints nothing.
 */
#ifndef LAB_TSC_H
#define LAB_TSC_H

unsigned host_tsc_khz(void);

#endif
