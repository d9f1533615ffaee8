/*
 * The io_uring engine: one ring per engine (so per worker thread). submit() only fills
 * an SQE, flush() hands the whole batch to the kernel in one io_uring_enter, reap()
 * waits for and collects completions. Work the caller never sees is done here: a short
 * read that is not at end of file is resubmitted for the rest, an OPEN refused for
 * O_NOATIME is resubmitted without it.
 *
 * Every io_uring_enter is made through uring_enter() and counted there; completions are
 * read with io_uring_for_each_cqe, which never enters the kernel (liburing's peek helpers
 * may, behind our back, which would make the syscall counter lie).
 *
 * No registered files or buffers. They would not fit the contract (OPEN returns a plain
 * fd; buffers are the caller's), and they do not pay here: reading a page-cached file at
 * depth 32, CPU per read (median of 7 runs, this 2-core VM) was 1014 ns plain vs 984
 * (fixed file), 1005 (fixed buffers), 985 (both) for 4 KiB reads, and 6788 vs 6945,
 * 6466, 6534 ns for 64 KiB: at most 5%, inside the run-to-run spread (the copy out of
 * the page cache dominates).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "io/engine.h"

/* Largest single read handed to the kernel: it caps one read at INT_MAX & PAGE_MASK
 * anyway, and the rest is resubmitted like any short read. */
#define SS_URING_MAX_RW (1u << 30)

struct ss_uslot {
	struct ss_io_req *req;
	struct ss_uslot  *next_free;
	size_t            done;     /* READ: bytes read so far */
	bool              noatime;  /* OPEN: this attempt asked for O_NOATIME */
	struct statx      stx;      /* STAT: the kernel writes here */
};

struct ss_uring {
	struct io_uring       ring;
	unsigned              depth;
	unsigned              inflight;  /* submitted by the caller, not yet reaped */
	bool                  enabled;   /* created IORING_SETUP_R_DISABLED, not yet enabled */
	bool                  noatime_eperm;
	struct ss_io_counters ctr;
	struct ss_uslot      *slots;
	struct ss_uslot      *free;
	/* STAT requests, done with a plain fstat/fstatat inside submit(): the kernel never
	 * runs IORING_OP_STATX inline (io_statx refuses IO_URING_F_NONBLOCK), so each one
	 * costs a hand-off to an io-wq thread and back, where the syscall costs ~1 us. */
	struct ss_io_syncq    statq;
	/* borrowed READs (engine.h): lent from a mapping inside submit(), completed through
	 * statq like the STATs; made on the first */
	struct ss_io_lender  *lend;
	bool                  no_lend;
};

/* ---- kernel entry --------------------------------------------------------------------- */

/*
 * The one place that enters the kernel. wait_nr > 0: submit and wait for that many CQEs;
 * getevents: submit and run deferred completions without waiting; else submit only, and
 * only called with SQEs pending (so liburing really makes the call being counted).
 */
static int uring_enter(struct ss_uring *u, unsigned wait_nr, bool getevents)
{
	int r;

	if (!u->enabled) {
		/* Enabling binds the ring to this thread (SINGLE_ISSUER), so the engine can
		 * be created on one thread and used by its worker. */
		u->ctr.syscalls++;
		/* io_uring_enable_rings() is declared by liburing 2.3 but not exported
		 * from its shared library; io_uring_register() is. */
		r = io_uring_register((unsigned)u->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS,
				      NULL, 0);
		if (r < 0)
			return r;
		u->enabled = true;
	}
	do {
		u->ctr.syscalls++;
		if (wait_nr)
			r = io_uring_submit_and_wait(&u->ring, wait_nr);
		else if (getevents)
			r = io_uring_submit_and_get_events(&u->ring);
		else
			r = io_uring_submit(&u->ring);
	} while (r == -EINTR);
	return r < 0 ? r : 0;
}

static struct io_uring_sqe *get_sqe(struct ss_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	/* Cannot happen while every slot holds at most one SQE and the SQ has depth
	 * entries, unless the kernel left some unconsumed; then push them and retry. */
	if (!sqe && uring_enter(u, 0, false) == 0)
		sqe = io_uring_get_sqe(&u->ring);
	return sqe;
}

