/* Streaming JSON writer: see jw.h. */
#include <inttypes.h>
#include <string.h>

#include "common/utf8.h"
#include "out/jw.h"

void ss_jw_init(struct ss_jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->first[0] = true;
	w->after_key = false;
}

static void sep(struct ss_jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		fputc_unlocked(',', w->f);
	w->first[w->depth] = false;
}

static void open_(struct ss_jw *w, char c)
{
	sep(w);
	fputc(c, w->f);
	if (w->depth < 63)
		w->depth++;
	w->first[w->depth] = true;
}

void ss_jw_obj(struct ss_jw *w) { open_(w, '{'); }
void ss_jw_arr(struct ss_jw *w) { open_(w, '['); }

void ss_jw_obj_end(struct ss_jw *w)
{
	if (w->depth > 0)
		w->depth--;
	fputc('}', w->f);
}

void ss_jw_arr_end(struct ss_jw *w)
{
	if (w->depth > 0)
		w->depth--;
	fputc(']', w->f);
}

void ss_jw_escape(FILE *f, const char *s)
{
	/* runs of plain bytes go out in one write; a byte that does not start well-formed
	 * UTF-8 (a directory name is any bytes) becomes U+FFFD, so the output stays JSON */
	const unsigned char *run = (const unsigned char *)s;
	for (const unsigned char *p = (const unsigned char *)s;; p++) {
		if (*p >= 0x80) {
			uint32_t cp;
			size_t l = ss_utf8_seq(p, strnlen((const char *)p, 4), &cp);
			if (l) {
				p += l - 1;
				continue;
			}
			if (p > run)
				fwrite_unlocked(run, 1, (size_t)(p - run), f);
			run = p + 1;
			fputs("\\ufffd", f);
			continue;
		}
		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p != 0x7f)
			continue;
		if (p > run)
			fwrite_unlocked(run, 1, (size_t)(p - run), f);
		run = p + 1;
		if (!*p)
			return;
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			fprintf(f, "\\u%04x", *p);
		}
	}
}

void ss_jw_key(struct ss_jw *w, const char *k)
{
	/* keys are our own ASCII literals: no escaping needed */
	sep(w);
	fputc_unlocked('"', w->f);
	fputs_unlocked(k, w->f);
	fputs_unlocked("\":", w->f);
	w->after_key = true;
}

void ss_jw_str(struct ss_jw *w, const char *s)
{
	sep(w);
	fputc('"', w->f);
	ss_jw_escape(w->f, s);
	fputc('"', w->f);
}

void ss_jw_i64(struct ss_jw *w, int64_t v)
{
	/* reports hold millions of integers: format by hand, no printf parsing */
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	sep(w);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), w->f);
}

void ss_jw_bool(struct ss_jw *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void ss_jw_null(struct ss_jw *w)
{
	sep(w);
	fputs("null", w->f);
}
