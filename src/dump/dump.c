/*
 * `segscan dump`, the driver: one file at a time, by its name (the kinds of
 * DumpLogSegments.main plus the log dir's text files), read-only, decoded by src/fmt/ and
 * written through the dump's output buffer (dump/dout.h). See dump/dump.h.
 *
 * Reading a .log: a window of the file (1 MiB, more for a larger batch) is read with
 * pread and batches are taken from it in place; only the batch being decoded needs to be
 * whole, so memory is bounded by the largest batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/endian.h"
#include "common/extent.h"
#include "common/file.h"
#include "common/search.h"
#include "common/utf8.h"
#include "dump/dump.h"
#include "dump/dump_int.h"
#include "fmt/batch.h"
#include "fmt/codec.h"
#include "fmt/index.h"
#include "fmt/kraft.h"
#include "fmt/kraft_control.h"
#include "fmt/names.h"
#include "fmt/producer_snapshot.h"
#include "out/out.h"
#include "segscan.h"

#define WINDOW      (1u << 20)
#define SMALL_MAX   ((size_t)1 << 30)  /* index / checkpoint / snapshot files read whole */

/* ---- items: the objects every format writes ---------------------------------------- */

void dd_item(struct ss_dump *d, const char *type)
{
	struct ss_dout *o = &d->out;
	if (d->opts.fmt == SS_DUMP_NDJSON) {
		ss_dj_reset(o);
		ss_dj_obj(o);
		ss_dj_kstr(o, "type", type);
		ss_dj_key(o, "file");
		if (d->path_utf8)   /* the common case, checked once per file: every item has it */
			ss_dj_str(o, d->path);
		else
			dd_strn(o, (const uint8_t *)d->path, (int32_t)strlen(d->path));
	} else {
		ss_dj_obj(o);
		ss_dj_kstr(o, "type", type);
	}
}

void dd_item_end(struct ss_dump *d)
{
	ss_dj_obj_end(&d->out);
	if (d->opts.fmt == SS_DUMP_NDJSON)
		ss_dout_ch(&d->out, '\n');
}

/* A problem with the file: an item (JSON) or a line (text); the file's status becomes 1. */
void dd_error(struct ss_dump *d, int64_t pos, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	d->errors++;
	if (d->status < SS_DUMP_DATA)
		d->status = SS_DUMP_DATA;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(&d->out, "Error in ");
		dd_text(d, d->path, strlen(d->path));
		if (pos >= 0) {
			ss_dout_str(&d->out, " at position ");
			ss_dout_i64(&d->out, pos);
		}
		ss_dout_str(&d->out, ": ");
		dd_text(d, why, strlen(why));
		ss_dout_ch(&d->out, '\n');
		return;
	}
	dd_item(d, "error");
	if (pos >= 0)
		ss_dj_ki64(&d->out, "position", pos);
	else
		ss_dj_knull(&d->out, "position");
	ss_dj_key(&d->out, "reason");
	dd_strn(&d->out, (const uint8_t *)why, (int32_t)strlen(why));
	dd_item_end(d);
}

/* A string from the data: as it is when valid UTF-8 (JSON escapes for the controls), else
 * each byte that does not belong to a well-formed UTF-8 sequence as the four characters
 * \xHH (JSON "\\xff"), as the scan's table shows such bytes (out/term.c): a stray 0xFF
 * and a real U+00FF (which stays "ÿ") differ, and the JSON stays valid. */
void dd_strn(struct ss_dout *o, const uint8_t *s, int32_t n)
{
	if (n < 0) {
		ss_dj_null(o);
		return;
	}
	if (ss_utf8_valid(s, (size_t)n)) {
		ss_dj_strn(o, s, (size_t)n);
		return;
	}
	static const char hex[] = "0123456789abcdef";
	ss_dj_raw(o, "\"");
	for (size_t i = 0, run = 0, l; i <= (size_t)n; i += l) {
		uint32_t cp;
		l = i < (size_t)n ? ss_utf8_seq(s + i, (size_t)n - i, &cp) : 0;
		if (l)
			continue;
		ss_dout_jesc(o, s + run, i - run);   /* the well-formed run before this byte */
		if (i == (size_t)n)
			break;
		char x[5] = { '\\', 'x', hex[s[i] >> 4], hex[s[i] & 15], 0 };
		ss_dout_mem(o, "\\", 1);   /* the backslash, itself escaped for JSON */
		ss_dout_mem(o, x, 4);
		l = 1;
		run = i + 1;
	}
	ss_dout_ch(o, '"');
}

/* Bytes of the input in a line of the text format. Copied as they are when they hold no
 * control character and are well-formed UTF-8 (the common case); else written through the
 * project's one terminal escaping (out/term.c, ss_term_write: ESC as \x1b, U+009B as
 * \u009b, a stray 0xFF as \xff) with a newline escaped too, as \x0a (the form
 * ss_term_write gives the other C0 controls): the text is a line per batch or record,
 * and a newline from the data would forge one. */
void dd_text(struct ss_dump *d, const void *p, size_t n)
{
	const uint8_t *s = p;
	bool plain = true;
	for (size_t i = 0, l; i < n && plain; i += l) {
		uint32_t cp;
		l = 1;
		if (s[i] >= 0x20 && s[i] < 0x7f)
			continue;
		l = ss_utf8_seq(s + i, n - i, &cp);
		plain = l && !ss_utf8_is_control(cp);
	}
	if (plain) {
		ss_dout_mem(&d->out, s, n);
		return;
	}
	ss_dout_flush(&d->out);   /* what is buffered goes first: ss_term_write writes to the FILE */
	FILE *f = d->out.f;
	for (;;) {
		const uint8_t *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n;
		ss_term_write(f, (const char *)s, k);
		if (!nl)
			break;
		fputs("\\x0a", f);
		s += k + 1;
		n -= k + 1;
	}
}

/* --print-data shows bytes as text when they are valid UTF-8 without a NUL (a NUL is valid
 * UTF-8 but marks binary data, which base64 shows better), else base64. */
static bool is_text(const uint8_t *p, int32_t n)
{
	return !memchr(p, 0, (size_t)n) && ss_utf8_valid(p, (size_t)n);
}

/* --print-data: a key, value or header value as UTF-8 text when valid, else base64. */
static void data_field(struct ss_dump *d, const char *name, const uint8_t *p, int32_t n)
{
	struct ss_dout *o = &d->out;
	char enc[32];
	snprintf(enc, sizeof(enc), "%s_encoding", name);
	ss_dj_key(o, name);
	if (n < 0) {
		ss_dj_null(o);
		ss_dj_knull(o, enc);
		return;
	}
	if (is_text(p, n)) {
		ss_dj_strn(o, p, (size_t)n);
		ss_dj_kstr(o, enc, "utf8");
	} else {
		ss_dj_raw(o, "\"");
		ss_dout_base64(o, p, (size_t)n);
		ss_dout_ch(o, '"');
		ss_dj_kstr(o, enc, "base64");
	}
}

