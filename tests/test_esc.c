/*
 * The one escaping of input text (common/esc.h) and its faces: ss_esc_line (a name in a
 * one-line message), ss_term_write (the terminal: newlines pass), the dump's text lines
 * (SS_ESC_LINE) and the table's cells (SS_ESC_NEWLINE), and ss_term_width, which must count
 * what ss_term_write writes. Each input is a unit class: printable ASCII, well-formed
 * UTF-8 (2, 3 and 4 bytes), C0 controls (ESC, BEL, CR, NUL), the newline, DEL, C1 controls
 * (U+0085, U+009B), bytes that are not UTF-8 (0xFF, a cut sequence, an overlong, a
 * surrogate).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "out/out.h"

struct esc_case {
	const char *in;
	size_t      n;          /* 0: strlen(in) */
	const char *term;       /* SS_ESC_CONTROL, ss_term_write */
	const char *line;       /* SS_ESC_LINE, ss_esc_line */
	const char *nl;         /* SS_ESC_NEWLINE */
	int         width;      /* ss_term_width; -1: the length of `term` (ASCII and escapes) */
};

static const struct esc_case cases[] = {
	{ "plain-topic_0.log", 0, "plain-topic_0.log", "plain-topic_0.log", "plain-topic_0.log", -1 },
	{ "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", 10 },
	{ "esc\x1b]0;pwned\x07-0", 0, "esc\\x1b]0;pwned\\x07-0", "esc\\x1b]0;pwned\\x07-0", "esc\x1b]0;pwned\x07-0", -1 },
	{ "a\nb", 0, "a\nb", "a\\x0ab", "a\\x0ab", 2 },
	{ "cr\rx\x7f", 0, "cr\\x0dx\\x7f", "cr\\x0dx\\x7f", "cr\rx\x7f", -1 },
	{ "nul\0x", 5, "nul\\x00x", "nul\\x00x", NULL, -1 },
	{ "c1\xc2\x9b\xc2\x85", 0, "c1\\u009b\\u0085", "c1\\u009b\\u0085", "c1\xc2\x9b\xc2\x85", -1 },
	{ "bad\xff\xfe", 0, "bad\\xff\\xfe", "bad\\xff\\xfe", "bad\xff\xfe", -1 },
	{ "cut\xe2\x82", 0, "cut\\xe2\\x82", "cut\\xe2\\x82", "cut\xe2\x82", -1 },
	{ "overlong\xc0\xaf", 0, "overlong\\xc0\\xaf", "overlong\\xc0\\xaf", "overlong\xc0\xaf", -1 },
	{ "surrogate\xed\xa0\x80", 0, "surrogate\\xed\\xa0\\x80", "surrogate\\xed\\xa0\\x80", "surrogate\xed\xa0\x80", -1 },
	{ "", 0, "", "", "", -1 },
};

static char *fwrite_mode(const char *in, size_t n, unsigned what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	if (what == 0)
		ss_term_write(m, in, n);
	else
		ss_esc_fwrite(m, in, n, what);
	fclose(m);
	return buf;   /* freed by the caller (open_memstream's) */
}

static void test_every_face(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct esc_case *c = &cases[i];
		size_t n = c->n ? c->n : strlen(c->in);
		char *t = fwrite_mode(c->in, n, 0);
		assert_string_equal(t, c->term);
		/* the width the table reserves is what ss_term_write writes: an escape as long as
		 * it is written, a wide character 2, the newline nothing */
		assert_int_equal(ss_term_width(c->in, n), c->width < 0 ? strlen(t) : (size_t)c->width);
		free(t);
		char *l = fwrite_mode(c->in, n, SS_ESC_LINE);
		assert_string_equal(l, c->line);
		free(l);
		if (!c->n) {   /* ss_esc_line takes a C string */
			char *e = ss_esc_line(c->in);
			assert_non_null(e);
			assert_string_equal(e, c->line);
			free(e);
		}
		if (c->nl) {
			char *s = fwrite_mode(c->in, n, SS_ESC_NEWLINE);
			assert_string_equal(s, c->nl);
			free(s);
		}
	}
}

/* The classifier itself: unit lengths and code points, and that what it passes is
 * exactly what is not a control and is well-formed. */
static void test_units(void **state)
{
	(void)state;
	uint32_t cp;
	char e[SS_ESC_MAX];
	assert_int_equal(ss_esc_unit((const unsigned char *)"\xe4\xb8\xad", 3, SS_ESC_LINE, &cp, e), 3);
	assert_int_equal(cp, 0x4e2d);
	assert_string_equal(e, "");
	assert_int_equal(ss_esc_unit((const unsigned char *)"\xc2\x9b", 2, SS_ESC_LINE, &cp, e), 2);
	assert_string_equal(e, "\\u009b");
	assert_int_equal(ss_esc_unit((const unsigned char *)"\xc2\x9b", 2, SS_ESC_NEWLINE, &cp, e), 2);
	assert_string_equal(e, "");
	assert_int_equal(ss_esc_unit((const unsigned char *)"\xff", 1, SS_ESC_CONTROL, &cp, e), 1);
	assert_int_equal(cp, 0xff);
	assert_string_equal(e, "\\xff");
	assert_int_equal(ss_esc_unit((const unsigned char *)"\n", 1, SS_ESC_CONTROL, &cp, e), 1);
	assert_string_equal(e, "");
	assert_int_equal(ss_esc_unit((const unsigned char *)"\n", 1, SS_ESC_NEWLINE, &cp, e), 1);
	assert_string_equal(e, "\\x0a");
	/* every single byte: escaped (as \xHH) exactly when it is a control or not UTF-8 */
	for (unsigned b = 0; b < 256; b++) {
		unsigned char c = (unsigned char)b;
		assert_int_equal(ss_esc_unit(&c, 1, SS_ESC_LINE, &cp, e), 1);
		bool pass = b >= 0x20 && b < 0x7f;
		assert_int_equal(e[0] == 0, pass);
		if (!pass) {
			char want[8];
			snprintf(want, sizeof(want), "\\x%02x", b);
			assert_string_equal(e, want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_face),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
