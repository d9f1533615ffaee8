/* One segment's read plan: see task.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/assert.h"
#include "common/extent.h"
#include "scan/task.h"
#include "sched/arena.h"
#include "segscan.h"

enum {
	PH_IDLE,
	PH_OPEN,     /* open .log */
	PH_STAT,     /* fstat .log: by descriptor, so no second path lookup */
	PH_SIDE,     /* open .index/.timeindex, read the log head */
	PH_WHOLE,    /* small closed indexes read whole (no fstat) */
	PH_SIDESTAT, /* fstat .index/.timeindex */
	PH_TAIL,     /* index window reads */
	PH_WALK,     /* log reads through the walker */
	PH_CLOSE,    /* closing the .log */
	PH_REUSE,    /* statx only: is the previous scan's answer still true? */
	PH_ZPROBE,   /* sample reads of a zero tail's data extents */
};

#define NO_REUSE UINT32_MAX

/* --evict tracks every page of a verify chunk, as it did of the fast path's reads */
_Static_assert(SS_TASK_VCHUNK <= SS_EVICT_SPAN_BYTES, "evict span shorter than a verify read");

static struct ss_seg *seg_of(struct ss_task *t)
{
	return &t->env->cat->segs[t->seg_idx];
}

static int submit(struct ss_task *t, int slot)
{
	struct ss_io_req *r = &t->req[slot];
	/* a phase never has more requests in flight than the task has slots */
	ss_assert(slot >= 0 && slot < SS_TASK_MAX_REQS && t->pending < SS_TASK_MAX_REQS);
	r->udata = t;
	r->res = 0;
	int e = t->env->ops->submit(t->env->eng, r);
	if (e == 0)
		t->pending++;
	return e;
}

/* An open or a statx of one of the segment's files, by path under its log dir. */
static int sub_path(struct ss_task *t, int slot, enum ss_io_op op, const char *path)
{
	struct ss_io_req *r = &t->req[slot];
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->dirfd = t->env->cat->logdirs[t->env->cat->parts[seg_of(t)->part].logdir].fd;
	r->path = path;
	r->fd = -1;
	return submit(t, slot);
}

static int sub_open(struct ss_task *t, int slot, const char *path) { return sub_path(t, slot, SS_IO_OPEN, path); }
static int sub_stat(struct ss_task *t, int slot, const char *path) { return sub_path(t, slot, SS_IO_STAT, path); }

/* An fstat or a close of an open descriptor. */
static int sub_fd(struct ss_task *t, int slot, enum ss_io_op op, int fd)
{
	struct ss_io_req *r = &t->req[slot];
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->fd = fd;
	return submit(t, slot);
}

static int sub_fstat(struct ss_task *t, int slot, int fd) { return sub_fd(t, slot, SS_IO_STAT, fd); }
static int sub_close(struct ss_task *t, int slot, int fd) { return sub_fd(t, slot, SS_IO_CLOSE, fd); }

static int sub_read_b(struct ss_task *t, int slot, int fd, void *buf, size_t len, int64_t off, bool borrow)
{
	struct ss_io_req *r = &t->req[slot];
	t->cold[slot].n = 0;
	if (t->env->evict)
		ss_evict_note(&t->cold[slot], fd, off, len);
	memset(r, 0, sizeof(*r));
	r->op = SS_IO_READ;
	r->fd = fd;
	r->buf = buf;
	r->data = buf;
	r->borrow = borrow;
	r->len = len;
	r->off = off;
	return submit(t, slot);
}

static int sub_read(struct ss_task *t, int slot, int fd, void *buf, size_t len, int64_t off)
{
	return sub_read_b(t, slot, fd, buf, len, off, false);
}

int ss_task_init(struct ss_task *t, struct ss_task_env *env)
{
	memset(t, 0, sizeof(*t));
	t->env = env;
	t->buf_cap = env->verify ? SS_TASK_VCHUNK : SS_TASK_CHUNK;
	/* from the worker's own arena: its pages stay local to the worker's node */
	t->buf = ss_arena_alloc(env->arena, t->buf_cap);
	t->ibuf = ss_arena_alloc(env->arena, SS_TASK_PROBE);
	t->tbuf = ss_arena_alloc(env->arena, SS_TASK_PROBE);
	if (!t->buf || !t->ibuf || !t->tbuf) {
		ss_task_destroy(t);
		return -ENOMEM;
	}
	t->fd_log = t->fd_idx = t->fd_tim = -1;
	return 0;
}

void ss_task_destroy(struct ss_task *t)
{
	ss_arena_free(t->buf);
	ss_arena_free(t->ibuf);
	ss_arena_free(t->tbuf);
	t->buf = t->ibuf = t->tbuf = NULL;
}

