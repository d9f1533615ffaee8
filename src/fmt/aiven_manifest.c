/* Aiven tiered-storage segment manifests: see aiven_manifest.h. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/endian.h"
#include "fmt/aiven_manifest.h"
#include "fmt/names.h"
#include "segscan.h"

static int bad(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return SEGSCAN_EJSON;
}

/* A JSON integer that fits Java's int and is >= lo (the manifest's sizes are ints). */
static bool get_int(const json_t *o, const char *k, int64_t lo, int64_t *out)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_integer(v))
		return false;
	json_int_t x = json_integer_value(v);
	if (x < lo || x > INT32_MAX)
		return false;
	*out = x;
	return true;
}

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+') return 62;
	if (c == '/') return 63;
	return -1;
}

/* java.util.Base64.getDecoder(): the basic alphabet, '=' padding optional but only at the
 * end. *out is malloc'd. */
static int b64_decode(const char *s, size_t n, uint8_t **out, size_t *outlen)
{
	while (n && s[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return -EINVAL;
	uint8_t *b = malloc(n / 4 * 3 + 3);
	if (!b)
		return -ENOMEM;
	size_t o = 0;
	uint32_t acc = 0;
	unsigned bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);
		if (v < 0) {
			free(b);
			return -EINVAL;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			b[o++] = (uint8_t)(acc >> bits);
		}
	}
	*out = b;
	*outlen = o;
	return 0;
}

/* ChunkSizesBinaryCodec.decode, summed: *count values, *sum their total. */
static int chunk_sizes(const uint8_t *b, size_t n, uint64_t *count, int64_t *sum, char *err, size_t errlen)
{
	if (n < 4)
		return bad(err, errlen, "transformedChunks: the encoding ends before its count");
	int32_t c = (int32_t)ss_be32(b);
	if (c < 0)
		return bad(err, errlen, "transformedChunks: a negative chunk count");
	*count = (uint64_t)c;
	*sum = 0;
	if (c == 0)
		return n == 4 ? 0 : bad(err, errlen, "transformedChunks: bytes after an empty list");
	if (c == 1) {
		if (n != 8)
			return bad(err, errlen, "transformedChunks: a one-chunk encoding is not 8 bytes");
		int32_t v = (int32_t)ss_be32(b + 4);
		if (v < 0)
			return bad(err, errlen, "transformedChunks: a negative chunk size");
		*sum = v;
		return 0;
	}
	if (n < 9)
		return bad(err, errlen, "transformedChunks: the encoding ends before its base");
	int64_t base = (int32_t)ss_be32(b + 4);
	unsigned bpv = b[8];
	if (base < 0 || bpv < 1 || bpv > 4)
		return bad(err, errlen, "transformedChunks: base %lld or %u bytes per value is invalid", (long long)base, bpv);
	if ((uint64_t)(n - 9) != ((uint64_t)c - 1) * bpv + 4)
		return bad(err, errlen, "transformedChunks: %zu bytes for %d chunks of %u bytes", n, (int)c, bpv);
	const uint8_t *p = b + 9;
	int64_t s = 0;
	for (int32_t i = 0; i < c - 1; i++, p += bpv) {
		uint32_t v = 0;
		for (unsigned k = 0; k < bpv; k++)
			v = v << 8 | p[k];
		/* Java adds in int: a value past INT32_MAX would be negative there */
		if ((int64_t)v + base > INT32_MAX)
			return bad(err, errlen, "transformedChunks: chunk %d's size overflows", (int)i);
		s += (int64_t)v + base;
	}
	int32_t last = (int32_t)ss_be32(p);
	if (last < 0)
		return bad(err, errlen, "transformedChunks: a negative last chunk size");
	*sum = s + last;
	return 0;
}

static int variable_chunks(const char *txt, size_t tl, uint64_t *count, int64_t *sum, char *err, size_t errlen)
{
	uint8_t *z = NULL, *plain = NULL;
	size_t zl = 0;
	int r = b64_decode(txt, tl, &z, &zl);
	if (r == -ENOMEM)
		return r;
	if (r)
		return bad(err, errlen, "transformedChunks is not base64");
	unsigned long long size = ZSTD_getFrameContentSize(z, zl);
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > SS_AIVEN_CHUNKS_MAX) {
		r = bad(err, errlen, "transformedChunks is not a zstd frame with a known size of at most 10 MiB");
		goto out;
	}
	if (!(plain = malloc(size ? (size_t)size : 1))) {
		r = -ENOMEM;
		goto out;
	}
	size_t got = ZSTD_decompress(plain, (size_t)size, z, zl);
	if (ZSTD_isError(got) || got != size) {
		r = bad(err, errlen, "transformedChunks: the zstd frame does not decompress to its size");
		goto out;
	}
	r = chunk_sizes(plain, got, count, sum, err, errlen);
out:
	free(z);
	free(plain);
	return r;
}

