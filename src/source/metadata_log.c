/*
 * The on-disk KRaft metadata log as a source (see metadata_log.h).
 *
 * Replay order follows KafkaRaftClient / MetadataLoader: the latest snapshot
 * (raft/.../snapshot/Snapshots.java names it; RecordsSnapshotReader requires the
 * SnapshotHeader first and the SnapshotFooter last), then every log record at or after the
 * snapshot's end offset. Files are read through the one .log reader (source/logread.h:
 * where the data ends, torn and zero tails, batches of any size) and framed by
 * src/fmt/batch.h: each batch's CRC-32C is checked (Kafka's log recovery and snapshot reader
 * both validate it) before its records are decoded. Files are named as fmt/names.h names
 * them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/darray.h"
#include "common/esc.h"
#include "common/file.h"
#include "common/log.h"
#include "fmt/batch.h"
#include "fmt/kraft.h"
#include "fmt/names.h"
#include "segscan.h"
#include "fmt/meta_properties.h"
#include "source/logread.h"
#include "source/metadata_log.h"

/* Bytes per read; a batch larger than this is read whole. */
#define CHUNK ((size_t)1 << 20)
/* Largest batch accepted. KafkaRaftClient writes batches of at most 8 MiB
 * (KafkaRaftClient.MAX_BATCH_SIZE_BYTES); anything far above is corruption. */
#define MAX_BATCH ((int64_t)64 << 20)

/* Progress of one replay (common/log.h): bytes read out of the files it will read. */
struct mprog {
	struct ss_logsink *log;
	uint64_t           total;   /* the newest snapshot and the segments after it */
};

/* ---- walking one file ---------------------------------------------------------------------- */

struct walk;
typedef int (*batch_fn)(struct walk *w, const uint8_t *b, const struct ss_batch_hdr *h, int64_t pos);

struct walk {
	const struct mprog  *prog;
	struct ss_cimage    *img;
	struct ss_mlog_info *info;
	const char          *file;     /* path for warnings */
	int64_t              start;    /* records below this offset are skipped */
	uint64_t             bytes_base;   /* info->bytes_read when this file was opened */
	/* snapshot state */
	bool                 snapshot;
	bool                 check_only;   /* a snapshot's first pass: framing, CRCs, header and
					      footer; no record is applied */
	bool                 saw_header, saw_footer, bad;
	/* log state */
	int64_t              next_expected;
	bool                 first_batch;
	/* why walk_file stopped early (it returned 1) */
	bool                 stop_torn;    /* the file ends inside a batch: a torn tail */
	bool                 stop_denied;  /* it could not be opened: permission */
	/* what the replay could not read, for its closing warning (R_* bits) */
	unsigned            *reasons;
};

/* Why a replay is not whole (the closing warning of ss_mlog_replay_log says them). */
enum {
	R_SNAP_DENIED = 1 << 0,   /* a snapshot could not be opened: permission */
	R_SNAP_BAD    = 1 << 1,   /* a snapshot torn, corrupt or unreadable otherwise */
	R_HISTORY     = 1 << 2,   /* no usable snapshot and the log starts late (or is absent) */
	R_GAP         = 1 << 3,   /* offsets missing between segments */
	R_CRC         = 1 << 4,   /* a log batch failed its CRC-32C */
	R_DAMAGE      = 1 << 5,   /* a segment unreadable or damaged past a batch */
	R_DENIED      = 1 << 6,   /* a segment could not be opened: permission */
	R_RECORDS     = 1 << 7,   /* records that do not decode (the image marked the loss) */
};

static void on_read(void *arg, uint64_t bytes)
{
	struct walk *w = arg;
	w->info->bytes_read = w->bytes_base + bytes;
	/* an older snapshot read after a torn newer one is more than the total: hold at it */
	uint64_t d = w->info->bytes_read < w->prog->total ? w->info->bytes_read : w->prog->total;
	ss_progress(w->prog->log, SEGSCAN_PHASE_METADATA_LOG, SEGSCAN_UNIT_BYTES, "bytes", d, w->prog->total);
}

