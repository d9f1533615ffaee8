/*
 * Kafka's compression stream formats (docs/kafka-format.md §2.7), both directions:
 * gzip (a gzip member), snappy (xerial SnappyOutputStream framing: magic
 * 82 'SNAPPY' 00, int32 version 1, int32 compatible 1, then blocks of int32 length +
 * raw snappy), lz4 (LZ4 frame, as Kafka's Lz4BlockOutputStream writes it), zstd (frame).
 * Pure functions over bytes; the output is malloc'd and owned by the caller.
 */
#ifndef SS_FMT_CODEC_H
#define SS_FMT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "fmt/batch.h"

/* 0 or -ENOMEM / SEGSCAN_ECODEC. */
int ss_codec_compress(enum ss_codec c, const uint8_t *src, size_t len, uint8_t **out, size_t *out_len);
/* Refuses to produce more than max_out bytes (a decompression bomb guard): SEGSCAN_ECODEC. */
int ss_codec_decompress(enum ss_codec c, const uint8_t *src, size_t len, uint8_t **out, size_t *out_len,
			size_t max_out);
const char *ss_codec_name(enum ss_codec c);  /* "none", "gzip", ... */
int ss_codec_parse(const char *name, enum ss_codec *out);

#endif
