/*
 * omnetpp-like: a discrete-event simulation's future-event set.
 *
 * omnetpp keeps its scheduled messages in a binary heap ordered by arrival
 * time; the objects are small, numerous and scattered, and each heap step
 * dereferences one to compare times.  Here the arena holds one 64-byte
 * event object per scheduled event (each allocated on its own), a heap of
 * pointers to them and a table of modules.  A kernel step pops the earliest
 * event, lets its module handle it (counting it and folding the event into
 * the module's state), and sends it on: the same object is re-scheduled
 * for a random later time at a random module.  The steps are an eighth
 * of the events: each costs ~40 dependent loads (two per heap level), and
 * under TCG that is ~1 s at the default size.
 *
 * Self-check: simulated time never went backwards (every pop was the
 * minimum), the modules handled exactly as many events as were popped (a
 * linear scan of the module table), the final array is still a heap, and
 * no event was lost.
 */
#include <inttypes.h>
#include <stdio.h>

#include "workloads.h"

#define SEED 0x6f6d6e6574UL        /* "omnet" */
#define EVENTS_PER_MODULE 16
#define EVENTS_PER_STEP 8
#define MAX_DELAY 100000

struct event {
	uint64_t time;
	uint64_t id;               /* breaks ties, so the order is total */
	uint32_t module;
	uint32_t kind;
	uint64_t payload[5];
};

struct module {
	uint64_t handled;
	uint64_t last_time;
	uint64_t state;
	uint64_t pad;
};

struct omnet {
	struct event **heap;
	size_t nr, nr_events;
	struct module *modules;
	size_t nr_modules;
	uint64_t rng, next_id, now, backwards, steps;
};

static int earlier(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->id < b->id);
}

static void push(struct omnet *o, struct event *ev)
{
	size_t i = o->nr++;

	while (i > 0 && earlier(ev, o->heap[(i - 1) / 2])) {
		o->heap[i] = o->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	o->heap[i] = ev;
}

static struct event *pop(struct omnet *o)
{
	struct event *top = o->heap[0], *last = o->heap[--o->nr];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= o->nr)
			break;
		if (child + 1 < o->nr && earlier(o->heap[child + 1], o->heap[child]))
			child++;
		if (!earlier(o->heap[child], last))
			break;
		o->heap[i] = o->heap[child];
		i = child;
	}
	if (o->nr)
		o->heap[i] = last;
	return top;
}

/* Aim the event at a random module, some time after now. */
static void schedule(struct omnet *o, struct event *ev)
{
	ev->time = o->now + 1 + rng_below(&o->rng, MAX_DELAY);
	ev->module = (uint32_t)rng_below(&o->rng, o->nr_modules);
	ev->id = o->next_id++;
	push(o, ev);
}

static void *omnet_setup(struct wl_run *r)
{
	size_t per_event = sizeof(struct event) + sizeof(struct event *) +
			   sizeof(struct module) / EVENTS_PER_MODULE + 1;
	struct omnet *o = arena_alloc(r->arena, sizeof(*o), 64);

	if (!o)
		return wl_fail(r, "arena too small"), NULL;
	*o = (struct omnet){ .rng = SEED };
	o->nr_events = (arena_left(r->arena, 64) - 256) / per_event;
	o->nr_modules = o->nr_events / EVENTS_PER_MODULE;
	o->modules = arena_alloc(r->arena, o->nr_modules * sizeof(*o->modules), 64);
	o->heap = arena_alloc(r->arena, o->nr_events * sizeof(*o->heap), 64);
	if (!o->nr_modules || !o->modules || !o->heap)
		return wl_fail(r, "arena too small for %zu events", o->nr_events), NULL;
	for (size_t i = 0; i < o->nr_modules; i++)
		o->modules[i] = (struct module){ .state = i };
	for (size_t i = 0; i < o->nr_events; i++) {
		struct event *ev = arena_alloc(r->arena, sizeof(*ev), 8);

		if (!ev)
			return wl_fail(r, "arena full after %zu events", i), NULL;
		*ev = (struct event){ .kind = (uint32_t)(i % 4), .payload = { i } };
		schedule(o, ev);
	}
	snprintf(r->shape, sizeof(r->shape), "events=%zu modules=%zu steps=%zu", o->nr_events,
		 o->nr_modules, o->nr_events / EVENTS_PER_STEP);
	return o;
}

static void omnet_kernel(void *state, struct wl_run *r)
{
	struct omnet *o = state;
	uint64_t steps = o->nr_events / EVENTS_PER_STEP;

	for (uint64_t s = 0; s < steps; s++) {
		struct event *ev = pop(o);
		struct module *m = &o->modules[ev->module];

		o->backwards += ev->time < o->now;
		o->now = ev->time;
		m->handled++;
		m->last_time = o->now;
		m->state = mix(m->state, ev->id ^ ev->payload[0]);
		ev->payload[0] = m->state;
		schedule(o, ev);
		o->steps++;
	}
	r->ops = o->steps;
}

static int omnet_check(void *state, struct wl_run *r)
{
	struct omnet *o = state;
	uint64_t handled = 0, digest = o->now;

	if (o->backwards)
		return wl_fail(r, "simulated time went backwards %" PRIu64 " times", o->backwards);
	if (o->nr != o->nr_events)
		return wl_fail(r, "%zu events scheduled, want %zu", o->nr, o->nr_events);
	for (size_t i = 1; i < o->nr; i++)
		if (earlier(o->heap[i], o->heap[(i - 1) / 2]))
			return wl_fail(r, "heap order broken at %zu", i);
	for (size_t i = 0; i < o->nr_modules; i++) {
		handled += o->modules[i].handled;
		digest = mix(digest, o->modules[i].state);
	}
	if (handled != o->steps)
		return wl_fail(r, "modules handled %" PRIu64 " events, %" PRIu64 " were popped", handled,
			       o->steps);
	r->checksum = digest;
	return 1;
}

const struct workload wl_omnetpp = { "omnetpp", omnet_setup, omnet_kernel, omnet_check };
