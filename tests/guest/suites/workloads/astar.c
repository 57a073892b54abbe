/*
 * astar-like: A* path finding on a large weighted grid.
 *
 * astar (2D path finding for game maps) expands cells from a binary-heap
 * open list; each expansion reads the four neighbours' records, so a search
 * touches a compact region somewhere in a big map, and a run of searches
 * between random places touches the whole map.  The grid here fills the
 * arena: 12-byte cells with an entry cost of 1..9 or a wall; each search
 * stamps the cells it reaches (no clearing between searches).  The
 * heuristic is the Manhattan distance (every step costs at least 1), so it
 * is consistent and A* returns shortest paths.
 *
 * Self-check: with a consistent heuristic the f values popped within a
 * search never decrease (checked on every pop: a heap or heuristic bug
 * shows here); the last search's path, walked back from the goal through
 * the recorded directions, reaches the start through open cells and costs
 * what A* said; no path is shorter than its Manhattan distance; and the
 * first CHECKED searches, run again as Dijkstra (no heuristic), find the
 * same costs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "workloads.h"

#define SEED 0x6173746172UL        /* "astar" */
#define NR_QUERIES 240
#define CHECKED 2                  /* queries re-solved by Dijkstra */
#define SPAN 100                   /* goal within SPAN cells of the start on each axis */
#define WALL_PCT 15
#define EXPANSION_LIMIT 200000     /* a search that needs more gives up: unreachable */
#define CLOSED 0x80
#define NOT_FOUND UINT32_MAX

struct cell {
	uint32_t g;                /* cost from the start, valid when stamp is the search's */
	uint32_t stamp;
	uint8_t cost;              /* 0: wall */
	uint8_t flags;             /* direction we came from (0..3), CLOSED */
	uint16_t pad;
};

struct query {
	uint32_t start, goal;
	uint32_t cost;             /* A*'s answer */
};

struct astar {
	struct cell *cells;
	uint32_t width, height;
	uint64_t *heap;            /* (f << 32) | cell */
	size_t nr, cap;
	struct query queries[NR_QUERIES];
	uint64_t expanded, backwards;
};

static const int dx[4] = { 1, -1, 0, 0 }, dy[4] = { 0, 0, 1, -1 };

static void heap_push(struct astar *s, uint64_t e)
{
	size_t i = s->nr++;

	while (i > 0 && e < s->heap[(i - 1) / 2]) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

static uint64_t heap_pop(struct astar *s)
{
	uint64_t top = s->heap[0], last = s->heap[--s->nr];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= s->nr)
			break;
		if (child + 1 < s->nr && s->heap[child + 1] < s->heap[child])
			child++;
		if (s->heap[child] >= last)
			break;
		s->heap[i] = s->heap[child];
		i = child;
	}
	if (s->nr)
		s->heap[i] = last;
	return top;
}

static uint32_t manhattan(const struct astar *s, uint32_t a, uint32_t b)
{
	int64_t ax = a % s->width, ay = a / s->width, bx = b % s->width, by = b / s->width;

	return (uint32_t)(llabs(ax - bx) + llabs(ay - by));
}

/* The neighbour of cell in direction d, or -1 off the grid. */
static int64_t neighbour(const struct astar *s, uint32_t cell, int d)
{
	int64_t x = (int64_t)(cell % s->width) + dx[d], y = (int64_t)(cell / s->width) + dy[d];

	if (x < 0 || y < 0 || x >= s->width || y >= s->height)
		return -1;
	return y * s->width + x;
}

static void relax(struct astar *s, uint32_t from, int d, uint32_t goal, uint32_t stamp, int heuristic)
{
	int64_t nb = neighbour(s, from, d);
	struct cell *n;
	uint32_t g;

	if (nb < 0 || !s->cells[nb].cost)
		return;
	n = &s->cells[nb];
	g = s->cells[from].g + n->cost;
	if (n->stamp == stamp && (n->flags & CLOSED || g >= n->g))
		return;
	n->stamp = stamp;
	n->g = g;
	n->flags = (uint8_t)d;
	heap_push(s, (uint64_t)(g + (heuristic ? manhattan(s, (uint32_t)nb, goal) : 0)) << 32 | (uint64_t)nb);
}

/* The cost of the cheapest path, NOT_FOUND if none within the limit. */
static uint32_t search(struct astar *s, const struct query *q, uint32_t stamp, int heuristic)
{
	uint64_t expanded = 0, last_f = 0;
	struct cell *start = &s->cells[q->start];

	s->nr = 0;
	start->stamp = stamp;
	start->g = 0;
	start->flags = 0;
	heap_push(s, (uint64_t)(heuristic ? manhattan(s, q->start, q->goal) : 0) << 32 | q->start);
	while (s->nr && expanded < EXPANSION_LIMIT) {
		uint64_t e = heap_pop(s);
		uint32_t idx = (uint32_t)e;
		struct cell *c = &s->cells[idx];

		if (c->flags & CLOSED)
			continue;          /* a stale entry: this cell was reached cheaper */
		s->backwards += (e >> 32) < last_f;
		last_f = e >> 32;
		c->flags |= CLOSED;
		expanded++;
		if (idx == q->goal)
			break;
		for (int d = 0; d < 4; d++)
			relax(s, idx, d, q->goal, stamp, heuristic);
	}
	s->expanded += expanded;
	return s->cells[q->goal].stamp == stamp && s->cells[q->goal].flags & CLOSED ? s->cells[q->goal].g
										     : NOT_FOUND;
}

