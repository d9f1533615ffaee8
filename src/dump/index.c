/*
 * .index and .timeindex: the entries as DumpLogSegments lists them (dumpIndex,
 * dumpTimeIndex), and --verify-index: Kafka's own checks of an index against its log, the
 * first failure reported. The checks are those of OffsetIndex/TimeIndex.sanityCheck (a
 * whole number of entries, the last entry not below the base offset / first timestamp) and
 * of DumpLogSegments (each offset entry names the last offset of the batch at its
 * position; each time entry names the last offset of a batch whose max timestamp is the
 * entry's, timestamps increasing), plus the two it implies: entries increase and positions
 * lie inside the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/endian.h"
#include "common/file.h"
#include "common/search.h"
#include "dump/dump_int.h"
#include "fmt/batch.h"
#include "fmt/index.h"
#include "io/fwin.h"
#include "segscan.h"

char *dd_sibling(const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	const char *dot = strchr(name, '.');
	size_t stem = dot ? (size_t)(dot - path) : strlen(path);
	char *s = malloc(stem + strlen(suffix) + 1);
	if (!s)
		return NULL;
	memcpy(s, path, stem);
	strcpy(s + stem, suffix);
	return s;
}

/* The offset index's entries as DumpLogSegments lists them: every slot, except that a slot
 * after the first whose offset is the base offset ends the list (the zeros of a
 * preallocated or crashed file). Returns how many. */
size_t dd_index_entries(const uint8_t *buf, size_t len)
{
	size_t n = len / SS_OFFSET_ENTRY;
	for (size_t i = 1; i < n; i++)
		if (ss_offset_entry_at(buf + i * SS_OFFSET_ENTRY).rel == 0)
			return i;
	return n;
}

size_t dd_timeindex_entries(const uint8_t *buf, size_t len)
{
	size_t n = len / SS_TIME_ENTRY;
	for (size_t i = 1; i < n; i++)
		if (ss_be32s(buf + i * SS_TIME_ENTRY + 8) == 0)
			return i;
	return n;
}

struct index_key {
	int64_t base, target;
};

/* An offset index entry sorts before the key while its offset is <= the target. */
static int cmp_index_entry(const void *elem, const void *key)
{
	const struct index_key *k = key;
	return k->base + ss_offset_entry_at(elem).rel <= k->target ? -1 : 1;
}

/* OffsetIndex.lookup: the position of the last entry whose offset <= target (0 if none). */
int64_t dd_index_lookup(const uint8_t *buf, size_t n, int64_t base, int64_t target)
{
	const struct index_key k = { base, target };
	/* the first entry > target */
	size_t lo = ss_lower_bound(buf, n, SS_OFFSET_ENTRY, cmp_index_entry, &k, NULL);
	return lo == 0 ? 0 : ss_offset_entry_at(buf + (lo - 1) * SS_OFFSET_ENTRY).pos;
}

/* The .log an index is verified against, read through a file window (io/fwin.h). */
struct logf {
	int            fd;
	int64_t        size;
	struct ss_fwin w;
};

static void close_log(struct logf *l)
{
	ss_fwin_close(&l->w);   /* pairs with the ss_fwin_open in open_sibling */
	close(l->fd);           /* pairs with the ss_open_ro there */
}

/* The batch header at pos: 0, or a reason in why. */
static int header_at(struct logf *l, int64_t pos, struct ss_batch_hdr *h, char *why, size_t wl)
{
	const uint8_t *b;
	if (pos < 0 || pos >= l->size) {
		snprintf(why, wl, "position %lld is outside the log (%lld bytes)", (long long)pos, (long long)l->size);
		return -1;
	}
	ssize_t n = ss_fwin_get(&l->w, pos, SS_MAX_HEADER_SIZE, l->size, &b);
	if (n < 0) {
		snprintf(why, wl, "reading the log: %s", strerror((int)-n));
		return -1;
	}
	int r = ss_batch_header(b, (size_t)n, h);
	if (r <= 0) {
		snprintf(why, wl, "no valid batch at position %lld (%s)", (long long)pos,
			 r ? segscan_strerror(r) : "the log ends inside its header");
		return -1;
	}
	return 0;
}

