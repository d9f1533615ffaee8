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
	SS_IO_OPEN,   /* openat(dirfd, path, O_RDONLY|O_CLOEXEC|O_NONBLOCK|O_NOATIME): res = fd
		       * (O_NONBLOCK so that a FIFO cannot block the open) */
	SS_IO_STAT,   /* path == NULL: fstat/statx of fd; else statx(dirfd, path) without
		       * following a final symlink, so it can run beside the OPEN of the same
		       * file instead of after it: res = 0, st filled; SEGSCAN_ENOTREG for a
		       * FIFO, device, socket or directory */
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
	int               dirfd;    /* OPEN, STAT by path */
	const char       *path;     /* OPEN, STAT by path: must stay valid until reaped */
	int               fd;       /* STAT (path == NULL), READ, CLOSE */
	void             *buf;      /* READ: destination, len bytes */
	size_t            len;
	int64_t           off;
	struct ss_io_stat st;       /* STAT result */
	int64_t           res;      /* result, or -errno */
	void             *udata;    /* the caller's */
	/* READ: the caller accepts the bytes where the engine already has them instead of a
	 * copy in buf (zero-copy). The caller sets data to buf; an engine that lends
	 * replaces it with its own memory (a mapping of the file) holding the res bytes,
	 * valid until the fd's CLOSE through the same engine; one that cannot lend copies
	 * into buf as for any READ, so data == buf tells the caller which happened.
	 * Borrowed bytes can fault if the file shrinks meanwhile: touch them only inside
	 * ss_io_guarded(). */
	bool              borrow;
	const uint8_t    *data;
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

/*
 * Rules every engine shares:
 * - depth is 1..SS_IO_MAX_DEPTH (io_uring's own ring limit, applied to all engines so
 *   that a depth valid for one is valid for all); create() returns -EINVAL otherwise.
 * - submit() returns -EINVAL for a malformed request (unknown op, negative offset or
 *   off + len past INT64_MAX, NULL path for OPEN, NULL buf with len > 0) and -EBUSY when
 *   full; every other failure (ENOENT, EBADF, EIO, ...) comes back in req->res.
 * - A READ that fails after part of it was read reports the error, not the part: a
 *   short read means end of file, nothing else. Bytes of buf past res are unspecified
 *   (mmap may have copied zeros there from a file that shrank during the copy).
 * - io_uring: create the engine on any thread, but submit/flush/reap from one thread
 *   (the first flush binds the ring to it; IORING_SETUP_SINGLE_ISSUER).
 * - mmap: a fd READ through the engine is mapped until its CLOSE goes through the same
 *   engine; closing it behind the engine's back leaves a stale mapping that a later fd
 *   with the same number would read.
 * - destroy() waits for what is in flight; the fd of an OPEN that was never reaped
 *   is closed (nobody else could).
 * - counters.syscalls counts the calls made for requests (not create/destroy);
 *   counters.submissions counts the caller's requests (not internal resubmissions).
 */
#define SS_IO_MAX_DEPTH 32768u

/*
 * bus.c: run fn(arg) while a SIGBUS from a page in [lo, lo + n) (mapped bytes whose
 * file shrank) ends it early instead of the process: returns 0, or -EFAULT when fn was
 * cut short (its state is then whatever it had reached; the caller must discard it).
 * The jump leaves fn from inside its access to the mapping: fn must not hold a lock
 * another party waits on there, and what it allocated before is the caller's to forget.
 * Only for bytes whose mapper installed the handler (ss_io_bus_install: the lender, the
 * mmap engine and io/fwin.c do). Guards do not nest: one per thread at a time.
 */
int ss_io_guarded(void (*fn)(void *), void *arg, const void *lo, size_t n);

/*
 * bus.c: the process's one SIGBUS hook. Installs its handler unless it is already the
 * current one (a program may replace it after us: cmocka does around every test); a
 * SIGBUS that is not a guarded fault goes on to the action that was there before. Every
 * mapper calls it before it maps; 0 or -errno.
 */
int ss_io_bus_install(void);

/*
 * bus.c: copy n bytes from a mapping under the same guard. Returns the bytes copied;
 * *faulted when a SIGBUS stopped the copy. Page by page (`page` the page size), so that on a
 * fault every page before the faulting one is known to be copied whole.
 */
size_t ss_io_guarded_copy(char *dst, const char *src, size_t n, size_t page, bool *faulted);

