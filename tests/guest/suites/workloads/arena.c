/*
 * arena: one anonymous mapping per run, so one mbind() and one madvise()
 * decide where every byte of a workload's data lives.
 *
 * The mapping is made align bytes larger, then trimmed to an aligned start
 * and end: the arena is exactly one VMA whose huge-page-sized pieces line
 * up with PMDs, so THP can back all of it and smaps finds it by its start.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "ktap.h"
#include "workloads.h"

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

int arena_map(struct arena *a, size_t size, size_t align)
{
	size_t page = (size_t)page_size();
	size_t len, head, tail;
	char *map, *base;

	if (align < page)
		align = page;
	size = round_up(size, page);
	len = size + align;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -1;
	base = (char *)round_up((uintptr_t)map, align);
	head = (size_t)(base - map);
	tail = len - head - size;
	if ((head && munmap(map, head)) || (tail && munmap(base + size, tail))) {
		int saved = errno;

		munmap(map, len);
		errno = saved;
		return -1;
	}
	a->base = base;
	a->size = size;
	a->align = align;
	a->used = 0;
	return 0;
}

void arena_unmap(struct arena *a)
{
	if (a->base)
		munmap(a->base, a->size);
	a->base = NULL;
}

void *arena_alloc(struct arena *a, size_t bytes, size_t align)
{
	size_t start = round_up(a->used, align);

	if (start > a->size || bytes > a->size - start)
		return NULL;
	a->used = start + bytes;
	return a->base + start;
}

size_t arena_left(const struct arena *a, size_t align)
{
	size_t start = round_up(a->used, align);

	return start >= a->size ? 0 : a->size - start;
}

void arena_reset(struct arena *a)
{
	a->used = 0;
}
