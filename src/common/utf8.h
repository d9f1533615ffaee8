/*
 * UTF-8 for the outputs: every string a report writes must be valid UTF-8 (JSON, the
 * Prometheus exposition) and nothing a file name holds may reach a terminal raw (escape
 * sequences set titles, clear screens, rewrite lines). Names come from directories that
 * anyone with write access to a log dir can create.
 */
#ifndef SS_COMMON_UTF8_H
#define SS_COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (1..4; RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when s does not start one. n: bytes left. */
static inline size_t ss_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (n == 0)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t len;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* A code point a terminal acts on: C0 controls, DEL and C1 controls. */
static inline int ss_utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

#endif
