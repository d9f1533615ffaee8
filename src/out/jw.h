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

struct ss_jw {
	FILE    *f;
	int      depth;
	bool     first[64];   /* nothing written yet at this depth */
	bool     after_key;
};

void ss_jw_init(struct ss_jw *w, FILE *f);
void ss_jw_obj(struct ss_jw *w);
void ss_jw_obj_end(struct ss_jw *w);
void ss_jw_arr(struct ss_jw *w);
void ss_jw_arr_end(struct ss_jw *w);
void ss_jw_key(struct ss_jw *w, const char *k);
void ss_jw_str(struct ss_jw *w, const char *s);
void ss_jw_i64(struct ss_jw *w, int64_t v);
void ss_jw_bool(struct ss_jw *w, bool v);
void ss_jw_null(struct ss_jw *w);
/* key + value shorthands */
static inline void ss_jw_kstr(struct ss_jw *w, const char *k, const char *s) { ss_jw_key(w, k); if (s) ss_jw_str(w, s); else ss_jw_null(w); }
static inline void ss_jw_ki64(struct ss_jw *w, const char *k, int64_t v) { ss_jw_key(w, k); ss_jw_i64(w, v); }
static inline void ss_jw_kbool(struct ss_jw *w, const char *k, bool v) { ss_jw_key(w, k); ss_jw_bool(w, v); }
static inline void ss_jw_knull(struct ss_jw *w, const char *k) { ss_jw_key(w, k); ss_jw_null(w); }
/* v if has, else null */
static inline void ss_jw_ki64n(struct ss_jw *w, const char *k, bool has, int64_t v) { ss_jw_key(w, k); if (has) ss_jw_i64(w, v); else ss_jw_null(w); }

/* Escape s as a JSON string body into f (no quotes). */
void ss_jw_escape(FILE *f, const char *s);

#endif
