/*
 * bench/tailfloor: the index-tail floor. What no fast-path scanner can beat on the same
 * tree: list every partition directory, then for every live segment open its .index and
 * .log, fstat each (the tail's position needs the size), pread the last 4 KiB of the index
 * and the last 8 KiB of the log, close both. No parsing, no time index, no log head, no
 * evaluation, no output.
 *
 *   tailfloor [-t THREADS] [-i INDEX_TAIL] [-l LOG_TAIL] [-q] LOGDIR...
 *
 * The reads run on THREADS threads (default: CPUs in the affinity mask, as segscan),
 * each claiming the next segment from one shared counter. Prints segments, bytes read,
 * syscalls and the two phases' wall times.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NAME_DIGITS 20

struct tf_seg {
	int      dirfd;      /* the log dir */
	size_t   stem;       /* offset of "<partdir>/<20 digits>" in the name pool */
};

struct tf_ctx {
	struct tf_seg *segs;
	size_t         n_segs, cap_segs;
	char          *pool;
	size_t         pool_len, pool_cap;
	size_t         idx_tail, log_tail;
	atomic_size_t  next;     /* relaxed: a claim orders nothing, the list is immutable */
};

struct tf_worker {
	struct tf_ctx *c;
	pthread_t      th;
	uint64_t       bytes, syscalls, errors;
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int add_seg(struct tf_ctx *c, int dirfd, const char *part, const char *file)
{
	size_t need = strlen(part) + 1 + NAME_DIGITS + 1;
	if (c->pool_len + need > c->pool_cap) {
		size_t cap = c->pool_cap ? c->pool_cap * 2 : 1 << 20;
		while (cap < c->pool_len + need)
			cap *= 2;
		char *p = realloc(c->pool, cap);
		if (!p)
			return -ENOMEM;
		c->pool = p;
		c->pool_cap = cap;
	}
	if (c->n_segs == c->cap_segs) {
		size_t cap = c->cap_segs ? c->cap_segs * 2 : 4096;
		struct tf_seg *s = realloc(c->segs, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->segs = s;
		c->cap_segs = cap;
	}
	c->segs[c->n_segs].dirfd = dirfd;
	c->segs[c->n_segs].stem = c->pool_len;
	c->n_segs++;
	c->pool_len += (size_t)snprintf(c->pool + c->pool_len, need, "%s/%.*s", part, NAME_DIGITS, file) + 1;
	return 0;
}

static bool is_live_log(const char *n)
{
	for (int i = 0; i < NAME_DIGITS; i++)
		if (n[i] < '0' || n[i] > '9')
			return false;
	return strcmp(n + NAME_DIGITS, ".log") == 0;
}

static int list_partition(struct tf_ctx *c, int logfd, const char *part)
{
	int fd = openat(logfd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? 0 : -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = -errno;
		close(fd);
		return e;
	}
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d)) != NULL)
		if (is_live_log(de->d_name) && (r = add_seg(c, logfd, part, de->d_name)))
			break;
	closedir(d);
	return r;
}

static int list_logdir(struct tf_ctx *c, int logfd)
{
	int dup_fd = dup(logfd);
	if (dup_fd < 0)
		return -errno;
	DIR *d = fdopendir(dup_fd);
	if (!d) {
		int e = -errno;
		close(dup_fd);
		return e;
	}
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if ((r = list_partition(c, logfd, de->d_name)))
			break;
	}
	closedir(d);
	return r;
}

/* open, fstat, pread the last `tail` bytes, close: 4 syscalls */
static void read_tail(struct tf_worker *w, int dirfd, const char *path, size_t tail, char *buf)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NOATIME | O_CLOEXEC);
	w->syscalls++;
	if (fd < 0 && errno == EPERM) {
		fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
		w->syscalls++;
	}
	if (fd < 0) {
		w->errors++;
		return;
	}
	struct stat st;
	w->syscalls += 2;
	if (fstat(fd, &st) == 0) {
		off_t off = st.st_size > (off_t)tail ? st.st_size - (off_t)tail : 0;
		ssize_t got = pread(fd, buf, tail, off);
		if (got > 0)
			w->bytes += (uint64_t)got;
		else if (got < 0)
			w->errors++;
	} else {
		w->errors++;
	}
	close(fd);
	w->syscalls++;
}