static void verdict(struct ss_dump *d, bool ok, int64_t slot, size_t entries, const char *why)
{
	struct ss_dout *o = &d->out;
	if (!ok) {
		d->errors++;
		if (d->status < SS_DUMP_DATA)
			d->status = SS_DUMP_DATA;
	}
	if (d->opts.fmt == SS_DUMP_TEXT) {
		if (ok) {
			dd_text(d, d->path, strlen(d->path));
			ss_dout_str(o, " passed sanity check.\n");
		} else {
			ss_dout_str(o, "Verification of ");
			dd_text(d, d->path, strlen(d->path));
			ss_dout_str(o, " failed at entry ");
			ss_dout_i64(o, slot);
			ss_dout_str(o, ": ");
			dd_text(d, why, strlen(why));
			ss_dout_ch(o, '\n');
		}
		return;
	}
	dd_item(d, "verify_index");
	ss_dj_kbool(o, "ok", ok);
	ss_dj_ki64(o, "entries", (int64_t)entries);
	if (!ok) {
		ss_dj_ki64(o, "entry", slot);
		ss_dj_key(o, "reason");
		dd_strn(o, (const uint8_t *)why, (int32_t)strlen(why));
	}
	dd_item_end(d);
}

/* The sibling .log, opened as every input is (common/file.h ss_open_reg): a FIFO, a device
 * or a directory in its place is refused before any read (SEGSCAN_ENOTREG, its type in
 * *mode), never waited on or read as a log. */
static int open_sibling(const char *path, const char *suffix, struct logf *l, mode_t *mode)
{
	char *s = dd_sibling(path, suffix);
	if (!s)
		return -ENOMEM;
	struct stat st = { 0 };
	l->fd = ss_open_reg(AT_FDCWD, s, 0, &st);
	free(s);   /* pairs with dd_sibling */
	*mode = st.st_mode;
	if (l->fd < 0)
		return l->fd;
	l->size = st.st_size;
	int e = ss_fwin_open(&l->w, l->fd, l->size, NULL);
	if (e) {
		close(l->fd);   /* pairs with the ss_open_reg above: no window, no log */
		l->fd = -1;
	}
	return e;
}

/* What both verifies check first: the index is a whole number of `entry`-byte entries
 * (`index`.sanityCheck in Kafka) and its .log opens. On failure the verdict is written and
 * false returned; on true l->fd is open and the caller closes it (pairs with this). */
static bool verify_open(struct ss_dump *d, size_t len, size_t n, int entry, const char *index, struct logf *l)
{
	char why[256];
	if (len % (size_t)entry) {
		snprintf(why, sizeof(why), "the file has %zu bytes, not a multiple of %d (%s.sanityCheck)", len, entry,
			 index);
		verdict(d, false, (int64_t)(len / (size_t)entry), n, why);
		return false;
	}
	mode_t mode = 0;
	int r = open_sibling(d->path, ".log", l, &mode);
	if (r == SEGSCAN_ENOTREG) {
		snprintf(why, sizeof(why), "its .log is %s, not a regular file: not read", ss_file_type_name(mode));
		verdict(d, false, 0, n, why);
		return false;
	}
	if (r) {
		snprintf(why, sizeof(why), "its .log cannot be opened: %s", segscan_strerror(r));
		verdict(d, false, 0, n, why);
		return false;
	}
	return true;
}

