/*
 * Aiven segment manifests (fmt/aiven_manifest.h). The fixed chunk index is the example of
 * Aiven's SegmentManifestV1SerdeTest (originalChunkSize 100, originalFileSize 1000,
 * transformedChunkSize 110, finalTransformedChunkSize 110); the variable one is built here
 * the way TransformedChunksSerializer writes it: ChunkSizesBinaryCodec's bytes, zstd with
 * the content size set, standard base64.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <cmocka.h>

#include "fmt/aiven_manifest.h"
#include "fmt/names.h"
#include "segscan.h"

static const char INDEXES[] = "\"segmentIndexes\":{\"offset\":{\"position\":0,\"size\":1},\"timestamp\":{\"position\":1,"
			      "\"size\":1},\"producerSnapshot\":{\"position\":2,\"size\":1},\"leaderEpoch\":{\"position\":3,"
			      "\"size\":1},\"transaction\":{\"position\":4,\"size\":1}}";
static const char META[] = "\"remoteLogSegmentMetadata\":{\"remoteLogSegmentId\":{\"topicIdPartition\":{\"topicId\":"
			   "\"lZ6vvmajTWKDBUTV6SQAtQ\",\"topicPartition\":{\"topic\":\"topic1\",\"partition\":42}},\"id\":"
			   "\"adh9f8BMS4anaUnD8KWfWg\"},\"startOffset\":0,\"endOffset\":1000,\"maxTimestampMs\":1000000000,"
			   "\"brokerId\":2,\"eventTimestampMs\":2000000000,\"segmentLeaderEpochs\":{\"0\":100,\"1\":200,"
			   "\"2\":300}}";

static int parse(const char *json, struct ss_aiven_manifest *m, char *err)
{
	return ss_aiven_manifest_parse(json, strlen(json), m, err, 200);
}

static void t_fixed(void **st)
{
	(void)st;
	char buf[4096], err[200];
	struct ss_aiven_manifest m;
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"fixed\",\"originalChunkSize\":100,\"originalFileSize\":1000,"
		 "\"transformedChunkSize\":110,\"finalTransformedChunkSize\":110},%s,\"compression\":false,"
		 "\"encryption\":{\"aad\":\"CgsMDQ==\",\"dataKey\":\"k1:AAAA\"},%s}", INDEXES, META);
	assert_int_equal(parse(buf, &m, err), 0);
	assert_true(m.fixed);
	assert_int_equal(m.original_size, 1000);
	assert_int_equal(m.chunks, 10);
	assert_int_equal(m.stored_log_size, 9 * 110 + 110);
	assert_int_equal(m.indexes_size, 5);
	assert_false(m.compression);
	assert_true(m.encryption);
	assert_true(m.has_segment);
	assert_int_equal(m.partition, 42);
	assert_int_equal(m.end_offset, 1000);
	char t[23];
	ss_uuid_format(m.segment_id, t);
	assert_string_equal(t, "adh9f8BMS4anaUnD8KWfWg");
	/* a last chunk shorter than the others: 1050 bytes in chunks of 100 = 11 chunks */
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"fixed\",\"originalChunkSize\":100,\"originalFileSize\":1050,"
		 "\"transformedChunkSize\":128,\"finalTransformedChunkSize\":66},%s,\"compression\":false}", INDEXES);
	assert_int_equal(parse(buf, &m, err), 0);
	assert_int_equal(m.chunks, 11);
	assert_int_equal(m.stored_log_size, 10 * 128 + 66);
	assert_false(m.encryption);
	assert_false(m.has_segment);
	/* an empty segment file: no chunks, nothing stored */
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"fixed\",\"originalChunkSize\":100,\"originalFileSize\":0,"
		 "\"transformedChunkSize\":128,\"finalTransformedChunkSize\":0},%s,\"compression\":false}", INDEXES);
	assert_int_equal(parse(buf, &m, err), 0);
	assert_int_equal(m.stored_log_size, 0);
	/* no transaction index: null */
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"fixed\",\"originalChunkSize\":100,\"originalFileSize\":10,"
		 "\"transformedChunkSize\":10,\"finalTransformedChunkSize\":10},\"segmentIndexes\":{\"offset\":{\"position\":0,"
		 "\"size\":8},\"timestamp\":{\"position\":8,\"size\":12},\"producerSnapshot\":{\"position\":20,\"size\":0},"
		 "\"leaderEpoch\":{\"position\":20,\"size\":9},\"transaction\":null},\"compression\":false}");
	assert_int_equal(parse(buf, &m, err), 0);
	assert_int_equal(m.indexes_size, 29);
}

