/*
 * A read-only window over one regular file, for the synchronous readers that walk a file
 * forward (source/logread.h, the .log batch reader; dump's index checks against a .log):
 * the bytes [pos, pos + n) on demand, from one buffer refilled by pread (at least `chunk`
 * bytes per read, more for a larger request, so a batch of any size comes whole), or from a
 * read-only mapping of the whole file (zero-copy: what `segscan dump` asks for).
 *
 * Mapped bytes can fault: Kafka truncates a segment while it is read, and a mapped page
 * past the new end of file raises SIGBUS. A caller touches mapped bytes only inside
 * ss_fwin_guarded(), under the process's one SIGBUS hook (io/mmap.c, ss_io_guarded), which
 * ends the guarded call early instead of the process. A window read by pread never faults.
 *
 * ss_fwin_nonzero finds the first byte that is not zero in a range without reading its
 * holes (common/extent.h, SEEK_DATA/SEEK_HOLE): the zero tail of a preallocated or sparse
 * file costs its data extents, read through the window, not its size.
 *
 * Like the engines, the window moves bytes and knows nothing of Kafka; unlike them it is
 * synchronous, for one file at a time on the calling thread.
 */
#ifndef SS_IO_FWIN_H
#define SS_IO_FWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SS_FWIN_CHUNK ((size_t)1 << 20)

struct ss_fwin_opts {
	size_t chunk;        /* bytes per pread at least; 0: SS_FWIN_CHUNK */
	bool   map;          /* map the whole file; pread when mapping fails (or size 0) */
	/* after each pread: the bytes this window has read or looked at so far (progress) */
	void (*on_read)(void *arg, uint64_t bytes);
	void  *arg;
};

struct ss_fwin {
	int            fd;        /* the caller's; not closed here */
	int64_t        size;      /* the size given at open (the caller's fstat): reads stop there */
	const uint8_t *map;       /* the whole file mapped, or NULL */
	uint8_t       *buf;       /* pread mode: [at, at + len) of the file */
	size_t         cap, chunk;
	int64_t        at;
	size_t         len;
	int64_t        seen;      /* the end of the furthest range read or looked at */
	int64_t        bytes;     /* bytes read or looked at, each once (holes are not) */
	void         (*on_read)(void *arg, uint64_t bytes);
	void          *arg;
};

/* fd open for reading, size its length (fstat). 0, or -ENOMEM. A mapping that cannot be
 * made leaves the window in pread mode. Pairs with ss_fwin_close. */
int  ss_fwin_open(struct ss_fwin *w, int fd, int64_t size, const struct ss_fwin_opts *o);
void ss_fwin_close(struct ss_fwin *w);

/*
 * Make [pos, pos + n) available, n and the read-ahead clamped to `end` (<= size): *p points
 * at the bytes, valid until the next call. Returns how many bytes from pos are there: n, or
 * fewer at `end`, or fewer when the file shrank under us (0 past its end); a negative errno
 * when pread fails (-ENOMEM when the buffer cannot grow to n).
 */
ssize_t ss_fwin_get(struct ss_fwin *w, int64_t pos, size_t n, int64_t end, const uint8_t **p);

/*
 * The first byte of [pos, end) that is not zero: 1 with *at set, or 0 when there is none
 * (holes are zeros; a file that shrank has nothing more to see). Data extents are read in
 * windows of at most `chunk` bytes. A negative errno when a read fails.
 */
int ss_fwin_nonzero(struct ss_fwin *w, int64_t pos, int64_t end, int64_t *at);

/*
 * fn(arg), with a SIGBUS from the mapping ending it early: 0, or -EFAULT when it was cut
 * short (the file shrank under the mapping; fn's state is then wherever it had reached:
 * the caller reports the shrink and discards the rest). Without a mapping fn just runs.
 * fn may be left midway: it must not hold a lock another party waits on.
 */
int ss_fwin_guarded(struct ss_fwin *w, void (*fn)(void *), void *arg);

#endif
