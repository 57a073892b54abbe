/*
 * interrupt: what SIGINT, SIGTERM and SIGHUP do to a numalab process.
 *
 * Contract:
 *  - A command that runs children it must not leave behind (QEMU, make,
 *    apt) calls interrupt_catch() once, before starting them.
 *  - On such a signal every child started through proc.h is stopped at
 *    once (proc_kill_all()), and the signal is remembered: the loops that
 *    wait (a VM, a kernel build, a matrix) see interrupt_caught() != 0,
 *    reap what they started, and report the work as interrupted.  Nothing
 *    is done in the handler beyond that, so every exit path stays the
 *    caller's one kill-and-reap.
 *  - The handlers do not restart system calls: a poll() or read() waiting
 *    when the signal arrives returns EINTR.  SIGPIPE is ignored: a closed
 *    pipe is an EPIPE to report, not a death.
 */
#ifndef LAB_INTERRUPT_H
#define LAB_INTERRUPT_H

/* Install the handlers described above (idempotent). */
void interrupt_catch(void);

/* 0, or the number of the latest such signal since interrupt_catch(). */
int interrupt_caught(void);

#endif
