/*
 * bench/uringfloor: what io_uring direct descriptors would save on segscan's warm fast path
 * (issue 15). Per segment it does only the file work the fast path does: open NNN.log and
 * NNN.timeindex (-i: and NNN.index) relative to the log dir, read the first min(size, 8 KiB)
 * of the .log and the last entry (12 bytes) of the .timeindex (8 of the .index), close. No
 * parsing, no evaluation, no output. Four ways of doing it (-m):
 *
 *   a  regular fds through the ring: IORING_OP_OPENAT, a sync fstat on the fd, IORING_OP_READ,
 *      IORING_OP_CLOSE. What src/io/io_uring.c + src/scan do today.
 *   b  direct descriptors: openat into a registered sparse file table with the kernel picking
 *      the slot (IORING_FILE_INDEX_ALLOC, its CQE is a round trip before the read), reads with
 *      IOSQE_FIXED_FILE, close_direct.
 *   c  b, but each file is one submission: open (into a slot this thread owns) -> read ->
 *      close, hard-linked. IOSQE_IO_HARDLINK, not IOSQE_IO_LINK: a read that returns less than
 *      asked (every read of a file shorter than 8 KiB) fails a soft link and the kernel
 *      cancels the close (-ECANCELED), leaving the slot occupied (-L shows it).
 *   d  plain syscalls, no ring: openat, fstat, pread, close.
 *
 * A direct descriptor has no fd, so fstat cannot give the size. -S says where it comes from:
 *   fstat  fstat(fd)                          (a, d only; their default)
 *   statx  IORING_OP_STATX by path in the ring, beside the open (the kernel never runs it
 *          inline: it goes to an io-wq thread)
 *   path   fstatat(logdir, path) in the submitting thread, before the open
 *   short  no stat: read 8 KiB from offset 0; a short read is the whole file (the .log needs
 *          no more; a .timeindex/.index tail is taken from the buffer). Only a file of 8 KiB
 *          or more (the active segment's preallocated indexes) then costs a stat by path (an
 *          fstat in a, d) and a second read of the tail. (b, c default)
 *
 * Every mode prints one "check" line that must be equal across modes and size sources: the
 * bytes of .log heads read, the sum of their base offsets (first 8 bytes), the sums of the
 * last .timeindex timestamps and relative offsets (and of the last .index entries).
 *
 * Build (liburing 2.3 or later; nothing of segscan's is linked, only src/common/endian.h):
 *   gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Isrc bench/uringfloor.c -o /tmp/uringfloor \
 *       -luring -lpthread
 * Run:
 *   uringfloor [-m a|b|c|d] [-S fstat|statx|path|short] [-t THREADS] [-q DEPTH]
 *              [-s SEGMENTS_IN_FLIGHT] [-i] [-k] [-L] LOGDIR
 *   -t threads (default 2), each with its own ring of DEPTH entries (default 64, completion
 *   queue 4x) and SEGMENTS_IN_FLIGHT segments in flight (default 21, as segscan's
 *   --queue-depth 128 / 6 requests a task); -k: in c, let the open post a CQE on success too
 *   (default: IOSQE_CQE_SKIP_SUCCESS on it); -L: soft links in c (shows the cancelled close).
 * Threads claim partition directories from one shared counter and list each with readdir
 * (getdents64) themselves, as segscan's workers do. Results and docs: docs/performance.md,
 * "io_uring direct descriptors (measured)".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_NOATIME, struct statx */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/endian.h"

#define UF_DIGITS   20
#define UF_HEAD     8192u /* the .log head read, and the short-read probe */
#define UF_TIX_ENT  12u   /* Kafka TimeIndex entry: 8-byte timestamp, 4-byte relative offset */
#define UF_IDX_ENT  8u    /* OffsetIndex entry: 4-byte relative offset, 4-byte position */
#define UF_PATH     320
#define UF_OPEN_FL  (O_RDONLY | O_NONBLOCK | O_NOATIME) /* segscan's, less O_CLOEXEC: below */

enum uf_mode { UF_A, UF_B, UF_C, UF_D };
enum uf_size { UF_SZ_FSTAT, UF_SZ_STATX, UF_SZ_PATH, UF_SZ_SHORT };
enum uf_kind { UF_LOG, UF_TIX, UF_IDX };
enum uf_op   { OP_OPEN, OP_STAT, OP_READ, OP_CLOSE };

