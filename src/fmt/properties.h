/*
 * The one Java-properties reader (java.util.Properties.load), over bytes: natural lines end
 * at '\n', '\r' or "\r\n" (fmt/lines.h SS_LINES_JAVA); a line whose first non-blank
 * character is '#' or '!' is a comment (a trailing backslash does not continue it); an odd
 * number of trailing backslashes continues a line on the next, whose leading blanks (' ',
 * '\t', '\f') are dropped; the key ends at the first unescaped '=', ':' or blank, and blanks
 * and one '=' or ':' after it are skipped; key and value are unescaped as
 * Properties.loadConvert does (\uXXXX to UTF-8, \t \n \r \f, \x to x). Values keep their
 * trailing blanks, as Java's do.
 *
 * Readers: server.properties (fmt/config.c) and the client properties of --kafka-config
 * (source/cluster_conf.c). Pure: no I/O, no state.
 */
#ifndef SS_FMT_PROPERTIES_H
#define SS_FMT_PROPERTIES_H

#include <stddef.h>

enum ss_props_bad {
	SS_PROPS_OK = 0,
	SS_PROPS_BAD_KEY,     /* a malformed \uXXXX escape in the key: key and val are NULL */
	SS_PROPS_BAD_VALUE,   /* one in the value: val is NULL */
};

struct ss_props_entry {
	const char       *key;   /* unescaped, NUL-terminated; valid during the call */
	const char       *val;
	unsigned          line;  /* 1-based number of the line the entry starts on */
	enum ss_props_bad bad;   /* Java refuses the whole file for either: the callback says how */
};

/* fn is called for every entry in order (a key given twice: twice; the last one wins in
 * Java). A nonzero return of fn stops the read and is returned. Returns 0 or -ENOMEM. */
typedef int (*ss_props_fn)(void *arg, const struct ss_props_entry *e);
int ss_props_parse(const char *buf, size_t len, ss_props_fn fn, void *arg);

#endif
