/*
 * xalancbmk-like: a DOM of many small allocations, traversed and rebuilt.
 *
 * xalancbmk transforms an XML document: a tree of small node and string
 * objects reached only through pointers, walked depth first again and
 * again, while result trees are built from fresh small allocations.  Here
 * a random document (nodes of 56 bytes, each with its own 8..120-byte text,
 * up to 8 children, subtree sizes split at random) is built into the
 * arena depth first, as a parser would; a kernel
 * round walks the whole tree reading every text (a string-value
 * evaluation), then cuts random subtrees out and grows new ones of the same
 * size in their place from new allocations, until a sixteenth of the tree
 * is new.  Cut-out nodes are not
 * reused (a bump allocator), so the live tree spreads through the arena.
 *
 * Self-check: the final tree, walked once more, has exactly as many nodes
 * and text bytes as the build and cut bookkeeping says are live; every
 * text read back sums to what was written into it; every child's parent
 * pointer names the node it hangs from.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "workloads.h"

#define SEED 0x78616c616eUL        /* "xalan" */
#define ROUNDS 12
#define REBUILD_SHARE 16           /* a round rebuilds live nodes / 16 */
#define MAX_CUTS 100000            /* per round: bounds the loop on odd shapes */
#define MAX_FANOUT 8
#define MIN_TEXT 8
#define MAX_TEXT 120

static const char lorem[] =
	"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
	"incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud ";

struct xnode {
	struct xnode *parent, *first_child, *next_sibling;
	char *text;
	uint32_t name;             /* an interned element name */
	uint32_t text_len;
	uint64_t text_sum;         /* the sum of the text's bytes as written */
	uint64_t size;             /* nodes in this subtree when built (a regrown cut keeps it) */
};

/* What a walk saw. */
struct tally {
	uint64_t nodes, text_bytes, bad_text, bad_parent, matched, digest;
};

struct xml {
	struct arena *arena;
	struct xnode *root;
	uint64_t rng;
	uint64_t live_nodes, live_text;    /* kept by grow() and cut() */
	uint64_t built, rebuilt_nodes, cuts_done;
	int arena_full;
	struct tally seen;                 /* every kernel walk, summed */
};

static struct xnode *new_node(struct xml *x, struct xnode *parent)
{
	struct xnode *n = arena_alloc(x->arena, sizeof(*n), 8);
	uint32_t len = (uint32_t)(MIN_TEXT + rng_below(&x->rng, MAX_TEXT - MIN_TEXT + 1));
	size_t from = rng_below(&x->rng, sizeof(lorem) - 1);
	char *text = n ? arena_alloc(x->arena, len, 1) : NULL;

	if (!text) {
		x->arena_full = 1;
		return NULL;
	}
	*n = (struct xnode){ .parent = parent, .text = text, .text_len = len,
			     .name = (uint32_t)rng_below(&x->rng, 64) };
	for (uint32_t i = 0; i < len; i++) {
		text[i] = lorem[(from + i) % (sizeof(lorem) - 1)];
		n->text_sum += (unsigned char)text[i];
	}
	if (parent) {
		n->next_sibling = parent->first_child;
		parent->first_child = n;
	}
	x->live_nodes++;
	x->live_text += len;
	x->built++;
	return n;
}

/*
 * A subtree of nr nodes under parent, depth first: one node, its other
 * nr - 1 split at random among up to MAX_FANOUT children.  Returns the
 * nodes made (fewer only when the arena is full).
 */
static uint64_t grow(struct xml *x, struct xnode *parent, uint64_t nr)
{
	struct xnode *n = nr ? new_node(x, parent) : NULL;
	uint64_t left = nr ? nr - 1 : 0, made = 1, children;

	if (!n)
		return 0;
	children = left < MAX_FANOUT ? left : 1 + rng_below(&x->rng, MAX_FANOUT);
	for (uint64_t k = children; k > 0 && left && !x->arena_full; k--) {
		uint64_t share = k == 1 ? left : rng_below(&x->rng, 2 * left / k + 1);

		share = share > left ? left : share;
		made += grow(x, n, share);
		left -= share;
	}
	n->size = made;
	return made;
}

static void visit(const struct xnode *n, struct tally *t)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n->text_len; i++)
		sum += (unsigned char)n->text[i];
	t->nodes++;
	t->text_bytes += n->text_len;
	t->bad_text += sum != n->text_sum;
	t->matched += n->name % 8 == 0;
	t->digest = mix(t->digest, (uint64_t)n->name << 32 ^ sum);
}

