/*
 * The pread engine: plain synchronous syscalls. Each request runs to completion inside
 * submit() and waits in a FIFO for reap(), so callers drive it exactly like io_uring.
 * Also home of the OPEN/STAT/CLOSE syscalls and the completion FIFO that mmap.c reuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/engine.h"

struct ss_pread {
	struct ss_io_syncq    done;
	struct ss_io_counters ctr;
	bool                  noatime_eperm;
};

int ss_io_syncq_init(struct ss_io_syncq *q, unsigned cap)
{
	q->q = calloc(cap, sizeof(*q->q));
	if (!q->q)
		return -ENOMEM;
	q->cap = cap;
	q->head = 0;
	q->n = 0;
	return 0;
}

void ss_io_syncq_fini(struct ss_io_syncq *q)
{
	free(q->q);
	q->q = NULL;
}

void ss_io_sync_drop_done(struct ss_io_syncq *q)
{
	struct ss_io_req *r;

	/* An fd opened for a request the caller never reaped has no other owner. */
	while (ss_io_syncq_pop(q, &r, 1))
		if (r->op == SS_IO_OPEN && r->res >= 0)
			close((int)r->res);
}

unsigned ss_io_syncq_pop(struct ss_io_syncq *q, struct ss_io_req **out, unsigned max)
{
	unsigned k = 0;
	while (k < max && q->n) {
		out[k++] = q->q[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	return k;
}

int ss_io_sync_open(int dirfd, const char *path, bool *noatime_eperm, struct ss_io_counters *c)
{
	int flags = O_RDONLY | O_CLOEXEC;
	int fd;

	if (!*noatime_eperm) {
		c->syscalls++;
		fd = openat(dirfd, path, flags | O_NOATIME);
		if (fd >= 0)
			return fd;
		if (errno != EPERM)
			return -errno;
		/* O_NOATIME needs ownership of the file (or CAP_FOWNER). A log dir has one
		 * owner, so once refused it will be refused for the rest: stop asking. */
		*noatime_eperm = true;
	}
	c->syscalls++;
	fd = openat(dirfd, path, flags);
	return fd >= 0 ? fd : -errno;
}

int ss_io_sync_stat(const struct ss_io_req *req, struct ss_io_stat *st, struct ss_io_counters *c)
{
	struct stat sb;
	int r;

	c->syscalls++;
	if (req->path)
		r = fstatat(req->dirfd, req->path, &sb, AT_SYMLINK_NOFOLLOW);
	else
		r = fstat(req->fd, &sb);
	if (r < 0)
		return -errno;
	st->size = sb.st_size;
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	st->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	return 0;
}

int ss_io_sync_close(int fd, struct ss_io_counters *c)
{
	c->syscalls++;
	/* Linux releases the fd even when close() reports EINTR; retrying could close a
	 * fd another thread just opened. */
	if (close(fd) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

static int64_t pread_full(struct ss_pread *p, int fd, char *buf, size_t len, int64_t off)
{
	size_t done = 0;

	/* do/while: a zero-length read still checks the fd, as io_uring's does. */
	do {
		p->ctr.syscalls++;
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
	p->ctr.bytes_read += done;
	return (int64_t)done;
}

static int pr_create(struct ss_io_engine **out, unsigned depth)
{
	struct ss_pread *p;
	int r;

	*out = NULL;
	if (depth == 0 || depth > SS_IO_MAX_DEPTH)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r = ss_io_syncq_init(&p->done, depth);
	if (r < 0) {
		free(p);
		return r;
	}
	*out = (struct ss_io_engine *)p;
	return 0;
}

static int pr_submit(struct ss_io_engine *e, struct ss_io_req *req)
{
	struct ss_pread *p = (struct ss_pread *)e;
	int r = ss_io_check_req(req);

	if (r < 0)
		return r;
	if (ss_io_syncq_full(&p->done))
		return -EBUSY;
	switch (req->op) {
	case SS_IO_OPEN:
		req->res = ss_io_sync_open(req->dirfd, req->path, &p->noatime_eperm, &p->ctr);
		break;
	case SS_IO_STAT:
		req->res = ss_io_sync_stat(req, &req->st, &p->ctr);
		break;
	case SS_IO_READ:
		req->res = pread_full(p, req->fd, req->buf, req->len, req->off);
		break;
	case SS_IO_CLOSE:
		req->res = ss_io_sync_close(req->fd, &p->ctr);
		break;
	}
	p->ctr.submissions++;
	ss_io_syncq_push(&p->done, req);
	return 0;
}

static int pr_flush(struct ss_io_engine *e)
{
	return 0;
}

static int pr_reap(struct ss_io_engine *e, struct ss_io_req **out, unsigned max, unsigned wait_for)
{
	struct ss_pread *p = (struct ss_pread *)e;
	return (int)ss_io_syncq_pop(&p->done, out, max);
}

static unsigned pr_inflight(const struct ss_io_engine *e)
{
	return ((const struct ss_pread *)e)->done.n;
}

static void pr_counters(const struct ss_io_engine *e, struct ss_io_counters *c)
{
	*c = ((const struct ss_pread *)e)->ctr;
}

static void pr_destroy(struct ss_io_engine *e)
{
	struct ss_pread *p = (struct ss_pread *)e;
	if (!p)
		return;
	ss_io_sync_drop_done(&p->done);
	ss_io_syncq_fini(&p->done);
	free(p);
}

const struct ss_io_ops ss_io_pread_ops = {
	.name      = "pread",
	.create    = pr_create,
	.submit    = pr_submit,
	.flush     = pr_flush,
	.reap      = pr_reap,
	.inflight  = pr_inflight,
	.counters  = pr_counters,
	.destroy   = pr_destroy,
};