static uint32_t random_open_cell_near(struct astar *s, uint32_t from, uint64_t *rng, int64_t span)
{
	int64_t x = (int64_t)(from % s->width) + (int64_t)rng_below(rng, 2 * span + 1) - span;
	int64_t y = (int64_t)(from / s->width) + (int64_t)rng_below(rng, 2 * span + 1) - span;
	uint32_t cell;

	x = x < 0 ? 0 : x >= s->width ? s->width - 1 : x;
	y = y < 0 ? 0 : y >= s->height ? s->height - 1 : y;
	cell = (uint32_t)(y * s->width + x);
	if (!s->cells[cell].cost)
		s->cells[cell].cost = 1;   /* the endpoints are never walls */
	return cell;
}

static void *astar_setup(struct wl_run *r)
{
	struct astar *s = arena_alloc(r->arena, sizeof(*s), 64);
	uint64_t rng = SEED, nr_cells;

	if (!s)
		return wl_fail(r, "arena too small"), NULL;
	*s = (struct astar){ .cap = 4 * EXPANSION_LIMIT + 8 };
	s->heap = arena_alloc(r->arena, s->cap * sizeof(*s->heap), 64);
	nr_cells = (arena_left(r->arena, 64) - 64) / sizeof(struct cell);
	while ((uint64_t)(s->width + 1) * (s->width + 1) <= nr_cells)
		s->width++;
	s->height = s->width ? (uint32_t)(nr_cells / s->width) : 0;
	s->cells = arena_alloc(r->arena, (size_t)s->width * s->height * sizeof(*s->cells), 64);
	if (!s->heap || !s->cells || s->width < 2 * SPAN)
		return wl_fail(r, "arena too small for a %ux%u grid", s->width, s->height), NULL;
	for (uint64_t i = 0; i < (uint64_t)s->width * s->height; i++)
		s->cells[i] = (struct cell){
			.cost = rng_below(&rng, 100) < WALL_PCT ? 0 : (uint8_t)(1 + rng_below(&rng, 9)),
		};
	for (int q = 0; q < NR_QUERIES; q++) {
		/* The Dijkstra-checked ones are short: Dijkstra explores far more. */
		int64_t span = q < CHECKED ? SPAN / 4 : SPAN;
		uint32_t start = random_open_cell_near(s, (uint32_t)rng_below(&rng, (uint64_t)s->width * s->height),
						       &rng, 0);

		s->queries[q].start = start;
		s->queries[q].goal = random_open_cell_near(s, start, &rng, span);
	}
	snprintf(r->shape, sizeof(r->shape), "grid=%ux%u queries=%d span=%d", s->width, s->height,
		 NR_QUERIES, SPAN);
	return s;
}

static void astar_kernel(void *state, struct wl_run *r)
{
	struct astar *s = state;

	for (int q = 0; q < NR_QUERIES; q++)
		s->queries[q].cost = search(s, &s->queries[q], (uint32_t)q + 1, 1);
	r->ops = s->expanded;
}

/* Walk the last search's path back from its goal; 0 with why if it is not a path of that cost. */
static int walk_path(struct astar *s, const struct query *q, uint32_t stamp, struct wl_run *r)
{
	uint32_t cell = q->goal, cost = 0;

	for (uint64_t steps = 0; cell != q->start; steps++) {
		const struct cell *c = &s->cells[cell];
		int64_t back;

		if (steps > (uint64_t)s->width * s->height || c->stamp != stamp || !c->cost)
			return wl_fail(r, "path from the goal breaks at cell %u", cell);
		cost += c->cost;
		/* Reached by a step in direction d: the previous cell lies the opposite way (d ^ 1). */
		back = neighbour(s, cell, (c->flags & 3) ^ 1);
		if (back < 0)
			return wl_fail(r, "path from the goal leaves the grid at cell %u", cell);
		cell = (uint32_t)back;
	}
	if (cost != q->cost)
		return wl_fail(r, "the path costs %u, A* said %u", cost, q->cost);
	return 1;
}

static int astar_check(void *state, struct wl_run *r)
{
	struct astar *s = state;
	const struct query *last = &s->queries[NR_QUERIES - 1];
	uint64_t digest = s->expanded;
	int found = 0;

	if (s->backwards)
		return wl_fail(r, "popped f decreased %" PRIu64 " times", s->backwards);
	if (last->cost != NOT_FOUND && !walk_path(s, last, NR_QUERIES, r))
		return 0;
	for (int q = 0; q < NR_QUERIES; q++) {
		const struct query *qq = &s->queries[q];

		found += qq->cost != NOT_FOUND;
		if (qq->cost != NOT_FOUND && qq->cost < manhattan(s, qq->start, qq->goal))
			return wl_fail(r, "query %d: cost %u below the distance %u", q, qq->cost,
				       manhattan(s, qq->start, qq->goal));
		digest = mix(digest, qq->cost);
	}
	for (int q = 0; q < CHECKED; q++) {
		uint32_t dijkstra = search(s, &s->queries[q], NR_QUERIES + 1 + (uint32_t)q, 0);

		if (dijkstra != s->queries[q].cost)
			return wl_fail(r, "query %d: A* cost %u, Dijkstra %u", q, s->queries[q].cost, dijkstra);
	}
	if (s->backwards)
		return wl_fail(r, "popped f decreased %" PRIu64 " times under Dijkstra", s->backwards);
	if (!found)
		return wl_fail(r, "no query found a path");
	r->checksum = digest;
	return 1;
}

const struct workload wl_astar = { "astar", astar_setup, astar_kernel, astar_check };
