/*
 * I/O engines: every result is checked against what the test itself wrote to the file
 * or reads back with plain pread/fstat, never against another engine. io_uring tests
 * skip when the kernel (or a seccomp filter) refuses io_uring_queue_init.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <liburing.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/engine.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: the test only needs varied bytes and offsets, reproducibly */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(rnd() >> 56);
}

struct dir {
	char *path;
	int   fd;
};

static void dir_open(struct dir *d)
{
	d->path = tu_mkdtemp("test_io");
	assert_non_null(d->path);
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(d->fd >= 0);
}

static void dir_close(struct dir *d)
{
	close(d->fd);
	tu_run(NULL, "rm -rf '%s'", d->path);
	free(d->path);
}

/* A file of n random bytes in d; returns its content (caller frees). */
static uint8_t *make_file(struct dir *d, const char *name, size_t n)
{
	uint8_t *data = malloc(n ? n : 1);
	char *p = NULL;
	assert_non_null(data);
	fill_random(data, n);
	assert_true(asprintf(&p, "%s/%s", d->path, name) > 0);
	assert_int_equal(tu_write_file(p, data, n), 0);
	free(p);
	return data;
}

static bool uring_works(unsigned depth)
{
	struct io_uring ring;
	if (io_uring_queue_init(depth, &ring, 0) < 0)
		return false;
	io_uring_queue_exit(&ring);
	return true;
}

/* Skip an io_uring test where the kernel refuses io_uring: called first, before the
 * test allocates anything (skip() jumps out of the test). */
static void need_engine(const struct ss_io_ops *ops)
{
	if (ops == &ss_io_uring_ops && !uring_works(4))
		skip();
}

/* The engine under test; io_uring skips when the kernel refuses it. */
static struct ss_io_engine *eng_new(const struct ss_io_ops *ops, unsigned depth)
{
	struct ss_io_engine *e = NULL;
	if (ops == &ss_io_uring_ops && !uring_works(depth))
		skip();
	assert_int_equal(ops->create(&e, depth), 0);
	assert_non_null(e);
	return e;
}

/* Submit one request and get it back. */
static void run1(const struct ss_io_ops *ops, struct ss_io_engine *e, struct ss_io_req *req)
{
	struct ss_io_req *out[2] = { NULL, NULL };
	assert_int_equal(ops->submit(e, req), 0);
	assert_int_equal(ops->flush(e), 0);
	assert_int_equal(ops->reap(e, out, 2, 1), 1);
	assert_ptr_equal(out[0], req);
	assert_int_equal(ops->inflight(e), 0);
}

static int eng_open(const struct ss_io_ops *ops, struct ss_io_engine *e, int dirfd, const char *path)
{
	struct ss_io_req r = { .op = SS_IO_OPEN, .dirfd = dirfd, .path = path, .fd = -1 };
	run1(ops, e, &r);
	return (int)r.res;
}

static int64_t eng_read(const struct ss_io_ops *ops, struct ss_io_engine *e, int fd, void *buf,
			size_t len, int64_t off)
{
	struct ss_io_req r = { .op = SS_IO_READ, .fd = fd, .buf = buf, .len = len, .off = off };
	run1(ops, e, &r);
	return r.res;
}

static int eng_close(const struct ss_io_ops *ops, struct ss_io_engine *e, int fd)
{
	struct ss_io_req r = { .op = SS_IO_CLOSE, .fd = fd };
	run1(ops, e, &r);
	return (int)r.res;
}

/* The reference read: plain pread until len or end of file. */
static int64_t ref_pread(int fd, void *buf, size_t len, int64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (int64_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int64_t)done;
}

