/*
 * The mmap engine: OPEN/STAT/CLOSE are pread.c's syscalls; READ copies out of a mapping
 * of the whole file, kept per fd until CLOSE.
 *
 * Kafka truncates segment files while we read them, and touching a mapped page that lies
 * wholly past the new end of file raises SIGBUS. The copy therefore runs under the
 * process's one SIGBUS hook (io/bus.c, ss_io_guarded_copy); the read then ends where the
 * fault was, clamped to the file's new size.
 *
 * A READ with req->borrow lends the mapping itself (zero-copy, for --verify): the caller
 * then touches it under ss_io_guarded(), the same guard around its own code.
 *
 * What a mapping cannot tell: a shrink that does not cross a page boundary of the range
 * being copied reads zeros (the rest of the last page) where pread would stop short.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/darray.h"
#include "io/engine.h"
#include "segscan.h"

/* A read at least this long tells the kernel the mapping is read sequentially (more
 * readahead, pages dropped behind); small reads are the fast path's random probes. */
#define SS_MMAP_SEQ_MIN (1u << 20)

struct ss_map {
	char  *addr;   /* NULL when not mapped (also for an empty file) */
	size_t len;    /* file size when mapped */
	bool   seq;    /* MADV_SEQUENTIAL given */
	size_t kept;   /* borrowed reads: pages from here on may still be mapped in */
};

/* Mappings by fd: the mmap engine's own, and the lender the other engines use for
 * borrowed (zero-copy) reads (engine.h). */
struct ss_io_lender {
	struct ss_map        *maps;   /* indexed by fd: fds are small and dense */
	uint32_t              nmaps;     /* slots (the darray capacity), all initialised */
	size_t                page;
};

struct ss_mmap {
	struct ss_io_sync     s;      /* first: the core (engine.c) casts the engine to it */
	struct ss_io_lender   l;
};

/* ---- mappings ----------------------------------------------------------------------- */

static void map_drop(struct ss_io_counters *c, struct ss_map *mp)
{
	if (mp->addr) {
		c->syscalls++;
		munmap(mp->addr, mp->len);
	}
	mp->addr = NULL;
	mp->len = 0;
	mp->seq = false;
	mp->kept = 0;
}

/*
 * A borrowed READ at off: the borrower walks a file forward (--verify), so the pages
 * before off are done with. Unmapping them (MADV_DONTNEED on a shared file mapping drops
 * our page table entries, never the page cache) keeps the process's RSS at about one
 * borrowed feed per task instead of every file in flight mapped whole. Touching them
 * again would only fault them back in from the page cache.
 */
static void map_release_behind(struct ss_io_counters *c, struct ss_map *mp, int64_t off, size_t page)
{
	size_t upto = (size_t)off & ~(page - 1);
	if (upto > mp->len)
		upto = mp->len & ~(page - 1);
	if (upto <= mp->kept)
		return;
	c->syscalls++;
	madvise(mp->addr + mp->kept, upto - mp->kept, MADV_DONTNEED);
	mp->kept = upto;
}

static struct ss_map *map_slot(struct ss_io_lender *l, int fd)
{
	if ((size_t)fd >= l->nmaps) {
		/* indexed by descriptor: every slot up to the new capacity is a usable, empty map */
		uint32_t old = l->nmaps;
		if (SS_DA_RESERVE(&l->maps, &l->nmaps, (uint64_t)fd + 1) < 0)
			return NULL;
		memset(l->maps + old, 0, (size_t)(l->nmaps - old) * sizeof(*l->maps));
	}
	return &l->maps[fd];
}

/*
 * Make the mapping cover exactly size bytes of the file (grown: the new bytes; shrunk:
 * fewer pages that can fault). A fresh mapping rather than mremap(): sanitizers do not
 * intercept mremap, so TSan would keep stale shadow for the moved range and report
 * races on it; the extra munmap is paid only when a file changed size.
 */
static int map_resize(struct ss_io_counters *c, int fd, struct ss_map *mp, size_t size)
{
	void *a;

	if (mp->addr && size == mp->len)
		return 0;
	map_drop(c, mp);
	if (size == 0)
		return 0;
	c->syscalls++;
	a = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return -errno;
	mp->addr = a;
	mp->len = size;
	return 0;
}

/* The mapped bytes of a READ: *src and the count (0 past the end), or -errno. */
static int64_t map_range(struct ss_io_lender *l, struct ss_io_counters *c, const struct ss_io_req *req,
			 struct ss_map **mpp, const char **src)
{
	struct ss_map *mp = NULL;
	struct stat sb;
	size_t n;
	int r;

	if (req->fd >= 0 && (size_t)req->fd < l->nmaps)
		mp = &l->maps[req->fd];
	/* Only a read past what is mapped needs the size now: the file may have grown
	 * (remap), or the read is past its end. */
	if (!mp || !mp->addr || (uint64_t)req->off + req->len > mp->len) {
		/* fstat first: it validates the fd before the table grows to its number. */
		c->syscalls++;
		if (fstat(req->fd, &sb) < 0)
			return -errno;
		/* What pread would refuse, or could read without a mapping (a pipe). */
		if (!S_ISREG(sb.st_mode))
			return SEGSCAN_ENOTREG;
		if (!mp && !(mp = map_slot(l, req->fd)))
			return -ENOMEM;
		r = map_resize(c, req->fd, mp, (size_t)sb.st_size);
		if (r < 0)
			return r;
	}
	*mpp = mp;
	if ((uint64_t)req->off >= mp->len)
		return 0;
	n = mp->len - (size_t)req->off;
	if (n > req->len)
		n = req->len;
	if (n >= SS_MMAP_SEQ_MIN && !mp->seq) {
		/* Advice only: a failure costs readahead, not correctness. */
		c->syscalls++;
		madvise(mp->addr, mp->len, MADV_SEQUENTIAL);
		mp->seq = true;
	}
	*src = mp->addr + req->off;
	return (int64_t)n;
}

