/*
 * Issue 14 item 4: --verify must not allocate what a header claims. A batch larger than
 * the walker's whole_max is CRC-checked in pieces (fmt/batch.h), so no request is ever
 * larger than SS_WALK_WHOLE_MAX; the verdicts equal those of checking every batch whole.
 * End to end, a segment whose header claims a 600 MiB batch costs the scan no more memory
 * than any other (under an address-space limit far below the claim), and is an error of
 * that segment only: the other partitions are still reported.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <inttypes.h>

#include <zlib.h>

#include "fmt/crc32c.h"
#include "gen/encode.h"
#include "testutil.h"
#include "scanutil.h"

#define MiB ((int64_t)1 << 20)

struct file {
	uint8_t *b;
	size_t   len, cap;
};

static void put(struct file *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2;
		f->b = realloc(f->b, f->cap);
		assert_non_null(f->b);
	}
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

/* One v2 batch of `n` records with values of `vlen` bytes, at base offset `base`. */
static void put_batch(struct file *f, struct ss_enc *e, int64_t base, int n, size_t vlen, enum ss_codec codec)
{
	uint8_t *v = malloc(vlen ? vlen : 1);
	assert_non_null(v);
	for (size_t i = 0; i < vlen; i++)
		v[i] = (uint8_t)(i * 131 + (size_t)base);
	ss_enc_begin(e, &(struct ss_enc_batch){ .base_offset = base, .leader_epoch = 3, .codec = codec,
						 .producer_id = -1, .producer_epoch = -1, .base_sequence = -1 });
	for (int i = 0; i < n; i++) {
		struct ss_enc_record r = { .timestamp = 1700000000000 + base + i, .offset_delta = i,
					   .key = (const uint8_t *)"k", .key_len = 1, .value = v, .value_len = (int32_t)vlen };
		assert_int_equal(ss_enc_append(e, &r), 0);
	}
	const uint8_t *out;
	size_t len;
	assert_int_equal(ss_enc_finish(e, &out, &len), 0);
	put(f, out, len);
	free(v);
}

/* small, big (3 MiB), medium, big with a flipped byte deep inside, small, big zstd */
static struct file make_file(size_t *bad_at)
{
	struct file f = { 0 };
	struct ss_enc e;
	ss_enc_init(&e);
	put_batch(&f, &e, 0, 10, 90, SS_CODEC_NONE);
	put_batch(&f, &e, 10, 1, (size_t)3 * MiB, SS_CODEC_NONE);
	put_batch(&f, &e, 11, 100, 90, SS_CODEC_NONE);
	size_t start = f.len;
	put_batch(&f, &e, 111, 3, (size_t)MiB + 7, SS_CODEC_NONE);
	*bad_at = start + (f.len - start) * 2 / 3;
	f.b[*bad_at] ^= 0x10;
	put_batch(&f, &e, 114, 1, 10, SS_CODEC_NONE);
	put_batch(&f, &e, 115, 4, (size_t)MiB, SS_CODEC_NONE);
	ss_enc_free(&e);
	return f;
}

/* Drive the walker as the scanner does: reads of max(want_len, chunk) bytes, each a fresh
 * exact malloc (ASan sees any overread); the file may "shrink" to real bytes. */
static void walk(const struct file *f, size_t real, int64_t whole_max, int64_t chunk, struct ss_walk *w,
		 int64_t *max_want)
{
	ss_walk_init(w, 0, (int64_t)f->len, 0, true);
	if (whole_max)
		w->whole_max = whole_max;
	*max_want = 0;
	long feeds = 0;
	while (!ss_walk_done(w)) {
		if (w->want_len > *max_want)
			*max_want = w->want_len;
		int64_t n = w->want_len > chunk ? w->want_len : chunk;
		int64_t avail = (int64_t)real - w->want_pos;
		if (avail < 0)
			avail = 0;
		if (n > avail)
			n = avail;
		uint8_t *b = malloc(n ? (size_t)n : 1);
		assert_non_null(b);
		memcpy(b, f->b + w->want_pos, (size_t)n);
		assert_int_equal(ss_walk_feed(w, w->want_pos, b, (size_t)n), 0);
		free(b);
		assert_true(++feeds < 1000000);
	}
}

