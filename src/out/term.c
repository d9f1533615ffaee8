/*
 * Text for a terminal: what a file name holds never reaches one raw. Control characters
 * (C0 except newline, DEL, C1) and bytes that are not well-formed UTF-8 are written as
 * visible escapes (\x1b, \u009b), so a directory named with ESC ] 0 ; ... BEL cannot set
 * the terminal's title, clear the screen or rewrite a line of the report. Which bytes
 * and how is common/esc.h's one classification (SS_ESC_CONTROL); this file is its face
 * for a terminal.
 *
 * And the width of that text as a terminal shows it, so that the table fits: escapes
 * count as what they are written as, wide characters as two columns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/esc.h"
#include "out/out.h"

void ss_term_write(FILE *f, const char *s, size_t n)
{
	ss_esc_fwrite(f, s, n, SS_ESC_CONTROL);   /* newlines are the report's own */
}

/* ---- display width: the table fits a terminal (table.c) ---------------------------- */

/* Columns a printable code point takes. A locale-free approximation of wcwidth(3):
 * combining marks and zero-width characters 0, East Asian Wide and Fullwidth (Unicode
 * UAX #11) and the emoji blocks 2, everything else 1. Topic names are ASCII ([a-zA-Z0-9._-],
 * Kafka's Topic.validate); the rest is for log-dir paths and stray directory names. */
static unsigned cp_width(uint32_t cp)
{
	if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x1dc0 && cp <= 0x1dff) ||
	    (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe00 && cp <= 0xfe0f) ||
	    (cp >= 0xfe20 && cp <= 0xfe2f) || cp == 0xfeff)
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) ||
	    (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
	    (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x2fffd) || (cp >= 0x30000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

/* One unit of what ss_term_write writes for the bytes at p: the bytes it takes and the
 * columns its output takes (an escape as the characters it is written as: "\x1b" 4,
 * "\u009b" 6; the newline none). */
static size_t unit(const unsigned char *p, size_t n, unsigned *w)
{
	uint32_t cp;
	char e[SS_ESC_MAX];
	size_t l = ss_esc_unit(p, n, SS_ESC_CONTROL, &cp, e);
	*w = e[0] ? (unsigned)strlen(e) : cp == '\n' ? 0 : cp_width(cp);
	return l;
}

size_t ss_term_width(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		unsigned u;
		i += unit(p + i, n - i, &u);
		w += u;
	}
	return w;
}

size_t ss_term_prefix(const char *s, size_t n, size_t maxw)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, i = 0;
	while (i < n) {
		unsigned u;
		size_t l = unit(p + i, n - i, &u);
		if (w + u > maxw)
			break;
		w += u;
		i += l;
	}
	return i;
}

size_t ss_term_suffix(const char *s, size_t n, size_t maxw)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t total = ss_term_width(s, n), w = 0, i = 0;
	/* the first unit boundary after which what is left fits */
	while (i < n && total - w > maxw) {
		unsigned u;
		i += unit(p + i, n - i, &u);
		w += u;
	}
	return i;
}

const char *ss_term_ellipsis(void)
{
	/* the locale's character set as setlocale(LC_CTYPE, "") would pick it: LC_ALL, then
	 * LC_CTYPE, then LANG; a terminal that is not UTF-8 gets '~' instead of U+2026 */
	const char *v = getenv("LC_ALL");
	if (!v || !*v)
		v = getenv("LC_CTYPE");
	if (!v || !*v)
		v = getenv("LANG");
	if (v && (strcasestr(v, "utf-8") || strcasestr(v, "utf8")))
		return "\xe2\x80\xa6";
	return "~";
}

unsigned ss_term_columns(int fd)
{
	/* COLUMNS, when set to a number, wins over the terminal's size and applies to a pipe
	 * or file too (as ls and procps read it); else the terminal's own size; else 0 */
	const char *c = getenv("COLUMNS");
	if (c && *c) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(c, &end, 10);
		if (!errno && !*end && c[0] != '-' && v > 0 && v <= 100000)
			return (unsigned)v;
	}
	struct winsize ws;
	if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

void ss_term_write_fit(FILE *f, const char *s, size_t n, unsigned width)
{
	if (!width) {
		ss_term_write(f, s, n);
		return;
	}
	const char *end = s + n;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		/* a line wider than the terminal wraps at its last space that fits (else mid-word),
		 * continuing indented four more than the line itself */
		size_t ind = 0;
		while (ind < len && s[ind] == ' ')
			ind++;
		size_t cont = ind + 4 > width / 2 ? width / 2 : ind + 4;
		const char *p = s, *le = s + len;
		size_t lead = 0;   /* spaces before this piece */
		for (;;) {
			size_t avail = width - lead;
			size_t k = ss_term_prefix(p, (size_t)(le - p), avail);
			if (k == (size_t)(le - p)) {
				fprintf(f, "%*s", (int)lead, "");
				ss_term_write(f, p, k);
				break;
			}
			size_t brk = k, skip = 0;
			for (size_t j = k; j > 0; j--) {
				/* not between a number and its unit ("1.63 KiB", "7 segments") */
				bool unit_gap = p[j - 1] >= '0' && p[j - 1] <= '9' && p + j + 1 < le &&
						((p[j + 1] | 0x20) >= 'a' && (p[j + 1] | 0x20) <= 'z');
				if (p[j] == ' ' && (p + j) > s + ind && !unit_gap) {
					brk = j;
					skip = 1;
					break;
				}
			}
			if (brk == 0) /* not even one unit fits (an escape is 6 wide): take one anyway */
				brk = ss_term_prefix(p, (size_t)(le - p), 6);
			fprintf(f, "%*s", (int)lead, "");
			ss_term_write(f, p, brk);
			fputc('\n', f);
			p += brk + skip;
			while (p < le && *p == ' ')
				p++;
			lead = cont;
			if (p >= le)
				break;
		}
		if (nl)
			fputc('\n', f);
		s += len + (nl ? 1 : 0);
	}
}
