/* Engine lookup by name, the io_uring -> pread fallback, and the synchronous engines' core. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fdlimit.h"
#include "common/file.h"
#include "io/engine.h"
#include "segscan.h"

const struct ss_io_ops *ss_io_find(const char *name)
{
	if (!name)
		return NULL;
	if (!strcmp(name, "uring"))
		return &ss_io_uring_ops;
	if (!strcmp(name, "mmap"))
		return &ss_io_mmap_ops;
	if (!strcmp(name, "pread"))
		return &ss_io_pread_ops;
	return NULL;
}

int ss_io_check_req(const struct ss_io_req *req)
{
	if (!req)
		return -EINVAL;
	switch (req->op) {
	case SS_IO_OPEN:
		return req->path ? 0 : -EINVAL;
	case SS_IO_STAT:
	case SS_IO_CLOSE:
		return 0;
	case SS_IO_READ:
		/* io_uring reads at the file position for off == -1, so a negative offset
		 * must never reach it; pread would say EINVAL anyway. */
		if (req->off < 0 || req->len > (uint64_t)(INT64_MAX - req->off))
			return -EINVAL;
		if (!req->buf && req->len)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/* -1 when the sysctl does not exist (kernels before 6.6) or cannot be read. */
static int uring_disabled_sysctl(void)
{
	char *b = NULL;
	size_t n;
	/* through the one opener (O_NONBLOCK, fstat: a regular file), as every input is */
	if (ss_read_file(AT_FDCWD, "/proc/sys/kernel/io_uring_disabled", 64, &b, &n) < 0)
		return -1;
	int v = n > 0 ? atoi(b) : -1;
	free(b);
	return v;
}

static void uring_reason(int err, char *why, size_t whylen)
{
	const char *detail = "";
	if (err == -EPERM) {
		const char *force = getenv("SEGSCAN_FORCE_URING_FAIL");
		int dis = uring_disabled_sysctl();
		if (force && !strcmp(force, "1"))
			detail = ": simulated by SEGSCAN_FORCE_URING_FAIL=1";
		else if (dis == 2)
			detail = ": kernel.io_uring_disabled=2";
		else if (dis == 1)
			detail = ": kernel.io_uring_disabled=1 and not in kernel.io_uring_group";
		else
			detail = ": blocked by seccomp or kernel.io_uring_disabled";
	} else if (err == -ENOSYS) {
		detail = ": kernel without io_uring, or blocked by seccomp";
	}
	snprintf(why, whylen, "io_uring unavailable (%s%s); using pread", strerror(-err), detail);
}

int ss_io_create(const char *name, unsigned depth, const struct ss_io_ops **ops,
		 struct ss_io_engine **out, bool *fell_back, char *why, size_t whylen)
{
	const struct ss_io_ops *o = ss_io_find(name);
	int r;

	*out = NULL;
	if (fell_back)
		*fell_back = false;
	if (why && whylen)
		why[0] = 0;
	/* Checked here too so that a bad depth is reported as such and never mistaken
	 * for io_uring being unavailable. */
	if (!o || depth == 0 || depth > SS_IO_MAX_DEPTH)
		return -EINVAL;
	r = o->create(out, depth);
	if (r < 0 && o == &ss_io_uring_ops) {
		if (why && whylen)
			uring_reason(r, why, whylen);
		o = &ss_io_pread_ops;
		r = o->create(out, depth);
		if (r == 0 && fell_back)
			*fell_back = true;
	}
	if (r < 0) {
		*out = NULL;
		return r;
	}
	if (ops)
		*ops = o;
	return 0;
}

