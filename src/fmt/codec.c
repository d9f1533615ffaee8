/*
 * Kafka's compression streams (docs/kafka-format.md §2.7). Every decompressor writes
 * into one growable buffer capped at max_out + 1 bytes: reaching the extra byte proves
 * the stream wants more than max_out, which is how a bomb is refused without trusting
 * any size the stream declares about itself.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "common/endian.h"
#include "fmt/codec.h"
#include "segscan.h"

/* ---- growable output -------------------------------------------------------------- */

struct obuf {
	uint8_t *p;
	size_t   len;
	size_t   cap;
	size_t   limit; /* max_out + 1: the first byte past what the caller allows */
};

static int obuf_init(struct obuf *o, size_t max_out, size_t hint)
{
	o->limit = max_out == SIZE_MAX ? SIZE_MAX : max_out + 1;
	o->len = 0;
	o->cap = hint < 256 ? 256 : hint;
	if (o->cap > o->limit)
		o->cap = o->limit;
	o->p = malloc(o->cap);
	return o->p ? 0 : -ENOMEM;
}

/* Reserve exactly n more bytes (for codecs that know a block's size up front). */
static int obuf_reserve(struct obuf *o, size_t n)
{
	if (n > o->limit - o->len)
		return SEGSCAN_ECODEC; /* beyond even the spare byte: refuse before allocating */
	if (o->len + n <= o->cap)
		return 0;
	size_t ncap = o->cap;
	while (ncap < o->len + n)
		ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
	if (ncap > o->limit)
		ncap = o->limit;
	uint8_t *np = realloc(o->p, ncap);
	if (!np)
		return -ENOMEM;
	o->p = np;
	o->cap = ncap;
	return 0;
}

/* Room for at least one more byte; SEGSCAN_ECODEC once the cap is reached. */
static inline int obuf_grow(struct obuf *o)
{
	return o->len < o->cap ? 0 : obuf_reserve(o, 1);
}

/* The caller must see exactly max_out allowed: a result that used the spare byte is a bomb. */
static int obuf_finish(struct obuf *o, uint8_t **out, size_t *out_len, int rc)
{
	if (rc == 0 && o->limit != SIZE_MAX && o->len >= o->limit)
		rc = SEGSCAN_ECODEC;
	if (rc) {
		free(o->p);
		o->p = NULL;
		return rc;
	}
	*out = o->p;
	*out_len = o->len;
	return 0;
}

/* ---- gzip ------------------------------------------------------------------------- */

static int gzip_compress(const uint8_t *src, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	/* Java's GZIPOutputStream: default level, an all-zero header (mtime 0, OS 0). */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	gz_header gh;
	memset(&gh, 0, sizeof gh);
	gh.os = 0;
	int rc = 0;
	uint8_t *buf = NULL;
	if (deflateSetHeader(&zs, &gh) != Z_OK) {
		rc = SEGSCAN_ECODEC;
		goto out;
	}
	/* deflateBound takes a uLong; feed in pieces that fit a uInt anyway. */
	size_t cap = deflateBound(&zs, (uLong)len) + 64;
	buf = malloc(cap);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	zs.next_out = buf;
	size_t done_in = 0;
	for (;;) {
		size_t chunk = len - done_in > UINT_MAX ? UINT_MAX : len - done_in;
		zs.next_in = (Bytef *)(uintptr_t)(src + done_in);
		zs.avail_in = (uInt)chunk;
		size_t room = cap - (size_t)(zs.next_out - buf);
		zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
		bool last = done_in + chunk == len;
		int zr = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
		done_in += chunk - zs.avail_in;
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			rc = SEGSCAN_ECODEC;
			goto out;
		}
		if (zs.avail_out == 0 && (size_t)(zs.next_out - buf) >= cap) {
			rc = SEGSCAN_ECODEC; /* deflateBound was wrong: should not happen */
			goto out;
		}
	}
	*out = buf;
	*out_len = (size_t)(zs.next_out - buf);
	buf = NULL;
out:
	free(buf);
	deflateEnd(&zs);
	return rc;
}