/*
 * A log batch that fails its CRC-32C: skipped whole, and what it could have changed becomes
 * unknown (its records are not trusted even to say what they concern); the batches after
 * it are read on.
 */
static void skip_crc_batch(struct walk *w, const struct ss_batch_hdr *h, int64_t pos)
{
	ss_cimage_warn(w->img, w->file, pos,
		       "the batch at offsets %lld to %lld (%d record(s), as its header says) fails its "
		       "CRC-32C: its records are not applied, and what they could have changed is "
		       "unknown", (long long)h->base_offset, (long long)h->last_offset, h->records_count);
	ss_cimage_mark_lost(w->img, SS_CI_LOST_ALL);
	*w->reasons |= R_CRC;
	w->info->complete = false;
	if (h->last_offset + 1 > w->next_expected)
		w->next_expected = h->last_offset + 1;
}

/* The batches of one file through the one .log reader: 0 read to the end of its data,
 * 1 stopped at a problem (warned), or a negative error. */
static int walk_batches(struct walk *w, struct ss_logrd *r, batch_fn fn)
{
	struct ss_lr_batch b;
	int rc;
	while ((rc = ss_logrd_next(r, &b)) > 0) {
		if (b.h.magic != 2) {
			ss_cimage_warn(w->img, w->file, b.pos, "not a v2 record batch: the replay stops here");
			return 1;
		}
		if (!w->snapshot && b.h.last_offset < w->start)
			continue;   /* inside the snapshot the replay started from: not needed */
		if ((rc = ss_logrd_body(r, &b)) < 0)
			return rc;
		if (!b.data)
			return 0;   /* the reader stopped (shrank, read error): said by the caller */
		/* Every batch's CRC-32C before any of its records is applied (Kafka's readers
		 * validate it too). A snapshot that fails is not used. */
		if ((rc = ss_batch_verify(b.data, &b.h))) {
			if (rc == SEGSCAN_ECRC && !w->snapshot) {
				skip_crc_batch(w, &b.h, b.pos);
				continue;
			}
			ss_cimage_warn(w->img, w->file, b.pos, "%s: the replay stops here", segscan_strerror(rc));
			return 1;
		}
		if ((rc = fn(w, b.data, &b.h, b.pos)) < 0)
			return rc;
		if (rc > 0)
			return 1; /* the callback warned and wants the file to end here */
	}
	return rc;
}

/* Where the file's data ended (logread.h): 0 at its end or at zeros to it (a preallocated
 * or crashed tail), else 1 with the problem warned. */
static int end_of_data(struct walk *w, const struct ss_logrd *r)
{
	long long left = (long long)r->left;
	switch (r->stop) {
	case SS_LR_END:
	case SS_LR_CUT:
	case SS_LR_ZEROS:
	case SS_LR_NONE:
		return 0;
	case SS_LR_TORN_HEADER:
		if (r->left < SS_HEADER_TO_MAGIC)
			ss_cimage_warn(w->img, w->file, r->at, "torn tail: %lld byte(s) after the last complete batch", left);
		else
			ss_cimage_warn(w->img, w->file, r->at, "torn tail: %lld byte(s), less than a batch header", left);
		w->stop_torn = true;
		return 1;
	case SS_LR_TORN_BATCH:
		ss_cimage_warn(w->img, w->file, r->at, "torn tail: a batch of %lld bytes with %lld left in the file",
			       (long long)r->hdr.size, left);
		w->stop_torn = true;
		return 1;
	case SS_LR_CORRUPT:
		ss_cimage_warn(w->img, w->file, r->at, "%s: the replay stops here", segscan_strerror(r->err));
		return 1;
	case SS_LR_TOO_BIG:
		ss_cimage_warn(w->img, w->file, r->at, "%s: the replay stops here",
			       r->hdr.magic != 2 ? "not a v2 record batch" : "batch larger than any Kafka writes");
		return 1;
	case SS_LR_SHRANK:   /* the file ended inside a batch it had room for: it shrank */
		ss_cimage_warn(w->img, w->file, r->at, "read failed: %s", segscan_strerror(SEGSCAN_ETRUNC));
		return 1;
	case SS_LR_IO:
		ss_cimage_warn(w->img, w->file, r->at, "read failed: %s", segscan_strerror(r->err));
		return 1;
	}
	return 1;
}

