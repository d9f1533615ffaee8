/*
 * The one .log batch reader (source/logread.h): every verdict on where a file's data ends
 * (the end, a limit, zeros written or sparse, a torn header or batch, a corrupt header with
 * and without zeros before data, a batch too large, a file that shrank between the header
 * and the body, a read error), in pread and in mapped mode, and a mapping whose file
 * shrinks under a guarded walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gen/encode.h"
#include "segscan.h"
#include "source/logread.h"
#include "testutil.h"

static char *g_dir;

static int setup(void **state)
{
	g_dir = tu_mkdtemp("logrd");
	return g_dir ? 0 : -1;
}

static int teardown(void **state)
{
	char *out = NULL;
	tu_run(&out, "rm -rf %s", g_dir);
	free(out);
	free(g_dir);
	return 0;
}

struct buf {
	uint8_t *p;
	size_t   n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->n + n + 1);
	assert_non_null(b->p);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void zeros(struct buf *b, size_t n)
{
	uint8_t *z = calloc(1, n + 1);
	assert_non_null(z);
	put(b, z, n);
	free(z);
}

/* One batch of n records of `vlen`-byte values at base. */
static size_t add_batch(struct buf *b, int64_t base, int n, size_t vlen)
{
	struct ss_enc e;
	uint8_t *v = malloc(vlen + 1);
	assert_non_null(v);
	memset(v, 'v', vlen);
	ss_enc_init(&e);
	ss_enc_begin(&e, &(struct ss_enc_batch){ .base_offset = base, .leader_epoch = 1, .producer_id = -1,
						  .producer_epoch = -1, .base_sequence = -1 });
	for (int i = 0; i < n; i++)
		assert_int_equal(ss_enc_append(&e, &(struct ss_enc_record){ .timestamp = 1000 + i, .offset_delta = i,
									    .key_len = -1, .value = v,
									    .value_len = (int32_t)vlen }),
				 0);
	const uint8_t *out;
	size_t len;
	assert_int_equal(ss_enc_finish(&e, &out, &len), 0);
	put(b, out, len);
	ss_enc_free(&e);
	free(v);
	return len;
}

static char *write_file(const char *name, const struct buf *b)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", g_dir, name) > 0);
	assert_int_equal(tu_write_file(p, b->p ? (const void *)b->p : "", b->n), 0);
	return p;
}

struct walk {
	int             fd;
	struct ss_logrd r;
	int             batches;
	int64_t         last;       /* last offset of the last batch read whole */
};

/* Every batch of the file read whole, then the verdict in w->r. */
static void walk(struct walk *w, const char *path, const struct ss_logrd_opts *o)
{
	struct stat st;
	memset(w, 0, sizeof(*w));
	w->fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(w->fd >= 0);
	assert_int_equal(fstat(w->fd, &st), 0);
	assert_int_equal(ss_logrd_open(&w->r, w->fd, st.st_size, o), 0);
	struct ss_lr_batch b;
	int rc;
	w->last = -1;
	while ((rc = ss_logrd_next(&w->r, &b)) > 0) {
		assert_int_equal(ss_logrd_body(&w->r, &b), 0);
		if (!b.data)
			break;
		assert_int_equal(ss_batch_verify(b.data, &b.h), 0);
		w->batches++;
		w->last = b.h.last_offset;
	}
	assert_true(rc >= 0);
	assert_int_equal(ss_logrd_next(&w->r, &b), 0);   /* a stop is final */
}

static void done(struct walk *w)
{
	ss_logrd_close(&w->r);
	close(w->fd);
}

/* One verdict for a file of two batches followed by `tail`, in pread and mapped mode. */
static void expect(const char *name, const struct buf *tail, enum ss_lr_stop want, int64_t left)
{
	struct buf b = { 0 };
	size_t a = add_batch(&b, 0, 3, 100);
	a += add_batch(&b, 3, 2, 50);
	if (tail)
		put(&b, tail->p, tail->n);
	char *p = write_file(name, &b);
	for (int map = 0; map < 2; map++) {
		struct walk w;
		walk(&w, p, &(struct ss_logrd_opts){ .map = map, .chunk = 4096 });
		if (w.r.stop != want)
			fail_msg("%s (map %d): stop %d, want %d", name, map, w.r.stop, want);
		assert_int_equal(w.batches, 2);
		assert_int_equal(w.last, 4);
		assert_int_equal(w.r.at, (int64_t)a);
		if (left >= 0)
			assert_int_equal(w.r.left, left);
		done(&w);
	}
	free(p);
	free(b.p);
}

