/*
 * A name inside a one-line message: a path found on the host (a process's command line,
 * a config file's metadata.log.dir) can hold any byte but NUL, and a message is printed
 * as one line, so nothing in the name may end the line or act on a terminal.
 *
 * ss_esc_line: a malloc'd copy of s (freed by the caller) with every control character
 *   (C0 including LF and CR, DEL, C1) and every byte that is not well-formed UTF-8
 *   written as the escape the terminal writer uses (out/term.c: \x0a, \u009b), so a name
 *   already escaped reads the same on a terminal, in a warning and in a JSON message.
 *   NULL only when out of memory.
 */
#ifndef SS_COMMON_ESC_H
#define SS_COMMON_ESC_H

char *ss_esc_line(const char *s);

#endif