static void seg_error(struct ss_task *t, int err, uint32_t file, int64_t pos)
{
	struct ss_seg *s = seg_of(t);
	s->flags |= SS_SEG_READ_ERROR;
	ss_seg_set_error(s, err, file, pos);
}

/* The first batch header's base offset: only a mismatch needs room to say it. */
static void set_first_base(struct ss_seg *s, int64_t first)
{
	struct ss_segx *x;
	s->flags |= SS_SEG_FIRST_KNOWN;
	if (first == s->base_offset)
		return;
	s->flags |= SS_SEG_BASE_MISMATCH;
	if ((x = ss_seg_xget(s)))
		x->first_batch_base = first;
}

/* ---- phases ------------------------------------------------------------------------- */

static int start_walk(struct ss_task *t, int64_t from, bool from_index);
static int next_read(struct ss_task *t);
static int finish(struct ss_task *t);

int ss_task_start(struct ss_task *t, uint32_t seg_idx)
{
	struct ss_seg *s;
	int r;
	/* only an idle task starts: the previous segment's requests all completed and its
	 * files closed (ss_task_complete's check when it finished) */
	ss_assert(t->pending == 0 && t->fd_log < 0 && t->fd_idx < 0 && t->fd_tim < 0);
	ss_assert(seg_idx < t->env->cat->n_segs);
	t->seg_idx = seg_idx;
	t->pending = 0;
	t->fd_log = t->fd_idx = t->fd_tim = -1;
	t->idx_size = t->tim_size = 0;
	t->tim_max = -1;
	t->idx_target = -1;
	t->no_borrow = false;
	t->borrowing = false;
	t->walk_from = 0;
	t->mtime_ns = 0;
	t->bytes_read = 0;
	s = seg_of(t);
	/* one formatted name, the siblings by swapping the extension */
	if ((r = ss_seg_relpath(t->env->cat, s, "log", t->path_log, sizeof(t->path_log) - 8)) < 0)
		return r;
	size_t stem = (size_t)r - 3;
	memcpy(t->path_idx, t->path_log, stem);
	memcpy(t->path_idx + stem, "index", 6);
	memcpy(t->path_tim, t->path_log, stem);
	memcpy(t->path_tim + stem, "timeindex", 10);
	if (t->env->reuse_from && t->env->reuse_from[seg_idx] != NO_REUSE) {
		t->phase = PH_REUSE;
		return sub_stat(t, 1, t->path_log);
	}
	t->phase = PH_OPEN;
	return sub_open(t, 0, t->path_log);
}

/* A closed segment is immutable: same device, inode, size and mtime means the previous
 * scan's facts still hold, and one statx replaces the opens and reads. */
static int reuse_done(struct ss_task *t, bool *finished)
{
	struct ss_seg *s = seg_of(t);
	uint32_t pi = t->env->reuse_from[t->seg_idx];
	const struct ss_seg *p = &t->env->prev_segs[pi];
	const struct ss_seg_id *id = &t->env->prev_ids[pi];
	const struct ss_io_stat *st = &t->req[1].st;
	if (t->req[1].res == 0 && st->dev == id->dev && st->ino == id->ino && st->size == p->size_bytes &&
	    st->mtime_ns == id->mtime_ns) {
		struct ss_seg keep = *s;
		if (ss_seg_copy(s, p) == 0) {
			s->part = keep.part;
			s->files = keep.files;
			s->flags = (uint16_t)((p->flags & ~SS_SEG_ACTIVE & ~SS_SEG_ONLY_LOCAL) |
					      (keep.flags & SS_SEG_ACTIVE));
			if (t->env->cat->ids)
				t->env->cat->ids[t->seg_idx] = *id;
			t->env->reused++;
			*finished = true;
			return 0;
		}
		/* no memory for its rare facts: read it instead */
	}
	/* changed (or gone): read it like any other */
	t->phase = PH_OPEN;
	return sub_open(t, 0, t->path_log);
}

/*
 * Where a file's data ends when it is a data prefix and then one hole to the end of the
 * file, as Kafka leaves an active segment's preallocated files (RandomAccessFile.setLength
 * for the .log with preallocate=true, and always for the .index and .timeindex:
 * AbstractIndex's constructor in storage/src/main/java/org/apache/kafka/storage/internals/
 * log/AbstractIndex.java); else `size`. Two lseeks; from the returned offset on, the file
 * is a hole and reads as zeros (proven by the file system, not sampled).
 */
static int64_t data_prefix_end(int fd, int64_t size)
{
	off_t h = lseek(fd, 0, SEEK_HOLE);
	if (h < 0 || h >= (off_t)size)
		return size;        /* no hole before the end (or no SEEK_HOLE): all data */
	if (lseek(fd, h, SEEK_DATA) < 0 && errno == ENXIO)
		return (int64_t)h;
	return size;            /* data after a hole: not a plain prefix, search it all */
}