static void assert_stat_eq(const struct ss_io_stat *st, const struct stat *sb)
{
	assert_int_equal(st->size, sb->st_size);
	assert_int_equal(st->dev, sb->st_dev);
	assert_int_equal(st->ino, sb->st_ino);
	assert_int_equal(st->mtime_ns, (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec);
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#define GUARD 0xA5
#define SLACK 64

/* ---- per-engine tests (state: the engine's ops) ------------------------------------- */

/* OPEN/STAT/READ/CLOSE on files of awkward sizes, every read compared with pread. */
static void test_sizes_and_offsets(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	static const size_t sizes[] = { 0, 1, 4095, 4096, (1u << 20) + 7 };
	struct ss_io_engine *e = eng_new(ops, 8);
	struct ss_io_counters c0, c1;
	uint64_t bytes = 0, subs = 0;
	struct dir d;

	dir_open(&d);
	ops->counters(e, &c0);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t size = sizes[si];
		char name[32];
		snprintf(name, sizeof(name), "f%zu", size);
		uint8_t *data = make_file(&d, name, size);
		int ref = openat(d.fd, name, O_RDONLY | O_CLOEXEC);
		assert_true(ref >= 0);

		int fd = eng_open(ops, e, d.fd, name);
		subs++;
		assert_true(fd >= 0);

		/* STAT by fd and by path, against the test's own fstat */
		struct stat sb;
		assert_int_equal(fstat(ref, &sb), 0);
		struct ss_io_req st = { .op = SS_IO_STAT, .fd = fd };
		run1(ops, e, &st);
		subs++;
		assert_int_equal(st.res, 0);
		assert_stat_eq(&st.st, &sb);
		struct ss_io_req sp = { .op = SS_IO_STAT, .dirfd = d.fd, .path = name, .fd = -1 };
		run1(ops, e, &sp);
		subs++;
		assert_int_equal(sp.res, 0);
		assert_stat_eq(&sp.st, &sb);
		/* by path, a final symlink is not followed */
		char lname[40];
		struct stat lsb;
		snprintf(lname, sizeof(lname), "l%zu", size);
		assert_int_equal(symlinkat(name, d.fd, lname), 0);
		assert_int_equal(fstatat(d.fd, lname, &lsb, AT_SYMLINK_NOFOLLOW), 0);
		struct ss_io_req sl = { .op = SS_IO_STAT, .dirfd = d.fd, .path = lname, .fd = -1 };
		run1(ops, e, &sl);
		subs++;
		assert_int_equal(sl.res, 0);
		assert_stat_eq(&sl.st, &lsb);
		assert_true(sl.st.ino != sb.st_ino);

		const int64_t offs[] = { 0, (int64_t)size / 2, size ? (int64_t)size - 1 : 0,
					 (int64_t)size, (int64_t)size + 1, (int64_t)size + 4096 };
		const size_t lens[] = { 0, 1, 7, 4096, 65536, size + 10 };
		size_t maxlen = size + 10 > 65536 ? size + 10 : 65536;
		uint8_t *a = malloc(maxlen + SLACK), *b = malloc(maxlen + SLACK);
		assert_non_null(a);
		assert_non_null(b);
		for (size_t oi = 0; oi < sizeof(offs) / sizeof(offs[0]); oi++) {
			for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
				int64_t off = offs[oi];
				size_t len = lens[li];
				memset(a, GUARD, maxlen + SLACK);
				int64_t got = eng_read(ops, e, fd, a, len, off);
				int64_t want = ref_pread(ref, b, len, off);
				subs++;
				assert_int_equal(got, want);
				/* and the reference agrees with what was written */
				int64_t exp = off >= (int64_t)size ? 0 :
					(int64_t)(size - (size_t)off < len ? size - (size_t)off : len);
				assert_int_equal(want, exp);
				assert_memory_equal(a, data + (off < (int64_t)size ? off : 0), (size_t)got);
				/* nothing written past the result */
				for (size_t i = (size_t)got; i < len + SLACK; i++)
					assert_int_equal(a[i], GUARD);
				bytes += (uint64_t)got;
			}
		}
		free(a);
		free(b);

		assert_int_equal(eng_close(ops, e, fd), 0);
		subs++;
		assert_false(fd_is_open(fd));
		close(ref);
		free(data);
	}
	ops->counters(e, &c1);
	assert_int_equal(c1.bytes_read - c0.bytes_read, bytes);
	assert_int_equal(c1.submissions - c0.submissions, subs);
	assert_true(c1.syscalls > c0.syscalls);
	ops->destroy(e);
	dir_close(&d);
}

struct meta {
	struct ss_io_req req;
	bool   busy;
	size_t id;
};

/*
 * Keep `depth` requests in flight (reads at random places, STATs by fd and by path),
 * reap them in small, uneven batches, match each completion to its request by udata.
 */
static void many_in_flight(const struct ss_io_ops *ops, unsigned depth, unsigned total)
{
	need_engine(ops);
	const size_t size = (1u << 20) + 7;
	struct ss_io_engine *e = eng_new(ops, depth);
	struct dir d;
	dir_open(&d);
	uint8_t *data = make_file(&d, "big", size);
	int fd = eng_open(ops, e, d.fd, "big");
	assert_true(fd >= 0);
	struct stat sb;
	assert_int_equal(fstatat(d.fd, "big", &sb, 0), 0);

	struct meta *m = calloc(depth, sizeof(*m));
	uint8_t *bufs = malloc((size_t)depth * 70000);
	struct ss_io_req **out = calloc(depth, sizeof(*out));
	assert_non_null(m);
	assert_non_null(bufs);
	assert_non_null(out);
	unsigned submitted = 0, completed = 0;
	bool saw_busy = false;

	while (completed < total) {
		/* fill every free slot */
		for (unsigned i = 0; i < depth && submitted < total; i++) {
			if (m[i].busy)
				continue;
			struct ss_io_req *r = &m[i].req;
			memset(r, 0, sizeof(*r));
			uint64_t k = rnd() % 20;
			if (k == 0) {
				r->op = SS_IO_STAT;
				r->fd = fd;
			} else if (k == 1) {
				r->op = SS_IO_STAT;
				r->dirfd = d.fd;
				r->path = "big";
			} else {
				r->op = SS_IO_READ;
				r->fd = fd;
				r->buf = bufs + (size_t)i * 70000;
				r->len = (size_t)(rnd() % 65537);
				r->off = (int64_t)(rnd() % (size + 100));
			}
			r->res = 12345;
			r->udata = &m[i];
			m[i].id = submitted;
			assert_int_equal(ops->submit(e, r), 0);
			m[i].busy = true;
			submitted++;
		}
		if (ops->inflight(e) == depth) {
			struct ss_io_req extra = { .op = SS_IO_STAT, .fd = fd };
			assert_int_equal(ops->submit(e, &extra), -EBUSY);
			saw_busy = true;
		}
		assert_int_equal(ops->flush(e), 0);
		unsigned max = 1 + (unsigned)(rnd() % 7);
		if (max > depth)
			max = depth;
		int n = ops->reap(e, out, max, 1 + (unsigned)(rnd() % 3));
		assert_true(n >= 1 && (unsigned)n <= max);
		for (int j = 0; j < n; j++) {
			struct meta *mm = out[j]->udata;
			assert_true(mm >= m && mm < m + depth);
			assert_ptr_equal(&mm->req, out[j]);
			assert_true(mm->busy);
			struct ss_io_req *r = out[j];
			if (r->op == SS_IO_STAT) {
				assert_int_equal(r->res, 0);
				assert_stat_eq(&r->st, &sb);
			} else {
				int64_t exp = r->off >= (int64_t)size ? 0 :
					(int64_t)(size - (size_t)r->off < r->len ? size - (size_t)r->off : r->len);
				assert_int_equal(r->res, exp);
				assert_memory_equal(r->buf, data + (r->off < (int64_t)size ? r->off : 0),
						    (size_t)exp);
			}
			mm->busy = false;
			completed++;
		}
	}
	assert_true(saw_busy);
	assert_int_equal(ops->inflight(e), 0);
	assert_int_equal(eng_close(ops, e, fd), 0);
	ops->destroy(e);
	free(m);
	free(bufs);
	free(out);
	free(data);
	dir_close(&d);
}

