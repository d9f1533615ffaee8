/*
 * The Java-properties reader (src/fmt/properties.c) on arbitrary bytes: no crash, no leak,
 * no read past the input; every entry it hands out is well formed (a NUL-terminated key and
 * value unless its escape was bad, a line number that grows and stays within the input's
 * line count).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/properties.h"

struct seen {
	unsigned last_line, max_line;
};

static int check(void *arg, const struct ss_props_entry *e)
{
	struct seen *s = arg;
	if (e->line < s->last_line || e->line == 0 || e->line > s->max_line)
		abort();
	s->last_line = e->line;
	if (e->bad == SS_PROPS_BAD_KEY ? (e->key || e->val) : !e->key)
		abort();
	if (e->bad != SS_PROPS_BAD_KEY && (e->bad == SS_PROPS_BAD_VALUE) != !e->val)
		abort();
	if (e->key)
		(void)strlen(e->key);
	if (e->val)
		(void)strlen(e->val);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1); /* exact size: a read past the end is caught */
	if (!buf)
		abort();
	memcpy(buf, data, size);
	struct seen s = { 0, 1 };
	for (size_t i = 0; i < size; i++)   /* every terminator may start a line: an upper bound */
		s.max_line += buf[i] == '\n' || buf[i] == '\r';
	if (ss_props_parse(buf, size, check, &s) != 0)
		abort();
	free(buf);
	return 0;
}