/* Queue the (next) SQE for a slot's request. */
static int prep(struct ss_uring *u, struct ss_uslot *s)
{
	struct ss_io_req *req = s->req;
	struct io_uring_sqe *sqe = get_sqe(u);
	const unsigned mask = STATX_SIZE | STATX_INO | STATX_MTIME;
	int flags;

	if (!sqe)
		return -EBUSY;
	switch (req->op) {
	case SS_IO_OPEN:
		flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK; /* a FIFO must not block: engine.c */
		s->noatime = !u->noatime_eperm;
		if (s->noatime)
			flags |= O_NOATIME;
		io_uring_prep_openat(sqe, req->dirfd, req->path, flags, 0);
		break;
	case SS_IO_STAT:
		if (req->path)
			io_uring_prep_statx(sqe, req->dirfd, req->path, AT_SYMLINK_NOFOLLOW, mask,
					    &s->stx);
		else
			io_uring_prep_statx(sqe, req->fd, "", AT_EMPTY_PATH, mask, &s->stx);
		break;
	case SS_IO_READ: {
		size_t left = req->len - s->done;
		unsigned n = left > SS_URING_MAX_RW ? SS_URING_MAX_RW : (unsigned)left;
		io_uring_prep_read(sqe, req->fd, (char *)req->buf + s->done, n,
				   (uint64_t)req->off + s->done);
		break;
	}
	case SS_IO_CLOSE:
		io_uring_prep_close(sqe, req->fd);
		break;
	}
	io_uring_sqe_set_data(sqe, s);
	return 0;
}

/*
 * One CQE for a slot. Returns true when its request is finished (req->res set), false
 * when it was resubmitted.
 */
static bool complete(struct ss_uring *u, struct ss_uslot *s, int res)
{
	struct ss_io_req *req = s->req;

	switch (req->op) {
	case SS_IO_OPEN:
		if (res == -EPERM && s->noatime) {
			/* Not the file's owner: as pread.c, stop asking for O_NOATIME. */
			u->noatime_eperm = true;
			if (prep(u, s) == 0)
				return false;
		}
		if (res == -EMFILE || res == -ENFILE) {
			/* the open-file limit: the synchronous open waits for others to close
			 * and retries (engine.c), rather than turn the limit into a data error */
			res = ss_io_sync_open(req->dirfd, req->path, &u->noatime_eperm, &u->ctr);
		}
		req->res = res;
		return true;
	case SS_IO_STAT:
		if (res == 0) {
			req->st.size = (int64_t)s->stx.stx_size;
			req->st.dev = makedev(s->stx.stx_dev_major, s->stx.stx_dev_minor);
			req->st.ino = s->stx.stx_ino;
			req->st.mtime_ns = (int64_t)s->stx.stx_mtime.tv_sec * 1000000000 +
					   s->stx.stx_mtime.tv_nsec;
		}
		req->res = res;
		return true;
	case SS_IO_READ:
		if (res > 0) {
			s->done += (size_t)res;
			u->ctr.bytes_read += (uint64_t)res;
		}
		/* io_uring may return a short read anywhere; only a zero read is EOF. EINTR
		 * is retried as pread.c retries it (EAGAIN is not: on a non-blocking fd it
		 * could spin forever). */
		if ((res > 0 && s->done < req->len) || res == -EINTR) {
			res = prep(u, s);
			if (res == 0)
				return false;
		}
		req->res = res < 0 ? res : (int64_t)s->done;
		return true;
	case SS_IO_CLOSE:
		/* As close(2): the fd is gone even if interrupted. */
		req->res = res == -EINTR ? 0 : res;
		return true;
	}
	req->res = -EINVAL;
	return true;
}

/* Process the CQEs already posted, up to max finished requests. Never enters. */
static unsigned drain(struct ss_uring *u, struct ss_io_req **out, unsigned max)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0, n = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		if (n == max)
			break;
		seen++;
		struct ss_uslot *s = io_uring_cqe_get_data(cqe);
		if (complete(u, s, cqe->res)) {
			out[n++] = s->req;
			s->req = NULL;
			s->next_free = u->free;
			u->free = s;
			u->inflight--;
		}
	}
	io_uring_cq_advance(&u->ring, seen);
	return n;
}

/* ---- ops ---------------------------------------------------------------------------- */

static int ur_create(struct ss_io_engine **out, unsigned depth)
{
	/* Best first: SINGLE_ISSUER + DEFER_TASKRUN (6.1) run completions only when we
	 * ask, no IPIs into a busy worker; COOP_TASKRUN (5.19) at least avoids the IPIs.
	 * R_DISABLED goes with SINGLE_ISSUER so the issuer is whoever enables the ring. */
	static const unsigned tiers[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_R_DISABLED,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	const char *force = getenv("SEGSCAN_FORCE_URING_FAIL");
	struct ss_uring *u;
	int r = -EINVAL;

	*out = NULL;
	if (force && !strcmp(force, "1"))
		return -EPERM;
	if (depth == 0 || depth > SS_IO_MAX_DEPTH)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->slots = calloc(depth, sizeof(*u->slots));
	if (!u->slots || ss_io_syncq_init(&u->statq, depth) != 0) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		p.flags = tiers[i];
		r = io_uring_queue_init_params(depth, &u->ring, &p);
		/* EINVAL: this kernel does not know a flag; anything else (EPERM from
		 * seccomp or io_uring_disabled, ENOSYS, ENOMEM) no tier will fix. */
		if (r != -EINVAL)
			break;
	}
	if (r < 0)
		goto fail;
	u->enabled = !(u->ring.flags & IORING_SETUP_R_DISABLED);
	u->depth = depth;
	for (unsigned i = depth; i-- > 0;) {
		u->slots[i].next_free = u->free;
		u->free = &u->slots[i];
	}
	*out = (struct ss_io_engine *)u;
	return 0;
fail:
	ss_io_syncq_fini(&u->statq);
	free(u->slots);
	free(u);
	return r;
}

