/*
 * crash: a self-test of the harness, in no topology's default plan.  It
 * reports one result, then crashes the guest kernel (sysrq c), so a run shows
 * what survives a guest crash: with --disk, the results the guest wrote to
 * the disk before it (tests/host/integration/full/disk-image.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int fd;

	printf("KTAP version 1\n1..1\nok 1 about to crash the kernel\n");
	fflush(stdout);
	sleep(1);   /* /init relays the line above before the kernel stops */
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0 || write(fd, "c", 1) != 1)
		perror("crash: /proc/sysrq-trigger");
	printf("# the kernel is still running\n");
	return 1;
}
