/*
 * Record batch parsing and the segment walker (docs/kafka-format.md §2).
 *
 * Everything here reads only the bytes it is given: every length taken from the data is
 * checked against the end of the buffer before it is used, in 64-bit arithmetic so that
 * no sum can wrap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "common/endian.h"
#include "fmt/batch.h"
#include "fmt/codec.h"
#include "fmt/crc32c.h"
#include "segscan.h"

/*
 * Largest plaintext accepted from one compressed batch or wrapper. Kafka bounds a batch
 * by max.message.bytes (1 MiB by default) on the compressed side only, so this is a
 * generous ceiling against decompression bombs, not a format limit. The fuzzers build
 * with a smaller one so that a bomb costs them little time.
 */
#ifndef SS_BATCH_MAX_PLAIN
#define SS_BATCH_MAX_PLAIN ((size_t)256 << 20)
#endif

/* Bytes past the zero-tail start the walker asks for per read while checking it. */
#define SS_WALK_ZERO_CHUNK ((int64_t)1 << 20)
_Static_assert(SS_WALK_ZERO_CHUNK <= SS_WALK_WHOLE_MAX, "batch.h: want_len <= SS_WALK_WHOLE_MAX");

/* ---- header ---------------------------------------------------------------------- */

int ss_batch_header(const uint8_t *buf, size_t avail, struct ss_batch_hdr *h)
{
	if (avail < SS_HEADER_TO_MAGIC)
		return 0;
	int32_t size = ss_be32s(buf + 8);
	/* FileLogInputStream rejects size < RECORD_OVERHEAD_V0 before looking at the magic. */
	if (size < SS_LEGACY_MIN_V0)
		return SEGSCAN_ECORRUPT;
	int8_t magic = (int8_t)buf[16];
	size_t need;
	switch (magic) {
	case 0:
		need = SS_LOG_OVERHEAD + SS_LEGACY_MIN_V0;
		break;
	case 1:
		if (size < SS_LEGACY_MIN_V1)
			return SEGSCAN_ECORRUPT;
		need = SS_LOG_OVERHEAD + SS_LEGACY_MIN_V1;
		break;
	case 2:
		if ((int64_t)size + SS_LOG_OVERHEAD < SS_V2_HEADER_SIZE)
			return SEGSCAN_ECORRUPT;
		need = SS_V2_HEADER_SIZE;
		break;
	default:
		return SEGSCAN_EMAGIC;
	}
	if (avail < need)
		return 0;

	memset(h, 0, sizeof *h);
	h->file_offset = ss_be64s(buf);
	h->size = (int64_t)size + SS_LOG_OVERHEAD;
	h->magic = (uint8_t)magic;
	if (magic == 2) {
		int32_t last_delta = ss_be32s(buf + 23);
		h->base_offset = h->file_offset;
		/* A negative delta, or one that overflows the base, is never written by Kafka
		 * and would make every later offset comparison meaningless. */
		if (last_delta < 0 || h->base_offset > INT64_MAX - last_delta)
			return SEGSCAN_ECORRUPT;
		h->last_offset = h->base_offset + last_delta;
		h->leader_epoch = ss_be32s(buf + 12);
		h->crc = ss_be32(buf + 17);
		h->attributes = buf[22]; /* the low byte of the int16 at 21 */
		h->base_timestamp = ss_be64s(buf + 27);
		h->max_timestamp = ss_be64s(buf + 35);
		h->producer_id = ss_be64s(buf + 43);
		h->producer_epoch = ss_be16s(buf + 51);
		h->base_sequence = ss_be32s(buf + 53);
		h->records_count = ss_be32s(buf + 57);
		if (h->records_count < 0)
			return SEGSCAN_ECORRUPT;
		h->has_base = true;
	} else {
		h->base_offset = h->file_offset;
		h->last_offset = h->file_offset;
		h->crc = ss_be32(buf + 12);
		h->attributes = buf[17];
		h->leader_epoch = -1;
		h->base_timestamp = -1;
		h->max_timestamp = magic == 1 ? ss_be64s(buf + 18) : -1;
		h->producer_id = -1;
		h->producer_epoch = -1;
		h->base_sequence = -1;
		if (h->attributes & SS_ATTR_CODEC_MASK) {
			h->records_count = -1;
			h->has_base = false;
		} else {
			h->records_count = 1;
			h->has_base = true;
		}
	}
	return (int)need;
}

/* ---- verify ------------------------------------------------------------------------ */

