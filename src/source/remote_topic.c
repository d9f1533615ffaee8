/*
 * __remote_log_metadata source: the directory walk and the file reads. See remote_topic.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover/discover.h"
#include "eval/remote.h"
#include "common/ascii.h"
#include "common/darray.h"
#include "common/file.h"
#include "common/log.h"
#include "common/search.h"
#include "fmt/batch.h"
#include "fmt/names.h"
#include "fmt/rlmm.h"
#include "source/logread.h"
#include "source/remote_topic.h"
#include "segscan.h"

#define MT_BATCH_MAX ((int64_t)256 << 20)   /* a batch larger than this is not a metadata batch */

struct mt_dir {
	const char *path;
	int32_t     mpart;
};

struct mt_ctx {
	struct ss_remote   *r;
	ss_remote_topic_warn_fn       warn;
	void               *warn_arg;
	struct ss_remote_topic_stats *st;
	struct ss_remote_taint *taint; /* NULL: corrupt batches are only counted */
	int32_t             nparts;    /* 0: no placement check */
	int32_t             mpart;
	bool                tainted;   /* a batch of this metadata partition failed its CRC:
					  later records are not applied */
	const char         *path;      /* current segment file */
	int64_t             batch_pos;
	/* progress (common/log.h), bytes of the segment files: the scan's replay only */
	struct ss_logsink  *log;
	uint64_t            bytes_base;  /* sizes of the files finished */
	uint64_t            bytes_total; /* sizes of every .log file, listed before the replay */
};