static int begin_side(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	int r;
	t->phase = PH_SIDE;
	if ((s->files & SS_HAS_INDEX) && (r = sub_open(t, 0, t->path_idx)))
		return r;
	if ((s->files & SS_HAS_TIMEINDEX) && (r = sub_open(t, 1, t->path_tim)))
		return r;
	/* only the first batch header: its base offset is all we check here */
	size_t head = s->size_bytes < SS_MAX_HEADER_SIZE ? (size_t)s->size_bytes : SS_MAX_HEADER_SIZE;
	return sub_read(t, 4, t->fd_log, t->buf, head, 0);
}

static int submit_tail_reads(struct ss_task *t)
{
	int r;
	int64_t off;
	size_t len;
	if (!t->tf_idx.done) {
		ss_index_tail_window(&t->tf_idx, &off, &len);
		if ((r = sub_read(t, 0, t->fd_idx, t->ibuf, len, off)))
			return r;
	}
	if (!t->tf_tim.done) {
		ss_index_tail_window(&t->tf_tim, &off, &len);
		if ((r = sub_read(t, 1, t->fd_tim, t->tbuf, len, off)))
			return r;
	}
	return 0;
}

/* Both index tails are known: close the index files and walk the log from the last
 * offset index entry (validated against the log below). */
static int tails_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	int r;
	if (t->tf_tim.best >= 0)
		t->tim_max = t->tf_tim.time.ts;
	int64_t from = 0;
	bool from_index = false;
	if (t->tf_idx.best >= 0) {
		struct ss_offset_entry e = t->tf_idx.offset;
		if (e.pos > 0 && e.pos < s->size_bytes && e.rel >= 0) {
			from = e.pos;
			from_index = true;
			t->idx_target = s->base_offset + e.rel;
		} else {
			s->flags |= SS_SEG_INDEX_BAD;
		}
	}
	/* Closes ride along with the first log read: one submission round trip. */
	if (t->fd_idx >= 0 && (r = sub_close(t, 2, t->fd_idx)))
		return r;
	if (t->fd_tim >= 0 && (r = sub_close(t, 3, t->fd_tim)))
		return r;
	t->fd_idx = t->fd_tim = -1;
	return start_walk(t, from, from_index);
}

static int start_walk(struct ss_task *t, int64_t from, bool from_index)
{
	struct ss_seg *s = seg_of(t);
	t->phase = PH_WALK;
	t->walk_from = from;
	if (!from_index)
		t->idx_target = -1;
	ss_walk_init(&t->w, s->base_offset, s->size_bytes, from, t->env->verify);
	/* the fast path proves a zero tail in phase E; --verify reads and checks every byte */
	t->w.probe_zeros = !t->env->verify;
	t->zprobed = false;
	return next_read(t);
}

static int next_read(struct ss_task *t)
{
	struct ss_walk *w = &t->w;
	if (ss_walk_done(w))
		return finish(t);
	size_t want = (size_t)w->want_len;
	/* from an index entry the walk covers about index.interval.bytes (4096) and the last
	 * batch, whose header is all it needs: a short first read; a walk from the start
	 * (a small log, or no usable index) reads big chunks */
	size_t chunk = t->env->verify ? SS_TASK_VCHUNK : t->idx_target >= 0 ? SS_TASK_TAIL_CHUNK : SS_TASK_CHUNK;
	if (t->env->verify && w->want_pos == 0 && seg_of(t)->size_bytes > 4 * SS_TASK_VCHUNK)
		chunk = SS_TASK_VFIRST; /* task.h: the first batches decide copy or borrow */
	/* --verify zero-copy (task.h, SS_TASK_BORROW_MIN): from the first read of a big .log
	 * or of a batch larger than a quarter of a copy chunk, sticky for the segment; PH_WALK
	 * runs the walker on the lent mapping under the SIGBUS guard. Not under --evict: a
	 * mapped page cannot be dropped from the page cache while we hold it. */
	if (t->env->verify && !t->env->evict && !t->borrowing &&
	    (seg_of(t)->size_bytes > SS_TASK_BORROW_MIN || (size_t)w->want_len > SS_TASK_VCHUNK / 4))
		t->borrowing = true;
	bool borrow = t->borrowing && !t->no_borrow;
	if (borrow)
		chunk = SS_TASK_BORROW_CHUNK;
	if (want < chunk)
		want = chunk;
	if (want > t->buf_cap && !borrow) {
		/* The walker asks for at most SS_WALK_WHOLE_MAX bytes whatever a header claims
		 * (larger batches are verified in pieces, fmt/batch.h), so the buffer grows at
		 * most to that once: a task's memory is bounded, never a header's say. */
		if ((int64_t)w->want_len > SS_WALK_WHOLE_MAX) {
			seg_error(t, SEGSCAN_ECORRUPT, SS_HAS_LOG, w->want_pos);
			w->done = true;
			return finish(t);
		}
		if ((size_t)w->want_len <= t->buf_cap) {
			want = t->buf_cap;
		} else {
			uint8_t *nb = ss_arena_alloc(t->env->arena, SS_WALK_WHOLE_MAX);
			if (!nb) {
				/* this segment cannot be read here: its error, not the scan's end */
				seg_error(t, -ENOMEM, SS_HAS_LOG, w->want_pos);
				w->done = true;
				return finish(t);
			}
			ss_arena_free(t->buf);
			t->buf = nb;
			t->buf_cap = SS_WALK_WHOLE_MAX;
		}
	}
	int64_t left = w->file_size - w->want_pos;
	if (left <= 0) {
		/* nothing left to read: the walker must not ask again */
		w->done = true;
		return finish(t);
	}
	if ((int64_t)want > left)
		want = (size_t)left;
	/* past the data prefix the file is a hole: read what the walker needs, no chunk */
	if (w->want_pos + (int64_t)want > t->log_data_end)
		want = t->log_data_end - w->want_pos >= w->want_len ? (size_t)(t->log_data_end - w->want_pos)
								     : (size_t)w->want_len;
	return sub_read_b(t, 0, t->fd_log, t->buf, want, w->want_pos, borrow);
}