int ss_batch_verify(const uint8_t *buf, const struct ss_batch_hdr *h)
{
	if (h->magic == 2) {
		if (h->size < SS_V2_HEADER_SIZE)
			return SEGSCAN_ECORRUPT;
		uint32_t c = ss_crc32c(0, buf + 21, (size_t)h->size - 21);
		return c == ss_be32(buf + 17) ? 0 : SEGSCAN_ECRC;
	}
	if (h->magic > 1)
		return SEGSCAN_EMAGIC;
	if (h->size < SS_LOG_OVERHEAD + (h->magic ? SS_LEGACY_MIN_V1 : SS_LEGACY_MIN_V0))
		return SEGSCAN_ECORRUPT;
	/* zlib's crc32 takes a uInt length; an entry is < 2 GiB (int32 size), so it fits. */
	uLong c = crc32(0L, buf + 16, (uInt)(h->size - 16));
	return (uint32_t)c == ss_be32(buf + 12) ? 0 : SEGSCAN_ECRC;
}

/* ---- legacy compressed wrappers ---------------------------------------------------- */

/*
 * Locate the value of a legacy message at entry[0..size): returns 0 and sets *val and *vlen
 * (vlen < 0: null), or SEGSCAN_ECORRUPT when the key or value runs past the entry.
 */
static int legacy_value(const uint8_t *e, int64_t size, uint8_t magic, const uint8_t **val, int32_t *vlen)
{
	int64_t p = SS_LOG_OVERHEAD + (magic ? 14 : 6); /* key length, inside the message */
	if (p + 4 > size)
		return SEGSCAN_ECORRUPT;
	int32_t klen = ss_be32s(e + p);
	p += 4;
	if (klen > 0) {
		if (klen > size - p)
			return SEGSCAN_ECORRUPT;
		p += klen;
	}
	if (p + 4 > size)
		return SEGSCAN_ECORRUPT;
	int32_t v = ss_be32s(e + p);
	p += 4;
	if (v > 0 && v > size - p)
		return SEGSCAN_ECORRUPT;
	*val = e + p;
	*vlen = v;
	return 0;
}

int64_t ss_batch_count_records(const uint8_t *buf, const struct ss_batch_hdr *h, int64_t *base_offset)
{
	if (h->magic == 2) {
		if (base_offset)
			*base_offset = h->base_offset;
		return h->records_count;
	}
	if (h->magic > 1)
		return SEGSCAN_EMAGIC;
	int codec = h->attributes & SS_ATTR_CODEC_MASK;
	if (codec == SS_CODEC_NONE) {
		if (base_offset)
			*base_offset = h->file_offset;
		return 1;
	}
	/* Kafka never allowed zstd (or any higher id) in a magic 0/1 wrapper. */
	if (codec > SS_CODEC_LZ4)
		return SEGSCAN_ECODEC;

	const uint8_t *val;
	int32_t vlen;
	int rc = legacy_value(buf, h->size, h->magic, &val, &vlen);
	if (rc)
		return rc;
	if (vlen < 0)
		return SEGSCAN_ECORRUPT; /* a wrapper with a null value holds nothing */
	uint8_t *plain = NULL;
	size_t plen = 0;
	rc = ss_codec_decompress((enum ss_codec)codec, val, (size_t)vlen, &plain, &plen, SS_BATCH_MAX_PLAIN);
	if (rc)
		return rc;

	int64_t count = 0, first = 0, last = 0;
	size_t p = 0;
	int64_t ret;
	while (p < plen) {
		if (plen - p < SS_LOG_OVERHEAD + SS_LEGACY_MIN_V0) {
			ret = SEGSCAN_ECORRUPT; /* a partial inner entry */
			goto out;
		}
		int64_t off = ss_be64s(plain + p);
		int32_t size = ss_be32s(plain + p + 8);
		uint8_t magic = plain[p + 16];
		uint8_t attr = plain[p + 17];
		if (size < SS_LEGACY_MIN_V0 || (uint64_t)size > plen - p - SS_LOG_OVERHEAD ||
		    magic != h->magic || (magic == 1 && size < SS_LEGACY_MIN_V1) ||
		    (attr & SS_ATTR_CODEC_MASK) != 0) {
			/* inner messages must match the wrapper's magic and must not be compressed */
			ret = SEGSCAN_ECORRUPT;
			goto out;
		}
		if (count == 0)
			first = off;
		last = off;
		count++;
		p += SS_LOG_OVERHEAD + (size_t)size;
	}
	if (count == 0) {
		ret = SEGSCAN_ECORRUPT;
		goto out;
	}
	if (base_offset) {
		if (h->magic == 0) {
			*base_offset = first; /* v0 inner offsets are absolute */
		} else if (h->file_offset == 0) {
			*base_offset = first; /* librdkafka quirk: outer offset 0 means base 0 */
		} else {
			/* v1: inner offsets are relative; the wrapper holds the last absolute one */
			if (h->file_offset < last || last < 0 || first < 0) {
				ret = SEGSCAN_ECORRUPT;
				goto out;
			}
			*base_offset = h->file_offset - last + first;
		}
	}
	ret = count;
out:
	free(plain);
	return ret;
}

