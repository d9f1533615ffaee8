/*
 * The pread engine: plain synchronous syscalls on the synchronous engines' core
 * (engine.c: submit, reap, the completion FIFO, OPEN/STAT/CLOSE). Only READ is its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/engine.h"

struct ss_pread {
	struct ss_io_sync    s;   /* first: the core casts the engine to it */
	struct ss_io_lender *l;   /* borrowed READs (engine.h), made on the first */
	bool                 no_lend; /* the lender could not be made: copy instead */
};

static int64_t pread_full(struct ss_io_sync *s, struct ss_io_req *req)
{
	struct ss_pread *p = (struct ss_pread *)s;
	if (req->borrow && ss_io_lend_lazy(&p->l, &p->no_lend, req, &s->ctr))
		return req->res;
	int fd = req->fd;
	char *buf = req->buf;
	size_t len = req->len, done = 0;
	int64_t off = req->off;

	/* do/while: a zero-length read still checks the fd, as io_uring's does. */
	do {
		s->ctr.syscalls++;
		ssize_t n = pread(fd, buf + done, len - done, off + (int64_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	} while (done < len);
	s->ctr.bytes_read += done;
	return (int64_t)done;
}

/* A CLOSE through the engine drops a lent mapping first (engine.h). */
static void pr_on_close(struct ss_io_sync *s, int fd)
{
	struct ss_pread *p = (struct ss_pread *)s;
	ss_io_lend_drop(p->l, fd, &s->ctr);
}

static int pr_create(struct ss_io_engine **out, unsigned depth)
{
	struct ss_io_sync *s;
	int r = ss_io_sync_create(sizeof(struct ss_pread), depth, pread_full, pr_on_close, &s);
	*out = (struct ss_io_engine *)s;
	return r;
}

static void pr_destroy(struct ss_io_engine *e)
{
	if (e)
		ss_io_lender_destroy(((struct ss_pread *)e)->l);
	ss_io_sync_destroy((struct ss_io_sync *)e);
}

const struct ss_io_ops ss_io_pread_ops = {
	.name      = "pread",
	.create    = pr_create,
	.submit    = ss_io_sync_submit,
	.flush     = ss_io_sync_flush,
	.reap      = ss_io_sync_reap,
	.inflight  = ss_io_sync_inflight,
	.counters  = ss_io_sync_counters,
	.destroy   = pr_destroy,
};