/* Returns 0 when the file was read to its end without a problem, 1 when it stopped at a
 * problem (warned), or -ENOMEM. */
static int walk_file(int dirfd, const char *name, struct walk *w, batch_fn fn)
{
	struct stat st;
	w->stop_torn = w->stop_denied = false;
	int fd = ss_open_ro(dirfd, name, 0); /* closed below */
	if (fd < 0) {
		ss_cimage_warn(w->img, w->file, 0, "cannot open: %s", segscan_strerror(fd));
		w->stop_denied = fd == -EACCES || fd == -EPERM;
		return 1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ss_cimage_warn(w->img, w->file, 0, "not a readable regular file");
		close(fd);
		return 1;
	}
	struct ss_logrd r;
	w->bytes_base = w->info->bytes_read;
	/* closed below (pairs with ss_logrd_close) */
	int ret = ss_logrd_open(&r, fd, st.st_size, &(struct ss_logrd_opts){ .max_batch = MAX_BATCH, .chunk = CHUNK,
				    .on_read = w->prog ? on_read : NULL, .arg = w });
	if (!ret)
		ret = walk_batches(w, &r, fn);
	if (!ret)
		ret = end_of_data(w, &r);
	w->info->bytes_read = w->bytes_base + (uint64_t)ss_logrd_bytes(&r);
	ss_logrd_close(&r);
	close(fd); /* opened at the top */
	return ret;
}

/* ---- per-record handling ------------------------------------------------------------------------ */

struct rec_ctx {
	struct walk *w;
	int64_t      pos;
	int          err;      /* -ENOMEM from the image */
};

static int on_data_record(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct rec_ctx *c = arg;
	if (r->offset < c->w->start)
		return 0;
	c->w->info->records_replayed++;
	struct ss_ci_where wh = { c->w->file, c->pos, r->offset };
	int rc = ss_cimage_apply(c->w->img, r->value, r->value_len > 0 ? (size_t)r->value_len : 0, &wh);
	if (rc) {
		c->err = rc;
		return 1;
	}
	return 0;
}

struct ctl_ctx {
	struct walk *w;
	int64_t      pos;
	int32_t      index;
	int          first_type, last_type;
	int          bad;
};

static int on_control_record(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct ctl_ctx *c = arg;
	int t = ss_kraft_control_type(r->key, r->key_len);
	if (t < 0) {
		c->bad = t;
		return 1;
	}
	if (c->index == 0)
		c->first_type = t;
	c->last_type = t;
	c->index++;
	return 0;
}

static int snapshot_batch(struct walk *w, const uint8_t *b, const struct ss_batch_hdr *h, int64_t pos)
{
	if (w->saw_footer) {
		ss_cimage_warn(w->img, w->file, pos, "a batch after the SnapshotFooter");
		w->bad = true;
		return 1;
	}
	if (h->attributes & SS_ATTR_CONTROL) {
		struct ctl_ctx c = { w, pos, 0, -1, -1, 0 };
		int rc = ss_batch_foreach_record(b, h, on_control_record, &c);
		if (rc < 0 || c.bad) {
			ss_cimage_warn(w->img, w->file, pos, "unreadable control batch: %s",
				       segscan_strerror(rc < 0 ? rc : c.bad));
			w->bad = true;
			return 1;
		}
		if (!w->saw_header) {
			if (c.first_type != SS_KC_SNAPSHOT_HEADER) {
				ss_cimage_warn(w->img, w->file, pos, "the snapshot does not start with a SnapshotHeader");
				w->bad = true;
				return 1;
			}
			w->saw_header = true;
		}
		if (c.last_type == SS_KC_SNAPSHOT_FOOTER)
			w->saw_footer = true;
		return 0;
	}
	if (!w->saw_header) {
		ss_cimage_warn(w->img, w->file, pos, "the snapshot does not start with a SnapshotHeader");
		w->bad = true;
		return 1;
	}
	if (w->check_only)
		return 0; /* its CRC matched (walk_file); the records are read in the second pass */
	struct rec_ctx c = { w, pos, 0 };
	int rc = ss_batch_foreach_record(b, h, on_data_record, &c);
	if (c.err)
		return c.err;
	if (rc < 0) {
		ss_cimage_warn(w->img, w->file, pos, "unreadable records in a batch: %s", segscan_strerror(rc));
		w->bad = true;
		return 1;
	}
	return 0;
}

