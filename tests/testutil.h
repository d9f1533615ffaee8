/* Small helpers shared by the cmocka tests: temp dirs, files, running the CLI. */
#ifndef SS_TESTUTIL_H
#define SS_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory under $SEGSCAN_TEST_TMP (or /tmp). Caller frees. */
static inline char *tu_mkdtemp(const char *tag)
{
	const char *base = getenv("SEGSCAN_TEST_TMP");
	char *p = NULL;
	if (base)
		mkdir(base, 0755); /* a run of one test binary by hand */
	if (asprintf(&p, "%s/%s.XXXXXX", base ? base : "/tmp", tag) < 0)
		return NULL;
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

static inline int tu_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			int e = -errno;
			close(fd);
			return e;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) ? -errno : 0;
}

/* Read a whole file into a NUL-terminated malloc'd buffer. */
static inline char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) { free(buf); fclose(f); return NULL; }
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* Run a shell command, capture stdout into *out (malloc'd, may be NULL), return the
 * exit status (or -1). */
static inline int tu_run(char **out, const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) { free(buf); pclose(p); return -1; }
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n - 1, p);
		n += got;
	} while (got > 0);
	buf[n] = 0;
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first byte of s that a terminal would act on if written raw (a C0 control other
 * than the newline between lines, or DEL), or NULL: what no text output may hold from its
 * input (test_output_safety.c, test_dump.c). */
static inline const char *tu_raw_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
			return (const char *)p;
	return NULL;
}

/* The segscan binary under test ($SEGSCAN, set by tests/run.sh). */
static inline const char *tu_segscan(void)
{
	const char *s = getenv("SEGSCAN");
	return s ? s : "build/segscan";
}

#endif