static void test_depth64(void **state)
{
	many_in_flight(*state, 64, 2000);
}

static void test_depth1(void **state)
{
	many_in_flight(*state, 1, 200);
}

/* Without flush, reap with wait_for = 0 until everything is back (the poll path). */
static void test_reap_polling(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	struct ss_io_engine *e = eng_new(ops, 16);
	struct dir d;
	dir_open(&d);
	uint8_t *data = make_file(&d, "p", 100000);
	int fd = eng_open(ops, e, d.fd, "p");
	assert_true(fd >= 0);
	struct ss_io_req r[16];
	uint8_t *buf = malloc(16 * 4096);
	assert_non_null(buf);
	for (int i = 0; i < 16; i++) {
		r[i] = (struct ss_io_req){ .op = SS_IO_READ, .fd = fd, .buf = buf + i * 4096,
					   .len = 4096, .off = i * 5000, .udata = &r[i] };
		assert_int_equal(ops->submit(e, &r[i]), 0);
	}
	assert_int_equal(ops->inflight(e), 16);
	unsigned got = 0;
	struct ss_io_req *out[16];
	time_t t0 = time(NULL);
	while (got < 16) {
		int n = ops->reap(e, out, 16, 0);
		assert_true(n >= 0);
		for (int j = 0; j < n; j++) {
			struct ss_io_req *q = out[j];
			assert_ptr_equal(q->udata, q);
			assert_int_equal(q->res, 4096);
			assert_memory_equal(q->buf, data + q->off, 4096);
		}
		got += (unsigned)n;
		/* a hang guard for the busy loop: 16 reads of a page are microseconds */
		assert_true(time(NULL) - t0 < tu_guard_s(120));
	}
	assert_int_equal(ops->inflight(e), 0);
	/* nothing in flight: a waiting reap returns at once */
	assert_int_equal(ops->reap(e, out, 16, 16), 0);
	assert_int_equal(eng_close(ops, e, fd), 0);
	ops->destroy(e);
	free(buf);
	free(data);
	dir_close(&d);
}

static void test_errors(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	struct ss_io_engine *e = eng_new(ops, 4);
	struct dir d;
	char buf[64];
	dir_open(&d);

	assert_int_equal(eng_open(ops, e, d.fd, "missing.log"), -ENOENT);

	int closed = dup(d.fd);
	assert_true(closed >= 0);
	close(closed);
	assert_int_equal(eng_read(ops, e, closed, buf, sizeof(buf), 0), -EBADF);
	assert_int_equal(eng_read(ops, e, -1, buf, sizeof(buf), 0), -EBADF);

	struct ss_io_req st = { .op = SS_IO_STAT, .fd = closed };
	run1(ops, e, &st);
	assert_int_equal(st.res, -EBADF);
	struct ss_io_req sp = { .op = SS_IO_STAT, .dirfd = d.fd, .path = "missing.log" };
	run1(ops, e, &sp);
	assert_int_equal(sp.res, -ENOENT);
	assert_int_equal(eng_close(ops, e, closed), -EBADF);

	/* malformed requests are refused by submit and never queued */
	struct ss_io_req bad = { .op = SS_IO_READ, .fd = d.fd, .buf = buf, .len = 8, .off = -1 };
	assert_int_equal(ops->submit(e, &bad), -EINVAL);
	bad = (struct ss_io_req){ .op = SS_IO_READ, .fd = d.fd, .buf = buf, .len = 16,
				  .off = INT64_MAX - 8 };
	assert_int_equal(ops->submit(e, &bad), -EINVAL);
	bad = (struct ss_io_req){ .op = SS_IO_READ, .fd = d.fd, .buf = NULL, .len = 8 };
	assert_int_equal(ops->submit(e, &bad), -EINVAL);
	bad = (struct ss_io_req){ .op = SS_IO_OPEN, .dirfd = d.fd, .path = NULL };
	assert_int_equal(ops->submit(e, &bad), -EINVAL);
	bad = (struct ss_io_req){ .op = (enum ss_io_op)42 };
	assert_int_equal(ops->submit(e, &bad), -EINVAL);
	assert_int_equal(ops->inflight(e), 0);

	/* a bad depth */
	struct ss_io_engine *x = NULL;
	assert_int_equal(ops->create(&x, 0), -EINVAL);
	assert_null(x);
	assert_int_equal(ops->create(&x, SS_IO_MAX_DEPTH + 1), -EINVAL);
	assert_null(x);

	ops->destroy(e);
	dir_close(&d);
}

