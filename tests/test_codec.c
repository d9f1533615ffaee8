/* Compression codecs: round trips, streams written by independent encoders (kafka-python,
 * python-snappy/lz4/zstandard, the gzip/zstd/lz4 CLIs; tests/vectors/codec), the bomb
 * guard, truncated and garbage input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "fmt/codec.h"
#include "segscan.h"
#include "testutil.h"

#define VDIR "tests/vectors/codec/"

static const enum ss_codec all_codecs[] = { SS_CODEC_NONE, SS_CODEC_GZIP, SS_CODEC_SNAPPY, SS_CODEC_LZ4,
					    SS_CODEC_ZSTD };

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint8_t rnd8(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 24);
}

static uint8_t *load(const char *path, size_t *len)
{
	uint8_t *b = (uint8_t *)tu_read_file(path, len);
	assert_non_null(b);
	return b;
}

static void roundtrip(enum ss_codec c, const uint8_t *src, size_t len)
{
	uint8_t *z = NULL, *d = NULL;
	size_t zl = 0, dl = 0;
	assert_int_equal(ss_codec_compress(c, src, len, &z, &zl), 0);
	assert_non_null(z);
	assert_int_equal(ss_codec_decompress(c, z, zl, &d, &dl, len), 0);
	assert_int_equal(dl, len);
	if (len)
		assert_memory_equal(d, src, len);
	free(d);
	/* exactly one byte less than the plaintext is refused */
	if (len) {
		d = NULL;
		assert_int_equal(ss_codec_decompress(c, z, zl, &d, &dl, len - 1), SEGSCAN_ECODEC);
		assert_null(d);
	}
	free(z);
}

static void test_roundtrip_all(void **state)
{
	size_t plen;
	uint8_t *plain = load(VDIR "plain.txt", &plen);
	size_t rl = 300000;
	uint8_t *rnd = malloc(rl);
	assert_non_null(rnd);
	for (size_t i = 0; i < rl; i++)
		rnd[i] = rnd8();
	for (size_t i = 0; i < sizeof all_codecs / sizeof all_codecs[0]; i++) {
		enum ss_codec c = all_codecs[i];
		roundtrip(c, (const uint8_t *)"", 0);
		roundtrip(c, (const uint8_t *)"x", 1);
		roundtrip(c, plain, plen);
		roundtrip(c, rnd, rl);           /* incompressible, several codec blocks */
		roundtrip(c, rnd, 32768);        /* exactly one xerial block */
		roundtrip(c, rnd, 65536 + 1);    /* one LZ4 block and a byte */
	}
	free(rnd);
	free(plain);
}

/* The framing Kafka expects from each compressor, byte by byte where it is fixed. */
static void test_compressed_framing(void **state)
{
	size_t plen;
	uint8_t *plain = load(VDIR "plain.txt", &plen);
	uint8_t *z;
	size_t zl;

	assert_int_equal(ss_codec_compress(SS_CODEC_SNAPPY, plain, plen, &z, &zl), 0);
	static const uint8_t xerial[16] = { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1 };
	assert_memory_equal(z, xerial, 16);
	/* blocks of at most 32 KiB of input: 100000 bytes -> 4 blocks */
	size_t pos = 16, blocks = 0;
	while (pos < zl) {
		size_t bl = (size_t)z[pos] << 24 | (size_t)z[pos + 1] << 16 | (size_t)z[pos + 2] << 8 | z[pos + 3];
		pos += 4 + bl;
		blocks++;
	}
	assert_int_equal(pos, zl);
	assert_int_equal(blocks, (plen + 32767) / 32768);
	free(z);

	assert_int_equal(ss_codec_compress(SS_CODEC_GZIP, plain, plen, &z, &zl), 0);
	assert_int_equal(z[0], 0x1f);
	assert_int_equal(z[1], 0x8b);
	assert_int_equal(z[2], 8);
	free(z);

	assert_int_equal(ss_codec_compress(SS_CODEC_LZ4, plain, plen, &z, &zl), 0);
	static const uint8_t lz4magic[4] = { 0x04, 0x22, 0x4d, 0x18 };
	assert_memory_equal(z, lz4magic, 4);
	assert_int_equal(z[4] & 0xc0, 0x40);  /* version 01 */
	assert_int_equal(z[4] & 0x20, 0x20);  /* independent blocks */
	assert_int_equal(z[4] & 0x1c, 0);     /* no block/content checksum, no content size */
	assert_int_equal(z[5], 0x40);         /* 64 KiB blocks */
	free(z);

	assert_int_equal(ss_codec_compress(SS_CODEC_ZSTD, plain, plen, &z, &zl), 0);
	static const uint8_t zmagic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	assert_memory_equal(z, zmagic, 4);
	free(z);
	free(plain);
}