static int warnf(struct mt_ctx *c, int64_t offset, int64_t pos, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int warnf(struct mt_ctx *c, int64_t offset, int64_t pos, int err, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->st->warnings++;
	return c->warn ? c->warn(c->warn_arg, c->path, c->mpart, offset, pos, err, msg) : 0;
}

/* ---- the taint: what corrupt batches leave unknown (remote_topic.h) ---- */

int ss_remote_taint_add(struct ss_remote_taint *t, int32_t mpart, int64_t offset, int64_t file_pos,
			const char *where)
{
	for (uint32_t i = 0; i < t->n_mparts; i++)
		if (t->mparts[i].mpart == mpart) {
			t->mparts[i].batches++;
			return 0;
		}
	struct ss_remote_taint_mpart *m;
	int e = SS_DA_PUSH(&t->mparts, &t->n_mparts, &t->cap_mparts, &m);
	if (e < 0)
		return e;
	m->mpart = mpart;
	m->offset = offset;
	m->file_pos = file_pos;
	m->batches = 1;
	if (!(m->where = strdup(where ? where : "__remote_log_metadata"))) {
		t->n_mparts--;
		return -ENOMEM;
	}
	return 0;
}

static const struct ss_remote_taint_mpart *taint_find(const struct ss_remote_taint *t, int32_t mpart)
{
	for (uint32_t i = 0; t && i < t->n_mparts; i++)
		if (t->mparts[i].mpart == mpart)
			return &t->mparts[i];
	return NULL;
}

bool ss_remote_taint_has(const struct ss_remote_taint *t, int32_t mpart)
{
	return taint_find(t, mpart) != NULL;
}

/* A misplaced record's partition; consecutive repeats are kept once (a partition's records
 * come in runs), ss_remote_taint_finish sorts out the rest. */
static int taint_name(struct ss_remote_taint *t, const uint8_t topic_id[16], int32_t partition, int32_t mpart)
{
	if (t->n_named) {
		const struct ss_remote_taint_named *l = &t->named[t->n_named - 1];
		if (l->partition == partition && l->mpart == mpart && !memcmp(l->topic_id, topic_id, 16))
			return 0;
	}
	struct ss_remote_taint_named *x;
	int e = SS_DA_PUSH(&t->named, &t->n_named, &t->cap_named, &x);
	if (e < 0)
		return e;
	memcpy(x->topic_id, topic_id, 16);
	x->partition = partition;
	x->mpart = mpart;
	return 0;
}

static int cmp_named(const void *a, const void *b)
{
	const struct ss_remote_taint_named *x = a, *y = b;
	int c = memcmp(x->topic_id, y->topic_id, 16);
	if (c)
		return c;
	return x->partition < y->partition ? -1 : x->partition > y->partition;
}

void ss_remote_taint_finish(struct ss_remote_taint *t, int32_t num_partitions)
{
	/* only the tainted metadata partitions' names matter; sorted and distinct, so the
	 * evaluator's lookup per partition is a binary search (a wrong partition count can
	 * make every record "misplaced") */
	uint32_t k = 0;
	for (uint32_t i = 0; i < t->n_named; i++)
		if (ss_remote_taint_has(t, t->named[i].mpart))
			t->named[k++] = t->named[i];
	if (k > 1)
		qsort(t->named, k, sizeof(*t->named), cmp_named);
	uint32_t u = 0;
	for (uint32_t i = 0; i < k; i++)
		if (u == 0 || cmp_named(&t->named[u - 1], &t->named[i]))
			t->named[u++] = t->named[i];
	t->n_named = u;
	t->num_partitions = num_partitions;
}

static void taint_place(const struct ss_remote_taint_mpart *m, char *buf, size_t n)
{
	if (m->file_pos >= 0)
		snprintf(buf, n, "the batch at byte %lld of %s", (long long)m->file_pos, m->where);
	else
		snprintf(buf, n, "the batch at offset %lld (%s)", (long long)m->offset, m->where);
}

bool ss_remote_taint_concerns(const struct ss_remote_taint *t, const uint8_t *topic_id, int32_t partition,
			      char *why, size_t whylen)
{
	char place[600];
	if (!t || t->n_mparts == 0)
		return false;
	const struct ss_remote_taint_mpart *m = NULL;
	if (topic_id && t->num_partitions > 0)
		m = taint_find(t, ss_rlmm_metadata_partition(topic_id, partition, t->num_partitions));
	if (m) {
		taint_place(m, place, sizeof(place));
		if (why)
			snprintf(why, whylen, "its metadata is in __remote_log_metadata-%d, where %s failed its CRC-32C "
				 "check: that batch's records, and the later ones of that partition, were not applied",
				 m->mpart, place);
		return true;
	}
	struct ss_remote_taint_named key = { .partition = partition };
	if (topic_id)
		memcpy(key.topic_id, topic_id, 16);
	const struct ss_remote_taint_named *x = NULL;
	if (topic_id) {
		int64_t i = ss_sorted_find(t->named, t->n_named, sizeof(*t->named), cmp_named, &key, NULL);
		x = i < 0 ? NULL : &t->named[i];
	}
	if (x) {
		m = taint_find(t, x->mpart);
		taint_place(m, place, sizeof(place));
		if (why)
			snprintf(why, whylen, "records of it are in __remote_log_metadata-%d, where %s failed its CRC-32C "
				 "check: that batch's records, and the later ones of that partition, were not applied",
				 m->mpart, place);
		return true;
	}
	if (topic_id && t->num_partitions > 0)
		return false;
	taint_place(&t->mparts[0], place, sizeof(place));
	if (why)
		snprintf(why, whylen, "in __remote_log_metadata-%d %s failed its CRC-32C check and was not applied, and "
			 "without %s the metadata partition that holds this partition's records cannot be told",
			 t->mparts[0].mpart, place, topic_id ? "the partition count of __remote_log_metadata" : "its topic id");
	return true;
}

void ss_remote_taint_release(struct ss_remote_taint *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n_mparts; i++)
		free(t->mparts[i].where);
	free(t->mparts);
	free(t->named);
	memset(t, 0, sizeof(*t));
}

void ss_remote_taint_free(struct ss_remote_taint *t)
{
	ss_remote_taint_release(t);
	free(t);
}

