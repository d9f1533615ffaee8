/*
 * Record batches and the segment walker, against hand-built bytes from
 * docs/kafka-format.md §2 (CRCs from a bit-at-a-time CRC-32C in this file and zlib's
 * CRC-32) and against batches written by kafka-python's builders, with the expected
 * values read back by kafka-python's reader (tests/vectors, make_vectors.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <zlib.h>

#include "fmt/batch.h"
#include "segscan.h"
#include "testref.h"
#include "testutil.h"

/* ---- independent helpers ------------------------------------------------------------ */


static void put16(uint8_t *p, int v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static void put64(uint8_t *p, int64_t v)
{
	put32(p, (uint32_t)((uint64_t)v >> 32));
	put32(p + 4, (uint32_t)v);
}
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* zig-zag varint as in the Kafka spec (§2.6) */
static size_t put_varint(uint8_t *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;
	while (u >= 0x80) {
		p[n++] = (uint8_t)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (uint8_t)u;
	return n;
}

/* One v2 record: key/value NULL with len -1 for null; nh headers "h<i>" -> "v". */
static size_t put_record(uint8_t *out, int64_t ts_delta, int32_t off_delta, const char *key, int klen,
			 const char *val, int vlen, int nh)
{
	uint8_t body[512];
	size_t n = 0;
	body[n++] = 0;
	n += put_varint(body + n, ts_delta);
	n += put_varint(body + n, off_delta);
	n += put_varint(body + n, klen);
	if (klen > 0) { memcpy(body + n, key, (size_t)klen); n += (size_t)klen; }
	n += put_varint(body + n, vlen);
	if (vlen > 0) { memcpy(body + n, val, (size_t)vlen); n += (size_t)vlen; }
	n += put_varint(body + n, nh);
	for (int i = 0; i < nh; i++) {
		n += put_varint(body + n, 2);
		body[n++] = 'h';
		body[n++] = (uint8_t)('0' + i);
		n += put_varint(body + n, 1);
		body[n++] = 'v';
	}
	size_t m = put_varint(out, (int64_t)n);
	memcpy(out + m, body, n);
	return m + n;
}

struct v2spec {
	int64_t base;
	int32_t epoch;
	int     attrs;
	int32_t last_delta;
	int64_t base_ts, max_ts, pid;
	int     pepoch;
	int32_t bseq, count;
};

/* A v2 batch around records[0..rlen), signed with the reference CRC-32C. */
static size_t build_v2(uint8_t *out, const struct v2spec *s, const uint8_t *records, size_t rlen)
{
	size_t total = 61 + rlen;
	put64(out, s->base);
	put32(out + 8, (uint32_t)(total - 12));
	put32(out + 12, (uint32_t)s->epoch);
	out[16] = 2;
	put16(out + 21, s->attrs);
	put32(out + 23, (uint32_t)s->last_delta);
	put64(out + 27, s->base_ts);
	put64(out + 35, s->max_ts);
	put64(out + 43, s->pid);
	put16(out + 51, s->pepoch);
	put32(out + 53, (uint32_t)s->bseq);
	put32(out + 57, (uint32_t)s->count);
	if (rlen)
		memcpy(out + 61, records, rlen);
	put32(out + 17, ref_crc32c(out + 21, total - 21));
	return total;
}

/* A legacy entry (§2.10), CRC-32 from zlib. klen/vlen -1 = null. */
static size_t build_legacy(uint8_t *out, int64_t offset, int magic, int attr, int64_t ts, const void *key,
			   int klen, const void *val, int vlen)
{
	size_t p = 12;
	p += 4;
	out[p++] = (uint8_t)magic;
	out[p++] = (uint8_t)attr;
	if (magic == 1) {
		put64(out + p, ts);
		p += 8;
	}
	put32(out + p, (uint32_t)klen);
	p += 4;
	if (klen > 0) { memcpy(out + p, key, (size_t)klen); p += (size_t)klen; }
	put32(out + p, (uint32_t)vlen);
	p += 4;
	if (vlen > 0) { memcpy(out + p, val, (size_t)vlen); p += (size_t)vlen; }
	put64(out, offset);
	put32(out + 8, (uint32_t)(p - 12));
	put32(out + 12, (uint32_t)crc32(0, out + 16, (uInt)(p - 16)));
	return p;
}

static size_t gzip_bytes(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t r = zs.total_out;
	deflateEnd(&zs);
	return r;
}

/* ---- walker driver ------------------------------------------------------------------- */

/*
 * Drive the walker as a caller does: read at least want_len bytes from want_pos (here
 * max(want_len, chunk)), clamped to the bytes that really exist (real_size may be less
 * than the size given to the walker: the file shrank). Each feed is a fresh malloc of
 * exactly the bytes read, so ASan catches any read outside them.
 */
static void walk_file(const uint8_t *file, int64_t real_size, int64_t claimed_size, int64_t start, bool verify,
		      int64_t chunk, struct ss_walk *w)
{
	ss_walk_init(w, 0, claimed_size, start, verify);
	long feeds = 0;
	while (!ss_walk_done(w)) {
		assert_true(w->want_len > 0);
		assert_true(w->want_pos >= 0 && w->want_pos < w->file_size);
		int64_t n = w->want_len > chunk ? w->want_len : chunk;
		int64_t avail = real_size - w->want_pos;
		if (avail < 0)
			avail = 0;
		if (n > avail)
			n = avail;
		uint8_t *b = malloc(n ? (size_t)n : 1);
		assert_non_null(b);
		if (n)
			memcpy(b, file + w->want_pos, (size_t)n);
		int64_t op = w->pos, owp = w->want_pos, owl = w->want_len;
		assert_int_equal(ss_walk_feed(w, w->want_pos, b, (size_t)n), 0);
		free(b);
		/* every feed makes progress */
		assert_true(w->done || w->pos != op || w->want_pos != owp || w->want_len != owl);
		assert_true(++feeds < 50000000);
	}
}

static void assert_same_walk(const struct ss_walk *a, const struct ss_walk *b)
{
	assert_int_equal(a->file_size, b->file_size);
	assert_int_equal(a->pos, b->pos);
	assert_int_equal(a->valid_bytes, b->valid_bytes);
	assert_int_equal(a->truncated_bytes, b->truncated_bytes);
	assert_int_equal(a->first_base, b->first_base);
	assert_int_equal(a->first_pos, b->first_pos);
	assert_int_equal(a->last_offset, b->last_offset);
	assert_int_equal(a->max_timestamp, b->max_timestamp);
	assert_int_equal(a->batches, b->batches);
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->crc_errors, b->crc_errors);
	assert_int_equal(a->offset_errors, b->offset_errors);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->err_pos, b->err_pos);
	assert_int_equal(a->zero_tail, b->zero_tail);
	assert_int_equal(a->done, b->done);
}