/* The index entry we started from must be a batch boundary holding its offset. */
static bool index_start_ok(const struct ss_task *t, bool at_end)
{
	const struct ss_walk *w = &t->w;
	const struct ss_seg *s = &t->env->cat->segs[t->seg_idx];
	if (t->idx_target < 0)
		return true;
	if (w->err && w->err_pos == t->walk_from)
		return false;
	if (w->first_base >= 0 && (w->first_base > t->idx_target || w->first_base < s->base_offset))
		return false;
	if (at_end && w->last_offset < t->idx_target && w->err == 0)
		return false;
	return true;
}

/*
 * Phase E. The walk met zeros where a batch header belongs and checked them to the end of
 * the read that found them; [w->zero_from, file size) is left. Kafka preallocates a
 * segment by extending the file (FileRecords.openChannel: RandomAccessFile.setLength,
 * clients/src/main/java/org/apache/kafka/common/record/FileRecords.java), so on the file
 * systems brokers use the unwritten rest is a hole, and a 1 GiB tail is two lseeks.
 *
 * What is proven and what is not:
 *  - a range SEEK_DATA/SEEK_HOLE reports as a hole holds no data and reads as zeros
 *    (unwritten extents of fallocate read as zeros too): proven;
 *  - a data extent (a non-sparse copy: cp without --sparse, rsync without -S, a git
 *    checkout; or a file system without SEEK_DATA, which reports the whole file as data)
 *    is only sampled: the file's last page, each extent's first page, and pages spread
 *    evenly over the largest extent, SS_TASK_ZSAMPLES pages at most. A non-zero byte
 *    elsewhere in it goes unseen by the fast path; --verify reads every byte.
 * A sampled non-zero byte refutes the tail: the walk reports corruption at the suspect
 * entry, as the byte-by-byte check would.
 */
static void zp_add(int64_t *so, int *n, int64_t off)
{
	for (int i = 0; i < *n; i++)
		if (off < so[i] + SS_TASK_PROBE && so[i] < off + SS_TASK_PROBE)
			return; /* overlaps a page already chosen */
	if (*n < SS_TASK_ZSAMPLES)
		so[(*n)++] = off;
}