static void text_data(struct ss_dump *d, const char *label, const uint8_t *p, int32_t n)
{
	struct ss_dout *o = &d->out;
	ss_dout_ch(o, ' ');
	ss_dout_str(o, label);
	if (n < 0) {
		ss_dout_str(o, ": null");
		return;
	}
	if (is_text(p, n)) {
		ss_dout_mem(o, ": ", 2);
		dd_text(d, p, (size_t)n);
	} else {
		ss_dout_str(o, "(base64): ");
		ss_dout_base64(o, p, (size_t)n);
	}
}

/* ---- reading ----------------------------------------------------------------------- */

/* Exactly n bytes at off (fewer only at end of file): the count, or a negative errno. */
ssize_t dd_pread(int fd, void *buf, size_t n, int64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + (int64_t)got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

struct win {
	int      fd;
	const uint8_t *map;   /* the whole file mapped (NULL: read through buf) */
	uint8_t *buf;
	size_t   cap;
	int64_t  at;      /* file position of buf[0] */
	size_t   len;     /* valid bytes */
	int64_t  seen;    /* the end of what has been read or looked at so far */
	int64_t  read;    /* bytes read or looked at: ss_dump.bytes_read */
};

/* [pos, pos + n) has been read or looked at: count what was not already (the walk only
 * goes forward, so the end of the furthest range is enough to know). */
static void win_count(struct win *w, int64_t pos, int64_t n)
{
	if (pos + n > w->seen) {
		w->read += pos + n - (pos > w->seen ? pos : w->seen);
		w->seen = pos + n;
	}
}

/* Make [pos, pos + n) available (clamped to `end`); returns the bytes available from pos
 * (< n at the end), or a negative errno. */
static ssize_t win_get(struct win *w, int64_t pos, size_t n, int64_t end, const uint8_t **p)
{
	if (pos >= end)
		return 0;
	if ((int64_t)n > end - pos)
		n = (size_t)(end - pos);
	if (w->map) {   /* end <= the mapped size */
		*p = w->map + pos;
		win_count(w, pos, (int64_t)n);
		return (ssize_t)n;
	}
	if (pos >= w->at && pos + (int64_t)n <= w->at + (int64_t)w->len) {
		*p = w->buf + (pos - w->at);
		return (ssize_t)n;
	}
	size_t want = n > WINDOW ? n : WINDOW;
	if ((int64_t)want > end - pos)
		want = (size_t)(end - pos);
	if (want > w->cap) {
		uint8_t *nb = realloc(w->buf, want);   /* freed in dump_log */
		if (!nb)
			return -ENOMEM;
		w->buf = nb;
		w->cap = want;
	}
	ssize_t r = dd_pread(w->fd, w->buf, want, pos);
	if (r < 0)
		return r;
	win_count(w, pos, r);
	w->at = pos;
	w->len = (size_t)r;
	*p = w->buf;
	return (ssize_t)((size_t)r < n ? (size_t)r : n);
}

/*
 * A .log is read through a read-only mapping: batches are decoded and CRC-checked where
 * they lie in the page cache, with no copy (a pread window would copy every byte once,
 * which alone costs what `cat` does). Kafka may truncate a segment while we read it; a
 * page past the new end of file then raises SIGBUS, which this handler turns into a jump
 * back to dump_log (armed only while dump_log runs on this thread: dd_bus), reported as
 * the file having shrunk. Any other SIGBUS gets the default action. SA_NODEFER keeps the
 * signal unblocked after the jump. src/io/mmap.c guards the scanner's copies the same way.
 */
static __thread sigjmp_buf *dd_bus;
static struct sigaction dd_prev_bus;   /* the action before ours: faults not ours go there */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	if (dd_bus)
		siglongjmp(*dd_bus, 1);
	if ((dd_prev_bus.sa_flags & SA_SIGINFO) && dd_prev_bus.sa_sigaction) {
		dd_prev_bus.sa_sigaction(sig, si, uc);
		return;
	}
	if (dd_prev_bus.sa_handler != SIG_DFL && dd_prev_bus.sa_handler != SIG_IGN) {
		dd_prev_bus.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

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

/* ---- .log (and KRaft .checkpoint) ------------------------------------------------- */

static const char *ts_type(const struct ss_batch_hdr *h)
{
	if (h->magic == 0)
		return "NoTimestampType";
	return (h->attributes & SS_ATTR_LOG_APPEND) ? "LogAppendTime" : "CreateTime";
}

static int32_t last_sequence(const struct ss_batch_hdr *h)
{
	/* DefaultRecordBatch.lastSequence: incrementSequence(base, lastOffsetDelta) */
	if (h->base_sequence < 0)
		return -1;
	int64_t delta = h->last_offset - h->base_offset;
	int64_t s = (int64_t)h->base_sequence + delta;
	return s > INT32_MAX ? (int32_t)(s - INT32_MAX - 1) : (int32_t)s;
}

static void emit_batch(struct ss_dump *d, const struct ss_batch_hdr *h, int64_t pos, bool crc_ok)
{
	struct ss_dout *o = &d->out;
	enum ss_codec codec = (enum ss_codec)(h->attributes & SS_ATTR_CODEC_MASK);
	const char *cname = codec <= SS_CODEC_ZSTD ? ss_codec_name(codec) : "unknown";
	bool v2 = h->magic >= 2;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		/* DumpLogSegments.printBatchLevel */
		if (v2) {
			ss_dout_str(o, "baseOffset: "); ss_dout_i64(o, h->base_offset);
			ss_dout_str(o, " lastOffset: "); ss_dout_i64(o, h->last_offset);
			ss_dout_str(o, " count: "); ss_dout_i64(o, h->records_count);
			ss_dout_str(o, " baseSequence: "); ss_dout_i64(o, h->base_sequence);
			ss_dout_str(o, " lastSequence: "); ss_dout_i64(o, last_sequence(h));
			ss_dout_str(o, " producerId: "); ss_dout_i64(o, h->producer_id);
			ss_dout_str(o, " producerEpoch: "); ss_dout_i64(o, h->producer_epoch);
			ss_dout_str(o, " partitionLeaderEpoch: "); ss_dout_i64(o, h->leader_epoch);
			ss_dout_str(o, (h->attributes & SS_ATTR_TRANSACTIONAL) ? " isTransactional: true" : " isTransactional: false");
			ss_dout_str(o, (h->attributes & SS_ATTR_CONTROL) ? " isControl: true" : " isControl: false");
			ss_dout_str(o, " deleteHorizonMs: ");
			if (h->attributes & SS_ATTR_DELETE_HORIZON) {
				ss_dout_str(o, "OptionalLong[");
				ss_dout_i64(o, h->base_timestamp);
				ss_dout_ch(o, ']');
			} else {
				ss_dout_str(o, "OptionalLong.empty");
			}
		} else {
			ss_dout_str(o, "offset: "); ss_dout_i64(o, h->last_offset);
		}
		ss_dout_str(o, " position: "); ss_dout_i64(o, pos);
		ss_dout_ch(o, ' '); ss_dout_str(o, ts_type(h)); ss_dout_str(o, ": "); ss_dout_i64(o, h->max_timestamp);
		ss_dout_str(o, " size: "); ss_dout_i64(o, h->size);
		ss_dout_str(o, " magic: "); ss_dout_i64(o, h->magic);
		ss_dout_str(o, " compresscodec: "); ss_dout_str(o, cname);
		ss_dout_str(o, " crc: "); ss_dout_u64(o, h->crc);
		ss_dout_str(o, crc_ok ? " isvalid: true\n" : " isvalid: false\n");
		return;
	}
	dd_item(d, "batch");
	ss_dj_ki64(o, "base_offset", h->has_base ? h->base_offset : h->last_offset);
	ss_dj_ki64(o, "last_offset", h->last_offset);
	ss_dj_key(o, "count");
	if (h->records_count >= 0)
		ss_dj_i64(o, h->records_count);
	else
		ss_dj_null(o);
	ss_dj_ki64(o, "position", pos);
	ss_dj_ki64(o, "size_bytes", h->size);
	ss_dj_ki64(o, "magic", h->magic);
	ss_dj_kstr(o, "compression", cname);
	ss_dj_ku64(o, "crc", h->crc);
	ss_dj_kbool(o, "crc_valid", crc_ok);
	ss_dj_ki64(o, "partition_leader_epoch", h->leader_epoch);
	ss_dj_ki64(o, "producer_id", h->producer_id);
	ss_dj_ki64(o, "producer_epoch", h->producer_epoch);
	ss_dj_ki64(o, "base_sequence", h->base_sequence);
	ss_dj_ki64(o, "last_sequence", v2 ? last_sequence(h) : -1);
	ss_dj_kbool(o, "transactional", v2 && (h->attributes & SS_ATTR_TRANSACTIONAL));
	ss_dj_kbool(o, "control", v2 && (h->attributes & SS_ATTR_CONTROL));
	ss_dj_kstr(o, "timestamp_type", ts_type(h));
	ss_dj_ki64(o, "max_timestamp_ms", h->max_timestamp);
	ss_dj_key(o, "delete_horizon_ms");
	if (v2 && (h->attributes & SS_ATTR_DELETE_HORIZON))
		ss_dj_i64(o, h->base_timestamp);
	else
		ss_dj_null(o);
	/* json + --records: the records nest in the batch (closed by end_batch) */
	if (d->opts.fmt == SS_DUMP_JSON && d->opts.records) {
		ss_dj_key(o, "records");
		ss_dj_arr(o);
		return;
	}
	dd_item_end(d);
}

static void end_batch(struct ss_dump *d)
{
	if (d->opts.fmt == SS_DUMP_JSON && d->opts.records) {
		ss_dj_arr_end(&d->out);
		dd_item_end(d);
	}
}

static const char *const control_names[] = { "ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER",
					      "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS" };

struct rec_ctx {
	struct ss_dump *d;
	int64_t         pos;       /* the batch's */
	enum ss_dump_decode dec;
};

static int on_record(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct rec_ctx *c = arg;
	struct ss_dump *d = c->d;
	struct ss_dout *o = &d->out;
	const struct ss_dump_opts *op = &d->opts;
	if ((op->has_from && r->offset < op->from) || (op->has_to && r->offset > op->to))
		return 0;
	d->records++;
	bool control = h->attributes & SS_ATTR_CONTROL;
	int32_t seq = -1;
	if (h->base_sequence >= 0) {   /* DefaultRecordBatch: baseSequence + offsetDelta, wrapping */
		int64_t s = (int64_t)h->base_sequence + (r->offset - h->base_offset);
		seq = s > INT32_MAX ? (int32_t)(s - INT32_MAX - 1) : (int32_t)s;
	}
	/* control records: key int16 version, int16 type (ControlRecordType); COMMIT/ABORT
	 * values are EndTransactionMarker: int16 version, int32 coordinator epoch */
	int ctype = -1;
	int32_t coord_epoch = -1;
	bool marker = false;
	if (control && r->key_len >= 4) {
		ctype = ss_be16s(r->key + 2);
		if ((ctype == 0 || ctype == 1) && r->value_len >= 6) {
			marker = true;
			coord_epoch = ss_be32s(r->value + 2);
		}
	}
	const char *cname = ctype >= 0 && ctype < 7 ? control_names[ctype] : "UNKNOWN";
	if (control && ctype < 0)
		dd_error(d, c->pos, "control record at offset %lld has no valid type key", (long long)r->offset);
	/* KRaft's control records (LeaderChange, SnapshotHeader/Footer, KRaftVersion, Voters):
	 * their values decoded, as DumpLogSegments.printControlRecord prints them */
	struct ss_kctl kc;
	bool kc_ok = false;
	if (control && ss_kctl_known(ctype)) {
		int e = r->value_len < 0 ? SEGSCAN_ESCHEMA : ss_kctl_decode(ctype, r->value, (size_t)r->value_len, &kc);
		if (e)
			dd_error(d, c->pos, "%s control record at offset %lld: %s", ss_kctl_name(ctype),
				 (long long)r->offset, segscan_strerror(e));
		kc_ok = e == 0;
	}

	if (op->fmt == SS_DUMP_TEXT) {
		/* DumpLogSegments.dumpLog, deep iteration */
		ss_dout_str(o, "| offset: "); ss_dout_i64(o, r->offset);
		ss_dout_ch(o, ' '); ss_dout_str(o, ts_type(h)); ss_dout_str(o, ": "); ss_dout_i64(o, r->timestamp);
		ss_dout_str(o, " keySize: "); ss_dout_i64(o, r->key_len);
		ss_dout_str(o, " valueSize: "); ss_dout_i64(o, r->value_len);
		ss_dout_str(o, " sequence: "); ss_dout_i64(o, seq);
		ss_dout_str(o, " headerKeys: [");
		const uint8_t *hp = r->headers, *hk, *hv;
		int32_t hkl, hvl;
		bool first = true;
		while (r->headers && ss_record_header_next(&hp, r->headers_end, &hk, &hkl, &hv, &hvl) > 0) {
			if (!first)
				ss_dout_ch(o, ',');
			first = false;
			dd_text(d, hk, (size_t)hkl);
		}
		ss_dout_ch(o, ']');
		if (marker) {
			ss_dout_str(o, " endTxnMarker: "); ss_dout_str(o, cname);
			ss_dout_str(o, " coordinatorEpoch: "); ss_dout_i64(o, coord_epoch);
		} else if (kc_ok) {
			/* " LeaderChange: {...}", " SnapshotHeader {...}": Kafka's words, colon and all */
			ss_dout_ch(o, ' ');
			ss_dout_str(o, ss_kctl_name(ctype));
			ss_dout_str(o, ctype == SS_KC_LEADER_CHANGE ? ": " : " ");
			ss_dj_reset(o);
			dd_control_json(d, &kc);
		} else if (control) {
			ss_dout_str(o, " controlType: "); ss_dout_str(o, cname);
			ss_dout_ch(o, '('); ss_dout_i64(o, ctype); ss_dout_ch(o, ')');
		}
		if (!control && c->dec != SS_DEC_NONE) {
			dd_decode_text(d, c->dec, r);
		} else if (!control && op->print_data) {
			if (r->key_len >= 0)
				text_data(d, "key", r->key, r->key_len);
			text_data(d, "payload", r->value, r->value_len);
		}
		ss_dout_ch(o, '\n');
		return 0;
	}
	dd_item(d, "record");
	ss_dj_ki64(o, "offset", r->offset);
	ss_dj_ki64(o, "timestamp_ms", r->timestamp);
	ss_dj_ki64(o, "key_size", r->key_len);
	ss_dj_ki64(o, "value_size", r->value_len);
	ss_dj_ki64(o, "sequence", seq);
	ss_dj_key(o, "headers");
	ss_dj_arr(o);
	const uint8_t *hp = r->headers, *hk, *hv;
	int32_t hkl, hvl;
	while (r->headers && ss_record_header_next(&hp, r->headers_end, &hk, &hkl, &hv, &hvl) > 0) {
		ss_dj_obj(o);
		ss_dj_key(o, "key");
		dd_strn(o, hk, hkl);
		ss_dj_ki64(o, "value_size", hvl);
		if (op->print_data)
			data_field(d, "value", hv, hvl);
		ss_dj_obj_end(o);
	}
	ss_dj_arr_end(o);
	if (control) {
		ss_dj_key(o, "control");
		ss_dj_obj(o);
		ss_dj_kstr(o, "type", cname);
		ss_dj_ki64(o, "type_id", ctype);
		if (marker)
			ss_dj_ki64(o, "coordinator_epoch", coord_epoch);
		if (kc_ok) {
			ss_dj_key(o, "data");
			dd_control_json(d, &kc);
		}
		ss_dj_obj_end(o);
	}
	if (!control && c->dec != SS_DEC_NONE) {
		ss_dj_key(o, "decoded");
		dd_decode_json(d, c->dec, r);
	}
	if (op->print_data || (control && !marker)) {
		data_field(d, "key", r->key, r->key_len);
		data_field(d, "value", r->value, r->value_len);
	}
	dd_item_end(d);
	return 0;
}

/*
 * Records of a legacy (magic 0/1) entry, as LegacyRecord / AbstractLegacyRecordBatch read
 * them (docs/kafka-format.md §2.5): an uncompressed entry is one record; a compressed
 * wrapper's value is a compressed run of inner entries (offsets absolute in v0, relative
 * to the wrapper's last offset in v1; a LogAppendTime wrapper's timestamp is every inner
 * record's). Returns 0 or a negative error.
 */
static int legacy_one(const uint8_t *e, int64_t n, struct ss_record *r, uint8_t *magic, uint8_t *attrs)
{
	/* offset 8, size 4, crc 4, magic 1, attributes 1, [timestamp 8], key, value */
	if (n < SS_LOG_OVERHEAD + SS_LEGACY_MIN_V0)
		return SEGSCAN_ECORRUPT;
	*magic = e[16];
	*attrs = e[17];
	if (*magic > 1)
		return SEGSCAN_EMAGIC;
	int64_t q = 18;
	r->offset = ss_be64s(e);
	r->timestamp = -1;
	if (*magic == 1) {
		if (n < SS_LOG_OVERHEAD + SS_LEGACY_MIN_V1)
			return SEGSCAN_ECORRUPT;
		r->timestamp = ss_be64s(e + q);
		q += 8;
	}
	for (int k = 0; k < 2; k++) {
		if (q + 4 > n)
			return SEGSCAN_ECORRUPT;
		int32_t l = ss_be32s(e + q);
		q += 4;
		if (l >= 0 && l > n - q)
			return SEGSCAN_ECORRUPT;
		if (k == 0) { r->key = l >= 0 ? e + q : NULL; r->key_len = l < 0 ? -1 : l; }
		else { r->value = l >= 0 ? e + q : NULL; r->value_len = l < 0 ? -1 : l; }
		if (l > 0)
			q += l;
	}
	r->header_count = 0;
	r->headers = r->headers_end = NULL;
	return 0;
}

static int legacy_records(const uint8_t *buf, const struct ss_batch_hdr *h, struct rec_ctx *c)
{
	struct ss_record r;
	uint8_t magic, attrs;
	int rc = legacy_one(buf, h->size, &r, &magic, &attrs);
	if (rc)
		return rc;
	int codec = attrs & SS_ATTR_CODEC_MASK;
	if (codec == SS_CODEC_NONE)
		return on_record(c, h, &r);
	if (codec > SS_CODEC_ZSTD || r.value_len < 0)
		return SEGSCAN_ECODEC;
	uint8_t *plain = NULL;
	size_t plen = 0;
	if ((rc = ss_codec_decompress((enum ss_codec)codec, r.value, (size_t)r.value_len, &plain, &plen,
				      (size_t)256 << 20)))
		return rc;
	/* v1: inner offsets are relative; the wrapper's offset is the last inner one's */
	int64_t last_rel = 0;
	for (size_t q = 0; magic == 1 && q + SS_LOG_OVERHEAD <= plen;) {
		int64_t sz = (int64_t)ss_be32s(plain + q + 8) + SS_LOG_OVERHEAD;
		if (sz < SS_LOG_OVERHEAD || (uint64_t)sz > plen - q)
			break;
		last_rel = ss_be64s(plain + q);
		q += (size_t)sz;
	}
	int64_t wrapper_off = h->last_offset, wrapper_ts = r.timestamp;
	for (size_t q = 0; q < plen && rc == 0;) {
		if (plen - q < SS_LOG_OVERHEAD) {
			rc = SEGSCAN_ECORRUPT;
			break;
		}
		int64_t sz = (int64_t)ss_be32s(plain + q + 8) + SS_LOG_OVERHEAD;
		if (sz < SS_LOG_OVERHEAD || (uint64_t)sz > plen - q) {
			rc = SEGSCAN_ECORRUPT;
			break;
		}
		struct ss_record in;
		uint8_t im, ia;
		if ((rc = legacy_one(plain + q, sz, &in, &im, &ia)))
			break;
		if (magic == 1) {
			in.offset = wrapper_off - last_rel + in.offset;
			if (attrs & SS_ATTR_LOG_APPEND)
				in.timestamp = wrapper_ts;
		}
		rc = on_record(c, h, &in);
		q += (size_t)sz;
	}
	free(plain);   /* pairs with ss_codec_decompress */
	return rc;
}

/* The decoder for this file: --decode, or by its partition directory's name (auto). */
static enum ss_dump_decode pick_decoder(struct ss_dump *d, const char *path)
{
	if (d->opts.decode != SS_DEC_AUTO)
		return d->opts.decode;
	char *dup = strdup(path);
	if (!dup)
		return SS_DEC_NONE;
	char *slash = strrchr(dup, '/');
	const char *dir = "";
	if (slash) {
		*slash = 0;
		char *s2 = strrchr(dup, '/');
		dir = s2 ? s2 + 1 : dup;
	}
	enum ss_dump_decode r = SS_DEC_NONE;
	struct ss_dirname dn;
	if (ss_dirname_parse(dir, &dn) == 0) {
		static const struct { const char *t; enum ss_dump_decode dec; } map[] = {
			{ "__remote_log_metadata", SS_DEC_RLMM }, { "__cluster_metadata", SS_DEC_KRAFT },
			{ "__consumer_offsets", SS_DEC_OFFSETS }, { "__transaction_state", SS_DEC_TXN },
		};
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (dn.topic_len == strlen(map[i].t) && !memcmp(dn.topic, map[i].t, dn.topic_len))
				r = map[i].dec;
	} else if (!strcmp(dir, "__cluster_metadata-0")) {
		r = SS_DEC_KRAFT;
	}
	free(dup);
	return r;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Is [pos, size) all zero? Its holes are zeros without being read (common/extent.h: a
 * preallocated or sparse tail of any size costs two lseeks); its data extents are read
 * in windows of at most WINDOW bytes through w, up to the first byte that is not zero. */
static bool zeros_to_end(struct win *w, int64_t pos, int64_t size)
{
	int64_t ds, de;
	while (pos < size && ss_next_data(w->fd, pos, size, &ds, &de)) {
		for (pos = ds; pos < de;) {
			const uint8_t *zp;
			int64_t want = de - pos < (int64_t)WINDOW ? de - pos : (int64_t)WINDOW;
			ssize_t zg = win_get(w, pos, (size_t)want, de, &zp);
			if (zg < 0)
				return false;  /* unreadable: not known to be zeros, so reported, not guessed */
			if (zg == 0)
				return true;   /* it shrank under us: nothing more to see */
			if (!all_zero(zp, (size_t)zg))
				return false;
			pos += zg;
		}
	}
	return true;
}

/* The batches of [pos, end) of a .log of `size` bytes, read through w. */
static void walk_log(struct ss_dump *d, struct win *w_, int64_t pos, int64_t end, int64_t size,
		     enum ss_dump_decode dec, bool records, volatile int64_t *vpos)
{
	const struct ss_dump_opts *op = &d->opts;
	struct win *w = w_;
	while (pos < end) {
		*vpos = pos;
		const uint8_t *p;
		ssize_t got = win_get(w, pos, SS_MAX_HEADER_SIZE, end, &p);
		if (got < 0) {
			dd_error(d, pos, "read: %s", strerror((int)-got));
			return;
		}
		struct ss_batch_hdr h;
		int hr = ss_batch_header(p, (size_t)got, &h);
		if (hr <= 0 || pos + h.size > end) {
			if (end < size && (hr == 0 || (hr > 0 && pos + h.size > end)))
				break;   /* --max-bytes cut here: not a problem of the file */
			/* the rest of the file: zeros (preallocated), or a real problem */
			int64_t rest = size - pos;
			bool zeros = zeros_to_end(w, pos, size);
			if (zeros) {
				d->zero_tail = rest;
				if (op->fmt == SS_DUMP_TEXT) {
					ss_dout_str(&d->out, "Found ");
					ss_dout_i64(&d->out, rest);
					ss_dout_str(&d->out, " zero bytes at the end (preallocated or crashed segment)\n");
				} else {
					dd_item(d, "zero_tail");
					ss_dj_ki64(&d->out, "position", pos);
					ss_dj_ki64(&d->out, "size_bytes", rest);
					dd_item_end(d);
				}
			} else if (hr < 0) {
				dd_error(d, pos, "corrupt batch: %s (%lld bytes left in the file)", segscan_strerror(hr),
					 (long long)rest);
			} else if (hr == 0) {
				dd_error(d, pos, "truncated: %lld bytes left, too few for a batch header", (long long)rest);
			} else {
				dd_error(d, pos, "truncated: the batch declares %lld bytes, the file has %lld left",
					 (long long)h.size, (long long)rest);
			}
			d->trailing = rest;
			return;
		}
		if (op->has_to && (h.has_base ? h.base_offset : h.last_offset) > op->to)
			break;
		bool skip = op->has_from && h.last_offset < op->from;
		if (!skip) {
			if (h.size > (int64_t)INT32_MAX + SS_LOG_OVERHEAD) {
				dd_error(d, pos, "corrupt batch: size %lld", (long long)h.size);
				return;
			}
			got = win_get(w, pos, (size_t)h.size, end, &p);
			if (got < 0) {
				dd_error(d, pos, "read: %s", strerror((int)-got));
				return;
			}
			if (got < h.size) {   /* the file shrank under us */
				dd_error(d, pos, "truncated: the file ended while reading the batch");
				return;
			}
			int vr = ss_batch_verify(p, &h);
			d->batches++;
			emit_batch(d, &h, pos, vr == 0);
			if (vr == SEGSCAN_ECRC) {
				if (d->status < SS_DUMP_DATA)
					d->status = SS_DUMP_DATA;
				d->crc_errors++;
			}
			if (records && h.magic == 2) {
				struct rec_ctx c = { d, pos, dec };
				int fr = ss_batch_foreach_record(p, &h, on_record, &c);
				if (fr < 0) {
					end_batch(d);
					dd_error(d, pos, "records of the batch at offset %lld: %s", (long long)h.base_offset,
						 segscan_strerror(fr));
					goto next;
				}
			} else if (records) {
				struct rec_ctx c = { d, pos, dec };
				int lr = legacy_records(p, &h, &c);
				if (lr < 0) {
					end_batch(d);
					dd_error(d, pos, "records of the legacy (magic %d) entry at offset %lld: %s", h.magic,
						 (long long)h.last_offset, segscan_strerror(lr));
					goto next;
				}
			}
			end_batch(d);
		}
next:
		pos += h.size;
		d->valid_bytes = pos;
	}
}

/* walk_log under the SIGBUS guard (only what the jump cannot clobber lives here). */
static void guarded_walk(struct ss_dump *d, struct win *w, int64_t pos, int64_t end, int64_t size,
			 enum ss_dump_decode dec, bool records)
{
	sigjmp_buf jb;
	volatile int64_t vpos = pos;   /* where a SIGBUS found us */
	if (w->map) {
		if (sigsetjmp(jb, 0)) {
			dd_bus = NULL;
			dd_error(d, vpos, "the file shrank while it was read (a mapped page past its new end)");
			return;
		}
		dd_bus = &jb;
	}
	walk_log(d, w, pos, end, size, dec, records, &vpos);
	dd_bus = NULL;
}

static int dump_log(struct ss_dump *d, int fd, int64_t size, int64_t base)
{
	const struct ss_dump_opts *op = &d->opts;
	struct win w = { .fd = fd };
	int64_t pos = 0, end = size;
	enum ss_dump_decode dec = pick_decoder(d, d->path);
	bool records = op->records || op->decode != SS_DEC_NONE;

	if (op->has_from && base >= 0) {
		/* --offsets: start at the offset index's entry at or below FROM, as
		 * LogSegment.translateOffset does, not at the start of the file */
		char *ip = dd_sibling(d->path, ".index");
		char *ib = NULL;
		size_t il = 0;
		if (ip && ss_read_file(AT_FDCWD, ip, SMALL_MAX, &ib, &il) == 0) {
			size_t n = dd_index_entries((const uint8_t *)ib, il);
			int64_t p = dd_index_lookup((const uint8_t *)ib, n, base, op->from);
			if (p > 0 && p < size)
				pos = p;
		}
		free(ib);
		free(ip);
	}
	if (op->max_bytes >= 0 && op->max_bytes < end - pos)
		end = pos + op->max_bytes;
	d->start_pos = pos;
	if (op->fmt == SS_DUMP_TEXT) {
		ss_dout_str(&d->out, "Log starting offset: ");
		ss_dout_i64(&d->out, base);
		ss_dout_ch(&d->out, '\n');
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	int rc = 0;
	struct sigaction bus = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_NODEFER }, old_bus;
	bool bus_set = false;
	if (size > 0) {
		void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);   /* munmap below */
		if (m != MAP_FAILED) {
			sigemptyset(&bus.sa_mask);
			if (sigaction(SIGBUS, &bus, &old_bus) == 0) {
				bus_set = true;
				dd_prev_bus = old_bus;
				w.map = m;
				madvise(m, (size_t)size, MADV_SEQUENTIAL);
			} else {
				munmap(m, (size_t)size);
			}
		}
	}
	guarded_walk(d, &w, pos, end, size, dec, records);
	d->bytes_read = w.read;
	if (w.map)
		munmap((void *)w.map, (size_t)size);   /* pairs with the mmap above */
	if (bus_set)
		sigaction(SIGBUS, &old_bus, NULL);
	free(w.buf);   /* pairs with win_get's realloc */
	return rc;
}

/* ---- small files ------------------------------------------------------------------- */

static int read_small(struct ss_dump *d, int fd, int64_t size, uint8_t **buf, size_t *len)
{
	if (size > (int64_t)SMALL_MAX) {
		dd_error(d, -1, "%lld bytes: too large for this kind of file", (long long)size);
		return -EFBIG;
	}
	*buf = malloc(size ? (size_t)size : 1);
	if (!*buf)
		return -ENOMEM;
	ssize_t r = dd_pread(fd, *buf, (size_t)size, 0);
	if (r < 0) {
		dd_error(d, -1, "read: %s", strerror((int)-r));
		free(*buf);
		*buf = NULL;
		return (int)r;
	}
	*len = (size_t)r;
	return 0;
}

static void dump_snapshot(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	struct ss_dout *o = &d->out;
	struct ss_psnap s;
	int r = ss_psnap_parse(buf, len, &s);
	if (r && r != SEGSCAN_ECRC && !(r == SEGSCAN_ETRUNC && s.entries)) {
		dd_error(d, -1, "producer snapshot: %s", segscan_strerror(r));
		return;
	}
	for (int32_t i = 0; i < s.count; i++) {
		struct ss_pid_entry e = ss_psnap_entry(&s, i);
		d->entries++;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			/* DumpLogSegments.dumpProducerIdSnapshot */
			ss_dout_str(o, "producerId: "); ss_dout_i64(o, e.producer_id);
			ss_dout_str(o, " producerEpoch: "); ss_dout_i64(o, e.epoch);
			ss_dout_str(o, " coordinatorEpoch: "); ss_dout_i64(o, e.coordinator_epoch);
			ss_dout_str(o, " currentTxnFirstOffset: ");
			if (e.txn_first_offset >= 0) {
				ss_dout_str(o, "OptionalLong[");
				ss_dout_i64(o, e.txn_first_offset);
				ss_dout_ch(o, ']');
			} else
				ss_dout_str(o, "OptionalLong.empty");
			ss_dout_str(o, " lastTimestamp: "); ss_dout_i64(o, e.timestamp);
			if (e.last_offset >= 0) {
				ss_dout_str(o, " firstSequence: "); ss_dout_i64(o, ss_psnap_first_seq(&e));
				ss_dout_str(o, " lastSequence: "); ss_dout_i64(o, e.last_seq);
				ss_dout_str(o, " lastOffset: "); ss_dout_i64(o, e.last_offset);
				ss_dout_str(o, " offsetDelta: "); ss_dout_i64(o, e.offset_delta);
				ss_dout_str(o, " timestamp: "); ss_dout_i64(o, e.timestamp);
			}
			ss_dout_ch(o, '\n');
			continue;
		}
		dd_item(d, "producer");
		ss_dj_ki64(o, "producer_id", e.producer_id);
		ss_dj_ki64(o, "producer_epoch", e.epoch);
		ss_dj_ki64(o, "coordinator_epoch", e.coordinator_epoch);
		ss_dj_key(o, "current_txn_first_offset");
		if (e.txn_first_offset >= 0)
			ss_dj_i64(o, e.txn_first_offset);
		else
			ss_dj_null(o);
		ss_dj_ki64(o, "last_timestamp_ms", e.timestamp);
		if (e.last_offset >= 0) {
			ss_dj_ki64(o, "first_sequence", ss_psnap_first_seq(&e));
			ss_dj_ki64(o, "last_sequence", e.last_seq);
			ss_dj_ki64(o, "last_offset", e.last_offset);
			ss_dj_ki64(o, "offset_delta", e.offset_delta);
		}
		dd_item_end(d);
	}
	if (r == SEGSCAN_ECRC)
		dd_error(d, -1, "producer snapshot CRC mismatch: stored %u, computed %u", s.crc, s.crc_computed);
	else if (r)
		dd_error(d, -1, "producer snapshot: %s", segscan_strerror(r));
}