static const char *const mode_names[] = { "a", "b", "c", "d" };
static const char *const size_names[] = { "fstat", "statx", "path", "short" };
static const char *const kind_ext[] = { ".log", ".timeindex", ".index" };

struct uf_opts {
	enum uf_mode mode;
	enum uf_size size;
	unsigned     threads, depth, segs;
	bool         with_index, open_cqe, soft_link;
};

struct uf_sums {
	uint64_t segs, files, log_bytes, base_sum, ts_sum, toff_sum, idx_sum;
	uint64_t errors, fallbacks, enters, sqes, cqes, raw_bytes, cancelled;
};

struct uf_ctx {
	struct uf_opts o;
	int            logfd;
	char          *pool;      /* partition names, NUL-separated */
	size_t        *parts;     /* offsets into pool */
	size_t         n_parts;
	atomic_size_t  next_part; /* relaxed: a claim orders nothing, the list is immutable */
};

struct uf_seg;

struct uf_file {
	struct uf_seg *seg;
	enum uf_kind   kind;
	int            fd;        /* regular fd (a) or fixed slot (b, c); -1 none */
	int            slot;      /* c: this file's own slot in the table */
	int64_t        size;      /* -1 until known */
	unsigned       wait;      /* CQEs still due before the next step */
	unsigned       roff, rlen;/* the read in flight */
	bool           err, refetch, done;
	struct statx   stx;       /* STATX: the kernel writes here */
	char           path[UF_PATH];
	uint8_t        buf[UF_HEAD] __attribute__((aligned(64)));
};

struct uf_seg {
	struct uf_file f[3];
	unsigned       nf, left;
	bool           busy;
};

struct uf_worker {
	struct uf_ctx   *c;
	pthread_t        th;
	struct io_uring  ring;
	struct uf_seg   *segs;
	unsigned         busy;
	/* the partition being fed: its .log stems */
	char            *part;
	char           (*stems)[UF_DIGITS + 1];
	size_t           n_stems, cap_stems, next_stem;
	struct uf_sums   s;
	int              rc;
};

/* ---- listing -------------------------------------------------------------------------- */

static bool is_log_name(const char *n)
{
	for (int i = 0; i < UF_DIGITS; i++)
		if (n[i] < '0' || n[i] > '9')
			return false;
	return strcmp(n + UF_DIGITS, ".log") == 0;
}

static int list_logdir(struct uf_ctx *c)
{
	size_t pool_len = 0, pool_cap = 0, cap = 0;
	int dfd = dup(c->logfd), r = 0;
	DIR *d;
	struct dirent *de;

	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);       /* owns dfd from here: closedir() below releases it */
	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name) + 1;
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (pool_len + n > pool_cap) {
			size_t nc = pool_cap ? pool_cap * 2 : 1 << 20;
			char *p = realloc(c->pool, nc);
			if (!p) { r = -ENOMEM; break; }
			c->pool = p;
			pool_cap = nc;
		}
		if (c->n_parts == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			size_t *p = realloc(c->parts, nc * sizeof(*p));
			if (!p) { r = -ENOMEM; break; }
			c->parts = p;
			cap = nc;
		}
		memcpy(c->pool + pool_len, de->d_name, n);
		c->parts[c->n_parts++] = pool_len;
		pool_len += n;
	}
	closedir(d);
	return r;
}