static int zprobe_start(struct ss_task *t)
{
	struct ss_walk *w = &t->w;
	int64_t end = w->file_size, pos = w->zero_from;
	int64_t rb[SS_TASK_ZREGIONS], re[SS_TASK_ZREGIONS];
	int nr = 0, r;

	t->zprobed = true;
	t->zp_n = 0;
	if (pos >= t->log_hole_from)
		return finish(t);   /* inside the hole found when the file was opened */
	/* the data extents after the walk's zeros (a lookup that cannot tell gives the rest as
	 * data, common/extent.h); none: a hole to the end */
	while (nr < SS_TASK_ZREGIONS && ss_next_data(t->fd_log, pos, end, &rb[nr], &re[nr]) > 0) {
		pos = re[nr];
		nr++;
	}
	if (nr == SS_TASK_ZREGIONS && pos < end)
		re[nr - 1] = end;   /* extents not looked up: sampled with the last one */
	if (nr == 0)
		return finish(t);   /* proven: nothing but holes */

	int64_t so[SS_TASK_ZSAMPLES];
	int n = 0, big = 0;
	int64_t last = re[nr - 1] - SS_TASK_PROBE;
	zp_add(so, &n, last > rb[nr - 1] ? last : rb[nr - 1]);
	for (int i = 0; i < nr; i++) {
		zp_add(so, &n, rb[i]);
		if (re[i] - rb[i] > re[big] - rb[big])
			big = i;
	}
	for (int k = SS_TASK_ZSAMPLES - n, j = 1; j <= k; j++) {
		int64_t span = re[big] - rb[big];
		zp_add(so, &n, rb[big] + (span / (k + 1)) * j / SS_TASK_PROBE * SS_TASK_PROBE);
	}
	_Static_assert(SS_TASK_ZSAMPLES * SS_TASK_PROBE <= SS_TASK_CHUNK, "samples share the log buffer");
	_Static_assert(SS_TASK_ZSAMPLES <= SS_TASK_MAX_REQS, "one request slot per sample");
	t->phase = PH_ZPROBE;
	for (int i = 0; i < n; i++) {
		int64_t len = end - so[i] < SS_TASK_PROBE ? end - so[i] : SS_TASK_PROBE;
		if ((r = sub_read(t, i, t->fd_log, t->buf + (size_t)i * SS_TASK_PROBE, (size_t)len, so[i])))
			return r;
		t->zp_n++;
	}
	return 0;
}

static int zprobe_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	bool zero = true;
	for (int i = 0; i < t->zp_n; i++) {
		const struct ss_io_req *rq = &t->req[i];
		if (rq->res < 0) {
			/* unread: the tail stays what the walk saw, with the error on the segment */
			seg_error(t, (int)rq->res, SS_HAS_LOG, rq->off);
			continue;
		}
		t->bytes_read += rq->res;
		if ((size_t)rq->res < rq->len)
			s->flags |= SS_SEG_CHANGED; /* the file shrank under us */
		const uint8_t *p = t->buf + (size_t)i * SS_TASK_PROBE;
		for (int64_t k = 0; k < rq->res; k++)
			zero &= p[k] == 0;
	}
	if (!zero)
		ss_walk_zero_refuted(&t->w);
	return finish(t);
}

static int finish(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_walk *w = &t->w;

	if (t->idx_target >= 0 && !index_start_ok(t, true)) {
		/* Inconsistent index: Kafka would rebuild it on recovery; we walk the log. */
		s->flags |= SS_SEG_INDEX_BAD;
		return start_walk(t, 0, false);
	}
	if (w->zero_from >= 0 && !t->zprobed)
		return zprobe_start(t);
	if (w->last_offset >= 0) {
		s->flags |= SS_SEG_HAS_LAST;
		s->last_offset = w->last_offset;
	}
	if (t->walk_from == 0 && w->first_base >= 0)
		set_first_base(s, w->first_base);
	s->valid_bytes = w->valid_bytes;
	if (w->zero_tail)
		s->flags |= SS_SEG_ZERO_TAIL;
	/* The active segment's last batch followed by zeros up to the file's length is a
	 * preallocated segment (preallocate / log.preallocate): Kafka appends at its
	 * in-memory size and trims the file when it rolls or shuts down cleanly
	 * (LogSegment.onBecomeInactiveSegment in storage/src/main/java/org/apache/kafka/storage/
	 * internals/log/LogSegment.java; FileRecords.trim). Not a torn tail. */
	bool prealloc = w->zero_tail && w->truncated_bytes > 0 && (s->flags & SS_SEG_ACTIVE);
	if (prealloc)
		s->flags |= SS_SEG_PREALLOCATED;
	struct ss_segx *x = s->x;
	if (!x && (w->truncated_bytes > 0 || w->crc_errors > 0) && !(x = ss_seg_xget(s)))
		s->flags |= SS_SEG_READ_ERROR; /* the tail and CRC counts cannot be kept (-ENOMEM) */
	if (x) {
		x->truncated_bytes = prealloc ? 0 : w->truncated_bytes;
		x->prealloc_bytes = prealloc ? w->truncated_bytes : 0;
		x->crc_errors = w->crc_errors;
		x->crc_first_base = w->crc_first_base;
		x->crc_first_pos = w->crc_first_pos;
	}
	if (w->offset_errors)
		s->flags |= SS_SEG_OFFSETS_BAD;
	if (t->walk_from == 0) {
		s->batches = ss_seg_count(w->batches);
		s->records = ss_seg_count(w->records);
		if (t->env->verify)
			s->flags |= SS_SEG_COUNTS_EXACT;
	}
	if (w->err) {
		s->flags |= SS_SEG_CORRUPT;
		ss_seg_set_error(s, w->err, SS_HAS_LOG, w->err_pos);
	}
	if (w->file_size != s->size_bytes)
		s->flags |= SS_SEG_CHANGED;
	int64_t mx = w->max_timestamp > t->tim_max ? w->max_timestamp : t->tim_max;
	/* Kafka's largestTimestamp falls back to the file's mtime without timestamps. */
	s->max_timestamp_ms = mx >= 0 ? mx : t->mtime_ns / 1000000;
	t->phase = PH_CLOSE;
	int fd = t->fd_log;
	t->fd_log = -1;
	return sub_close(t, 0, fd);
}