/* ---- v2 records ------------------------------------------------------------------- */

struct rd {
	const uint8_t *p;
	const uint8_t *end;
};

/* ByteUtils.readVarint: at most 5 bytes, bits past 32 of the 5th byte are dropped. */
static int rd_varint(struct rd *r, int32_t *out)
{
	uint32_t v = 0;
	for (int shift = 0;; shift += 7) {
		if (r->p >= r->end)
			return SEGSCAN_ECORRUPT;
		uint8_t b = *r->p++;
		if (!(b & 0x80)) {
			v |= (uint32_t)b << shift;
			break;
		}
		if (shift >= 28)
			return SEGSCAN_EVARINT;
		v |= (uint32_t)(b & 0x7f) << shift;
	}
	*out = (int32_t)((v >> 1) ^ -(v & 1));
	return 0;
}

/* ByteUtils.readVarlong: at most 10 bytes. */
static int rd_varlong(struct rd *r, int64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0;; shift += 7) {
		if (r->p >= r->end)
			return SEGSCAN_ECORRUPT;
		uint8_t b = *r->p++;
		if (!(b & 0x80)) {
			v |= (uint64_t)b << shift;
			break;
		}
		if (shift >= 63)
			return SEGSCAN_EVARINT;
		v |= (uint64_t)(b & 0x7f) << shift;
	}
	*out = (int64_t)((v >> 1) ^ -(v & 1));
	return 0;
}

/* Kafka's Utils.readBytes: any negative length is null. */
static int rd_bytes(struct rd *r, const uint8_t **p, int32_t *len)
{
	int rc = rd_varint(r, len);
	if (rc)
		return rc;
	if (*len < 0) {
		*p = NULL;
		return 0;
	}
	if (*len > r->end - r->p)
		return SEGSCAN_ECORRUPT;
	*p = r->p;
	r->p += *len;
	return 0;
}

static int parse_record(struct rd *r, const struct ss_batch_hdr *h, struct ss_record *rec)
{
	int32_t len;
	int rc = rd_varint(r, &len);
	if (rc)
		return rc;
	if (len < 0 || len > r->end - r->p)
		return SEGSCAN_ECORRUPT;
	struct rd b = { r->p, r->p + len };
	r->p += len;
	if (b.p >= b.end)
		return SEGSCAN_ECORRUPT;
	b.p++; /* attributes: unused */
	int64_t ts_delta;
	int32_t off_delta;
	if ((rc = rd_varlong(&b, &ts_delta)) || (rc = rd_varint(&b, &off_delta)))
		return rc;
	/* The guard of the header decode (last_delta): Kafka never writes a negative delta,
	 * and base + delta must stay an int64. A batch based at INT64_MIN (reachable from a
	 * __remote_log_metadata segment) would otherwise overflow (issue 14 item 8). */
	if (off_delta < 0 || h->base_offset > INT64_MAX - off_delta)
		return SEGSCAN_ECORRUPT;
	rec->offset = h->base_offset + off_delta;
	if (h->attributes & SS_ATTR_LOG_APPEND)
		rec->timestamp = h->max_timestamp;
	else
		rec->timestamp = (int64_t)((uint64_t)h->base_timestamp + (uint64_t)ts_delta);
	if ((rc = rd_bytes(&b, &rec->key, &rec->key_len)) || (rc = rd_bytes(&b, &rec->value, &rec->value_len)))
		return rc;
	int32_t nh;
	if ((rc = rd_varint(&b, &nh)))
		return rc;
	if (nh < 0 || nh > b.end - b.p)
		return SEGSCAN_ECORRUPT;
	rec->headers = b.p;
	for (int32_t i = 0; i < nh; i++) {
		const uint8_t *hp;
		int32_t hl;
		if ((rc = rd_bytes(&b, &hp, &hl)))
			return rc;
		if (hl < 0)
			return SEGSCAN_ECORRUPT; /* a header key cannot be null */
		if ((rc = rd_bytes(&b, &hp, &hl)))
			return rc;
	}
	rec->header_count = nh;
	rec->headers_end = b.p;
	/* DefaultRecord.readFrom: the body must be consumed exactly */
	return b.p == b.end ? 0 : SEGSCAN_ECORRUPT;
}