/* ChunkSizesBinaryCodec.encode, zstd, base64 */
static void encode_chunks(const int32_t *v, uint32_t n, char *out, size_t cap)
{
	uint8_t raw[4096];
	size_t o = 0;
	#define PUT32(x) do { uint32_t _x = (uint32_t)(x); raw[o++] = (uint8_t)(_x >> 24); raw[o++] = (uint8_t)(_x >> 16); \
			      raw[o++] = (uint8_t)(_x >> 8); raw[o++] = (uint8_t)_x; } while (0)
	PUT32(n);
	if (n == 1) {
		PUT32(v[0]);
	} else if (n > 1) {
		int32_t base = v[0];
		for (uint32_t i = 0; i + 1 < n; i++)
			if (v[i] < base)
				base = v[i];
		uint8_t bpv = 1;
		for (uint32_t i = 0; i + 1 < n; i++) {
			uint32_t d = (uint32_t)(v[i] - base);
			uint8_t b = d <= 0xff ? 1 : d <= 0xffff ? 2 : d <= 0xffffff ? 3 : 4;
			if (b > bpv)
				bpv = b;
		}
		PUT32(base);
		raw[o++] = bpv;
		for (uint32_t i = 0; i + 1 < n; i++) {
			uint32_t d = (uint32_t)(v[i] - base);
			for (int k = bpv - 1; k >= 0; k--)
				raw[o++] = (uint8_t)(d >> (8 * k));
		}
		PUT32(v[n - 1]);
	}
	uint8_t z[8192];
	size_t zl = ZSTD_compress(z, sizeof(z), raw, o, 3);
	assert_false(ZSTD_isError(zl));
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t w = 0;
	for (size_t i = 0; i < zl; i += 3) {
		uint32_t x = (uint32_t)z[i] << 16 | (i + 1 < zl ? (uint32_t)z[i + 1] << 8 : 0) | (i + 2 < zl ? z[i + 2] : 0);
		assert_true(w + 5 < cap);
		out[w++] = b64[x >> 18 & 63];
		out[w++] = b64[x >> 12 & 63];
		out[w++] = i + 1 < zl ? b64[x >> 6 & 63] : '=';
		out[w++] = i + 2 < zl ? b64[x & 63] : '=';
	}
	out[w] = 0;
}

static void t_variable(void **st)
{
	(void)st;
	char chunks[4096], buf[8192], err[200];
	struct ss_aiven_manifest m;
	const int32_t v[] = { 4000, 4100, 3000, 70000, 123 };
	encode_chunks(v, 5, chunks, sizeof(chunks));
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"variable\",\"originalChunkSize\":65536,"
		 "\"originalFileSize\":300000,\"transformedChunks\":\"%s\"},%s,\"compression\":true}", chunks, INDEXES);
	assert_int_equal(parse(buf, &m, err), 0);
	assert_false(m.fixed);
	assert_true(m.compression);
	assert_int_equal(m.chunks, 5);
	assert_int_equal(m.stored_log_size, 4000 + 4100 + 3000 + 70000 + 123);
	assert_int_equal(m.original_size, 300000);
	/* one chunk, and none */
	const int32_t one[] = { 777 };
	encode_chunks(one, 1, chunks, sizeof(chunks));
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"variable\",\"originalChunkSize\":65536,"
		 "\"originalFileSize\":1000,\"transformedChunks\":\"%s\"},%s,\"compression\":true}", chunks, INDEXES);
	assert_int_equal(parse(buf, &m, err), 0);
	assert_int_equal(m.stored_log_size, 777);
	encode_chunks(NULL, 0, chunks, sizeof(chunks));
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"variable\",\"originalChunkSize\":65536,"
		 "\"originalFileSize\":0,\"transformedChunks\":\"%s\"},%s,\"compression\":true}", chunks, INDEXES);
	assert_int_equal(parse(buf, &m, err), 0);
	assert_int_equal(m.chunks, 0);
	assert_int_equal(m.stored_log_size, 0);
}

