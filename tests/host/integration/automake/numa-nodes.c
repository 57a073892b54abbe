/* A TAP test that only passes inside the 2node guest: the host has one node. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int read_line(const char *path, char *buf, int size)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

int main(void)
{
	char online[64] = "", node0[256] = "", node1[256] = "";
	int fails = 0;

	printf("1..3\n");
	read_line("/sys/devices/system/node/online", online, sizeof(online));
	fails += strcmp(online, "0-1") != 0;
	printf("%sok 1 - nodes online are 0-1 (%s)\n", strcmp(online, "0-1") ? "not " : "", online);
	read_line("/sys/devices/system/node/node0/cpulist", node0, sizeof(node0));
	read_line("/sys/devices/system/node/node1/cpulist", node1, sizeof(node1));
	fails += !*node0 || !*node1;
	printf("%sok 2 - both nodes have CPUs (%s | %s)\n", *node0 && *node1 ? "" : "not ", node0, node1);
	printf("ok 3 - a check this shape cannot make # SKIP no CPU-less node in 2node\n");
	return fails ? 1 : 0;
}