int ss_record_header_next(const uint8_t **p, const uint8_t *end, const uint8_t **key, int32_t *key_len,
			  const uint8_t **value, int32_t *value_len)
{
	if (*p >= end)
		return 0;
	struct rd r = { *p, end };
	int rc;
	if ((rc = rd_bytes(&r, key, key_len)) || (rc = rd_bytes(&r, value, value_len)))
		return rc;
	if (*key_len < 0)
		return SEGSCAN_ECORRUPT;
	*p = r.p;
	return 1;
}

int ss_batch_foreach_record(const uint8_t *buf, const struct ss_batch_hdr *h, ss_record_cb cb, void *arg)
{
	if (h->magic != 2)
		return SEGSCAN_EMAGIC;
	if (h->size < SS_V2_HEADER_SIZE || h->records_count < 0)
		return SEGSCAN_ECORRUPT;
	int codec = h->attributes & SS_ATTR_CODEC_MASK;
	uint8_t *plain = NULL;
	struct rd r = { buf + SS_V2_HEADER_SIZE, buf + h->size };
	int rc;
	if (codec != SS_CODEC_NONE) {
		if (codec > SS_CODEC_ZSTD)
			return SEGSCAN_ECODEC;
		size_t plen;
		rc = ss_codec_decompress((enum ss_codec)codec, r.p, (size_t)(r.end - r.p), &plain, &plen,
					 SS_BATCH_MAX_PLAIN);
		if (rc)
			return rc;
		r.p = plain;
		r.end = plain + plen;
	}
	rc = 0;
	for (int32_t i = 0; i < h->records_count; i++) {
		struct ss_record rec;
		if ((rc = parse_record(&r, h, &rec)))
			goto out;
		if ((rc = cb(arg, h, &rec)))
			goto out;
	}
	/* "Incorrect declared batch size" / an unexhausted compressed stream */
	if (r.p != r.end)
		rc = SEGSCAN_ECORRUPT;
out:
	free(plain);
	return rc;
}

/* ---- the segment walker ------------------------------------------------------------- */

static void walk_end(struct ss_walk *w)
{
	w->done = true;
	w->want_pos = w->pos;
	w->want_len = 0;
}

void ss_walk_init(struct ss_walk *w, int64_t seg_base, int64_t file_size, int64_t start_pos, bool verify)
{
	memset(w, 0, sizeof *w);
	w->seg_base = seg_base;
	w->file_size = file_size < 0 ? 0 : file_size;
	w->verify = verify;
	w->pos = start_pos < 0 ? 0 : start_pos;
	w->valid_bytes = w->pos < w->file_size ? w->pos : w->file_size;
	w->first_base = -1;
	w->first_pos = -1;
	w->last_offset = -1;
	w->prev_last = -1;
	w->max_timestamp = -1;
	/* The fast path counts records from headers (v2 recordsCount, 1 per legacy message);
	 * a legacy compressed wrapper makes the count unknown without decompressing. */
	w->records = 0;
	w->err_pos = -1;
	w->crc_first_base = w->crc_first_pos = -1;
	w->zero_from = -1;
	w->whole_max = SS_WALK_WHOLE_MAX;
	if (w->pos >= w->file_size) {
		walk_end(w);
		return;
	}
	w->want_pos = w->pos;
	w->want_len = w->file_size - w->pos < SS_MAX_HEADER_SIZE ? w->file_size - w->pos : SS_MAX_HEADER_SIZE;
}

/* Ask for bytes [pos, pos + len): len > 0 always, so every feed makes progress. */
static int walk_want(struct ss_walk *w, int64_t pos, int64_t len)
{
	w->want_pos = pos;
	w->want_len = len;
	return 0;
}

/* A framing error ends the walk; err keeps the first error seen. */
static void walk_corrupt(struct ss_walk *w, int err, int64_t at)
{
	if (!w->err) {
		w->err = err;
		w->err_pos = at;
	}
	w->truncated_bytes = 0;
	walk_end(w);
}

