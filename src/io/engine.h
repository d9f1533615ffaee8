/*
 * I/O engines: move bytes, know nothing of Kafka. One file per engine (like fio's
 * engines/): io_uring.c, mmap.c, pread.c. The scanner keeps many requests in flight per
 * worker and drives each segment's state machine from completions, so every engine has
 * the same asynchronous shape; the synchronous ones complete a request inside submit().
 *
 * A request is owned by the caller until it comes back from reap(). Engines are used by
 * one thread each (one engine per worker) and are not thread-safe.
 */
#ifndef SS_IO_ENGINE_H
#define SS_IO_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum ss_io_op {
	SS_IO_OPEN,   /* openat(dirfd, path, O_RDONLY|O_CLOEXEC|O_NOATIME): res = fd */
	SS_IO_STAT,   /* fstat/statx of fd: res = 0, st filled */
	SS_IO_READ,   /* pread(fd, buf, len, off): res = bytes (short at EOF) */
	SS_IO_CLOSE,  /* close(fd): res = 0 */
};

struct ss_io_stat {
	int64_t  size;
	uint64_t dev;
	uint64_t ino;
	int64_t  mtime_ns;
};

struct ss_io_req {
	enum ss_io_op     op;
	int               dirfd;    /* OPEN */
	const char       *path;     /* OPEN: must stay valid until reaped */
	int               fd;       /* STAT, READ, CLOSE */
	void             *buf;      /* READ: destination, len bytes */
	size_t            len;
	int64_t           off;
	struct ss_io_stat st;       /* STAT result */
	int64_t           res;      /* result, or -errno */
	void             *udata;    /* the caller's */
};

struct ss_io_counters {
	uint64_t syscalls;     /* system calls made (io_uring_enter counts once per batch) */
	uint64_t submissions;  /* requests submitted */
	uint64_t bytes_read;
};

struct ss_io_engine;

struct ss_io_ops {
	const char *name;
	/* depth: most requests in flight. Returns 0 or -errno (io_uring: -EPERM/-ENOSYS
	 * where it is blocked; the caller then falls back to pread). */
	int  (*create)(struct ss_io_engine **out, unsigned depth);
	/* Queue one request. -EBUSY if `depth` requests are already in flight. */
	int  (*submit)(struct ss_io_engine *e, struct ss_io_req *req);
	/* Hand every queued request to the kernel (no-op for synchronous engines). */
	int  (*flush)(struct ss_io_engine *e);
	/* Collect up to max completed requests into out[]; waits until at least
	 * min(wait_for, in flight) have completed. Returns the count or -errno. */
	int  (*reap)(struct ss_io_engine *e, struct ss_io_req **out, unsigned max, unsigned wait_for);
	unsigned (*inflight)(const struct ss_io_engine *e);
	void (*counters)(const struct ss_io_engine *e, struct ss_io_counters *c);
	void (*destroy)(struct ss_io_engine *e);
};

extern const struct ss_io_ops ss_io_uring_ops;
extern const struct ss_io_ops ss_io_mmap_ops;
extern const struct ss_io_ops ss_io_pread_ops;

/* "uring", "mmap" or "pread"; NULL if unknown. */
const struct ss_io_ops *ss_io_find(const char *name);

/*
 * Create an engine by name. For "uring", when io_uring cannot be set up (EPERM, ENOSYS,
 * kernel.io_uring_disabled, a seccomp filter) this creates a pread engine instead,
 * sets *fell_back and writes the reason to why[0..whylen). The env var
 * SEGSCAN_FORCE_URING_FAIL=1 simulates that failure, so the fallback is testable here.
 */
int ss_io_create(const char *name, unsigned depth, const struct ss_io_ops **ops,
		 struct ss_io_engine **out, bool *fell_back, char *why, size_t whylen);

#endif