/* One record value, from a segment file (on_record) or from the live cluster
 * (ss_remote_topic_apply_value): decode, check placement, apply. */
static int apply_value(struct mt_ctx *c, int64_t offset, const uint8_t *value, int32_t value_len)
{
	struct ss_rlmm_rec d;
	char msg[512];
	int e;

	c->st->records++;
	if (value_len < 0) {
		c->st->undecodable++;
		return warnf(c, offset, c->batch_pos, SEGSCAN_ESCHEMA,
			     "__remote_log_metadata-%d offset %lld: record without a value", c->mpart,
			     (long long)offset);
	}
	if ((e = ss_rlmm_decode(value, (size_t)value_len, &d))) {
		if (e == -ENOMEM)
			return e;
		c->st->undecodable++;
		return warnf(c, offset, c->batch_pos, e,
			     "__remote_log_metadata-%d offset %lld: cannot decode the record (%d bytes): %s", c->mpart,
			     (long long)offset, value_len, segscan_strerror(e));
	}
	if (c->nparts > 0 && d.ev.has_topic_id && d.ev.type != SS_REV_SNAPSHOT) {
		int32_t want = ss_rlmm_metadata_partition(d.ev.topic_id, d.ev.partition, c->nparts);
		if (want != c->mpart) {
			char tid[23];
			ss_uuid_format(d.ev.topic_id, tid);
			c->st->misplaced++;
			if (c->taint && (e = taint_name(c->taint, d.ev.topic_id, d.ev.partition, c->mpart))) {
				ss_rlmm_rec_free(&d);
				return e;
			}
			/* Kafka's consumer applies it anyway if it reads this partition: so do we */
			if ((e = warnf(c, offset, c->batch_pos, SEGSCAN_EMISMATCH,
				       "__remote_log_metadata-%d offset %lld: record for %.*s-%d (topic id %s) belongs in "
				       "metadata partition %d of %d",
				       c->mpart, (long long)offset, (int)(d.ev.topic_len > 249 ? 249 : d.ev.topic_len),
				       d.ev.topic, d.ev.partition, tid, want, c->nparts))) {
				ss_rlmm_rec_free(&d);
				return e;
			}
		}
	}
	if (c->tainted || (c->taint && ss_remote_taint_has(c->taint, c->mpart))) {
		/* after a corrupt batch: what it held may be what this record refers to, so its
		 * partitions are unknown (the taint) rather than replayed without it */
		c->st->not_applied++;
		ss_rlmm_rec_free(&d);
		return 0;
	}
	e = ss_remote_apply(c->r, &d.ev, msg, sizeof(msg));
	ss_rlmm_rec_free(&d);
	if (e == 0) {
		c->st->applied++;
		return 0;
	}
	if (e < 0)
		return e;   /* -ENOMEM: a KAFKA-mode store drops everything else */
	c->st->dropped++;
	return warnf(c, offset, c->batch_pos, SEGSCAN_ETRANSITION, "__remote_log_metadata-%d offset %lld: %s",
		     c->mpart, (long long)offset, msg);
}

static int on_record(void *arg, const struct ss_batch_hdr *h, const struct ss_record *rec)
{
	return apply_value(arg, rec->offset, rec->value, rec->value_len);
}

int ss_remote_topic_apply_value(struct ss_remote *r, int32_t mpart, int32_t num_partitions, int64_t offset,
				const uint8_t *value, int32_t value_len, const char *where, ss_remote_topic_warn_fn warn,
				void *warn_arg, struct ss_remote_topic_stats *st, struct ss_remote_taint *taint)
{
	struct mt_ctx c = { .r = r, .warn = warn, .warn_arg = warn_arg, .st = st, .taint = taint,
			    .nparts = num_partitions, .mpart = mpart, .path = where, .batch_pos = -1 };
	return apply_value(&c, offset, value, value_len);
}

