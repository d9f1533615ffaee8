/* See esc.h. */
#include "common/esc.h"

#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

static const char hex[] = "0123456789abcdef";

size_t ss_esc_unit(const unsigned char *p, size_t n, unsigned what, uint32_t *cp, char esc[SS_ESC_MAX])
{
	size_t l = ss_utf8_seq(p, n, cp);
	esc[0] = 0;
	if (!l) {                       /* not UTF-8: the byte, as \xHH */
		*cp = p[0];
		if (what & SS_ESC_CONTROL)
			memcpy(esc, (char[]){ '\\', 'x', hex[p[0] >> 4], hex[p[0] & 15], 0 }, 5);
		return 1;
	}
	if (!ss_utf8_is_control(*cp) || !(what & (*cp == '\n' ? SS_ESC_NEWLINE : SS_ESC_CONTROL)))
		return l;
	if (*cp < 0x80)                 /* C0, DEL: \xHH */
		memcpy(esc, (char[]){ '\\', 'x', hex[*cp >> 4], hex[*cp & 15], 0 }, 5);
	else                            /* C1: \u00HH */
		memcpy(esc, (char[]){ '\\', 'u', '0', '0', hex[*cp >> 4], hex[*cp & 15], 0 }, 7);
	return l;
}

void ss_esc_each(const void *s, size_t n, unsigned what, void (*put)(void *arg, const char *p, size_t len),
		 void *arg)
{
	const unsigned char *p = s, *end = p + n, *run = p;
	while (p < end) {
		if (*p >= 0x20 && *p < 0x7f) {   /* printable ASCII: the common case, always passes */
			p++;
			continue;
		}
		uint32_t cp;
		char e[SS_ESC_MAX];
		size_t l = ss_esc_unit(p, (size_t)(end - p), what, &cp, e);
		if (!e[0]) {
			p += l;
			continue;
		}
		if (p > run)
			put(arg, (const char *)run, (size_t)(p - run));
		put(arg, e, strlen(e));
		p += l;
		run = p;
	}
	if (p > run)
		put(arg, (const char *)run, (size_t)(p - run));
}

static void put_file(void *arg, const char *p, size_t len)
{
	fwrite(p, 1, len, arg);
}

void ss_esc_fwrite(FILE *f, const void *s, size_t n, unsigned what)
{
	ss_esc_each(s, n, what, put_file, f);
}

struct sbuf {
	char  *p;
	size_t n;
};

static void put_buf(void *arg, const char *p, size_t len)
{
	struct sbuf *b = arg;
	memcpy(b->p + b->n, p, len);
	b->n += len;
}

char *ss_esc_line(const char *s)
{
	size_t n = strlen(s);
	/* at most 6 bytes out ("\u009b") per byte in */
	struct sbuf b = { malloc(n * 6 + 1), 0 };
	if (!b.p)
		return NULL;
	ss_esc_each(s, n, SS_ESC_LINE, put_buf, &b);
	b.p[b.n] = 0;
	return b.p;
}