/* Account one complete entry e[0..h->size) at w->pos. e is NULL for an entry verify mode
 * checked in pieces; vrc is then its CRC verdict (0 or SEGSCAN_ECRC). */
static void walk_entry(struct ss_walk *w, const uint8_t *e, const struct ss_batch_hdr *h, int vrc)
{
	int64_t base = h->has_base ? h->base_offset : -1;
	bool valid = true;
	if (w->verify) {
		int rc = e ? ss_batch_verify(e, h) : vrc;
		if (rc == SEGSCAN_ECRC) {
			if (!w->crc_errors++) {   /* where the first one is, for the finding */
				w->crc_first_base = base;
				w->crc_first_pos = w->pos;
			}
			valid = false;
		} else if (rc) {
			valid = false;
			if (!w->err) {
				w->err = rc;
				w->err_pos = w->pos;
			}
		}
		int64_t b = -1;
		int64_t n;
		if (e)
			n = ss_batch_count_records(e, h, &b);
		else if (h->records_count >= 0)
			n = h->records_count, b = h->base_offset; /* v2 and legacy uncompressed: the header's */
		else
			n = -1; /* a legacy wrapper too large to decompress here: count unknown */
		if (n == -1 && !e) {
			w->records = -1;
		} else if (n < 0) {
			/* The frame is sound but the payload is not: Kafka's recovery would keep
			 * it (it never decompresses), so the walk goes on, but the segment is
			 * reported corrupt and its record count becomes unknown. */
			if (!w->err && valid) {
				w->err = (int)n;
				w->err_pos = w->pos;
			}
			w->records = -1;
		} else {
			if (w->records >= 0)
				w->records += n;
			base = b;
		}
		if (w->batches > 0 && (base >= 0 ? base : h->last_offset) <= w->prev_last)
			w->offset_errors++;
		w->prev_last = h->last_offset;
	} else if (w->records >= 0) {
		w->records = h->records_count >= 0 ? w->records + h->records_count : -1;
	}
	if (w->batches == 0) {
		w->first_pos = w->pos;
		w->first_base = base;
	}
	w->batches++;
	w->last_offset = h->last_offset;
	if (h->max_timestamp > w->max_timestamp)
		w->max_timestamp = h->max_timestamp;
	/* valid_bytes is Kafka's recovery validBytes: the prefix of sound entries. Once one
	 * entry fails verification it stops, although the walk continues to count. */
	bool prefix_ok = !w->verify || (valid && w->valid_bytes == w->pos);
	w->pos += h->size;
	if (prefix_ok)
		w->valid_bytes = w->pos;
}

/*
 * While the zero-tail check runs, zero_tail is provisionally true, pos stays at the
 * suspect entry and want_pos is the next byte to check, so the check needs no state of
 * its own.
 */