/* ---- the §2.9 worked example ---------------------------------------------------------- */

static const uint8_t example[70] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x00, 0x00,
	0x00, 0x00, 0x02, 0xbb, 0xcc, 0x41, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68,
	0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00, 0x01, 0x04, 0x68, 0x69, 0x00,
};

struct rec_log {
	int n;
	struct ss_record r[64];
	uint8_t keys[64][64], vals[64][256];
	int stop_after;
};

static int log_cb(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct rec_log *l = arg;
	assert_true(l->n < 64);
	l->r[l->n] = *r;
	if (r->key_len > 0) {
		assert_true(r->key_len <= 64);
		memcpy(l->keys[l->n], r->key, (size_t)r->key_len);
	}
	if (r->value_len > 0) {
		assert_true(r->value_len <= 256);
		memcpy(l->vals[l->n], r->value, (size_t)r->value_len);
	}
	l->n++;
	return l->stop_after && l->n == l->stop_after ? 77 : 0;
}

static void test_worked_example(void **state)
{
	struct ss_batch_hdr h;
	assert_int_equal(ss_batch_header(example, 16, &h), 0);
	assert_int_equal(ss_batch_header(example, 60, &h), 0);
	assert_int_equal(ss_batch_header(example, sizeof example, &h), 61);
	assert_int_equal(ss_batch_header(example, 61, &h), 61);
	assert_int_equal(h.file_offset, 0);
	assert_int_equal(h.base_offset, 0);
	assert_int_equal(h.last_offset, 0);
	assert_int_equal(h.size, 70);
	assert_int_equal(h.base_timestamp, 1700000000000LL);
	assert_int_equal(h.max_timestamp, 1700000000000LL);
	assert_int_equal(h.producer_id, -1);
	assert_int_equal(h.producer_epoch, -1);
	assert_int_equal(h.base_sequence, -1);
	assert_int_equal(h.leader_epoch, 0);
	assert_int_equal(h.records_count, 1);
	assert_int_equal(h.crc, 0xbbcc4115u);
	assert_int_equal(h.magic, 2);
	assert_int_equal(h.attributes, 0);
	assert_true(h.has_base);
	assert_int_equal(ss_batch_verify(example, &h), 0);
	int64_t base = -5;
	assert_int_equal(ss_batch_count_records(example, &h, &base), 1);
	assert_int_equal(base, 0);

	struct rec_log log = { 0 };
	assert_int_equal(ss_batch_foreach_record(example, &h, log_cb, &log), 0);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.r[0].offset, 0);
	assert_int_equal(log.r[0].timestamp, 1700000000000LL);
	assert_null(log.r[0].key);
	assert_int_equal(log.r[0].key_len, -1);
	assert_int_equal(log.r[0].value_len, 2);
	assert_memory_equal(log.vals[0], "hi", 2);
	assert_int_equal(log.r[0].header_count, 0);

	/* every byte covered by the CRC matters; base offset and leader epoch do not */
	uint8_t b[70];
	for (size_t i = 0; i < sizeof b; i++) {
		memcpy(b, example, sizeof b);
		b[i] ^= 0x40;
		struct ss_batch_hdr hh;
		int rc = ss_batch_header(b, sizeof b, &hh);
		if (rc <= 0)
			continue; /* e.g. size or magic destroyed: a framing error instead */
		if (hh.size != 70)
			continue;
		int v = ss_batch_verify(b, &hh);
		if (i >= 17) /* the stored CRC itself, or a byte it covers */
			assert_int_equal(v, SEGSCAN_ECRC);
		else if (i < 8 || (i >= 12 && i < 16))
			assert_int_equal(v, 0);
	}

	struct ss_walk w;
	for (int verify = 0; verify < 2; verify++) {
		walk_file(example, 70, 70, 0, verify, 0, &w);
		assert_int_equal(w.batches, 1);
		assert_int_equal(w.records, 1); /* the fast path counts from the v2 header */
		assert_int_equal(w.last_offset, 0);
		assert_int_equal(w.valid_bytes, 70);
		assert_int_equal(w.truncated_bytes, 0);
		assert_int_equal(w.max_timestamp, 1700000000000LL);
		assert_int_equal(w.first_base, 0);
		assert_int_equal(w.first_pos, 0);
		assert_int_equal(w.err, 0);
		assert_false(w.zero_tail);
	}
}

/* ---- legacy ---------------------------------------------------------------------------- */