static void *worker(void *arg)
{
	struct tf_worker *w = arg;
	struct tf_ctx *c = w->c;
	size_t cap = c->idx_tail > c->log_tail ? c->idx_tail : c->log_tail;
	char *buf = malloc(cap);
	char path[512];
	if (!buf) {
		w->errors++;
		return NULL;
	}
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed);
		if (i >= c->n_segs)
			break;
		const struct tf_seg *s = &c->segs[i];
		const char *stem = c->pool + s->stem;
		snprintf(path, sizeof(path), "%s.index", stem);
		read_tail(w, s->dirfd, path, c->idx_tail, buf);
		snprintf(path, sizeof(path), "%s.log", stem);
		read_tail(w, s->dirfd, path, c->log_tail, buf);
	}
	free(buf);
	return NULL;
}

static unsigned default_threads(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: tailfloor [-t THREADS] [-i INDEX_TAIL] [-l LOG_TAIL] [-q] LOGDIR...\n");
}

int main(int argc, char **argv)
{
	struct tf_ctx c = { .idx_tail = 4096, .log_tail = 8192 };
	struct tf_worker *ws = NULL;
	unsigned nthreads = default_threads(), started = 0;
	bool quiet = false;
	int *fds = NULL, nfds = 0, opt, rc = 1, r;

	while ((opt = getopt(argc, argv, "t:i:l:qh")) != -1) {
		switch (opt) {
		case 't': nthreads = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'i': c.idx_tail = strtoul(optarg, NULL, 10); break;
		case 'l': c.log_tail = strtoul(optarg, NULL, 10); break;
		case 'q': quiet = true; break;
		default: usage(); return 2;
		}
	}
	if (optind >= argc || nthreads == 0 || c.idx_tail == 0 || c.log_tail == 0) {
		usage();
		return 2;
	}
	double t0 = mono();
	fds = calloc((size_t)(argc - optind), sizeof(int));
	if (!fds)
		goto out;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "tailfloor: %s: %s\n", argv[i], strerror(errno));
			goto out;
		}
		fds[nfds++] = fd;
		if ((r = list_logdir(&c, fd))) {
			fprintf(stderr, "tailfloor: %s: %s\n", argv[i], strerror(-r));
			goto out;
		}
	}
	double t1 = mono();
	ws = calloc(nthreads, sizeof(*ws));
	if (!ws)
		goto out;
	for (unsigned i = 0; i < nthreads; i++) {
		ws[i].c = &c;
		if ((r = pthread_create(&ws[i].th, NULL, worker, &ws[i]))) {
			fprintf(stderr, "tailfloor: pthread_create: %s\n", strerror(r));
			break;
		}
		started++;
	}
	uint64_t bytes = 0, sys = 0, errs = 0;
	for (unsigned i = 0; i < started; i++) {
		pthread_join(ws[i].th, NULL);
		bytes += ws[i].bytes;
		sys += ws[i].syscalls;
		errs += ws[i].errors;
	}
	double t2 = mono();
	if (started < nthreads)
		goto out;
	if (!quiet)
		printf("tailfloor: %zu segments, %u threads, %" PRIu64 " bytes read, %" PRIu64
		       " syscalls, %" PRIu64 " errors; list %.3f s, read %.3f s, total %.3f s\n",
		       c.n_segs, nthreads, bytes, sys, errs, t1 - t0, t2 - t1, t2 - t0);
	rc = errs ? 1 : 0;
out:
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	free(fds);
	free(ws);
	free(c.segs);
	free(c.pool);
	return rc;
}