static void same(const struct ss_walk *a, const struct ss_walk *b)
{
	assert_int_equal(a->pos, b->pos);
	assert_int_equal(a->valid_bytes, b->valid_bytes);
	assert_int_equal(a->truncated_bytes, b->truncated_bytes);
	assert_int_equal(a->first_base, b->first_base);
	assert_int_equal(a->last_offset, b->last_offset);
	assert_int_equal(a->max_timestamp, b->max_timestamp);
	assert_int_equal(a->batches, b->batches);
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->crc_errors, b->crc_errors);
	assert_int_equal(a->offset_errors, b->offset_errors);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->err_pos, b->err_pos);
}

static void test_pieces_equal_whole(void **state)
{
	(void)state;
	size_t bad;
	struct file f = make_file(&bad);
	struct ss_walk ref, w;
	int64_t mw;
	/* the reference: every batch whole, as verify did before */
	walk(&f, f.len, INT64_MAX, 64 * 1024, &ref, &mw);
	assert_true(mw > 3 * MiB);
	assert_int_equal(ref.batches, 6);
	assert_int_equal(ref.records, 10 + 1 + 100 + 3 + 1 + 4);
	assert_int_equal(ref.crc_errors, 1);
	assert_int_equal(ref.err, 0);
	assert_int_equal(ref.last_offset, 118);
	const int64_t maxes[] = { 0 /* default */, 61, 62, 100, 4096, 65536, 3 * MiB - 1 };
	const int64_t chunks[] = { 1, 61, 4096, 1 << 20 };
	for (size_t i = 0; i < sizeof(maxes) / sizeof(*maxes); i++)
		for (size_t c = 0; c < sizeof(chunks) / sizeof(*chunks); c++) {
			walk(&f, f.len, maxes[i], chunks[c], &w, &mw);
			same(&ref, &w);
			/* never a request larger than whole_max (the reader's buffer) */
			assert_true(mw <= (maxes[i] ? maxes[i] : SS_WALK_WHOLE_MAX));
		}
	/* the file shrinks in the middle of a big batch: a truncated tail, either way */
	size_t cut = bad - 1000;
	walk(&f, cut, INT64_MAX, 64 * 1024, &ref, &mw);
	assert_true(ref.truncated_bytes > 0);
	for (size_t i = 0; i < sizeof(maxes) / sizeof(*maxes); i++) {
		walk(&f, cut, maxes[i], 4096, &w, &mw);
		same(&ref, &w);
		assert_int_equal(w.file_size, (int64_t)cut);
	}
	free(f.b);
}

/* A legacy (v1) uncompressed message bigger than whole_max: CRC-32 in pieces too. */
static void test_pieces_legacy(void **state)
{
	(void)state;
	const size_t vlen = (size_t)2 * MiB;
	struct file f = { 0 };
	size_t body = 4 + 1 + 1 + 8 + 4 + 4 + vlen; /* crc magic attr ts keylen(-1) vallen value */
	uint8_t hdr[12 + 26];
	ss_put_be64(hdr, 5);
	ss_put_be32(hdr + 8, (uint32_t)body);
	hdr[16] = 1;  /* magic */
	hdr[17] = 0;  /* attributes: uncompressed */
	ss_put_be64(hdr + 18, 1700000000123);
	ss_put_be32(hdr + 26, 0xffffffffu);  /* null key */
	ss_put_be32(hdr + 30, (uint32_t)vlen);
	uint8_t *msg = malloc(12 + body);
	assert_non_null(msg);
	memcpy(msg, hdr, 34);
	for (size_t i = 0; i < vlen; i++)
		msg[34 + i] = (uint8_t)(i * 7);
	uLong c = crc32(0L, msg + 16, (uInt)(body - 4));
	ss_put_be32(msg + 12, (uint32_t)c);
	put(&f, msg, 12 + body);
	free(msg);
	struct ss_walk ref, w;
	int64_t mw;
	walk(&f, f.len, INT64_MAX, 65536, &ref, &mw);
	assert_int_equal(ref.crc_errors, 0);
	assert_int_equal(ref.records, 1);
	walk(&f, f.len, 0, 65536, &w, &mw);
	same(&ref, &w);
	assert_true(mw <= SS_WALK_WHOLE_MAX);
	f.b[12 + body - 5] ^= 1;
	walk(&f, f.len, 0, 65536, &w, &mw);
	assert_int_equal(w.crc_errors, 1);
	free(f.b);
}

