/*
 * One segment's read plan as a state machine over an I/O engine. Many tasks are in flight
 * per worker; each completion advances its task, which may submit more requests.
 *
 * Fast path (reads a few KiB per segment, whatever its size):
 *   A  open .log, then fstat it (by descriptor: no second path lookup)
 *   B  (log > SMALL) open .index/.timeindex and read the log head (the first batch
 *      header, for BASE_OFFSET_MISMATCH); a closed segment's small indexes are then
 *      read whole (no fstat: the short read is the size), others fstat'ed
 *   C  read the index tails; find the last written slot (binary search over a
 *      preallocated zero tail)
 *   D  walk batch headers from the last index entry's position to the end of the log
 *   E  (a zero tail: a preallocated active segment) prove the rest of the file zero
 *      without reading it: SEEK_DATA/SEEK_HOLE skips holes, data is sampled (see task.c)
 * A log of at most SMALL bytes, or one without a usable index, is walked from the start.
 * --verify reads the whole .log sequentially in chunks and checks every batch; a .log
 * above SS_TASK_BORROW_MIN is walked in place in a mapping the engine lends (zero-copy).
 * With segscan_reuse, an unchanged closed segment is one statx of its path instead.
 */
#ifndef SS_SCAN_TASK_H
#define SS_SCAN_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "discover/discover.h"
#include "fmt/batch.h"
#include "fmt/index.h"
#include "io/engine.h"
#include "io/evict.h"

/* A log of at most SMALL bytes is read whole instead of its indexes. Measured (make bench,
 * shapes; bench/results/): the index path costs less CPU than the whole read from about
 * 32 KiB on (64 KiB segments: 13 us instead of 20 us per segment), more below it. */
#ifndef SS_TASK_SMALL   /* -D for the benchmark's experiments */
#define SS_TASK_SMALL      (32 * 1024)
#endif
#define SS_TASK_CHUNK      (64 * 1024)   /* fast-path read size */
/* Fast-path read size from the last offset-index entry. Kafka adds an entry before a
 * batch once more than index.interval.bytes (default 4096) were appended since the last
 * one (LogSegment.append, storage/src/main/java/org/apache/kafka/storage/internals/log/
 * LogSegment.java), so every batch after the last entry but the final one fits in the
 * interval, and the final one's header starts inside it: one read of the interval and
 * a header sees every header to the end (a larger interval just takes another read). */
#ifndef SS_TASK_TAIL_CHUNK
#define SS_TASK_TAIL_CHUNK (4096 + SS_MAX_HEADER_SIZE)
#endif
/* A closed segment's index files are read whole from offset 0, without an fstat, when
 * the most entries the interval rule allows for its .log size (see ss_task_index_bound)
 * fit in this many bytes: the short read's length is then the file's size. */
#ifndef SS_TASK_WHOLE_INDEX
#define SS_TASK_WHOLE_INDEX 1024
#endif
#ifndef SS_TASK_VCHUNK
/* --verify read size. Measured (1 GB of 1 MiB segments, warm, medians of 9 paired runs):
 * 128 KiB took 11 % less CPU and wall than 1 MiB (the chunk stays in L2 between the
 * kernel's copy and the CRC pass), 64 KiB the same as 128, 32 KiB 6 % more. */
#define SS_TASK_VCHUNK     (128 * 1024)
#endif
/* --verify of a .log larger than BORROW_MIN, or from its first batch larger than a
 * quarter of SS_TASK_VCHUNK on (a chunk then ends inside a batch more often than not and
 * the rest is copied twice: zstd batches of 1000 records, 1 MiB segments, CPU -16 %,
 * verify/cat wall 0.76 -> 0.66; small batches unchanged), reads it zero-copy: the
 * engine lends a
 * mapping (engine.h, req->borrow) and the walker runs on it under the SIGBUS guard, in
 * feeds of BORROW_CHUNK. Measured (warm, medians of paired runs, verify wall over cat's):
 * 64 MiB segments 1.37 copying -> 0.61 borrowed; 1 MiB 0.64 vs 0.66 (even); 64 KiB
 * 0.38 vs 1.17 (a mapping per small file costs more than its copy). */
#ifndef SS_TASK_BORROW_MIN
#define SS_TASK_BORROW_MIN   ((int64_t)1 << 20)
#endif
/* 8 MiB: the engine unmaps what is behind each borrowed read (mmap.c), so a task keeps
 * about this much mapped in; as fast as 64 MiB feeds (paired runs, 64 MiB segments). */