static void dump_txnindex(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	struct ss_dout *o = &d->out;
	for (size_t i = 0; i < len / SS_TXNIDX_ENTRY; i++) {
		struct ss_aborted_txn t;
		if (ss_txnidx_entry(buf, len, i, &t)) {
			dd_error(d, (int64_t)(i * SS_TXNIDX_ENTRY), "aborted transaction entry version %d", t.version);
			return;
		}
		d->entries++;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			ss_dout_str(o, "version: "); ss_dout_i64(o, t.version);
			ss_dout_str(o, " producerId: "); ss_dout_i64(o, t.producer_id);
			ss_dout_str(o, " firstOffset: "); ss_dout_i64(o, t.first_offset);
			ss_dout_str(o, " lastOffset: "); ss_dout_i64(o, t.last_offset);
			ss_dout_str(o, " lastStableOffset: "); ss_dout_i64(o, t.last_stable_offset);
			ss_dout_ch(o, '\n');
			continue;
		}
		dd_item(d, "aborted_txn");
		ss_dj_ki64(o, "version", t.version);
		ss_dj_ki64(o, "producer_id", t.producer_id);
		ss_dj_ki64(o, "first_offset", t.first_offset);
		ss_dj_ki64(o, "last_offset", t.last_offset);
		ss_dj_ki64(o, "last_stable_offset", t.last_stable_offset);
		dd_item_end(d);
	}
	if (len % SS_TXNIDX_ENTRY)
		dd_error(d, (int64_t)(len - len % SS_TXNIDX_ENTRY), "%zu trailing bytes, not a whole entry",
			 len % SS_TXNIDX_ENTRY);
}

