/* Inside the dump driver: what dump.c, index.c and decode.c share. */
#ifndef SS_DUMP_INT_H
#define SS_DUMP_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dump/dump.h"
#include "fmt/batch.h"

/* An item: ndjson a line {"type", "file", ...}; json an object in the file's "items". */
void dd_item(struct ss_dump *d, const char *type);
void dd_item_end(struct ss_dump *d);
/* A problem at byte `pos` of the file (-1: the file as a whole); status becomes 1. */
void dd_error(struct ss_dump *d, int64_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A JSON string value from the data (n < 0: null); a byte that is not UTF-8 as the four
 * characters \xHH. */
void dd_strn(struct ss_dout *o, const uint8_t *s, int32_t n);
/* Bytes from the data (a path, a key, a header key, a topic) in the text format: control
 * characters, newlines and bytes that are not UTF-8 escaped (out/term.c's escaping). */
void dd_text(struct ss_dump *d, const void *p, size_t n);
/* The sibling file of a segment file: same directory and base name, `suffix` instead of
 * the name's first dot onwards. Malloc'd (the caller frees it); NULL when out of memory. */
char   *dd_sibling(const char *path, const char *suffix);

/* Index entries as DumpLogSegments lists them (stops at a base-offset slot after the first). */
size_t  dd_index_entries(const uint8_t *buf, size_t len);
size_t  dd_timeindex_entries(const uint8_t *buf, size_t len);
int64_t dd_index_lookup(const uint8_t *buf, size_t n, int64_t base, int64_t target);
/* .index (offsets = true) or .timeindex, with --verify-index against the sibling .log. */
void    dd_dump_index(struct ss_dump *d, bool offsets, const uint8_t *buf, size_t len, int64_t base);

/* A record's key/value decoded by an internal topic's decoder: as one JSON value
 * (json/ndjson), or as DumpLogSegments' " key: ... payload: ..." (text). */
void dd_decode_json(struct ss_dump *d, enum ss_dump_decode dec, const struct ss_record *r);
void dd_decode_text(struct ss_dump *d, enum ss_dump_decode dec, const struct ss_record *r);
/* A KRaft control record's value (fmt/kraft_control.h) as one JSON value: the object
 * Kafka's generated *JsonConverter writes (DumpLogSegments prints it after the type). */
struct ss_kctl;
void dd_control_json(struct ss_dump *d, const struct ss_kctl *k);

#endif
