/*
 * Offset index (.index) and time index (.timeindex) tails: pure functions over bytes.
 * docs/kafka-format.md §3.1–3.4. Entries: .index = int32 relativeOffset, int32 position
 * (8 bytes); .timeindex = int64 timestamp, int32 relativeOffset (12 bytes).
 *
 * An active (or crashed) segment's index files are preallocated: valid entries at the
 * front, zero slots after them. Kafka itself trusts every slot; a scanner must find the
 * valid prefix.
 */
#ifndef SS_FMT_INDEX_H
#define SS_FMT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/endian.h"

#define SS_OFFSET_ENTRY 8
#define SS_TIME_ENTRY   12

struct ss_offset_entry { int32_t rel; int32_t pos; };
struct ss_time_entry   { int64_t ts;  int32_t rel; };

static inline struct ss_offset_entry ss_offset_entry_at(const uint8_t *p)
{
	struct ss_offset_entry e;
	e.rel = ss_be32s(p);
	e.pos = ss_be32s(p + 4);
	return e;
}

/* Is slot `slot` (0-based, in the whole file) of an offset index a written entry?
 * A written entry always has position > 0 (an entry is only added after more than
 * index.interval.bytes were appended); slot 0 with (0,0) is empty. */
static inline bool ss_offset_slot_used(struct ss_offset_entry e) { return e.pos > 0; }
static inline bool ss_time_slot_used(struct ss_time_entry e) { return !(e.ts == 0 && e.rel == 0); }

/*
 * buf[0..len) holds whole slots of an offset index starting at file slot `first_slot`
 * (a trailing partial slot is ignored). Find the last used slot, scanning backward over
 * the zero tail. Returns its slot number in the file (>= first_slot), or -1 if no slot
 * in buf is used; *entry receives it. Whether the entry agrees with the log is the
 * caller's check (the position must hold a batch whose last offset >= base + rel).
 */
int64_t ss_offset_index_last(const uint8_t *buf, size_t len, int64_t first_slot, struct ss_offset_entry *entry);

/* Same for a time index (a slot is used unless it is (0, 0)). */
int64_t ss_time_index_last(const uint8_t *buf, size_t len, int64_t first_slot, struct ss_time_entry *entry);

/*
 * The last written slot of a whole index file, read a window at a time (the caller does
 * the reads: this is a pure state machine). The last window is looked at first, since a
 * closed (trimmed) index ends with its last entry; if it holds no entry, the file is
 * preallocated and a binary search over whole windows finds the last window whose first
 * slot is used (written slots form a prefix, zeros follow), which holds the last entry.
 *
 *   ss_index_tail_init(&t, SS_OFFSET_ENTRY, file_size, 4096);
 *   while (!t.done) { ss_index_tail_window(&t, &off, &len); read len bytes at off;
 *                     ss_index_tail_feed(&t, buf, got); }
 *   t.best >= 0: t.offset (or t.time) is the last written entry, slot t.best.
 */
struct ss_index_tail {
	int64_t esz;          /* SS_OFFSET_ENTRY or SS_TIME_ENTRY */
	int64_t nslots;       /* whole slots in the file */
	int64_t win;          /* slots per window */
	int64_t lo, hi;       /* window search range [lo, hi) */
	int64_t probe;        /* the window to read next */
	int64_t best;         /* last used slot found, -1 none */
	struct ss_offset_entry offset;  /* slot `best` of an offset index */
	struct ss_time_entry   time;    /* slot `best` of a time index */
	bool    done;
};

void ss_index_tail_init(struct ss_index_tail *t, int64_t esz, int64_t file_size, size_t window_bytes);
/* The byte range of the window to read next (only while !t->done). */
void ss_index_tail_window(const struct ss_index_tail *t, int64_t *off, size_t *len);
/* The got bytes read from that window (short if the file shrank). */
void ss_index_tail_feed(struct ss_index_tail *t, const uint8_t *buf, int64_t got);

#endif
