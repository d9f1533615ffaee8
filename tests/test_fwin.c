/*
 * The file window (io/fwin.h): pread windows and their refills, the count of bytes read,
 * the first non-zero byte found without reading holes, and a mapping whose file shrinks
 * under it: the fault ends the guarded call (the process's one SIGBUS hook, io/mmap.c),
 * not the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/fwin.h"
#include "testutil.h"

static char *g_dir;

static int setup(void **state)
{
	g_dir = tu_mkdtemp("fwin");
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

static char *file_of(const char *name, size_t n, uint8_t fill)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", g_dir, name) > 0);
	uint8_t *b = malloc(n ? n : 1);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = fill ? fill : (uint8_t)(i * 7 + 1);
	assert_int_equal(tu_write_file(p, b, n), 0);
	free(b);
	return p;
}

static int open_ro(const char *p, int64_t *size)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	*size = st.st_size;
	return fd;
}

static uint64_t g_progress;
static void on_read(void *arg, uint64_t bytes)
{
	(void)arg;
	g_progress = bytes;
}

/* pread mode: a window of `chunk` bytes from the position asked, refilled when a request
 * leaves it, grown for a larger one; each byte counted once; clamped to `end` */
static void test_pread_window(void **state)
{
	char *p = file_of("a", 10000, 0);
	int64_t size;
	int fd = open_ro(p, &size);
	struct ss_fwin w;
	assert_int_equal(ss_fwin_open(&w, fd, size, &(struct ss_fwin_opts){ .chunk = 1000, .on_read = on_read }), 0);
	assert_null(w.map);
	const uint8_t *b;
	assert_int_equal(ss_fwin_get(&w, 0, 10, size, &b), 10);
	assert_int_equal(b[3], (uint8_t)(3 * 7 + 1));
	assert_int_equal(w.bytes, 1000);          /* one chunk read */
	assert_int_equal(g_progress, 1000);
	assert_int_equal(ss_fwin_get(&w, 990, 10, size, &b), 10);
	assert_int_equal(w.bytes, 1000);          /* inside the window: no read */
	assert_int_equal(ss_fwin_get(&w, 995, 3000, size, &b), 3000);   /* larger than a chunk */
	assert_int_equal(b[0], (uint8_t)(995 * 7 + 1));
	assert_int_equal(w.bytes, 3995);          /* 995..3995, the overlap counted once */
	assert_int_equal(ss_fwin_get(&w, 9990, 100, size, &b), 10);     /* the end of the file */
	assert_int_equal(ss_fwin_get(&w, 5000, 100, 5050, &b), 50);     /* the caller's end */
	assert_int_equal(ss_fwin_get(&w, 10000, 1, size, &b), 0);
	assert_int_equal(ss_fwin_get(&w, -1, 1, size, &b), 0);
	/* the file shrank under the window: fewer bytes than asked */
	assert_int_equal(truncate(p, 6000), 0);
	assert_int_equal(ss_fwin_get(&w, 5900, 500, size, &b), 100);
	assert_int_equal(ss_fwin_get(&w, 7000, 10, size, &b), 0);
	ss_fwin_close(&w);
	close(fd);
	free(p);
}

/* the first non-zero byte: holes skipped (a 64 MiB sparse tail costs its data only), a
 * written zero run read through */
static void test_nonzero(void **state)
{
	char *p = file_of("z", 4096, 0);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	uint8_t zeros[8192] = { 0 };
	assert_int_equal(pwrite(fd, zeros, sizeof(zeros), 4096), (ssize_t)sizeof(zeros));   /* written zeros */
	assert_int_equal(ftruncate(fd, (64 << 20) + 12288), 0);                              /* then a hole */
	close(fd);
	int64_t size, at = -1;
	fd = open_ro(p, &size);
	struct ss_fwin w;
	assert_int_equal(ss_fwin_open(&w, fd, size, NULL), 0);
	assert_int_equal(ss_fwin_nonzero(&w, 100, size, &at), 1);
	assert_int_equal(at, 100);
	assert_int_equal(ss_fwin_nonzero(&w, 4096, size, &at), 0);   /* zeros and a hole to the end */
	if (w.bytes > (8 << 20))
		fail_msg("read %lld bytes of a file holding 12 KiB of data", (long long)w.bytes);
	ss_fwin_close(&w);
	close(fd);
	/* data at the end, past the hole: found */
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	fd = open_ro(p, &size);
	assert_int_equal(ss_fwin_open(&w, fd, size, NULL), 0);
	assert_int_equal(ss_fwin_nonzero(&w, 4096, size, &at), 1);
	assert_int_equal(at, size - 1);
	assert_int_equal(ss_fwin_nonzero(&w, 4096, size - 1, &at), 0);   /* not past end */
	ss_fwin_close(&w);
	close(fd);
	free(p);
}

struct touch {
	struct ss_fwin *w;
	int64_t         pos, end;
	volatile int64_t reached;
	unsigned        sum;
};

static void touch_fn(void *arg)
{
	struct touch *t = arg;
	for (int64_t pos = t->pos; pos < t->end; pos += 4096) {
		const uint8_t *b;
		t->reached = pos;
		if (ss_fwin_get(t->w, pos, 1, t->end, &b) != 1)
			return;
		t->sum += b[0];
	}
}

/* map mode: bytes in place, counted as looked at; a file truncated under the mapping faults
 * in the guarded call, which returns -EFAULT where it reached, and the process goes on */
static void test_map_shrinks(void **state)
{
	char *p = file_of("m", 16 * 4096, 5);
	int64_t size;
	int fd = open_ro(p, &size);
	struct ss_fwin w;
	assert_int_equal(ss_fwin_open(&w, fd, size, &(struct ss_fwin_opts){ .map = true }), 0);
	assert_non_null(w.map);
	struct touch t = { &w, 0, size, -1, 0 };
	assert_int_equal(ss_fwin_guarded(&w, touch_fn, &t), 0);
	assert_int_equal(t.sum, 16 * 5);
	assert_int_equal(w.bytes, 16);          /* one byte looked at per page */
	assert_int_equal(truncate(p, 3 * 4096), 0);
	t = (struct touch){ &w, 0, size, -1, 0 };
	assert_int_equal(ss_fwin_guarded(&w, touch_fn, &t), -EFAULT);
	assert_int_equal(t.reached, 3 * 4096);     /* the first page past the new end */
	assert_int_equal(t.sum, 3 * 5);
	/* the guard is disarmed and the hook still there: the next guarded call works */
	t = (struct touch){ &w, 0, 3 * 4096, -1, 0 };
	assert_int_equal(ss_fwin_guarded(&w, touch_fn, &t), 0);
	ss_fwin_close(&w);
	close(fd);
	/* an empty file is not mapped: the window reads (nothing) */
	char *e = file_of("e", 0, 0);
	fd = open_ro(e, &size);
	assert_int_equal(ss_fwin_open(&w, fd, size, &(struct ss_fwin_opts){ .map = true }), 0);
	assert_null(w.map);
	ss_fwin_close(&w);
	close(fd);
	free(e);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pread_window),
		cmocka_unit_test(test_nonzero),
		cmocka_unit_test(test_map_shrinks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