/* Kafka truncates a segment while we hold it open (mmap: after it is mapped). */
static void test_truncated_after_open(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	const size_t size = 256 * 1024;
	struct ss_io_engine *e = eng_new(ops, 4);
	struct dir d;
	dir_open(&d);
	uint8_t *data = make_file(&d, "t", size);
	uint8_t *buf = malloc(size + SLACK);
	assert_non_null(buf);
	int fd = eng_open(ops, e, d.fd, "t");
	assert_true(fd >= 0);
	int wfd = openat(d.fd, "t", O_WRONLY | O_CLOEXEC);
	assert_true(wfd >= 0);

	/* the first read maps the whole file for mmap */
	assert_int_equal(eng_read(ops, e, fd, buf, 16, 0), 16);

	/* shrink to an odd size: the tail page is partly past EOF */
	const size_t small = 5000;
	assert_int_equal(ftruncate(wfd, (off_t)small), 0);
	struct ss_io_counters c0, c1;
	ops->counters(e, &c0);
	memset(buf, GUARD, size + SLACK);
	assert_int_equal(eng_read(ops, e, fd, buf, size, 0), (int64_t)small);
	ops->counters(e, &c1);
	assert_memory_equal(buf, data, small);
	if (ops != &ss_io_mmap_ops) {
		for (size_t i = small; i < size + SLACK; i++)
			assert_int_equal(buf[i], GUARD);
	} else {
		/* (mmap copied the zeros of the new last page before it could know; past
		 * the result the buffer is unspecified, engine.h) */
		/* The read lay inside the mapping, so no size check came first: the copy hit
		 * SIGBUS, then munmap + fstat to clamp. Anything else means the fault path
		 * was not exercised. */
		assert_int_equal(c1.syscalls - c0.syscalls, 2);
	}

	/* wholly past the new end */
	assert_int_equal(eng_read(ops, e, fd, buf, 4096, 65536), 0);
	/* mmap again, then shrink to nothing: the first page faults */
	assert_int_equal(eng_read(ops, e, fd, buf, 16, 0), 16);
	assert_int_equal(ftruncate(wfd, 0), 0);
	assert_int_equal(eng_read(ops, e, fd, buf, size, 0), 0);
	/* regrow: the engine sees the new content */
	uint8_t fresh[3000];
	fill_random(fresh, sizeof(fresh));
	assert_int_equal(pwrite(wfd, fresh, sizeof(fresh), 0), (ssize_t)sizeof(fresh));
	assert_int_equal(eng_read(ops, e, fd, buf, size, 0), (int64_t)sizeof(fresh));
	assert_memory_equal(buf, fresh, sizeof(fresh));

	close(wfd);
	assert_int_equal(eng_close(ops, e, fd), 0);
	ops->destroy(e);
	free(buf);
	free(data);
	dir_close(&d);
}

/* The active segment grows while we hold it open (mmap: after it is mapped). */
static void test_appended_after_open(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	struct ss_io_engine *e = eng_new(ops, 4);
	struct dir d;
	dir_open(&d);
	uint8_t *data = make_file(&d, "a", 10000);
	uint8_t more[50000];
	uint8_t *buf = malloc(100000);
	assert_non_null(buf);
	fill_random(more, sizeof(more));
	int fd = eng_open(ops, e, d.fd, "a");
	assert_true(fd >= 0);
	assert_int_equal(eng_read(ops, e, fd, buf, 100000, 0), 10000);
	assert_memory_equal(buf, data, 10000);

	int wfd = openat(d.fd, "a", O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(wfd >= 0);
	assert_int_equal(write(wfd, more, sizeof(more)), (ssize_t)sizeof(more));
	close(wfd);

	assert_int_equal(eng_read(ops, e, fd, buf, 100000, 0), 60000);
	assert_memory_equal(buf, data, 10000);
	assert_memory_equal(buf + 10000, more, sizeof(more));
	assert_int_equal(eng_read(ops, e, fd, buf, 100000, 10000), 50000);
	assert_memory_equal(buf, more, sizeof(more));
	struct ss_io_req st = { .op = SS_IO_STAT, .fd = fd };
	run1(ops, e, &st);
	assert_int_equal(st.st.size, 60000);

	assert_int_equal(eng_close(ops, e, fd), 0);
	ops->destroy(e);
	free(buf);
	free(data);
	dir_close(&d);
}

/*
 * O_NOATIME is refused (EPERM) on a file we do not own; OPEN must retry without it and
 * succeed. As root (CAP_FOWNER) nothing is refused, so a child drops to nobody.
 */
static int noatime_child(const struct ss_io_ops *ops, int dirfd, const char *name,
			 const uint8_t *data, size_t n)
{
	struct ss_io_engine *e = NULL;
	struct ss_io_req *out[1];
	uint8_t buf[256];

	if (ops->create(&e, 4) < 0)
		return 10;
	for (int round = 0; round < 2; round++) {
		struct ss_io_req o = { .op = SS_IO_OPEN, .dirfd = dirfd, .path = name };
		struct ss_io_counters c0, c1;
		ops->counters(e, &c0);
		if (ops->submit(e, &o) || ops->flush(e) || ops->reap(e, out, 1, 1) != 1)
			return 11;
		if (o.res < 0)
			return 12;
		ops->counters(e, &c1);
		/* the synchronous engines show the refused attempt, then remember it */
		if (ops != &ss_io_uring_ops && c1.syscalls - c0.syscalls != (round ? 1u : 2u))
			return 15;
		struct ss_io_req r = { .op = SS_IO_READ, .fd = (int)o.res, .buf = buf, .len = sizeof(buf) };
		if (ops->submit(e, &r) || ops->flush(e) || ops->reap(e, out, 1, 1) != 1)
			return 13;
		if (r.res != (int64_t)n || memcmp(buf, data, n))
			return 14;
		close((int)o.res);
	}
	ops->destroy(e);
	return 0;
}

static void test_noatime_eperm(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	struct dir d;
	uint8_t *data;
	int st;

	dir_open(&d);
	data = make_file(&d, "owned", 100);
	if (geteuid() != 0) {
		/* not root: any root-owned file will refuse O_NOATIME to us */
		struct stat sb;
		if (stat("/etc/passwd", &sb) || sb.st_uid == geteuid())
			skip();
	}
	/* open to the child's uid: the temp dir is 0700 */
	assert_int_equal(chmod(d.path, 0755), 0);
	assert_int_equal(fchmodat(d.fd, "owned", 0644, 0), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0) {
			if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			    setresuid(65534, 65534, 65534))
				_exit(9);
			_exit(noatime_child(ops, d.fd, "owned", data, 100));
		}
		int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
		uint8_t ref[100];
		ssize_t n = fd >= 0 ? pread(fd, ref, sizeof(ref), 0) : -1;
		if (n <= 0)
			_exit(8);
		_exit(noatime_child(ops, AT_FDCWD, "/etc/passwd", ref, (size_t)n));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	free(data);
	dir_close(&d);
}

