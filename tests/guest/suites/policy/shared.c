/*
 * Shared policy: a policy mbind() installs on shared memory belongs to the
 * object, not to the mapping.  Documentation/admin-guide/mm/
 * numa_memory_policy.rst, "Shared Policy":
 *
 *   "shared policies apply directly to the shared object.  Thus, all tasks
 *   that attach to the object share the policy, and all pages allocated for
 *   the shared object, by any task, will obey the shared policy."
 *   "As of 2.6.22, only shared memory segments, created by shmget() or
 *   mmap(MAP_ANONYMOUS|MAP_SHARED), support shared policy." (tmpfs files,
 *   memfd's too: mm/shmem.c's set_policy/get_policy.)
 *
 * and get_mempolicy(2): with MPOL_F_ADDR "return information about the
 * policy governing the memory address given in addr".  The object is a
 * memfd of 3 x NR pages mapped twice (A and B), pinned to a CPU of node a;
 * b is the last memory node.  Rows:
 *
 *   1. BIND {b} on A's middle third: A reports it on that third only
 *   2. B, never given a policy, reports the same at the same offsets
 *   3. pages faulted through B: the middle third on b, the rest local
 *   4. INTERLEAVE {a,b} on a piece inside the bound third (through B):
 *      the bound range is split around it
 *   5. PREFERRED {a} over the end of the bound third and beyond: the bound
 *      range is cut where it begins
 *   6. DEFAULT over the whole object: no policy left anywhere
 *
 * Kills, in mm/mempolicy.c: sp_lookup()'s `n = prev` -> `prev + 1`
 * (1b05e2ed9f35: the wrong range's policy reported), sp_alloc()'s `return n`
 * -> `n - 1`, shared_policy_replace()'s `if (!mpol_new)` -> `if (0)` (the
 * split of row 4 loses its tail) and its trim of row 5.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"
#include "policy.h"

#define NR 16                  /* pages per third */
#define NR_ROWS 6

int shared_plan(const struct nodes *n)
{
	(void)n;
	return NR_ROWS;
}

/* One expected policy over pages [from, to) of a mapping. */
struct span {
	int from, to, mode;
	unsigned long mask;
};

/* 1 if every page of base in the spans reports its span's policy (MPOL_F_ADDR). */
static int policies_are(char *base, const struct span *s, int nr, const char *what)
{
	size_t ps = (size_t)page_size();

	for (int i = 0; i < nr; i++)
		for (int p = s[i].from; p < s[i].to; p++) {
			int mode = -1;
			unsigned long mask = 0;

			if (p_get(&mode, &mask, MAXNODE_LONG, base + (size_t)p * ps, MPOL_F_ADDR)) {
				ktap_diag("%s: get_mempolicy(MPOL_F_ADDR) at page %d: %s", what, p, strerror(errno));
				return 0;
			}
			if (mode != s[i].mode || mask != s[i].mask) {
				ktap_diag("%s: page %d has mode %d over %s, want mode %d over %s", what, p, mode,
					  mask_str(mask), s[i].mode, mask_str(s[i].mask));
				return 0;
			}
		}
	return 1;
}

static int mbind_pages(char *base, int from, int to, int mode, unsigned long mask)
{
	size_t ps = (size_t)page_size();

	if (p_mbind(base + (size_t)from * ps, (size_t)(to - from) * ps, mode, mode == MPOL_DEFAULT ? NULL : &mask,
		    mode == MPOL_DEFAULT ? 0 : MAXNODE_LONG, 0)) {
		ktap_diag("mbind mode %d over pages %d-%d: %s", mode, from, to - 1, strerror(errno));
		return -1;
	}
	return 0;
}

static void rows(char *a_map, char *b_map, int a, int b)
{
	unsigned long ma = 1UL << a, mb = 1UL << b, mab = ma | mb;
	int status[3 * NR], ok;

	ok = !mbind_pages(a_map, NR, 2 * NR, MPOL_BIND, mb);
	ktap_ok(ok && policies_are(a_map,
				   (struct span[]){ { 0, NR, MPOL_DEFAULT, 0 }, { NR, 2 * NR, MPOL_BIND, mb },
						    { 2 * NR, 3 * NR, MPOL_DEFAULT, 0 } },
				   3, "A"),
		"shared BIND {%d} on the middle third: reported there only", b);
	ktap_ok(ok && policies_are(b_map,
				   (struct span[]){ { 0, NR, MPOL_DEFAULT, 0 }, { NR, 2 * NR, MPOL_BIND, mb },
						    { 2 * NR, 3 * NR, MPOL_DEFAULT, 0 } },
				   3, "B"),
		"a second mapping of the object, never given a policy, reports the same");
	touch_pages(b_map, 3 * NR);
	ktap_ok(ok && !pages_nodes(b_map, 3 * NR, status) && all_on(status, NR, a, "first third") &&
			all_on(status + NR, NR, b, "middle third") && all_on(status + 2 * NR, NR, a, "last third"),
		"pages faulted through the second mapping: middle third on node %d, the rest local (node %d)", b, a);
	ok = !mbind_pages(b_map, NR + 4, NR + 8, MPOL_INTERLEAVE, mab);
	ktap_ok(ok && policies_are(a_map,
				   (struct span[]){ { NR, NR + 4, MPOL_BIND, mb },
						    { NR + 4, NR + 8, MPOL_INTERLEAVE, mab },
						    { NR + 8, 2 * NR, MPOL_BIND, mb } },
				   3, "A"),
		"INTERLEAVE inside the bound range splits it in two around itself");
	ok = !mbind_pages(b_map, 2 * NR - 4, 2 * NR + 4, MPOL_PREFERRED, ma);
	ktap_ok(ok && policies_are(a_map,
				   (struct span[]){ { NR + 8, 2 * NR - 4, MPOL_BIND, mb },
						    { 2 * NR - 4, 2 * NR + 4, MPOL_PREFERRED, ma },
						    { 2 * NR + 4, 3 * NR, MPOL_DEFAULT, 0 } },
				   3, "A"),
		"PREFERRED over the bound range's end and beyond: the bound range cut where it begins");
	ok = !mbind_pages(a_map, 0, 3 * NR, MPOL_DEFAULT, 0);
	ktap_ok(ok && policies_are(b_map, (struct span[]){ { 0, 3 * NR, MPOL_DEFAULT, 0 } }, 1, "B"),
		"MPOL_DEFAULT over the whole object: no shared policy left");
}

void shared_run(const struct nodes *n)
{
	size_t len = 3 * NR * (size_t)page_size();
	int a, b, fd = -1;
	char *a_map = MAP_FAILED, *b_map = MAP_FAILED;

	if (pin_local_far(n, &a, &b, NR_ROWS, "shared policy"))
		return;
	fd = (int)syscall(SYS_memfd_create, "numalab-shared-policy", 0U);
	if (fd >= 0 && !ftruncate(fd, (off_t)len)) {
		a_map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		b_map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (a_map == MAP_FAILED || b_map == MAP_FAILED) {
		ktap_diag("a memfd of %zu bytes mapped twice: %s", len, strerror(errno));
		for (int i = 0; i < NR_ROWS; i++)
			ktap_ok(0, "shared policy (no shared object)");
	} else {
		rows(a_map, b_map, a, b);
	}
	if (a_map != MAP_FAILED)
		munmap(a_map, len);
	if (b_map != MAP_FAILED)
		munmap(b_map, len);
	if (fd >= 0)
		close(fd);
	unpin();
}
