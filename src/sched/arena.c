/*
 * Per-worker arenas on jemalloc's non-standard API when the process has jemalloc, plain
 * malloc otherwise.
 *
 * The library does not link jemalloc (libsegscan.so has no DT_NEEDED on it, segscan.pc
 * does not require it): an embedder keeps the allocator it chose. mallctl, mallocx and
 * dallocx are weak references instead. In a process that has jemalloc in its global
 * symbol scope (the segscan binary links it; an embedder may link or LD_PRELOAD it) the
 * dynamic linker binds them to jemalloc's; otherwise they stay NULL and every call here
 * takes the malloc path. A static link against libsegscan.a does the same: with
 * -ljemalloc on the link line the references resolve, without it they are NULL.
 *
 * Why mixing allocators cannot happen:
 * - A block from ss_arena_alloc is only ever given back through ss_arena_free (the task
 *   buffers of scan/task.c; nothing else takes them), which pairs mallocx with dallocx of
 *   the same jemalloc and malloc with free. Whether malloc/free are themselves jemalloc's
 *   does not matter: a jemalloc that is in the process but is not its malloc (another
 *   allocator interposed first) still owns every block it handed out through mallocx.
 * - The choice is made from facts fixed when the library is loaded (where the weak
 *   references were bound), so it is the same for the alloc and the free of a block.
 *   A jemalloc dlopen'd later (RTLD_GLOBAL or not) is never used: the references were
 *   bound, to NULL, before it came.
 * - All three symbols must be there and come from one object (dladdr): a process whose
 *   "mallctl" is some other library's function, or that has only part of the API, gets
 *   the malloc path. A jemalloc built with a prefix (je_mallctl, as some embedders vendor
 *   it) exports none of these names and is not used.
 * -DSS_NO_JEMALLOC (the ASan and TSan builds, where jemalloc would fight the sanitizer's
 * allocator) compiles the references out: always malloc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/arena.h"

#ifndef SS_NO_JEMALLOC

/* jemalloc's declarations (jemalloc/jemalloc.h of 4.x and 5.x, unprefixed), weak: see the
 * top of the file. The flag encodings are jemalloc's ABI, the same in 4.0 through 5.3
 * (tests/test_arena.c checks the arena one through jemalloc's arenas.lookup). */
int   mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));
void *mallocx(size_t size, int flags) __attribute__((weak));
void  dallocx(void *ptr, int flags) __attribute__((weak));

#define SS_MALLOCX_ARENA(a)     ((((int)(a)) + 1) << 20)
#define SS_MALLOCX_TCACHE_NONE  ((int)(((-1) + 2) << 8))

/* 1 jemalloc, 0 malloc, -1 not decided yet. Deciding twice gives the same answer (the
 * inputs are fixed at load time), so a race between two first callers is harmless. */
static int g_je = -1;

static bool same_object(const void *a, const void *b)
{
	Dl_info ia, ib;
	if (!dladdr(a, &ia) || !dladdr(b, &ib) || !ia.dli_fname || !ib.dli_fname)
		return false;
	return ia.dli_fbase == ib.dli_fbase;
}

static bool use_je(void)
{
	int v = __atomic_load_n(&g_je, __ATOMIC_ACQUIRE);
	if (v >= 0)
		return v;
	v = 0;
	/* function to object pointers for dladdr, without the pedantic cast */
	void *mc, *mx, *dx;
	int (*mcf)(const char *, void *, size_t *, void *, size_t) = mallctl;
	void *(*mxf)(size_t, int) = mallocx;
	void (*dxf)(void *, int) = dallocx;
	memcpy(&mc, &mcf, sizeof(mc));
	memcpy(&mx, &mxf, sizeof(mx));
	memcpy(&dx, &dxf, sizeof(dx));
	if (mc && mx && dx && same_object(mc, mx) && same_object(mc, dx)) {
		/* and it answers as jemalloc does */
		const char *ver = NULL;
		size_t sz = sizeof(ver);
		v = mcf("version", &ver, &sz, NULL, 0) == 0 && ver != NULL;
	}
	__atomic_store_n(&g_je, v, __ATOMIC_RELEASE);
	return v;
}

bool ss_arena_enabled(void)
{
	return use_je();
}

int ss_arena_create(unsigned *arena)
{
	if (!use_je()) {
		*arena = 0;
		return 0;
	}
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
	if (!use_je())
		return 0;
	char name[64];
	/* jemalloc refuses the automatic arenas: only those from arenas.create can go */
	snprintf(name, sizeof(name), "arena.%u.destroy", arena);
	int err = mallctl(name, NULL, NULL, NULL, 0);
	return -err;
}

void *ss_arena_alloc(unsigned arena, size_t n)
{
	if (!use_je())
		return malloc(n ? n : 1);
	/* mallocx's behaviour for size 0 is undefined; freed by ss_arena_free (dallocx) */
	return mallocx(n ? n : 1, SS_MALLOCX_ARENA(arena) | SS_MALLOCX_TCACHE_NONE);
}

void ss_arena_free(void *p)
{
	if (!p)
		return;
	/* the partner of ss_arena_alloc: the same decision, so the same allocator */
	if (use_je())
		dallocx(p, SS_MALLOCX_TCACHE_NONE);
	else
		free(p);
}

void ss_arena_purge_all(void)
{
	if (!use_je())
		return;
	/* "arena.<MALLCTL_ARENAS_ALL>.purge": 4096 is jemalloc's fixed index for all */
	mallctl("arena.4096.purge", NULL, NULL, NULL, 0);
}

int ss_arena_of(const void *p, unsigned *arena)
{
	if (!use_je())
		return -ENOTSUP;
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
	return malloc(n ? n : 1);   /* freed by ss_arena_free */
}

void ss_arena_free(void *p)
{
	free(p);
}

void ss_arena_purge_all(void)
{
}

int ss_arena_of(const void *p, unsigned *arena)
{
	return -ENOTSUP;
}

#endif