/*
 * mmap.c: what the copying engines (uring, pread) lend a READ with req->borrow from: a
 * mapping per fd, made on the first borrowed READ of it and dropped by ss_io_lend_drop()
 * before the fd's CLOSE. Creating one installs the SIGBUS handler ss_io_guarded() needs.
 * ss_io_lend returns the bytes lent (req->data set), 0 past the end, or -errno.
 */
struct ss_io_lender;
int     ss_io_lender_create(struct ss_io_lender **out);
int64_t ss_io_lend(struct ss_io_lender *l, struct ss_io_req *req, struct ss_io_counters *c);
/* A borrowed READ for an engine that holds *lp, made here on the first (*failed records
 * that it could not be, so later calls return at once): true with req->res set when
 * lent, false when the engine must copy instead. */
bool    ss_io_lend_lazy(struct ss_io_lender **lp, bool *failed, struct ss_io_req *req,
			struct ss_io_counters *c);
void    ss_io_lend_drop(struct ss_io_lender *l, int fd, struct ss_io_counters *c);
void    ss_io_lender_destroy(struct ss_io_lender *l);

/* engine.c: the -EINVAL check above, shared by every engine's submit(). */
int ss_io_check_req(const struct ss_io_req *req);

/*
 * engine.c: what the synchronous engines (pread, mmap) share. The completion queue
 * holds requests that finished inside submit() until reap() hands them back.
 */
struct ss_io_syncq {
	struct ss_io_req **q;
	unsigned cap, head, n;
};
int      ss_io_syncq_init(struct ss_io_syncq *q, unsigned cap);
void     ss_io_syncq_fini(struct ss_io_syncq *q);
unsigned ss_io_syncq_pop(struct ss_io_syncq *q, struct ss_io_req **out, unsigned max);
/* At destroy: forget unreaped completions, closing the fds of unreaped OPENs. */
void     ss_io_sync_drop_done(struct ss_io_syncq *q);
static inline bool ss_io_syncq_full(const struct ss_io_syncq *q) { return q->n == q->cap; }
static inline void ss_io_syncq_push(struct ss_io_syncq *q, struct ss_io_req *r)
{
	q->q[(q->head + q->n++) % q->cap] = r;
}

/* The plain syscalls behind OPEN/STAT/CLOSE, counting into c->syscalls. *noatime_eperm
 * is the engine's memory that O_NOATIME was refused (so later opens skip it). */
int ss_io_sync_open(int dirfd, const char *path, bool *noatime_eperm, struct ss_io_counters *c);
int ss_io_sync_stat(const struct ss_io_req *req, struct ss_io_stat *st, struct ss_io_counters *c);
int ss_io_sync_close(int fd, struct ss_io_counters *c);

/*
 * The synchronous engines' core, as fio's sync engines share theirs: an engine's struct
 * begins with struct ss_io_sync, and its ops use the ss_io_sync_* functions below for
 * everything but create/destroy. Only READ (and what to do before a CLOSE) differ.
 */
struct ss_io_sync;
typedef int64_t (*ss_io_sync_read_fn)(struct ss_io_sync *s, struct ss_io_req *req);  /* READ's res */
typedef void    (*ss_io_sync_close_fn)(struct ss_io_sync *s, int fd);  /* before CLOSE's close() */
struct ss_io_sync {
	struct ss_io_syncq    done;
	struct ss_io_counters ctr;
	bool                  noatime_eperm;
	ss_io_sync_read_fn    read;
	ss_io_sync_close_fn   on_close;   /* NULL: nothing */
};
/* A zeroed engine of `size` bytes (>= sizeof(struct ss_io_sync), the core first) with a
 * completion FIFO of `depth`; released by ss_io_sync_destroy. */
int  ss_io_sync_create(size_t size, unsigned depth, ss_io_sync_read_fn read, ss_io_sync_close_fn on_close,
		       struct ss_io_sync **out);
/* Forgets unreaped completions (closing unreaped OPENs' fds) and frees the engine. */
void ss_io_sync_destroy(struct ss_io_sync *s);
int      ss_io_sync_submit(struct ss_io_engine *e, struct ss_io_req *req);
int      ss_io_sync_flush(struct ss_io_engine *e);
int      ss_io_sync_reap(struct ss_io_engine *e, struct ss_io_req **out, unsigned max, unsigned wait_for);
unsigned ss_io_sync_inflight(const struct ss_io_engine *e);
void     ss_io_sync_counters(const struct ss_io_engine *e, struct ss_io_counters *c);

#endif
