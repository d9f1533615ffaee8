/*
 * A .log (and a KRaft snapshot .checkpoint: a log too) as DumpLogSegments dumps it: the
 * batches from where --offsets says to start (the offset index's entry at or below FROM) to
 * --max-bytes' end, each batch's line or item (batch.c) and with --records its records
 * (record.c), then where and why the data ended.
 *
 * Read through the one .log reader (source/logread.h) over a read-only mapping: batches are
 * decoded and CRC-checked where they lie in the page cache, and a file Kafka truncates under
 * the mapping ends the file's dump (the process's one SIGBUS hook), not the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "dump/dump_int.h"
#include "fmt/names.h"
#include "source/logread.h"
#include "segscan.h"

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

/* One whole batch: its line or object, its CRC verdict, and with records its records. */
static void dump_batch(struct ss_dump *d, const struct ss_lr_batch *b, enum ss_dump_decode dec, bool records)
{
	const struct ss_batch_hdr *h = &b->h;
	int vr = ss_batch_verify(b->data, h);
	d->batches++;
	dd_batch_begin(d, h, b->pos, vr == 0);
	if (vr == SEGSCAN_ECRC) {
		if (d->status < SS_DUMP_DATA)
			d->status = SS_DUMP_DATA;
		d->crc_errors++;
	}
	if (records) {
		int fr = dd_records(d, b->data, h, b->pos, dec);
		if (fr < 0) {
			dd_batch_end(d);
			if (h->magic == 2)
				dd_error(d, b->pos, "records of the batch at offset %lld: %s", (long long)h->base_offset,
					 segscan_strerror(fr));
			else
				dd_error(d, b->pos, "records of the legacy (magic %d) entry at offset %lld: %s", h->magic,
					 (long long)h->last_offset, segscan_strerror(fr));
			return;
		}
	}
	dd_batch_end(d);
}

/* Where the data ended, when that is not where the walk meant to stop (logread.h): a zero
 * tail is shown, not an error; the rest are errors at the byte where they are. */
static void dump_tail(struct ss_dump *d, const struct ss_logrd *r)
{
	long long left = (long long)r->left;
	switch (r->stop) {
	case SS_LR_ZEROS:
		d->zero_tail = r->left;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			ss_dout_str(&d->out, "Found ");
			ss_dout_i64(&d->out, r->left);
			ss_dout_str(&d->out, " zero bytes at the end (preallocated or crashed segment)\n");
		} else {
			dd_item(d, "zero_tail");
			ss_dj_ki64(&d->out, "position", r->at);
			ss_dj_ki64(&d->out, "size_bytes", r->left);
			dd_item_end(d);
		}
		break;
	case SS_LR_CORRUPT:
		dd_error(d, r->at, "corrupt batch: %s (%lld bytes left in the file)", segscan_strerror(r->err), left);
		break;
	case SS_LR_TORN_HEADER:
		dd_error(d, r->at, "truncated: %lld bytes left, too few for a batch header", left);
		break;
	case SS_LR_TORN_BATCH:
		dd_error(d, r->at, "truncated: the batch declares %lld bytes, the file has %lld left",
			 (long long)r->hdr.size, left);
		break;
	case SS_LR_SHRANK:
		dd_error(d, r->at, "truncated: the file ended while reading the batch");
		return;
	case SS_LR_IO:
		dd_error(d, r->at, "read: %s", strerror(-r->err));
		return;
	default:   /* the end, --max-bytes, --offsets' TO: nothing left to say */
		return;
	}
	d->trailing = r->left;
}

/* The batches of a .log through the one reader (source/logread.h), from --offsets' start
 * to --max-bytes' end. Runs under the SIGBUS guard of the mapping (walk_guarded). */
struct walk_args {
	struct ss_dump     *d;
	struct ss_logrd    *r;
	enum ss_dump_decode dec;
	bool                records;
};

static void walk_log(void *arg)
{
	struct walk_args *a = arg;
	struct ss_dump *d = a->d;
	const struct ss_dump_opts *op = &d->opts;
	struct ss_lr_batch b;
	int rc;
	while ((rc = ss_logrd_next(a->r, &b)) > 0) {
		if (op->has_to && (b.h.has_base ? b.h.base_offset : b.h.last_offset) > op->to)
			return;
		if (!(op->has_from && b.h.last_offset < op->from)) {
			if ((rc = ss_logrd_body(a->r, &b)) < 0 || !b.data)
				break;
			dump_batch(d, &b, a->dec, a->records);
		}
		d->valid_bytes = b.pos + b.h.size;
	}
	if (rc < 0)
		dd_error(d, a->r->at, "read: %s", strerror(-rc));
	else
		dump_tail(d, a->r);
}

/* --offsets: the position of the offset index's entry at or below FROM, as
 * LogSegment.translateOffset starts there, not at the start of the file (0 without one). */
static int64_t start_of(struct ss_dump *d, int64_t size, int64_t base)
{
	int64_t pos = 0;
	char *ip = dd_sibling(d->path, ".index");
	char *ib = NULL;
	size_t il = 0;
	if (ip && ss_read_file(AT_FDCWD, ip, DD_SMALL_MAX, &ib, &il) == 0) {
		size_t n = dd_index_entries((const uint8_t *)ib, il);
		int64_t p = dd_index_lookup((const uint8_t *)ib, n, base, d->opts.from);
		if (p > 0 && p < size)
			pos = p;
	}
	free(ib);
	free(ip);
	return pos;
}

int dd_dump_log(struct ss_dump *d, int fd, int64_t size, int64_t base)
{
	const struct ss_dump_opts *op = &d->opts;
	int64_t pos = op->has_from && base >= 0 ? start_of(d, size, base) : 0;
	bool limited = op->max_bytes >= 0 && op->max_bytes < size - pos;
	struct ss_logrd r;

	d->start_pos = pos;
	if (op->fmt == SS_DUMP_TEXT) {
		ss_dout_str(&d->out, "Log starting offset: ");
		ss_dout_i64(&d->out, base);
		ss_dout_ch(&d->out, '\n');
	}
	/* Through a read-only mapping: batches are decoded and CRC-checked where they lie in
	 * the page cache, with no copy (a pread window would copy every byte once, which alone
	 * costs what `cat` does). Closed below (pairs with ss_logrd_close). */
	int e = ss_logrd_open(&r, fd, size, &(struct ss_logrd_opts){ .start = pos, .has_end = limited,
				  .end = pos + op->max_bytes, .map = true });
	if (e)
		return e;
	struct walk_args a = { d, &r, pick_decoder(d, d->path), op->records || op->decode != SS_DEC_NONE };
	/* a page past the end of a file Kafka truncated while we read it ends the walk */
	if (ss_logrd_guarded(&r, walk_log, &a) == -EFAULT)
		dd_error(d, r.at, "the file shrank while it was read (a mapped page past its new end)");
	d->bytes_read = ss_logrd_bytes(&r);
	ss_logrd_close(&r);
	return 0;
}