/* destroy() with requests in flight or unreaped: no fd leaks, no late writes. */
static void test_destroy_in_flight(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	struct dir d;
	dir_open(&d);
	uint8_t *data = make_file(&d, "x", 300000);
	int fd = openat(d.fd, "x", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	int before = count_fds();   /* before the engine: io_uring's ring is a fd too */
	struct ss_io_engine *e = eng_new(ops, 32);
	struct ss_io_req r[32];
	uint8_t *buf = malloc(32 * 8192);
	assert_non_null(buf);
	for (int i = 0; i < 32; i++) {
		if (i % 2)
			r[i] = (struct ss_io_req){ .op = SS_IO_OPEN, .dirfd = d.fd, .path = "x" };
		else
			r[i] = (struct ss_io_req){ .op = SS_IO_READ, .fd = fd, .buf = buf + i * 8192,
						   .len = 8192, .off = i * 8192 };
		assert_int_equal(ops->submit(e, &r[i]), 0);
	}
	assert_int_equal(ops->flush(e), 0);
	ops->destroy(e);
	assert_int_equal(count_fds(), before);
	close(fd);
	free(buf);
	free(data);
	dir_close(&d);
}

/*
 * io_uring may return a short read that is not end of file; the engine must ask for
 * the rest. Regular files in the page cache never do, a pipe does: it returns what it
 * holds (io_uring ignores the offset of a stream).
 */
static void test_uring_short_read(void **state)
{
	const struct ss_io_ops *ops = &ss_io_uring_ops;
	struct ss_io_engine *e = eng_new(ops, 4);
	uint8_t want[300], got[300 + SLACK];
	struct ss_io_req *out[1];
	int p[2];

	fill_random(want, sizeof(want));
	memset(got, GUARD, sizeof(got));
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], want, 100), 100);
	struct ss_io_req r = { .op = SS_IO_READ, .fd = p[0], .buf = got, .len = 300 };
	assert_int_equal(ops->submit(e, &r), 0);
	assert_int_equal(ops->flush(e), 0);
	/* 100 of 300 bytes arrived: not finished, whatever the kernel said */
	for (int i = 0; i < 20; i++) {
		assert_int_equal(ops->reap(e, out, 1, 0), 0);
		usleep(1000);
	}
	assert_int_equal(ops->inflight(e), 1);
	assert_int_equal(write(p[1], want + 100, 200), 200);
	assert_int_equal(ops->reap(e, out, 1, 1), 1);
	assert_ptr_equal(out[0], &r);
	assert_int_equal(r.res, 300);
	assert_memory_equal(got, want, 300);
	assert_int_equal(got[300], GUARD);
	/* a writer gone is end of file: a short read, finished */
	r = (struct ss_io_req){ .op = SS_IO_READ, .fd = p[0], .buf = got, .len = 300 };
	assert_int_equal(write(p[1], want, 50), 50);
	close(p[1]);
	run1(ops, e, &r);
	assert_int_equal(r.res, 50);
	assert_memory_equal(got, want, 50);
	close(p[0]);
	ops->destroy(e);
}

/* ---- engine selection --------------------------------------------------------------- */

