/* v2 record batch encoder: see encode.h. Layout: docs/kafka-format.md §2.2–2.7. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "segscan.h"
#include "common/darray.h"
#include "fmt/codec.h"
#include "fmt/crc32c.h"
#include "gen/encode.h"

/* Kafka sizes records and batches with int32: a batch must fit in INT32_MAX - 12. */
#define ENC_MAX_BATCH ((size_t)INT32_MAX - SS_LOG_OVERHEAD)

size_t ss_enc_varlong(uint8_t *p, int64_t v)
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

size_t ss_enc_varlong_size(int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 1;
	while (u >= 0x80) {
		u >>= 7;
		n++;
	}
	return n;
}

void ss_enc_init(struct ss_enc *e)
{
	memset(e, 0, sizeof(*e));
}

void ss_enc_free(struct ss_enc *e)
{
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

static int enc_reserve(struct ss_enc *e, size_t need)
{
	if (need > ENC_MAX_BATCH)
		return -EINVAL;
	return SS_DA_RESERVE(&e->buf, &e->cap, need);
}

void ss_enc_begin(struct ss_enc *e, const struct ss_enc_batch *b)
{
	e->b = *b;
	e->len = SS_V2_HEADER_SIZE;
	e->first_ts = -1;   /* RecordBatch.NO_TIMESTAMP until a record arrives */
	e->max_ts = -1;
	e->max_delta = 0;
	e->count = 0;
	e->err = 0;
}

static size_t put_bytes(uint8_t *p, const uint8_t *src, int32_t len)
{
	size_t n = ss_enc_varlong(p, len < 0 ? -1 : len);
	if (len > 0) {
		memcpy(p + n, src, (size_t)len);
		n += (size_t)len;
	}
	return n;
}

int ss_enc_append(struct ss_enc *e, const struct ss_enc_record *r)
{
	int err = -EINVAL;
	if (e->err)
		return e->err;
	if (r->offset_delta < 0 || e->count == INT32_MAX)
		goto fail;

	/* The timestamp delta is relative to the first record's timestamp, which becomes
	 * the batch's baseTimestamp (MemoryRecordsBuilder.appendDefaultRecord). */
	int64_t base_ts = e->count ? e->first_ts : r->timestamp;
	int64_t ts_delta = r->timestamp - base_ts;
	int32_t klen = r->key_len < 0 ? -1 : r->key_len;
	int32_t vlen = r->value_len < 0 ? -1 : r->value_len;

	/* sizes first: the record starts with the varint length of what follows */
	size_t body = 1 + ss_enc_varlong_size(ts_delta) + ss_enc_varlong_size(r->offset_delta) +
		      ss_enc_varlong_size(klen) + (klen > 0 ? (size_t)klen : 0) +
		      ss_enc_varlong_size(vlen) + (vlen > 0 ? (size_t)vlen : 0) +
		      ss_enc_varlong_size(r->n_headers);
	for (uint32_t i = 0; i < r->n_headers; i++) {
		const struct ss_enc_header *h = &r->headers[i];
		if (h->key_len > INT32_MAX)
			goto fail;
		int32_t hv = h->value_len < 0 ? -1 : h->value_len;
		body += ss_enc_varlong_size((int64_t)h->key_len) + h->key_len +
			ss_enc_varlong_size(hv) + (hv > 0 ? (size_t)hv : 0);
	}
	if (body > (size_t)INT32_MAX)
		goto fail;
	size_t total = ss_enc_varlong_size((int64_t)body) + body;
	err = enc_reserve(e, e->len + total);
	if (err)
		goto fail;

	uint8_t *p = e->buf + e->len;
	size_t n = ss_enc_varlong(p, (int64_t)body);
	p[n++] = 0;  /* record attributes: unused */
	n += ss_enc_varlong(p + n, ts_delta);
	n += ss_enc_varlong(p + n, r->offset_delta);
	n += put_bytes(p + n, r->key, klen);
	n += put_bytes(p + n, r->value, vlen);
	n += ss_enc_varlong(p + n, r->n_headers);
	for (uint32_t i = 0; i < r->n_headers; i++) {
		const struct ss_enc_header *h = &r->headers[i];
		n += put_bytes(p + n, (const uint8_t *)h->key, (int32_t)h->key_len);
		n += put_bytes(p + n, h->value, h->value_len);
	}
	e->len += n;

	if (e->count == 0)
		e->first_ts = r->timestamp;
	if (r->timestamp > e->max_ts)
		e->max_ts = r->timestamp;
	if (r->offset_delta > e->max_delta)
		e->max_delta = r->offset_delta;
	e->count++;
	return 0;
fail:
	e->err = err;
	return err;
}

int ss_enc_finish(struct ss_enc *e, const uint8_t **out, size_t *out_len)
{
	if (e->err)
		return e->err;
	if (e->count == 0)
		return -EINVAL;  /* producers never send empty batches; compaction is not modelled */

	if (e->b.codec != SS_CODEC_NONE) {
		uint8_t *z = NULL;
		size_t zlen = 0;
		int err = ss_codec_compress(e->b.codec, e->buf + SS_V2_HEADER_SIZE,
					    e->len - SS_V2_HEADER_SIZE, &z, &zlen);
		if (err)
			return err;
		err = enc_reserve(e, SS_V2_HEADER_SIZE + zlen);
		if (err) {
			free(z);
			return err;
		}
		memcpy(e->buf + SS_V2_HEADER_SIZE, z, zlen);
		e->len = SS_V2_HEADER_SIZE + zlen;
		free(z);
	}

	uint8_t *h = e->buf;
	uint16_t attrs = (uint16_t)((e->b.attributes & ~SS_ATTR_CODEC_MASK) | ((unsigned)e->b.codec & SS_ATTR_CODEC_MASK));
	ss_put_be64(h + 0, (uint64_t)e->b.base_offset);
	ss_put_be32(h + 8, (uint32_t)(e->len - SS_LOG_OVERHEAD));
	ss_put_be32(h + 12, (uint32_t)e->b.leader_epoch);
	h[16] = 2;
	ss_put_be16(h + 21, attrs);
	ss_put_be32(h + 23, (uint32_t)e->max_delta);
	ss_put_be64(h + 27, (uint64_t)e->first_ts);
	ss_put_be64(h + 35, (uint64_t)e->max_ts);
	ss_put_be64(h + 43, (uint64_t)e->b.producer_id);
	ss_put_be16(h + 51, (uint16_t)e->b.producer_epoch);
	ss_put_be32(h + 53, (uint32_t)e->b.base_sequence);
	ss_put_be32(h + 57, (uint32_t)e->count);
	/* the CRC starts at the attributes, so brokers may rewrite base offset and leader
	 * epoch without recomputing it (§2.3) */
	ss_put_be32(h + 17, ss_crc32c(0, h + 21, e->len - 21));

	*out = e->buf;
	*out_len = e->len;
	return 0;
}
