/* Per-worker arenas on jemalloc's non-standard API, or plain malloc without it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sched/arena.h"

#ifndef SS_NO_JEMALLOC

#include <jemalloc/jemalloc.h>

bool ss_arena_enabled(void)
{
	return true;
}

int ss_arena_create(unsigned *arena)
{
	unsigned a;
	size_t sz = sizeof(a);
	int err = mallctl("arenas.create", &a, &sz, NULL, 0);
	if (err)
		return -err; /* mallctl returns a positive errno */
	*arena = a;
	return 0;
}

int ss_arena_destroy(unsigned arena)
{
	char name[64];
	/* jemalloc refuses the automatic arenas: only those from arenas.create can go */
	snprintf(name, sizeof(name), "arena.%u.destroy", arena);
	int err = mallctl(name, NULL, NULL, NULL, 0);
	return -err;
}

void *ss_arena_alloc(unsigned arena, size_t n)
{
	/* mallocx's behaviour for size 0 is undefined */
	return mallocx(n ? n : 1, MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE);
}

void ss_arena_free(void *p)
{
	if (p)
		dallocx(p, MALLOCX_TCACHE_NONE);
}

int ss_arena_of(const void *p, unsigned *arena)
{
	unsigned a;
	size_t sz = sizeof(a);
	int err = mallctl("arenas.lookup", &a, &sz, &p, sizeof(p));
	if (err)
		return -err;
	*arena = a;
	return 0;
}

#else /* SS_NO_JEMALLOC */

bool ss_arena_enabled(void)
{
	return false;
}

int ss_arena_create(unsigned *arena)
{
	*arena = 0;
	return 0;
}

int ss_arena_destroy(unsigned arena)
{
	return 0;
}

void *ss_arena_alloc(unsigned arena, size_t n)
{
	return malloc(n ? n : 1);
}

void ss_arena_free(void *p)
{
	free(p);
}

int ss_arena_of(const void *p, unsigned *arena)
{
	return -ENOTSUP;
}

#endif