/* Claim partitions until one has segments; false when none is left. */
static bool refill(struct uf_worker *w)
{
	struct uf_ctx *c = w->c;

	while (w->next_stem == w->n_stems) {
		size_t i = atomic_fetch_add_explicit(&c->next_part, 1, memory_order_relaxed);
		if (i >= c->n_parts)
			return false;
		w->part = c->pool + c->parts[i];
		w->n_stems = w->next_stem = 0;
		int fd = openat(c->logfd, w->part, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* a plain file in the log dir reported as DT_UNKNOWN */
		DIR *d = fdopendir(fd); /* owns fd: closedir() */
		if (!d) {
			close(fd);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (!is_log_name(de->d_name))
				continue;
			if (w->n_stems == w->cap_stems) {
				size_t nc = w->cap_stems ? w->cap_stems * 2 : 256;
				void *p = realloc(w->stems, nc * sizeof(*w->stems));
				if (!p) {
					w->s.errors++;
					break;
				}
				w->stems = p;
				w->cap_stems = nc;
			}
			memcpy(w->stems[w->n_stems], de->d_name, UF_DIGITS);
			w->stems[w->n_stems][UF_DIGITS] = 0;
			w->n_stems++;
		}
		closedir(d);
	}
	return true;
}

/* ---- what a read found ------------------------------------------------------------------ */

static unsigned entry_size(enum uf_kind k)
{
	return k == UF_TIX ? UF_TIX_ENT : UF_IDX_ENT;
}

static void account_entry(struct uf_sums *s, enum uf_kind k, const uint8_t *e)
{
	if (k == UF_TIX) {
		s->ts_sum += ss_be64(e);
		s->toff_sum += ss_be32(e + 8);
	} else {
		s->idx_sum += (uint64_t)ss_be32(e) + ss_be32(e + 4);
	}
}

static void account_log(struct uf_sums *s, const uint8_t *buf, unsigned n)
{
	s->log_bytes += n;
	if (n >= 8)
		s->base_sum += ss_be64(buf);
}

/* Where the one read of a file of known size goes; false: nothing to read. */
static bool plan_read(struct uf_file *f)
{
	if (f->size < 0) {
		f->roff = 0;
		f->rlen = UF_HEAD;
		return true;
	}
	if (f->kind == UF_LOG) {
		f->roff = 0;
		f->rlen = f->size < UF_HEAD ? (unsigned)f->size : UF_HEAD;
		return f->rlen > 0;
	}
	unsigned e = entry_size(f->kind);
	if (f->size < e)
		return false;
	f->roff = (unsigned)(f->size - e);
	f->rlen = e;
	return true;
}

/*
 * A finished read of f->rlen at f->roff that returned res. True when the file is done with;
 * false when its size is still unknown (a full 8 KiB probe of an index): the caller gets the
 * size and reads the tail.
 */
static bool took_read(struct uf_sums *s, struct uf_file *f, int res)
{
	if (res < 0) {
		f->err = true;
		return true;
	}
	s->raw_bytes += (unsigned)res;
	if (f->kind == UF_LOG) {
		account_log(s, f->buf, (unsigned)res);
		return true;
	}
	unsigned e = entry_size(f->kind);
	if (f->size < 0) { /* the short-read probe */
		if ((unsigned)res == UF_HEAD) {
			s->fallbacks++;
			return false;
		}
		f->size = res;
		if ((unsigned)res >= e)
			account_entry(s, f->kind, f->buf + res - e);
		return true;
	}
	if ((unsigned)res == e)
		account_entry(s, f->kind, f->buf);
	else
		f->err = true;
	return true;
}

static int stat_path(struct uf_worker *w, struct uf_file *f)
{
	struct stat st;
	if (fstatat(w->c->logfd, f->path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	f->size = st.st_size;
	return 0;
}

static int stat_fd(struct uf_file *f)
{
	struct stat st;
	if (fstat(f->fd, &st) < 0)
		return -errno;
	f->size = st.st_size;
	return 0;
}

/* ---- the ring --------------------------------------------------------------------------- */

static void *ud(struct uf_file *f, enum uf_op op)
{
	return (void *)((uintptr_t)f | (uintptr_t)op);
}

/* An SQE, with room for `need` in a row (a linked chain must go in one submission). */
static struct io_uring_sqe *get_sqe(struct uf_worker *w, unsigned need)
{
	struct io_uring_sqe *sqe;

	if (io_uring_sq_space_left(&w->ring) < need) {
		w->s.enters++;
		io_uring_submit(&w->ring);
	}
	sqe = io_uring_get_sqe(&w->ring);
	if (sqe)
		w->s.sqes++;
	return sqe; /* never NULL after the submit: need <= 3 < depth */
}

static void prep_open(struct uf_worker *w, struct io_uring_sqe *sqe, struct uf_file *f,
		      unsigned slot)
{
	const struct uf_ctx *c = w->c;

	if (c->o.mode == UF_A) {
		io_uring_prep_openat(sqe, c->logfd, f->path, UF_OPEN_FL | O_CLOEXEC, 0);
		return;
	}
	/* O_CLOEXEC means nothing for a descriptor no exec can inherit, and the kernel
	 * refuses it with a target slot (io_openat_prep: -EINVAL). */
	io_uring_prep_openat(sqe, c->logfd, f->path, UF_OPEN_FL, 0);
	/* Set by hand: liburing 2.3's io_uring_prep_openat_direct() stores file_index + 1,
	 * which for IORING_FILE_INDEX_ALLOC (~0U) wraps to 0, "no slot": a plain fd comes
	 * back (2.4 fixed it). The kernel reads file_index - 1 as the slot, ~0U as "pick". */
	sqe->file_index = slot == IORING_FILE_INDEX_ALLOC ? IORING_FILE_INDEX_ALLOC : slot + 1;
}

static void prep_read(struct uf_worker *w, struct io_uring_sqe *sqe, struct uf_file *f)
{
	io_uring_prep_read(sqe, f->fd, f->buf, f->rlen, f->roff);
	if (w->c->o.mode != UF_A)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, ud(f, OP_READ));
}

static void prep_close(struct uf_worker *w, struct io_uring_sqe *sqe, struct uf_file *f)
{
	if (w->c->o.mode == UF_A)
		io_uring_prep_close(sqe, f->fd);
	else
		io_uring_prep_close_direct(sqe, (unsigned)f->fd);
	io_uring_sqe_set_data(sqe, ud(f, OP_CLOSE));
}

static void file_done(struct uf_worker *w, struct uf_file *f)
{
	struct uf_seg *g = f->seg;

	if (f->err)
		w->s.errors++;
	w->s.files++;
	f->done = true;
	if (--g->left == 0) {
		g->busy = false;
		w->busy--;
		w->s.segs++;
	}
}

static void submit_close(struct uf_worker *w, struct uf_file *f)
{
	prep_close(w, get_sqe(w, 1), f);
}

static void submit_read_or_close(struct uf_worker *w, struct uf_file *f)
{
	if (!f->err && plan_read(f))
		prep_read(w, get_sqe(w, 1), f);
	else
		submit_close(w, f);
}

/* c: open -> read -> close in one submission, the slot known up front. */
static void submit_chain(struct uf_worker *w, struct uf_file *f)
{
	const unsigned link = w->c->o.soft_link ? IOSQE_IO_LINK : IOSQE_IO_HARDLINK;
	struct io_uring_sqe *sqe;

	if (!plan_read(f)) { /* a file too short for an entry: nothing to open */
		file_done(w, f);
		return;
	}
	f->fd = f->slot;
	sqe = get_sqe(w, 3);
	prep_open(w, sqe, f, (unsigned)f->slot);
	io_uring_sqe_set_data(sqe, ud(f, OP_OPEN));
	/* The open's CQE says nothing the read's does not, unless it failed. */
	sqe->flags |= link | (w->c->o.open_cqe ? 0 : IOSQE_CQE_SKIP_SUCCESS);
	sqe = get_sqe(w, 2);
	prep_read(w, sqe, f);
	sqe->flags |= link;
	prep_close(w, get_sqe(w, 1), f);
	/* the close always posts (success or -ECANCELED): the slot is ours again only then */
	f->wait = 2 + (w->c->o.open_cqe ? 1 : 0);
}

static void start_file(struct uf_worker *w, struct uf_file *f)
{
	const struct uf_opts *o = &w->c->o;
	struct io_uring_sqe *sqe;

	f->fd = -1;
	f->size = -1;
	f->err = f->refetch = f->done = false;
	f->wait = 0;
	if (o->size == UF_SZ_PATH && stat_path(w, f) < 0) {
		f->err = true;
		file_done(w, f);
		return;
	}
	if (o->mode == UF_C && o->size != UF_SZ_STATX) {
		submit_chain(w, f);
		return;
	}
	if (o->mode != UF_C) {
		sqe = get_sqe(w, 1);
		prep_open(w, sqe, f, IORING_FILE_INDEX_ALLOC);
		io_uring_sqe_set_data(sqe, ud(f, OP_OPEN));
		f->wait++;
	}
	if (o->size == UF_SZ_STATX) {
		sqe = get_sqe(w, 1);
		io_uring_prep_statx(sqe, w->c->logfd, f->path, AT_SYMLINK_NOFOLLOW, STATX_SIZE,
				    &f->stx);
		io_uring_sqe_set_data(sqe, ud(f, OP_STAT));
		f->wait++;
	}
}

/* Both the open and (statx) the size are in: read, or close what opened. */
static void step_opened(struct uf_worker *w, struct uf_file *f)
{
	if (w->c->o.mode == UF_C) { /* only the statx was waited for */
		if (f->err)
			file_done(w, f);
		else
			submit_chain(w, f);
		return;
	}
	if (f->fd < 0) {
		file_done(w, f);
		return;
	}
	submit_read_or_close(w, f);
}

static void on_cqe(struct uf_worker *w, struct io_uring_cqe *cqe)
{
	const struct uf_opts *o = &w->c->o;
	uintptr_t u = (uintptr_t)io_uring_cqe_get_data(cqe);
	struct uf_file *f = (struct uf_file *)(u & ~(uintptr_t)7);
	enum uf_op op = (enum uf_op)(u & 7);
	int res = cqe->res;

	w->s.cqes++;
	if (o->mode == UF_C && op != OP_STAT) {
		/* chain: open (posts only on failure unless -k), read, close */
		if (res == -ECANCELED)
			w->s.cancelled++;
		if (op == OP_OPEN) {
			if (res < 0)
				f->err = true;
			if (res < 0 && o->soft_link && !o->open_cqe) {
				/* A failed soft-link head that asked for CQE_SKIP_SUCCESS takes
				 * its followers' CQEs with it (REQ_F_SKIP_LINK_CQES): neither the
				 * cancelled read nor the close will post, and the slot is empty. */
				file_done(w, f);
				return;
			}
			if (o->open_cqe)
				f->wait--;
			return;
		}
		if (op == OP_READ) {
			f->wait--;
			if (!took_read(&w->s, f, res))
				f->refetch = true;
			return;
		}
		/* OP_CLOSE: a cancelled close (soft link after a short read) left the file in
		 * its slot; close it by itself so the slot can be reused. */
		if (res == -ECANCELED) {
			submit_close(w, f);
			return;
		}
		if (res < 0)
			f->err = true;
		if (--f->wait)
			return;
		if (f->refetch && !f->err) {
			f->refetch = false;
			if (stat_path(w, f) < 0) {
				f->err = true;
				file_done(w, f);
			} else {
				submit_chain(w, f);
			}
			return;
		}
		file_done(w, f);
		return;
	}
	switch (op) {
	case OP_OPEN:
		if (res < 0)
			f->err = true;
		else
			f->fd = res;
		if (res >= 0 && o->size == UF_SZ_FSTAT && stat_fd(f) < 0)
			f->err = true;
		if (--f->wait == 0)
			step_opened(w, f);
		return;
	case OP_STAT:
		if (res < 0)
			f->err = true;
		else
			f->size = (int64_t)f->stx.stx_size;
		if (--f->wait == 0)
			step_opened(w, f);
		return;
	case OP_READ:
		if (!took_read(&w->s, f, res)) {
			/* a big index: its size, then its tail */
			int r = o->mode == UF_A ? stat_fd(f) : stat_path(w, f);
			if (r < 0)
				f->err = true;
			submit_read_or_close(w, f);
			return;
		}
		submit_close(w, f);
		return;
	case OP_CLOSE:
		if (res < 0)
			f->err = true;
		file_done(w, f);
		return;
	}
}

static void start_seg(struct uf_worker *w, struct uf_seg *g)
{
	const char *stem = w->stems[w->next_stem++];

	g->nf = w->c->o.with_index ? 3 : 2;
	g->left = g->nf;
	g->busy = true;
	w->busy++;
	for (unsigned k = 0; k < g->nf; k++)
		snprintf(g->f[k].path, sizeof(g->f[k].path), "%s/%s%s", w->part, stem,
			 kind_ext[k]);
	for (unsigned k = 0; k < g->nf; k++)
		start_file(w, &g->f[k]);
}

static int ring_init(struct uf_worker *w)
{
	const struct uf_opts *o = &w->c->o;
	static const unsigned tiers[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int r = -EINVAL;

	for (size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]) && r == -EINVAL; i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		p.flags = tiers[i] | IORING_SETUP_CQSIZE;
		p.cq_entries = o->depth * 4;
		r = io_uring_queue_init_params(o->depth, &w->ring, &p);
	}
	if (r < 0)
		return r;
	if (o->mode == UF_B || o->mode == UF_C) {
		/* b needs one slot per file open at once; c owns exactly those */
		r = io_uring_register_files_sparse(&w->ring, o->segs * 3);
		if (r < 0) {
			io_uring_queue_exit(&w->ring);
			return r;
		}
	}
	return 0;
}

static void run_ring(struct uf_worker *w)
{
	bool more = true;

	for (;;) {
		for (unsigned i = 0; more && i < w->c->o.segs; i++) {
			if (w->segs[i].busy)
				continue;
			if (!(more = refill(w)))
				break;
			start_seg(w, &w->segs[i]);
		}
		if (!w->busy)
			break;
		w->s.enters++;
		int r = io_uring_submit_and_wait(&w->ring, 1);
		if (r < 0 && r != -EINTR) {
			w->rc = r;
			break;
		}
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			seen++;
			on_cqe(w, cqe);
		}
		io_uring_cq_advance(&w->ring, seen);
	}
}

