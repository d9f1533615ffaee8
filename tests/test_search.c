/* common/search.h, the one sorted search: against a linear scan over every small sorted
 * array with duplicates (every length 0..40, keys below, between, on and above the
 * elements), and its comparison count (the cost model source/cluster_image.c charges). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/search.h"

static int cmp_int(const void *elem, const void *key)
{
	int a = *(const int *)elem, b = *(const int *)key;
	return a < b ? -1 : a > b;
}

/* arrays of n ints, values 2*i/dup (so runs of `dup` equal elements, gaps between runs) */
static void fill(int *a, size_t n, size_t dup)
{
	for (size_t i = 0; i < n; i++)
		a[i] = (int)(2 * (i / dup));
}

static void test_lower_bound_matches_scan(void **state)
{
	(void)state;
	int a[40];
	for (size_t dup = 1; dup <= 3; dup++)
		for (size_t n = 0; n <= 40; n++) {
			fill(a, n, dup);
			for (int key = -1; key <= (int)(2 * n + 1); key++) {
				size_t want = 0;
				while (want < n && a[want] < key)
					want++;
				uint64_t work = 0;
				size_t got = ss_lower_bound(a, n, sizeof(*a), cmp_int, &key, &work);
				if (got != want)
					fail_msg("lower bound of %d in %zu elements (runs of %zu): %zu, want %zu", key, n,
						 dup, got, want);
				/* a binary search: at most floor(log2 n) + 1 comparisons */
				uint64_t bound = 0;
				for (size_t m = n; m; m >>= 1)
					bound++;
				assert_true(work <= bound);
				assert_int_equal(ss_lower_bound(a, n, sizeof(*a), cmp_int, &key, NULL), want);
			}
		}
}

static void test_sorted_find_matches_scan(void **state)
{
	(void)state;
	int a[40];
	for (size_t dup = 1; dup <= 3; dup++)
		for (size_t n = 0; n <= 40; n++) {
			fill(a, n, dup);
			for (int key = -1; key <= (int)(2 * n + 1); key++) {
				size_t ins = 0;
				while (ins < n && a[ins] < key)
					ins++;
				bool present = ins < n && a[ins] == key;
				int64_t got = ss_sorted_find(a, n, sizeof(*a), cmp_int, &key, NULL);
				if (present) {
					/* any of the equal elements: it is key */
					if (got < 0 || (size_t)got >= n || a[got] != key)
						fail_msg("find %d in %zu elements (runs of %zu): %lld", key, n, dup,
							 (long long)got);
				} else if (got != -(int64_t)ins - 1) {
					fail_msg("find absent %d in %zu elements (runs of %zu): %lld, want %lld", key, n,
						 dup, (long long)got, -(long long)ins - 1);
				}
			}
		}
}

/* Elements wider than the key, found by a field: the stride is `size`, not the key's. */
struct wide {
	char    pad[13];
	int32_t id;
};

static int cmp_wide(const void *elem, const void *key)
{
	int32_t a = ((const struct wide *)elem)->id, b = *(const int32_t *)key;
	return a < b ? -1 : a > b;
}

static void test_stride(void **state)
{
	(void)state;
	struct wide w[7];
	for (int i = 0; i < 7; i++)
		w[i].id = 10 * i;
	for (int32_t id = 0; id <= 60; id += 10) {
		int64_t at = ss_sorted_find(w, 7, sizeof(*w), cmp_wide, &id, NULL);
		assert_int_equal(at, id / 10);
	}
	int32_t k = 35;
	assert_int_equal(ss_sorted_find(w, 7, sizeof(*w), cmp_wide, &k, NULL), -4 - 1);
	assert_int_equal(ss_lower_bound(w, 7, sizeof(*w), cmp_wide, &k, NULL), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lower_bound_matches_scan),
		cmocka_unit_test(test_sorted_find_matches_scan),
		cmocka_unit_test(test_stride),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
