/*
 * The window search for an index's last written slot (ss_index_tail_*, fmt/index.h),
 * which the scanner's fast path runs over every .index and .timeindex: against a brute
 * force answer for every prefix length of files of many sizes and window sizes, its read
 * count, and a file that shrinks while it is read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/endian.h"
#include "fmt/index.h"

/* An index file of nslots slots, the first `used` written, zeros after. */
static uint8_t *make_index(int64_t esz, int64_t nslots, int64_t used)
{
	uint8_t *b = calloc((size_t)(nslots * esz) + 1, 1);
	for (int64_t i = 0; i < used; i++) {
		uint8_t *p = b + i * esz;
		if (esz == SS_OFFSET_ENTRY) {
			ss_put_be32(p, (uint32_t)i * 3);
			ss_put_be32(p + 4, (uint32_t)(i + 1) * 4096);
		} else {
			ss_put_be64(p, 1700000000000ULL + (uint64_t)i);
			ss_put_be32(p + 8, (uint32_t)i * 3);
		}
	}
	return b;
}

/* Run the search over b; returns the number of window reads. */
static int run(struct ss_index_tail *t, const uint8_t *b, int64_t esz, int64_t size, size_t win, int64_t shrink_to)
{
	int reads = 0;
	ss_index_tail_init(t, esz, size, win);
	while (!t->done) {
		int64_t off;
		size_t len;
		ss_index_tail_window(t, &off, &len);
		assert_true(off >= 0 && off + (int64_t)len <= size);
		assert_int_equal(off % esz, 0);
		int64_t got = off + (int64_t)len <= shrink_to ? (int64_t)len : shrink_to > off ? shrink_to - off : 0;
		ss_index_tail_feed(t, b + off, got);
		if (++reads > 64)
			fail_msg("search does not end");
	}
	return reads;
}

static int log2ceil(int64_t n)
{
	int k = 0;
	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

static void check_all(int64_t esz)
{
	static const int64_t sizes[] = { 1, 2, 3, 7, 341, 342, 512, 513, 1000, 1366, 4097 };
	static const size_t wins[] = { 4096, 96, 24, 12, 8 };
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		int64_t n = sizes[si];
		for (size_t wi = 0; wi < sizeof(wins) / sizeof(wins[0]); wi++) {
			int64_t per = (int64_t)wins[wi] / esz;
			if (per < 1)
				per = 1;
			int64_t nwin = (n + per - 1) / per;
			/* every prefix for small files, a spread for large ones */
			int64_t step = n > 600 ? n / 97 : 1;
			for (int64_t used = 0; used <= n; used += (used + step > n && used != n) ? n - used : step) {
				uint8_t *b = make_index(esz, n, used);
				struct ss_index_tail t;
				int reads = run(&t, b, esz, n * esz, wins[wi], INT64_MAX);
				if (t.best != used - 1)
					fail_msg("esz %lld n %lld win %zu used %lld: best %lld", (long long)esz, (long long)n,
						 wins[wi], (long long)used, (long long)t.best);
				if (used > 0) {
					if (esz == SS_OFFSET_ENTRY) {
						assert_int_equal(t.offset.rel, (used - 1) * 3);
						assert_int_equal(t.offset.pos, used * 4096);
					} else {
						assert_int_equal(t.time.ts, 1700000000000LL + used - 1);
						assert_int_equal(t.time.rel, (used - 1) * 3);
					}
				}
				/* a closed index (its last window holds an entry) costs one read */
				if (used > (nwin - 1) * per)
					assert_int_equal(reads, 1);
				else
					assert_true(reads <= 1 + log2ceil(nwin) + 1);
				free(b);
				if (used == n)
					break;
			}
		}
	}
}

static void test_offset_index(void **state) { check_all(SS_OFFSET_ENTRY); }
static void test_time_index(void **state) { check_all(SS_TIME_ENTRY); }

static void test_empty_and_partial(void **state)
{
	struct ss_index_tail t;
	ss_index_tail_init(&t, SS_OFFSET_ENTRY, 0, 4096);
	assert_true(t.done);
	assert_int_equal(t.best, -1);
	ss_index_tail_init(&t, SS_TIME_ENTRY, 11, 4096);  /* less than one slot */
	assert_true(t.done);
	/* a trailing partial slot is not a slot */
	uint8_t *b = make_index(SS_OFFSET_ENTRY, 10, 10);
	assert_int_equal(run(&t, b, SS_OFFSET_ENTRY, 10 * 8 + 5, 4096, INT64_MAX), 1);
	assert_int_equal(t.best, 9);
	free(b);
}

/* The file shrank between fstat and the reads: short reads, never a slot past them. */
static void test_shrinking_file(void **state)
{
	for (int64_t shrink = 0; shrink <= 2000 * 8; shrink += 8 * 37) {
		uint8_t *b = make_index(SS_OFFSET_ENTRY, 2000, 1500);
		struct ss_index_tail t;
		run(&t, b, SS_OFFSET_ENTRY, 2000 * 8, 512, shrink);
		assert_true(t.best < 1500);
		assert_true(t.best < shrink / 8);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset_index),
		cmocka_unit_test(test_time_index),
		cmocka_unit_test(test_empty_and_partial),
		cmocka_unit_test(test_shrinking_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