static void dump_epochs(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	struct ss_dout *o = &d->out;
	size_t n = 0;
	int line = 0;
	int r = ss_ckpt_parse_epochs((const char *)buf, len, NULL, 0, &n, &line);
	struct ss_epoch_entry *e = n ? calloc(n, sizeof(*e)) : NULL;
	if (r == 0 && n && !e)
		r = -ENOMEM;
	if (r == 0 && n)
		r = ss_ckpt_parse_epochs((const char *)buf, len, e, n, &n, &line);
	if (r) {
		dd_error(d, -1, "line %d: %s", line, segscan_strerror(r));
		free(e);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		d->entries++;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			ss_dout_str(o, "epoch: "); ss_dout_i64(o, e[i].epoch);
			ss_dout_str(o, " startOffset: "); ss_dout_i64(o, e[i].start_offset);
			ss_dout_ch(o, '\n');
			continue;
		}
		dd_item(d, "leader_epoch");
		ss_dj_ki64(o, "epoch", e[i].epoch);
		ss_dj_ki64(o, "start_offset", e[i].start_offset);
		dd_item_end(d);
	}
	free(e);   /* pairs with the calloc above */
}

static int on_ckpt(void *arg, const char *topic, size_t topic_len, int32_t partition, int64_t offset)
{
	struct ss_dump *d = arg;
	struct ss_dout *o = &d->out;
	d->entries++;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(o, "topic: "); dd_text(d, topic, topic_len);
		ss_dout_str(o, " partition: "); ss_dout_i64(o, partition);
		ss_dout_str(o, " offset: "); ss_dout_i64(o, offset);
		ss_dout_ch(o, '\n');
		return 0;
	}
	dd_item(d, "checkpoint_entry");
	ss_dj_key(o, "topic");
	dd_strn(o, (const uint8_t *)topic, (int32_t)topic_len);
	ss_dj_ki64(o, "partition", partition);
	ss_dj_ki64(o, "offset", offset);
	dd_item_end(d);
	return 0;
}