/*
 * The most bytes a closed segment's index of esz-byte entries holds for a .log of
 * log_size bytes under the default index.interval.bytes: Kafka adds an entry only after
 * more than 4096 bytes since the last one (LogSegment.append), recovery and the cleaner
 * too, so entries <= log_size / 4096; the time index has one more, appended at roll
 * (LogSegment.onBecomeInactiveSegment); one slot of slack. A larger interval gives
 * fewer entries; a smaller one may give more, and then the read of the bound comes back
 * full and the fstat path runs (PH_WHOLE).
 */
static int64_t index_bound(int64_t log_size, int64_t esz)
{
	return esz * (log_size / 4096 + 3);
}

/* Both index tails from their sizes: the window reads of PH_TAIL. */
static int sidestat_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;
	bool idx_ok = t->fd_idx >= 0 && rq[2].res >= 0;
	bool tim_ok = t->fd_tim >= 0 && rq[3].res >= 0;
	t->idx_size = idx_ok ? rq[2].st.size : 0;
	t->tim_size = tim_ok ? rq[3].st.size : 0;
	if (s->flags & SS_SEG_ACTIVE) {
		/* the active segment's indexes are preallocated (10 MiB by default): search
		 * only their data prefix, the rest is a hole of zero slots */
		if (t->idx_size > SS_TASK_PROBE)
			t->idx_size = data_prefix_end(t->fd_idx, t->idx_size);
		if (t->tim_size > SS_TASK_PROBE)
			t->tim_size = data_prefix_end(t->fd_tim, t->tim_size);
	}
	if (!idx_ok)
		s->flags |= SS_SEG_INDEX_BAD;
	/* A closed segment's indexes are trimmed at roll (LogSegment.onBecomeInactiveSegment:
	 * trimToValidSize), so their last entry is their last slot: a small window finds it
	 * in one read. The active segment's are preallocated: whole pages per probe. */
	size_t win = (s->flags & SS_SEG_ACTIVE) ? SS_TASK_PROBE : SS_TASK_CLOSED_WIN;
	ss_index_tail_init(&t->tf_idx, SS_OFFSET_ENTRY, idx_ok ? t->idx_size : 0, win);
	ss_index_tail_init(&t->tf_tim, SS_TIME_ENTRY, tim_ok ? t->tim_size : 0, win);
	t->phase = PH_TAIL;
	if (t->tf_idx.done && t->tf_tim.done)
		return tails_done(t);
	return submit_tail_reads(t);
}

/* fstat the index files that opened; with neither, straight on. */
static int side_stats(struct ss_task *t)
{
	int r;
	t->phase = PH_SIDESTAT;
	t->req[2].res = t->req[3].res = -EBADF;
	if (t->fd_idx >= 0 && (r = sub_fstat(t, 2, t->fd_idx)))
		return r;
	if (t->fd_tim >= 0 && (r = sub_fstat(t, 3, t->fd_tim)))
		return r;
	if (t->pending)
		return 0;
	return sidestat_done(t);
}

/* ss_walk_feed on borrowed bytes, as ss_io_guarded() calls it: the walker is a pure
 * parser (no allocation, no locks), so a SIGBUS leaving it midway loses only its state. */
struct guarded_feed {
	struct ss_walk *w;
	int64_t         off;
	const uint8_t  *p;
	size_t          n;
	int             r;
};

static void feed_fn(void *arg)
{
	struct guarded_feed *g = arg;
	g->r = ss_walk_feed(g->w, g->off, g->p, g->n);
}

/* PH_OPEN: the .log opened (or vanished since discovery); fstat it next. */
static int open_done(struct ss_task *t, bool *finished)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;

	if (rq[0].res < 0) {
		if (rq[0].res == -ENOENT)
			s->flags |= SS_SEG_VANISHED; /* deleted by retention or compaction since discovery */
		else
			seg_error(t, (int)rq[0].res, SS_HAS_LOG, -1);
		*finished = true;
		return 0;
	}
	t->fd_log = (int)rq[0].res;
	if (t->env->evict)
		ss_evict_no_readahead(t->fd_log);
	t->phase = PH_STAT;
	return sub_fstat(t, 1, t->fd_log);
}

/* PH_STAT: the .log's size and identity; then the fast path through the index files, or a
 * walk from the start (--verify, a small or index-less segment, a short preallocated one). */
