/*
 * The one sorted search, over an array of n elements of `size` bytes sorted by cmp
 * (cmp(elem, key) < 0: elem sorts before key, 0: it is key, > 0: after). Inline, so a
 * comparator the compiler sees is inlined into the loop; every comparison can be counted
 * (work: NULL for none), for callers with a cost model (source/cluster_image.c).
 *
 *   ss_sorted_find   the index of an element equal to key, or -(insertion point) - 1
 *   ss_lower_bound   the first element not before key (n when none)
 */
#ifndef SS_COMMON_SEARCH_H
#define SS_COMMON_SEARCH_H

#include <stddef.h>
#include <stdint.h>

typedef int (*ss_search_cmp)(const void *elem, const void *key);

static inline int64_t ss_sorted_find(const void *base, size_t n, size_t size, ss_search_cmp cmp, const void *key,
				     uint64_t *work)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (work)
			(*work)++;
		int c = cmp((const char *)base + mid * size, key);
		if (c < 0)
			lo = mid + 1;
		else if (c > 0)
			hi = mid;
		else
			return (int64_t)mid;
	}
	return -(int64_t)lo - 1;
}

static inline size_t ss_lower_bound(const void *base, size_t n, size_t size, ss_search_cmp cmp, const void *key,
				    uint64_t *work)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (work)
			(*work)++;
		if (cmp((const char *)base + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