/* Depth first through first_child / next_sibling / parent: no stack. */
static void walk(const struct xnode *top, struct tally *t)
{
	const struct xnode *n = top;

	for (;;) {
		visit(n, t);
		if (n->first_child) {
			t->bad_parent += n->first_child->parent != n;
			n = n->first_child;
			continue;
		}
		while (n != top && !n->next_sibling)
			n = n->parent;
		if (n == top)
			return;
		t->bad_parent += n->next_sibling->parent != n->parent;
		n = n->next_sibling;
	}
}

static struct xnode *nth_child(const struct xnode *n, uint64_t k)
{
	struct xnode *c = n->first_child;

	while (k-- && c)
		c = c->next_sibling;
	return c;
}

static uint64_t nr_children(const struct xnode *n)
{
	uint64_t count = 0;

	for (const struct xnode *c = n->first_child; c; c = c->next_sibling)
		count++;
	return count;
}

static void unlink_child(struct xnode *n)
{
	struct xnode **link = &n->parent->first_child;

	while (*link != n)
		link = &(*link)->next_sibling;
	*link = n->next_sibling;
	n->next_sibling = NULL;
}

/* Cut a random subtree of at most max nodes and grow one of the same size in its place; the nodes cut. */
static uint64_t cut_and_regrow(struct xml *x, uint64_t max)
{
	struct xnode *n = x->root, *parent;
	struct tally cut = { 0 };

	while (n->first_child && (n == x->root || n->size > max))
		n = nth_child(n, rng_below(&x->rng, nr_children(n)));
	if (n == x->root)
		return 0;
	parent = n->parent;
	walk(n, &cut);
	unlink_child(n);
	x->live_nodes -= cut.nodes;
	x->live_text -= cut.text_bytes;
	x->rebuilt_nodes += grow(x, parent, cut.nodes);
	x->cuts_done++;
	return cut.nodes;
}

static void rebuild_share(struct xml *x)
{
	uint64_t quota = x->live_nodes / REBUILD_SHARE, done = 0;

	for (int cuts = 0; done < quota && cuts < MAX_CUTS && !x->arena_full; cuts++)
		done += cut_and_regrow(x, quota / 4 + 1);
}

static void *xalan_setup(struct wl_run *r)
{
	struct xml *x = arena_alloc(r->arena, sizeof(*x), 64);
	uint64_t per_node = sizeof(struct xnode) + (MIN_TEXT + MAX_TEXT) / 2, nr;

	if (!x)
		return wl_fail(r, "arena too small"), NULL;
	*x = (struct xml){ .arena = r->arena, .rng = SEED };
	/* Half the arena for the document, half for what the rounds rebuild. */
	nr = arena_left(r->arena, 8) / 2 / per_node;
	x->root = new_node(x, NULL);
	if (!x->root || nr < 2 || grow(x, x->root, nr - 1) != nr - 1)
		return wl_fail(r, "arena too small for %" PRIu64 " nodes", nr), NULL;
	snprintf(r->shape, sizeof(r->shape), "nodes=%" PRIu64 " rounds=%d", nr, ROUNDS);
	return x;
}

static void xalan_kernel(void *state, struct wl_run *r)
{
	struct xml *x = state;
	uint64_t built_before = x->built;

	for (int round = 0; round < ROUNDS; round++) {
		walk(x->root, &x->seen);
		rebuild_share(x);
	}
	r->ops = x->seen.nodes + (x->built - built_before);
}

static int xalan_check(void *state, struct wl_run *r)
{
	struct xml *x = state;
	struct tally final = { 0 };
	size_t len = strlen(r->shape);

	walk(x->root, &final);
	if (x->seen.bad_text + final.bad_text)
		return wl_fail(r, "%" PRIu64 " texts read back wrong", x->seen.bad_text + final.bad_text);
	if (x->seen.bad_parent + final.bad_parent)
		return wl_fail(r, "%" PRIu64 " parent links wrong", x->seen.bad_parent + final.bad_parent);
	if (final.nodes != x->live_nodes || final.text_bytes != x->live_text)
		return wl_fail(r, "walk found %" PRIu64 " nodes / %" PRIu64 " text bytes, bookkeeping %"
			       PRIu64 " / %" PRIu64, final.nodes, final.text_bytes, x->live_nodes, x->live_text);
	snprintf(r->shape + len, sizeof(r->shape) - len, " rebuilt=%" PRIu64 " in %" PRIu64 " cuts%s",
		 x->rebuilt_nodes, x->cuts_done, x->arena_full ? " (arena full)" : "");
	r->checksum = mix(mix(x->seen.digest, final.digest), final.matched);
	return 1;
}

const struct workload wl_xalancbmk = { "xalancbmk", xalan_setup, xalan_kernel, xalan_check };