/* The bytes of a segment read so far, as the replay's progress (common/log.h). */
static void on_read(void *arg, uint64_t bytes)
{
	struct mt_ctx *c = arg;
	ss_progress(c->log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_BYTES, "bytes", c->bytes_base + bytes,
		    c->bytes_total);
}

/* One whole batch at c->batch_pos: its CRC-32C before any record is applied (Kafka's
 * consumer checks it too: check.crcs), then its records. 0, the warn callback's failure or
 * -ENOMEM; a batch that cannot be used is a warning and the walk goes on. */
static int apply_batch(struct mt_ctx *c, const struct ss_lr_batch *b, const char *path)
{
	const struct ss_batch_hdr *h = &b->h;
	int r, e = 0;
	if (h->magic != 2)
		return warnf(c, h->base_offset, c->batch_pos, SEGSCAN_EMAGIC,
			     "__remote_log_metadata-%d offset %lld: message format v%u, not a metadata batch; skipped",
			     c->mpart, (long long)h->base_offset, h->magic);
	if ((r = ss_batch_verify(b->data, h)) != 0) {
		/* Kafka's consumer (check.crcs) refuses such a batch: nothing in it is
		 * applied, nor anything after it here, since the lost records may be the
		 * adds that later updates refer to */
		c->st->corrupt++;
		c->st->crc_errors++;
		if (!c->tainted)
			e = warnf(c, h->base_offset, c->batch_pos, r,
				  "__remote_log_metadata-%d: %s: the batch at byte %lld (offsets %lld..%lld) fails "
				  "its CRC-32C check: its records and the later ones of this metadata partition are "
				  "not applied, and the remote state of the partitions whose metadata is here is "
				  "unknown", c->mpart, path, (long long)c->batch_pos, (long long)h->base_offset,
				  (long long)h->last_offset);
		else
			e = warnf(c, h->base_offset, c->batch_pos, r,
				  "__remote_log_metadata-%d: %s: the batch at byte %lld (offsets %lld..%lld) fails "
				  "its CRC-32C check too", c->mpart, path, (long long)c->batch_pos,
				  (long long)h->base_offset, (long long)h->last_offset);
		c->tainted = true;
		if (!e && c->taint)
			e = ss_remote_taint_add(c->taint, c->mpart, h->base_offset, c->batch_pos, path);
		return e;
	}
	if (h->attributes & SS_ATTR_CONTROL)
		return 0;
	r = ss_batch_foreach_record(b->data, h, on_record, c);
	if (r < 0 && r >= -4095)
		return r;   /* out of memory, or the warn callback's own failure */
	if (r < 0) {
		c->st->corrupt++;
		return warnf(c, h->base_offset, c->batch_pos, r,
			     "__remote_log_metadata-%d offsets %lld..%lld: cannot read the batch's records: %s",
			     c->mpart, (long long)h->base_offset, (long long)h->last_offset, segscan_strerror(r));
	}
	return 0;
}

/* Where the segment's data ended, when that is a problem: a warning (logread.h's verdicts;
 * zeros to the end of the file are a preallocated or crashed active segment's tail). */
