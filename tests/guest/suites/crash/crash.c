/*
 * crash: a self-test of the harness, in no topology's default plan.  It
 * reports one result, then crashes the guest kernel (sysrq c), so a run shows
 * what survives a guest crash: with --disk, the results the guest wrote to
 * the disk before it (tests/host/integration/full/disk-image.sh).  A kernel
 * still running after that fails the suite (the case exits 1, harness.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

GUEST_TEST(crash_the_kernel)
{
	int fd;

	ktap_ok(1, "about to crash the kernel");
	sleep(1);   /* /init relays the line above before the kernel stops */
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0 || write(fd, "c", 1) != 1)
		perror("crash: /proc/sysrq-trigger");
	ktap_diag("the kernel is still running");
	exit(1);
}

int main(void)
{
	guest_header();
	guest_run();
	ktap_exit();
}
