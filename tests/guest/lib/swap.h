/*
 * swap: a swap device in RAM for a suite that asks for one.
 *
 * swap_zram_on() makes /dev/zram0 a swap area of the given size (zram
 * stores only what is swapped out, compressed), and swap_zram_off() takes
 * it away again; a guest that already has swap is left as it is.  It needs
 * zram in the kernel: the lab's kernels build it in (CONFIG_ZRAM,
 * kernels/config/lab.config); in Debian's kernel it is a module, which
 * must have been loaded before (the guest image's module list).
 */
#ifndef NUMALAB_SWAP_H
#define NUMALAB_SWAP_H

#include <stddef.h>
#include <stdint.h>

/* 1 if any swap area is active (/proc/swaps). */
int swap_active(void);

/*
 * Swap on a bytes-sized zram device.  0: swap is on (made here, or there
 * already); -1: why (one line) says what is missing.
 */
int swap_zram_on(uint64_t bytes, char *why, size_t why_size);

/* Undo swap_zram_on() (nothing if it made no device). */
void swap_zram_off(void);

#endif
