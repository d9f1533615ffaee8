/*
 * --evict's page-cache bookkeeping (io/evict.c) on a real file: pages that were cold
 * before a read are dropped after it, pages that were resident stay, page boundaries
 * are the kernel's page size. Skipped where the filesystem ignores POSIX_FADV_DONTNEED
 * (tmpfs keeps every page resident).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/evict.h"
#include "testutil.h"

#define FILE_PAGES 64

static char *g_dir, g_path[4096];

static int setup(void **state)
{
	g_dir = tu_mkdtemp("evict");
	if (!g_dir)
		return -1;
	snprintf(g_path, sizeof(g_path), "%s/data", g_dir);
	size_t len = FILE_PAGES * ss_page_size();
	char *buf = malloc(len);
	if (!buf)
		return -1;
	memset(buf, 'x', len);
	int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok ? 0 : -1;
}

static int teardown(void **state)
{
	unlink(g_path);
	rmdir(g_dir);
	free(g_dir);
	return 0;
}

/* Resident pages of [0, FILE_PAGES) */
static int resident(int fd)
{
	size_t pg = ss_page_size(), len = FILE_PAGES * pg;
	unsigned char vec[FILE_PAGES];
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mincore(m, len, vec), 0);
	munmap(m, len);
	int n = 0;
	for (int i = 0; i < FILE_PAGES; i++)
		n += vec[i] & 1;
	return n;
}

static void read_range(int fd, int64_t off, size_t len)
{
	char *buf = malloc(len);
	assert_int_equal(pread(fd, buf, len, off), (ssize_t)len);
	free(buf);
}

static void test_page_size(void **state)
{
	assert_int_equal(ss_page_size(), (size_t)sysconf(_SC_PAGESIZE));
}

static void test_drops_only_what_it_brought_in(void **state)
{
	size_t pg = ss_page_size();
	int fd = open(g_path, O_RDONLY);
	assert_true(fd >= 0);
	ss_evict_no_readahead(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (resident(fd) != 0) {
		close(fd);
		skip();
	}
	/* the first 8 pages are the broker's hot ones */
	read_range(fd, 0, 8 * pg);
	int hot = resident(fd);
	assert_true(hot >= 8);

	struct ss_evict_span sp;
	ss_evict_note(&sp, fd, 0, 32 * pg);
	assert_int_equal(sp.n, 32);
	assert_int_equal(sp.off, 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(sp.cold[i], 0);
	read_range(fd, 0, 32 * pg);
	uint64_t dropped = ss_evict_drop(&sp, fd);
	assert_int_equal(sp.n, 0);
	/* exactly the pages that were cold, in whole pages of the kernel's size */
	assert_true(dropped <= 24 * pg);
	assert_int_equal(dropped % pg, 0);
	assert_true(dropped >= (uint64_t)(32 - hot) * pg);
	/* the hot pages stay */
	assert_true(resident(fd) >= 8);
	/* a second drop of the same span does nothing */
	assert_int_equal(ss_evict_drop(&sp, fd), 0);
	close(fd);
}

static void test_unaligned_ranges(void **state)
{
	size_t pg = ss_page_size();
	int fd = open(g_path, O_RDONLY);
	assert_true(fd >= 0);
	struct ss_evict_span sp;
	/* one page's worth starting inside a page touches two pages */
	ss_evict_note(&sp, fd, 100, pg);
	assert_int_equal(sp.n, 2);
	assert_int_equal(sp.off, 0);
	ss_evict_note(&sp, fd, (int64_t)(3 * pg + 1), 1);
	assert_int_equal(sp.n, 1);
	assert_int_equal(sp.off, (int64_t)(3 * pg));
	ss_evict_note(&sp, fd, 0, 0);
	assert_int_equal(sp.n, 0);
	/* past the span's capacity: the first pages are tracked, the rest left alone */
	ss_evict_note(&sp, fd, 0, SS_EVICT_SPAN_PAGES * pg * 2);
	assert_true(sp.n == 0 || sp.n == SS_EVICT_SPAN_PAGES);
	/* not mappable: nothing tracked, nothing dropped */
	ss_evict_note(&sp, -1, 0, pg);
	assert_int_equal(sp.n, 0);
	assert_int_equal(ss_evict_drop(&sp, -1), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_size),
		cmocka_unit_test(test_drops_only_what_it_brought_in),
		cmocka_unit_test(test_unaligned_ranges),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
