/*
 * Magic v2 record batch ENCODER (docs/kafka-format.md §2.2–2.7), the mirror image of the
 * parsers in src/fmt. It exists for the generator and for tests that need hand-shaped
 * batches; the scanner never writes.
 *
 *   struct ss_enc e; ss_enc_init(&e);
 *   ss_enc_begin(&e, &(struct ss_enc_batch){ .base_offset = 0, .leader_epoch = 0, ... });
 *   ss_enc_append(&e, &rec);                 // once per record
 *   ss_enc_finish(&e, &bytes, &len);         // bytes valid until the next begin/free
 *   ss_enc_free(&e);
 *
 * The builder follows Kafka's MemoryRecordsBuilder: baseTimestamp is the first record's
 * timestamp, maxTimestamp the largest (CreateTime), lastOffsetDelta the largest offset
 * delta; a non-"none" codec compresses the concatenated records as one stream (through
 * ss_codec_compress) and keeps the codec bit even when the stream grew, as the Java
 * producer does. One buffer is reused across batches, so steady-state encoding does not
 * allocate (compression allocates inside the codec).
 */
#ifndef SS_GEN_ENCODE_H
#define SS_GEN_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/endian.h"
#include "fmt/batch.h"

struct ss_enc_header {
	const char    *key;        /* never null in Kafka */
	size_t         key_len;
	const uint8_t *value;
	int32_t        value_len;  /* < 0: null */
};

struct ss_enc_record {
	int64_t                     timestamp;     /* absolute, ms */
	int32_t                     offset_delta;  /* from the batch base offset */
	const uint8_t              *key;
	int32_t                     key_len;       /* < 0: null key */
	const uint8_t              *value;
	int32_t                     value_len;     /* < 0: null value */
	const struct ss_enc_header *headers;
	uint32_t                    n_headers;
};

struct ss_enc_batch {
	int64_t       base_offset;
	int32_t       leader_epoch;    /* partitionLeaderEpoch; -1 = none */
	enum ss_codec codec;
	uint8_t       attributes;      /* SS_ATTR_* bits other than the codec */
	int64_t       producer_id;     /* -1 = none */
	int16_t       producer_epoch;  /* -1 = none */
	int32_t       base_sequence;   /* -1 = none */
};

struct ss_enc {
	struct ss_enc_batch b;
	uint8_t *buf;                  /* 61-byte header slot, then the records */
	size_t   len;
	uint32_t cap;      /* common/darray.h */
	int64_t  first_ts, max_ts;
	int32_t  max_delta, count;
	int      err;                  /* sticky: first failure of an append */
};

void ss_enc_init(struct ss_enc *e);
void ss_enc_free(struct ss_enc *e);
/* Starts a new batch, discarding whatever the previous one held. */
void ss_enc_begin(struct ss_enc *e, const struct ss_enc_batch *b);
/* 0, -ENOMEM, or -EINVAL (negative offset delta, header key too long, batch over 2 GiB). */
int  ss_enc_append(struct ss_enc *e, const struct ss_enc_record *r);
/* Compresses if asked, writes the header and the CRC-32C. *out points into e's buffer.
 * 0, -EINVAL (no record appended, or an earlier append failed), -ENOMEM, SEGSCAN_ECODEC. */
int  ss_enc_finish(struct ss_enc *e, const uint8_t **out, size_t *out_len);

/* Zig-zag varlong (§2.6) into p (room for 10 bytes); returns the bytes written. */
size_t ss_enc_varlong(uint8_t *p, int64_t v);
/* Its encoded size without writing. */
size_t ss_enc_varlong_size(int64_t v);

/* Big-endian stores are common/endian.h's (ss_put_be16/32/64); these names remain for
 * callers outside src/gen/ not yet moved over. */
static inline void ss_enc_be16(uint8_t *p, uint16_t v) { ss_put_be16(p, v); }
static inline void ss_enc_be32(uint8_t *p, uint32_t v) { ss_put_be32(p, v); }
static inline void ss_enc_be64(uint8_t *p, uint64_t v) { ss_put_be64(p, v); }

#endif