static void test_find(void **state)
{
	assert_ptr_equal(ss_io_find("uring"), &ss_io_uring_ops);
	assert_ptr_equal(ss_io_find("mmap"), &ss_io_mmap_ops);
	assert_ptr_equal(ss_io_find("pread"), &ss_io_pread_ops);
	assert_null(ss_io_find("aio"));
	assert_null(ss_io_find(""));
	assert_null(ss_io_find(NULL));
	assert_string_equal(ss_io_uring_ops.name, "uring");
	assert_string_equal(ss_io_mmap_ops.name, "mmap");
	assert_string_equal(ss_io_pread_ops.name, "pread");

	const struct ss_io_ops *ops = (const void *)1;
	struct ss_io_engine *e = (void *)1;
	bool fb = true;
	char why[8] = "junk";
	assert_int_equal(ss_io_create("aio", 8, &ops, &e, &fb, why, sizeof(why)), -EINVAL);
	assert_null(e);
	assert_false(fb);
	e = (void *)1;
	assert_int_equal(ss_io_create("uring", 0, &ops, &e, &fb, why, sizeof(why)), -EINVAL);
	assert_null(e);
	assert_false(fb);

	assert_int_equal(ss_io_create("mmap", 8, &ops, &e, &fb, NULL, 0), 0);
	assert_ptr_equal(ops, &ss_io_mmap_ops);
	assert_false(fb);
	ops->destroy(e);
	assert_int_equal(ss_io_create("pread", 8, &ops, &e, NULL, NULL, 0), 0);
	assert_ptr_equal(ops, &ss_io_pread_ops);
	ops->destroy(e);
}

static void test_fallback(void **state)
{
	const struct ss_io_ops *ops = NULL;
	struct ss_io_engine *e = NULL;
	bool fb = false;
	char why[256];
	struct dir d;

	assert_int_equal(setenv("SEGSCAN_FORCE_URING_FAIL", "1", 1), 0);
	struct ss_io_engine *direct = NULL;
	int r = ss_io_uring_ops.create(&direct, 8);
	assert_int_equal(r, -EPERM);
	assert_null(direct);
	r = ss_io_create("uring", 8, &ops, &e, &fb, why, sizeof(why));
	unsetenv("SEGSCAN_FORCE_URING_FAIL");
	assert_int_equal(r, 0);
	assert_ptr_equal(ops, &ss_io_pread_ops);
	assert_true(fb);
	assert_non_null(strstr(why, "io_uring unavailable ("));
	assert_non_null(strstr(why, strerror(EPERM)));
	assert_non_null(strstr(why, "); using pread"));
	assert_null(strchr(why, '\n'));

	/* and it is a working engine */
	dir_open(&d);
	uint8_t *data = make_file(&d, "f", 1000);
	uint8_t buf[1000];
	int fd = eng_open(ops, e, d.fd, "f");
	assert_true(fd >= 0);
	assert_int_equal(eng_read(ops, e, fd, buf, sizeof(buf), 0), 1000);
	assert_memory_equal(buf, data, 1000);
	assert_int_equal(eng_close(ops, e, fd), 0);
	ops->destroy(e);
	free(data);
	dir_close(&d);

	/* a tiny reason buffer is truncated, not overrun */
	char tiny[8];
	assert_int_equal(setenv("SEGSCAN_FORCE_URING_FAIL", "1", 1), 0);
	r = ss_io_create("uring", 8, &ops, &e, &fb, tiny, sizeof(tiny));
	unsetenv("SEGSCAN_FORCE_URING_FAIL");
	assert_int_equal(r, 0);
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
	ops->destroy(e);

	/* nothing forced: io_uring where it works, else a real fallback with a reason */
	r = ss_io_create("uring", 8, &ops, &e, &fb, why, sizeof(why));
	assert_int_equal(r, 0);
	if (uring_works(8)) {
		assert_ptr_equal(ops, &ss_io_uring_ops);
		assert_false(fb);
		assert_string_equal(why, "");
	} else {
		assert_ptr_equal(ops, &ss_io_pread_ops);
		assert_true(fb);
		assert_non_null(strstr(why, "io_uring unavailable ("));
		assert_null(strstr(why, "SEGSCAN_FORCE_URING_FAIL"));
		print_message("%s\n", why);
	}
	ops->destroy(e);
}

/* A batch of 32 reads: io_uring enters the kernel fewer times than it has requests;
 * pread makes at least one call per request. */
static void test_syscalls_batch(void **state)
{
	const struct ss_io_ops *ops = *state;
	need_engine(ops);
	struct ss_io_engine *e = eng_new(ops, 32);
	struct dir d;
	dir_open(&d);
	uint8_t *data = make_file(&d, "b", 32 * 4096);
	int fd = eng_open(ops, e, d.fd, "b");
	assert_true(fd >= 0);
	uint8_t *buf = malloc(32 * 4096);
	assert_non_null(buf);
	struct ss_io_req r[32], *out[32];
	struct ss_io_counters c0, c1;

	/* the first request may pay one-time costs (enabling the ring) */
	ops->counters(e, &c0);
	for (int i = 0; i < 32; i++) {
		r[i] = (struct ss_io_req){ .op = SS_IO_READ, .fd = fd, .buf = buf + i * 4096,
					   .len = 4096, .off = i * 4096 };
		assert_int_equal(ops->submit(e, &r[i]), 0);
	}
	assert_int_equal(ops->flush(e), 0);
	unsigned got = 0;
	while (got < 32) {
		int n = ops->reap(e, out, 32, 32 - got);
		assert_true(n > 0);
		got += (unsigned)n;
	}
	ops->counters(e, &c1);
	assert_memory_equal(buf, data, 32 * 4096);
	uint64_t subs = c1.submissions - c0.submissions, sys = c1.syscalls - c0.syscalls;
	assert_int_equal(subs, 32);
	assert_int_equal(c1.bytes_read - c0.bytes_read, 32 * 4096);
	print_message("%s: %llu syscalls for %llu submissions\n", ops->name,
		      (unsigned long long)sys, (unsigned long long)subs);
	if (ops == &ss_io_uring_ops)
		assert_true(sys < subs);
	else if (ops == &ss_io_pread_ops)
		assert_true(sys >= subs);
	assert_int_equal(eng_close(ops, e, fd), 0);
	ops->destroy(e);
	free(buf);
	free(data);
	dir_close(&d);
}