static void test_verdicts(void **state)
{
	struct buf t = { 0 };
	expect("end", NULL, SS_LR_END, -1);
	zeros(&t, 10);
	expect("zeros10", &t, SS_LR_ZEROS, 10);          /* fewer than 17 bytes, all zero */
	zeros(&t, 70000);
	expect("zeros", &t, SS_LR_ZEROS, 70010);
	free(t.p);
	t = (struct buf){ 0 };
	put(&t, "\x01\x02\x03", 3);
	expect("torn3", &t, SS_LR_TORN_HEADER, 3);
	free(t.p);
	/* a v2 header needs 61 bytes: 40 of them are torn */
	t = (struct buf){ 0 };
	uint8_t h40[40] = { [11] = 100, [16] = 2, [20] = 7 };
	put(&t, h40, sizeof(h40));
	expect("torn40", &t, SS_LR_TORN_HEADER, 40);
	free(t.p);
	/* a whole header that claims more than is left */
	t = (struct buf){ 0 };
	struct buf one = { 0 };
	add_batch(&one, 5, 1, 10);
	put(&t, one.p, one.n - 5);
	expect("tornbatch", &t, SS_LR_TORN_BATCH, (int64_t)one.n - 5);
	free(t.p);
	free(one.p);
	/* garbage: corrupt, no zeros before it */
	t = (struct buf){ 0 };
	uint8_t g[100];
	memset(g, 0x5a, sizeof(g));
	put(&t, g, sizeof(g));
	expect("garbage", &t, SS_LR_CORRUPT, 100);
	free(t.p);
}

/* Zeros then data: corrupt, with the first data byte named whether it is inside the first
 * window or megabytes further, written or after a hole */
static void test_zeros_then_data(void **state)
{
	struct buf b = { 0 };
	size_t a = add_batch(&b, 0, 3, 100);
	zeros(&b, 5000);
	put(&b, "d", 1);
	char *p = write_file("zd", &b);
	struct walk w;
	walk(&w, p, NULL);
	assert_int_equal(w.r.stop, SS_LR_CORRUPT);
	assert_int_equal(w.r.err, SEGSCAN_ECORRUPT);
	assert_int_equal(w.r.at, (int64_t)a);
	assert_int_equal(w.r.nonzero_at, (int64_t)a + 5000);
	done(&w);
	/* a sparse 8 MiB hole before the data */
	assert_int_equal(truncate(p, (off_t)a), 0);
	assert_int_equal(truncate(p, (off_t)a + (8 << 20)), 0);
	int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_int_equal(write(fd, "d", 1), 1);
	close(fd);
	walk(&w, p, NULL);
	assert_int_equal(w.r.stop, SS_LR_CORRUPT);
	assert_int_equal(w.r.nonzero_at, (int64_t)a + (8 << 20));
	if (ss_logrd_bytes(&w.r) > (2 << 20))
		fail_msg("read %lld bytes of a file holding %zu of data", (long long)ss_logrd_bytes(&w.r), a + 1);
	done(&w);
	/* and the same hole to the end: a zero tail */
	assert_int_equal(truncate(p, (off_t)a + (8 << 20)), 0);
	walk(&w, p, NULL);
	assert_int_equal(w.r.stop, SS_LR_ZEROS);
	assert_int_equal(w.r.left, 8 << 20);
	done(&w);
	/* a corrupt header that is not zeros is not "zeros, then data" */
	assert_int_equal(truncate(p, (off_t)a), 0);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	uint8_t bad[64] = { [7] = 9, [11] = 5, [16] = 2 };   /* size 5 < 14 */
	assert_int_equal(write(fd, bad, sizeof(bad)), (ssize_t)sizeof(bad));
	close(fd);
	walk(&w, p, NULL);
	assert_int_equal(w.r.stop, SS_LR_CORRUPT);
	assert_int_equal(w.r.nonzero_at, -1);
	done(&w);
	free(p);
	free(b.p);
}