static void t_bad(void **st)
{
	(void)st;
	char buf[4096], err[200];
	struct ss_aiven_manifest m;
	static const char *const ci[] = {
		"{\"type\":\"fixed\",\"originalChunkSize\":0,\"originalFileSize\":1,\"transformedChunkSize\":1,\"finalTransformedChunkSize\":1}",
		"{\"type\":\"fixed\",\"originalChunkSize\":1,\"originalFileSize\":-1,\"transformedChunkSize\":1,\"finalTransformedChunkSize\":1}",
		"{\"type\":\"fixed\",\"originalChunkSize\":1,\"originalFileSize\":1,\"transformedChunkSize\":1}",
		"{\"type\":\"fixed\",\"originalChunkSize\":1,\"originalFileSize\":4294967296,\"transformedChunkSize\":1,\"finalTransformedChunkSize\":1}",
		"{\"type\":\"round\",\"originalChunkSize\":1,\"originalFileSize\":1}",
		"{\"type\":\"variable\",\"originalChunkSize\":1,\"originalFileSize\":1,\"transformedChunks\":\"!!!\"}",
		"{\"type\":\"variable\",\"originalChunkSize\":1,\"originalFileSize\":1,\"transformedChunks\":\"AAAA\"}",
		"{\"type\":\"variable\",\"originalChunkSize\":1,\"originalFileSize\":1}",
		"[]",
	};
	for (size_t i = 0; i < sizeof(ci) / sizeof(ci[0]); i++) {
		snprintf(buf, sizeof(buf), "{\"version\":\"1\",\"chunkIndex\":%s,%s,\"compression\":false}", ci[i], INDEXES);
		err[0] = 0;
		assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
		assert_true(err[0]);
	}
	const char *fixed = "\"chunkIndex\":{\"type\":\"fixed\",\"originalChunkSize\":1,\"originalFileSize\":1,"
			    "\"transformedChunkSize\":1,\"finalTransformedChunkSize\":1}";
	snprintf(buf, sizeof(buf), "{\"version\":\"2\",%s,%s,\"compression\":false}", fixed, INDEXES);
	assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
	snprintf(buf, sizeof(buf), "{\"version\":\"1\",%s,%s}", fixed, INDEXES);
	assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
	snprintf(buf, sizeof(buf), "{\"version\":\"1\",%s,\"segmentIndexes\":{},\"compression\":false}", fixed);
	assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
	snprintf(buf, sizeof(buf), "{\"version\":\"1\",%s,%s,\"compression\":false,\"encryption\":1}", fixed, INDEXES);
	assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
	snprintf(buf, sizeof(buf), "{\"version\":\"1\",\"version\":\"1\",%s,%s,\"compression\":false}", fixed, INDEXES);
	assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
	assert_int_equal(parse("{", &m, err), SEGSCAN_EJSON);
	assert_int_equal(parse("1", &m, err), SEGSCAN_EJSON);
	/* a chunk list whose encoding lies about its length */
	uint8_t raw[13] = { 0, 0, 0, 3, 0, 0, 0, 1, 1, 5, 0, 0, 0 };
	uint8_t z[256];
	size_t zl = ZSTD_compress(z, sizeof(z), raw, sizeof(raw), 1);
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char t[512];
	size_t w = 0;
	for (size_t i = 0; i < zl; i += 3) {
		uint32_t x = (uint32_t)z[i] << 16 | (i + 1 < zl ? (uint32_t)z[i + 1] << 8 : 0) | (i + 2 < zl ? z[i + 2] : 0);
		t[w++] = b64[x >> 18 & 63];
		t[w++] = b64[x >> 12 & 63];
		t[w++] = i + 1 < zl ? b64[x >> 6 & 63] : '=';
		t[w++] = i + 2 < zl ? b64[x & 63] : '=';
	}
	t[w] = 0;
	snprintf(buf, sizeof(buf),
		 "{\"version\":\"1\",\"chunkIndex\":{\"type\":\"variable\",\"originalChunkSize\":1,\"originalFileSize\":1,"
		 "\"transformedChunks\":\"%s\"},%s,\"compression\":true}", t, INDEXES);
	assert_int_equal(parse(buf, &m, err), SEGSCAN_EJSON);
	assert_non_null(strstr(err, "transformedChunks"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_fixed), cmocka_unit_test(t_variable), cmocka_unit_test(t_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