/* ---- mmap: SIGBUS handling ---------------------------------------------------------- */

static sigjmp_buf foreign_jb;
static volatile sig_atomic_t foreign_hits;

static void foreign_handler(int sig, siginfo_t *si, void *uc)
{
	foreign_hits++;
	siglongjmp(foreign_jb, 1);
}

/* A SIGBUS that is not the engine's goes on to the handler installed before it. */
static void test_mmap_sigbus_chains(void **state)
{
	struct sigaction mine, saved;
	struct dir d;

	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = foreign_handler;
	mine.sa_flags = SA_SIGINFO;
	sigemptyset(&mine.sa_mask);
	assert_int_equal(sigaction(SIGBUS, &mine, &saved), 0);

	struct ss_io_engine *e = NULL;
	assert_int_equal(ss_io_mmap_ops.create(&e, 4), 0);
	struct sigaction now;
	assert_int_equal(sigaction(SIGBUS, NULL, &now), 0);
	assert_true(now.sa_sigaction != foreign_handler);  /* the engine's is in front */

	dir_open(&d);
	free(make_file(&d, "m", 3 * 4096));
	int fd = openat(d.fd, "m", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	volatile char *p = mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(ftruncate(fd, 0), 0);
	foreign_hits = 0;
	volatile char c = 0;
	if (sigsetjmp(foreign_jb, 1) == 0)
		c = p[8192];   /* faults outside any engine copy */
	(void)c;
	assert_int_equal(foreign_hits, 1);

	/* and the engine still catches its own */
	assert_int_equal(ftruncate(fd, 3 * 4096), 0);
	uint8_t buf[3 * 4096];
	int efd = eng_open(&ss_io_mmap_ops, e, d.fd, "m");
	assert_true(efd >= 0);
	assert_int_equal(eng_read(&ss_io_mmap_ops, e, efd, buf, 1, 0), 1);
	assert_int_equal(ftruncate(fd, 100), 0);
	assert_int_equal(eng_read(&ss_io_mmap_ops, e, efd, buf, sizeof(buf), 0), 100);
	assert_int_equal(foreign_hits, 1);
	assert_int_equal(eng_close(&ss_io_mmap_ops, e, efd), 0);

	munmap((void *)p, 3 * 4096);
	close(fd);
	ss_io_mmap_ops.destroy(e);
	assert_int_equal(sigaction(SIGBUS, &saved, NULL), 0);
	dir_close(&d);
}

/*
 * Two threads, each with its own mmap engine and file, shrink their file under the
 * mapping again and again: every fault is caught by the thread that took it. Beside
 * each, a truncator thread shrinks and regrows a second file while its worker reads
 * it: results stay in bounds and hold the file's bytes or the zeros of a regrow.
 * (Run under TSan too.) Failures are counted, not asserted, off the main thread.
 */
#define RACE_SIZE (64 * 4096)

static uint8_t pat(size_t off)
{
	return (uint8_t)(1 + (off * 2654435761u >> 11) % 255);   /* never 0 */
}

struct race {
	struct dir     *d;
	int             id;
	atomic_int      stop;
	int             fails;
	char            why[128];
	uint64_t        seed;
};

static void race_fail(struct race *r, const char *fmt, ...)
{
	if (r->fails++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
	}
}

static int write_pattern(int fd, size_t n)
{
	uint8_t *b = malloc(n);
	if (!b)
		return -1;
	for (size_t i = 0; i < n; i++)
		b[i] = pat(i);
	ssize_t w = pwrite(fd, b, n, 0);
	free(b);
	return w == (ssize_t)n ? 0 : -1;
}

static void *truncator(void *arg)
{
	struct race *r = arg;
	char name[32];
	snprintf(name, sizeof(name), "shared%d", r->id);
	int fd = openat(r->d->fd, name, O_WRONLY | O_CLOEXEC);
	uint64_t s = r->seed | 1;
	if (fd < 0)
		return NULL;
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		if (ftruncate(fd, (off_t)(s % RACE_SIZE)) || write_pattern(fd, RACE_SIZE))
			break;
	}
	close(fd);
	return NULL;
}