static int log_batch(struct walk *w, const uint8_t *b, const struct ss_batch_hdr *h, int64_t pos)
{
	if (h->last_offset < w->start)
		return 0; /* inside the snapshot */
	if (h->base_offset > w->next_expected) {
		ss_cimage_warn(w->img, w->file, pos, "offsets %lld to %lld are missing from the metadata log",
			       (long long)w->next_expected, (long long)h->base_offset - 1);
		w->info->history_incomplete = true;
		ss_cimage_mark_lost(w->img, SS_CI_LOST_ALL);
		*w->reasons |= R_GAP;
	}
	if (h->last_offset + 1 > w->next_expected)
		w->next_expected = h->last_offset + 1;
	if (h->attributes & SS_ATTR_CONTROL) {
		/* LeaderChange, KRaftVersion, Voters: nothing for the image; check they parse */
		struct ctl_ctx c = { w, pos, 0, -1, -1, 0 };
		int rc = ss_batch_foreach_record(b, h, on_control_record, &c);
		if (rc < 0 || c.bad)
			ss_cimage_warn(w->img, w->file, pos, "unreadable control batch: %s",
				       segscan_strerror(rc < 0 ? rc : c.bad));
	} else {
		struct rec_ctx c = { w, pos, 0 };
		int rc = ss_batch_foreach_record(b, h, on_data_record, &c);
		if (c.err)
			return c.err;
		if (rc < 0) {
			/* the CRC matched, so these are the bytes the controller wrote: go on, without
			 * the records past the break */
			ss_cimage_warn(w->img, w->file, pos, "unreadable records in a batch: %s", segscan_strerror(rc));
			w->info->complete = false;
			ss_cimage_mark_lost(w->img, SS_CI_LOST_ALL);
			*w->reasons |= R_RECORDS;
		}
	}
	w->info->last_offset = h->last_offset;
	w->info->last_epoch = h->leader_epoch;
	return 0;
}

/* ---- saying what is unknown ----------------------------------------------------------------- */

static void cat(char *buf, size_t n, bool *first, const char *s)
{
	size_t l = strlen(buf);
	snprintf(buf + l, n > l ? n - l : 0, "%s%s", *first ? "" : "; ", s);
	*first = false;
}

/*
 * The replay's closing word when the metadata log was not read whole: why, and what that
 * leaves unknown (issue 20 item 7: never a silently incomplete config). First among the
 * image's warnings, and a warning on the scan's log sink (the CLI's stderr, serve's log).
 */
