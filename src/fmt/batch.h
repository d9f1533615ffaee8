/*
 * Record batch parsing: pure functions over bytes (no I/O, no threads, no allocation),
 * so the scanner, the tests and the fuzzers call them directly.
 *
 * Layout and rules: docs/kafka-format.md §2 (DefaultRecordBatch, LegacyRecord,
 * FileLogInputStream). All integers big-endian.
 */
#ifndef SS_FMT_BATCH_H
#define SS_FMT_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SS_LOG_OVERHEAD      12   /* offset + size */
#define SS_HEADER_TO_MAGIC   17   /* bytes needed to know size and magic */
#define SS_V2_HEADER_SIZE    61   /* RECORD_BATCH_OVERHEAD */
#define SS_LEGACY_MIN_V0     14   /* RECORD_OVERHEAD_V0 */
#define SS_LEGACY_MIN_V1     22   /* RECORD_OVERHEAD_V1 */
/* Bytes needed to decode any header: v2 needs 61; v1 needs 12 + 22. */
#define SS_MAX_HEADER_SIZE   SS_V2_HEADER_SIZE

enum ss_codec { SS_CODEC_NONE = 0, SS_CODEC_GZIP = 1, SS_CODEC_SNAPPY = 2, SS_CODEC_LZ4 = 3, SS_CODEC_ZSTD = 4 };

#define SS_ATTR_CODEC_MASK     0x07
#define SS_ATTR_LOG_APPEND     0x08
#define SS_ATTR_TRANSACTIONAL  0x10
#define SS_ATTR_CONTROL        0x20
#define SS_ATTR_DELETE_HORIZON 0x40

/* One batch (v2) or one entry / compressed wrapper (v0, v1) as its header says. */
struct ss_batch_hdr {
	int64_t  file_offset;     /* the int64 at byte 0 (v2 base offset; legacy: last offset) */
	int64_t  base_offset;     /* v2: baseOffset; legacy: = file_offset (see has_base) */
	int64_t  last_offset;     /* v2: base + lastOffsetDelta; legacy: file_offset */
	int64_t  size;            /* whole entry in bytes, = batchLength + 12 */
	int64_t  base_timestamp;  /* v2 only, else -1 */
	int64_t  max_timestamp;   /* v2: maxTimestamp; v1: the message timestamp; v0: -1 */
	int64_t  producer_id;
	int32_t  leader_epoch;    /* v2 only, else -1 */
	int32_t  records_count;   /* v2: recordsCount; legacy uncompressed 1; legacy wrapper -1 (unknown) */
	int32_t  base_sequence;
	uint32_t crc;             /* stored CRC (v2: CRC-32C, legacy: CRC-32) */
	int16_t  producer_epoch;
	uint8_t  magic;
	uint8_t  attributes;      /* the low byte only (Kafka ignores the high byte) */
	bool     has_base;        /* false for a legacy compressed wrapper (base needs decompression) */
};

/*
 * Decode the header of the entry at buf[0..avail).
 *   > 0  the header is decoded; returns how many header bytes were needed
 *   0    more bytes are needed (avail too small): call again with at least
 *        SS_MAX_HEADER_SIZE bytes, or accept that the file ends here (truncated tail)
 *   < 0  SEGSCAN_ECORRUPT (size < 14, v2 size < 61, negative counts) or SEGSCAN_EMAGIC.
 * Does not check the CRC and does not need the body.
 */
int ss_batch_header(const uint8_t *buf, size_t avail, struct ss_batch_hdr *h);

/*
 * Verify an entire entry buf[0..h->size): v2 CRC-32C over [21, size), legacy CRC-32 over
 * the message from its magic byte. Returns 0, SEGSCAN_ECRC, or SEGSCAN_ECORRUPT.
 */
int ss_batch_verify(const uint8_t *buf, const struct ss_batch_hdr *h);

/*
 * Exact record count of an entire entry (for --verify). v2: recordsCount from the header.
 * Legacy uncompressed: 1. Legacy compressed wrapper: decompresses and counts the inner
 * messages, and sets *base_offset to the first inner offset (absolute). Returns the
 * count (>= 0) or a negative error (SEGSCAN_ECODEC, SEGSCAN_ECORRUPT).
 */
int64_t ss_batch_count_records(const uint8_t *buf, const struct ss_batch_hdr *h, int64_t *base_offset);

/*
 * Iterate every record of an entire v2 batch, decompressing if needed (gzip, snappy
 * xerial framing, lz4 frame, zstd). Used to read __remote_log_metadata. Returns 0, the
 * callback's nonzero return, or a negative error.
 */
struct ss_record {
	int64_t        offset;
	int64_t        timestamp;
	const uint8_t *key;   int32_t key_len;    /* key_len < 0: null */
	const uint8_t *value; int32_t value_len;  /* value_len < 0: null */
	int32_t        header_count;
	const uint8_t *headers;       /* the header_count headers' bytes, for ss_record_header_next */
	const uint8_t *headers_end;
};
/* The next header of a record: *p starts at r->headers; each call decodes one (key, value;
 * value_len < 0: null) and advances *p. 1 = a header, 0 = none left, < 0 error. The bytes
 * were checked by the iterator, so an error means the caller's cursor is wrong. */
int ss_record_header_next(const uint8_t **p, const uint8_t *end, const uint8_t **key, int32_t *key_len,
			  const uint8_t **value, int32_t *value_len);