static int end_warning(struct mt_ctx *c, const struct ss_logrd *r, const char *path)
{
	long long at = (long long)r->at;
	switch (r->stop) {
	case SS_LR_TORN_HEADER:
	case SS_LR_TORN_BATCH:
	case SS_LR_SHRANK:
		c->st->corrupt++;
		return warnf(c, -1, r->at, SEGSCAN_ETRUNC,
			     "__remote_log_metadata-%d: %s ends with %lld bytes of an incomplete batch at byte %lld",
			     c->mpart, path, (long long)r->left, at);
	case SS_LR_CORRUPT:
		c->st->corrupt++;
		if (r->nonzero_at >= 0)
			return warnf(c, -1, r->at, r->err,
				     "__remote_log_metadata-%d: %s: unreadable batch at byte %lld (%s: zeros, then data "
				     "at byte %lld); the rest of the file is skipped", c->mpart, path, at,
				     segscan_strerror(r->err), (long long)r->nonzero_at);
		if (r->zero_err)
			return warnf(c, -1, r->at, r->zero_err, "__remote_log_metadata-%d: %s: read error: %s",
				     c->mpart, path, strerror(-r->zero_err));
		return warnf(c, -1, r->at, r->err,
			     "__remote_log_metadata-%d: %s: unreadable batch at byte %lld (%s); the rest of the file "
			     "is skipped", c->mpart, path, at, segscan_strerror(r->err));
	case SS_LR_TOO_BIG:
		c->st->corrupt++;
		return warnf(c, r->hdr.base_offset, r->at, SEGSCAN_ECORRUPT,
			     "__remote_log_metadata-%d: %s: batch at byte %lld claims %lld bytes; the rest of "
			     "the file is skipped", c->mpart, path, at, (long long)r->hdr.size);
	case SS_LR_IO:
		c->st->corrupt++;
		return warnf(c, -1, r->at, r->err, "__remote_log_metadata-%d: %s: read error: %s", c->mpart, path,
			     strerror(-r->err));
	default:   /* the end of the file, or zeros to it */
		return 0;
	}
}

/* Every batch of one segment file, through the one .log reader (source/logread.h). */
static int read_segment(struct mt_ctx *c, const char *path)
{
	struct stat sb;   /* st_size: the read's end and the progress count */
	/* opened O_NONBLOCK and fstat'd (ss_open_reg): a FIFO there could not block, and does
	 * not pass for an empty segment either (issue 14 item 1) */
	int fd = ss_open_reg(AT_FDCWD, path, 0, &sb);

	c->path = path;
	if (fd == -ENOENT)
		return 0;   /* deleted by retention while we listed the dir */
	if (fd == SEGSCAN_ENOTREG) {
		c->st->corrupt++;
		return warnf(c, -1, -1, SEGSCAN_ENOTREG, "__remote_log_metadata-%d: %s: %s, not a regular file: not read",
			     c->mpart, path, ss_file_type_name(sb.st_mode));
	}
	if (fd < 0) {
		c->st->corrupt++;
		return warnf(c, -1, -1, fd, "__remote_log_metadata-%d: cannot open %s: %s", c->mpart, path, strerror(-fd));
	}
	c->st->segments++;
	struct ss_logrd r;
	struct ss_lr_batch b;
	/* closed below (pairs with ss_logrd_close) */
	int e = ss_logrd_open(&r, fd, sb.st_size, &(struct ss_logrd_opts){ .max_batch = MT_BATCH_MAX,
				  .on_read = c->log ? on_read : NULL, .arg = c });
	while (!e && (e = ss_logrd_next(&r, &b)) > 0) {
		if ((e = ss_logrd_body(&r, &b)) < 0 || !b.data)
			break;
		c->st->batches++;
		c->batch_pos = b.pos;
		e = apply_batch(c, &b, path);
	}
	if (!e)
		e = end_warning(c, &r, path);
	ss_logrd_close(&r);
	close(fd);   /* pairs with ss_open_reg */
	c->bytes_base += (uint64_t)sb.st_size;
	return e;
}

/* One segment file of a metadata partition: its base offset and name. */
struct mt_seg {
	int64_t base;
	char   *name;
};