/* ---- d: plain syscalls ---------------------------------------------------------------- */

static void plain_file(struct uf_worker *w, struct uf_file *f)
{
	const struct uf_opts *o = &w->c->o;
	ssize_t n;

	f->size = -1;
	f->err = false;
	if (o->size == UF_SZ_PATH && stat_path(w, f) < 0)
		goto fail;
	f->fd = openat(w->c->logfd, f->path, UF_OPEN_FL | O_CLOEXEC);
	if (f->fd < 0)
		goto fail;
	if (o->size == UF_SZ_FSTAT && stat_fd(f) < 0)
		f->err = true;
	while (!f->err && plan_read(f)) {
		n = pread(f->fd, f->buf, f->rlen, f->roff);
		if (took_read(&w->s, f, n < 0 ? -errno : (int)n))
			break;
		if (stat_fd(f) < 0)
			f->err = true;
	}
	close(f->fd); /* the openat above */
	if (f->err)
		w->s.errors++;
	w->s.files++;
	return;
fail:
	w->s.errors++;
	w->s.files++;
}

static void run_plain(struct uf_worker *w)
{
	struct uf_seg *g = &w->segs[0];
	unsigned nf = w->c->o.with_index ? 3 : 2;

	while (refill(w)) {
		const char *stem = w->stems[w->next_stem++];
		for (unsigned k = 0; k < nf; k++) {
			snprintf(g->f[k].path, sizeof(g->f[k].path), "%s/%s%s", w->part, stem,
				 kind_ext[k]);
			plain_file(w, &g->f[k]);
		}
		w->s.segs++;
	}
}