typedef int (*ss_record_cb)(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r);
int ss_batch_foreach_record(const uint8_t *buf, const struct ss_batch_hdr *h, ss_record_cb cb, void *arg);

/*
 * The segment walker: an incremental, allocation-free state machine that follows
 * FileLogInputStream over a segment file the caller reads in pieces.
 *
 *   struct ss_walk w; ss_walk_init(&w, base_offset, file_size, start_pos, verify);
 *   while (!ss_walk_done(&w)) {
 *       // read at least w.want_len bytes (more is better) from file position w.want_pos,
 *       // clamped to the file size, then:
 *       ss_walk_feed(&w, w.want_pos, buf, n);
 *   }
 *
 * Fast path (verify=false): only headers are needed; the walker asks for the next
 * header's position after the current chunk runs out. Verify mode asks for whole batches
 * (want_len = the batch size) and checks CRCs, framing and offsets, counting batches and
 * records exactly. A batch larger than whole_max (SS_WALK_WHOLE_MAX unless the caller
 * lowers it after init) is never asked for whole: its CRC is computed over pieces of at
 * most whole_max bytes, so a reader's buffer of whole_max bytes is always enough, whatever
 * size a header claims. Such a batch's records are counted from its header (v2, legacy
 * uncompressed); a legacy compressed wrapper's count becomes unknown (records = -1).
 *
 * End of data follows Kafka: fewer than 17 bytes left, or an entry running past the end of
 * the file, is a truncated tail (truncated_bytes = what is left); size < 14 is corruption,
 * except that an all-zero remainder of the file (a preallocated or crashed active segment)
 * is reported as a truncated tail too (zero_tail = true).
 *
 * A zero tail is checked byte by byte to the end of the file (1 MiB per read), unless the
 * caller sets probe_zeros after ss_walk_init: then the walker checks only the rest of the
 * feed that found the zeros and ends with zero_from = the first byte it did not check, so
 * that the caller can prove [zero_from, file_size) zero more cheaply (holes, sampling) and
 * call ss_walk_zero_refuted() if it is not. zero_tail and truncated_bytes are then
 * provisional until the caller's proof.
 */
/* Largest batch verify mode asks for whole (Kafka's default max.message.bytes is 1 MiB).
 * With whole_max left at (or below) it, want_len never exceeds it: a reader's buffer of
 * SS_WALK_WHOLE_MAX bytes serves every request. */
#define SS_WALK_WHOLE_MAX ((int64_t)1 << 20)

struct ss_walk {
	/* inputs */
	int64_t  seg_base;        /* base offset from the file name */
	int64_t  file_size;
	bool     verify;
	bool     probe_zeros;     /* leave a zero tail's unread rest to the caller (zero_from) */
	int64_t  whole_max;       /* verify: larger batches are checked in pieces (>= 61) */
	/* what to read next (valid while !done) */
	int64_t  want_pos;
	int64_t  want_len;
	/* results */
	int64_t  pos;             /* next entry position */
	int64_t  valid_bytes;     /* end of the last complete (and, in verify mode, valid) entry */
	int64_t  truncated_bytes; /* bytes after valid_bytes that do not form a complete entry */
	int64_t  first_base;      /* base offset of the first entry walked (-1 if none / unknown) */
	int64_t  first_pos;       /* position of the first entry walked */
	int64_t  last_offset;     /* last offset of the last complete entry; -1 if none */
	int64_t  prev_last;       /* for offset ordering checks */
	int64_t  max_timestamp;   /* max over walked entries; -1 if none */
	int64_t  batches;         /* entries walked */
	int64_t  records;         /* exact in verify mode; fast path: from headers, -1 once a
				     legacy compressed wrapper makes it unknown */
	int64_t  crc_errors;
	int64_t  crc_first_base;  /* the first entry failing its CRC: base offset (-1 unknown) */
	int64_t  crc_first_pos;   /* and file position (-1: none failed) */
	int64_t  offset_errors;   /* entries whose offsets go backwards (verify) */
	int      err;             /* first framing error (SEGSCAN_ECORRUPT...), 0 if none */
	int64_t  err_pos;         /* file position of err */
	bool     zero_tail;
	int64_t  zero_from;       /* probe_zeros: [zero_from, file_size) not yet checked; -1 none */
	/* verify: the entry at pos checked in pieces (its size > whole_max) */
	bool     streaming;
	uint32_t s_crc;           /* CRC of [crc start, s_next - pos) so far */
	int64_t  s_next;          /* file position of the next byte of it to take */
	struct ss_batch_hdr s_hdr;
	bool     done;
};

void ss_walk_init(struct ss_walk *w, int64_t seg_base, int64_t file_size, int64_t start_pos, bool verify);
/* Feed bytes read from file position `at` (must equal w->want_pos). A read that returns
 * fewer bytes than min(want_len, file_size - at) means the file shrank under us (Kafka
 * truncated it): the walker takes at + len as the new end of file and ends cleanly.
 * Returns 0, or -EINVAL if `at` is wrong. Framing errors end the walk and are left in
 * w->err / w->err_pos. */
int  ss_walk_feed(struct ss_walk *w, int64_t at, const uint8_t *buf, size_t len);
static inline bool ss_walk_done(const struct ss_walk *w) { return w->done; }
/* The caller's proof of [zero_from, file_size) found a non-zero byte: the zeros were not
 * a tail but damage inside the data, which the walk reports as it would have had it read
 * that byte itself (corrupt at the suspect entry, no truncated tail). */
void ss_walk_zero_refuted(struct ss_walk *w);

#endif
