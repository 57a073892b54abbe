/*
 * Every mode and mode flag survives a set_mempolicy/get_mempolicy round
 * trip (mode, flags and node mask as set), an mbind/get_mempolicy(MPOL_F_ADDR)
 * round trip reads back the VMA policy, and bad input gets the documented
 * error: EINVAL for an unknown mode, conflicting flags, an empty or offline
 * node mask, an unaligned mbind range; EFAULT for an unmapped address.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktap.h"
#include "mempolicy.h"

struct mode {
	int mode;
	const char *name;
	int takes_nodes;           /* 0: DEFAULT and LOCAL take no mask */
	int needs_two;             /* interleaving modes: more telling with two nodes */
};

static const struct mode modes[] = {
	{ MPOL_DEFAULT, "MPOL_DEFAULT", 0, 0 },
	{ MPOL_BIND, "MPOL_BIND", 1, 0 },
	{ MPOL_PREFERRED, "MPOL_PREFERRED", 1, 0 },
	{ MPOL_PREFERRED_MANY, "MPOL_PREFERRED_MANY", 1, 1 },
	{ MPOL_INTERLEAVE, "MPOL_INTERLEAVE", 1, 1 },
	{ MPOL_WEIGHTED_INTERLEAVE, "MPOL_WEIGHTED_INTERLEAVE", 1, 1 },
	{ MPOL_LOCAL, "MPOL_LOCAL", 0, 0 },
};
#define NR_MODES (int)(sizeof(modes) / sizeof(modes[0]))

static unsigned long mask_for(const struct nodes *n, const struct mode *m)
{
	unsigned long mask = 1UL << n->mem[n->nr_mem - 1];

	if (m->needs_two && n->nr_mem > 1)
		mask |= 1UL << n->mem[0];
	return m->takes_nodes ? mask : 0;
}

/* Set with flags, read back; diag and 0 on any difference. */
static int round_trip(const struct mode *m, int flags, unsigned long mask)
{
	int got_mode = -1;
	unsigned long got_mask = 0;

	if (sys_set_mempolicy(m->mode | flags, mask)) {
		ktap_diag("set_mempolicy(%s|%#x, %s): %s", m->name, flags, mask_str(mask), strerror(errno));
		return 0;
	}
	if (sys_get_mempolicy(&got_mode, &got_mask, NULL, 0)) {
		ktap_diag("get_mempolicy after %s: %s", m->name, strerror(errno));
		sys_set_mempolicy(MPOL_DEFAULT, 0);
		return 0;
	}
	sys_set_mempolicy(MPOL_DEFAULT, 0);
	if (got_mode == (m->mode | flags) && got_mask == mask)
		return 1;
	ktap_diag("%s|%#x nodes %s: read back mode %#x nodes %s", m->name, flags, mask_str(mask),
		  got_mode, mask_str(got_mask));
	return 0;
}

static void check_mode(const struct nodes *n, const struct mode *m)
{
	unsigned long mask = mask_for(n, m);
	int ok = round_trip(m, 0, mask);

	if (m->takes_nodes) {
		ok = round_trip(m, MPOL_F_STATIC_NODES, mask) && ok;
		ok = round_trip(m, MPOL_F_RELATIVE_NODES, mask) && ok;
	}
	ktap_ok(ok, "set/get_mempolicy round trip %s%s", m->name,
		m->takes_nodes ? " (plain, STATIC_NODES, RELATIVE_NODES)" : "");
}

/* mbind a VMA policy and read it back with MPOL_F_ADDR. */
static void check_vma_round_trip(const struct nodes *n)
{
	size_t len = 4 * (size_t)page_size();
	char *base = map_pages(4);
	unsigned long mask = 1UL << n->mem[n->nr_mem - 1], got_mask = 0;
	int got_mode = -1, ok = 0;

	if (base && !sys_mbind(base, len, MPOL_BIND, mask) &&
	    !sys_get_mempolicy(&got_mode, &got_mask, base + len / 2, MPOL_F_ADDR))
		ok = got_mode == MPOL_BIND && got_mask == mask;
	if (!ok)
		ktap_diag("mbind BIND %s, get_mempolicy(MPOL_F_ADDR): mode %d nodes %s (%s)",
			  mask_str(mask), got_mode, mask_str(got_mask), strerror(errno));
	if (base)
		munmap(base, len);
	ktap_ok(ok, "mbind/get_mempolicy(MPOL_F_ADDR) round trip MPOL_BIND");
}

static void expect_errno(long rc, int want, const char *what)
{
	int got = rc ? errno : 0;

	if (got != want)
		ktap_diag("%s: got %s, want %s", what, got ? strerror(got) : "success", strerror(want));
	ktap_ok(got == want, "%s fails with %s", what, want == EINVAL ? "EINVAL" : "EFAULT");
	sys_set_mempolicy(MPOL_DEFAULT, 0);
}

static void check_errors(const struct nodes *n)
{
	unsigned long one = 1UL << n->mem[0];
	char *base = map_pages(2);
	int mode;
	unsigned long mask;

	expect_errno(sys_set_mempolicy(99, one), EINVAL, "set_mempolicy unknown mode 99");
	expect_errno(sys_set_mempolicy(MPOL_BIND, 0), EINVAL, "set_mempolicy MPOL_BIND empty mask");
	expect_errno(sys_set_mempolicy(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, one),
		     EINVAL, "set_mempolicy STATIC_NODES|RELATIVE_NODES together");
	/* Node 62 exists on no shape of the lab (at most 8 nodes). */
	expect_errno(sys_set_mempolicy(MPOL_BIND, 1UL << 62), EINVAL, "set_mempolicy offline node 62");
	expect_errno(base ? sys_mbind(base + 1, (size_t)page_size(), MPOL_BIND, one) : -1,
		     EINVAL, "mbind unaligned start");
	expect_errno(sys_get_mempolicy(&mode, &mask, (void *)16, MPOL_F_ADDR), EFAULT,
		     "get_mempolicy(MPOL_F_ADDR) unmapped address");
	if (base)
		munmap(base, 2 * (size_t)page_size());
}

int modes_plan(const struct nodes *n)
{
	(void)n;
	return NR_MODES + 1 + 6;
}

void modes_run(const struct nodes *n)
{
	for (int i = 0; i < NR_MODES; i++)
		check_mode(n, &modes[i]);
	check_vma_round_trip(n);
	check_errors(n);
}
