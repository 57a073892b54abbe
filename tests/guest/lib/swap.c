/* swap: a zram swap area for the suites that need one (swap.h). */
#include "swap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

#include "ktap.h"

#define ZRAM_SYS "/sys/block/zram0"
#define ZRAM_DEV "/dev/zram0"
#define SWAP_VERSION_OFFSET 1024   /* union swap_header: bootbits[1024], then info */
#define SWAP_MAGIC "SWAPSPACE2"    /* the last 10 bytes of the first page */

static int made_here;

int swap_active(void)
{
	char buf[1024];

	/* A header line, then one line per active area. */
	return !sys_read("/proc/swaps", buf, sizeof(buf)) && strchr(buf, '\n');
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* What mkswap writes: version 1, the last usable page, no bad pages, the magic. */
static int write_swap_header(const char *dev, uint64_t bytes)
{
	long ps = page_size();
	unsigned char *page = calloc(1, (size_t)ps);
	int fd = open(dev, O_WRONLY | O_CLOEXEC), rc = -1;

	if (page && fd >= 0) {
		put_le32(page + SWAP_VERSION_OFFSET, 1);
		put_le32(page + SWAP_VERSION_OFFSET + 4, (uint32_t)(bytes / (uint64_t)ps - 1));
		memcpy(page + ps - strlen(SWAP_MAGIC), SWAP_MAGIC, strlen(SWAP_MAGIC));
		rc = pwrite(fd, page, (size_t)ps, 0) == ps && !fsync(fd) ? 0 : -1;
	}
	if (fd >= 0)
		close(fd);
	free(page);
	return rc;
}

int swap_zram_on(uint64_t bytes, char *why, size_t why_size)
{
	char size[32];

	if (swap_active())
		return 0;
	if (!sys_exists(ZRAM_SYS)) {
		snprintf(why, why_size, "no %s: the kernel has no zram (CONFIG_ZRAM, or its module is not loaded)",
			 ZRAM_SYS);
		return -1;
	}
	snprintf(size, sizeof(size), "%llu", (unsigned long long)bytes);
	if (sys_write(ZRAM_SYS "/disksize", size)) {
		snprintf(why, why_size, "%s/disksize %s: %s", ZRAM_SYS, size, strerror(errno));
		return -1;
	}
	if (write_swap_header(ZRAM_DEV, bytes) || swapon(ZRAM_DEV, 0)) {
		snprintf(why, why_size, "swap on %s: %s", ZRAM_DEV, strerror(errno));
		sys_write(ZRAM_SYS "/reset", "1");
		return -1;
	}
	made_here = 1;
	return 0;
}

void swap_zram_off(void)
{
	if (!made_here)
		return;
	if (swapoff(ZRAM_DEV) || sys_write(ZRAM_SYS "/reset", "1"))
		ktap_diag("taking swap off %s: %s", ZRAM_DEV, strerror(errno));
	made_here = 0;
}
