/* Offset and time index tails (docs/kafka-format.md §3): written slots at the front,
 * preallocated zero slots after them, a trailing partial slot ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/index.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static void put64(uint8_t *p, int64_t v)
{
	put32(p, (uint32_t)((uint64_t)v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* n entries (rel = 10*(i+1), pos = 4100*(i+1)) then zero slots up to `slots`. */
static uint8_t *offset_index(size_t n, size_t slots, size_t extra)
{
	uint8_t *b = calloc(1, slots * SS_OFFSET_ENTRY + extra);
	for (size_t i = 0; i < n; i++) {
		put32(b + i * 8, (uint32_t)(10 * (i + 1)));
		put32(b + i * 8 + 4, (uint32_t)(4100 * (i + 1)));
	}
	return b;
}

static uint8_t *time_index(size_t n, size_t slots, size_t extra)
{
	uint8_t *b = calloc(1, slots * SS_TIME_ENTRY + extra);
	for (size_t i = 0; i < n; i++) {
		put64(b + i * 12, 1700000000000LL + 1000 * (int64_t)i);
		put32(b + i * 12 + 8, (uint32_t)(10 * i)); /* the first may have rel 0 */
	}
	return b;
}

static void test_offset_entry_decode(void **state)
{
	uint8_t b[8] = { 0x00, 0x01, 0x02, 0x03, 0x7f, 0xff, 0xff, 0xfe };
	struct ss_offset_entry e = ss_offset_entry_at(b);
	assert_int_equal(e.rel, 0x00010203);
	assert_int_equal(e.pos, 0x7ffffffe);
	assert_true(ss_offset_slot_used(e));
	uint8_t z[8] = { 0 };
	assert_false(ss_offset_slot_used(ss_offset_entry_at(z)));
}

static void test_offset_zero_tail(void **state)
{
	/* a preallocated index: 1000 slots, 37 written */
	uint8_t *b = offset_index(37, 1000, 0);
	struct ss_offset_entry e = { -1, -1 };
	assert_int_equal(ss_offset_index_last(b, 1000 * 8, 0, &e), 36);
	assert_int_equal(e.rel, 370);
	assert_int_equal(e.pos, 4100 * 37);
	/* the same bytes read from slot 500 on (a tail read): nothing used in them */
	assert_int_equal(ss_offset_index_last(b + 500 * 8, 500 * 8, 500, &e), -1);
	/* a window [20, 60) of the file, numbered in file slots */
	assert_int_equal(ss_offset_index_last(b + 20 * 8, 40 * 8, 20, &e), 36);
	assert_int_equal(e.rel, 370);
	free(b);
}

static void test_offset_full_and_empty(void **state)
{
	uint8_t *b = offset_index(64, 64, 0);
	struct ss_offset_entry e;
	assert_int_equal(ss_offset_index_last(b, 64 * 8, 0, &e), 63);
	assert_int_equal(e.rel, 640);
	free(b);
	b = offset_index(0, 64, 0);
	e.rel = 123;
	assert_int_equal(ss_offset_index_last(b, 64 * 8, 0, &e), -1);
	assert_int_equal(e.rel, 123); /* untouched when nothing is found */
	assert_int_equal(ss_offset_index_last(b, 0, 0, &e), -1);
	assert_int_equal(ss_offset_index_last(NULL, 0, 0, &e), -1);
	free(b);
	/* one entry only; NULL entry pointer allowed */
	b = offset_index(1, 8, 0);
	assert_int_equal(ss_offset_index_last(b, 64, 0, NULL), 0);
	free(b);
}

static void test_offset_partial_slot(void **state)
{
	/* 10 written slots then 5 bytes of an 11th: the partial slot is ignored even when
	 * it holds non-zero bytes */
	uint8_t *b = offset_index(10, 11, 0);
	memset(b + 10 * 8, 0x7f, 5);
	struct ss_offset_entry e;
	assert_int_equal(ss_offset_index_last(b, 10 * 8 + 5, 0, &e), 9);
	assert_int_equal(e.rel, 100);
	/* 7 bytes only: not even one slot */
	assert_int_equal(ss_offset_index_last(b, 7, 0, &e), -1);
	free(b);
}

static void test_time_zero_tail(void **state)
{
	uint8_t *b = time_index(5, 873, 0);
	struct ss_time_entry e = { 0, 0 };
	assert_int_equal(ss_time_index_last(b, 873 * 12, 0, &e), 4);
	assert_int_equal(e.ts, 1700000000000LL + 4000);
	assert_int_equal(e.rel, 40);
	/* slot 0 may legitimately have rel 0: it is used because its timestamp is not 0 */
	assert_int_equal(ss_time_index_last(b, 12, 0, &e), 0);
	assert_int_equal(e.rel, 0);
	assert_int_equal(ss_time_index_last(b + 5 * 12, 100 * 12, 5, &e), -1);
	free(b);
}

static void test_time_full_partial(void **state)
{
	uint8_t *b = time_index(50, 50, 11);
	memset(b + 50 * 12, 0x55, 11);
	struct ss_time_entry e;
	assert_int_equal(ss_time_index_last(b, 50 * 12 + 11, 1000, &e), 1049);
	assert_int_equal(e.ts, 1700000000000LL + 49000);
	assert_int_equal(e.rel, 490);
	free(b);
	b = time_index(0, 10, 0);
	assert_int_equal(ss_time_index_last(b, 120, 0, &e), -1);
	free(b);
	/* a slot with ts 0 but rel != 0 is not the (0, 0) empty slot */
	uint8_t s[12] = { 0 };
	put32(s + 8, 3);
	assert_int_equal(ss_time_index_last(s, 12, 7, &e), 7);
	assert_int_equal(e.ts, 0);
	assert_int_equal(e.rel, 3);
	/* big-endian int64 timestamp with the high half set */
	put64(s, (int64_t)0x0102030405060708LL);
	assert_int_equal(ss_time_index_last(s, 12, 0, &e), 0);
	assert_int_equal(e.ts, 0x0102030405060708LL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset_entry_decode),
		cmocka_unit_test(test_offset_zero_tail),
		cmocka_unit_test(test_offset_full_and_empty),
		cmocka_unit_test(test_offset_partial_slot),
		cmocka_unit_test(test_time_zero_tail),
		cmocka_unit_test(test_time_full_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