static void *race_worker(void *arg)
{
	struct race *r = arg;
	const struct ss_io_ops *ops = &ss_io_mmap_ops;
	struct ss_io_engine *e = NULL;
	struct ss_io_req *out[1];
	uint8_t *buf = malloc(RACE_SIZE);
	char own[32], shared[32];
	uint64_t s = r->seed;

	snprintf(own, sizeof(own), "own%d", r->id);
	snprintf(shared, sizeof(shared), "shared%d", r->id);
	if (!buf || ops->create(&e, 2) < 0) {
		race_fail(r, "setup");
		free(buf);
		return NULL;
	}
	int wfd = openat(r->d->fd, own, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	struct ss_io_req o = { .op = SS_IO_OPEN, .dirfd = r->d->fd, .path = own };
	struct ss_io_req os = { .op = SS_IO_OPEN, .dirfd = r->d->fd, .path = shared };
	if (wfd < 0 || ops->submit(e, &o) || ops->reap(e, out, 1, 1) != 1 || o.res < 0 ||
	    ops->submit(e, &os) || ops->reap(e, out, 1, 1) != 1 || os.res < 0) {
		race_fail(r, "open");
		goto out;
	}
	for (int it = 0; it < 300; it++) {
		/* own file: full size, map it, shrink, read: exactly the new size */
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		/* Leave at least one whole page past the new end inside the read: a shrink
		 * within the read's last page faults nowhere and reads zeros (mmap.c). */
		size_t small = (size_t)(s % (RACE_SIZE - 4096 + 1));
		if (ftruncate(wfd, 0) || write_pattern(wfd, RACE_SIZE)) {
			race_fail(r, "rewrite");
			break;
		}
		struct ss_io_req q = { .op = SS_IO_READ, .fd = (int)o.res, .buf = buf, .len = 1 };
		if (ops->submit(e, &q) || ops->reap(e, out, 1, 1) != 1 || q.res != 1) {
			race_fail(r, "map read %lld", (long long)q.res);
			break;
		}
		if (ftruncate(wfd, (off_t)small)) {
			race_fail(r, "shrink");
			break;
		}
		q = (struct ss_io_req){ .op = SS_IO_READ, .fd = (int)o.res, .buf = buf, .len = RACE_SIZE };
		if (ops->submit(e, &q) || ops->reap(e, out, 1, 1) != 1 || q.res != (int64_t)small) {
			race_fail(r, "own read %lld, want %zu", (long long)q.res, small);
			break;
		}
		for (size_t i = 0; i < small; i++)
			if (buf[i] != pat(i)) {
				race_fail(r, "own byte %zu", i);
				break;
			}

		/* shared file: racing a truncator */
		size_t off = (size_t)((s >> 20) % RACE_SIZE);
		q = (struct ss_io_req){ .op = SS_IO_READ, .fd = (int)os.res, .buf = buf,
					.len = RACE_SIZE - off, .off = (int64_t)off };
		if (ops->submit(e, &q) || ops->reap(e, out, 1, 1) != 1 || q.res < 0 ||
		    q.res > (int64_t)(RACE_SIZE - off)) {
			race_fail(r, "shared read %lld", (long long)q.res);
			break;
		}
		for (int64_t i = 0; i < q.res; i++)
			if (buf[i] != 0 && buf[i] != pat(off + (size_t)i)) {
				race_fail(r, "shared byte %lld", (long long)i);
				break;
			}
	}
	struct ss_io_req c1 = { .op = SS_IO_CLOSE, .fd = (int)o.res };
	struct ss_io_req c2 = { .op = SS_IO_CLOSE, .fd = (int)os.res };
	if (ops->submit(e, &c1) || ops->submit(e, &c2) || ops->reap(e, out, 1, 1) != 1 ||
	    ops->reap(e, out, 1, 1) != 1 || c1.res || c2.res)
		race_fail(r, "close");
out:
	if (wfd >= 0)
		close(wfd);
	ops->destroy(e);
	free(buf);
	return NULL;
}

static void test_mmap_truncation_race(void **state)
{
	struct dir d;
	struct race r[2];
	pthread_t w[2], t[2];

	dir_open(&d);
	for (int i = 0; i < 2; i++) {
		char name[32];
		snprintf(name, sizeof(name), "shared%d", i);
		int fd = openat(d.fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write_pattern(fd, RACE_SIZE), 0);
		close(fd);
		memset(&r[i], 0, sizeof(r[i]));
		r[i].d = &d;
		r[i].id = i;
		r[i].seed = rnd() | 1;
		atomic_init(&r[i].stop, 0);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_create(&t[i], NULL, truncator, &r[i]), 0);
		assert_int_equal(pthread_create(&w[i], NULL, race_worker, &r[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(w[i], NULL);
		atomic_store_explicit(&r[i].stop, 1, memory_order_relaxed);
		pthread_join(t[i], NULL);
	}
	for (int i = 0; i < 2; i++) {
		if (r[i].fails)
			print_error("worker %d: %d failures, first: %s\n", i, r[i].fails, r[i].why);
		assert_int_equal(r[i].fails, 0);
	}
	dir_close(&d);
}

/* ---- main --------------------------------------------------------------------------- */

/* One test per engine, named after it (run.sh counts failures by name). */
#define PER_ENGINE(f)                                                   \
	{ #f "/pread", f, NULL, NULL, (void *)&ss_io_pread_ops },       \
	{ #f "/mmap", f, NULL, NULL, (void *)&ss_io_mmap_ops },         \
	{ #f "/uring", f, NULL, NULL, (void *)&ss_io_uring_ops }

int main(void)
{
	const char *seed = getenv("SS_TEST_SEED");
	rng_state = seed ? strtoull(seed, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	if (!rng_state)
		rng_state = 1;
	printf("test_io: SS_TEST_SEED=%llu\n", (unsigned long long)rng_state);
	/* the tests decide when io_uring is forced to fail */
	unsetenv("SEGSCAN_FORCE_URING_FAIL");

	const struct CMUnitTest tests[] = {
		PER_ENGINE(test_sizes_and_offsets),
		PER_ENGINE(test_depth64),
		PER_ENGINE(test_depth1),
		PER_ENGINE(test_reap_polling),
		PER_ENGINE(test_errors),
		PER_ENGINE(test_truncated_after_open),
		PER_ENGINE(test_appended_after_open),
		PER_ENGINE(test_noatime_eperm),
		PER_ENGINE(test_destroy_in_flight),
		PER_ENGINE(test_syscalls_batch),
		cmocka_unit_test(test_uring_short_read),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_mmap_sigbus_chains),
		cmocka_unit_test(test_mmap_truncation_race),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
