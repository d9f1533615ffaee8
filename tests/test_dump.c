/*
 * `segscan dump` on hand-built files: every control record type, every codec, headers,
 * keys and values as text or base64, the coordinator decoders' record versions
 * (fmt/group_metadata.h, fmt/txn_state.h), producer snapshots and txn indexes, corrupt,
 * truncated and zero-filled tails, --offsets through the offset index, --max-bytes,
 * --verify-index's failures, and the CLI's exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <zlib.h>

#include "common/endian.h"
#include "dump/dump.h"
#include "fmt/codec.h"
#include "fmt/crc32c.h"
#include "fmt/group_metadata.h"
#include "fmt/kraft.h"
#include "fmt/names.h"
#include "fmt/producer_snapshot.h"
#include "fmt/txn_state.h"
#include "gen/encode.h"
#include "kraft_enc.h"
#include "segscan.h"
#include "testutil.h"
#include "dumputil.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static char *g_dir;

/* ---- building files ---- */

struct buf {
	uint8_t *p;
	size_t   n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->n + n);
	assert_non_null(b->p);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* One batch of `n` records at base, record i keyed "k<i>" with value v[i] (or "value-<i>"). */
static void add_batch(struct buf *b, int64_t base, enum ss_codec codec, uint8_t attrs, int n,
		      const struct ss_enc_record *recs)
{
	struct ss_enc e;
	ss_enc_init(&e);
	ss_enc_begin(&e, &(struct ss_enc_batch){ .base_offset = base, .leader_epoch = 3, .codec = codec,
						  .attributes = attrs, .producer_id = 9, .producer_epoch = 1,
						  .base_sequence = (int32_t)base });
	char keys[64][16], vals[64][32];
	for (int i = 0; i < n; i++) {
		struct ss_enc_record r;
		if (recs) {
			r = recs[i];
		} else {
			snprintf(keys[i], sizeof(keys[i]), "k%lld", (long long)(base + i));
			snprintf(vals[i], sizeof(vals[i]), "value-%lld", (long long)(base + i));
			r = (struct ss_enc_record){ .timestamp = 1000 + base + i, .offset_delta = i,
						    .key = (const uint8_t *)keys[i], .key_len = (int32_t)strlen(keys[i]),
						    .value = (const uint8_t *)vals[i], .value_len = (int32_t)strlen(vals[i]) };
		}
		assert_int_equal(ss_enc_append(&e, &r), 0);
	}
	const uint8_t *out;
	size_t len;
	assert_int_equal(ss_enc_finish(&e, &out, &len), 0);
	put(b, out, len);
	ss_enc_free(&e);
}

static char *write_file(const char *sub, const char *name, const struct buf *b)
{
	char *d = NULL, *p = NULL;
	assert_true(asprintf(&d, "%s/%s", g_dir, sub) > 0);
	mkdir(d, 0755);
	assert_true(asprintf(&p, "%s/%s", d, name) > 0);
	assert_int_equal(tu_write_file(p, b->p ? (const void *)b->p : "", b->n), 0);
	free(d);
	return p;
}

/* ---- running the dump in-process ---- */

/* By value, so a test can pass a compound literal. */
static json_t *dump(const char *path, struct ss_dump_opts o, int *status) { return du_dump_ndjson(path, &o, status); }

static int64_t ival(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }
static const char *sval(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* ---- the output buffer's own formatting ---- */

static void test_dout(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	struct ss_dout o;
	assert_int_equal(ss_dout_init(&o, f), 0);
	static const int64_t v[] = { 0, 9, 10, 99, 100, 101, 12345, -1, -10, INT64_MAX, INT64_MIN };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ss_dout_i64(&o, v[i]);
		ss_dout_ch(&o, ' ');
	}
	ss_dout_u64(&o, UINT64_MAX);
	ss_dout_ch(&o, ' ');
	static const char *const b64in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	for (size_t i = 0; i < 7; i++) {
		ss_dout_base64(&o, (const uint8_t *)b64in[i], strlen(b64in[i]));
		ss_dout_ch(&o, '|');
	}
	ss_dout_jesc(&o, (const uint8_t *)"a\"\\\n\x01" "b", 6);
	assert_int_equal(ss_dout_flush(&o), 0);
	ss_dout_free(&o);
	fclose(f);
	assert_string_equal(out, "0 9 10 99 100 101 12345 -1 -10 9223372036854775807 -9223372036854775808 "
				 "18446744073709551615 |Zg==|Zm8=|Zm9v|Zm9vYg==|Zm9vYmE=|Zm9vYmFy|"
				 "a\\\"\\\\\\n\\u0001b");
	free(out);
	assert_true(ss_utf8_valid((const uint8_t *)"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 12));
	assert_false(ss_utf8_valid((const uint8_t *)"\xc0\xaf", 2));          /* overlong */
	assert_false(ss_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3));      /* a surrogate */
	assert_false(ss_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4));  /* > U+10FFFF */
	assert_false(ss_utf8_valid((const uint8_t *)"\xe2\x82", 2));          /* cut short */
}

/* ---- control records ---- */

/* KRaft control values, as a v0 broker writes them (flexible: compact arrays and strings,
 * a tagged-field count after each struct): LeaderChange (leader 3; voters 1, 3; granting 3),
 * SnapshotHeader, SnapshotFooter, KRaftVersion 1, Voters (voter 2 with one endpoint). */
static const uint8_t kc_leader[] = { 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0, 2, 0, 0, 0, 3, 0, 0 };
static const uint8_t kc_header[] = { 0, 0, 0, 0, 1, 0x1f, 0x71, 0xfb, 0x04, 0xcb, 0 };
static const uint8_t kc_footer[] = { 0, 0, 0 };
static const uint8_t kc_kver[] = { 0, 0, 0, 1, 0 };
static const uint8_t kc_uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static size_t kc_voters(uint8_t *v)
{
	size_t n = 0;
	v[n++] = 0; v[n++] = 0;                       /* Version */
	v[n++] = 2;                                   /* one voter */
	v[n++] = 0; v[n++] = 0; v[n++] = 0; v[n++] = 2;
	memcpy(v + n, kc_uuid, 16);
	n += 16;
	v[n++] = 2;                                   /* one endpoint */
	v[n++] = 11; memcpy(v + n, "CONTROLLER", 10); n += 10;
	v[n++] = 10; memcpy(v + n, "localhost", 9); n += 9;
	v[n++] = 0x23; v[n++] = 0x85;                 /* 9093 */
	v[n++] = 0;                                   /* endpoint tags */
	v[n++] = 0; v[n++] = 0; v[n++] = 0; v[n++] = 1;   /* KRaftVersionFeature 0..1 */
	v[n++] = 0;                                   /* feature tags */
	v[n++] = 0;                                   /* voter tags */
	v[n++] = 0;                                   /* record tags */
	return n;
}