static void verify_offsets(struct ss_dump *d, const uint8_t *buf, size_t len, size_t n, int64_t base)
{
	char why[256];
	struct logf l = { .fd = -1 };
	if (!verify_open(d, len, n, SS_OFFSET_ENTRY, "OffsetIndex", &l))
		return;
	for (size_t i = 0; i < n; i++) {
		struct ss_offset_entry e = ss_offset_entry_at(buf + i * SS_OFFSET_ENTRY);
		int64_t off = base + e.rel;
		if (e.rel < 0) {
			snprintf(why, sizeof(why), "offset %lld is below the base offset %lld", (long long)off, (long long)base);
			goto bad;
		}
		if (i > 0) {
			struct ss_offset_entry p = ss_offset_entry_at(buf + (i - 1) * SS_OFFSET_ENTRY);
			if (e.rel <= p.rel || e.pos <= p.pos) {
				snprintf(why, sizeof(why), "not increasing: [%lld, %d] after [%lld, %d]", (long long)off, e.pos,
					 (long long)(base + p.rel), p.pos);
				goto bad;
			}
		}
		struct ss_batch_hdr h;
		if (header_at(&l, e.pos, &h, why, sizeof(why)))
			goto bad;
		if (h.last_offset != off) {
			/* DumpLogSegments' "Index offset: X, log offset: Y" */
			snprintf(why, sizeof(why), "Index offset: %lld, log offset: %lld (the batch at position %d)",
				 (long long)off, (long long)h.last_offset, e.pos);
			goto bad;
		}
		continue;
bad:
		verdict(d, false, (int64_t)i, n, why);
		close_log(&l);
		return;
	}
	close_log(&l);   /* pairs with verify_open */
	verdict(d, true, -1, n, NULL);
}

static void verify_times(struct ss_dump *d, const uint8_t *buf, size_t len, size_t n, int64_t base)
{
	char why[256];
	struct logf l = { .fd = -1 };
	char *ib = NULL;
	size_t il = 0, in = 0;
	if (!verify_open(d, len, n, SS_TIME_ENTRY, "TimeIndex", &l))
		return;
	/* the offset index finds where to start looking, as OffsetIndex.lookup does for Kafka */
	{
		char *ip = dd_sibling(d->path, ".index");
		if (ip) {
			if (ss_read_file(AT_FDCWD, ip, (size_t)1 << 30, &ib, &il) == 0)
				in = dd_index_entries((const uint8_t *)ib, il);
			free(ip);   /* pairs with dd_sibling */
		}
	}
	int64_t prev_ts = -1;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = buf + i * SS_TIME_ENTRY;
		int64_t ts = ss_be64s(p);
		int64_t off = base + ss_be32s(p + 8);
		if (i > 0 && prev_ts >= ts) {
			snprintf(why, sizeof(why), "Index timestamp: %lld, Previously indexed timestamp: %lld (out of order)",
				 (long long)ts, (long long)prev_ts);
			goto bad;
		}
		prev_ts = ts;
		int64_t pos = ib ? dd_index_lookup((const uint8_t *)ib, in, base, off) : 0;
		struct ss_batch_hdr h;
		for (;;) {
			if (pos >= l.size) {
				snprintf(why, sizeof(why), "Indexed offset: %lld, found log offset: -1 (not in the log)",
					 (long long)off);
				goto bad;
			}
			if (header_at(&l, pos, &h, why, sizeof(why)))
				goto bad;
			if (h.last_offset >= off)
				break;
			pos += h.size;
		}
		if (h.last_offset != off) {
			snprintf(why, sizeof(why), "Indexed offset: %lld, found log offset: %lld", (long long)off,
				 (long long)h.last_offset);
			goto bad;
		}
		if (h.max_timestamp != ts) {
			snprintf(why, sizeof(why), "Index timestamp: %lld, log timestamp: %lld", (long long)ts,
				 (long long)h.max_timestamp);
			goto bad;
		}
		continue;
bad:
		verdict(d, false, (int64_t)i, n, why);
		free(ib);
		close_log(&l);
		return;
	}
	free(ib);
	close_log(&l);   /* pairs with verify_open */
	verdict(d, true, -1, n, NULL);
}

/* --index-sanity-check: OffsetIndex.sanityCheck / TimeIndex.sanityCheck alone, the check
 * a broker runs at startup to decide whether to rebuild an index (storage/.../log/
 * OffsetIndex.java, TimeIndex.java), in their order and words. Every slot of the file
 * counts (an index opened read-only has all of them as entries: AbstractIndex), so the
 * last entry is the file's last slot. */