static void dump_offsets_ckpt(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	int line = 0;
	int r = ss_ckpt_parse_offsets((const char *)buf, len, on_ckpt, d, &line);
	if (r)
		dd_error(d, -1, "line %d: %s", line, segscan_strerror(r));
}

static void dump_partition_metadata(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	uint8_t id[16];
	char txt[23];
	int line = 0;
	int r = ss_partition_metadata_parse((const char *)buf, len, id, &line);
	if (r) {
		dd_error(d, -1, "line %d: %s", line, segscan_strerror(r));
		return;
	}
	ss_uuid_format(id, txt);
	d->entries++;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(&d->out, "version: 0 topicId: ");
		ss_dout_str(&d->out, txt);
		ss_dout_ch(&d->out, '\n');
		return;
	}
	dd_item(d, "partition_metadata");
	ss_dj_ki64(&d->out, "version", 0);
	ss_dj_kstr(&d->out, "topic_id", txt);
	dd_item_end(d);
}

/* ---- the file ---------------------------------------------------------------------- */

static const char *kind_of(const char *name, int64_t *base)
{
	size_t n = strlen(name);
#define ENDS(s) (n >= sizeof(s) - 1 && !strcmp(name + n - (sizeof(s) - 1), s))
	*base = -1;
	if (ENDS(".log") || ENDS(".checkpoint")) {
		*base = strtoll(name, NULL, 10);
		return ENDS(".log") ? "log" : "snapshot_log";
	}
	if (ENDS(".index")) { *base = strtoll(name, NULL, 10); return "offset_index"; }
	if (ENDS(".timeindex")) { *base = strtoll(name, NULL, 10); return "time_index"; }
	if (ENDS(".snapshot")) { *base = strtoll(name, NULL, 10); return "producer_snapshot"; }
	if (ENDS(".txnindex")) { *base = strtoll(name, NULL, 10); return "txn_index"; }
	if (!strcmp(name, "leader-epoch-checkpoint")) return "leader_epoch_checkpoint";
	if (!strcmp(name, "partition.metadata")) return "partition_metadata";
	if (ENDS("-checkpoint")) return "offset_checkpoint";
	return NULL;
#undef ENDS
}

