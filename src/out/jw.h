/*
 * A minimal streaming JSON writer for the report formats: keys and values are written
 * in order, commas are placed by a small nesting stack. Strings are escaped per RFC 8259
 * (control characters as \u00XX; bytes >= 0x80 pass through, since topic names are
 * ASCII and paths are the operator's own bytes).
 */
#ifndef SS_OUT_JW_H
#define SS_OUT_JW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct jw {
	FILE    *f;
	int      depth;
	bool     first[64];   /* nothing written yet at this depth */
	bool     after_key;
};

void jw_init(struct jw *w, FILE *f);
void jw_obj(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w);
void jw_arr_end(struct jw *w);
void jw_key(struct jw *w, const char *k);
void jw_str(struct jw *w, const char *s);
void jw_i64(struct jw *w, int64_t v);
void jw_f64(struct jw *w, double v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* key + value shorthands */
static inline void jw_kstr(struct jw *w, const char *k, const char *s) { jw_key(w, k); if (s) jw_str(w, s); else jw_null(w); }
static inline void jw_ki64(struct jw *w, const char *k, int64_t v) { jw_key(w, k); jw_i64(w, v); }
static inline void jw_kbool(struct jw *w, const char *k, bool v) { jw_key(w, k); jw_bool(w, v); }
static inline void jw_knull(struct jw *w, const char *k) { jw_key(w, k); jw_null(w); }
/* v if has, else null */
static inline void jw_ki64n(struct jw *w, const char *k, bool has, int64_t v) { jw_key(w, k); if (has) jw_i64(w, v); else jw_null(w); }

/* Escape s as a JSON string body into f (no quotes). */
void jw_escape(FILE *f, const char *s);

#endif
