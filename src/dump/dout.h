/*
 * The dump's output buffer: a large append-only buffer flushed to a FILE with fwrite, with
 * number and string formatting of its own. `segscan dump --records` writes one line per
 * record, so printf's parsing per field would be most of the time spent; these appenders
 * are plain loops. JSON helpers keep commas by a small nesting stack (like out/jw.h, but
 * into this buffer).
 */
#ifndef SS_DUMP_DOUT_H
#define SS_DUMP_DOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SS_DOUT_CAP  (256u << 10)
#define SS_DOUT_ROOM 4096u          /* a flush leaves at least this much for short appends */

struct ss_dout {
	FILE  *f;
	char  *buf;
	size_t len;
	int    err;                     /* first write error (negative errno), sticky */
	int    depth;
	bool   first[32];               /* nothing written at this JSON depth yet */
	bool   after_key;
};

int  ss_dout_init(struct ss_dout *o, FILE *f);   /* 0 or -ENOMEM; pairs with ss_dout_free */
void ss_dout_free(struct ss_dout *o);
int  ss_dout_flush(struct ss_dout *o);           /* 0 or o->err */

static inline void ss_dout_reserve(struct ss_dout *o, size_t n)
{
	if (o->len + n > SS_DOUT_CAP)
		ss_dout_flush(o);
}
void ss_dout_mem(struct ss_dout *o, const void *p, size_t n);
static inline void ss_dout_str(struct ss_dout *o, const char *s) { ss_dout_mem(o, s, strlen(s)); }
static inline void ss_dout_ch(struct ss_dout *o, char c)
{
	ss_dout_reserve(o, 1);
	o->buf[o->len++] = c;
}
void ss_dout_i64(struct ss_dout *o, int64_t v);
void ss_dout_u64(struct ss_dout *o, uint64_t v);
/* s[0..n) as a JSON string body (no quotes): ", \ and control characters (C0, DEL, C1)
 * escaped, other bytes as they are (the caller passes valid UTF-8) */
void ss_dout_jesc(struct ss_dout *o, const uint8_t *s, size_t n);
void ss_dout_base64(struct ss_dout *o, const uint8_t *s, size_t n);

/* Is s[0..n) valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF)? */
bool ss_utf8_valid(const uint8_t *s, size_t n);

/* ---- JSON on top ---- */
void ss_dj_reset(struct ss_dout *o);             /* depth 0, nothing written */
void ss_dj_obj(struct ss_dout *o);
void ss_dj_obj_end(struct ss_dout *o);
void ss_dj_arr(struct ss_dout *o);
void ss_dj_arr_end(struct ss_dout *o);
void ss_dj_key(struct ss_dout *o, const char *k);
void ss_dj_i64(struct ss_dout *o, int64_t v);
void ss_dj_u64(struct ss_dout *o, uint64_t v);
void ss_dj_bool(struct ss_dout *o, bool v);
void ss_dj_null(struct ss_dout *o);
void ss_dj_str(struct ss_dout *o, const char *s);
void ss_dj_strn(struct ss_dout *o, const uint8_t *s, size_t n);   /* escaped */
void ss_dj_raw(struct ss_dout *o, const char *s);                 /* already JSON */
static inline void ss_dj_ki64(struct ss_dout *o, const char *k, int64_t v) { ss_dj_key(o, k); ss_dj_i64(o, v); }
static inline void ss_dj_ku64(struct ss_dout *o, const char *k, uint64_t v) { ss_dj_key(o, k); ss_dj_u64(o, v); }
static inline void ss_dj_kbool(struct ss_dout *o, const char *k, bool v) { ss_dj_key(o, k); ss_dj_bool(o, v); }
static inline void ss_dj_kstr(struct ss_dout *o, const char *k, const char *s)
{
	ss_dj_key(o, k);
	if (s)
		ss_dj_str(o, s);
	else
		ss_dj_null(o);
}
static inline void ss_dj_knull(struct ss_dout *o, const char *k) { ss_dj_key(o, k); ss_dj_null(o); }

#endif