/* Streams from other encoders, listed in vectors.json by make_vectors.py. */
static void test_independent_streams(void **state)
{
	size_t plen;
	uint8_t *plain = load(VDIR "plain.txt", &plen);
	json_error_t jerr;
	json_t *root = json_load_file("tests/vectors/vectors.json", 0, &jerr);
	assert_non_null(root);
	json_t *streams = json_object_get(json_object_get(root, "codec"), "streams");
	assert_true(json_is_array(streams));
	assert_true(json_array_size(streams) >= 6);
	size_t i;
	json_t *s;
	int seen[5] = { 0 };
	json_array_foreach(streams, i, s) {
		const char *name = json_string_value(json_object_get(s, "name"));
		enum ss_codec c;
		assert_int_equal(ss_codec_parse(json_string_value(json_object_get(s, "codec")), &c), 0);
		char path[256];
		snprintf(path, sizeof path, VDIR "%s", name);
		size_t zl;
		uint8_t *z = load(path, &zl);
		uint8_t *d = NULL;
		size_t dl;
		int rc = ss_codec_decompress(c, z, zl, &d, &dl, plen);
		if (rc)
			fail_msg("%s: %s", name, segscan_strerror(rc));
		assert_int_equal(dl, plen);
		assert_memory_equal(d, plain, plen);
		free(d);
		/* the bomb guard holds for every encoder's framing */
		assert_int_equal(ss_codec_decompress(c, z, zl, &d, &dl, plen - 1), SEGSCAN_ECODEC);
		free(z);
		seen[c]++;
	}
	/* gzip, snappy, lz4 and zstd are all covered */
	for (int c = 1; c < 5; c++)
		assert_true(seen[c] > 0);
	json_decref(root);
	free(plain);
}

/* 64 MiB of zeros compresses to a few KiB: refused at 1 MiB without producing it all. */
static void test_bomb_guard(void **state)
{
	size_t big = 64u << 20;
	uint8_t *zeros = calloc(1, big);
	assert_non_null(zeros);
	for (size_t i = 1; i < sizeof all_codecs / sizeof all_codecs[0]; i++) {
		uint8_t *z, *d = NULL;
		size_t zl, dl;
		assert_int_equal(ss_codec_compress(all_codecs[i], zeros, big, &z, &zl), 0);
		assert_true(zl < big / 16);
		assert_int_equal(ss_codec_decompress(all_codecs[i], z, zl, &d, &dl, 1u << 20), SEGSCAN_ECODEC);
		assert_null(d);
		assert_int_equal(ss_codec_decompress(all_codecs[i], z, zl, &d, &dl, big), 0);
		assert_int_equal(dl, big);
		assert_true(d[0] == 0 && d[big - 1] == 0 && memcmp(d, d + 1, big - 1) == 0);
		free(d);
		free(z);
	}
	/* a raw snappy block that claims 1 GiB is refused before anything is allocated */
	uint8_t claim[] = { 0x80, 0x80, 0x80, 0x80, 0x04, 0x00 };
	uint8_t *d = NULL;
	size_t dl;
	assert_int_equal(ss_codec_decompress(SS_CODEC_SNAPPY, claim, sizeof claim, &d, &dl, 1u << 20),
			 SEGSCAN_ECODEC);
	free(zeros);
}

/* Every strict prefix of a stream is an error (xerial snappy: or a prefix of the data,
 * since a stream cut between blocks is well formed). */