static void test_legacy_messages(void **state)
{
	uint8_t b[128];
	struct ss_batch_hdr h;
	size_t n = build_legacy(b, 7, 0, 0, 0, "k", 1, "hello", 5);
	assert_int_equal(n, 12 + 14 + 1 + 5);
	assert_int_equal(ss_batch_header(b, 25, &h), 0);
	assert_int_equal(ss_batch_header(b, n, &h), 26);
	assert_int_equal(h.magic, 0);
	assert_int_equal(h.size, n);
	assert_int_equal(h.file_offset, 7);
	assert_int_equal(h.base_offset, 7);
	assert_int_equal(h.last_offset, 7);
	assert_int_equal(h.max_timestamp, -1);
	assert_int_equal(h.records_count, 1);
	assert_int_equal(h.leader_epoch, -1);
	assert_true(h.has_base);
	assert_int_equal(h.crc, get32(b + 12));
	assert_int_equal(ss_batch_verify(b, &h), 0);
	int64_t base = -1;
	assert_int_equal(ss_batch_count_records(b, &h, &base), 1);
	assert_int_equal(base, 7);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, NULL), SEGSCAN_EMAGIC);
	b[n - 1] ^= 1;
	assert_int_equal(ss_batch_verify(b, &h), SEGSCAN_ECRC);

	n = build_legacy(b, 8, 1, 0, 1700000000123LL, NULL, -1, "abc", 3);
	assert_int_equal(n, 12 + 22 + 3);
	assert_int_equal(ss_batch_header(b, 33, &h), 0);
	assert_int_equal(ss_batch_header(b, n, &h), 34);
	assert_int_equal(h.magic, 1);
	assert_int_equal(h.last_offset, 8);
	assert_int_equal(h.max_timestamp, 1700000000123LL);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	assert_int_equal(ss_batch_count_records(b, &h, &base), 1);
	assert_int_equal(base, 8);
	/* the CRC starts at the magic byte: the offset is outside it */
	put64(b, 99);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	b[16 + 1] ^= 0x08; /* attributes are inside */
	assert_int_equal(ss_batch_verify(b, &h), SEGSCAN_ECRC);

	/* v1 needs its 22 bytes, v0 its 14 */
	n = build_legacy(b, 8, 1, 0, 5, NULL, -1, NULL, -1);
	put32(b + 8, 21);
	assert_int_equal(ss_batch_header(b, n, &h), SEGSCAN_ECORRUPT);
}

/* Inner messages i = 0..n-1, magic m, offsets (rel or absolute) off0 + i, compressed. */
static size_t build_wrapper(uint8_t *out, int magic, int64_t wrapper_off, int64_t off0, int n, int inner_attr,
			    int inner_magic)
{
	uint8_t inner[2048], z[2048];
	size_t in = 0;
	for (int i = 0; i < n; i++) {
		char v[16];
		int vl = snprintf(v, sizeof v, "value-%d", i);
		in += build_legacy(inner + in, off0 + i, inner_magic, inner_attr, 100 + (i * 200) % 300, NULL, -1, v, vl);
	}
	size_t zl = gzip_bytes(inner, in, z, sizeof z);
	return build_legacy(out, wrapper_off, magic, 1, 300, NULL, -1, z, (int)zl);
}

static void test_legacy_gzip_wrapper(void **state)
{
	uint8_t b[2048];
	struct ss_batch_hdr h;
	int64_t base = -1;

	/* v1: inner offsets relative 0..2, wrapper holds the absolute last offset 42 */
	size_t n = build_wrapper(b, 1, 42, 0, 3, 0, 1);
	assert_int_equal(ss_batch_header(b, n, &h), 34);
	assert_false(h.has_base);
	assert_int_equal(h.records_count, -1);
	assert_int_equal(h.last_offset, 42);
	assert_int_equal(h.attributes & SS_ATTR_CODEC_MASK, SS_CODEC_GZIP);
	assert_int_equal(h.max_timestamp, 300);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	assert_int_equal(ss_batch_count_records(b, &h, &base), 3);
	assert_int_equal(base, 40);

	/* relative offsets need not start at 0 (compaction): base = 42 - 6 + 4 */
	n = build_wrapper(b, 1, 42, 4, 3, 0, 1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), 3);
	assert_int_equal(base, 40);

	/* librdkafka's wrapper offset 0: base 0 */
	n = build_wrapper(b, 1, 0, 0, 3, 0, 1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), 3);
	assert_int_equal(base, 0);

	/* wrapper offset below the last relative offset */
	n = build_wrapper(b, 1, 1, 0, 3, 0, 1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECORRUPT);

	/* v0: inner offsets absolute */
	n = build_wrapper(b, 0, 12, 10, 3, 0, 0);
	assert_int_equal(ss_batch_header(b, n, &h), 26);
	assert_int_equal(h.max_timestamp, -1);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	assert_int_equal(ss_batch_count_records(b, &h, &base), 3);
	assert_int_equal(base, 10);

	/* nested compression, mismatched inner magic, empty and null payloads, zstd */
	n = build_wrapper(b, 1, 42, 0, 3, 1, 1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECORRUPT);
	n = build_wrapper(b, 1, 42, 0, 3, 0, 0);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECORRUPT);
	n = build_wrapper(b, 1, 42, 0, 0, 0, 1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECORRUPT);
	n = build_legacy(b, 5, 1, 1, 0, NULL, -1, NULL, -1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECORRUPT);
	n = build_legacy(b, 5, 1, 4, 0, NULL, -1, "xxxx", 4);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECODEC);
	/* a payload that is not gzip */
	n = build_legacy(b, 5, 1, 1, 0, NULL, -1, "not gzip at all", 15);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECODEC);
	/* a value length running past the entry */
	n = build_wrapper(b, 1, 42, 0, 3, 0, 1);
	put32(b + 30, get32(b + 30) + 1); /* v1, null key: value length at 12 + 18 */
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_count_records(b, &h, &base), SEGSCAN_ECORRUPT);
}

/* ---- v2 special batches ------------------------------------------------------------------ */

static void test_control_batch(void **state)
{
	/* a transaction COMMIT marker: key = version 0, type 1; value = version 0, epoch 5 */
	uint8_t recs[64], b[256];
	static const char key[4] = { 0, 0, 0, 1 };
	static const char val[6] = { 0, 0, 0, 0, 0, 5 };
	size_t rl = put_record(recs, 0, 0, key, 4, val, 6, 0);
	struct v2spec s = { .base = 500, .epoch = 3, .attrs = SS_ATTR_CONTROL | SS_ATTR_TRANSACTIONAL,
			    .last_delta = 0, .base_ts = 1700000000500LL, .max_ts = 1700000000500LL,
			    .pid = 1234, .pepoch = 3, .bseq = -1, .count = 1 };
	size_t n = build_v2(b, &s, recs, rl);
	struct ss_batch_hdr h;
	assert_int_equal(ss_batch_header(b, n, &h), 61);
	assert_int_equal(h.attributes, 0x30);
	assert_int_equal(h.producer_id, 1234);
	assert_int_equal(h.producer_epoch, 3);
	assert_int_equal(h.base_sequence, -1);
	assert_int_equal(h.leader_epoch, 3);
	assert_int_equal(h.last_offset, 500);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	struct rec_log log = { 0 };
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.r[0].offset, 500);
	assert_int_equal(log.r[0].key_len, 4);
	assert_memory_equal(log.keys[0], key, 4);
	assert_int_equal(log.r[0].value_len, 6);
	assert_memory_equal(log.vals[0], val, 6);
	struct ss_walk w;
	walk_file(b, (int64_t)n, (int64_t)n, 0, true, 0, &w);
	assert_int_equal(w.records, 1);
	assert_int_equal(w.crc_errors, 0);
	assert_int_equal(w.last_offset, 500);
}