static int cmp_seg(const void *a, const void *b)
{
	const struct mt_seg *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

static int read_partition(struct mt_ctx *c, const char *dir)
{
	DIR *d = ss_opendir(AT_FDCWD, dir);   /* O_DIRECTORY|O_NONBLOCK, fstat'd (common/file.h) */
	struct mt_seg *segs = NULL;
	uint32_t n = 0, capn = 0;
	int e = 0;

	c->path = dir;
	if (!d) {
		e = -errno;
		c->st->corrupt++;
		return warnf(c, -1, -1, e, "__remote_log_metadata-%d: cannot list %s: %s", c->mpart, dir, strerror(-e));
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		int64_t base;
		enum ss_file_kind inner;
		/* the .log segments, named as discovery names them (fmt/names.h) */
		if (ss_file_classify(de->d_name, &base, &inner) != SS_FILE_LOG)
			continue;
		struct mt_seg *sg;
		if ((e = SS_DA_PUSH(&segs, &n, &capn, &sg)) < 0)
			goto out;
		sg->base = base;
		if (!(sg->name = strdup(de->d_name))) {
			e = -ENOMEM;
			goto out;
		}
	}
	/* base-offset order: the order the broker appended them */
	if (n)
		qsort(segs, n, sizeof(*segs), cmp_seg);
	c->tainted = false;
	uint64_t skipped0 = c->st->not_applied;
	for (uint32_t i = 0; i < n && !e; i++) {
		char *path;
		if (asprintf(&path, "%s/%s", dir, segs[i].name) < 0) {
			e = -ENOMEM;
			break;
		}
		e = read_segment(c, path);
		free(path);
	}
	if (!e && c->st->not_applied > skipped0) {
		c->path = dir;
		e = warnf(c, -1, -1, SEGSCAN_ECRC,
			  "__remote_log_metadata-%d: %llu records after its corrupt batch were not applied", c->mpart,
			  (unsigned long long)(c->st->not_applied - skipped0));
	}
	c->tainted = false;
out:
	for (uint32_t i = 0; i < n; i++)
		free(segs[i].name);
	free(segs);
	closedir(d);
	return e;
}

static int32_t dir_partition(const char *path)
{
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')   /* "dir/" */
		plen--;
	const char *base = path;
	for (size_t i = 0; i < plen; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t len = (size_t)(path + plen - base);
	const char *dash = NULL;
	for (size_t i = 0; i < len; i++)
		if (base[i] == '-')
			dash = base + i;
	int32_t v;
	if (!dash || !ss_dec_u31(dash + 1, (size_t)(base + len - dash - 1), &v))
		return -1;
	return v;
}

static int cmp_dir(const void *a, const void *b)
{
	const struct mt_dir *x = a, *y = b;
	return x->mpart < y->mpart ? -1 : x->mpart > y->mpart;
}

/* The bytes of a metadata partition's .log files, for the progress total. */
static uint64_t dir_log_bytes(const char *dir)
{
	uint64_t sum = 0;
	DIR *d = ss_opendir(AT_FDCWD, dir);   /* closed below; O_DIRECTORY|O_NONBLOCK (common/file.h) */
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		int64_t base;
		enum ss_file_kind inner;
		struct stat sb;
		if (ss_file_classify(de->d_name, &base, &inner) == SS_FILE_LOG &&
		    fstatat(dirfd(d), de->d_name, &sb, 0) == 0 && S_ISREG(sb.st_mode))
			sum += (uint64_t)sb.st_size;
	}
	closedir(d);
	return sum;
}

static int replay(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, int32_t num_partitions,
		  ss_remote_topic_warn_fn warn, void *warn_arg, struct ss_remote_topic_stats *st_out,
		  struct ss_remote_taint *taint, struct ss_logsink *log)
{
	struct ss_remote_topic_stats st;
	struct mt_ctx c = { .r = r, .warn = warn, .warn_arg = warn_arg, .st = &st, .taint = taint, .mpart = -1 };
	struct mt_dir *ds = NULL;
	int e = 0;

	memset(&st, 0, sizeof(st));
	if (n_dirs && !(ds = malloc(n_dirs * sizeof(*ds)))) {
		e = -ENOMEM;
		goto out;
	}
	uint32_t nd = 0;
	for (uint32_t i = 0; i < n_dirs; i++) {
		int32_t mp = dir_partition(dirs[i]);
		if (mp < 0) {
			c.path = dirs[i];
			if ((e = warnf(&c, -1, -1, SEGSCAN_EDIRNAME, "%s: not a __remote_log_metadata-N directory",
				       dirs[i])))
				goto out;
			continue;
		}
		ds[nd].path = dirs[i];
		ds[nd].mpart = mp;
		nd++;
	}
	if (nd)
		qsort(ds, nd, sizeof(*ds), cmp_dir);

	if (num_partitions > 0) {
		c.nparts = num_partitions;
	} else {
		bool dense = true;
		for (uint32_t i = 0; i < nd; i++)
			if (ds[i].mpart != (int32_t)i)
				dense = false;
		c.nparts = dense ? (int32_t)nd : 0;
	}
	st.num_partitions = (uint32_t)c.nparts;

	if (ss_progress_on(log)) {
		/* a stat of each file first (a few dozen): the replay then reports a percentage */
		c.log = log;
		for (uint32_t i = 0; i < nd; i++)
			c.bytes_total += dir_log_bytes(ds[i].path);
		ss_progress(log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_BYTES, "bytes", 0, c.bytes_total);
	}
	for (uint32_t i = 0; i < nd; i++) {
		/* Two dirs with one partition number would be two log dirs holding the same
		 * replica: Kafka refuses to start. Read both; the replay drops repeats. */
		c.mpart = ds[i].mpart;
		st.partitions++;
		if ((e = read_partition(&c, ds[i].path)))
			goto out;
	}
out:
	if (taint)
		ss_remote_taint_finish(taint, c.nparts);
	if (!e)   /* files that grew since the stat pass: the total is what was read */
		ss_progress_end(c.log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_BYTES, "bytes", c.bytes_base,
				c.bytes_base > c.bytes_total ? c.bytes_base : c.bytes_total);
	free(ds);
	if (st_out)
		*st_out = st;
	return e;
}

int ss_remote_topic_replay(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, int32_t num_partitions,
			     ss_remote_topic_warn_fn warn, void *warn_arg, struct ss_remote_topic_stats *st_out,
			     struct ss_remote_taint *taint)
{
	return replay(r, dirs, n_dirs, num_partitions, warn, warn_arg, st_out, taint, NULL);
}

struct cat_warn {
	struct ss_catalog *cat;
	uint64_t           n;
};

static int cat_warn_fn(void *arg, const char *path, int32_t mpart, int64_t offset, int64_t file_pos, int err,
		       const char *msg)
{
	struct cat_warn *w = arg;
	w->n++;
	if (!w->cat || w->n > SS_REMOTE_TOPIC_MAX_PROBLEMS)
		return 0;
	/* a batch that fails its CRC is data that failed verification (exit 1) */
	return ss_catalog_problem(w->cat, path, err, file_pos, err == SEGSCAN_ECRC, "%s", msg);
}

int ss_remote_topic_load(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, int32_t num_partitions,
			 struct ss_catalog *cat, uint64_t *n_warnings, struct ss_remote_taint **taint_out)
{
	struct cat_warn w = { .cat = cat };
	struct ss_remote_topic_stats st;
	struct ss_remote_taint *t = calloc(1, sizeof(*t));   /* handed out, or freed below */
	*taint_out = NULL;
	if (!t)
		return -ENOMEM;
	int e = replay(r, dirs, n_dirs, num_partitions, cat_warn_fn, &w, &st, t, cat ? cat->log : NULL);
	if (!e && t->n_mparts) {
		*taint_out = t;
		t = NULL;
	}
	ss_remote_taint_free(t);
	if (!e && cat && w.n > SS_REMOTE_TOPIC_MAX_PROBLEMS)
		e = ss_catalog_problem(cat, n_dirs ? dirs[0] : "__remote_log_metadata", SEGSCAN_ESCHEMA, -1, false,
				       "%llu more __remote_log_metadata warnings not listed",
				       (unsigned long long)(w.n - SS_REMOTE_TOPIC_MAX_PROBLEMS));
	if (n_warnings)
		*n_warnings = w.n;
	return e;
}
