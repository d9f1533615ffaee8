/* ss_assert's failure path: see common/assert.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/assert.h"

static size_t put(char *buf, size_t at, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n > cap - at)
		n = cap - at;
	memcpy(buf + at, s, n);
	return at + n;
}

_Noreturn void ss_assert_fail(const char *file, int line, const char *func, const char *expr)
{
	char buf[1024], num[16];
	size_t at = 0, cap = sizeof(buf) - 1;   /* room for the newline */
	int i = (int)sizeof(num) - 1;
	unsigned v = line > 0 ? (unsigned)line : 0;

	/* no snprintf: the line is built by hand so that nothing here takes a lock */
	num[i] = 0;
	do
		num[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	at = put(buf, at, cap, "segscan: assertion failed: ");
	at = put(buf, at, cap, file);
	at = put(buf, at, cap, ":");
	at = put(buf, at, cap, num + i);
	at = put(buf, at, cap, ": ");
	at = put(buf, at, cap, func);
	at = put(buf, at, cap, ": ");
	at = put(buf, at, cap, expr);
	buf[at++] = '\n';
	/* one write, so lines of two threads failing at once do not interleave; a short or
	 * failed write changes nothing: we abort either way */
	ssize_t w = write(STDERR_FILENO, buf, at);
	(void)w;
	abort();
}