static void test_empty_batch(void **state)
{
	/* compaction removed every record but kept the batch: offsets 100..104 preserved */
	uint8_t b[128];
	struct v2spec s = { .base = 100, .epoch = 0, .attrs = 0, .last_delta = 4, .base_ts = -1,
			    .max_ts = 1700000000000LL, .pid = 77, .pepoch = 0, .bseq = 10, .count = 0 };
	size_t n = build_v2(b, &s, NULL, 0);
	assert_int_equal(n, 61);
	struct ss_batch_hdr h;
	assert_int_equal(ss_batch_header(b, n, &h), 61);
	assert_int_equal(h.records_count, 0);
	assert_int_equal(h.base_offset, 100);
	assert_int_equal(h.last_offset, 104);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	int64_t base;
	assert_int_equal(ss_batch_count_records(b, &h, &base), 0);
	assert_int_equal(base, 100);
	struct rec_log log = { 0 };
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
	assert_int_equal(log.n, 0);
	struct ss_walk w;
	walk_file(b, 61, 61, 0, true, 0, &w);
	assert_int_equal(w.batches, 1);
	assert_int_equal(w.records, 0);
	assert_int_equal(w.last_offset, 104);
	assert_int_equal(w.first_base, 100);
	assert_int_equal(w.valid_bytes, 61);
}

/* Several records with keys, null values, headers, negative timestamp deltas, gaps. */
static void test_records_v2(void **state)
{
	uint8_t recs[1024], b[1200];
	size_t rl = 0;
	rl += put_record(recs + rl, 0, 0, "k0", 2, "v0", 2, 0);
	rl += put_record(recs + rl, -500, 2, NULL, -1, NULL, -1, 2);
	rl += put_record(recs + rl, 70000, 7, "", 0, "value", 5, 1);
	struct v2spec s = { .base = 1000, .attrs = 0, .last_delta = 7, .base_ts = 1700000000000LL,
			    .max_ts = 1700000070000LL, .pid = -1, .pepoch = -1, .bseq = -1, .count = 3 };
	size_t n = build_v2(b, &s, recs, rl);
	struct ss_batch_hdr h;
	assert_int_equal(ss_batch_header(b, n, &h), 61);
	struct rec_log log = { 0 };
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.r[0].offset, 1000);
	assert_int_equal(log.r[1].offset, 1002);
	assert_int_equal(log.r[2].offset, 1007);
	assert_int_equal(log.r[0].timestamp, 1700000000000LL);
	assert_int_equal(log.r[1].timestamp, 1699999999500LL);
	assert_int_equal(log.r[2].timestamp, 1700000070000LL);
	assert_int_equal(log.r[1].key_len, -1);
	assert_int_equal(log.r[1].value_len, -1);
	assert_null(log.r[1].value);
	assert_int_equal(log.r[1].header_count, 2);
	assert_int_equal(log.r[2].key_len, 0);
	assert_non_null(log.r[2].key);
	assert_int_equal(log.r[2].header_count, 1);

	/* LogAppendTime: every record reports maxTimestamp */
	s.attrs = SS_ATTR_LOG_APPEND;
	s.max_ts = 1800000000000LL;
	n = build_v2(b, &s, recs, rl);
	ss_batch_header(b, n, &h);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(log.r[i].timestamp, 1800000000000LL);

	/* the callback's nonzero return stops the iteration and is returned */
	memset(&log, 0, sizeof log);
	log.stop_after = 2;
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 77);
	assert_int_equal(log.n, 2);
}

/* Issue 14 item 8: a record's offsetDelta that takes base + delta past int64 (a batch
 * based at INT64_MIN with a negative delta, or near INT64_MAX with a large one, both
 * reachable from a __remote_log_metadata segment) is a corrupt record, not signed
 * overflow (UBSan aborts the ASan build on the unfixed code). */
static void test_record_offset_overflow(void **state)
{
	uint8_t recs[64], b[256];
	struct ss_batch_hdr h;
	struct v2spec s = { .base = INT64_MIN, .last_delta = 0, .pid = -1, .pepoch = -1, .bseq = -1, .count = 1 };
	struct rec_log log;
	size_t rl = put_record(recs, 0, -1, "k", 1, "v", 1, 0), n = build_v2(b, &s, recs, rl);
	assert_true(ss_batch_header(b, n, &h) > 0);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	assert_int_equal(log.n, 0);

	s.base = INT64_MAX - 5;
	s.last_delta = 5;
	rl = put_record(recs, 0, 100, "k", 1, "v", 1, 0);
	n = build_v2(b, &s, recs, rl);
	assert_true(ss_batch_header(b, n, &h) > 0);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);

	/* the largest offset that fits is still a record */
	rl = put_record(recs, 0, 5, "k", 1, "v", 1, 0);
	n = build_v2(b, &s, recs, rl);
	assert_true(ss_batch_header(b, n, &h) > 0);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
	assert_int_equal(log.n, 1);
	assert_true(log.r[0].offset == INT64_MAX);
}

