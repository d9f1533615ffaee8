/* See esc.h. */
#include "common/esc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

char *ss_esc_line(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	/* at most 6 bytes out ("\u009b") per byte in */
	char *out = malloc(n * 6 + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = ss_utf8_seq(p + i, n - i, &cp);
		if (l && !ss_utf8_is_control(cp)) {
			memcpy(out + o, p + i, l);
			o += l;
			i += l;
			continue;
		}
		if (l)
			o += (size_t)sprintf(out + o, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
		else
			o += (size_t)sprintf(out + o, "\\x%02x", p[i]);
		i += l ? l : 1;
	}
	out[o] = 0;
	return out;
}
