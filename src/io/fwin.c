/* The file window: see fwin.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/extent.h"
#include "io/engine.h"
#include "io/fwin.h"

int ss_fwin_open(struct ss_fwin *w, int fd, int64_t size, const struct ss_fwin_opts *o)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->size = size < 0 ? 0 : size;
	w->chunk = o && o->chunk ? o->chunk : SS_FWIN_CHUNK;
	if (o) {
		w->on_read = o->on_read;
		w->arg = o->arg;
	}
	if (o && o->map && w->size > 0 && (uint64_t)w->size <= SIZE_MAX && ss_io_bus_install() == 0) {
		/* munmap in ss_fwin_close; a failure to map (a file system without mmap, ulimit -v)
		 * is not an error: the window reads instead */
		void *m = mmap(NULL, (size_t)w->size, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			w->map = m;
			/* advice only: the readers walk forward */
			madvise(m, (size_t)w->size, MADV_SEQUENTIAL);
		}
	}
	if (!w->map)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

void ss_fwin_close(struct ss_fwin *w)
{
	if (w->map)
		munmap((void *)w->map, (size_t)w->size);   /* pairs with the mmap in ss_fwin_open */
	free(w->buf);   /* pairs with the realloc in ss_fwin_get */
	w->map = NULL;
	w->buf = NULL;
	w->cap = w->len = 0;
}

/* [pos, pos + n) has been read or looked at: count what was not already (the readers go
 * forward, so the end of the furthest range is enough to know). */
static void count(struct ss_fwin *w, int64_t pos, int64_t n)
{
	if (pos + n > w->seen) {
		w->bytes += pos + n - (pos > w->seen ? pos : w->seen);
		w->seen = pos + n;
	}
}

/* Exactly n bytes at off (fewer only at end of file): the count, or a negative errno. */
static ssize_t pread_full(int fd, void *buf, size_t n, int64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + (int64_t)got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

ssize_t ss_fwin_get(struct ss_fwin *w, int64_t pos, size_t n, int64_t end, const uint8_t **p)
{
	if (end > w->size)
		end = w->size;
	if (pos < 0 || pos >= end)
		return 0;
	if ((int64_t)n > end - pos)
		n = (size_t)(end - pos);
	if (w->map) {
		*p = w->map + pos;
		count(w, pos, (int64_t)n);
		return (ssize_t)n;
	}
	if (pos >= w->at && pos + (int64_t)n <= w->at + (int64_t)w->len) {
		*p = w->buf + (pos - w->at);
		return (ssize_t)n;
	}
	size_t want = n > w->chunk ? n : w->chunk;
	if ((int64_t)want > end - pos)
		want = (size_t)(end - pos);
	if (want > w->cap) {
		uint8_t *nb = realloc(w->buf, want);   /* freed in ss_fwin_close */
		if (!nb)
			return -ENOMEM;
		w->buf = nb;
		w->cap = want;
	}
	ssize_t r = pread_full(w->fd, w->buf, want, pos);
	if (r < 0) {
		w->len = 0;
		return r;
	}
	count(w, pos, r);
	w->at = pos;
	w->len = (size_t)r;
	*p = w->buf;
	if (w->on_read)
		w->on_read(w->arg, (uint64_t)w->bytes);
	return (ssize_t)((size_t)r < n ? (size_t)r : n);
}

int ss_fwin_nonzero(struct ss_fwin *w, int64_t pos, int64_t end, int64_t *at)
{
	int64_t ds, de;
	if (end > w->size)
		end = w->size;
	while (pos < end && ss_next_data(w->fd, pos, end, &ds, &de)) {
		for (pos = ds; pos < de;) {
			const uint8_t *zp;
			int64_t want = de - pos < (int64_t)w->chunk ? de - pos : (int64_t)w->chunk;
			ssize_t got = ss_fwin_get(w, pos, (size_t)want, de, &zp);
			if (got < 0)
				return (int)got;
			if (got == 0)
				return 0;   /* it shrank under us: nothing more to see */
			for (ssize_t i = 0; i < got; i++)
				if (zp[i]) {
					*at = pos + i;
					return 1;
				}
			pos += got;
		}
	}
	return 0;
}

int ss_fwin_guarded(struct ss_fwin *w, void (*fn)(void *), void *arg)
{
	if (!w->map) {
		fn(arg);
		return 0;
	}
	return ss_io_guarded(fn, arg, w->map, (size_t)w->size);
}