/* ---- the synchronous engines' core (pread, mmap), as fio's sync engines share theirs:
 * each request runs to completion inside submit() and waits in a FIFO for reap(), so
 * callers drive them exactly like io_uring. ---- */

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
	/* O_NONBLOCK: a FIFO put where a segment file belongs would block the open (and then
	 * every read) forever; on a regular file it changes nothing. STAT then refuses what
	 * is not a regular file (ss_io_sync_stat). */
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
	int fd;

	/* EMFILE/ENFILE: the open-file limit, not the file. Other workers close files all
	 * the time, so wait a little and try again before it becomes a data error
	 * (issue 14 item 7; the tasks in flight are sized from the limit, fdlimit.h). */
	for (unsigned attempt = 0;; attempt++) {
		if (!*noatime_eperm) {
			c->syscalls++;
			fd = openat(dirfd, path, flags | O_NOATIME);
			if (fd >= 0)
				return fd;
			if (errno == EPERM) {
				/* O_NOATIME needs ownership of the file (or CAP_FOWNER). A log dir
				 * has one owner, so once refused it will be refused for the rest. */
				*noatime_eperm = true;
				continue;
			}
		} else {
			c->syscalls++;
			fd = openat(dirfd, path, flags);
			if (fd >= 0)
				return fd;
		}
		if ((errno != EMFILE && errno != ENFILE) || !ss_fd_retry_wait(attempt))
			return -errno;
	}
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
	/* Segment files only: a FIFO, a device, a socket or a directory is never read (a
	 * symbolic link by path is its own entry, followed by the open). */
	if (!S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
		return SEGSCAN_ENOTREG;
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

int ss_io_sync_create(size_t size, unsigned depth, ss_io_sync_read_fn read, ss_io_sync_close_fn on_close,
		      struct ss_io_sync **out)
{
	struct ss_io_sync *s;
	int r;

	*out = NULL;
	if (depth == 0 || depth > SS_IO_MAX_DEPTH || size < sizeof(*s))
		return -EINVAL;
	s = calloc(1, size);   /* freed by ss_io_sync_destroy */
	if (!s)
		return -ENOMEM;
	r = ss_io_syncq_init(&s->done, depth);
	if (r < 0) {
		free(s);
		return r;
	}
	s->read = read;
	s->on_close = on_close;
	*out = s;
	return 0;
}

void ss_io_sync_destroy(struct ss_io_sync *s)
{
	if (!s)
		return;
	ss_io_sync_drop_done(&s->done);
	ss_io_syncq_fini(&s->done);
	free(s);
}

int ss_io_sync_submit(struct ss_io_engine *e, struct ss_io_req *req)
{
	struct ss_io_sync *s = (struct ss_io_sync *)e;
	int r = ss_io_check_req(req);

	if (r < 0)
		return r;
	if (ss_io_syncq_full(&s->done))
		return -EBUSY;
	switch (req->op) {
	case SS_IO_OPEN:
		req->res = ss_io_sync_open(req->dirfd, req->path, &s->noatime_eperm, &s->ctr);
		break;
	case SS_IO_STAT:
		req->res = ss_io_sync_stat(req, &req->st, &s->ctr);
		break;
	case SS_IO_READ:
		req->res = s->read(s, req);
		break;
	case SS_IO_CLOSE:
		if (s->on_close)
			s->on_close(s, req->fd);
		req->res = ss_io_sync_close(req->fd, &s->ctr);
		break;
	}
	s->ctr.submissions++;
	ss_io_syncq_push(&s->done, req);
	return 0;
}

int ss_io_sync_flush(struct ss_io_engine *e)
{
	return 0;
}

int ss_io_sync_reap(struct ss_io_engine *e, struct ss_io_req **out, unsigned max, unsigned wait_for)
{
	struct ss_io_sync *s = (struct ss_io_sync *)e;
	return (int)ss_io_syncq_pop(&s->done, out, max);
}

unsigned ss_io_sync_inflight(const struct ss_io_engine *e)
{
	return ((const struct ss_io_sync *)e)->done.n;
}

void ss_io_sync_counters(const struct ss_io_engine *e, struct ss_io_counters *c)
{
	*c = ((const struct ss_io_sync *)e)->ctr;
}