static int gzip_decompress(const uint8_t *src, size_t len, struct obuf *o)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -ENOMEM;
	int rc = 0;
	size_t pos = 0;
	for (;;) {
		size_t chunk = len - pos > UINT_MAX ? UINT_MAX : len - pos;
		zs.next_in = (Bytef *)(uintptr_t)(src + pos);
		zs.avail_in = (uInt)chunk;
		if ((rc = obuf_grow(o)))
			break;
		uInt room = o->cap - o->len > UINT_MAX ? UINT_MAX : (uInt)(o->cap - o->len);
		zs.next_out = o->p + o->len;
		zs.avail_out = room;
		int zr = inflate(&zs, Z_NO_FLUSH);
		o->len += room - zs.avail_out;
		pos += chunk - zs.avail_in;
		if (zr == Z_STREAM_END) {
			/* Java's GZIPInputStream reads concatenated members and ignores anything
			 * after the last one that does not start like a gzip header. */
			if (len - pos >= 2 && src[pos] == 0x1f && src[pos + 1] == 0x8b) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (zr == Z_BUF_ERROR && zs.avail_out == 0)
			continue; /* output full: grow and go on */
		if (zr != Z_OK) {
			/* Z_BUF_ERROR with output room left = input ended mid-stream */
			rc = zr == Z_MEM_ERROR ? -ENOMEM : SEGSCAN_ECODEC;
			break;
		}
		if (pos == len && zs.avail_out != 0) {
			rc = SEGSCAN_ECODEC; /* truncated stream */
			break;
		}
	}
	inflateEnd(&zs);
	return rc;
}

/* ---- snappy (xerial snappy-java stream) -------------------------------------------- */

static const uint8_t xerial_magic[8] = { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0x00 };
#define XERIAL_HEADER 16
#define XERIAL_BLOCK  (32 * 1024) /* snappy-java SnappyOutputStream.DEFAULT_BLOCK_SIZE */

static int snappy_compress_x(const uint8_t *src, size_t len, uint8_t **out, size_t *out_len)
{
	size_t nblocks = len / XERIAL_BLOCK + (len % XERIAL_BLOCK != 0);
	size_t per = snappy_max_compressed_length(XERIAL_BLOCK);
	if (nblocks && per + 4 > (SIZE_MAX - XERIAL_HEADER) / nblocks)
		return -ENOMEM;
	size_t cap = XERIAL_HEADER + nblocks * (per + 4);
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, xerial_magic, 8);
	ss_put_be32(buf + 8, 1);  /* version */
	ss_put_be32(buf + 12, 1); /* minimum compatible version */
	size_t w = XERIAL_HEADER;
	for (size_t off = 0; off < len; off += XERIAL_BLOCK) {
		size_t n = len - off < XERIAL_BLOCK ? len - off : XERIAL_BLOCK;
		size_t clen = per;
		if (snappy_compress((const char *)src + off, n, (char *)buf + w + 4, &clen) != SNAPPY_OK) {
			free(buf);
			return SEGSCAN_ECODEC;
		}
		ss_put_be32(buf + w, (uint32_t)clen);
		w += 4 + clen;
	}
	*out = buf;
	*out_len = w;
	return 0;
}

static int snappy_block(const uint8_t *src, size_t len, struct obuf *o)
{
	size_t n;
	if (snappy_uncompressed_length((const char *)src, len, &n) != SNAPPY_OK)
		return SEGSCAN_ECODEC;
	int rc = obuf_reserve(o, n);
	if (rc)
		return rc;
	size_t got = n;
	if (snappy_uncompress((const char *)src, len, (char *)o->p + o->len, &got) != SNAPPY_OK || got != n)
		return SEGSCAN_ECODEC;
	o->len += n;
	return 0;
}

