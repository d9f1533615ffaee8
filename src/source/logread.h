/*
 * The one reader of a `.log` file's record batches, for every synchronous reader of one:
 * the `__remote_log_metadata` replay (source/remote_topic.c), the KRaft metadata log and
 * its snapshots (source/metadata_log.c) and `segscan dump` (src/dump/). The scanner's
 * workers read segments through their asynchronous engines and the pure walker instead
 * (scan/task.c, fmt/batch.h ss_walk), with the same framing rules from fmt/batch.c.
 *
 * It reads through the file window (io/fwin.h: pread refills, or a mapping under the
 * process's one SIGBUS hook) and frames entries with fmt/batch.h. What it decides is where
 * the data ends and why, the same way for every caller, as Kafka's FileLogInputStream and
 * log recovery do:
 *
 *   SS_LR_END        the walk reached `end` (the file's size, or the caller's limit)
 *   SS_LR_CUT        a batch or header runs past the caller's limit (end < size): not a
 *                    problem of the file (dump --max-bytes)
 *   SS_LR_ZEROS      zeros from `at` to the end of the file: a preallocated or crashed active
 *                    segment's tail (FileRecords.openChannel's setLength), not an error.
 *                    Holes are not read (common/extent.h), data extents are, every byte
 *   SS_LR_TORN_HEADER fewer bytes left than a batch header needs, not all zero (`left`)
 *   SS_LR_TORN_BATCH a header claims more bytes (`hdr.size`) than are left (`left`)
 *   SS_LR_CORRUPT    the header cannot be decoded (`err`: SEGSCAN_ECORRUPT, SEGSCAN_EMAGIC),
 *                    and the rest of the file is not all zeros; `nonzero_at` is the first
 *                    byte that is not zero when the header itself is all zeros (zeros,
 *                    then data), else -1
 *   SS_LR_TOO_BIG    a whole batch larger than the caller's max_batch (`hdr`)
 *   SS_LR_SHRANK     the file ended inside a batch it had room for when opened: it shrank
 *                    under us (`left` bytes were there)
 *   SS_LR_IO         a read failed (`err`, -errno)
 *
 * A torn or corrupt tail whose bytes could not be read to tell zeros from data keeps its
 * verdict with `zero_err` set (the read error).
 *
 *   struct ss_logrd r;
 *   ss_logrd_open(&r, fd, size, &(struct ss_logrd_opts){ .max_batch = ... });
 *   struct ss_lr_batch b;
 *   while (ss_logrd_next(&r, &b) > 0) {
 *       // b.h, b.pos: the header; skip the batch, or ss_logrd_body(&r, &b) for b.data
 *   }
 *   switch (r.stop) ...   // why it ended, at r.at
 *   ss_logrd_close(&r);
 *
 * A mapped reader's bytes (b.data, and the reads inside next/body) are touched only inside
 * ss_logrd_guarded(): a SIGBUS there (the file shrank under the mapping) ends the call with
 * -EFAULT, r.at naming the batch it was in.
 */
#ifndef SS_SOURCE_LOGREAD_H
#define SS_SOURCE_LOGREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt/batch.h"
#include "io/fwin.h"

enum ss_lr_stop {
	SS_LR_NONE = 0,   /* not stopped yet */
	SS_LR_END,
	SS_LR_CUT,
	SS_LR_ZEROS,
	SS_LR_TORN_HEADER,
	SS_LR_TORN_BATCH,
	SS_LR_CORRUPT,
	SS_LR_TOO_BIG,
	SS_LR_SHRANK,
	SS_LR_IO,
};

struct ss_logrd_opts {
	int64_t start;          /* file position of the first entry (0) */
	bool    has_end;        /* stop at `end` (clamped to the size), not at the file's size */
	int64_t end;
	int64_t max_batch;      /* a larger whole batch is SS_LR_TOO_BIG (0: no bound) */
	bool    map;            /* read through a mapping (io/fwin.h) */
	size_t  chunk;          /* pread window (0: 1 MiB) */
	void  (*on_read)(void *arg, uint64_t bytes);   /* progress: bytes read so far */
	void   *arg;
};

struct ss_logrd {
	struct ss_fwin     w;
	int64_t            size;       /* the file's size at open */
	int64_t            end;
	int64_t            max_batch;
	int64_t            pos;        /* the next entry */
	/* the current entry, or where and why the walk stopped */
	volatile int64_t   at;         /* volatile: read after a SIGBUS cut a guarded call */
	enum ss_lr_stop    stop;
	int                err;        /* SS_LR_CORRUPT: the header's error; SS_LR_IO: -errno */
	int                zero_err;   /* the tail's bytes could not be read (-errno), else 0 */
	int64_t            left;       /* bytes from `at` to the end of the file (SHRANK: read) */
	int64_t            nonzero_at; /* SS_LR_CORRUPT with an all-zero header: first data byte */
	bool               has_hdr;    /* hdr is the stopping entry's (TORN_BATCH, TOO_BIG, ...) */
	struct ss_batch_hdr hdr;
};

/* One entry: its header and position; data after ss_logrd_body (else NULL). */
struct ss_lr_batch {
	struct ss_batch_hdr h;
	int64_t             pos;
	const uint8_t      *data;
};

/* fd open for reading, size from its fstat. 0 or -ENOMEM. Pairs with ss_logrd_close (which
 * does not close fd). */
int  ss_logrd_open(struct ss_logrd *r, int fd, int64_t size, const struct ss_logrd_opts *o);
void ss_logrd_close(struct ss_logrd *r);

/* The next entry's header: 1 with *b filled (the entry after it is next unless the caller
 * reads it: the walk advances by b->h.size), 0 when the walk stopped (r->stop, r->at), or
 * -ENOMEM. After a stop every call returns 0. */
int ss_logrd_next(struct ss_logrd *r, struct ss_lr_batch *b);

/* The whole entry `next` returned: 0 with b->data = its h.size bytes (valid until the next
 * call), or 0 with b->data NULL and the walk stopped (SS_LR_SHRANK, SS_LR_IO), or -ENOMEM. */
int ss_logrd_body(struct ss_logrd *r, struct ss_lr_batch *b);

/* fn(arg) under the mapping's SIGBUS guard (io/fwin.h): 0, or -EFAULT when a shrink cut it
 * short (r->at: the entry it was in). Without a mapping fn just runs. */
int ss_logrd_guarded(struct ss_logrd *r, void (*fn)(void *), void *arg);

/* Bytes read or looked at (holes are not). */
static inline int64_t ss_logrd_bytes(const struct ss_logrd *r) { return r->w.bytes; }

#endif