/* End to end: a 12-byte header claiming a 600 MiB batch in a sparse file that size. */
static void test_scan_claimed_batch(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip(); /* an address-space limit and ASan's shadow memory do not mix */
#else
	const char *bin = tu_segscan();
	char *out = NULL;
	if (access(bin, X_OK) != 0)
		skip();
	char *root = tu_mkdtemp("verify-big");
	assert_non_null(root);
	char *logdir = NULL, *seg = NULL;
	assert_true(asprintf(&logdir, "%s/logdir", root) > 0);
	struct ss_gen_opts o;
	char err[256];
	ss_gen_opts_init(&o);
	o.outdir = logdir;
	o.topics = 1;
	o.partitions = 3;
	o.segments = 2;
	o.segment_bytes = 128 * 1024;
	o.seed = 3;
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), 0);
	/* a fourth partition of one segment: a v2 header claiming 600 MiB, then a hole */
	assert_true(asprintf(&seg, "%s/orders.v2-3", logdir) > 0);
	assert_int_equal(mkdir(seg, 0755), 0);
	free(seg);
	assert_true(asprintf(&seg, "%s/orders.v2-3/00000000000000000000.log", logdir) > 0);
	const int64_t claim = 600 * MiB;
	uint8_t h[61] = { 0 };
	ss_put_be64(h, 0);
	ss_put_be32(h + 8, (uint32_t)(claim - 12));
	h[16] = 2;
	assert_int_equal(tu_write_file(seg, h, sizeof(h)), 0);
	assert_int_equal(truncate(seg, (off_t)claim), 0);
	/* 400 MB of address space: a scan needs far less; the claim alone would not fit */
	int rc = tu_run(&out, "ulimit -v 400000; %s scan --verify -f json --now=1700000000000 '%s' 2>/dev/null", bin,
			logdir);
	assert_int_equal(rc, 1); /* data failing verification, not a failed scan */
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	if (!j)
		fail_msg("not json (%s): %.300s", je.text, out);
	size_t i, seen = 0;
	json_t *p;
	json_array_foreach(json_object_get(j, "partitions"), i, p) {
		json_t *s0 = json_array_get(json_object_get(p, "segments"), 0);
		assert_non_null(s0);
		if (!strcmp(json_string_value(json_object_get(p, "dir")), "orders.v2-3")) {
			assert_int_equal(json_integer_value(json_object_get(s0, "crc_errors")), 1);
			assert_int_equal(json_integer_value(json_object_get(s0, "size_bytes")), claim);
		} else {
			assert_int_equal(json_integer_value(json_object_get(s0, "crc_errors")), 0);
			assert_true(json_integer_value(json_object_get(s0, "records")) > 0);
		}
		seen++;
	}
	assert_int_equal(seen, 4);
	json_decref(j);
	free(out);
	tu_run(NULL, "rm -rf '%s'", root);
	free(seg);
	free(logdir);
	free(root);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_equal_whole),
		cmocka_unit_test(test_pieces_legacy),
		cmocka_unit_test(test_scan_claimed_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