/* Malformed record sections (§2.6 validation rules). */
static void test_records_malformed(void **state)
{
	uint8_t recs[256], b[512];
	struct ss_batch_hdr h;
	struct v2spec s = { .base = 0, .last_delta = 0, .base_ts = 0, .max_ts = 0, .pid = -1, .pepoch = -1,
			    .bseq = -1, .count = 1 };
	struct rec_log log;
	size_t rl, n;

	/* declared count larger than the records present */
	rl = put_record(recs, 0, 0, "k", 1, "v", 1, 0);
	s.count = 2;
	n = build_v2(b, &s, recs, rl);
	ss_batch_header(b, n, &h);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	/* bytes left after the last record ("Incorrect declared batch size") */
	s.count = 1;
	recs[rl] = 0x00;
	n = build_v2(b, &s, recs, rl + 1);
	ss_batch_header(b, n, &h);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	/* record length running past the batch */
	rl = put_record(recs, 0, 0, "k", 1, "v", 1, 0);
	recs[0] += 2 * 3; /* zig-zag: +3 bytes */
	n = build_v2(b, &s, recs, rl);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	/* a record body longer than its fields (not consumed exactly) */
	rl = put_record(recs, 0, 0, "k", 1, "v", 1, 0);
	recs[0] += 2;
	recs[rl] = 0;
	n = build_v2(b, &s, recs, rl + 1);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	/* a 6-byte offsetDelta varint (an int varint has at most 5) */
	static const uint8_t bad_varint[] = { 0x16, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x01, 0x01, 0x00 };
	n = build_v2(b, &s, bad_varint, sizeof bad_varint);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_EVARINT);
	/* a negative header count, and a null header key */
	static const uint8_t neg_hc[] = { 0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01 };
	n = build_v2(b, &s, neg_hc, sizeof neg_hc);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	static const uint8_t null_hkey[] = { 0x0e, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x01 };
	n = build_v2(b, &s, null_hkey, sizeof null_hkey);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	/* a value length that runs past the record */
	static const uint8_t long_val[] = { 0x0a, 0x00, 0x00, 0x00, 0x01, 0x20 };
	n = build_v2(b, &s, long_val, sizeof long_val);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
	/* a compressed batch whose payload is not what the codec says */
	s.attrs = SS_CODEC_ZSTD;
	n = build_v2(b, &s, (const uint8_t *)"garbage!", 8);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECODEC);
	s.attrs = 6; /* no codec 6 */
	n = build_v2(b, &s, (const uint8_t *)"garbage!", 8);
	ss_batch_header(b, n, &h);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECODEC);
}

/* A gzip-compressed v2 batch built here with zlib (the kafka-python ones are below). */
static void test_compressed_v2(void **state)
{
	uint8_t recs[1024], z[1024], b[1200];
	size_t rl = 0;
	for (int i = 0; i < 10; i++)
		rl += put_record(recs + rl, i, i, "key", 3, "a value that compresses well", 28, i % 2);
	size_t zl = gzip_bytes(recs, rl, z, sizeof z);
	struct v2spec s = { .base = 50, .attrs = SS_CODEC_GZIP, .last_delta = 9, .base_ts = 1000, .max_ts = 1009,
			    .pid = -1, .pepoch = -1, .bseq = -1, .count = 10 };
	size_t n = build_v2(b, &s, z, zl);
	struct ss_batch_hdr h;
	assert_int_equal(ss_batch_header(b, n, &h), 61);
	assert_int_equal(ss_batch_verify(b, &h), 0);
	struct rec_log log = { 0 };
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
	assert_int_equal(log.n, 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(log.r[i].offset, 50 + i);
		assert_int_equal(log.r[i].timestamp, 1000 + i);
		assert_int_equal(log.r[i].header_count, i % 2);
	}
	/* an unexhausted compressed stream */
	s.count = 9;
	n = build_v2(b, &s, z, zl);
	ss_batch_header(b, n, &h);
	memset(&log, 0, sizeof log);
	assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), SEGSCAN_ECORRUPT);
}

/* ---- header errors --------------------------------------------------------------------------- */

static void test_header_errors(void **state)
{
	uint8_t b[128];
	struct ss_batch_hdr h;
	memcpy(b, example, sizeof example);
	put32(b + 8, 13); /* size < 14 */
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_ECORRUPT);
	put32(b + 8, 0xffffffffu); /* negative */
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_ECORRUPT);
	put32(b + 8, 48); /* v2: 48 + 12 = 60 < 61 */
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_ECORRUPT);
	put32(b + 8, 49);
	assert_int_equal(ss_batch_header(b, 70, &h), 61);
	memcpy(b, example, sizeof example);
	b[16] = 3;
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_EMAGIC);
	b[16] = 0xff;
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_EMAGIC);
	memcpy(b, example, sizeof example);
	put32(b + 57, 0xffffffffu); /* recordsCount -1 */
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_ECORRUPT);
	memcpy(b, example, sizeof example);
	put32(b + 23, 0xffffffffu); /* lastOffsetDelta -1 */
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_ECORRUPT);
	memcpy(b, example, sizeof example);
	put64(b, INT64_MAX);
	put32(b + 23, 1); /* base + delta overflows */
	assert_int_equal(ss_batch_header(b, 70, &h), SEGSCAN_ECORRUPT);
	/* attributes: only the low byte of the int16 counts */
	memcpy(b, example, sizeof example);
	b[21] = 0xff;
	assert_int_equal(ss_batch_header(b, 70, &h), 61);
	assert_int_equal(h.attributes, 0);
}

/* ---- kafka-python vectors ---------------------------------------------------------------------- */

struct vec {
	json_t *root, *batches, *entries;
	uint8_t *seg;
	size_t seg_len;
};

static void load_vec(struct vec *v)
{
	json_error_t err;
	v->root = json_load_file("tests/vectors/vectors.json", 0, &err);
	if (!v->root)
		fail_msg("vectors.json: %s", err.text);
	v->batches = json_object_get(v->root, "batches");
	v->entries = json_object_get(v->batches, "entries");
	assert_true(json_array_size(v->entries) >= 10);
	v->seg = (uint8_t *)tu_read_file("tests/vectors/segment.bin", &v->seg_len);
	assert_non_null(v->seg);
	assert_int_equal(v->seg_len, json_integer_value(json_object_get(v->batches, "segment_size")));
}

static void free_vec(struct vec *v)
{
	json_decref(v->root);
	free(v->seg);
}

