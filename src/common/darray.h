/*
 * One growable array for the whole tree (after bfs's darray): a plain pointer plus a
 * count and a capacity kept by the caller, grown geometrically.
 *
 *   struct thing *v = NULL; uint32_t n = 0, cap = 0;
 *   struct thing *slot;
 *   if ((r = SS_DA_PUSH(&v, &n, &cap, &slot)) < 0) goto fail;   // slot = &v[n - 1]
 *   ...
 *   free(v);
 *
 * Counts are uint32_t (the catalog's index type); growth past UINT32_MAX / 2 elements or
 * past SIZE_MAX bytes is -ENOMEM, never a wrapped size.
 */
#ifndef SS_COMMON_DARRAY_H
#define SS_COMMON_DARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Make room for `need` elements of `elem` bytes in *arr (capacity *cap). 0 or -ENOMEM;
 * on failure *arr and *cap are unchanged. */
static inline int ss_da_reserve(void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX / 2)
		return -ENOMEM;
	/* from what is asked, not a fixed 8: most evaluations hold one finding (64 bytes),
	 * and a million-partition scan holds them all at once */
	uint64_t ncap = *cap ? *cap : need < 4 ? need : 4;
	while (ncap < need)
		ncap *= 2;
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	void *n = realloc(*arr, (size_t)ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = (uint32_t)ncap;
	return 0;
}

/* Append one zeroed element; *slot points at it. 0 or -ENOMEM (nothing changed). */
static inline int ss_da_push(void **arr, uint32_t *n, uint32_t *cap, size_t elem, void **slot)
{
	int r = ss_da_reserve(arr, cap, (uint64_t)*n + 1, elem);
	if (r < 0)
		return r;
	void *s = (char *)*arr + (size_t)*n * elem;
	memset(s, 0, elem);
	(*n)++;
	if (slot)
		*slot = s;
	return 0;
}

/* Typed faces: ARR is `T **`, N and CAP `uint32_t *`, SLOT `T **` (or NULL). */
#define SS_DA_RESERVE(ARR, CAP, NEED) \
	ss_da_reserve((void **)(ARR), (CAP), (NEED), sizeof(**(ARR)))
#define SS_DA_PUSH(ARR, N, CAP, SLOT) \
	ss_da_push((void **)(ARR), (N), (CAP), sizeof(**(ARR)), (void **)(SLOT))

#endif