static int stat_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;

	if (rq[1].res < 0) {
		seg_error(t, (int)rq[1].res, SS_HAS_LOG, -1);
		t->phase = PH_CLOSE;
		int fd = t->fd_log;
		t->fd_log = -1;
		return sub_close(t, 0, fd);
	}
	s->size_bytes = rq[1].st.size;
	t->mtime_ns = rq[1].st.mtime_ns;
	if (t->env->cat->ids)
		t->env->cat->ids[t->seg_idx] = (struct ss_seg_id){ rq[1].st.dev, rq[1].st.ino, rq[1].st.mtime_ns };
	t->log_data_end = t->log_hole_from = s->size_bytes;
	if (!t->env->verify && (s->flags & SS_SEG_ACTIVE) && s->size_bytes > SS_TASK_SMALL) {
		/* A preallocated active .log is a few KiB of batches in a hole of
		 * segment.bytes: read the batches only, and when they are few, walk them
		 * from the start without the index files. */
		t->log_data_end = t->log_hole_from = data_prefix_end(t->fd_log, s->size_bytes);
		if (t->log_data_end <= SS_TASK_SMALL)
			return start_walk(t, 0, false);
	}
	if (t->env->verify || s->size_bytes <= SS_TASK_SMALL || !(s->files & SS_HAS_INDEX)) {
		if (!(s->files & SS_HAS_INDEX) && s->size_bytes > 0)
			s->flags |= SS_SEG_INDEX_BAD;
		return start_walk(t, 0, false);
	}
	return begin_side(t);
}

/* PH_SIDE: the first batch header and the index files opened; small closed indexes are read
 * whole, others fstat'ed first. */
static int side_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;
	int r;

	int64_t head = rq[4].res;
	if (head < 0) {
		seg_error(t, (int)head, SS_HAS_LOG, 0);
	} else {
		struct ss_batch_hdr h;
		t->bytes_read += head;
		if (ss_batch_header(t->buf, (size_t)head, &h) > 0 && h.has_base)
			set_first_base(s, h.base_offset);
	}
	/* an index that vanished since discovery is simply absent: walk without it */
	if (s->files & SS_HAS_INDEX) {
		if (rq[0].res >= 0)
			t->fd_idx = (int)rq[0].res;
		else if (rq[0].res != -ENOENT)
			seg_error(t, (int)rq[0].res, SS_HAS_INDEX, -1);
	}
	if (s->files & SS_HAS_TIMEINDEX) {
		if (rq[1].res >= 0)
			t->fd_tim = (int)rq[1].res;
		else if (rq[1].res != -ENOENT)
			seg_error(t, (int)rq[1].res, SS_HAS_TIMEINDEX, -1);
	}
	if (t->env->evict) {
		if (t->fd_idx >= 0)
			ss_evict_no_readahead(t->fd_idx);
		if (t->fd_tim >= 0)
			ss_evict_no_readahead(t->fd_tim);
	}
	if (!(s->flags & SS_SEG_ACTIVE) && t->fd_idx >= 0 && t->fd_tim >= 0 &&
	    index_bound(s->size_bytes, SS_TIME_ENTRY) <= SS_TASK_WHOLE_INDEX) {
		/* small closed indexes: read them whole, the short read tells the size */
		t->phase = PH_WHOLE;
		if ((r = sub_read(t, 0, t->fd_idx, t->ibuf,
				  (size_t)index_bound(s->size_bytes, SS_OFFSET_ENTRY), 0)))
			return r;
		return sub_read(t, 1, t->fd_tim, t->tbuf, (size_t)index_bound(s->size_bytes, SS_TIME_ENTRY), 0);
	}
	return side_stats(t);
}

/* PH_WHOLE: both small indexes read whole, each searched in one feed. */
static int whole_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;

	int64_t bi = index_bound(s->size_bytes, SS_OFFSET_ENTRY), bt = index_bound(s->size_bytes, SS_TIME_ENTRY);
	if (rq[0].res < 0 || rq[0].res >= bi || rq[1].res < 0 || rq[1].res >= bt)
		return side_stats(t); /* an error, or more than the bound: the fstat path decides */
	t->bytes_read += rq[0].res + rq[1].res;
	t->idx_size = rq[0].res;
	t->tim_size = rq[1].res;
	/* one window over the whole file: the search ends with this feed */
	ss_index_tail_init(&t->tf_idx, SS_OFFSET_ENTRY, t->idx_size, (size_t)bi);
	ss_index_tail_init(&t->tf_tim, SS_TIME_ENTRY, t->tim_size, (size_t)bt);
	if (!t->tf_idx.done)
		ss_index_tail_feed(&t->tf_idx, t->ibuf, t->idx_size);
	if (!t->tf_tim.done)
		ss_index_tail_feed(&t->tf_tim, t->tbuf, t->tim_size);
	return tails_done(t);
}

