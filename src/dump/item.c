/*
 * The dump's items and strings: the objects every format writes (an ndjson line, a JSON
 * object in the file's "items", a text line), errors, and bytes from the data as JSON
 * strings, text and base64. See dump_int.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/esc.h"
#include "common/utf8.h"
#include "dump/dump_int.h"

void dd_item(struct ss_dump *d, const char *type)
{
	struct ss_dout *o = &d->out;
	if (d->opts.fmt == SS_DUMP_NDJSON) {
		ss_dj_reset(o);
		ss_dj_obj(o);
		ss_dj_kstr(o, "type", type);
		ss_dj_key(o, "file");
		if (d->path_utf8)   /* the common case, checked once per file: every item has it */
			ss_dj_str(o, d->path);
		else
			dd_strn(o, (const uint8_t *)d->path, (int32_t)strlen(d->path));
	} else {
		ss_dj_obj(o);
		ss_dj_kstr(o, "type", type);
	}
}

void dd_item_end(struct ss_dump *d)
{
	ss_dj_obj_end(&d->out);
	if (d->opts.fmt == SS_DUMP_NDJSON)
		ss_dout_ch(&d->out, '\n');
}

void dd_fields(struct ss_dump *d, const struct dd_field *f, size_t n)
{
	struct ss_dout *o = &d->out;
	for (size_t i = 0; i < n; i++) {
		if (d->opts.fmt == SS_DUMP_TEXT) {
			ss_dout_str(o, f[i].text);
			ss_dout_i64(o, f[i].v);
		} else if (f[i].json) {
			ss_dj_ki64(o, f[i].json, f[i].v);
		}
	}
}

/* A problem with the file: an item (JSON) or a line (text); the file's status becomes 1. */
void dd_error(struct ss_dump *d, int64_t pos, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	d->errors++;
	if (d->status < SS_DUMP_DATA)
		d->status = SS_DUMP_DATA;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(&d->out, "Error in ");
		dd_text(d, d->path, strlen(d->path));
		if (pos >= 0) {
			ss_dout_str(&d->out, " at position ");
			ss_dout_i64(&d->out, pos);
		}
		ss_dout_str(&d->out, ": ");
		dd_text(d, why, strlen(why));
		ss_dout_ch(&d->out, '\n');
		return;
	}
	dd_item(d, "error");
	if (pos >= 0)
		ss_dj_ki64(&d->out, "position", pos);
	else
		ss_dj_knull(&d->out, "position");
	ss_dj_key(&d->out, "reason");
	dd_strn(&d->out, (const uint8_t *)why, (int32_t)strlen(why));
	dd_item_end(d);
}

/* A string from the data: as it is when valid UTF-8 (JSON escapes for the controls), else
 * each byte that does not belong to a well-formed UTF-8 sequence as the four characters
 * \xHH (JSON "\\xff"), as the scan's table shows such bytes (out/term.c): a stray 0xFF
 * and a real U+00FF (which stays "ÿ") differ, and the JSON stays valid. */
void dd_strn(struct ss_dout *o, const uint8_t *s, int32_t n)
{
	if (n < 0) {
		ss_dj_null(o);
		return;
	}
	if (ss_utf8_valid(s, (size_t)n)) {
		ss_dj_strn(o, s, (size_t)n);
		return;
	}
	static const char hex[] = "0123456789abcdef";
	ss_dj_raw(o, "\"");
	for (size_t i = 0, run = 0, l; i <= (size_t)n; i += l) {
		uint32_t cp;
		l = i < (size_t)n ? ss_utf8_seq(s + i, (size_t)n - i, &cp) : 0;
		if (l)
			continue;
		ss_dout_jesc(o, s + run, i - run);   /* the well-formed run before this byte */
		if (i == (size_t)n)
			break;
		char x[5] = { '\\', 'x', hex[s[i] >> 4], hex[s[i] & 15], 0 };
		ss_dout_mem(o, "\\", 1);   /* the backslash, itself escaped for JSON */
		ss_dout_mem(o, x, 4);
		l = 1;
		run = i + 1;
	}
	ss_dout_ch(o, '"');
}

/* Bytes of the input in a line of the text format, through the project's one escaping
 * (common/esc.h, SS_ESC_LINE): a control character (ESC as \x1b, U+009B as \u009b) or a
 * stray 0xFF (\xff) as the scan's terminal output writes it, and a newline as \x0a too:
 * the text is a line per batch or record, and a newline from the data would forge one. */
static void put_dout(void *arg, const char *p, size_t len)
{
	ss_dout_mem(arg, p, len);
}

void dd_text(struct ss_dump *d, const void *p, size_t n)
{
	ss_esc_each(p, n, SS_ESC_LINE, put_dout, &d->out);
}

/* --print-data shows bytes as text when they are valid UTF-8 without a NUL (a NUL is valid
 * UTF-8 but marks binary data, which base64 shows better), else base64. */
bool dd_is_text(const uint8_t *p, int32_t n)
{
	return !memchr(p, 0, (size_t)n) && ss_utf8_valid(p, (size_t)n);
}

/* --print-data: a key, value or header value as UTF-8 text when valid, else base64. */
void dd_data_field(struct ss_dump *d, const char *name, const uint8_t *p, int32_t n)
{
	struct ss_dout *o = &d->out;
	char enc[32];
	snprintf(enc, sizeof(enc), "%s_encoding", name);
	ss_dj_key(o, name);
	if (n < 0) {
		ss_dj_null(o);
		ss_dj_knull(o, enc);
		return;
	}
	if (dd_is_text(p, n)) {
		ss_dj_strn(o, p, (size_t)n);
		ss_dj_kstr(o, enc, "utf8");
	} else {
		ss_dj_raw(o, "\"");
		ss_dout_base64(o, p, (size_t)n);
		ss_dout_ch(o, '"');
		ss_dj_kstr(o, enc, "base64");
	}
}

void dd_text_data(struct ss_dump *d, const char *label, const uint8_t *p, int32_t n)
{
	struct ss_dout *o = &d->out;
	ss_dout_ch(o, ' ');
	ss_dout_str(o, label);
	if (n < 0) {
		ss_dout_str(o, ": null");
		return;
	}
	if (dd_is_text(p, n)) {
		ss_dout_mem(o, ": ", 2);
		dd_text(d, p, (size_t)n);
	} else {
		ss_dout_str(o, "(base64): ");
		ss_dout_base64(o, p, (size_t)n);
	}
}