static int64_t jint(json_t *o, const char *k)
{
	json_t *x = json_object_get(o, k);
	assert_non_null(x);
	return json_is_null(x) ? -1 : json_integer_value(x);
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

static void assert_hex_equal(const char *hex, const uint8_t *p, int32_t len)
{
	assert_int_equal(strlen(hex), (size_t)len * 2);
	for (int32_t i = 0; i < len; i++)
		assert_int_equal(p[i], hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
}

static void test_vectors_entries(void **state)
{
	struct vec v;
	load_vec(&v);
	size_t i;
	json_t *e;
	int magics[3] = { 0 }, codecs[5] = { 0 };
	json_array_foreach(v.entries, i, e) {
		int64_t pos = jint(e, "pos"), size = jint(e, "size");
		/* each entry in an exact-size copy so ASan sees any overread */
		uint8_t *b = malloc((size_t)size);
		memcpy(b, v.seg + pos, (size_t)size);
		struct ss_batch_hdr h;
		assert_true(ss_batch_header(b, (size_t)size, &h) > 0);
		assert_int_equal(h.size, size);
		assert_int_equal(h.magic, jint(e, "magic"));
		assert_int_equal(h.attributes & SS_ATTR_CODEC_MASK, jint(e, "codec"));
		assert_int_equal(h.last_offset, jint(e, "last_offset"));
		assert_int_equal(ss_batch_verify(b, &h) == 0, json_is_true(json_object_get(e, "crc_valid")));
		int64_t base = -7;
		assert_int_equal(ss_batch_count_records(b, &h, &base), jint(e, "records"));
		assert_int_equal(base, jint(e, "base_offset"));
		if (h.has_base)
			assert_int_equal(h.base_offset, jint(e, "base_offset"));
		assert_int_equal(h.max_timestamp, jint(e, "max_timestamp"));
		if (h.magic == 2) {
			assert_int_equal(h.attributes, jint(e, "attributes"));
			json_t *detail = json_object_get(e, "detail");
			struct rec_log log = { 0 };
			assert_int_equal(ss_batch_foreach_record(b, &h, log_cb, &log), 0);
			assert_int_equal((size_t)log.n, json_array_size(detail));
			size_t k;
			json_t *d;
			json_array_foreach(detail, k, d) {
				assert_int_equal(log.r[k].offset, jint(d, "offset"));
				assert_int_equal(log.r[k].timestamp, jint(d, "timestamp"));
				assert_int_equal(log.r[k].header_count, jint(d, "headers"));
				json_t *key = json_object_get(d, "key"), *val = json_object_get(d, "value");
				if (json_is_null(key))
					assert_true(log.r[k].key_len < 0);
				else
					assert_hex_equal(json_string_value(key), log.keys[k], log.r[k].key_len);
				if (json_is_null(val))
					assert_true(log.r[k].value_len < 0);
				else
					assert_hex_equal(json_string_value(val), log.vals[k], log.r[k].value_len);
			}
		}
		magics[h.magic]++;
		codecs[h.attributes & SS_ATTR_CODEC_MASK]++;
		free(b);
	}
	/* the generator produced every magic and every codec */
	for (int m = 0; m < 3; m++)
		assert_true(magics[m] > 0);
	for (int c = 0; c < 5; c++)
		assert_true(codecs[c] > 0);
	free_vec(&v);
}

/* The walker over the whole kafka-python segment: totals as kafka-python reads them, and
 * the same result whatever the read sizes. */
static void test_walker_vectors_chunks(void **state)
{
	struct vec v;
	load_vec(&v);
	json_t *tot = json_object_get(v.batches, "totals");
	int64_t len = (int64_t)v.seg_len;
	struct ss_walk ref[2], w;
	for (int verify = 0; verify < 2; verify++) {
		walk_file(v.seg, len, len, 0, verify, 0, &ref[verify]);
		struct ss_walk *r = &ref[verify];
		assert_int_equal(r->batches, jint(tot, "batches"));
		assert_int_equal(r->records, verify ? jint(tot, "records") : -1);
		assert_int_equal(r->last_offset, jint(tot, "last_offset"));
		assert_int_equal(r->max_timestamp, jint(tot, "max_timestamp"));
		assert_int_equal(r->first_base, jint(tot, "first_base"));
		assert_int_equal(r->first_pos, 0);
		assert_int_equal(r->valid_bytes, len);
		assert_int_equal(r->truncated_bytes, 0);
		assert_int_equal(r->crc_errors, 0);
		assert_int_equal(r->offset_errors, 0);
		assert_int_equal(r->err, 0);
		assert_false(r->zero_tail);
		for (int64_t chunk = 1; chunk <= 200; chunk++) {
			walk_file(v.seg, len, len, 0, verify, chunk, &w);
			assert_same_walk(&w, r);
		}
		walk_file(v.seg, len, len, 0, verify, len, &w);
		assert_same_walk(&w, r);
	}
	free_vec(&v);
}

/* Cut the segment at every length: complete entries count, the rest is a truncated tail. */
static void test_walker_truncated_tail(void **state)
{
	struct vec v;
	load_vec(&v);
	int64_t len = (int64_t)v.seg_len;
	size_t ne = json_array_size(v.entries);
	for (int64_t cut = 0; cut < len; cut += (cut % 50 == 0) ? 1 : 7) {
		/* expected, from kafka-python's entry table */
		int64_t done_end = 0, nb = 0, recs = 0, last = -1;
		bool wrapper = false; /* a legacy compressed entry: headers alone cannot count it */
		for (size_t i = 0; i < ne; i++) {
			json_t *e = json_array_get(v.entries, i);
			if (jint(e, "pos") + jint(e, "size") > cut)
				break;
			done_end = jint(e, "pos") + jint(e, "size");
			nb++;
			recs += jint(e, "records");
			if (jint(e, "magic") < 2 && jint(e, "codec") != 0)
				wrapper = true;
			last = jint(e, "last_offset");
		}
		bool zeros = true;
		for (int64_t k = done_end; k < cut; k++)
			zeros &= v.seg[k] == 0;
		for (int verify = 0; verify < 2; verify++) {
			struct ss_walk w, w2;
			walk_file(v.seg, cut, cut, 0, verify, 0, &w);
			assert_int_equal(w.batches, nb);
			assert_int_equal(w.records, verify || !wrapper ? recs : -1);
			assert_int_equal(w.last_offset, last);
			assert_int_equal(w.valid_bytes, done_end);
			assert_int_equal(w.truncated_bytes, cut - done_end);
			assert_int_equal(w.err, 0);
			/* only a remainder of < 17 bytes can be all zero here */
			assert_int_equal(w.zero_tail, cut > done_end && zeros);
			walk_file(v.seg, cut, cut, 0, verify, 37, &w2);
			assert_same_walk(&w, &w2);
		}
	}
	free_vec(&v);
}

/* A preallocated (or crashed) active segment: data, then zeros to the end. */
static void test_walker_zero_tail(void **state)
{
	struct vec v;
	load_vec(&v);
	int64_t len = (int64_t)v.seg_len;
	const int64_t tails[] = { 1, 16, 17, 18, 61, 100, 5000, (3 << 20) + 5 };
	for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
		int64_t fl = len + tails[t];
		uint8_t *f = calloc(1, (size_t)fl);
		memcpy(f, v.seg, v.seg_len);
		for (int verify = 0; verify < 2; verify++) {
			struct ss_walk w, w2;
			walk_file(f, fl, fl, 0, verify, 0, &w);
			assert_int_equal(w.err, 0);
			assert_true(w.zero_tail);
			assert_int_equal(w.truncated_bytes, tails[t]);
			assert_int_equal(w.valid_bytes, len);
			assert_int_equal(w.batches, json_array_size(v.entries));
			walk_file(f, fl, fl, 0, verify, 113, &w2);
			assert_same_walk(&w, &w2);
			/* one non-zero byte at the very end: size 0 is corruption after all */
			if (tails[t] > 17) {
				f[fl - 1] = 1;
				walk_file(f, fl, fl, 0, verify, 0, &w);
				assert_int_equal(w.err, SEGSCAN_ECORRUPT);
				assert_int_equal(w.err_pos, len);
				assert_false(w.zero_tail);
				assert_int_equal(w.valid_bytes, len);
				assert_int_equal(w.batches, json_array_size(v.entries));
				f[fl - 1] = 0;
			}
		}
		free(f);
	}
	/* an entirely zero file: no entry at all */
	uint8_t *z = calloc(1, 4096);
	struct ss_walk w;
	walk_file(z, 4096, 4096, 0, true, 0, &w);
	assert_true(w.zero_tail);
	assert_int_equal(w.truncated_bytes, 4096);
	assert_int_equal(w.batches, 0);
	assert_int_equal(w.last_offset, -1);
	assert_int_equal(w.first_base, -1);
	assert_int_equal(w.valid_bytes, 0);
	free(z);
	free_vec(&v);
}

static void test_walker_framing_errors(void **state)
{
	uint8_t f[256];
	struct ss_walk w;
	/* example, then an entry with size 13 and non-zero bytes */
	memcpy(f, example, 70);
	memset(f + 70, 0xab, 100);
	put32(f + 70 + 8, 13);
	for (int verify = 0; verify < 2; verify++) {
		walk_file(f, 170, 170, 0, verify, 0, &w);
		assert_int_equal(w.err, SEGSCAN_ECORRUPT);
		assert_int_equal(w.err_pos, 70);
		assert_int_equal(w.batches, 1);
		assert_int_equal(w.valid_bytes, 70);
	}
	/* magic 3 */
	memcpy(f + 70, example, 70);
	f[70 + 16] = 3;
	for (int verify = 0; verify < 2; verify++) {
		walk_file(f, 140, 140, 0, verify, 0, &w);
		assert_int_equal(w.err, SEGSCAN_EMAGIC);
		assert_int_equal(w.err_pos, 70);
		assert_int_equal(w.batches, 1);
	}
	/* FileLogInputStream: 17 bytes or fewer left is the end of the data, whatever they
	 * hold (even a size < 14); one more byte and the size is read and judged */
	memset(f + 70, 0xab, 18);
	put32(f + 70 + 8, 5);
	for (int verify = 0; verify < 2; verify++) {
		walk_file(f, 87, 87, 0, verify, 0, &w);
		assert_int_equal(w.err, 0);
		assert_int_equal(w.truncated_bytes, 17);
		assert_false(w.zero_tail);
		walk_file(f, 88, 88, 0, verify, 0, &w);
		assert_int_equal(w.err, SEGSCAN_ECORRUPT);
		assert_int_equal(w.err_pos, 70);
	}
	/* v2 with size < 61 */
	memcpy(f + 70, example, 70);
	put32(f + 70 + 8, 40);
	walk_file(f, 140, 140, 0, false, 0, &w);
	assert_int_equal(w.err, SEGSCAN_ECORRUPT);
	assert_int_equal(w.err_pos, 70);
}

/* A CRC error is counted; valid_bytes stops at it (Kafka's recovery would truncate
 * there); the fast path does not look. */
static void test_walker_crc_error(void **state)
{
	struct vec v;
	load_vec(&v);
	int64_t len = (int64_t)v.seg_len;
	uint8_t *f = malloc(v.seg_len);
	size_t ne = json_array_size(v.entries);
	for (size_t k = 0; k < ne; k += 3) {
		json_t *e = json_array_get(v.entries, k);
		int64_t pos = jint(e, "pos"), size = jint(e, "size");
		memcpy(f, v.seg, v.seg_len);
		f[pos + size - 1] ^= 0x01; /* last byte: inside every CRC */
		struct ss_walk w;
		walk_file(f, len, len, 0, true, 0, &w);
		assert_int_equal(w.crc_errors, 1);
		assert_int_equal(w.valid_bytes, pos);
		assert_int_equal(w.batches, ne);
		assert_int_equal(w.last_offset, jint(json_array_get(v.entries, ne - 1), "last_offset"));
		walk_file(f, len, len, 0, false, 0, &w);
		assert_int_equal(w.crc_errors, 0);
		assert_int_equal(w.valid_bytes, len);
	}
	free(f);
	free_vec(&v);
}

/* Offsets going backwards: the base offset is outside the CRC, so the batches stay valid. */
static void test_walker_offsets_backwards(void **state)
{
	uint8_t f[256];
	memcpy(f, example, 70);
	memcpy(f + 70, example, 70);
	put64(f, 10);
	put64(f + 70, 10); /* same offset again */
	struct ss_walk w;
	walk_file(f, 140, 140, 0, true, 0, &w);
	assert_int_equal(w.offset_errors, 1);
	assert_int_equal(w.crc_errors, 0);
	assert_int_equal(w.batches, 2);
	assert_int_equal(w.valid_bytes, 140);
	put64(f + 70, 11);
	walk_file(f, 140, 140, 0, true, 0, &w);
	assert_int_equal(w.offset_errors, 0);
	put64(f + 70, 3);
	walk_file(f, 140, 140, 0, true, 0, &w);
	assert_int_equal(w.offset_errors, 1);
	assert_int_equal(w.last_offset, 3);
	walk_file(f, 140, 140, 0, false, 0, &w);
	assert_int_equal(w.offset_errors, 0); /* checked in verify mode only */
}

/* Starting at an entry (as after an index lookup). */
static void test_walker_start_pos(void **state)
{
	struct vec v;
	load_vec(&v);
	int64_t len = (int64_t)v.seg_len;
	size_t ne = json_array_size(v.entries);
	for (size_t k = 0; k < ne; k++) {
		json_t *e = json_array_get(v.entries, k);
		struct ss_walk w;
		walk_file(v.seg, len, len, jint(e, "pos"), true, 0, &w);
		assert_int_equal(w.first_pos, jint(e, "pos"));
		assert_int_equal(w.first_base, jint(e, "base_offset"));
		assert_int_equal(w.batches, (int64_t)(ne - k));
		assert_int_equal(w.valid_bytes, len);
		walk_file(v.seg, len, len, jint(e, "pos"), false, 0, &w);
		assert_int_equal(w.first_pos, jint(e, "pos"));
		/* the fast path cannot know a legacy wrapper's base without decompressing */
		bool wrapper = jint(e, "magic") < 2 && jint(e, "codec") != 0;
		assert_int_equal(w.first_base, wrapper ? -1 : jint(e, "base_offset"));
	}
	struct ss_walk w;
	ss_walk_init(&w, 0, len, len, true);
	assert_true(ss_walk_done(&w));
	assert_int_equal(w.batches, 0);
	assert_int_equal(w.valid_bytes, len);
	ss_walk_init(&w, 0, 0, 0, false);
	assert_true(ss_walk_done(&w));
	assert_int_equal(w.last_offset, -1);
	free_vec(&v);
}

/* The file shrinks while being read: a short read is the new end of file. */
static void test_walker_shrink(void **state)
{
	struct vec v;
	load_vec(&v);
	int64_t len = (int64_t)v.seg_len;
	size_t ne = json_array_size(v.entries);
	json_t *mid = json_array_get(v.entries, ne / 2);
	int64_t cut = jint(mid, "pos") + jint(mid, "size") / 2;
	for (int verify = 0; verify < 2; verify++) {
		for (int64_t chunk = 0; chunk <= 4096; chunk += 512) {
			struct ss_walk w;
			/* the walker believes the file is len + 1000 bytes; only len exist */
			walk_file(v.seg, len, len + 1000, 0, verify, chunk, &w);
			assert_true(w.done);
			assert_int_equal(w.file_size, len);
			assert_int_equal(w.batches, ne);
			assert_int_equal(w.truncated_bytes, 0);
			assert_int_equal(w.valid_bytes, len);
			assert_int_equal(w.err, 0);
			/* shrunk in the middle of an entry */
			walk_file(v.seg, cut, len, 0, verify, chunk, &w);
			assert_int_equal(w.err, 0);
			if (verify || w.file_size == cut) {
				assert_int_equal(w.file_size, cut);
				assert_int_equal(w.batches, (int64_t)(ne / 2));
				assert_int_equal(w.valid_bytes, jint(mid, "pos"));
				assert_int_equal(w.truncated_bytes, cut - jint(mid, "pos"));
			} else {
				/* The fast path reads only the header of that entry; it learns of the
				 * shrink from the next short read, which can only say "nothing here". */
				int64_t mid_end = jint(mid, "pos") + jint(mid, "size");
				assert_true(chunk < len - cut + jint(mid, "size"));
				assert_int_equal(w.file_size, mid_end);
				assert_int_equal(w.batches, (int64_t)(ne / 2 + 1));
				assert_int_equal(w.valid_bytes, mid_end);
				assert_int_equal(w.truncated_bytes, 0);
			}
		}
	}
	free_vec(&v);
}

static void test_walker_einval(void **state)
{
	struct ss_walk w;
	ss_walk_init(&w, 0, 70, 0, false);
	assert_int_equal(ss_walk_feed(&w, 1, example + 1, 69), -EINVAL);
	assert_int_equal(ss_walk_feed(&w, 0, example, 70), 0);
	assert_true(ss_walk_done(&w));
	assert_int_equal(ss_walk_feed(&w, w.want_pos, example, 70), -EINVAL);
	assert_int_equal(w.batches, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_legacy_messages),
		cmocka_unit_test(test_legacy_gzip_wrapper),
		cmocka_unit_test(test_control_batch),
		cmocka_unit_test(test_empty_batch),
		cmocka_unit_test(test_records_v2),
		cmocka_unit_test(test_records_malformed),
		cmocka_unit_test(test_compressed_v2),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_vectors_entries),
		cmocka_unit_test(test_walker_vectors_chunks),
		cmocka_unit_test(test_walker_truncated_tail),
		cmocka_unit_test(test_walker_zero_tail),
		cmocka_unit_test(test_walker_framing_errors),
		cmocka_unit_test(test_walker_crc_error),
		cmocka_unit_test(test_walker_offsets_backwards),
		cmocka_unit_test(test_walker_start_pos),
		cmocka_unit_test(test_walker_shrink),
		cmocka_unit_test(test_walker_einval),
		cmocka_unit_test(test_record_offset_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