static void test_truncated(void **state)
{
	size_t plen;
	uint8_t *plain = load(VDIR "plain.txt", &plen);
	size_t n = 20000; /* two xerial blocks worth of text is plenty */
	for (size_t i = 1; i < sizeof all_codecs / sizeof all_codecs[0]; i++) {
		enum ss_codec c = all_codecs[i];
		uint8_t *z;
		size_t zl;
		assert_int_equal(ss_codec_compress(c, plain, n, &z, &zl), 0);
		for (size_t cut = 0; cut < zl; cut += (cut < 64 || zl - cut < 64) ? 1 : 97) {
			uint8_t *t = malloc(cut ? cut : 1); /* exact size: ASan sees any overread */
			memcpy(t, z, cut);
			uint8_t *d = NULL;
			size_t dl = 0;
			int rc = ss_codec_decompress(c, t, cut, &d, &dl, n);
			if (c == SS_CODEC_SNAPPY && rc == 0) {
				assert_true(dl < n);
				assert_memory_equal(d, plain, dl);
			} else if (rc == 0) {
				fail_msg("%s: prefix %zu of %zu decoded", ss_codec_name(c), cut, zl);
			}
			free(d);
			free(t);
		}
		free(z);
	}
	free(plain);
}

static void test_garbage(void **state)
{
	uint8_t buf[4096];
	for (int round = 0; round < 200; round++) {
		size_t len = (size_t)(rnd8() | rnd8() << 4) % sizeof buf;
		for (size_t i = 0; i < len; i++)
			buf[i] = rnd8();
		if (round % 4 == 1 && len > 8) { /* right magic, garbage after it */
			static const uint8_t m[4][8] = { { 0x1f, 0x8b, 8, 0 }, { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0 },
							 { 0x04, 0x22, 0x4d, 0x18 }, { 0x28, 0xb5, 0x2f, 0xfd } };
			memcpy(buf, m[round % 16 / 4], 8);
		}
		for (size_t i = 1; i < sizeof all_codecs / sizeof all_codecs[0]; i++) {
			uint8_t *t = malloc(len ? len : 1);
			memcpy(t, buf, len);
			uint8_t *d = NULL;
			size_t dl;
			int rc = ss_codec_decompress(all_codecs[i], t, len, &d, &dl, 1u << 20);
			/* random bytes are not a valid stream; a raw snappy block can be, rarely */
			if (all_codecs[i] != SS_CODEC_SNAPPY)
				assert_int_equal(rc, SEGSCAN_ECODEC);
			else
				assert_true(rc == 0 || rc == SEGSCAN_ECODEC);
			free(d);
			free(t);
		}
	}
	uint8_t *d;
	size_t dl;
	assert_int_equal(ss_codec_decompress((enum ss_codec)7, buf, 10, &d, &dl, 100), SEGSCAN_ECODEC);
	assert_int_equal(ss_codec_compress((enum ss_codec)5, buf, 10, &d, &dl), SEGSCAN_ECODEC);
}

/* What Java's readers do with bytes after a complete stream. */
static void test_trailing_bytes(void **state)
{
	size_t plen;
	uint8_t *plain = load(VDIR "plain.txt", &plen);
	size_t zl;
	uint8_t *z = load(VDIR "py.gzip", &zl);
	uint8_t *t = malloc(zl + 5);
	memcpy(t, z, zl);
	memcpy(t + zl, "junk!", 5);
	uint8_t *d;
	size_t dl;
	/* GZIPInputStream ignores trailing bytes that are not a gzip header */
	assert_int_equal(ss_codec_decompress(SS_CODEC_GZIP, t, zl + 5, &d, &dl, plen), 0);
	assert_int_equal(dl, plen);
	free(d);
	free(t);
	free(z);
	free(plain);
}

static void test_names(void **state)
{
	const char *names[] = { "none", "gzip", "snappy", "lz4", "zstd" };
	for (int i = 0; i < 5; i++) {
		enum ss_codec c;
		assert_string_equal(ss_codec_name((enum ss_codec)i), names[i]);
		assert_int_equal(ss_codec_parse(names[i], &c), 0);
		assert_int_equal(c, i);
	}
	enum ss_codec c = SS_CODEC_ZSTD;
	assert_int_equal(ss_codec_parse("uncompressed", &c), 0);
	assert_int_equal(c, SS_CODEC_NONE);
	assert_int_equal(ss_codec_parse("GZIP", &c), SEGSCAN_ECODEC);
	assert_int_equal(ss_codec_parse("producer", &c), SEGSCAN_ECODEC);
	assert_int_equal(ss_codec_parse("", &c), SEGSCAN_ECODEC);
	assert_string_equal(ss_codec_name((enum ss_codec)9), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_compressed_framing),
		cmocka_unit_test(test_independent_streams),
		cmocka_unit_test(test_bomb_guard),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_trailing_bytes),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