static int closing_warning(struct ss_cimage *img, const struct ss_mlog_info *info, unsigned reasons,
			   struct ss_logsink *log)
{
	if (info->complete && !info->lost && !reasons)
		return 0;
	char why[640] = "", unknown[900] = "", msg[1800];
	bool f = true;
	if (reasons & R_SNAP_DENIED)
		cat(why, sizeof why, &f, "snapshots could not be opened (permission denied)");
	if (reasons & R_SNAP_BAD)
		cat(why, sizeof why, &f, "snapshots are torn or corrupt");
	if (reasons & R_HISTORY) {
		char t[160];
		if (info->log_start_offset > 0)
			snprintf(t, sizeof t, "no snapshot was usable and the log starts at offset %lld",
				 (long long)info->log_start_offset);
		else
			snprintf(t, sizeof t, "no snapshot was usable and there is no log segment");
		cat(why, sizeof why, &f, t);
	}
	if (reasons & R_GAP)
		cat(why, sizeof why, &f, "offsets are missing between segments");
	if (reasons & R_CRC)
		cat(why, sizeof why, &f, "batches fail their CRC-32C");
	if (reasons & R_DENIED)
		cat(why, sizeof why, &f, "segments could not be opened (permission denied)");
	if (reasons & R_DAMAGE)
		cat(why, sizeof why, &f, "segments are damaged or unreadable past a batch");
	if (reasons & R_RECORDS)
		cat(why, sizeof why, &f, "records could not be applied (malformed, of a newer version, or a transaction "
					 "too large to hold)");
	if (f)
		cat(why, sizeof why, &f, "a file could not be read to its end");
	f = true;
	if (info->lost & SS_CI_LOST_CONFIGS)
		cat(unknown, sizeof unknown, &f,
		    "the dynamic configs (topic, broker, cluster default) not set again after it: their source is "
		    "null, and so is remote_storage where they leave remote.storage.enable open");
	if (info->lost & SS_CI_LOST_TOPICS)
		cat(unknown, sizeof unknown, &f,
		    "the topics not created again after it: their assignment is null, topic ids are not checked and "
		    "STRAY_PARTITION is not raised for them");
	if (info->lost & SS_CI_LOST_BROKERS)
		cat(unknown, sizeof unknown, &f, "this broker's registration, and the Kafka release read from it");
	if (info->lost & SS_CI_LOST_FEATURES)
		cat(unknown, sizeof unknown, &f, "the finalized metadata.version");
	const char *hint = (reasons & (R_SNAP_DENIED | R_DENIED))
				   ? " (a broker writes its snapshots mode 0400 as its own user: run segscan as that user "
				     "or with CAP_DAC_READ_SEARCH, as the shipped segscan.service does)"
				   : "";
	if (info->lost)
		snprintf(msg, sizeof msg, "%s: the metadata log could not be read whole: %s%s. Unknown: %s", info->dir,
			 why, hint, unknown);
	else
		snprintf(msg, sizeof msg,
			 "%s: the metadata log could not be read whole: %s%s. The files read still hold its whole "
			 "history to offset %lld, so nothing is unknown", info->dir, why, hint,
			 (long long)info->last_offset);
	/* the directory's path may hold any byte but NUL: one line on stderr too */
	char *shown = ss_esc_line(msg);
	if (!shown)
		return -ENOMEM;
	ss_logmsg(log, SEGSCAN_LOG_WARNING, "%s", shown);
	free(shown);
	return ss_cimage_warn_front(img, "%s", msg);
}

/* ---- directory ------------------------------------------------------------------------------------ */

/* The files of the metadata log directory (named as fmt/names.h names them). */
struct snap {
	char    name[64];
	int64_t offset;
	int32_t epoch;
};
struct seg {
	char   *name;
	int64_t base;
};

