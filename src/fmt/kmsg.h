/*
 * A reader for Kafka's generated message encoding (clients/src/main/java/org/apache/kafka/
 * common/protocol/ByteBufferAccessor.java, the schema rules in generator/.../
 * MessageDataGenerator.java): big-endian ints, int16-length strings and int32-length
 * bytes/arrays in classic versions, uvarint length+1 ("compact") forms and tagged fields in
 * flexible versions. Used by the coordinator record decoders (fmt/group_metadata.c,
 * fmt/txn_state.c).
 *
 * The error is sticky: after the first failure every read returns zeros and r->err keeps
 * the first error, so a decoder reads straight through and checks r->err once.
 */
#ifndef SS_FMT_KMSG_H
#define SS_FMT_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/endian.h"
#include "segscan.h"

struct ss_kmsg {
	const uint8_t *p, *end;
	int            err;     /* 0, SEGSCAN_ETRUNC, SEGSCAN_EVARINT, SEGSCAN_ESCHEMA */
};

/* A string or bytes field: len < 0 is null. Points into the input. */
struct ss_kbytes {
	const uint8_t *p;
	int32_t        len;
};

static inline void ss_km_fail(struct ss_kmsg *r, int e)
{
	if (!r->err)
		r->err = e;
	r->p = r->end;
}

static inline bool ss_km_need(struct ss_kmsg *r, size_t k)
{
	if (r->err)
		return false;
	if ((size_t)(r->end - r->p) < k) {
		ss_km_fail(r, SEGSCAN_ETRUNC);
		return false;
	}
	return true;
}

/* The next k bytes, or NULL (the reader failed: too few left, or an earlier error). */
static inline const uint8_t *ss_km_take(struct ss_kmsg *r, size_t k)
{
	if (!ss_km_need(r, k))
		return NULL;
	const uint8_t *p = r->p;
	r->p += k;
	return p;
}

static inline int8_t ss_km_i8(struct ss_kmsg *r)
{
	const uint8_t *p = ss_km_take(r, 1);
	return p ? (int8_t)*p : 0;
}
static inline int16_t ss_km_i16(struct ss_kmsg *r)
{
	const uint8_t *p = ss_km_take(r, 2);
	return p ? ss_be16s(p) : 0;
}
static inline int32_t ss_km_i32(struct ss_kmsg *r)
{
	const uint8_t *p = ss_km_take(r, 4);
	return p ? ss_be32s(p) : 0;
}
static inline int64_t ss_km_i64(struct ss_kmsg *r)
{
	const uint8_t *p = ss_km_take(r, 8);
	return p ? ss_be64s(p) : 0;
}

/* ByteUtils.readUnsignedVarint: at most 5 bytes. */
static inline uint32_t ss_km_uvarint(struct ss_kmsg *r)
{
	uint32_t v = 0;
	for (int i = 0; i < 5; i++) {
		if (!ss_km_need(r, 1))
			return 0;
		uint8_t b = *r->p++;
		v |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i == 4 && b > 0x0f)
				break;
			return v;
		}
	}
	ss_km_fail(r, SEGSCAN_EVARINT);
	return 0;
}

/* A length-prefixed field: int16 (strings) or int32 (bytes) in classic versions, uvarint
 * length+1 in flexible ones; -1 (0 compact) is null, refused unless nullable. */
static inline struct ss_kbytes ss_km_field(struct ss_kmsg *r, bool flexible, bool is_string, bool nullable)
{
	struct ss_kbytes b = { NULL, -1 };
	int64_t n;
	if (flexible)
		n = (int64_t)ss_km_uvarint(r) - 1;
	else
		n = is_string ? ss_km_i16(r) : ss_km_i32(r);
	if (r->err)
		return b;
	if (n < 0) {
		if (n != -1 || !nullable)
			ss_km_fail(r, SEGSCAN_ESCHEMA);
		return b;
	}
	if ((b.p = ss_km_take(r, (size_t)n)))
		b.len = (int32_t)n;
	return b;
}
static inline struct ss_kbytes ss_km_str(struct ss_kmsg *r, bool flexible, bool nullable)
{
	return ss_km_field(r, flexible, true, nullable);
}
static inline struct ss_kbytes ss_km_bytes(struct ss_kmsg *r, bool flexible, bool nullable)
{
	return ss_km_field(r, flexible, false, nullable);
}

/* An array length: int32 or uvarint+1; -1 = null (refused unless nullable). Each element
 * takes at least `min_elem` bytes, so a length beyond what is left fails here. */
static inline int32_t ss_km_arrlen(struct ss_kmsg *r, bool flexible, bool nullable, size_t min_elem)
{
	int64_t n = flexible ? (int64_t)ss_km_uvarint(r) - 1 : ss_km_i32(r);
	if (r->err)
		return -1;
	if (n < 0) {
		if (n != -1 || !nullable)
			ss_km_fail(r, SEGSCAN_ESCHEMA);
		return -1;
	}
	if (min_elem && (uint64_t)n > (uint64_t)(r->end - r->p) / min_elem) {
		ss_km_fail(r, SEGSCAN_ETRUNC);
		return -1;
	}
	return (int32_t)n;
}

/* Tagged fields of a flexible struct: fn gets each (tag, sub-reader over its bytes) and
 * returns true if it read it; unknown tags are skipped and counted in *unknown. */
typedef bool (*ss_km_tag_fn)(void *arg, uint32_t tag, struct ss_kmsg *sub);
static inline void ss_km_tags(struct ss_kmsg *r, ss_km_tag_fn fn, void *arg, uint32_t *unknown)
{
	uint32_t n = ss_km_uvarint(r);
	for (uint32_t i = 0; i < n && !r->err; i++) {
		uint32_t tag = ss_km_uvarint(r), size = ss_km_uvarint(r);
		const uint8_t *body = ss_km_take(r, size);
		if (!body)
			return;
		struct ss_kmsg sub = { body, body + size, 0 };
		if (fn && fn(arg, tag, &sub)) {
			if (sub.err)
				ss_km_fail(r, sub.err);
		} else if (unknown) {
			(*unknown)++;
		}
	}
}

/* The end of a top-level read: the first error, or SEGSCAN_ESCHEMA if bytes are left.
 * CoordinatorRecordSerde reads the struct from the whole buffer: leftovers are a schema
 * mismatch (the generated read would not notice, but a dump should). */
static inline int ss_km_end(const struct ss_kmsg *r)
{
	if (r->err)
		return r->err;
	return r->p == r->end ? 0 : SEGSCAN_ESCHEMA;
}

#endif