static int snappy_decompress_x(const uint8_t *src, size_t len, struct obuf *o)
{
	/* SnappyInputStream falls back to one raw snappy block when the xerial header is absent. */
	if (len < XERIAL_HEADER || memcmp(src, xerial_magic, 8) != 0)
		return snappy_block(src, len, o);
	size_t pos = XERIAL_HEADER;
	while (pos < len) {
		/* snappy-java accepts another stream header between chunks (concatenated
		 * streams); its first int32 is negative, so it cannot be a chunk length. */
		if (len - pos >= XERIAL_HEADER && memcmp(src + pos, xerial_magic, 8) == 0) {
			pos += XERIAL_HEADER;
			continue;
		}
		if (len - pos < 4)
			return SEGSCAN_ECODEC;
		uint32_t clen = ss_be32(src + pos);
		pos += 4;
		if (clen > INT32_MAX || clen > len - pos)
			return SEGSCAN_ECODEC;
		int rc = snappy_block(src + pos, clen, o);
		if (rc)
			return rc;
		pos += clen;
	}
	return 0;
}

/* ---- lz4 frame ---------------------------------------------------------------------- */

/* XXH32, only to recompute an LZ4 frame descriptor checksum (lz4 does not export it). */
static inline uint32_t rotl32(uint32_t x, int r) { return x << r | x >> (32 - r); }
static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t xxh32(const uint8_t *p, size_t len, uint32_t seed)
{
	const uint32_t P1 = 2654435761U, P2 = 2246822519U, P3 = 3266489917U, P4 = 668265263U,
		       P5 = 374761393U;
	const uint8_t *end = p + len;
	uint32_t h;
	if (len >= 16) {
		uint32_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		while (end - p >= 16) {
			v1 = rotl32(v1 + le32(p) * P2, 13) * P1;
			v2 = rotl32(v2 + le32(p + 4) * P2, 13) * P1;
			v3 = rotl32(v3 + le32(p + 8) * P2, 13) * P1;
			v4 = rotl32(v4 + le32(p + 12) * P2, 13) * P1;
			p += 16;
		}
		h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
	} else {
		h = seed + P5;
	}
	h += (uint32_t)len;
	while (end - p >= 4) {
		h = rotl32(h + le32(p) * P3, 17) * P4;
		p += 4;
	}
	while (p < end) {
		h = rotl32(h + *p * P5, 11) * P1;
		p++;
	}
	h ^= h >> 15;
	h *= P2;
	h ^= h >> 13;
	h *= P3;
	h ^= h >> 16;
	return h;
}

#define LZ4_FRAME_MAGIC 0x184D2204u

/*
 * Kafka's magic-0 LZ4 writer computed the frame descriptor checksum over the wrong bytes,
 * and Kafka skips that check for magic 0 (§2.7). This API does not know the magic, so a
 * wrong descriptor checksum is tolerated everywhere: the batch CRC covers the bytes anyway.
 * Returns the header length and a corrected copy in hdr[], or 0 if nothing needs fixing.
 */
static size_t lz4_fixed_header(const uint8_t *src, size_t len, uint8_t hdr[19])
{
	if (len < 7 || le32(src) != LZ4_FRAME_MAGIC)
		return 0;
	uint8_t flg = src[4];
	size_t dlen = 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0);
	size_t hlen = 4 + dlen + 1;
	if (len < hlen)
		return 0;
	uint8_t want = (uint8_t)(xxh32(src + 4, dlen, 0) >> 8);
	if (src[4 + dlen] == want)
		return 0;
	memcpy(hdr, src, hlen);
	hdr[4 + dlen] = want;
	return hlen;
}