static void file_begin(struct ss_dump *d, const char *kind)
{
	struct ss_dout *o = &d->out;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(o, "Dumping ");   /* DumpLogSegments.main */
		dd_text(d, d->path, strlen(d->path));
		ss_dout_ch(o, '\n');
	} else if (d->opts.fmt == SS_DUMP_JSON) {
		ss_dj_obj(o);
		ss_dj_key(o, "file");
		dd_strn(o, (const uint8_t *)d->path, (int32_t)strlen(d->path));
		ss_dj_kstr(o, "kind", kind);
		ss_dj_key(o, "items");
		ss_dj_arr(o);
	} else {
		dd_item(d, "file");
		ss_dj_kstr(o, "kind", kind);
		dd_item_end(d);
	}
}

static void file_end(struct ss_dump *d, const char *kind)
{
	struct ss_dout *o = &d->out;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		if (d->trailing > 0 && !d->zero_tail && d->opts.max_bytes < 0) {
			/* DumpLogSegments' closing line for what it could not read */
			ss_dout_str(o, "Found ");
			ss_dout_i64(o, d->trailing);
			ss_dout_str(o, " invalid bytes at the end of ");
			const char *s = strrchr(d->path, '/');
			s = s ? s + 1 : d->path;
			dd_text(d, s, strlen(s));
			ss_dout_ch(o, '\n');
		}
		return;
	}
	if (d->opts.fmt == SS_DUMP_JSON)
		ss_dj_arr_end(o);
	else
		dd_item(d, "file_end");
	ss_dj_kstr(o, "kind", kind);
	ss_dj_kstr(o, "status", d->status == SS_DUMP_OK ? "ok" : d->status == SS_DUMP_MISSING ? "missing" : "error");
	if (kind && (!strcmp(kind, "log") || !strcmp(kind, "snapshot_log"))) {
		ss_dj_ki64(o, "batches", d->batches);
		ss_dj_ki64(o, "records", d->records);
		ss_dj_ki64(o, "start_position", d->start_pos);
		ss_dj_ki64(o, "valid_bytes", d->valid_bytes);
		ss_dj_ki64(o, "trailing_bytes", d->trailing);
		ss_dj_ki64(o, "crc_errors", d->crc_errors);
	} else {
		ss_dj_ki64(o, "entries", d->entries);
	}
	ss_dj_ki64(o, "errors", d->errors);
	if (d->opts.fmt == SS_DUMP_JSON)
		ss_dj_obj_end(o);
	else
		dd_item_end(d);
}

