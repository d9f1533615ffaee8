/*
 * Text from the input on its way to a terminal or into a one-line message: the project's
 * one answer to "may these bytes pass raw". A name found on the host (a directory, a path
 * from /proc, a topic from the metadata log, a key in a record) can hold any byte but
 * NUL; a control character in it (C0, DEL, C1) acts on a terminal (ESC ] 0 ; ... BEL sets
 * its title, CSI 2 J clears it), a newline in it forges a line of the report, and a byte
 * that is not well-formed UTF-8 is not text.
 *
 * Each unit (a well-formed UTF-8 sequence, or one byte that starts none) passes as it is
 * or is written as its escape: "\x1b" for a C0 control or DEL, "\u009b" for a C1
 * control, "\xff" for a byte that is not UTF-8. What is escaped is the caller's choice:
 *
 *   SS_ESC_CONTROL  controls but the newline, and malformed bytes: a terminal's text,
 *                   whose newlines are the report's own (out/term.c ss_term_write);
 *   SS_ESC_NEWLINE  the newline, as "\x0a": a name inside a table row, whose other
 *                   controls the terminal writer escapes when the table goes out
 *                   (out/table.c: its cells are measured unit by unit before that);
 *   SS_ESC_LINE     both: one line, finished (ss_esc_line; dump's text, dump/item.c).
 *
 * So a name reads the same on a terminal, in a warning and in a JSON message.
 *
 * ss_esc_unit: the unit at p (n > 0 bytes left): its length, its code point in *cp (the
 *   byte itself for a malformed one), and in esc its escape, or "" when it passes.
 * ss_esc_each: s[0, n) as runs that pass and escapes, each handed to put(arg, p, len).
 * ss_esc_fwrite: the same written to a FILE.
 * ss_esc_line: a malloc'd, NUL-terminated copy of s with SS_ESC_LINE (freed by the
 *   caller); NULL only when out of memory.
 */
#ifndef SS_COMMON_ESC_H
#define SS_COMMON_ESC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
	SS_ESC_CONTROL = 1,
	SS_ESC_NEWLINE = 2,
	SS_ESC_LINE    = SS_ESC_CONTROL | SS_ESC_NEWLINE,
};

#define SS_ESC_MAX 7   /* the longest escape, "\u009b", and its NUL */

size_t ss_esc_unit(const unsigned char *p, size_t n, unsigned what, uint32_t *cp, char esc[SS_ESC_MAX]);
void   ss_esc_each(const void *s, size_t n, unsigned what, void (*put)(void *arg, const char *p, size_t len),
		   void *arg);
void   ss_esc_fwrite(FILE *f, const void *s, size_t n, unsigned what);
char  *ss_esc_line(const char *s);

#endif
