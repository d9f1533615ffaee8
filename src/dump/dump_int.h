/*
 * Inside the dump: what its files share. One job per file:
 *   dump.c        the driver: a file's kind from its name, its head and end, the options
 *   item.c        items, errors, and bytes from the data as JSON strings, text, base64
 *   log.c         a .log (or KRaft snapshot): the walk over its batches and where it ends
 *   batch.c       a batch's line or item
 *   record.c      a batch's records (v2, legacy, control)
 *   decode.c      --decode: internal topics' record values
 *   index.c       .index and .timeindex, --verify-index, --index-sanity-check
 *   producer.c    .snapshot (producer state) and .txnindex
 *   checkpoint.c  leader-epoch-checkpoint, the offset checkpoints, partition.metadata
 */
#ifndef SS_DUMP_INT_H
#define SS_DUMP_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dump/dump.h"
#include "fmt/batch.h"

#define DD_SMALL_MAX ((size_t)1 << 30)  /* index / checkpoint / snapshot files read whole */

/* ---- item.c ---- */
/* An item: ndjson a line {"type", "file", ...}; json an object in the file's "items". */
void dd_item(struct ss_dump *d, const char *type);
void dd_item_end(struct ss_dump *d);
/* One integer field of an entry: its text as DumpLogSegments writes it ("text" then the
 * value) and its JSON key (NULL: the text line only). */
struct dd_field {
	const char *text, *json;
	int64_t     v;
};
/* Fields of the current entry in the dump's format: text pairs on the line, or the
 * item's keys. */
void dd_fields(struct ss_dump *d, const struct dd_field *f, size_t n);
/* A problem at byte `pos` of the file (-1: the file as a whole); status becomes 1. */
void dd_error(struct ss_dump *d, int64_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A JSON string value from the data (n < 0: null); a byte that is not UTF-8 as the four
 * characters \xHH. */
void dd_strn(struct ss_dout *o, const uint8_t *s, int32_t n);
/* Bytes from the data (a path, a key, a header key, a topic) in the text format: control
 * characters, newlines and bytes that are not UTF-8 escaped (common/esc.h SS_ESC_LINE: the escapes of the scan's terminal output). */
void dd_text(struct ss_dump *d, const void *p, size_t n);
/* --print-data: is it text (valid UTF-8 without a NUL), and a key, value or header value as
 * a JSON field (with its `NAME_encoding`) or in a text line (" key: ...", base64 marked). */
bool dd_is_text(const uint8_t *p, int32_t n);
void dd_data_field(struct ss_dump *d, const char *name, const uint8_t *p, int32_t n);
void dd_text_data(struct ss_dump *d, const char *label, const uint8_t *p, int32_t n);

/* ---- log.c, batch.c, record.c ---- */
/* The .log (or KRaft snapshot) of `size` bytes open at fd, its base offset from its name. */
int  dd_dump_log(struct ss_dump *d, int fd, int64_t size, int64_t base);
/* A batch's line or item; with --records in json its records nest in it until dd_batch_end. */
void dd_batch_begin(struct ss_dump *d, const struct ss_batch_hdr *h, int64_t pos, bool crc_ok);
void dd_batch_end(struct ss_dump *d);
const char *dd_ts_type(const struct ss_batch_hdr *h);   /* "CreateTime", ... */
/* The records of the whole batch at `batch` (file position pos), each a line or an item,
 * decoded by `dec`: 0 or a negative error of the batch's records. */
int  dd_records(struct ss_dump *d, const uint8_t *batch, const struct ss_batch_hdr *h, int64_t pos,
		enum ss_dump_decode dec);

/* ---- index.c ---- */
/* The sibling file of a segment file: same directory and base name, `suffix` instead of
 * the name's first dot onwards. Malloc'd (the caller frees it); NULL when out of memory. */
char   *dd_sibling(const char *path, const char *suffix);
/* Index entries as DumpLogSegments lists them (stops at a base-offset slot after the first). */
size_t  dd_index_entries(const uint8_t *buf, size_t len);
size_t  dd_timeindex_entries(const uint8_t *buf, size_t len);
int64_t dd_index_lookup(const uint8_t *buf, size_t n, int64_t base, int64_t target);
/* .index (offsets = true) or .timeindex, with --verify-index against the sibling .log. */
void    dd_dump_index(struct ss_dump *d, bool offsets, const uint8_t *buf, size_t len, int64_t base);

/* ---- producer.c, checkpoint.c: small files read whole ---- */
void dd_dump_producer_snapshot(struct ss_dump *d, const uint8_t *buf, size_t len);
void dd_dump_txnindex(struct ss_dump *d, const uint8_t *buf, size_t len);
void dd_dump_epochs(struct ss_dump *d, const uint8_t *buf, size_t len);
void dd_dump_offsets_ckpt(struct ss_dump *d, const uint8_t *buf, size_t len);
void dd_dump_partition_metadata(struct ss_dump *d, const uint8_t *buf, size_t len);

/* ---- decode.c ---- */
/* A record's key/value decoded by an internal topic's decoder: as one JSON value
 * (json/ndjson), or as DumpLogSegments' " key: ... payload: ..." (text). */
void dd_decode_json(struct ss_dump *d, enum ss_dump_decode dec, const struct ss_record *r);
void dd_decode_text(struct ss_dump *d, enum ss_dump_decode dec, const struct ss_record *r);
/* A KRaft control record's value (fmt/kraft_control.h) as one JSON value: the object
 * Kafka's generated *JsonConverter writes (DumpLogSegments prints it after the type). */
struct ss_kctl;
void dd_control_json(struct ss_dump *d, const struct ss_kctl *k);

#endif