static void sanity_check(struct ss_dump *d, bool offsets, const uint8_t *buf, size_t len, int64_t base)
{
	char why[256];
	int esz = offsets ? SS_OFFSET_ENTRY : SS_TIME_ENTRY;
	size_t slots = len / (size_t)esz;
	if (slots) {
		const uint8_t *last = buf + (slots - 1) * (size_t)esz;
		int64_t off = base + (offsets ? ss_offset_entry_at(last).rel : ss_be32s(last + 8));
		if (!offsets && ss_be64s(last) < ss_be64s(buf)) {
			snprintf(why, sizeof(why), "Corrupt time index found: the last timestamp is %lld which is lesser "
				 "than the first timestamp %lld", (long long)ss_be64s(last), (long long)ss_be64s(buf));
			verdict(d, false, (int64_t)(slots - 1), slots, why);
			return;
		}
		if (off < base) {
			snprintf(why, sizeof(why), "Corrupt %sindex found: the last offset is %lld which is less than the "
				 "base offset %lld", offsets ? "" : "time ", (long long)off, (long long)base);
			verdict(d, false, (int64_t)(slots - 1), slots, why);
			return;
		}
	}
	if (len % (size_t)esz) {
		snprintf(why, sizeof(why), "%s file is corrupt, found %zu bytes which is neither positive nor a multiple "
			 "of %d", offsets ? "Index" : "Time index", len, esz);
		verdict(d, false, (int64_t)slots, slots, why);
		return;
	}
	verdict(d, true, -1, slots, NULL);
}

void dd_dump_index(struct ss_dump *d, bool offsets, const uint8_t *buf, size_t len, int64_t base)
{
	struct ss_dout *o = &d->out;
	size_t n = offsets ? dd_index_entries(buf, len) : dd_timeindex_entries(buf, len);
	if (offsets && n == 0) {
		if (d->opts.fmt == SS_DUMP_TEXT) {
			dd_text(d, d->path, strlen(d->path));
			ss_dout_str(o, " is empty.\n");   /* DumpLogSegments.dumpIndex */
		}
		if (d->opts.sanity_only) {             /* which returns before the sanity check */
			if (d->opts.fmt != SS_DUMP_TEXT)
				verdict(d, true, -1, 0, NULL);
			return;
		}
	}
	if (d->opts.sanity_only) {
		d->entries = (int64_t)n;
		sanity_check(d, offsets, buf, len, base);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		d->entries++;
		if (d->opts.verify_only)
			continue;   /* --verify-index-only: checked below, not listed */
		if (offsets) {
			struct ss_offset_entry e = ss_offset_entry_at(buf + i * SS_OFFSET_ENTRY);
			if (d->opts.fmt == SS_DUMP_TEXT) {
				ss_dout_str(o, "offset: "); ss_dout_i64(o, base + e.rel);
				ss_dout_str(o, " position: "); ss_dout_i64(o, e.pos);
				ss_dout_ch(o, '\n');
				continue;
			}
			dd_item(d, "index_entry");
			ss_dj_ki64(o, "entry", (int64_t)i);
			ss_dj_ki64(o, "offset", base + e.rel);
			ss_dj_ki64(o, "position", e.pos);
			dd_item_end(d);
		} else {
			const uint8_t *p = buf + i * SS_TIME_ENTRY;
			int64_t ts = ss_be64s(p), off = base + ss_be32s(p + 8);
			if (d->opts.fmt == SS_DUMP_TEXT) {
				ss_dout_str(o, "timestamp: "); ss_dout_i64(o, ts);
				ss_dout_str(o, " offset: "); ss_dout_i64(o, off);
				ss_dout_ch(o, '\n');
				continue;
			}
			dd_item(d, "time_index_entry");
			ss_dj_ki64(o, "entry", (int64_t)i);
			ss_dj_ki64(o, "timestamp_ms", ts);
			ss_dj_ki64(o, "offset", off);
			dd_item_end(d);
		}
	}
	if (!d->opts.verify_index)
		return;
	if (offsets)
		verify_offsets(d, buf, len, n, base);
	else
		verify_times(d, buf, len, n, base);
}