static int lz4_compress(const uint8_t *src, size_t len, uint8_t **out, size_t *out_len)
{
	/* Kafka's Lz4BlockOutputStream: 64 KiB independent blocks, no checksums, no size. */
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof prefs);
	prefs.frameInfo.blockSizeID = LZ4F_max64KB;
	prefs.frameInfo.blockMode = LZ4F_blockIndependent;
	prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
	prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
	size_t cap = LZ4F_compressFrameBound(len, &prefs);
	if (LZ4F_isError(cap))
		return SEGSCAN_ECODEC;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	size_t n = LZ4F_compressFrame(buf, cap, src, len, &prefs);
	if (LZ4F_isError(n)) {
		free(buf);
		return SEGSCAN_ECODEC;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

static int lz4_decompress(const uint8_t *src, size_t len, struct obuf *o)
{
	LZ4F_dctx *dctx = NULL;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return -ENOMEM;
	int rc = 0;
	uint8_t hdr[19];
	size_t hlen = lz4_fixed_header(src, len, hdr);
	const uint8_t *in = hlen ? hdr : src;
	size_t in_len = hlen ? hlen : len;
	size_t hint;
	for (;;) {
		if ((rc = obuf_grow(o)))
			goto out;
		size_t dst = o->cap - o->len, sz = in_len;
		hint = LZ4F_decompress(dctx, o->p + o->len, &dst, in, &sz, NULL);
		if (LZ4F_isError(hint)) {
			rc = SEGSCAN_ECODEC;
			goto out;
		}
		o->len += dst;
		in += sz;
		in_len -= sz;
		if (in_len == 0 && hlen) {
			in = src + hlen; /* fixed header fed: continue with the real bytes */
			in_len = len - hlen;
			hlen = 0;
		}
		if (hint == 0) {
			/* Frame complete. Kafka's reader stops at the end mark; honour a further
			 * concatenated frame, ignore anything else. */
			size_t at = (size_t)(in - src);
			if (len - at >= 4 && le32(src + at) == LZ4_FRAME_MAGIC)
				continue;
			break;
		}
		if (sz == 0 && dst == 0 && o->len < o->cap) {
			/* no progress with room to write: the input ended inside the frame */
			rc = SEGSCAN_ECODEC;
			goto out;
		}
	}
out:
	LZ4F_freeDecompressionContext(dctx);
	return rc;
}

/* ---- zstd -------------------------------------------------------------------------- */

static int zstd_compress_f(const uint8_t *src, size_t len, uint8_t **out, size_t *out_len)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	if (!cc)
		return -ENOMEM;
	int rc = 0;
	uint8_t *buf = NULL;
	/* Kafka's default zstd level is 3; zstd-jni's stream writes no content size, so
	 * neither do we: readers must cope with frames of unknown size. */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0))) {
		rc = SEGSCAN_ECODEC;
		goto out;
	}
	size_t cap = ZSTD_compressBound(len);
	buf = malloc(cap ? cap : 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	size_t n = ZSTD_compress2(cc, buf, cap, src, len);
	if (ZSTD_isError(n)) {
		rc = SEGSCAN_ECODEC;
		goto out;
	}
	*out = buf;
	*out_len = n;
	buf = NULL;
out:
	free(buf);
	ZSTD_freeCCtx(cc);
	return rc;
}

/*
 * One zstd decompression context per thread, kept between calls: creating one costs more
 * than decompressing a small batch (it was half the time of `segscan dump --records` over a
 * zstd segment). The thread's exit frees it (zdc_free); a context is reset before each use.
 */
static pthread_key_t  zdc_key;
static pthread_once_t zdc_once = PTHREAD_ONCE_INIT;
static bool           zdc_ok;

static void zdc_free(void *p) { ZSTD_freeDCtx(p); }
static void zdc_init(void) { zdc_ok = pthread_key_create(&zdc_key, zdc_free) == 0; }

/* The thread's context (*cached = true: do not free it), or a new one to free. */
static ZSTD_DCtx *zdc_get(bool *cached)
{
	pthread_once(&zdc_once, zdc_init);
	ZSTD_DCtx *dc = zdc_ok ? pthread_getspecific(zdc_key) : NULL;
	if (dc && !ZSTD_isError(ZSTD_DCtx_reset(dc, ZSTD_reset_session_only))) {
		*cached = true;
		return dc;
	}
	dc = ZSTD_createDCtx();   /* kept by the key (freed by zdc_free) or freed by the caller */
	*cached = dc && zdc_ok && !pthread_getspecific(zdc_key) && pthread_setspecific(zdc_key, dc) == 0;
	return dc;
}