static int ur_submit(struct ss_io_engine *e, struct ss_io_req *req)
{
	struct ss_uring *u = (struct ss_uring *)e;
	struct ss_uslot *s;
	int r = ss_io_check_req(req);

	if (r < 0)
		return r;
	if (u->inflight == u->depth)
		return -EBUSY;
	if (req->op == SS_IO_READ && req->borrow && ss_io_lend_lazy(&u->lend, &u->no_lend, req, &u->ctr)) {
		ss_io_syncq_push(&u->statq, req);
		u->inflight++;
		u->ctr.submissions++;
		return 0;
	}
	if (req->op == SS_IO_CLOSE)
		ss_io_lend_drop(u->lend, req->fd, &u->ctr); /* before the fd can be reused */
	if (req->op == SS_IO_STAT) {
		req->res = ss_io_sync_stat(req, &req->st, &u->ctr);
		ss_io_syncq_push(&u->statq, req);
		u->inflight++;
		u->ctr.submissions++;
		return 0;
	}
	s = u->free;
	s->req = req;
	s->done = 0;
	r = prep(u, s);
	if (r < 0) {
		s->req = NULL;
		return r;
	}
	u->free = s->next_free;
	u->inflight++;
	u->ctr.submissions++;
	return 0;
}

static int ur_flush(struct ss_io_engine *e)
{
	struct ss_uring *u = (struct ss_uring *)e;

	if (!io_uring_sq_ready(&u->ring))
		return 0;
	return uring_enter(u, 0, false);
}

static int ur_reap(struct ss_io_engine *e, struct ss_io_req **out, unsigned max, unsigned wait_for)
{
	struct ss_uring *u = (struct ss_uring *)e;
	unsigned want = wait_for, n;
	int r = 0;

	if (want > u->inflight)
		want = u->inflight;
	if (want > max)
		want = max;
	n = ss_io_syncq_pop(&u->statq, out, max);
	u->inflight -= n;
	n += drain(u, out + n, max - n);
	while (n < want) {
		/* Every request still in flight has exactly one SQE queued or in the kernel,
		 * and each will post one CQE: waiting for up to u->inflight cannot hang. */
		unsigned need = want - n;
		if (need > u->inflight)
			need = u->inflight;
		r = uring_enter(u, need, false);
		if (r < 0)
			break;
		n += drain(u, out + n, max - n);
	}
	if (r == 0 && n == 0 && want == 0 && max && u->inflight) {
		/* A poll: with DEFER_TASKRUN nothing is posted until we enter. */
		r = uring_enter(u, 0, true);
		if (r == 0)
			n += drain(u, out + n, max - n);
	}
	/* Resubmissions queued by the last drain are not pushed here: they go with the
	 * caller's next flush or reap, batched with its new requests, instead of costing
	 * a syscall of their own. Completions already taken off the ring must reach the
	 * caller even after an error; the error will show again on the next call. */
	return n ? (int)n : r;
}

static unsigned ur_inflight(const struct ss_io_engine *e)
{
	return ((const struct ss_uring *)e)->inflight;
}

static void ur_counters(const struct ss_io_engine *e, struct ss_io_counters *c)
{
	*c = ((const struct ss_uring *)e)->ctr;
}

static void ur_destroy(struct ss_io_engine *e)
{
	struct ss_uring *u = (struct ss_uring *)e;
	struct ss_io_req *done[64];

	if (!u)
		return;
	/* The kernel may still write into slots (statx) and caller buffers: wait for
	 * everything in flight before freeing, and close what opened meanwhile. */
	while (u->inflight) {
		int n = ur_reap(e, done, 64, u->inflight);
		if (n <= 0)
			break;
		for (int i = 0; i < n; i++)
			if (done[i]->op == SS_IO_OPEN && done[i]->res >= 0)
				close((int)done[i]->res);
	}
	io_uring_queue_exit(&u->ring);
	ss_io_lender_destroy(u->lend);
	ss_io_syncq_fini(&u->statq);
	free(u->slots);
	free(u);
}

const struct ss_io_ops ss_io_uring_ops = {
	.name      = "uring",
	.create    = ur_create,
	.submit    = ur_submit,
	.flush     = ur_flush,
	.reap      = ur_reap,
	.inflight  = ur_inflight,
	.counters  = ur_counters,
	.destroy   = ur_destroy,
};