/* PH_TAIL: the next window of each index's tail fed to its search, until both are done. */
static int tail_read_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;

	if (!t->tf_idx.done) {
		if (rq[0].res < 0) {
			seg_error(t, (int)rq[0].res, SS_HAS_INDEX, rq[0].off);
			t->tf_idx.best = -1;
			t->tf_idx.done = true;
			s->flags |= SS_SEG_INDEX_BAD;
		} else {
			t->bytes_read += rq[0].res;
			ss_index_tail_feed(&t->tf_idx, t->ibuf, rq[0].res);
		}
	}
	if (!t->tf_tim.done) {
		if (rq[1].res < 0) {
			seg_error(t, (int)rq[1].res, SS_HAS_TIMEINDEX, rq[1].off);
			t->tf_tim.best = -1;
			t->tf_tim.done = true;
		} else {
			t->bytes_read += rq[1].res;
			ss_index_tail_feed(&t->tf_tim, t->tbuf, rq[1].res);
		}
	}
	if (t->tf_idx.done && t->tf_tim.done)
		return tails_done(t);
	return submit_tail_reads(t);
}

/* PH_WALK: a window of the .log (a copy, or a mapping fed under the SIGBUS guard) fed to
 * the walker. */
static int walk_read_done(struct ss_task *t)
{
	struct ss_seg *s = seg_of(t);
	struct ss_io_req *rq = t->req;
	int r;

	int64_t got = rq[0].res;
	if (got < 0 && rq[0].borrow && !t->no_borrow) {
		/* not mapped (ENOMEM under ulimit -v, a file system without mmap): the
		 * same read copying, which reports the file's own error if it has one */
		t->no_borrow = true;
		return next_read(t);
	}
	if (got < 0) {
		seg_error(t, (int)got, SS_HAS_LOG, rq[0].off);
		/* Stop here; what we walked so far stands. */
		t->w.done = true;
		return finish(t);
	}
	t->bytes_read += got;
	if (rq[0].data != t->buf) {
		struct guarded_feed gf = { &t->w, rq[0].off, rq[0].data, (size_t)got, 0 };
		if (ss_io_guarded(feed_fn, &gf, rq[0].data, (size_t)got) < 0) {
			/* The file shrank under the mapping: the walker stopped somewhere
			 * inside this feed, so walk the segment again with copies, which
			 * end where the file now ends. */
			s->flags |= SS_SEG_CHANGED;
			t->no_borrow = true;
			return start_walk(t, 0, false);
		}
		r = gf.r;
		t->env->borrowed += (uint64_t)got;
	} else {
		r = ss_walk_feed(&t->w, rq[0].off, t->buf, (size_t)got);
	}
	if (r)
		return r;
	if (t->idx_target >= 0 && t->w.want_pos != t->walk_from && !index_start_ok(t, false)) {
		s->flags |= SS_SEG_INDEX_BAD;
		return start_walk(t, 0, false);
	}
	return next_read(t);
}

/* Called when every request of the current phase has completed: the phase's step. */
static int advance(struct ss_task *t, bool *finished)
{
	ss_assert(t->pending == 0); /* a phase's requests have all completed */
	switch (t->phase) {
	case PH_OPEN:
		return open_done(t, finished);

	case PH_STAT:
		return stat_done(t);

	case PH_SIDE:
		return side_done(t);

	case PH_WHOLE:
		return whole_done(t);

	case PH_SIDESTAT:
		return sidestat_done(t);

	case PH_TAIL:
		return tail_read_done(t);

	case PH_WALK:
		return walk_read_done(t);

	case PH_CLOSE:
		*finished = true;
		return 0;

	case PH_REUSE:
		return reuse_done(t, finished);

	case PH_ZPROBE:
		return zprobe_done(t);
	}
	return -EINVAL;
}

int ss_task_complete(struct ss_task *t, struct ss_io_req *req, bool *finished)
{
	/* one of this task's requests, completed once: a second completion of a request, or
	 * one of another task's, would advance the state machine from a wrong phase */
	ss_assert(req >= t->req && req < t->req + SS_TASK_MAX_REQS && req->udata == t);
	ss_assert(t->pending > 0);
	/* results are read from t->req[] by slot; only eviction needs the request now,
	 * while its fd is still open */
	if (req->op == SS_IO_READ && t->env->evict)
		t->env->evicted_bytes += ss_evict_drop(&t->cold[req - t->req], req->fd);
	*finished = false;
	if (--t->pending > 0)
		return 0;
	int r = advance(t, finished);
	/* a finished segment leaves nothing behind: no request in flight, every file closed */
	ss_assert(r || !*finished || (t->pending == 0 && t->fd_log < 0 && t->fd_idx < 0 && t->fd_tim < 0));
	return r;
}
