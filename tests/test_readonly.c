/*
 * The read-only promise: inotify watches every directory of a log dir while segscan
 * scans it (every backend, fast path and --verify) and must see no write, create,
 * delete, rename or attribute event. Reads and opens are allowed; they are what a
 * scanner does. The test proves it can see events by making one itself at the end.
 */
#include <dirent.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/inotify.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

#define FORBIDDEN (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | \
		   IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

static int watch_tree(int ifd, const char *dir)
{
	int n = 0;
	if (inotify_add_watch(ifd, dir, FORBIDDEN) < 0)
		return -1;
	n++;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		char *p = NULL;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			return -1;
		int k = watch_tree(ifd, p);
		free(p);
		if (k < 0)
			return -1;
		n += k;
	}
	closedir(d);
	return n;
}

/* Drain pending events; returns how many forbidden ones, printing them. */
static int drain(int ifd)
{
	char buf[8192] __attribute__((aligned(8)));
	int bad = 0;
	for (;;) {
		struct pollfd pfd = { .fd = ifd, .events = POLLIN };
		if (poll(&pfd, 1, 100) <= 0)
			break;
		ssize_t n = read(ifd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			if (ev->mask & FORBIDDEN) {
				fprintf(stderr, "inotify: mask 0x%x on %s\n", ev->mask, ev->len ? ev->name : "(dir)");
				bad++;
			}
			p += sizeof(*ev) + ev->len;
		}
	}
	return bad;
}

static void test_scan_touches_nothing(void **state)
{
	char *root = NULL;
	char *logdir = su_gen("readonly", 2, 2, 4, 96 * 1024, 1, true, &root);
	assert_non_null(logdir);
	char *rp = NULL;
	assert_true(asprintf(&rp, "%s/remote.ndjson", root) > 0);

	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(ifd >= 0);
	assert_true(watch_tree(ifd, logdir) >= 5);
	assert_int_equal(drain(ifd), 0);

	const char *ios[] = { "uring", "mmap", "pread" };
	for (int v = 0; v < 2; v++)
		for (int i = 0; i < 3; i++) {
			const char *kv[] = { "io", ios[i], "verify", v ? "true" : "false", "remote-state", rp, NULL };
			char *out = su_scan(logdir, SEGSCAN_FMT_JSON, NULL, kv);
			assert_non_null(out);
			free(out);
			int bad = drain(ifd);
			if (bad)
				fail_msg("io=%s verify=%d: %d write/create/delete/attribute events in the log dir", ios[i], v,
					 bad);
		}
	/* the CLI too */
	assert_int_equal(tu_run(NULL, "%s scan -f ndjson %s >/dev/null", tu_segscan(), logdir), 0);
	assert_int_equal(drain(ifd), 0);

	/* the watch really sees events: a write of our own must show up */
	char *probe = NULL;
	assert_true(asprintf(&probe, "%s/probe.tmp", logdir) > 0);
	assert_int_equal(tu_write_file(probe, "x", 1), 0);
	assert_true(drain(ifd) > 0);
	unlink(probe);
	free(probe);
	close(ifd);
	free(rp);
	free(logdir);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_touches_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