static int cmp_snap_desc(const void *a, const void *b)
{
	const struct snap *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? 1 : -1;
	return x->epoch < y->epoch ? 1 : x->epoch > y->epoch ? -1 : 0;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int ss_mlog_find(const char *path, char **out)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *base = path;
	for (size_t i = 0; i < n; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t bl = (size_t)(path + n - base);
	char *d;
	if (bl == strlen(SS_MLOG_DIRNAME) && !memcmp(base, SS_MLOG_DIRNAME, bl)) {
		if (!(d = strndup(path, n)))
			return -ENOMEM;
	} else if (asprintf(&d, "%.*s/%s", (int)n, path, SS_MLOG_DIRNAME) < 0) {
		return -ENOMEM;
	}
	if (!is_dir(d)) {
		free(d);
		return -ENOENT;
	}
	*out = d;
	return 0;
}

/* node.id and cluster.id from meta.properties beside the metadata log, if it is there and
 * parses (fmt/meta_properties.h, as Kafka's MetaProperties reads it); otherwise both stay unknown. */
static void read_meta_properties(const char *dir, struct ss_mlog_info *info)
{
	char *path = NULL, *text = NULL;
	size_t len;
	struct ss_meta_props m;
	if (asprintf(&path, "%s/../meta.properties", dir) < 0)
		return;
	if (ss_read_file(AT_FDCWD, path, 64 << 10, &text, &len) == 0 &&
	    ss_meta_props_parse(text, len, path, &m, NULL, 0) == 0) {
		info->node_id = m.node_id;
		info->cluster_id = m.cluster_id;   /* taken over */
		m.cluster_id = NULL;
		ss_meta_props_free(&m);
	}
	free(text);
	free(path);
}

void ss_mlog_info_free(struct ss_mlog_info *info)
{
	if (!info)
		return;
	free(info->dir);
	free(info->snapshot);
	free(info->cluster_id);
	memset(info, 0, sizeof *info);
}

int ss_mlog_replay(const char *path, struct ss_cimage **img_out, struct ss_mlog_info *info)
{
	return ss_mlog_replay_log(path, img_out, info, NULL);
}

static uint64_t file_size(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, 0) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* One replay's state across its steps (ss_mlog_replay_log). */
struct replay {
	struct ss_mlog_info *info;
	struct ss_cimage    *img;
	int                  dfd;
	struct snap         *snaps;    /* newest first */
	struct seg          *segs;     /* in base-offset order */
	uint32_t             n_snaps, cap_snaps, n_segs, cap_segs;
	struct mprog         prog;
	const struct mprog  *pp;       /* &prog when progress is reported, else NULL */
	unsigned             reasons;  /* R_* */
	char                *fpath;    /* the file being read, for warnings */
};

static void info_init(struct ss_mlog_info *info)
{
	memset(info, 0, sizeof *info);
	info->snapshot_offset = -1;
	info->snapshot_epoch = -1;
	info->log_start_offset = -1;
	info->last_offset = -1;
	info->last_epoch = -1;
	info->node_id = -1;
	info->complete = true;
}

/* Step 1: the snapshots and segments of the directory, sorted. */
static int list_files(struct replay *rp)
{
	int lfd = dup(rp->dfd); /* owned by d (closedir) */
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	int rc = 0;
	if (!d) {
		rc = -errno;
		if (lfd >= 0)
			close(lfd);
		return rc;
	}
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		int64_t base;
		int32_t epoch;
		if (ss_snapshot_name_parse(de->d_name, &base, &epoch)) {
			struct snap *s;
			if (!(rc = SS_DA_PUSH(&rp->snaps, &rp->n_snaps, &rp->cap_snaps, &s))) {
				memcpy(s->name, de->d_name, 43);   /* 42 characters (ss_snapshot_name_parse) */
				s->offset = base;
				s->epoch = epoch;
			}
		} else if (ss_file_classify(de->d_name, &base, NULL) == SS_FILE_LOG) {
			struct seg *s;
			if (!(rc = SS_DA_PUSH(&rp->segs, &rp->n_segs, &rp->cap_segs, &s))) {
				s->base = base;
				if (!(s->name = strdup(de->d_name))) {
					rp->n_segs--;
					rc = -ENOMEM;
				}
			}
		}
	}
	closedir(d); /* fdopendir above */
	if (rc)
		return rc;
	if (rp->n_snaps) /* qsort's array must not be NULL, even when empty */
		qsort(rp->snaps, rp->n_snaps, sizeof *rp->snaps, cmp_snap_desc);
	if (rp->n_segs)
		qsort(rp->segs, rp->n_segs, sizeof *rp->segs, cmp_seg);
	rp->info->snapshots_found = rp->n_snaps;
	rp->info->segments = rp->n_segs;
	if (rp->n_segs)
		rp->info->log_start_offset = rp->segs[0].base;
	return 0;
}

/* Step 2: the progress total, what the replay reads when the newest snapshot is good: it and
 * the segments from the one holding its end offset on (replay_segments skips the rest). */
static void progress_begin(struct replay *rp, struct ss_logsink *log)
{
	rp->prog.log = log;
	if (!ss_progress_on(log))
		return;
	int64_t from = rp->n_snaps ? rp->snaps[0].offset : 0;
	if (rp->n_snaps)
		rp->prog.total += file_size(rp->dfd, rp->snaps[0].name);
	for (uint32_t i = 0; i < rp->n_segs; i++)
		if (!(i + 1 < rp->n_segs && rp->segs[i + 1].base <= from))
			rp->prog.total += file_size(rp->dfd, rp->segs[i].name);
	rp->pp = &rp->prog;
	ss_progress(log, SEGSCAN_PHASE_METADATA_LOG, SEGSCAN_UNIT_BYTES, "bytes", 0, rp->prog.total);
}

