/* CRC-32C: both implementations against published check values, an independent
 * bit-at-a-time reference, each other, and CRCs written by other Kafka encoders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/crc32c.h"
#include "testref.h"
#include "testutil.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint8_t rnd8(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 24);
}

static void check_known(crc_fn f)
{
	uint8_t b[32];
	assert_int_equal(f(0, "123456789", 9), 0xE3069283u); /* docs/kafka-format.md §2.3 */
	assert_int_equal(f(0, "", 0), 0);
	/* RFC 3720 (iSCSI) B.4 test vectors */
	memset(b, 0, sizeof b);
	assert_int_equal(f(0, b, 32), 0x8A9136AAu);
	memset(b, 0xff, sizeof b);
	assert_int_equal(f(0, b, 32), 0x62A8AB43u);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(f(0, b, 32), 0x46DD794Eu);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)(31 - i);
	assert_int_equal(f(0, b, 32), 0x113FDB5Cu);
}

static void test_check_values_sw(void **state)
{
	check_known(ss_crc32c_sw);
}

static void test_check_values_hw(void **state)
{
	if (!ss_crc32c_hw_available())
		skip();
	check_known(ss_crc32c_hw);
}

static void test_check_values_dispatch(void **state)
{
	check_known(ss_crc32c);
}

/* Every length 0..4096 at every misalignment 0..7: sw == hw, and (sampled) == reference. */
static void test_sw_hw_all_lengths_alignments(void **state)
{
	enum { MAXLEN = 4096 };
	uint8_t *buf = malloc(MAXLEN + 16);
	assert_non_null(buf);
	for (size_t i = 0; i < MAXLEN + 16; i++)
		buf[i] = rnd8();
	bool hw = ss_crc32c_hw_available();
	for (size_t mis = 0; mis < 8; mis++) {
		for (size_t len = 0; len <= MAXLEN; len++) {
			const uint8_t *p = buf + mis;
			uint32_t s = ss_crc32c_sw(0, p, len);
			if (hw)
				assert_int_equal(s, ss_crc32c_hw(0, p, len));
			assert_int_equal(s, ss_crc32c(0, p, len));
			if (len < 64 || len % 61 == 0 || len == MAXLEN)
				assert_int_equal(s, ref_crc32c(p, len));
		}
	}
	free(buf);
}

/* Buffers long enough for the 3-way interleaved blocks (3 x 8192 and 3 x 256), with
 * every misalignment and lengths straddling the block thresholds. */
static void test_long_buffers(void **state)
{
	const size_t lens[] = { 767, 768, 769, 24575, 24576, 24577, 24576 + 768 + 7,
				3 * 24576 + 3 * 768 + 13, 200001 };
	size_t max = 200001 + 16;
	uint8_t *buf = malloc(max);
	assert_non_null(buf);
	for (size_t i = 0; i < max; i++)
		buf[i] = rnd8();
	for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
		for (size_t mis = 0; mis < 16; mis += 3) {
			uint32_t r = ref_crc32c(buf + mis, lens[li]);
			assert_int_equal(ss_crc32c_sw(0, buf + mis, lens[li]), r);
			if (ss_crc32c_hw_available())
				assert_int_equal(ss_crc32c_hw(0, buf + mis, lens[li]), r);
			assert_int_equal(ss_crc32c(0, buf + mis, lens[li]), r);
		}
	}
	free(buf);
}

/* crc(a || b) == crc(crc(a), b) for every split point, in both implementations. */
static void test_chaining(void **state)
{
	uint8_t buf[3000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = rnd8();
	uint32_t whole = ref_crc32c(buf, sizeof buf);
	for (size_t cut = 0; cut <= sizeof buf; cut += 7) {
		assert_int_equal(ss_crc32c_sw(ss_crc32c_sw(0, buf, cut), buf + cut, sizeof buf - cut), whole);
		assert_int_equal(ss_crc32c(ss_crc32c(0, buf, cut), buf + cut, sizeof buf - cut), whole);
		if (ss_crc32c_hw_available())
			assert_int_equal(ss_crc32c_hw(ss_crc32c_hw(0, buf, cut), buf + cut, sizeof buf - cut), whole);
	}
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The hand-built batch of docs/kafka-format.md §2.9 and the v2 batches kafka-python wrote
 * (tests/vectors): the stored CRC covers [21, end). */
static void test_kafka_batches(void **state)
{
	static const uint8_t ex[70] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x00, 0x00,
		0x00, 0x00, 0x02, 0xbb, 0xcc, 0x41, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68,
		0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00, 0x01, 0x04, 0x68, 0x69, 0x00,
	};
	assert_int_equal(ss_crc32c(0, ex + 21, sizeof ex - 21), 0xbbcc4115u);
	assert_int_equal(ss_crc32c_sw(0, ex + 21, sizeof ex - 21), 0xbbcc4115u);

	size_t len;
	uint8_t *seg = (uint8_t *)tu_read_file("tests/vectors/segment.bin", &len);
	assert_non_null(seg);
	int v2 = 0;
	for (size_t pos = 0; pos + 17 <= len;) {
		size_t size = be32(seg + pos + 8) + 12;
		assert_true(pos + size <= len);
		if (seg[pos + 16] == 2) {
			assert_int_equal(ss_crc32c(0, seg + pos + 21, size - 21), be32(seg + pos + 17));
			assert_int_equal(ss_crc32c_sw(0, seg + pos + 21, size - 21), be32(seg + pos + 17));
			v2++;
		}
		pos += size;
	}
	assert_true(v2 >= 5);
	free(seg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_values_sw),
		cmocka_unit_test(test_check_values_hw),
		cmocka_unit_test(test_check_values_dispatch),
		cmocka_unit_test(test_sw_hw_all_lengths_alignments),
		cmocka_unit_test(test_long_buffers),
		cmocka_unit_test(test_chaining),
		cmocka_unit_test(test_kafka_batches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
