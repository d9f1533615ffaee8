/* The dump's output buffer: see dump/dout.h. */
#include <errno.h>
#include <stdlib.h>

#include "common/utf8.h"
#include "dump/dout.h"

int ss_dout_init(struct ss_dout *o, FILE *f)
{
	memset(o, 0, sizeof *o);
	o->f = f;
	o->buf = malloc(SS_DOUT_CAP);   /* freed by ss_dout_free */
	if (!o->buf)
		return -ENOMEM;
	o->first[0] = true;
	return 0;
}

void ss_dout_free(struct ss_dout *o)
{
	free(o->buf);   /* pairs with the malloc in ss_dout_init */
	o->buf = NULL;
}

int ss_dout_flush(struct ss_dout *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->err = errno ? -errno : -EIO;
	if (!o->err && ferror(o->f))   /* a write straight to the FILE (dd_text's escapes) failed */
		o->err = -EIO;
	o->len = 0;
	return o->err;
}

void ss_dout_mem(struct ss_dout *o, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		if (o->len == SS_DOUT_CAP)
			ss_dout_flush(o);
		size_t k = SS_DOUT_CAP - o->len < n ? SS_DOUT_CAP - o->len : n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

/* Two digits per division: a record line is mostly numbers (13 % of a --records dump went
 * into the digit-at-a-time loop). */
static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void ss_dout_u64(struct ss_dout *o, uint64_t v)
{
	char t[20];
	int n = 20;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		t[--n] = digits2[2 * r + 1];
		t[--n] = digits2[2 * r];
	}
	if (v >= 10) {
		t[--n] = digits2[2 * v + 1];
		t[--n] = digits2[2 * v];
	} else {
		t[--n] = (char)('0' + v);
	}
	ss_dout_mem(o, t + n, (size_t)(20 - n));
}

void ss_dout_i64(struct ss_dout *o, int64_t v)
{
	if (v < 0) {
		ss_dout_ch(o, '-');
		ss_dout_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		ss_dout_u64(o, (uint64_t)v);
	}
}

void ss_dout_jesc(struct ss_dout *o, const uint8_t *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			continue;
		/* DEL and the C1 controls (U+0080..U+009F, UTF-8 C2 80..C2 9F) are valid JSON as
		 * they are, but a terminal acts on them (U+009B is CSI): written as \u00XX, the same
		 * character to a JSON reader and harmless when the text format shows it */
		if (c >= 0x80 && !(c == 0xc2 && i + 1 < n && (s[i + 1] & 0xe0) == 0x80))
			continue;
		ss_dout_mem(o, s + run, i - run);
		if (c == 0xc2)
			c = s[++i];   /* the code point U+00XX is its second byte */
		run = i + 1;
		ss_dout_reserve(o, 6);
		char *p = o->buf + o->len;
		switch (c) {
		case '"':  memcpy(p, "\\\"", 2); o->len += 2; break;
		case '\\': memcpy(p, "\\\\", 2); o->len += 2; break;
		case '\n': memcpy(p, "\\n", 2); o->len += 2; break;
		case '\r': memcpy(p, "\\r", 2); o->len += 2; break;
		case '\t': memcpy(p, "\\t", 2); o->len += 2; break;
		default:
			memcpy(p, "\\u00", 4);
			p[4] = hex[c >> 4];
			p[5] = hex[c & 15];
			o->len += 6;
		}
	}
	ss_dout_mem(o, s + run, n - run);
}

void ss_dout_base64(struct ss_dout *o, const uint8_t *s, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i = 0;
	while (i + 3 <= n) {
		ss_dout_reserve(o, 4);
		char *p = o->buf + o->len;
		uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
		p[0] = tab[v >> 18];
		p[1] = tab[(v >> 12) & 63];
		p[2] = tab[(v >> 6) & 63];
		p[3] = tab[v & 63];
		o->len += 4;
		i += 3;
	}
	if (i < n) {
		uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
		ss_dout_reserve(o, 4);
		char *p = o->buf + o->len;
		p[0] = tab[v >> 18];
		p[1] = tab[(v >> 12) & 63];
		p[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		p[3] = '=';
		o->len += 4;
	}
}

bool ss_utf8_valid(const uint8_t *s, size_t n)
{
	/* the project's one decoder (common/utf8.h): RFC 3629, as before */
	for (size_t i = 0, k; i < n; i += k) {
		uint32_t cp;
		if (!(k = ss_utf8_seq(s + i, n - i, &cp)))
			return false;
	}
	return true;
}

/* ---- JSON ---- */
void ss_dj_reset(struct ss_dout *o)
{
	o->depth = 0;
	o->first[0] = true;
	o->after_key = false;
}

static void sep(struct ss_dout *o)
{
	if (o->after_key) {
		o->after_key = false;
		return;
	}
	if (!o->first[o->depth])
		ss_dout_ch(o, ',');
	o->first[o->depth] = false;
}

static void open_(struct ss_dout *o, char c)
{
	sep(o);
	ss_dout_ch(o, c);
	if (o->depth + 1 < (int)(sizeof(o->first) / sizeof(o->first[0])))
		o->depth++;
	o->first[o->depth] = true;
}

void ss_dj_obj(struct ss_dout *o) { open_(o, '{'); }
void ss_dj_arr(struct ss_dout *o) { open_(o, '['); }
void ss_dj_obj_end(struct ss_dout *o) { if (o->depth) o->depth--; ss_dout_ch(o, '}'); }
void ss_dj_arr_end(struct ss_dout *o) { if (o->depth) o->depth--; ss_dout_ch(o, ']'); }

void ss_dj_key(struct ss_dout *o, const char *k)
{
	sep(o);
	ss_dout_ch(o, '"');
	ss_dout_str(o, k);   /* keys are our own ASCII names */
	ss_dout_mem(o, "\":", 2);
	o->after_key = true;
}

void ss_dj_i64(struct ss_dout *o, int64_t v) { sep(o); ss_dout_i64(o, v); }
void ss_dj_u64(struct ss_dout *o, uint64_t v) { sep(o); ss_dout_u64(o, v); }
void ss_dj_bool(struct ss_dout *o, bool v) { sep(o); ss_dout_str(o, v ? "true" : "false"); }
void ss_dj_null(struct ss_dout *o) { sep(o); ss_dout_mem(o, "null", 4); }
void ss_dj_raw(struct ss_dout *o, const char *s) { sep(o); ss_dout_str(o, s); }

void ss_dj_strn(struct ss_dout *o, const uint8_t *s, size_t n)
{
	sep(o);
	ss_dout_ch(o, '"');
	ss_dout_jesc(o, s, n);
	ss_dout_ch(o, '"');
}

void ss_dj_str(struct ss_dout *o, const char *s) { ss_dj_strn(o, (const uint8_t *)s, strlen(s)); }
