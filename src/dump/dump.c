/*
 * `segscan dump`, the driver: one file at a time, by its name (the kinds of
 * DumpLogSegments.main plus the log dir's text files), read-only, each kind dumped by its
 * own file (log.c, index.c, producer.c, checkpoint.c) into the dump's output buffer
 * (dump/dout.h). See dump/dump.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/utf8.h"
#include "dump/dump.h"
#include "dump/dump_int.h"
#include "segscan.h"

/* An index, checkpoint or snapshot file, whole (they are small; a larger one is not one). */
static int read_small(struct ss_dump *d, int fd, int64_t size, uint8_t **buf, size_t *len)
{
	char *b = NULL;
	int e = size > (int64_t)DD_SMALL_MAX ? -EFBIG : ss_read_fd(fd, (size_t)size, DD_SMALL_MAX, &b, len);
	if (e == -EFBIG)
		dd_error(d, -1, "%lld bytes: too large for this kind of file", (long long)size);
	else if (e)
		dd_error(d, -1, "read: %s", strerror(-e));
	*buf = (uint8_t *)b;   /* freed by the caller (ss_read_fd's malloc) */
	return e;
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
		dd_dump_log(d, fd, st.st_size, base);
	} else {
		if (read_small(d, fd, st.st_size, &buf, &len))
			goto out;
		if (!strcmp(kind, "offset_index") || !strcmp(kind, "time_index"))
			dd_dump_index(d, kind[0] == 'o', buf, len, base);
		else if (!strcmp(kind, "producer_snapshot"))
			dd_dump_producer_snapshot(d, buf, len);
		else if (!strcmp(kind, "txn_index"))
			dd_dump_txnindex(d, buf, len);
		else if (!strcmp(kind, "leader_epoch_checkpoint"))
			dd_dump_epochs(d, buf, len);
		else if (!strcmp(kind, "partition_metadata"))
			dd_dump_partition_metadata(d, buf, len);
		else
			dd_dump_offsets_ckpt(d, buf, len);
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