static void test_control_records(void **state)
{
	(void)state;
	static const char *const names[] = { "ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER",
					     "KRAFT_VERSION", "KRAFT_VOTERS", "UNKNOWN" };
	uint8_t voters[64];
	size_t vn = kc_voters(voters);
	char uuid[23];
	ss_uuid_format(kc_uuid, uuid);
	char want_voters[400];
	snprintf(want_voters, sizeof(want_voters),
		 "{\"version\":0,\"voters\":[{\"voterId\":2,\"voterUuid\":\"%s\",\"endpoints\":[{\"name\":\"CONTROLLER\","
		 "\"host\":\"localhost\",\"port\":9093}],\"kRaftVersionFeature\":{\"minSupportedVersion\":0,"
		 "\"maxSupportedVersion\":1}}]}", uuid);
	/* what Kafka's converters print for each (NULL: no value to decode) */
	const char *const want[] = {
		NULL, NULL,
		"{\"version\":0,\"leaderId\":3,\"voters\":[{\"voterId\":1},{\"voterId\":3}],\"grantingVoters\":[{\"voterId\":3}]}",
		"{\"version\":0,\"lastContainedLogTimestamp\":1234567890123}",
		"{\"version\":0}",
		"{\"version\":0,\"kRaftVersion\":1}",
		want_voters,
		NULL,
	};
	struct buf b = { 0 };
	for (int t = 0; t < 8; t++) {
		uint8_t key[4], val[6];
		ss_put_be16(key, 0);
		ss_put_be16(key + 2, (uint16_t)t);
		ss_put_be16(val, 0);
		ss_put_be32(val + 2, (uint32_t)(40 + t));   /* coordinator epoch for markers */
		struct ss_enc_record r = { .timestamp = 5, .key = key, .key_len = 4, .value = val, .value_len = 6 };
		const uint8_t *const kv[] = { NULL, NULL, kc_leader, kc_header, kc_footer, kc_kver, voters };
		const size_t kl[] = { 0, 0, sizeof(kc_leader), sizeof(kc_header), sizeof(kc_footer), sizeof(kc_kver), vn };
		if (t >= 2 && t <= 6) {
			r.value = kv[t];
			r.value_len = (int32_t)kl[t];
		}
		add_batch(&b, t, SS_CODEC_NONE, SS_ATTR_CONTROL | SS_ATTR_TRANSACTIONAL, 1, &r);
	}
	char *p = write_file("ctl-0", "00000000000000000000.log", &b);
	int st;
	json_t *all = dump(p, (struct ss_dump_opts){ .records = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_t *recs = du_of_type(all, "record"), *bats = du_of_type(all, "batch");
	assert_int_equal(json_array_size(recs), 8);
	for (int t = 0; t < 8; t++) {
		json_t *c = json_object_get(json_array_get(recs, t), "control");
		assert_non_null(c);
		assert_string_equal(sval(c, "type"), names[t]);
		assert_int_equal(ival(c, "type_id"), t);
		if (t <= 1)
			assert_int_equal(ival(c, "coordinator_epoch"), 40 + t);
		else
			assert_null(json_object_get(c, "coordinator_epoch"));
		if (want[t]) {
			json_t *w = json_loads(want[t], 0, NULL);
			assert_non_null(w);
			if (!json_equal(json_object_get(c, "data"), w)) {
				char *got = json_dumps(json_object_get(c, "data"), JSON_ENCODE_ANY);
				fail_msg("%s: data %s, want %s", names[t], got ? got : "(absent)", want[t]);
			}
			json_decref(w);
		} else {
			assert_null(json_object_get(c, "data"));
		}
		assert_true(json_is_true(json_object_get(json_array_get(bats, t), "control")));
		assert_true(json_is_true(json_object_get(json_array_get(bats, t), "transactional")));
	}
	/* the text form as DumpLogSegments prints it (printControlRecord: "LeaderChange:" with a
	 * colon, the others without; the JSON compact, in the converters' field order) */
	char *out = NULL, line[600];
	assert_int_equal(tu_run(&out, "%s dump --records %s", tu_segscan(), p), 0);
	assert_non_null(strstr(out, "endTxnMarker: COMMIT coordinatorEpoch: 41"));
	assert_non_null(strstr(out, "endTxnMarker: ABORT coordinatorEpoch: 40"));
	snprintf(line, sizeof(line), "headerKeys: [] LeaderChange: %s\n", want[2]);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "headerKeys: [] SnapshotHeader %s\n", want[3]);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "headerKeys: [] SnapshotFooter %s\n", want[4]);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "headerKeys: [] KRaftVersion %s\n", want[5]);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "headerKeys: [] KRaftVoters %s\n", want[6]);
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "controlType: UNKNOWN(7)"));
	free(out);
	json_decref(recs);
	json_decref(bats);
	json_decref(all);
	free(p);
	free(b.p);

	/* a KRaft control value that does not parse (cut short, bytes left over): an error naming
	 * the record, the type still shown */
	struct buf bad = { 0 };
	const uint8_t *const badv[] = { kc_leader, kc_header };
	const int32_t badl[] = { (int32_t)sizeof(kc_leader) - 3, (int32_t)sizeof(kc_header) };
	uint8_t longer[sizeof(kc_header) + 1];
	memcpy(longer, kc_header, sizeof(kc_header));
	longer[sizeof(kc_header)] = 7;
	for (int i = 0; i < 2; i++) {
		uint8_t key[4];
		ss_put_be16(key, 0);
		ss_put_be16(key + 2, (uint16_t)(i ? SS_KC_SNAPSHOT_HEADER : SS_KC_LEADER_CHANGE));
		struct ss_enc_record r = { .timestamp = 5, .key = key, .key_len = 4, .value = i ? longer : badv[i],
					   .value_len = i ? badl[i] + 1 : badl[i] };
		add_batch(&bad, i, SS_CODEC_NONE, SS_ATTR_CONTROL, 1, &r);
	}
	p = write_file("ctl-bad-0", "00000000000000000000.log", &bad);
	all = dump(p, (struct ss_dump_opts){ .records = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	json_t *errs = du_of_type(all, "error");
	assert_int_equal(json_array_size(errs), 2);
	assert_non_null(strstr(sval(json_array_get(errs, 0), "reason"), "LeaderChange control record at offset 0"));
	assert_non_null(strstr(sval(json_array_get(errs, 1), "reason"), "SnapshotHeader control record at offset 1"));
	recs = du_of_type(all, "record");
	assert_int_equal(json_array_size(recs), 2);
	assert_null(json_object_get(json_object_get(json_array_get(recs, 0), "control"), "data"));
	assert_string_equal(sval(json_object_get(json_array_get(recs, 0), "control"), "type"), "LEADER_CHANGE");
	json_decref(recs);
	json_decref(errs);
	json_decref(all);
	free(p);
	free(bad.p);
}

/* ---- codecs, headers, data ---- */

static void test_codecs_and_data(void **state)
{
	(void)state;
	static const enum ss_codec codecs[] = { SS_CODEC_NONE, SS_CODEC_GZIP, SS_CODEC_SNAPPY, SS_CODEC_LZ4,
						SS_CODEC_ZSTD };
	static const char *const cn[] = { "none", "gzip", "snappy", "lz4", "zstd" };
	const uint8_t binary[] = { 0xff, 0x00, 0xfe, 'a' };   /* not UTF-8: base64 "/wD+YQ==" */
	const uint8_t hval[] = "hv";
	struct ss_enc_header hdrs[2] = { { "trace", 5, hval, 2 }, { "n", 1, NULL, -1 } };
	struct ss_enc_record recs[3] = {
		{ .timestamp = 100, .offset_delta = 0, .key = (const uint8_t *)"k\xc3\xa9", .key_len = 3,
		  .value = (const uint8_t *)"text \"q\"\n", .value_len = 9, .headers = hdrs, .n_headers = 2 },
		{ .timestamp = 101, .offset_delta = 1, .key = NULL, .key_len = -1, .value = binary, .value_len = 4 },
		{ .timestamp = 99, .offset_delta = 2, .key = (const uint8_t *)"t", .key_len = 1, .value = NULL,
		  .value_len = -1 },
	};
	for (size_t c = 0; c < 5; c++) {
		struct buf b = { 0 };
		add_batch(&b, 10, codecs[c], 0, 3, recs);
		char sub[32];
		snprintf(sub, sizeof(sub), "codec-%s-0", cn[c]);
		char *p = write_file(sub, "00000000000000000010.log", &b);
		int st;
		json_t *all = dump(p, (struct ss_dump_opts){ .records = true, .print_data = true, .max_bytes = -1 }, &st);
		assert_int_equal(st, SS_DUMP_OK);
		json_t *bat = du_of_type(all, "batch"), *r = du_of_type(all, "record");
		assert_int_equal(json_array_size(bat), 1);
		json_t *b0 = json_array_get(bat, 0);
		assert_string_equal(sval(b0, "compression"), cn[c]);
		assert_true(json_is_true(json_object_get(b0, "crc_valid")));
		assert_int_equal(ival(b0, "count"), 3);
		assert_int_equal(ival(b0, "max_timestamp_ms"), 101);
		assert_int_equal(json_array_size(r), 3);
		json_t *r0 = json_array_get(r, 0), *r1 = json_array_get(r, 1), *r2 = json_array_get(r, 2);
		assert_int_equal(ival(r0, "offset"), 10);
		assert_int_equal(ival(r2, "offset"), 12);
		assert_int_equal(ival(r2, "timestamp_ms"), 99);
		assert_int_equal(ival(r1, "sequence"), 11);
		assert_string_equal(sval(r0, "key"), "k\xc3\xa9");
		assert_string_equal(sval(r0, "key_encoding"), "utf8");
		assert_string_equal(sval(r0, "value"), "text \"q\"\n");
		assert_true(json_is_null(json_object_get(r1, "key")));
		assert_int_equal(ival(r1, "key_size"), -1);
		assert_string_equal(sval(r1, "value"), "/wD+YQ==");
		assert_string_equal(sval(r1, "value_encoding"), "base64");
		assert_true(json_is_null(json_object_get(r2, "value")));
		json_t *h = json_object_get(r0, "headers");
		assert_int_equal(json_array_size(h), 2);
		assert_string_equal(sval(json_array_get(h, 0), "key"), "trace");
		assert_string_equal(sval(json_array_get(h, 0), "value"), "hv");
		assert_int_equal(ival(json_array_get(h, 1), "value_size"), -1);
		assert_true(json_is_null(json_object_get(json_array_get(h, 1), "value")));
		json_decref(bat);
		json_decref(r);
		json_decref(all);
		/* text: headerKeys and the base64 mark */
		char *out = NULL;
		assert_int_equal(tu_run(&out, "%s dump --print-data %s", tu_segscan(), p), 0);
		assert_non_null(strstr(out, "headerKeys: [trace,n]"));
		assert_non_null(strstr(out, "payload(base64): /wD+YQ=="));
		char want[64];
		snprintf(want, sizeof(want), "compresscodec: %s", cn[c]);
		assert_non_null(strstr(out, want));
		free(out);
		free(p);
		free(b.p);
	}
}

/* The zstd context is kept per thread (fmt/codec.c): a broken frame between two good
 * ones must not leave it in a state that fails the next one. */
static void test_zstd_context_reuse(void **state)
{
	(void)state;
	struct buf b = { 0 };
	add_batch(&b, 0, SS_CODEC_ZSTD, 0, 4, NULL);
	size_t one = b.n;
	add_batch(&b, 4, SS_CODEC_ZSTD, 0, 4, NULL);
	add_batch(&b, 8, SS_CODEC_ZSTD, 0, 4, NULL);
	b.p[one + SS_V2_HEADER_SIZE + 6] ^= 0xff;   /* inside the second batch's zstd frame */
	char *p = write_file("zreuse-0", "00000000000000000000.log", &b);
	int st;
	json_t *all = dump(p, (struct ss_dump_opts){ .records = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	json_t *r = du_of_type(all, "record"), *e = du_of_type(all, "error");
	assert_int_equal(json_array_size(r), 8);   /* batches 1 and 3 */
	assert_int_equal(ival(json_array_get(r, 4), "offset"), 8);
	assert_true(json_array_size(e) >= 1);
	json_decref(r);
	json_decref(e);
	json_decref(all);
	free(p);
	free(b.p);
}

/* ---- legacy (magic 0/1) message sets ---- */

/* One legacy entry at out (offset, size, CRC-32 from the magic byte, magic, attributes,
 * [timestamp], key, value); returns its length. */
static size_t legacy_entry(uint8_t *out, int64_t off, uint8_t magic, uint8_t attrs, int64_t ts, const char *key,
			   const uint8_t *val, int32_t vlen)
{
	size_t q = 16;
	out[q++] = magic;
	out[q++] = attrs;
	if (magic == 1) {
		ss_put_be64(out + q, (uint64_t)ts);
		q += 8;
	}
	ss_put_be32(out + q, key ? (uint32_t)strlen(key) : (uint32_t)-1);
	q += 4;
	if (key) {
		memcpy(out + q, key, strlen(key));
		q += strlen(key);
	}
	ss_put_be32(out + q, (uint32_t)vlen);
	q += 4;
	if (vlen > 0) {
		memcpy(out + q, val, (size_t)vlen);
		q += (size_t)vlen;
	}
	ss_put_be64(out, (uint64_t)off);
	ss_put_be32(out + 8, (uint32_t)(q - 12));
	ss_put_be32(out + 12, (uint32_t)crc32(0, out + 16, (uInt)(q - 16)));
	return q;
}

static void test_legacy(void **state)
{
	(void)state;
	uint8_t f[1024], inner[256];
	size_t n = legacy_entry(f, 0, 0, 0, 0, "a", (const uint8_t *)"v0", 2);   /* v0, offset 0 */
	n += legacy_entry(f + n, 1, 1, 0, 500, NULL, (const uint8_t *)"v1", 2);  /* v1, offset 1 */
	/* a v1 gzip wrapper holding offsets 2..3 (inner relative 0, 1), LogAppendTime 900 */
	size_t in = legacy_entry(inner, 0, 1, 0, 10, "x", (const uint8_t *)"i0", 2);
	in += legacy_entry(inner + in, 1, 1, 0, 11, "y", (const uint8_t *)"i1", 2);
	uint8_t *z;
	size_t zl;
	assert_int_equal(ss_codec_compress(SS_CODEC_GZIP, inner, in, &z, &zl), 0);
	n += legacy_entry(f + n, 3, 1, SS_CODEC_GZIP | SS_ATTR_LOG_APPEND, 900, NULL, z, (int32_t)zl);
	free(z);
	struct buf b = { 0 };
	put(&b, f, n);
	char *p = write_file("legacy-0", "00000000000000000000.log", &b);
	int st;
	json_t *all = dump(p, (struct ss_dump_opts){ .records = true, .print_data = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_t *bat = du_of_type(all, "batch"), *r = du_of_type(all, "record");
	assert_int_equal(json_array_size(bat), 3);
	for (size_t i = 0; i < 3; i++)
		assert_true(json_is_true(json_object_get(json_array_get(bat, i), "crc_valid")));
	assert_int_equal(ival(json_array_get(bat, 0), "magic"), 0);
	assert_string_equal(sval(json_array_get(bat, 2), "compression"), "gzip");
	assert_int_equal(json_array_size(r), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ival(json_array_get(r, (size_t)i), "offset"), i);
	assert_int_equal(ival(json_array_get(r, 0), "timestamp_ms"), -1);
	assert_int_equal(ival(json_array_get(r, 1), "timestamp_ms"), 500);
	assert_int_equal(ival(json_array_get(r, 2), "timestamp_ms"), 900);   /* the wrapper's */
	assert_string_equal(sval(json_array_get(r, 3), "key"), "y");
	assert_string_equal(sval(json_array_get(r, 3), "value"), "i1");
	assert_true(json_is_null(json_object_get(json_array_get(r, 1), "key")));
	json_decref(bat);
	json_decref(r);
	json_decref(all);
	free(p);
	free(b.p);
}

/* ---- corrupt, truncated, zero tail, CRC ---- */

static void test_bad_tails(void **state)
{
	(void)state;
	struct buf good = { 0 };
	add_batch(&good, 0, SS_CODEC_NONE, 0, 2, NULL);
	add_batch(&good, 2, SS_CODEC_NONE, 0, 2, NULL);
	size_t g = good.n;
	int st;
	/* garbage after two batches: size field below the minimum */
	struct buf bad = { 0 };
	put(&bad, good.p, g);
	uint8_t junk[20] = { 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8 };
	put(&bad, junk, sizeof(junk));
	char *p = write_file("bad-0", "00000000000000000000.log", &bad);
	json_t *all = dump(p, (struct ss_dump_opts){ .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	json_t *e = du_of_type(all, "error"), *b = du_of_type(all, "batch");
	assert_int_equal(json_array_size(b), 2);
	assert_int_equal(json_array_size(e), 1);
	assert_int_equal(ival(json_array_get(e, 0), "position"), (int64_t)g);
	assert_non_null(strstr(sval(json_array_get(e, 0), "reason"), "corrupt"));
	json_decref(e);
	json_decref(b);
	json_decref(all);
	free(p);
	/* the last batch cut short */
	struct buf tr = { 0 };
	put(&tr, good.p, g - 5);
	p = write_file("trunc-0", "00000000000000000000.log", &tr);
	all = dump(p, (struct ss_dump_opts){ .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	e = du_of_type(all, "error");
	assert_int_equal(json_array_size(e), 1);
	assert_non_null(strstr(sval(json_array_get(e, 0), "reason"), "truncated"));
	assert_true(ival(json_array_get(e, 0), "position") > 0);
	json_decref(e);
	json_decref(all);
	free(p);
	/* zeros after the batches (preallocated): reported, not an error */
	struct buf z = { 0 };
	put(&z, good.p, g);
	uint8_t zeros[4096] = { 0 };
	put(&z, zeros, sizeof(zeros));
	p = write_file("zero-0", "00000000000000000000.log", &z);
	all = dump(p, (struct ss_dump_opts){ .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	e = du_of_type(all, "zero_tail");
	assert_int_equal(json_array_size(e), 1);
	assert_int_equal(ival(json_array_get(e, 0), "size_bytes"), 4096);
	json_decref(e);
	json_decref(all);
	free(p);
	/* a flipped byte in the records: crc_valid false, the dump goes on, status 1 */
	struct buf c = { 0 };
	put(&c, good.p, g);
	c.p[70] ^= 0x55;
	p = write_file("crc-0", "00000000000000000000.log", &c);
	all = dump(p, (struct ss_dump_opts){ .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	b = du_of_type(all, "batch");
	assert_int_equal(json_array_size(b), 2);
	assert_true(json_is_false(json_object_get(json_array_get(b, 0), "crc_valid")));
	assert_true(json_is_true(json_object_get(json_array_get(b, 1), "crc_valid")));
	json_decref(b);
	json_decref(all);
	free(p);
	free(good.p);
	free(bad.p);
	free(tr.p);
	free(z.p);
	free(c.p);
}

/* ---- --offsets through the index, --max-bytes, --verify-index ---- */

static void test_offsets_index_verify(void **state)
{
	(void)state;
	struct buf log = { 0 }, idx = { 0 }, tix = { 0 };
	int64_t pos[20];
	for (int i = 0; i < 20; i++) {   /* 20 batches of 5 records: offsets 100..199 */
		pos[i] = (int64_t)log.n;
		add_batch(&log, 100 + 5 * i, SS_CODEC_NONE, 0, 5, NULL);
		if (i % 4 == 3) {   /* an index entry every 4 batches: last offset, position */
			uint8_t e[8], t[12];
			ss_put_be32(e, (uint32_t)(5 * i + 4));
			ss_put_be32(e + 4, (uint32_t)pos[i]);
			put(&idx, e, 8);
			ss_put_be64(t, (uint64_t)(1000 + 100 + 5 * i + 4));
			ss_put_be32(t + 8, (uint32_t)(5 * i + 4));
			put(&tix, t, 12);
		}
	}
	char *lp = write_file("off-0", "00000000000000000100.log", &log);
	char *ip = write_file("off-0", "00000000000000000100.index", &idx);
	char *tp = write_file("off-0", "00000000000000000100.timeindex", &tix);
	int st;
	/* 152 lies in batch 10 (150..154); the index's last entry <= 152 is batch 7's (139) */
	json_t *all = dump(lp, (struct ss_dump_opts){ .records = true, .has_from = true, .from = 152, .has_to = true,
						     .to = 161, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_t *fe = du_of_type(all, "file_end"), *b = du_of_type(all, "batch"), *r = du_of_type(all, "record");
	assert_int_equal(ival(json_array_get(fe, 0), "start_position"), pos[7]);
	assert_int_equal(json_array_size(b), 3);   /* 150.., 155.., 160.. */
	assert_int_equal(ival(json_array_get(b, 0), "base_offset"), 150);
	assert_int_equal(json_array_size(r), 10);  /* 152..161 */
	assert_int_equal(ival(json_array_get(r, 0), "offset"), 152);
	assert_int_equal(ival(json_array_get(r, 9), "offset"), 161);
	json_decref(fe);
	json_decref(b);
	json_decref(r);
	json_decref(all);
	/* --max-bytes: only the batches wholly inside the first N bytes; not an error */
	all = dump(lp, (struct ss_dump_opts){ .max_bytes = pos[3] + 10 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	b = du_of_type(all, "batch");
	assert_int_equal(json_array_size(b), 3);
	json_decref(b);
	json_decref(all);
	/* --verify-index on good indexes */
	all = dump(ip, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_t *v = du_of_type(all, "verify_index");
	assert_true(json_is_true(json_object_get(json_array_get(v, 0), "ok")));
	assert_int_equal(ival(json_array_get(v, 0), "entries"), 5);
	json_decref(v);
	json_decref(all);
	all = dump(tp, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_decref(all);
	/* an entry naming the wrong offset: the first mismatch is reported */
	ss_put_be32(idx.p + 2 * 8, 5 * 11 + 3);
	free(write_file("off-0", "00000000000000000100.index", &idx));
	all = dump(ip, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	v = du_of_type(all, "verify_index");
	assert_true(json_is_false(json_object_get(json_array_get(v, 0), "ok")));
	assert_int_equal(ival(json_array_get(v, 0), "entry"), 2);
	assert_non_null(strstr(sval(json_array_get(v, 0), "reason"), "Index offset: 158, log offset: 159"));
	json_decref(v);
	json_decref(all);
	/* entries going backwards */
	ss_put_be32(idx.p + 2 * 8, 5 * 11 + 4);
	ss_put_be32(idx.p + 3 * 8 + 4, (uint32_t)pos[3]);
	free(write_file("off-0", "00000000000000000100.index", &idx));
	all = dump(ip, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	v = du_of_type(all, "verify_index");
	assert_int_equal(ival(json_array_get(v, 0), "entry"), 3);
	assert_non_null(strstr(sval(json_array_get(v, 0), "reason"), "not increasing"));
	json_decref(v);
	json_decref(all);
	/* a time entry whose timestamp is not its batch's */
	ss_put_be64(tix.p + 12, 7);
	free(write_file("off-0", "00000000000000000100.timeindex", &tix));
	all = dump(tp, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	v = du_of_type(all, "verify_index");
	assert_int_equal(ival(json_array_get(v, 0), "entry"), 1);
	json_decref(v);
	json_decref(all);
	/* a partial entry */
	idx.n -= 3;
	free(write_file("off-0", "00000000000000000100.index", &idx));
	all = dump(ip, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	json_decref(all);
	free(lp);
	free(ip);
	free(tp);
	free(log.p);
	free(idx.p);
	free(tix.p);
}

/* --verify-index whose .log is a FIFO or a directory: refused by its type before any read
 * (a FIFO is never waited on, a directory never read as a log), the verdict naming it. */
static void test_verify_index_sibling_not_regular(void **state)
{
	(void)state;
	struct buf idx = { 0 };
	uint8_t e[8] = { 0 };   /* one entry: offset 0 at position 0 */
	put(&idx, e, sizeof(e));
	char *ip = write_file("nreg-0", "00000000000000000000.index", &idx);
	char *lp = NULL;
	assert_true(asprintf(&lp, "%s/nreg-0/00000000000000000000.log", g_dir) > 0);
	static const struct { const char *type; bool fifo; } kinds[] = { { "a FIFO", true }, { "a directory", false } };
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		assert_int_equal(kinds[k].fifo ? mkfifo(lp, 0600) : mkdir(lp, 0700), 0);
		int st;
		json_t *all = dump(ip, (struct ss_dump_opts){ .verify_index = true, .max_bytes = -1 }, &st);
		assert_int_equal(st, SS_DUMP_DATA);
		json_t *v = du_of_type(all, "verify_index");
		assert_int_equal(json_array_size(v), 1);
		assert_true(json_is_false(json_object_get(json_array_get(v, 0), "ok")));
		char want[64];
		snprintf(want, sizeof(want), "its .log is %s, not a regular file", kinds[k].type);
		assert_non_null(strstr(sval(json_array_get(v, 0), "reason"), want));
		json_decref(v);
		json_decref(all);
		assert_int_equal(kinds[k].fifo ? unlink(lp) : rmdir(lp), 0);
	}
	free(lp);
	free(ip);
	free(idx.p);
}

/* ---- producer snapshot, txn index ---- */

static void test_snapshot_txnindex(void **state)
{
	(void)state;
	uint8_t s[SS_PSNAP_HEADER + 2 * SS_PSNAP_ENTRY];
	memset(s, 0, sizeof(s));
	ss_put_be16(s, 1);
	ss_put_be32(s + 6, 2);
	for (int i = 0; i < 2; i++) {
		uint8_t *e = s + SS_PSNAP_HEADER + i * SS_PSNAP_ENTRY;
		ss_put_be64(e, (uint64_t)(7 + i));
		ss_put_be16(e + 8, 3);
		ss_put_be32(e + 10, 11);                        /* last sequence */
		ss_put_be64(e + 14, i ? (uint64_t)-1 : 40);     /* last offset (-1: no batch metadata) */
		ss_put_be32(e + 22, 3);                         /* offset delta */
		ss_put_be64(e + 26, 12345);
		ss_put_be32(e + 34, (uint32_t)-1);
		ss_put_be64(e + 38, i ? 30 : (uint64_t)-1);     /* txn first offset */
	}
	ss_put_be32(s + 2, ss_crc32c(0, s + 6, sizeof(s) - 6));
	struct ss_psnap ps;
	assert_int_equal(ss_psnap_parse(s, sizeof(s), &ps), 0);
	struct ss_pid_entry e0 = ss_psnap_entry(&ps, 0);
	assert_int_equal(e0.producer_id, 7);
	assert_int_equal(ss_psnap_first_seq(&e0), 8);
	e0.last_seq = 1;
	assert_int_equal(ss_psnap_first_seq(&e0), INT32_MAX - 1);   /* wraps like decrementSequence */
	assert_int_equal(ss_psnap_parse(s, sizeof(s) - 1, &ps), SEGSCAN_ETRUNC);
	struct buf b = { 0 };
	put(&b, s, sizeof(s));
	char *p = write_file("snap-0", "00000000000000000041.snapshot", &b);
	int st;
	json_t *all = dump(p, (struct ss_dump_opts){ .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_t *pr = du_of_type(all, "producer");
	assert_int_equal(json_array_size(pr), 2);
	assert_int_equal(ival(json_array_get(pr, 0), "first_sequence"), 8);
	assert_true(json_is_null(json_object_get(json_array_get(pr, 0), "current_txn_first_offset")));
	assert_null(json_object_get(json_array_get(pr, 1), "first_sequence"));
	assert_int_equal(ival(json_array_get(pr, 1), "current_txn_first_offset"), 30);
	json_decref(pr);
	json_decref(all);
	b.p[SS_PSNAP_HEADER + 5] ^= 1;   /* CRC no longer matches: entries shown, status 1 */
	free(write_file("snap-0", "00000000000000000041.snapshot", &b));
	all = dump(p, (struct ss_dump_opts){ .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	json_decref(all);
	free(p);
	free(b.p);

	uint8_t t[SS_TXNIDX_ENTRY * 2] = { 0 };
	for (int i = 0; i < 2; i++) {
		ss_put_be64(t + i * 34 + 2, 5);
		ss_put_be64(t + i * 34 + 10, (uint64_t)(10 * i));
		ss_put_be64(t + i * 34 + 18, (uint64_t)(10 * i + 4));
		ss_put_be64(t + i * 34 + 26, (uint64_t)(10 * i + 5));
	}
	struct ss_aborted_txn a;
	assert_int_equal(ss_txnidx_entry(t, sizeof(t), 1, &a), 0);
	assert_int_equal(a.last_offset, 14);
	assert_int_equal(ss_txnidx_entry(t, sizeof(t), 2, &a), SEGSCAN_ETRUNC);
	t[0] = 1;
	assert_int_equal(ss_txnidx_entry(t, sizeof(t), 0, &a), SEGSCAN_ESCHEMA);
}

/* ---- coordinator decoders, each record version ---- */

static void pstr(struct buf *b, const char *s, bool flex)
{
	uint8_t h[2];
	size_t n = strlen(s);
	if (flex) {
		h[0] = (uint8_t)(n + 1);   /* short strings: one uvarint byte */
		put(b, h, 1);
	} else {
		ss_put_be16(h, (uint16_t)n);
		put(b, h, 2);
	}
	put(b, s, n);
}
static void p16(struct buf *b, int16_t v) { uint8_t h[2]; ss_put_be16(h, (uint16_t)v); put(b, h, 2); }
static void p32(struct buf *b, int32_t v) { uint8_t h[4]; ss_put_be32(h, (uint32_t)v); put(b, h, 4); }
static void p64(struct buf *b, int64_t v) { uint8_t h[8]; ss_put_be64(h, (uint64_t)v); put(b, h, 8); }
static void p8(struct buf *b, uint8_t v) { put(b, &v, 1); }

static void test_offsets_versions(void **state)
{
	(void)state;
	struct ss_gm_key k;
	for (int16_t kv = 0; kv <= 1; kv++) {
		struct buf b = { 0 };
		p16(&b, kv);
		pstr(&b, "grp", false);
		pstr(&b, "tp", false);
		p32(&b, 4);
		assert_int_equal(ss_gm_decode_key(b.p, b.n, &k), 0);
		assert_true(k.known);
		assert_int_equal(k.partition, 4);
		assert_memory_equal(k.topic.p, "tp", 2);
		p8(&b, 0);   /* a byte too many */
		assert_int_equal(ss_gm_decode_key(b.p, b.n, &k), SEGSCAN_ESCHEMA);
		free(b.p);
	}
	struct buf gk = { 0 };
	p16(&gk, 2);
	pstr(&gk, "grp", false);
	assert_int_equal(ss_gm_decode_key(gk.p, gk.n, &k), 0);
	assert_int_equal(k.type, 2);
	assert_int_equal(k.group.len, 3);
	gk.p[1] = 5;   /* a KIP-848 record type: framed, not decoded */
	assert_int_equal(ss_gm_decode_key(gk.p, gk.n, &k), 0);
	assert_false(k.known);
	free(gk.p);

	for (int16_t v = 0; v <= 4; v++) {
		bool flex = v >= 4;
		struct buf b = { 0 };
		p16(&b, v);
		p64(&b, 77);
		if (v >= 3)
			p32(&b, 6);
		pstr(&b, "meta", flex);
		p64(&b, 1000);
		if (v == 1)
			p64(&b, 2000);
		if (flex) {   /* one tagged field: tag 0, the topic id */
			p8(&b, 1);
			p8(&b, 0);
			p8(&b, 16);
			uint8_t id[16] = { 1, 2, 3 };
			put(&b, id, 16);
		}
		struct ss_gm_offset o;
		assert_int_equal(ss_gm_decode_offset(b.p, b.n, &o), 0);
		assert_int_equal(o.offset, 77);
		assert_int_equal(o.leader_epoch, v >= 3 ? 6 : -1);
		assert_int_equal(o.commit_timestamp, 1000);
		assert_int_equal(o.expire_timestamp, v == 1 ? 2000 : -1);
		assert_int_equal(o.has_topic_id, flex);
		assert_int_equal(ss_gm_decode_offset(b.p, b.n - 1, &o), SEGSCAN_ETRUNC);
		free(b.p);
	}
	for (int16_t v = 0; v <= 4; v++) {
		bool flex = v >= 4;
		struct buf b = { 0 };
		p16(&b, v);
		pstr(&b, "consumer", flex);
		p32(&b, 3);
		pstr(&b, "range", flex);
		pstr(&b, "m1", flex);
		if (v >= 2)
			p64(&b, 555);
		if (flex)
			p8(&b, 2);   /* one member */
		else
			p32(&b, 1);
		pstr(&b, "m1", flex);
		if (v >= 3)
			pstr(&b, "inst", flex);
		pstr(&b, "client", flex);
		pstr(&b, "/127.0.0.1", flex);
		if (v >= 1)
			p32(&b, 300);
		p32(&b, 45);
		if (flex) {
			p8(&b, 3); put(&b, "sub", 2);
			p8(&b, 1);
			p8(&b, 0);   /* member tags */
			p8(&b, 0);   /* struct tags */
		} else {
			p32(&b, 2); put(&b, "su", 2);
			p32(&b, 0);
		}
		struct ss_gm_group g;
		int r = ss_gm_decode_group(b.p, b.n, &g);
		assert_int_equal(r, 0);
		assert_int_equal(g.generation, 3);
		assert_int_equal(g.n_members, 1);
		assert_int_equal(g.members[0].session_timeout, 45);
		assert_int_equal(g.members[0].rebalance_timeout, v >= 1 ? 300 : -1);
		assert_int_equal(g.members[0].group_instance_id.len, v >= 3 ? 4 : -1);
		assert_int_equal(g.members[0].subscription.len, 2);
		assert_int_equal(g.current_state_timestamp, v >= 2 ? 555 : -1);
		ss_gm_group_free(&g);
		free(b.p);
	}
}

static void test_txn_versions(void **state)
{
	(void)state;
	struct buf k = { 0 };
	p16(&k, 0);
	pstr(&k, "tx-1", false);
	struct ss_txn_key tk;
	assert_int_equal(ss_txn_decode_key(k.p, k.n, &tk), 0);
	assert_true(tk.known);
	assert_int_equal(tk.transactional_id.len, 4);
	k.p[1] = 1;
	assert_int_equal(ss_txn_decode_key(k.p, k.n, &tk), 0);
	assert_false(tk.known);
	free(k.p);
	for (int16_t v = 0; v <= 1; v++) {
		bool flex = v >= 1;
		struct buf b = { 0 };
		p16(&b, v);
		p64(&b, 42);
		p16(&b, 3);
		p32(&b, 60000);
		p8(&b, 4);   /* CompleteCommit */
		if (flex)
			p8(&b, 2);   /* one topic */
		else
			p32(&b, 1);
		pstr(&b, "t", flex);
		if (flex)
			p8(&b, 3);
		else
			p32(&b, 2);
		p32(&b, 0);
		p32(&b, 5);
		if (flex)
			p8(&b, 0);   /* topic tags */
		p64(&b, 111);
		p64(&b, 100);
		if (flex) {   /* tags 0, 1, 2 */
			p8(&b, 3);
			p8(&b, 0); p8(&b, 8); p64(&b, 41);
			p8(&b, 1); p8(&b, 8); p64(&b, 43);
			p8(&b, 2); p8(&b, 2); p16(&b, 2);
		}
		struct ss_txn_value tv;
		assert_int_equal(ss_txn_decode_value(b.p, b.n, &tv), 0);
		assert_int_equal(tv.producer_id, 42);
		assert_string_equal(ss_txn_status_name(tv.status), "CompleteCommit");
		assert_int_equal(tv.n_topics, 1);
		assert_int_equal(tv.topics[0].n_partitions, 2);
		assert_int_equal(ss_be32s(tv.topics[0].partitions + 4), 5);
		assert_int_equal(tv.start_timestamp_ms, 100);
		assert_int_equal(tv.previous_producer_id, flex ? 41 : -1);
		assert_int_equal(tv.next_producer_id, flex ? 43 : -1);
		assert_int_equal(tv.client_txn_version, flex ? 2 : 0);
		ss_txn_value_free(&tv);
		assert_int_equal(ss_txn_decode_value(b.p, b.n - 1, &tv), SEGSCAN_ETRUNC);
		ss_txn_value_free(&tv);
		free(b.p);
	}
	assert_null(ss_txn_status_name(8));
}

/* ---- the CLI ---- */

/* ---- nothing of the input reaches a terminal raw (issue 21 item 8) ---- */

/* Every line of a text dump is one of DumpLogSegments' (or ours): a newline from the data
 * would start a line of its own. */
static void lines_are_dump_lines(const char *out)
{
	static const char *const starts[] = { "Dumping ", "Log starting offset: ", "baseOffset: ", "| offset: ",
					      "Error in ", "Found " };
	for (const char *l = out; *l;) {
		bool ok = false;
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
			ok |= !strncmp(l, starts[i], strlen(starts[i]));
		if (!ok)
			fail_msg("a line that is not a dump line: %.120s", l);
		const char *nl = strchr(l, '\n');
		if (!nl)
			break;
		l = nl + 1;
	}
}

static void no_raw_terminal_bytes(const char *what, const char *out)
{
	const char *p = tu_raw_control(out);
	if (p)
		fail_msg("%s: raw control byte 0x%02x at %td: %.80s", what, (unsigned char)*p, p - out, p);
	for (const char *c = out; (c = strstr(c, "\xc2")); c++)   /* C1 controls: U+0080..U+009F */
		if (((unsigned char)c[1] & 0xe0) == 0x80)
			fail_msg("%s: raw C1 control U+00%02X at %td", what, (unsigned char)c[1], c - out);
	if (!ss_utf8_valid((const uint8_t *)out, strlen(out)))
		fail_msg("%s: not UTF-8", what);
}

static void test_text_escapes(void **state)
{
	(void)state;
	/* a partition directory named with an OSC title sequence and a stray 0xFF; a key, value
	 * and header key that are valid UTF-8 without NUL (so -d shows them as text) holding
	 * CSI, OSC, BEL, CR, LF, DEL and the one-byte CSI U+009B; then bytes that are no batch */
	const char *dir = "esc\033]0;pwned\007\377-0";
	static const char key[] = "k\033[2J", val[] = "v\033]0;t\007\r\n| offset: 99 forged\x7f\xc2\x9b";
	struct ss_enc_header h = { "h\033[1m", 5, (const uint8_t *)"hv\n", 3 };
	struct ss_enc_record r = { .timestamp = 7, .key = (const uint8_t *)key, .key_len = (int32_t)strlen(key),
				   .value = (const uint8_t *)val, .value_len = (int32_t)strlen(val), .headers = &h,
				   .n_headers = 1 };
	struct buf b = { 0 };
	add_batch(&b, 0, SS_CODEC_NONE, 0, 1, &r);
	const uint8_t junk[20] = { 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 0, 0, 0, 0, 0, 0, 0, 9 };
	put(&b, junk, sizeof(junk));
	char *p = write_file(dir, "00000000000000000000.log", &b);
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s dump -d '%s' 2>&1", tu_segscan(), p), 1);
	no_raw_terminal_bytes("text", out);
	lines_are_dump_lines(out);
	char want[1024];
	snprintf(want, sizeof(want), "Dumping %s/esc\\x1b]0;pwned\\x07\\xff-0/00000000000000000000.log\n", g_dir);
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "Error in %s/esc\\x1b]0;pwned\\x07\\xff-0/00000000000000000000.log at position", g_dir);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "headerKeys: [h\\x1b[1m]"));
	assert_non_null(strstr(out, " key: k\\x1b[2J payload: v\\x1b]0;t\\x07\\x0d\\x0a| offset: 99 forged\\x7f\\u009b\n"));
	free(out);
	/* a missing FILE with such a name: the message on stderr escaped too */
	assert_int_equal(tu_run(&out, "%s dump '%s/nope\033[2J-0/1.log' 2>&1 >/dev/null", tu_segscan(), g_dir), 3);
	no_raw_terminal_bytes("stderr", out);
	assert_non_null(strstr(out, "nope\\x1b[2J-0"));
	free(out);
	/* ndjson: every line JSON (jansson refuses malformed UTF-8), no raw control, the data
	 * exact (the escapes are JSON's), the path's stray byte as the four characters \xff */
	assert_int_equal(tu_run(&out, "%s dump -d -f ndjson '%s'", tu_segscan(), p), 1);
	no_raw_terminal_bytes("ndjson", out);
	free(out);
	int st;
	json_t *all = dump(p, (struct ss_dump_opts){ .records = true, .print_data = true, .max_bytes = -1 }, &st);
	json_t *recs = du_of_type(all, "record");
	assert_int_equal(json_array_size(recs), 1);
	json_t *rec = json_array_get(recs, 0);
	assert_string_equal(sval(rec, "key"), key);
	assert_string_equal(sval(rec, "value"), val);
	assert_string_equal(sval(json_array_get(json_object_get(rec, "headers"), 0), "key"), "h\033[1m");
	snprintf(want, sizeof(want), "%s/esc\033]0;pwned\007\\xff-0/00000000000000000000.log", g_dir);
	assert_string_equal(sval(json_array_get(all, 0), "file"), want);
	json_decref(recs);
	json_decref(all);
	free(p);
	free(b.p);
}

/* --decode: a byte that is not UTF-8 is \xHH, told apart from a real U+00FF */
static void test_decode_invalid_utf8(void **state)
{
	(void)state;
	static const uint8_t id1[16] = { 1 }, id2[16] = { 2 };
	struct kw w1 = { .n = 0 }, w2 = { .n = 0 };
	kw_topic(&w1, "a\377b", id1);           /* a stray byte */
	kw_topic(&w2, "a\303\277b", id2);       /* U+00FF */
	struct ss_enc_record r[2] = {
		{ .timestamp = 1, .offset_delta = 0, .value = w1.b, .value_len = (int32_t)w1.n, .key_len = -1 },
		{ .timestamp = 1, .offset_delta = 1, .value = w2.b, .value_len = (int32_t)w2.n, .key_len = -1 },
	};
	struct buf b = { 0 };
	add_batch(&b, 0, SS_CODEC_NONE, 0, 2, r);
	char *p = write_file("__cluster_metadata-0", "00000000000000000000.log", &b);
	int st;
	json_t *all = dump(p, (struct ss_dump_opts){ .decode = SS_DEC_KRAFT, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_OK);
	json_t *recs = du_of_type(all, "record");
	assert_int_equal(json_array_size(recs), 2);
	const char *n1 = sval(json_object_get(json_object_get(json_array_get(recs, 0), "decoded"), "data"), "name");
	const char *n2 = sval(json_object_get(json_object_get(json_array_get(recs, 1), "decoded"), "data"), "name");
	assert_string_equal(n1, "a\\xffb");
	assert_string_equal(n2, "a\303\277b");
	json_decref(recs);
	json_decref(all);
	/* the text form: the same JSON after " payload: ", a C1 control escaped as JSON does */
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s dump --decode=cluster-metadata '%s'", tu_segscan(), p), 0);
	no_raw_terminal_bytes("decoded text", out);
	assert_non_null(strstr(out, "\"name\":\"a\\\\xffb\""));
	assert_non_null(strstr(out, "\"name\":\"a\303\277b\""));
	free(out);
	free(p);
	free(b.p);
}

/* ---- a sparse tail is not read (issue 21 item 13) ---- */

/* The dump of one file, in-process, with its counters (d->bytes_read, d->zero_tail). */
static int dump_counted(const char *path, struct ss_dump *d)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(ss_dump_init(d, &(struct ss_dump_opts){ .fmt = SS_DUMP_NDJSON, .max_bytes = -1 }, f), 0);
	int st = ss_dump_file(d, path);
	assert_int_equal(ss_dump_finish(d), 0);
	fclose(f);
	free(out);
	return st;
}

static void test_sparse_tail(void **state)
{
	(void)state;
	struct buf empty = { 0 };
	char *p = write_file("sparse-0", "00000000000000000000.log", &empty);
	int fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	/* 4 GiB of hole, as ftruncate (and Kafka's preallocation) leaves it */
	const int64_t big = (int64_t)4 << 30;
	assert_int_equal(ftruncate(fd, (off_t)big), 0);
	errno = 0;
	if (lseek(fd, 0, SEEK_DATA) != -1 || errno != ENXIO) {
		close(fd);
		unlink(p);
		free(p);
		print_message("the file system of %s reports no holes: skipped\n", g_dir);
		skip();
	}
	struct ss_dump d;
	assert_int_equal(dump_counted(p, &d), SS_DUMP_OK);
	assert_int_equal(d.zero_tail, big);
	assert_int_equal(d.trailing, big);
	assert_int_equal(d.batches, 0);
	/* what was read: the first batch header's worth, not 4 GiB */
	if (d.bytes_read > 4096)
		fail_msg("read %lld bytes of a 4 GiB hole", (long long)d.bytes_read);

	/* a batch, a hole, 4 KiB of written zeros at 64 MiB, a hole to 128 MiB: still a zero
	 * tail, and only the data extents were read */
	struct buf b = { 0 };
	add_batch(&b, 0, SS_CODEC_NONE, 0, 3, NULL);
	const int64_t mid = (int64_t)64 << 20, end = (int64_t)128 << 20;
	static const uint8_t zeros[4096];
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, b.p, b.n, 0), (ssize_t)b.n);
	assert_int_equal(pwrite(fd, zeros, sizeof(zeros), (off_t)mid), (ssize_t)sizeof(zeros));
	assert_int_equal(ftruncate(fd, (off_t)end), 0);
	assert_int_equal(dump_counted(p, &d), SS_DUMP_OK);
	assert_int_equal(d.batches, 1);
	assert_int_equal(d.zero_tail, end - (int64_t)b.n);
	if (d.bytes_read > (int64_t)(1 << 20))
		fail_msg("read %lld bytes of a 128 MiB file holding %zu bytes of data", (long long)d.bytes_read,
			 b.n + sizeof(zeros));
	/* a byte that is not zero at its very end: a problem, found past the holes */
	const uint8_t one = 1;
	assert_int_equal(pwrite(fd, &one, 1, (off_t)(end - 1)), 1);
	assert_int_equal(dump_counted(p, &d), SS_DUMP_DATA);
	assert_int_equal(d.zero_tail, 0);
	assert_int_equal(d.trailing, end - (int64_t)b.n);
	if (d.bytes_read > (int64_t)(1 << 20))
		fail_msg("read %lld bytes to find the last byte", (long long)d.bytes_read);
	close(fd);
	unlink(p);
	free(p);
	free(b.p);
}

/* Kafka truncates a segment while it is dumped: the mapped pages past the new end raise
 * SIGBUS, which ends that file's dump with an error naming the batch it was in, and the
 * process goes on. The shrink happens deterministically: the output's first flush (its
 * buffer filled by the records) truncates the file, mid-walk. */
struct shrink_out {
	const char *path;
	char       *buf;
	size_t      len;
	int         writes;
};

static ssize_t shrink_write(void *cookie, const char *p, size_t n)
{
	struct shrink_out *o = cookie;
	if (o->writes++ == 0)
		assert_int_equal(truncate(o->path, 4096), 0);
	o->buf = realloc(o->buf, o->len + n + 1);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	o->buf[o->len] = 0;
	return (ssize_t)n;
}

static void test_shrinks_while_mapped(void **state)
{
	(void)state;
	struct buf b = { 0 };
	for (int64_t base = 0; base < 200 * 64; base += 64)
		add_batch(&b, base, SS_CODEC_NONE, 0, 64, NULL);
	assert_true(b.n > (size_t)(256 << 10));   /* its records print more than the output buffer holds */
	char *p = write_file("shrink-0", "00000000000000000000.log", &b);
	struct shrink_out o = { .path = p };
	FILE *f = fopencookie(&o, "w", (cookie_io_functions_t){ .write = shrink_write });
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	struct ss_dump d;
	assert_int_equal(ss_dump_init(&d, &(struct ss_dump_opts){ .fmt = SS_DUMP_TEXT, .records = true,
								  .print_data = true, .max_bytes = -1 }, f), 0);
	assert_int_equal(ss_dump_file(&d, p), SS_DUMP_DATA);
	assert_int_equal(ss_dump_finish(&d), 0);
	fclose(f);
	assert_true(o.writes > 1);
	const char *e = strstr(o.buf, " at position ");
	if (!e || !strstr(e, ": the file shrank while it was read (a mapped page past its new end)\n"))
		fail_msg("no shrink error in the dump's last lines: %s", o.len > 300 ? o.buf + o.len - 300 : o.buf);
	long long at = strtoll(e + strlen(" at position "), NULL, 10);
	assert_true(at > 4096 && at < (long long)b.n);
	/* at a batch's position (the position of the batch the walk was in) */
	char line[64];
	snprintf(line, sizeof(line), " position: %lld ", at);
	assert_non_null(strstr(o.buf, line));
	free(o.buf);
	unlink(p);
	free(p);
	free(b.p);
}

/* ---- kafka-dump-log's flags (issue 20 item 10) ---- */

/* `segscan dump ARGS` and `segscan dump ALIASES` print the same, byte for byte. */
static void same_output(const char *ours, const char *kafkas)
{
	char *a = NULL, *b = NULL;
	int ra = tu_run(&a, "%s dump %s 2>&1", tu_segscan(), ours);
	int rb = tu_run(&b, "%s dump %s 2>&1", tu_segscan(), kafkas);
	if (ra != rb || strcmp(a, b))
		fail_msg("'dump %s' (exit %d) and 'dump %s' (exit %d) differ:\n%.300s\n---\n%.300s", ours, ra, kafkas, rb,
			 a, b);
	assert_true(strlen(a) > 100);   /* something was dumped */
	free(a);
	free(b);
}

static void test_kafka_flags(void **state)
{
	(void)state;
	const char *fx = "tests/fixtures/kafka";
	char o[1024], k[1024];
	/* --files (comma-separated), --deep-iteration, --print-data-log */
	snprintf(o, sizeof(o), "-r %s/plain/logdir/plain-v2-0/00000000000000000000.log "
		 "%s/plain/logdir/plain-v2-0/00000000000000000015.log", fx, fx);
	snprintf(k, sizeof(k), "--deep-iteration --files %s/plain/logdir/plain-v2-0/00000000000000000000.log,"
		 "%s/plain/logdir/plain-v2-0/00000000000000000015.log", fx, fx);
	same_output(o, k);
	snprintf(o, sizeof(o), "-d %s/plain/logdir/plain-v2-0/00000000000000000000.log", fx);
	snprintf(k, sizeof(k), "--print-data-log --files=%s/plain/logdir/plain-v2-0/00000000000000000000.log", fx);
	same_output(o, k);
	/* the four decoders */
	static const char *const dec[][3] = {
		{ "consumer-offsets", "--offsets-decoder", "txn/logdir/__consumer_offsets-0" },
		{ "transaction-state", "--transaction-log-decoder", "txn/logdir/__transaction_state-0" },
		{ "cluster-metadata", "--cluster-metadata-decoder", "cluster-meta/logdir/__cluster_metadata-0" },
		{ "remote-log-metadata", "--remote-log-metadata-decoder", "tiered/logdir/__remote_log_metadata-0" },
	};
	for (size_t i = 0; i < 4; i++) {
		snprintf(o, sizeof(o), "-f ndjson --decode=%s %s/%s/00000000000000000000.log", dec[i][0], fx, dec[i][2]);
		snprintf(k, sizeof(k), "-f ndjson %s --files %s/%s/00000000000000000000.log", dec[i][1], fx, dec[i][2]);
		same_output(o, k);
	}
	/* --verify-index-only: verified, not listed */
	char *out = NULL;
	snprintf(o, sizeof(o), "%s/cluster-meta/logdir/__cluster_metadata-0/00000000000000000000", fx);
	assert_int_equal(tu_run(&out, "%s dump --verify-index-only --files %s.index", tu_segscan(), o), 0);
	assert_non_null(strstr(out, "00000000000000000000.index passed sanity check.\n"));
	assert_null(strstr(out, "position: "));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --verify-index %s.index", tu_segscan(), o), 0);
	assert_non_null(strstr(out, "position: "));   /* --verify-index lists them */
	free(out);

	/* --index-sanity-check: OffsetIndex/TimeIndex.sanityCheck alone (no .log needed) */
	uint8_t ix[24], tx[36];
	struct buf b = { ix, sizeof(ix) };
	for (int i = 0; i < 3; i++) {   /* offsets 101, 102, 103 at positions 0, 70, 140 */
		ss_put_be32(ix + 8 * i, (uint32_t)(1 + i));
		ss_put_be32(ix + 8 * i + 4, (uint32_t)(70 * i));
		ss_put_be64(tx + 12 * i, (uint64_t)(5000 + i));
		ss_put_be32(tx + 12 * i + 8, (uint32_t)(1 + i));
	}
	char *good = write_file("sanity-0", "00000000000000000100.index", &b);
	b = (struct buf){ tx, sizeof(tx) };
	char *tgood = write_file("sanity-0", "00000000000000000100.timeindex", &b);
	assert_int_equal(tu_run(&out, "%s dump --index-sanity-check %s %s", tu_segscan(), good, tgood), 0);
	assert_non_null(strstr(out, "00000000000000000100.index passed sanity check.\n"));
	assert_non_null(strstr(out, "00000000000000000100.timeindex passed sanity check.\n"));
	assert_null(strstr(out, "offset: 101"));
	free(out);
	/* the same files fail --verify-index (there is no .log): the sanity check is another check */
	assert_int_equal(tu_run(NULL, "%s dump --verify-index %s >/dev/null", tu_segscan(), good), 1);
	/* the last offset below the base offset; a length not a multiple of 8; the last
	 * timestamp below the first */
	ss_put_be32(ix + 16, (uint32_t)-5);
	b = (struct buf){ ix, sizeof(ix) };
	char *low = write_file("sanity-1", "00000000000000000100.index", &b);
	b = (struct buf){ ix, 20 };
	char *cut = write_file("sanity-2", "00000000000000000100.index", &b);
	ss_put_be64(tx + 24, 4000);
	b = (struct buf){ tx, sizeof(tx) };
	char *tlow = write_file("sanity-1", "00000000000000000100.timeindex", &b);
	assert_int_equal(tu_run(&out, "%s dump --index-sanity-check %s", tu_segscan(), low), 1);
	assert_non_null(strstr(out, "the last offset is 95 which is less than the base offset 100"));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --index-sanity-check %s", tu_segscan(), cut), 1);
	assert_non_null(strstr(out, "found 20 bytes which is neither positive nor a multiple of 8"));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --index-sanity-check %s", tu_segscan(), tlow), 1);
	assert_non_null(strstr(out, "the last timestamp is 4000 which is lesser than the first timestamp 5000"));
	free(out);
	int st;
	json_t *all = dump(low, (struct ss_dump_opts){ .verify_index = true, .sanity_only = true, .max_bytes = -1 }, &st);
	assert_int_equal(st, SS_DUMP_DATA);
	json_t *v = du_of_type(all, "verify_index"), *e = du_of_type(all, "index_entry");
	assert_int_equal(json_array_size(v), 1);
	assert_false(json_is_true(json_object_get(json_array_get(v, 0), "ok")));
	assert_int_equal(ival(json_array_get(v, 0), "entry"), 2);
	assert_int_equal(json_array_size(e), 0);
	json_decref(v);
	json_decref(e);
	json_decref(all);
	free(good);
	free(tgood);
	free(low);
	free(cut);
	free(tlow);

	/* an unknown option: exit 2, named, and the nearest one suggested */
	assert_int_equal(tu_run(&out, "%s dump --deep-iteraton x.log 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "unknown option '--deep-iteraton'; did you mean '--deep-iteration'?"));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --recrods x.log 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "did you mean '--records'?"));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --print-dta-log=1 x.log 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "did you mean '--print-data-log'?"));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --zzzzzzzz x.log 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "unknown option '--zzzzzzzz'"));
	assert_null(strstr(out, "did you mean"));
	free(out);
	assert_int_equal(tu_run(&out, "%s dump --decode 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "option '--decode' needs a value"));
	free(out);
}

/* ---- completion of dump's option values (issue 20 item 11) ---- */

/* What bash's completion offers for `line` (driven as readline does), sorted, one line. */
static char *bash_complete(const char *line)
{
	char *script = NULL, *out = NULL;
	assert_true(asprintf(&script, "%s/comp.bash", g_dir) > 0);
	static const char body[] =
		"source completions/segscan.bash\n"
		"COMP_LINE=$1; COMP_POINT=${#1}\n"
		"read -ra COMP_WORDS <<<\"$1\"\n"
		"[[ $1 == *\" \" ]] && COMP_WORDS+=(\"\")\n"
		"COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
		"_segscan; printf '%s\\n' \"${COMPREPLY[@]}\" | sort | paste -sd' '\n";
	assert_int_equal(tu_write_file(script, body, sizeof(body) - 1), 0);
	assert_int_equal(tu_run(&out, "bash '%s' '%s'", script, line), 0);
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = 0;
	free(script);
	return out;
}

static void test_completion_values(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "--decode=", "auto cluster-metadata consumer-offsets none remote-log-metadata transaction-state" },
		{ "--decode=c", "cluster-metadata consumer-offsets" },
		{ "--decode ", "auto cluster-metadata consumer-offsets none remote-log-metadata transaction-state" },
		{ "--decode r", "remote-log-metadata" },
		{ "-f ", "json ndjson text" },
		{ "--format nd", "ndjson" },
		{ "--format=", "json ndjson text" },
	};
	char line[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "%s dump -r %s", tu_segscan(), cases[i][0]);
		char *got = bash_complete(line);
		if (strcmp(got, cases[i][1]))
			fail_msg("bash: '%s<TAB>': '%s', want '%s'", line, got, cases[i][1]);
		free(got);
	}
	/* a FILE after an option that takes no value is still a file */
	snprintf(line, sizeof(line), "%s dump -r tests/fixtures/kafka/plain/logdir/plain-v2-0/00000000000000000015.l",
		 tu_segscan());
	char *got = bash_complete(line);
	assert_string_equal(got, "tests/fixtures/kafka/plain/logdir/plain-v2-0/00000000000000000015.log");
	free(got);
	/* zsh: the spec of --decode and -f list their values */
	char *out = NULL;
	if (tu_run(NULL, "command -v zsh >/dev/null") != 0) {
		print_message("zsh is not installed: its half skipped\n");
		return;
	}
	assert_int_equal(tu_run(&out, "zsh -fc \"source completions/_segscan; _segscan_specs '%s' dump\"", tu_segscan()), 0);
	assert_non_null(strstr(out, ":(remote-log-metadata cluster-metadata consumer-offsets transaction-state auto none)"));
	assert_non_null(strstr(out, "\n-f["));
	assert_non_null(strstr(out, ":(text json ndjson)"));
	free(out);
}

static void test_cli(void **state)
{
	(void)state;
	const char *s = tu_segscan();
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s dump --help", s), 0);
	assert_non_null(strstr(out, "--verify-index"));
	assert_non_null(strstr(out, "Exit status"));
	free(out);
	assert_int_equal(tu_run(NULL, "%s dump 2>/dev/null", s), 2);
	assert_int_equal(tu_run(NULL, "%s dump -f xml x.log 2>/dev/null", s), 2);
	assert_int_equal(tu_run(NULL, "%s dump --offsets=9..3 x.log 2>/dev/null", s), 2);
	assert_int_equal(tu_run(NULL, "%s dump --decode=nope x.log 2>/dev/null", s), 2);
	assert_int_equal(tu_run(NULL, "%s dump --max-bytes=-1 x.log 2>/dev/null", s), 2);
	assert_int_equal(tu_run(NULL, "%s dump %s/none-0/00000000000000000000.log 2>/dev/null", s, g_dir), 3);
	/* a corrupt file between two good ones: all three dumped, exit 1 */
	struct buf good = { 0 }, bad = { 0 };
	add_batch(&good, 0, SS_CODEC_ZSTD, 0, 3, NULL);
	put(&bad, good.p, good.n);
	uint8_t junk[30] = { 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 0, 0, 0, 0, 0, 0, 0, 9 };
	put(&bad, junk, sizeof(junk));
	char *g1 = write_file("cli-a-0", "00000000000000000000.log", &good);
	char *b1 = write_file("cli-b-0", "00000000000000000000.log", &bad);
	char *g2 = write_file("cli-c-0", "00000000000000000000.log", &good);
	assert_int_equal(tu_run(&out, "%s dump -f ndjson %s %s %s", s, g1, b1, g2), 1);
	int lines = 0, batches = 0, errors = 0;
	for (char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		lines++;
		batches += !strncmp(l, "{\"type\":\"batch\"", 15);
		errors += !strncmp(l, "{\"type\":\"error\"", 15);
	}
	assert_int_equal(batches, 3);
	assert_int_equal(errors, 1);
	free(out);
	assert_int_equal(tu_run(&out, "%s dump -f json %s %s", s, g1, g2), 0);
	json_error_t je;
	json_t *doc = json_loads(out, 0, &je);
	assert_non_null(doc);
	assert_int_equal(json_array_size(json_object_get(doc, "files")), 2);
	json_decref(doc);
	free(out);
	/* text: DumpLogSegments' lines, the error named with its position */
	assert_int_equal(tu_run(&out, "%s dump %s", s, b1), 1);
	assert_non_null(strstr(out, "Dumping "));
	assert_non_null(strstr(out, "baseOffset: 0 lastOffset: 2 count: 3"));
	char want[64];
	snprintf(want, sizeof(want), "at position %zu: corrupt", good.n);
	assert_non_null(strstr(out, want));
	free(out);
	/* the missing file among good ones: 3, the good ones still dumped */
	assert_int_equal(tu_run(&out, "%s dump -f ndjson %s %s/nope-0/1.log %s 2>/dev/null", s, g1, g_dir, g2), 3);
	assert_non_null(strstr(out, "\"status\":\"missing\""));
	free(out);
	free(g1);
	free(b1);
	free(g2);
	free(good.p);
	free(bad.p);
}

static int setup(void **state)
{
	(void)state;
	g_dir = tu_mkdtemp("dump");
	return g_dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", g_dir) > 0 && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", g_dir);
	free(cmd);
	free(g_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dout),
		cmocka_unit_test(test_control_records),
		cmocka_unit_test(test_codecs_and_data),
		cmocka_unit_test(test_zstd_context_reuse),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_bad_tails),
		cmocka_unit_test(test_offsets_index_verify),
		cmocka_unit_test(test_verify_index_sibling_not_regular),
		cmocka_unit_test(test_snapshot_txnindex),
		cmocka_unit_test(test_offsets_versions),
		cmocka_unit_test(test_txn_versions),
		cmocka_unit_test(test_text_escapes),
		cmocka_unit_test(test_decode_invalid_utf8),
		cmocka_unit_test(test_sparse_tail),
		cmocka_unit_test(test_shrinks_while_mapped),
		cmocka_unit_test(test_kafka_flags),
		cmocka_unit_test(test_completion_values),
		cmocka_unit_test(test_cli),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
