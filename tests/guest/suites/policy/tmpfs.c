/*
 * tmpfs's mpol= mount option, as Documentation/filesystems/tmpfs.rst states
 * it:
 *
 *   "mpol=prefer:Node         prefers to allocate memory from the given Node
 *    mpol=bind:NodeList       allocates memory only from nodes in NodeList
 *    mpol=interleave:NodeList allocates from each node of NodeList in turn"
 *   "trying to mount a tmpfs with an mpol option ... will fail if its
 *   nodelist specifies a node which is not online."
 *
 * Each row mounts a tmpfs, writes NR pages of a file from a CPU of node a
 * (the first memory node with CPUs; b is the last memory node) and asks
 * where the pages are.  Interleave places page i by its index in the file,
 * so over {a, b} each node holds half.  Needs two memory nodes.
 *
 * Kills, in mm/mempolicy.c: mpol_parse_str()'s closing `err = 0` -> `1`
 * (678a3b9429e5: every mpol= mount refused), mpol_shared_policy_init()'s
 * `ret = mpol_set_nodemask(...)` -> `- 1` (4f6b967a2dc3: the mount's
 * policy dropped, pages local), and a parser that accepts an offline node.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "policy.h"

#define TMPFS_DIR "/tmp/numalab-mpol"
#define NR 16
#define NR_ROWS 4

int tmpfs_plan(const struct nodes *n)
{
	(void)n;
	return NR_ROWS;
}

/*
 * Mount a tmpfs with option mpol, write NR pages of a file in it and put
 * each page's node in status: 0, or the mount's errno (other failures: -1,
 * diag printed).  The tmpfs is gone when it returns.
 */
static int file_nodes(const char *mpol, int *status)
{
	size_t len = NR * (size_t)page_size();
	char opts[96], *map = MAP_FAILED;
	int fd, rc = -1;

	snprintf(opts, sizeof(opts), "size=1m,mpol=%s", mpol);
	mkdir("/tmp", 0755);
	mkdir(TMPFS_DIR, 0755);
	if (mount("tmpfs", TMPFS_DIR, "tmpfs", 0, opts))
		return errno;
	fd = open(TMPFS_DIR "/file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0 && !ftruncate(fd, (off_t)len))
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		ktap_diag("a file of %zu bytes on tmpfs -o %s: %s", len, opts, strerror(errno));
	else {
		touch_pages(map, NR);
		rc = pages_nodes(map, NR, status);
		munmap(map, len);
	}
	if (fd >= 0)
		close(fd);
	umount(TMPFS_DIR);
	return rc;
}

static int row_all_on(const char *mpol, int node)
{
	int status[NR], rc = file_nodes(mpol, status);

	if (rc > 0)
		ktap_diag("mount -o mpol=%s: %s", mpol, strerror(rc));
	return !rc && all_on(status, NR, node, mpol);
}

void tmpfs_run(const struct nodes *n)
{
	int a, b, status[NR], rc, on_a = 0, on_b = 0;
	char mpol[64];

	if (pin_local_far(n, &a, &b, NR_ROWS, "tmpfs mpol="))
		return;
	snprintf(mpol, sizeof(mpol), "bind:%d", b);
	ktap_ok(row_all_on(mpol, b), "tmpfs -o mpol=%s: the file's pages on node %d, not local node %d", mpol, b, a);
	snprintf(mpol, sizeof(mpol), "prefer:%d", b);
	ktap_ok(row_all_on(mpol, b), "tmpfs -o mpol=%s: the file's pages on node %d, not local node %d", mpol, b, a);
	snprintf(mpol, sizeof(mpol), "interleave:%d,%d", a, b);
	rc = file_nodes(mpol, status);
	for (int i = 0; !rc && i < NR; i++) {
		on_a += status[i] == a;
		on_b += status[i] == b;
	}
	if (rc || on_a != NR / 2 || on_b != NR / 2)
		ktap_diag("mpol=%s: rc %d, %d pages on node %d, %d on node %d", mpol, rc, on_a, a, on_b, b);
	ktap_ok(!rc && on_a == NR / 2 && on_b == NR / 2, "tmpfs -o mpol=%s: the file's pages half on each", mpol);
	/* A node id that is possible nowhere: the highest the kernel takes in a node list. */
	snprintf(mpol, sizeof(mpol), "bind:%d", n->nr_possible);
	rc = file_nodes(mpol, status);
	if (rc != EINVAL)
		ktap_diag("mount -o mpol=%s: %s", mpol, rc > 0 ? strerror(rc) : rc ? "(failed later)" : "mounted");
	ktap_ok(rc == EINVAL, "tmpfs -o mpol=%s (no such node online): the mount fails, EINVAL", mpol);
	unpin();
}
