/*
 * The data model shared along the pipeline:
 *   discovery fills ss_part and the discovery half of ss_seg;
 *   a worker fills the scan half of one ss_seg, then publishes its index on its ring
 *   (the release in ss_ring_publish pairs with the acquire in ss_ring_pop, so the
 *   evaluator sees every field the worker wrote);
 *   the evaluator fills ss_part's evaluation and the per-segment verdicts.
 */
#ifndef SS_MODEL_H
#define SS_MODEL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "fmt/names.h"

/* which sibling files discovery saw (ss_seg.files) */
#define SS_HAS_LOG       0x01
#define SS_HAS_INDEX     0x02
#define SS_HAS_TIMEINDEX 0x04
#define SS_HAS_TXNINDEX  0x08

/* ss_seg.flags */
#define SS_SEG_ACTIVE        0x0001  /* highest base offset of its partition (discovery) */
#define SS_SEG_HAS_LAST      0x0002  /* last_offset is known (the segment holds a batch) */
#define SS_SEG_INDEX_BAD     0x0004  /* index missing or inconsistent: walked from the start */
#define SS_SEG_BASE_MISMATCH 0x0008  /* first batch base offset != file name offset */
#define SS_SEG_READ_ERROR    0x0010  /* I/O error: err/err_pos say where */
#define SS_SEG_VANISHED      0x0020  /* the .log was deleted before we opened it */
#define SS_SEG_CHANGED       0x0040  /* size changed while we read it */
#define SS_SEG_CORRUPT       0x0080  /* framing error inside the data (err, err_pos) */
#define SS_SEG_ZERO_TAIL     0x0100  /* truncated tail is preallocated zeros */
#define SS_SEG_ONLY_LOCAL    0x0200  /* evaluator: base_offset > highest remote offset */
#define SS_SEG_COUNTS_EXACT  0x0400  /* batches/records counted over the whole segment */
#define SS_SEG_OFFSETS_BAD   0x0800  /* offsets go backwards inside the segment (verify) */
#define SS_SEG_PREALLOCATED  0x1000  /* active segment: last batch, then zeros to the file's
					length (preallocate=true); prealloc_bytes of zeros */

/* ss_seg.flags, continued */
#define SS_SEG_FIRST_KNOWN   0x2000  /* the first batch header was read: ss_seg_first_base() */

/*
 * A segment's rare facts: what only a damaged, truncated, preallocated or --verify'd
 * segment has. Most segments have none (ss_seg.x NULL, every accessor below gives the
 * default), which keeps the record a scan holds per segment at 72 bytes: a 1M-segment
 * scan's budget is 64 bytes per segment over a fixed 64 MiB (issue 15). Owned by the
 * segment's catalog (ss_catalog_free); written only by the one task reading the segment,
 * before its ring publish (model.h's header: the evaluator sees it after the pop).
 */
struct ss_segx {
	int64_t  truncated_bytes; /* bytes after valid_bytes that do not form a complete entry */
	int64_t  prealloc_bytes;  /* SS_SEG_PREALLOCATED: the zero tail, not data (else 0) */
	int64_t  first_batch_base;/* with SS_SEG_BASE_MISMATCH: the first batch's base offset */
	int64_t  crc_errors;
	int64_t  crc_first_base;  /* the first batch failing its CRC: base offset, -1 unknown */
	int64_t  crc_first_pos;   /* and byte position, -1 unknown */
	int64_t  err_pos;         /* -1: no position */
	int32_t  err;             /* first error, 0 if none */
	uint32_t err_file;        /* SS_HAS_* of the file err refers to */
};

/* What a segment without a struct ss_segx has. */
extern const struct ss_segx ss_segx_none;

/* batches/records not known (the fast path walks only the tail), or too many to hold */
#define SS_SEG_COUNT_UNKNOWN UINT32_MAX

struct ss_seg {
	/* discovery */
	int64_t  base_offset;
	/* worker */
	int64_t  last_offset;     /* valid with SS_SEG_HAS_LAST */
	int64_t  size_bytes;
	int64_t  valid_bytes;
	int64_t  max_timestamp_ms;  /* Kafka's largestTimestamp: max record timestamp, else file mtime */
	/* evaluator */
	int64_t  end_offset;      /* next base - 1 for closed segments; last_offset for active */
	/* worker */
	struct ss_segx *x;        /* rare facts, NULL: none (ss_seg_x) */
	uint32_t batches;         /* SS_SEG_COUNT_UNKNOWN = unknown (ss_seg_batches) */
	uint32_t records;
	/* discovery */
	uint32_t part;            /* index into the scan's partition array */
	uint16_t flags;           /* SS_SEG_* (ACTIVE set by discovery, the rest by the worker) */
	uint8_t  files;           /* SS_HAS_* */
};

/* Identity of a segment's .log as its fstat gave it: what segscan_reuse compares. Kept
 * beside the segments (ss_catalog.ids) only by a scan a later one may reuse. */
struct ss_seg_id {
	uint64_t dev, ino;
	int64_t  mtime_ns;
};

