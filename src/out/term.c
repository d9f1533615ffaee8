/*
 * Text for a terminal: what a file name holds never reaches one raw. Control characters
 * (C0 except newline, DEL, C1) and bytes that are not well-formed UTF-8 are written as
 * visible escapes (\x1b, \u009b), so a directory named with ESC ] 0 ; ... BEL cannot set
 * the terminal's title, clear the screen or rewrite a line of the report.
 */
#include <stdio.h>

#include "common/utf8.h"
#include "out/out.h"

void ss_term_write(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n, *run = p;
	while (p < end) {
		uint32_t cp;
		size_t l = ss_utf8_seq(p, (size_t)(end - p), &cp);
		if (l && (cp == '\n' || !ss_utf8_is_control(cp))) {
			p += l;
			continue;
		}
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (l)
			fprintf(f, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
		else
			fprintf(f, "\\x%02x", *p);
		p += l ? l : 1;
		run = p;
	}
	if (p > run)
		fwrite(run, 1, (size_t)(p - run), f);
}