int ss_dump_file(struct ss_dump *d, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int64_t base;
	const char *kind = kind_of(name, &base);
	int fd = -1;
	uint8_t *buf = NULL;
	size_t len = 0;

	d->path = path;
	d->path_utf8 = ss_utf8_valid((const uint8_t *)path, strlen(path));
	d->status = SS_DUMP_OK;
	d->batches = d->records = d->errors = d->entries = d->crc_errors = 0;
	d->valid_bytes = d->trailing = d->zero_tail = d->start_pos = d->bytes_read = 0;
	if (!d->started) {
		if (d->opts.fmt == SS_DUMP_JSON) {
			ss_dj_reset(&d->out);
			ss_dj_obj(&d->out);
			ss_dj_key(&d->out, "files");
			ss_dj_arr(&d->out);
		}
		d->started = true;
	}
	file_begin(d, kind ? kind : "unknown");
	if (!kind) {
		/* DumpLogSegments: "Ignoring unknown file" */
		dd_error(d, -1, "unknown kind of file (not .log, .checkpoint, .index, .timeindex, .snapshot, "
			 ".txnindex, leader-epoch-checkpoint, *-checkpoint or partition.metadata)");
		goto out;
	}
	fd = ss_open_ro(AT_FDCWD, path, 0);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? fd : -errno;
		if (fd >= 0 && e == 0)
			e = -EINVAL;
		dd_error(d, -1, "%s", fd >= 0 && !S_ISREG(st.st_mode) ? "not a regular file" : strerror(-e));
		d->status = SS_DUMP_MISSING;
		goto out;
	}
	if (!strcmp(kind, "log") || !strcmp(kind, "snapshot_log")) {
		dump_log(d, fd, st.st_size, base);
	} else {
		if (read_small(d, fd, st.st_size, &buf, &len))
			goto out;
		if (!strcmp(kind, "offset_index") || !strcmp(kind, "time_index"))
			dd_dump_index(d, kind[0] == 'o', buf, len, base);
		else if (!strcmp(kind, "producer_snapshot"))
			dump_snapshot(d, buf, len);
		else if (!strcmp(kind, "txn_index"))
			dump_txnindex(d, buf, len);
		else if (!strcmp(kind, "leader_epoch_checkpoint"))
			dump_epochs(d, buf, len);
		else if (!strcmp(kind, "partition_metadata"))
			dump_partition_metadata(d, buf, len);
		else
			dump_offsets_ckpt(d, buf, len);
	}