#ifndef SS_TASK_BORROW_CHUNK_MIB
#define SS_TASK_BORROW_CHUNK_MIB 8
#endif
#define SS_TASK_BORROW_CHUNK ((size_t)SS_TASK_BORROW_CHUNK_MIB << 20)
/* --verify's first read of a .log above 4 copy chunks (and at most BORROW_MIN, which is
 * borrowed from the start): small, because what the first batches look like decides
 * whether the rest is copied or borrowed, and a segment of big batches would otherwise
 * copy a whole first chunk before switching. Measured (warm, 11 paired runs, verify):
 * 1 MiB segments of 1000-record zstd batches CPU and wall -7 % (verify/cat 0.70 ->
 * 0.65), 1 MiB of 100-record uncompressed batches even (one more read per segment). */
#ifndef SS_TASK_VFIRST
#define SS_TASK_VFIRST (32 * 1024)
#endif
#define SS_TASK_PROBE      4096          /* index tail / probe read size */
#ifndef SS_TASK_CLOSED_WIN
#define SS_TASK_CLOSED_WIN 96            /* closed segments' index tail window (8 or 12 slots) */
#endif
#define SS_TASK_MAX_REQS   6
#define SS_TASK_ZSAMPLES   4             /* pages sampled of a zero tail's data extents */
#define SS_TASK_ZREGIONS   8             /* data extents of a zero tail looked up, at most */

struct ss_task_env {
	const struct ss_io_ops *ops;
	struct ss_io_engine    *eng;
	struct ss_catalog      *cat;
	bool                    verify;
	unsigned                arena;   /* the worker's jemalloc arena for task buffers */
	const struct ss_seg    *prev_segs;  /* segscan_reuse: the previous scan's segments */
	const struct ss_seg_id *prev_ids;   /* and their identities (never NULL with reuse_from) */
	const uint32_t         *reuse_from; /* per segment: index into prev_segs or UINT32_MAX */
	bool                    evict;      /* drop pages we brought into the page cache */
	uint64_t                borrowed;   /* --verify bytes walked in place (zero-copy) */
	uint64_t                reused;     /* counters, owned by the worker */
	uint64_t                evicted_bytes;
};

struct ss_task {
	struct ss_task_env *env;       /* the worker's: shared by its tasks, counters included */
	uint32_t          seg_idx;
	int               phase;
	int               pending;
	int               fd_log, fd_idx, fd_tim;
	int64_t           idx_size, tim_size;
	struct ss_index_tail tf_idx, tf_tim;  /* fmt/index.h: the window search */
	int64_t           tim_max;      /* last time index entry's timestamp, -1 none */
	int64_t           idx_target;   /* base + rel of the index entry walked from, -1 none */
	int64_t           walk_from;
	int64_t           mtime_ns;     /* the .log's, from its fstat: Kafka's timestamp fallback */
	int64_t           bytes_read;   /* this segment's, for the USDT probe */
	int64_t           log_data_end; /* reads stop here: end of the .log's data prefix */
	int64_t           log_hole_from;/* from here to the end the .log is one hole (zeros) */
	bool              zprobed;      /* the walk's zero tail has been probed (phase E) */
	bool              borrowing;    /* --verify reads this segment zero-copy (task.c) */
	bool              no_borrow;    /* a borrowed feed faulted: copy from now on */
	int               zp_n;         /* sample reads in flight in phase E */
	struct ss_walk    w;
	uint8_t          *buf;          /* log chunk buffer */
	size_t            buf_cap;
	uint8_t          *ibuf, *tbuf;  /* SS_TASK_PROBE each */
	struct ss_io_req  req[SS_TASK_MAX_REQS];
	/* --evict: per request slot, the pages of its read that were not resident before
	 * it (io/evict.h: we bring those in, so we drop them after) */
	struct ss_evict_span cold[SS_TASK_MAX_REQS];
	char              path_log[320], path_idx[320], path_tim[320];
};

int  ss_task_init(struct ss_task *t, struct ss_task_env *env);
void ss_task_destroy(struct ss_task *t);
/* Begin a segment: submits its first requests. */
int  ss_task_start(struct ss_task *t, uint32_t seg_idx);
/* Feed one completed request of this task. Sets *finished when the segment's facts are
 * in its ss_seg (the task can then be reused). Returns 0 or a negative errno only for
 * failures of the engine itself (a file's errors are recorded in the segment). */
int  ss_task_complete(struct ss_task *t, struct ss_io_req *req, bool *finished);

#endif