static inline const struct ss_segx *ss_seg_x(const struct ss_seg *s)
{
	return s->x ? s->x : &ss_segx_none;
}
/* the first error; a read error whose record could not be allocated is -ENOMEM */
static inline int ss_seg_err(const struct ss_seg *s)
{
	return s->x ? s->x->err : (s->flags & SS_SEG_READ_ERROR) ? -ENOMEM : 0;
}
/* It failed before its size was read: its size (and time) are unknown, never 0. */
static inline bool ss_seg_size_unknown(const struct ss_seg *s) { return ss_seg_err(s) && s->size_bytes == 0; }
static inline int64_t ss_seg_err_pos(const struct ss_seg *s) { return s->x ? s->x->err_pos : -1; }
static inline int64_t ss_seg_truncated(const struct ss_seg *s) { return s->x ? s->x->truncated_bytes : 0; }
static inline int64_t ss_seg_prealloc(const struct ss_seg *s) { return s->x ? s->x->prealloc_bytes : 0; }
static inline int64_t ss_seg_crc_errors(const struct ss_seg *s) { return s->x ? s->x->crc_errors : 0; }
/* the first batch's base offset, -1 when its header was not read */
static inline int64_t ss_seg_first_base(const struct ss_seg *s)
{
	if (!(s->flags & SS_SEG_FIRST_KNOWN))
		return -1;
	return (s->flags & SS_SEG_BASE_MISMATCH) && s->x ? s->x->first_batch_base : s->base_offset;
}
/* -1 when unknown */
static inline int64_t ss_seg_batches(const struct ss_seg *s)
{
	return s->batches == SS_SEG_COUNT_UNKNOWN ? -1 : (int64_t)s->batches;
}
static inline int64_t ss_seg_records(const struct ss_seg *s)
{
	return s->records == SS_SEG_COUNT_UNKNOWN ? -1 : (int64_t)s->records;
}
/* a count for ss_seg.batches/records: negative or too large is unknown */
static inline uint32_t ss_seg_count(int64_t n)
{
	return n < 0 || n >= (int64_t)SS_SEG_COUNT_UNKNOWN ? SS_SEG_COUNT_UNKNOWN : (uint32_t)n;
}

/* The segment's rare facts, created on first need; NULL on allocation failure. */
struct ss_segx *ss_seg_xget(struct ss_seg *s);
/* Record the segment's first error (later ones usually follow from it); without memory
 * for the record, SS_SEG_READ_ERROR alone says it (ss_seg_err: -ENOMEM). */
void ss_seg_set_error(struct ss_seg *s, int err, uint32_t file, int64_t pos);
/* A fresh segment as discovery makes it. */
void ss_seg_init(struct ss_seg *s, int64_t base_offset, uint8_t files);
/* *dst = *src with its own copy of the rare facts (dst's own are freed first): 0 or -ENOMEM. */
int  ss_seg_copy(struct ss_seg *dst, const struct ss_seg *src);
/* Free the rare facts of n segments. */
void ss_segs_free_x(struct ss_seg *segs, uint32_t n);

/* The segment's bytes as Kafka's Size gauge counts them: a preallocated segment's
 * FileRecords size is what was appended, not the file's zero-filled length. */
static inline int64_t ss_seg_kafka_size(const struct ss_seg *s)
{
	return s->size_bytes - ss_seg_prealloc(s);
}

/* A non-segment file worth telling the operator about. */
struct ss_note {
	char    *path;            /* relative to the log dir */
	char    *what;            /* "deleted", "cleaned", "swap", "unknown file", "stray dir"... */
};

/* A place that could not be read or makes no sense, with the file and offset/line
 * (recorded by discovery and every later stage: ss_catalog_problem). */
struct ss_problem {
	char   *path;     /* log dir + relative path */
	char   *what;     /* human sentence */
	int     err;
	int64_t where;    /* byte offset or line, -1 if none */
	bool    data_loss;/* counts for exit 1 */
};

struct ss_part {
	char            *topic;
	char            *dir;        /* directory name inside the log dir */
	uint32_t         logdir;     /* index into the scan's log dirs */
	const char      *logdir_path;/* that log dir's path (owned by the catalog) */
	int32_t          partition;
	enum ss_dir_kind kind;
	int              unreadable; /* 0, or why the directory could not be listed (negative errno):
					the partition is reported with its error and null values */
	uint32_t         seg_first;  /* segments are contiguous in the scan's array, by base offset */
	uint32_t         seg_count;
	uint32_t         seg_pending;/* evaluator: segments not yet back from the workers */
	bool             has_topic_id;
	uint8_t          topic_id[16];
	bool             has_log_start;   /* from log-start-offset-checkpoint */
	int64_t          log_start_ckpt;
	bool             has_recovery_point;
	int64_t          recovery_point;
	bool             has_high_watermark;
	int64_t          high_watermark;
	struct ss_epoch_entry *epochs;    /* leader-epoch-checkpoint */
	uint32_t         n_epochs;
	bool             epochs_read;     /* false: file missing or unreadable */
	uint32_t         deleted_files, cleaned_files, swap_files, unknown_files, snapshot_files;
	struct ss_eval  *eval;            /* filled by the evaluator */
	bool             reused;          /* taken whole from the previous scan (discover.h,
					     ss_dreuse): no listing, its segments are not read */
};

#endif