int ss_walk_feed(struct ss_walk *w, int64_t at, const uint8_t *buf, size_t len)
{
	if (w->done || at != w->want_pos || (len && !buf))
		return -EINVAL;
	int64_t left = w->file_size - at;
	int64_t expect = w->want_len < left ? w->want_len : left;
	if ((uint64_t)len < (uint64_t)expect) {
		/* Kafka truncated the file under us: what we got is all there is. Every read
		 * the walker asks for afterwards lies inside this feed, so it ends here. */
		w->file_size = at + (int64_t)len;
	}
	int64_t end = at + ((uint64_t)len < (uint64_t)(w->file_size - at) ? (int64_t)len : w->file_size - at);
	int64_t zfrom = at;
	if (w->zero_tail)
		goto zscan;
	if (w->streaming)
		goto stream;

entries:
	for (;;) {
		int64_t remaining = w->file_size - w->pos;
		if (remaining <= 0) {
			walk_end(w);
			return 0;
		}
		int64_t have = end - w->pos; /* bytes of this feed from pos on (may be <= 0) */
		if (remaining <= SS_HEADER_TO_MAGIC) {
			/* FileLogInputStream: position >= end - 17 is the end of the data. Look at
			 * the bytes only to tell a preallocated zero tail from a torn write. */
			if (have < remaining)
				return walk_want(w, w->pos, remaining);
			const uint8_t *p = buf + (w->pos - at);
			bool zero = true;
			for (int64_t i = 0; i < remaining; i++)
				zero &= p[i] == 0;
			w->truncated_bytes = remaining;
			w->zero_tail = zero;
			walk_end(w);
			return 0;
		}
		if (have < SS_HEADER_TO_MAGIC)
			return walk_want(w, w->pos, remaining < SS_MAX_HEADER_SIZE ? remaining : SS_MAX_HEADER_SIZE);
		const uint8_t *e = buf + (w->pos - at);
		int32_t size = ss_be32s(e + 8);
		if (size < SS_LEGACY_MIN_V0) {
			/* Corrupt, unless the rest of the file is zeros (preallocated or crashed). */
			w->zero_tail = true;
			zfrom = w->pos;
			goto zscan;
		}
		int64_t total = (int64_t)size + SS_LOG_OVERHEAD;
		if (total > remaining) {
			w->truncated_bytes = remaining;
			walk_end(w);
			return 0;
		}
		/* a batch larger than whole_max is checked in pieces: only its header first */
		bool pieces = w->verify && total > w->whole_max;
		int64_t need = w->verify && !pieces ? total : (total < SS_MAX_HEADER_SIZE ? total : SS_MAX_HEADER_SIZE);
		if (have < need)
			return walk_want(w, w->pos, need);
		struct ss_batch_hdr h;
		int rc = ss_batch_header(e, (size_t)have, &h);
		if (rc <= 0) {
			/* rc == 0 cannot happen (need covers every header): fail closed, never loop */
			walk_corrupt(w, rc ? rc : SEGSCAN_ECORRUPT, w->pos);
			return 0;
		}
		if (pieces) {
			/* the CRC covers [21, size) of a v2 batch, [16, size) of a legacy message
			 * (ss_batch_verify); the header fits in any piece (whole_max >= 61) */
			int64_t from = h.magic == 2 ? 21 : 16, take = have < total ? have : total;
			w->streaming = true;
			w->s_hdr = h;
			w->s_crc = h.magic == 2 ? ss_crc32c(0, e + from, (size_t)(take - from))
						: (uint32_t)crc32(0L, e + from, (uInt)(take - from));
			w->s_next = w->pos + take;
			if (take == total)
				goto stream_done; /* the feed held all of it after all */
			return walk_want(w, w->s_next, total - take < w->whole_max ? total - take : w->whole_max);
		}
		walk_entry(w, e, &h, 0);
	}

stream: {
	/* the next piece of a batch checked in pieces: bytes [at, end) of it */
	int64_t bend = w->pos + w->s_hdr.size;
	int64_t upto = end < bend ? end : bend;
	if (upto > at)
		w->s_crc = w->s_hdr.magic == 2 ? ss_crc32c(w->s_crc, buf, (size_t)(upto - at))
					       : (uint32_t)crc32(w->s_crc, buf, (uInt)(upto - at));
	w->s_next = upto;
	if (upto < bend) {
		if (upto >= w->file_size) {
			/* the file shrank under us inside the batch: a truncated tail */
			w->streaming = false;
			w->truncated_bytes = w->file_size - w->pos;
			walk_end(w);
			return 0;
		}
		return walk_want(w, upto, bend - upto < w->whole_max ? bend - upto : w->whole_max);
	}
}
stream_done:
	w->streaming = false;
	walk_entry(w, NULL, &w->s_hdr, w->s_crc == w->s_hdr.crc ? 0 : SEGSCAN_ECRC);
	goto entries; /* the rest of this feed, from the batch's end */


zscan:
	while (zfrom < end && buf[zfrom - at] == 0)
		zfrom++;
	if (zfrom < end) {
		w->zero_tail = false;
		walk_corrupt(w, SEGSCAN_ECORRUPT, w->pos);
		return 0;
	}
	if (zfrom >= w->file_size || w->probe_zeros) {
		/* with probe_zeros the rest is the caller's to prove (provisional until then) */
		if (zfrom < w->file_size)
			w->zero_from = zfrom;
		w->truncated_bytes = w->file_size - w->pos;
		walk_end(w);
		return 0;
	}
	return walk_want(w, zfrom, w->file_size - zfrom < SS_WALK_ZERO_CHUNK ? w->file_size - zfrom : SS_WALK_ZERO_CHUNK);
}

void ss_walk_zero_refuted(struct ss_walk *w)
{
	if (!w->zero_tail || w->zero_from < 0)
		return;
	w->zero_tail = false;
	w->zero_from = -1;
	/* the same verdict the byte-by-byte check gives (zscan above) */
	walk_corrupt(w, SEGSCAN_ECORRUPT, w->pos);
}