out:
	file_end(d, kind ? kind : "unknown");
	free(buf);
	if (fd >= 0)
		close(fd);   /* pairs with ss_open_ro */
	ss_dout_flush(&d->out);
	return d->status;
}

int ss_dump_init(struct ss_dump *d, const struct ss_dump_opts *opts, FILE *out)
{
	memset(d, 0, sizeof *d);
	d->opts = *opts;
	return ss_dout_init(&d->out, out);   /* freed by ss_dump_finish */
}

int ss_dump_finish(struct ss_dump *d)
{
	if (d->opts.fmt == SS_DUMP_JSON) {
		if (!d->started) {
			ss_dj_obj(&d->out);
			ss_dj_key(&d->out, "files");
			ss_dj_arr(&d->out);
		}
		ss_dj_arr_end(&d->out);
		ss_dj_obj_end(&d->out);
		ss_dout_ch(&d->out, '\n');
	}
	int r = ss_dout_flush(&d->out);
	ss_dout_free(&d->out);
	return r;
}

static int parse_i64(const char *s, size_t n, int64_t *out)
{
	char tmp[32];
	if (n == 0 || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	char *e;
	errno = 0;
	long long v = strtoll(tmp, &e, 10);
	if (errno || *e || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int ss_dump_parse_offsets(const char *s, struct ss_dump_opts *o)
{
	const char *dd = strstr(s, "..");
	if (!dd)
		return -EINVAL;
	size_t a = (size_t)(dd - s), b = strlen(dd + 2);
	o->has_from = a > 0;
	o->has_to = b > 0;
	if (!o->has_from && !o->has_to)
		return -EINVAL;
	if (o->has_from && parse_i64(s, a, &o->from))
		return -EINVAL;
	if (o->has_to && parse_i64(dd + 2, b, &o->to))
		return -EINVAL;
	if (o->has_from && o->has_to && o->from > o->to)
		return -EINVAL;
	return 0;
}

int ss_dump_parse_decode(const char *s, enum ss_dump_decode *out)
{
	static const struct { const char *n; enum ss_dump_decode d; } t[] = {
		{ "none", SS_DEC_NONE }, { "auto", SS_DEC_AUTO }, { "remote-log-metadata", SS_DEC_RLMM },
		{ "cluster-metadata", SS_DEC_KRAFT }, { "consumer-offsets", SS_DEC_OFFSETS },
		{ "transaction-state", SS_DEC_TXN },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n)) {
			*out = t[i].d;
			return 0;
		}
	return -EINVAL;
}