static int set_path(struct replay *rp, const char *name)
{
	free(rp->fpath);
	if (asprintf(&rp->fpath, "%s/%s", rp->info->dir, name) < 0) {
		rp->fpath = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * One snapshot into its own image t, in two passes: the first checks the whole file (every
 * batch's framing and CRC, the SnapshotHeader first and the SnapshotFooter last) and applies
 * nothing, so that a torn or corrupt snapshot costs a read, not a replay; the second replays
 * the one that passed. 0 with *good when t holds it, 0 with *denied / !*good when it is not
 * usable (warned in t), or -ENOMEM.
 */
static int snapshot_passes(struct replay *rp, const struct snap *sn, struct ss_cimage *t, bool *good, bool *denied)
{
	struct walk w = { .img = t, .info = rp->info, .file = rp->fpath, .start = 0, .snapshot = true,
			  .check_only = true, .prog = rp->pp, .reasons = &rp->reasons };
	int rc = walk_file(rp->dfd, sn->name, &w, snapshot_batch);
	if (rc == 0 && !w.bad && !w.saw_footer)
		ss_cimage_warn(t, rp->fpath, 0, "the snapshot has no SnapshotFooter (torn)");
	if (rc == 0 && !w.bad && w.saw_footer) {
		w = (struct walk){ .img = t, .info = rp->info, .file = rp->fpath, .start = 0, .snapshot = true,
				   .prog = rp->pp, .reasons = &rp->reasons };
		rc = walk_file(rp->dfd, sn->name, &w, snapshot_batch);
		if (rc == 0 && !w.bad && !w.saw_footer) /* it changed between the passes */
			ss_cimage_warn(t, rp->fpath, 0, "the snapshot has no SnapshotFooter (torn)");
	}
	*good = rc == 0 && !w.bad && w.saw_footer;
	*denied = w.stop_denied;
	return rc < 0 ? rc : 0;
}

/* Step 3: the newest complete snapshot. Each attempt replays into a fresh image, so a torn
 * one leaves nothing behind but its warnings. */
static int replay_snapshots(struct replay *rp)
{
	struct ss_mlog_info *info = rp->info;
	int rc;
	for (uint32_t i = 0; i < rp->n_snaps; i++) {
		const struct snap *sn = &rp->snaps[i];
		struct ss_cimage *t;
		bool good, denied;
		if ((rc = ss_cimage_new(&t)))
			return rc;
		if ((rc = set_path(rp, sn->name)) || (rc = snapshot_passes(rp, sn, t, &good, &denied))) {
			ss_cimage_free(t);
			return rc;
		}
		if (good) {
			/* this image, with the warnings of the rejected newer ones */
			if ((rc = ss_cimage_take_warnings(t, rp->img))) {
				ss_cimage_free(t);
				return rc;
			}
			ss_cimage_free(rp->img);
			rp->img = t;
			info->snapshot = strdup(sn->name);
			info->snapshot_offset = sn->offset;
			info->snapshot_epoch = sn->epoch;
			info->last_offset = sn->offset - 1;
			info->last_epoch = sn->epoch;
			return info->snapshot ? 0 : -ENOMEM;
		}
		if ((rc = ss_cimage_take_warnings(rp->img, t))) {
			ss_cimage_free(t);
			return rc;
		}
		ss_cimage_warn(rp->img, NULL, 0, "%s: snapshot not used (%s); trying an older one", rp->fpath,
			       denied ? "it cannot be read" : "incomplete");
		rp->reasons |= denied ? R_SNAP_DENIED : R_SNAP_BAD;
		ss_cimage_free(t);
		info->snapshots_rejected++;
		info->complete = false;
	}
	return 0;
}

/* Step 4: the log segments after the snapshot (all of them without one). */
static int replay_segments(struct replay *rp)
{
	struct ss_mlog_info *info = rp->info;
	int64_t start = info->snapshot_offset >= 0 ? info->snapshot_offset : 0;
	int rc;
	if (!info->snapshot && rp->n_segs && rp->segs[0].base > 0) {
		ss_cimage_warn(rp->img, NULL, 0,
			       "%s: no usable snapshot and the log starts at offset %lld: the history before it is missing",
			       info->dir, (long long)rp->segs[0].base);
		info->history_incomplete = true;
		start = rp->segs[0].base;
		ss_cimage_mark_lost(rp->img, SS_CI_LOST_ALL);
		rp->reasons |= R_HISTORY;
	}
	struct walk w = { .img = rp->img, .info = info, .start = start, .next_expected = start, .prog = rp->pp,
			  .reasons = &rp->reasons };
	for (uint32_t i = 0; i < rp->n_segs; i++) {
		/* every record of a segment lies below the next one's base offset */
		if (i + 1 < rp->n_segs && rp->segs[i + 1].base <= start)
			continue;
		if ((rc = set_path(rp, rp->segs[i].name)))
			return rc;
		w.file = rp->fpath;
		rc = walk_file(rp->dfd, rp->segs[i].name, &w, log_batch);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			info->complete = false;
			/* The rest of this file is not applied. A torn tail of the last segment is
			 * the batch being written (a live log): nothing after it was committed yet.
			 * Anything else loses what followed; a later segment's base offset cannot
			 * tell, as the offsets of the unread batches are unknown. */
			if (!(w.stop_torn && i + 1 == rp->n_segs)) {
				ss_cimage_mark_lost(rp->img, SS_CI_LOST_ALL);
				rp->reasons |= w.stop_denied ? R_DENIED : R_DAMAGE;
			}
		}
	}
	if (!info->snapshot && !rp->n_segs) {
		ss_cimage_warn(rp->img, NULL, 0, "%s: no usable snapshot and no log segment: nothing to replay", info->dir);
		info->history_incomplete = true;
		ss_cimage_mark_lost(rp->img, SS_CI_LOST_ALL);
		rp->reasons |= R_HISTORY;
	}
	return 0;
}

/* Step 5: what could not be applied, the closing warning, meta.properties. */
static int replay_finish(struct replay *rp, struct ss_logsink *log)
{
	struct ss_mlog_info *info = rp->info;
	int rc;
	ss_cimage_finish(rp->img);
	info->lost = ss_cimage_lost(rp->img);
	if (ss_cimage_stats(rp->img)->unapplied)
		rp->reasons |= R_RECORDS;
	if (info->lost)
		info->complete = false; /* something is unknown: never reported as whole */
	if ((rc = closing_warning(rp->img, info, rp->reasons, log)))
		return rc;
	read_meta_properties(info->dir, info);
	ss_progress_end(rp->pp ? log : NULL, SEGSCAN_PHASE_METADATA_LOG, SEGSCAN_UNIT_BYTES, "bytes", rp->prog.total,
			rp->prog.total);
	return 0;
}

int ss_mlog_replay_log(const char *path, struct ss_cimage **img_out, struct ss_mlog_info *info,
		       struct ss_logsink *log)
{
	struct replay rp = { .info = info, .dfd = -1 };
	int rc;

	info_init(info);
	*img_out = NULL;
	if ((rc = ss_mlog_find(path, &info->dir)))
		goto fail;
	/* O_DIRECTORY|O_NONBLOCK (ss_open_ro): a FIFO there fails with ENOTDIR, never blocks */
	rp.dfd = ss_open_ro(AT_FDCWD, info->dir, O_DIRECTORY); /* closed at the end */
	if (rp.dfd < 0) {
		rc = rp.dfd;
		goto fail;
	}
	if ((rc = list_files(&rp)))
		goto fail;
	progress_begin(&rp, log);
	if ((rc = ss_cimage_new(&rp.img)) || (rc = replay_snapshots(&rp)) || (rc = replay_segments(&rp)) ||
	    (rc = replay_finish(&rp, log)))
		goto fail;
	*img_out = rp.img;
	rp.img = NULL;
	goto out;
fail:
	ss_mlog_info_free(info);
out:
	ss_cimage_free(rp.img);
	free(rp.fpath);
	free(rp.snaps);
	for (uint32_t i = 0; i < rp.n_segs; i++)
		free(rp.segs[i].name);
	free(rp.segs);
	if (rp.dfd >= 0)
		close(rp.dfd);  /* opened above */
	return rc;
}