static int64_t mm_read(struct ss_mmap *m, struct ss_io_req *req)
{
	struct ss_map *mp;
	const char *src = NULL;
	struct stat sb;
	bool faulted;
	size_t got;
	int64_t n;

	if (req->borrow) /* zero-copy: the caller reads the mapping itself, under ss_io_guarded() */
		return ss_io_lend(&m->l, req, &m->s.ctr);
	if ((n = map_range(&m->l, &m->s.ctr, req, &mp, &src)) <= 0)
		return n;
	got = ss_io_guarded_copy(req->buf, src, (size_t)n, m->l.page, &faulted);
	if (faulted) {
		/* The file shrank under the mapping. The pages copied may end in zeros past
		 * the new end of file (the rest of its last page): ask the size, clamp, and
		 * drop the mapping so the next read maps what is there now. */
		map_drop(&m->s.ctr, mp);
		m->s.ctr.syscalls++;
		if (fstat(req->fd, &sb) < 0)
			return -errno;
		if (sb.st_size <= req->off)
			got = 0;
		else if ((uint64_t)(sb.st_size - req->off) < got)
			got = (size_t)(sb.st_size - req->off);
	}
	m->s.ctr.bytes_read += got;
	return (int64_t)got;
}

/* ---- the lender of the other engines (engine.h) ------------------------------------- */

int ss_io_lender_create(struct ss_io_lender **out)
{
	long page = sysconf(_SC_PAGESIZE);
	int r;

	*out = NULL;
	if (page <= 0)
		return -EINVAL;
	/* lent bytes are touched under ss_io_guarded(): its handler must be there */
	if ((r = ss_io_bus_install()) < 0)
		return r;
	struct ss_io_lender *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->page = (size_t)page;
	*out = l;
	return 0;
}

int64_t ss_io_lend(struct ss_io_lender *l, struct ss_io_req *req, struct ss_io_counters *c)
{
	struct ss_map *mp;
	const char *src = NULL;
	int64_t n = map_range(l, c, req, &mp, &src);

	if (n > 0) {
		map_release_behind(c, mp, req->off, l->page);
		req->data = (const uint8_t *)src;
		c->bytes_read += (uint64_t)n;
	}
	return n;
}

bool ss_io_lend_lazy(struct ss_io_lender **lp, bool *failed, struct ss_io_req *req, struct ss_io_counters *c)
{
	if (*failed)
		return false;
	if (!*lp && ss_io_lender_create(lp) < 0) {
		*failed = true;
		return false;
	}
	req->res = ss_io_lend(*lp, req, c);
	return true;
}

void ss_io_lend_drop(struct ss_io_lender *l, int fd, struct ss_io_counters *c)
{
	if (l && fd >= 0 && (size_t)fd < l->nmaps)
		map_drop(c, &l->maps[fd]);
}

/* Unmaps every mapping and frees the table (the lender itself is the caller's). */
static void lender_fini(struct ss_io_lender *l)
{
	for (size_t i = 0; i < l->nmaps; i++)
		if (l->maps[i].addr)
			munmap(l->maps[i].addr, l->maps[i].len);
	free(l->maps);
	l->maps = NULL;
	l->nmaps = 0;
}

void ss_io_lender_destroy(struct ss_io_lender *l)
{
	if (!l)
		return;
	lender_fini(l);
	free(l);
}

/* ---- ops ---------------------------------------------------------------------------- */

static int64_t mm_read_req(struct ss_io_sync *s, struct ss_io_req *req)
{
	return mm_read((struct ss_mmap *)s, req);
}

/* A CLOSE through the engine drops the fd's mapping first (engine.h). */
static void mm_on_close(struct ss_io_sync *s, int fd)
{
	struct ss_mmap *m = (struct ss_mmap *)s;
	ss_io_lend_drop(&m->l, fd, &m->s.ctr);
}

static int mm_create(struct ss_io_engine **out, unsigned depth)
{
	struct ss_io_sync *s;
	long page;
	int r;

	*out = NULL;
	if (depth == 0 || depth > SS_IO_MAX_DEPTH)
		return -EINVAL;
	page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		return -EINVAL;
	r = ss_io_bus_install();
	if (r < 0)
		return r;
	if ((r = ss_io_sync_create(sizeof(struct ss_mmap), depth, mm_read_req, mm_on_close, &s)) < 0)
		return r;
	((struct ss_mmap *)s)->l.page = (size_t)page;
	*out = (struct ss_io_engine *)s;
	return 0;
}

static void mm_destroy(struct ss_io_engine *e)
{
	struct ss_mmap *m = (struct ss_mmap *)e;
	if (!m)
		return;
	lender_fini(&m->l);
	ss_io_sync_destroy(&m->s);
}

const struct ss_io_ops ss_io_mmap_ops = {
	.name      = "mmap",
	.create    = mm_create,
	.submit    = ss_io_sync_submit,
	.flush     = ss_io_sync_flush,
	.reap      = ss_io_sync_reap,
	.inflight  = ss_io_sync_inflight,
	.counters  = ss_io_sync_counters,
	.destroy   = mm_destroy,
};