static void *worker_main(void *arg)
{
	struct uf_worker *w = arg;
	const struct uf_opts *o = &w->c->o;

	w->segs = calloc(o->segs, sizeof(*w->segs));
	if (!w->segs) {
		w->rc = -ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < o->segs; i++)
		for (unsigned k = 0; k < 3; k++) {
			w->segs[i].f[k].seg = &w->segs[i];
			w->segs[i].f[k].kind = (enum uf_kind)k;
			w->segs[i].f[k].slot = (int)(i * 3 + k);
		}
	if (o->mode == UF_D) {
		run_plain(w);
	} else if ((w->rc = ring_init(w)) == 0) {
		run_ring(w);
		io_uring_queue_exit(&w->ring); /* ring_init's */
	}
	free(w->segs);
	free(w->stems);
	return NULL;
}

/* ---- main ----------------------------------------------------------------------------- */

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: uringfloor [-m a|b|c|d] [-S fstat|statx|path|short] [-t THREADS] "
			"[-q DEPTH] [-s SEGS] [-i] [-k] [-L] LOGDIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct uf_ctx c = { .o = { .mode = UF_A, .size = -1, .threads = 2, .depth = 64, .segs = 21 } };
	struct uf_sums t = { 0 };
	struct uf_worker *w;
	struct rusage ru;
	int opt, r = 0, v;

	while ((opt = getopt(argc, argv, "m:S:t:q:s:ikL")) != -1) {
		switch (opt) {
		case 'm':
			if ((v = pick(optarg, mode_names, 4)) < 0)
				return usage();
			c.o.mode = (enum uf_mode)v;
			break;
		case 'S':
			if ((v = pick(optarg, size_names, 4)) < 0)
				return usage();
			c.o.size = (enum uf_size)v;
			break;
		case 't': c.o.threads = (unsigned)atoi(optarg); break;
		case 'q': c.o.depth = (unsigned)atoi(optarg); break;
		case 's': c.o.segs = (unsigned)atoi(optarg); break;
		case 'i': c.o.with_index = true; break;
		case 'k': c.o.open_cqe = true; break;
		case 'L': c.o.soft_link = true; break;
		default: return usage();
		}
	}
	if (optind + 1 != argc || !c.o.threads || c.o.depth < 8 || !c.o.segs)
		return usage();
	if ((int)c.o.size == -1)
		c.o.size = (c.o.mode == UF_A || c.o.mode == UF_D) ? UF_SZ_FSTAT : UF_SZ_SHORT;
	if (c.o.size == UF_SZ_FSTAT && (c.o.mode == UF_B || c.o.mode == UF_C)) {
		fprintf(stderr, "uringfloor: a direct descriptor has no fd to fstat\n");
		return 2;
	}
	if (c.o.size == UF_SZ_STATX && c.o.mode == UF_D) {
		fprintf(stderr, "uringfloor: -S statx needs a ring\n");
		return 2;
	}
	double t0 = mono();
	c.logfd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.logfd < 0) {
		perror(argv[optind]);
		return 1;
	}
	if ((r = list_logdir(&c)) < 0) {
		fprintf(stderr, "uringfloor: %s: %s\n", argv[optind], strerror(-r));
		return 1;
	}
	double t1 = mono();
	w = calloc(c.o.threads, sizeof(*w));
	if (!w)
		return 1;
	for (unsigned i = 0; i < c.o.threads; i++) {
		w[i].c = &c;
		if ((r = pthread_create(&w[i].th, NULL, worker_main, &w[i])) != 0) {
			fprintf(stderr, "uringfloor: pthread_create: %s\n", strerror(r));
			return 1;
		}
	}
	for (unsigned i = 0; i < c.o.threads; i++) {
		pthread_join(w[i].th, NULL); /* pthread_create's */
		if (w[i].rc < 0) {
			fprintf(stderr, "uringfloor: worker %u: %s\n", i, strerror(-w[i].rc));
			r = 1;
		}
		uint64_t *a = (uint64_t *)&t, *b = (uint64_t *)&w[i].s;
		for (size_t k = 0; k < sizeof(t) / sizeof(uint64_t); k++)
			a[k] += b[k];
	}
	double t2 = mono();
	getrusage(RUSAGE_SELF, &ru);
	printf("mode=%s size=%s threads=%u depth=%u segs_in_flight=%u%s%s%s\n",
	       mode_names[c.o.mode], size_names[c.o.size], c.o.threads, c.o.depth, c.o.segs,
	       c.o.with_index ? " +index" : "", c.o.mode == UF_C && c.o.open_cqe ? " open_cqe" : "",
	       c.o.mode == UF_C && c.o.soft_link ? " soft_link" : "");
	printf("check segs=%" PRIu64 " files=%" PRIu64 " log_bytes=%" PRIu64 " base_sum=%" PRIu64
	       " ts_sum=%" PRIu64 " toff_sum=%" PRIu64 " idx_sum=%" PRIu64 " errors=%" PRIu64 "\n",
	       t.segs, t.files, t.log_bytes, t.base_sum, t.ts_sum, t.toff_sum, t.idx_sum, t.errors);
	printf("cost partitions=%zu read_bytes=%" PRIu64 " tail_fallbacks=%" PRIu64
	       " sqes=%" PRIu64 " cqes=%" PRIu64 " enters=%" PRIu64 " cancelled=%" PRIu64 "\n",
	       c.n_parts, t.raw_bytes, t.fallbacks, t.sqes, t.cqes, t.enters, t.cancelled);
	printf("time list=%.3fs work=%.3fs user=%.3fs sys=%.3fs\n", t1 - t0, t2 - t1,
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	free(w);
	free(c.parts);
	free(c.pool);
	close(c.logfd); /* the open above */
	return r;
}