static int zstd_decompress_f(const uint8_t *src, size_t len, struct obuf *o)
{
	bool cached;
	ZSTD_DCtx *dc = zdc_get(&cached);
	if (!dc)
		return -ENOMEM;
	int rc = 0;
	ZSTD_inBuffer in = { src, len, 0 };
	size_t hint;
	if (len == 0) {
		rc = SEGSCAN_ECODEC;
		goto out;
	}
	for (;;) {
		if ((rc = obuf_grow(o)))
			goto out;
		ZSTD_outBuffer ob = { o->p, o->cap, o->len };
		size_t in_before = in.pos;
		hint = ZSTD_decompressStream(dc, &ob, &in);
		if (ZSTD_isError(hint)) {
			rc = SEGSCAN_ECODEC;
			goto out;
		}
		size_t produced = ob.pos - o->len;
		o->len = ob.pos;
		if (in.pos == in.size && hint == 0)
			break; /* every frame complete and all input used */
		if (in.pos == in_before && produced == 0 && o->len < o->cap) {
			/* no progress with room to write: the input ended inside a frame */
			rc = SEGSCAN_ECODEC;
			goto out;
		}
	}
out:
	if (!cached)
		ZSTD_freeDCtx(dc);   /* pairs with zdc_get's ZSTD_createDCtx */
	return rc;
}

/* ---- public ------------------------------------------------------------------------ */

int ss_codec_compress(enum ss_codec c, const uint8_t *src, size_t len, uint8_t **out, size_t *out_len)
{
	switch (c) {
	case SS_CODEC_NONE: {
		uint8_t *b = malloc(len ? len : 1);
		if (!b)
			return -ENOMEM;
		if (len)
			memcpy(b, src, len);
		*out = b;
		*out_len = len;
		return 0;
	}
	case SS_CODEC_GZIP:   return gzip_compress(src, len, out, out_len);
	case SS_CODEC_SNAPPY: return snappy_compress_x(src, len, out, out_len);
	case SS_CODEC_LZ4:    return lz4_compress(src, len, out, out_len);
	case SS_CODEC_ZSTD:   return zstd_compress_f(src, len, out, out_len);
	}
	return SEGSCAN_ECODEC;
}

int ss_codec_decompress(enum ss_codec c, const uint8_t *src, size_t len, uint8_t **out, size_t *out_len,
			size_t max_out)
{
	struct obuf o;
	/* A compressed stream rarely expands less than 2x; start there to save reallocs. */
	size_t hint = len > SIZE_MAX / 4 ? len : len * 4;
	int rc;
	switch (c) {
	case SS_CODEC_NONE:
	case SS_CODEC_GZIP:
	case SS_CODEC_SNAPPY:
	case SS_CODEC_LZ4:
	case SS_CODEC_ZSTD:
		break;
	default:
		return SEGSCAN_ECODEC;
	}
	if ((rc = obuf_init(&o, max_out, c == SS_CODEC_NONE ? len : hint)))
		return rc;
	switch (c) {
	case SS_CODEC_NONE:
		rc = obuf_reserve(&o, len);
		if (!rc && len) {
			memcpy(o.p, src, len);
			o.len = len;
		}
		break;
	case SS_CODEC_GZIP:   rc = gzip_decompress(src, len, &o); break;
	case SS_CODEC_SNAPPY: rc = snappy_decompress_x(src, len, &o); break;
	case SS_CODEC_LZ4:    rc = lz4_decompress(src, len, &o); break;
	case SS_CODEC_ZSTD:   rc = zstd_decompress_f(src, len, &o); break;
	}
	return obuf_finish(&o, out, out_len, rc);
}

static const char *const codec_names[] = {
	[SS_CODEC_NONE] = "none", [SS_CODEC_GZIP] = "gzip", [SS_CODEC_SNAPPY] = "snappy",
	[SS_CODEC_LZ4] = "lz4",   [SS_CODEC_ZSTD] = "zstd",
};

const char *ss_codec_name(enum ss_codec c)
{
	if ((unsigned)c < sizeof codec_names / sizeof codec_names[0])
		return codec_names[c];
	return "unknown";
}

int ss_codec_parse(const char *name, enum ss_codec *out)
{
	if (!name)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof codec_names / sizeof codec_names[0]; i++) {
		if (strcmp(name, codec_names[i]) == 0) {
			*out = (enum ss_codec)i;
			return 0;
		}
	}
	/* Kafka's topic-level compression.type spells "none" as "uncompressed". */
	if (strcmp(name, "uncompressed") == 0) {
		*out = SS_CODEC_NONE;
		return 0;
	}
	return SEGSCAN_ECODEC;
}