static void segment_metadata(const json_t *m, struct ss_aiven_manifest *out)
{
	const json_t *id = json_object_get(m, "remoteLogSegmentId");
	const json_t *tip = json_object_get(id, "topicIdPartition");
	const json_t *tp = json_object_get(tip, "topicPartition");
	const json_t *sid = json_object_get(id, "id"), *tid = json_object_get(tip, "topicId");
	const json_t *part = json_object_get(tp, "partition");
	const json_t *so = json_object_get(m, "startOffset"), *eo = json_object_get(m, "endOffset");
	if (!json_is_string(sid) || !json_is_string(tid) || !json_is_integer(part) || !json_is_integer(so) ||
	    !json_is_integer(eo))
		return;
	if (ss_uuid_parse(json_string_value(sid), json_string_length(sid), out->segment_id) ||
	    ss_uuid_parse(json_string_value(tid), json_string_length(tid), out->topic_id))
		return;
	json_int_t p = json_integer_value(part);
	if (p < 0 || p > INT32_MAX)
		return;
	out->partition = (int32_t)p;
	out->start_offset = json_integer_value(so);
	out->end_offset = json_integer_value(eo);
	out->has_segment = true;
}

/* "chunkIndex": the chunking of the stored .log (fixed or variable), its stored size. */
static int chunk_index(const json_t *m, struct ss_aiven_manifest *out, char *err, size_t errlen)
{
	const json_t *ci = json_object_get(m, "chunkIndex");
	const json_t *type = json_object_get(ci, "type");
	if (!json_is_object(ci) || !json_is_string(type))
		return bad(err, errlen, "no \"chunkIndex\" object with a \"type\"");
	if (!get_int(ci, "originalChunkSize", 1, &out->original_chunk) ||
	    !get_int(ci, "originalFileSize", 0, &out->original_size))
		return bad(err, errlen, "chunkIndex: originalChunkSize (> 0) or originalFileSize (>= 0) missing or invalid");
	if (!strcmp(json_string_value(type), "fixed")) {
		int64_t t, fin;
		out->fixed = true;
		if (!get_int(ci, "transformedChunkSize", 0, &t) || !get_int(ci, "finalTransformedChunkSize", 0, &fin))
			return bad(err, errlen, "chunkIndex: transformedChunkSize or finalTransformedChunkSize missing or invalid");
		uint64_t n = ((uint64_t)out->original_size + (uint64_t)out->original_chunk - 1) / (uint64_t)out->original_chunk;
		out->chunks = n;
		out->stored_log_size = n ? (int64_t)(n - 1) * t + fin : 0;
		return 0;
	}
	if (!strcmp(json_string_value(type), "variable")) {
		const json_t *tc = json_object_get(ci, "transformedChunks");
		if (!json_is_string(tc))
			return bad(err, errlen, "chunkIndex: transformedChunks missing");
		return variable_chunks(json_string_value(tc), json_string_length(tc), &out->chunks, &out->stored_log_size,
				       err, errlen);
	}
	return bad(err, errlen, "chunkIndex type \"%.40s\" is neither fixed nor variable", json_string_value(type));
}

/* "segmentIndexes": where each index sits in the indexes object, hence its size. */
static int segment_indexes(const json_t *m, struct ss_aiven_manifest *out, char *err, size_t errlen)
{
	const json_t *si = json_object_get(m, "segmentIndexes");
	if (!json_is_object(si))
		return bad(err, errlen, "no \"segmentIndexes\" object");
	static const char *const names[] = { "offset", "timestamp", "producerSnapshot", "leaderEpoch", "transaction" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const json_t *x = json_object_get(si, names[i]);
		int64_t pos, size;
		if (i == 4 && (!x || json_is_null(x)))
			continue;   /* no transaction index: null */
		if (!json_is_object(x) || !get_int(x, "position", 0, &pos) || !get_int(x, "size", 0, &size))
			return bad(err, errlen, "segmentIndexes.%s is not {position, size}", names[i]);
		if (pos + size > out->indexes_size)
			out->indexes_size = pos + size;
	}
	return 0;
}

int ss_aiven_manifest_parse(const char *buf, size_t len, struct ss_aiven_manifest *out, char *err, size_t errlen)
{
	json_error_t jerr;
	int r = 0;
	memset(out, 0, sizeof(*out));
	json_t *m = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!m)
		return bad(err, errlen, "not JSON: line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
	if (!json_is_object(m)) {
		r = bad(err, errlen, "not a JSON object");
		goto out;
	}
	const json_t *v = json_object_get(m, "version");
	if (!json_is_string(v) || strcmp(json_string_value(v), "1")) {
		r = bad(err, errlen, "\"version\" is not \"1\" (the only manifest version)");
		goto out;
	}
	if ((r = chunk_index(m, out, err, errlen)) || (r = segment_indexes(m, out, err, errlen)))
		goto out;
	const json_t *c = json_object_get(m, "compression");
	if (!json_is_boolean(c)) {
		r = bad(err, errlen, "\"compression\" is not a boolean");
		goto out;
	}
	out->compression = json_is_true(c);
	const json_t *e = json_object_get(m, "encryption");
	if (e && !json_is_null(e)) {
		if (!json_is_object(e)) {
			r = bad(err, errlen, "\"encryption\" is not an object");
			goto out;
		}
		out->encryption = true;
	}
	const json_t *md = json_object_get(m, "remoteLogSegmentMetadata");
	if (json_is_object(md))
		segment_metadata(md, out);
out:
	json_decref(m);
	return r;
}