/* the caller's limits: an end inside a batch (dump --max-bytes), a start, a batch bound */
static void test_limits(void **state)
{
	struct buf b = { 0 };
	size_t a = add_batch(&b, 0, 3, 100);
	size_t a2 = add_batch(&b, 3, 2, 5000);
	add_batch(&b, 5, 1, 10);
	char *p = write_file("lim", &b);
	struct walk w;
	walk(&w, p, &(struct ss_logrd_opts){ .has_end = true, .end = (int64_t)a + 100 });
	assert_int_equal(w.r.stop, SS_LR_CUT);
	assert_int_equal(w.batches, 1);
	assert_int_equal(w.r.at, (int64_t)a);
	done(&w);
	walk(&w, p, &(struct ss_logrd_opts){ .has_end = true, .end = (int64_t)a });
	assert_int_equal(w.r.stop, SS_LR_END);
	assert_int_equal(w.batches, 1);
	done(&w);
	walk(&w, p, &(struct ss_logrd_opts){ .has_end = true, .end = 0 });   /* --max-bytes=0 */
	assert_int_equal(w.r.stop, SS_LR_END);
	assert_int_equal(w.batches, 0);
	done(&w);
	walk(&w, p, &(struct ss_logrd_opts){ .start = (int64_t)a });
	assert_int_equal(w.r.stop, SS_LR_END);
	assert_int_equal(w.batches, 2);
	assert_int_equal(w.last, 5);
	done(&w);
	walk(&w, p, &(struct ss_logrd_opts){ .max_batch = 4096 });
	assert_int_equal(w.r.stop, SS_LR_TOO_BIG);
	assert_int_equal(w.r.at, (int64_t)a);
	assert_int_equal(w.r.hdr.size, (int64_t)a2);
	assert_int_equal(w.r.hdr.base_offset, 3);
	done(&w);
	/* a batch larger than the window is read whole */
	walk(&w, p, &(struct ss_logrd_opts){ .chunk = 512 });
	assert_int_equal(w.r.stop, SS_LR_END);
	assert_int_equal(w.batches, 3);
	done(&w);
	free(p);
	free(b.p);
}

/* The file shrinks between a header and its body (pread), or under the mapping inside a
 * guarded walk (the SIGBUS ends the walk, not the process) */
struct gw {
	struct ss_logrd *r;
	const char      *path;
	int              batches;
	int64_t          shrink_to;
};

static void guarded_walk(void *arg)
{
	struct gw *g = arg;
	struct ss_lr_batch b;
	while (ss_logrd_next(g->r, &b) > 0) {
		if (g->shrink_to >= 0 && g->batches == 1) {
			assert_int_equal(truncate(g->path, (off_t)g->shrink_to), 0);
			g->shrink_to = -1;
		}
		if (ss_logrd_body(g->r, &b) || !b.data)
			return;
		if (ss_batch_verify(b.data, &b.h) == 0)
			g->batches++;
	}
}

static void test_shrinks(void **state)
{
	struct buf b = { 0 };
	size_t a = add_batch(&b, 0, 3, 100);
	size_t a2 = add_batch(&b, 3, 40, 200);   /* a second page and more */
	char *p = write_file("shrink", &b);
	for (int map = 0; map < 2; map++) {
		assert_int_equal(tu_write_file(p, b.p, b.n), 0);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		struct ss_logrd r;
		assert_int_equal(ss_logrd_open(&r, fd, (int64_t)b.n, &(struct ss_logrd_opts){ .map = map, .chunk = 64 }), 0);
		struct gw g = { &r, p, 0, 100 };   /* to 100 bytes, inside the first page */
		int rc = ss_logrd_guarded(&r, guarded_walk, &g);
		assert_int_equal(g.batches, 1);
		assert_int_equal(r.at, (int64_t)a);
		if (map) {
			/* the second batch lies on a page past the new end: the fault cut the walk */
			assert_int_equal(rc, -EFAULT);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(r.stop, SS_LR_SHRANK);
			assert_int_equal(r.left, 0);
			assert_int_equal(r.hdr.size, (int64_t)a2);
		}
		ss_logrd_close(&r);
		close(fd);
	}
	free(p);
	free(b.p);
}

/* a read that fails is SS_LR_IO with the error */
static void test_read_error(void **state)
{
	int fd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct ss_logrd r;
	struct ss_lr_batch b;
	assert_int_equal(ss_logrd_open(&r, fd, 4096, NULL), 0);
	assert_int_equal(ss_logrd_next(&r, &b), 0);
	assert_int_equal(r.stop, SS_LR_IO);
	assert_int_equal(r.err, -EISDIR);
	assert_int_equal(r.at, 0);
	ss_logrd_close(&r);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_zeros_then_data),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_shrinks),
		cmocka_unit_test(test_read_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
