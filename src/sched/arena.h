/*
 * Per-worker jemalloc arenas. Each worker allocates its buffers from its own arena so
 * that workers never contend on an arena lock, and, since a pinned worker is the first
 * to touch its arena's pages, those pages land on the worker's NUMA node.
 *
 * Used only when the process has jemalloc (the segscan binary links it; the library does
 * not, so an embedder keeps its own allocator): jemalloc's API is reached through weak
 * references, and without it every call falls back to malloc/free and arena 0 (arena.c
 * says why the two never mix). Built with -DSS_NO_JEMALLOC (the ASan/TSan builds, where
 * jemalloc would fight the sanitizer's allocator) the fallback is the only path.
 */
#ifndef SS_SCHED_ARENA_H
#define SS_SCHED_ARENA_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this process allocates from real jemalloc arenas (decided once, the same
 * answer for the process's lifetime). */
bool  ss_arena_enabled(void);

/* A new arena ("arenas.create"). 0 or -errno; fallback: *arena = 0. */
int   ss_arena_create(unsigned *arena);
/* Give an arena back ("arena.<i>.destroy"): every allocation still in it is discarded,
 * so free or abandon them all first; its index may be reused by a later create.
 * 0 or -errno; fallback: no-op. */
int   ss_arena_destroy(unsigned arena);

/* n bytes (n == 0 gives a unique minimal block) from the arena, bypassing the thread
 * cache so that the block really comes from that arena and a free never parks it in
 * another thread's cache. NULL when out of memory. */
void *ss_arena_alloc(unsigned arena, size_t n);
/* Free a block from ss_arena_alloc (NULL is a no-op). Any thread may free. */
void  ss_arena_free(void *p);

/* Return every arena's freed (dirty) pages to the system now, not after jemalloc's
 * decay: what a large array's doubling left behind. Fallback: no-op (glibc moves large
 * blocks with mremap, leaving nothing behind). */
void  ss_arena_purge_all(void);

/* The arena a live block belongs to ("arenas.lookup"). 0, -errno; -ENOTSUP in the
 * fallback build. */
int   ss_arena_of(const void *p, unsigned *arena);

#endif /* SS_SCHED_ARENA_H */
