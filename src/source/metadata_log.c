/*
 * The on-disk KRaft metadata log as a source (see metadata_log.h).
 *
 * Replay order follows KafkaRaftClient / MetadataLoader: the latest snapshot
 * (raft/.../snapshot/Snapshots.java names it; RecordsSnapshotReader requires the
 * SnapshotHeader first and the SnapshotFooter last), then every log record at or after the
 * snapshot's end offset. Batches are read with the parsers of src/fmt/batch.h: each one's
 * CRC-32C is checked (Kafka's log recovery and snapshot reader both validate it) before its
 * records are decoded.
 */
#include <ctype.h>
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
#include "segscan.h"
#include "fmt/meta_properties.h"
#include "source/metadata_log.h"

/* Bytes per read; a batch larger than this is read whole. */
#define CHUNK ((size_t)1 << 20)
/* Largest batch accepted. KafkaRaftClient writes batches of at most 8 MiB
 * (KafkaRaftClient.MAX_BATCH_SIZE_BYTES); anything far above is corruption. */
#define MAX_BATCH ((int64_t)64 << 20)
/* A zero header followed by this many zero bytes is taken as a preallocated tail: the
 * rest of the file is not read (it may be most of a 1 GiB segment). */
#define ZERO_PROBE 4096

/* ---- bounded reads ---------------------------------------------------------------------- */

/* Progress of one replay (common/log.h): bytes read out of the files it will read. */
struct mprog {
	struct ss_logsink *log;
	uint64_t           total;   /* the newest snapshot and the segments after it */
};

struct frd {
	const struct mprog *prog;   /* NULL: no progress */
	int       fd;
	int64_t   size;
	uint8_t  *buf;
	size_t    cap;
	int64_t   wpos;   /* file position of buf[0] */
	size_t    wlen;   /* valid bytes in buf */
	uint64_t *bytes_read;
};

/*
 * Make [pos, pos + need) available; returns a pointer to it, or NULL with *err set
 * (-errno, or SEGSCAN_ETRUNC when the file ends first, e.g. it shrank under us).
 */
static const uint8_t *frd_get(struct frd *f, int64_t pos, size_t need, int *err)
{
	if (pos >= f->wpos && (uint64_t)(pos - f->wpos) + need <= f->wlen)
		return f->buf + (pos - f->wpos);
	if (pos < 0 || pos >= f->size || (int64_t)need > f->size - pos) {
		*err = SEGSCAN_ETRUNC;
		return NULL;
	}
	size_t want = need > CHUNK ? need : CHUNK;
	if ((int64_t)want > f->size - pos)
		want = (size_t)(f->size - pos);
	if (want > f->cap) {
		uint8_t *nb = realloc(f->buf, want);
		if (!nb) {
			*err = -ENOMEM;
			return NULL;
		}
		f->buf = nb;
		f->cap = want;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t n = pread(f->fd, f->buf + got, want - got, pos + (int64_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*err = -errno;
			f->wlen = 0;
			return NULL;
		}
		if (n == 0)
			break; /* shrank under us */
		got += (size_t)n;
	}
	*f->bytes_read += got;
	if (f->prog) {
		/* an older snapshot read after a torn newer one is more than the total: hold at it */
		uint64_t d = *f->bytes_read < f->prog->total ? *f->bytes_read : f->prog->total;
		ss_progress(f->prog->log, SEGSCAN_PHASE_METADATA_LOG, SEGSCAN_UNIT_BYTES, "bytes", d, f->prog->total);
	}
	f->wpos = pos;
	f->wlen = got;
	if (got < need) {
		*err = SEGSCAN_ETRUNC;
		return NULL;
	}
	return f->buf;
}

/* ---- walking one file ---------------------------------------------------------------------- */

struct walk;
typedef int (*batch_fn)(struct walk *w, const uint8_t *b, const struct ss_batch_hdr *h, int64_t pos);

struct walk {
	const struct mprog  *prog;
	struct ss_cimage    *img;
	struct ss_mlog_info *info;
	const char          *file;     /* path for warnings */
	int64_t              start;    /* records below this offset are skipped */
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

/* Returns 0 when the file was read to its end without a problem, 1 when it stopped at a
 * problem (warned), or -ENOMEM. */
static int walk_file(int dirfd, const char *name, struct walk *w, batch_fn fn)
{
	int err = 0, ret = 1;
	struct frd f = { .fd = -1, .bytes_read = &w->info->bytes_read, .prog = w->prog };
	w->stop_torn = w->stop_denied = false;
	f.fd = ss_open_ro(dirfd, name, 0); /* closed at out */
	if (f.fd < 0) {
		ss_cimage_warn(w->img, w->file, 0, "cannot open: %s", segscan_strerror(f.fd));
		w->stop_denied = f.fd == -EACCES || f.fd == -EPERM;
		return 1;
	}
	struct stat st;
	if (fstat(f.fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ss_cimage_warn(w->img, w->file, 0, "not a readable regular file");
		goto out;
	}
	f.size = st.st_size;
	int64_t pos = 0;
	while (pos < f.size) {
		int64_t rem = f.size - pos;
		const uint8_t *p;
		if (rem < SS_HEADER_TO_MAGIC) {
			if (!(p = frd_get(&f, pos, (size_t)rem, &err)))
				goto ioerr;
			bool zero = true;
			for (int64_t i = 0; i < rem; i++)
				zero &= p[i] == 0;
			if (!zero) {
				ss_cimage_warn(w->img, w->file, pos, "torn tail: %lld byte(s) after the last complete batch",
					       (long long)rem);
				w->stop_torn = true;
				goto out;
			}
			break;
		}
		size_t hneed = rem < SS_MAX_HEADER_SIZE ? (size_t)rem : SS_MAX_HEADER_SIZE;
		if (!(p = frd_get(&f, pos, hneed, &err)))
			goto ioerr;
		struct ss_batch_hdr h;
		int rc = ss_batch_header(p, hneed, &h);
		if (rc <= 0) {
			/* all zeros from here (probed): a preallocated or crashed tail, the end of data */
			size_t probe = rem < ZERO_PROBE ? (size_t)rem : ZERO_PROBE;
			const uint8_t *z = frd_get(&f, pos, probe, &err);
			bool zero = z != NULL;
			for (size_t i = 0; z && i < probe; i++)
				zero &= z[i] == 0;
			if (zero)
				break;
			if (rc == 0) {
				ss_cimage_warn(w->img, w->file, pos, "torn tail: %lld byte(s), less than a batch header",
					       (long long)rem);
				w->stop_torn = true;
			} else
				ss_cimage_warn(w->img, w->file, pos, "%s: the replay stops here", segscan_strerror(rc));
			goto out;
		}
		if (h.size > rem) {
			ss_cimage_warn(w->img, w->file, pos, "torn tail: a batch of %lld bytes with %lld left in the file",
				       (long long)h.size, (long long)rem);
			w->stop_torn = true;
			goto out;
		}
		if (h.magic != 2 || h.size > MAX_BATCH) {
			ss_cimage_warn(w->img, w->file, pos, "%s: the replay stops here",
				       h.magic != 2 ? "not a v2 record batch" : "batch larger than any Kafka writes");
			goto out;
		}
		if (!w->snapshot && h.last_offset < w->start) {
			pos += h.size; /* inside the snapshot the replay started from: not needed */
			continue;
		}
		if (!(p = frd_get(&f, pos, (size_t)h.size, &err)))
			goto ioerr;
		/* Every batch's CRC-32C before any of its records is applied (Kafka's readers
		 * validate it too). A log batch that fails it is skipped whole, and what it could
		 * have changed becomes unknown (its records are not trusted even to say what they
		 * concern); the batches after it are read on. A snapshot that fails is not used. */
		if ((rc = ss_batch_verify(p, &h))) {
			if (rc == SEGSCAN_ECRC && !w->snapshot) {
				ss_cimage_warn(w->img, w->file, pos,
					       "the batch at offsets %lld to %lld (%d record(s), as its header says) fails its "
					       "CRC-32C: its records are not applied, and what they could have changed is "
					       "unknown", (long long)h.base_offset, (long long)h.last_offset,
					       h.records_count);
				ss_cimage_mark_lost(w->img, SS_CI_LOST_ALL);
				*w->reasons |= R_CRC;
				w->info->complete = false;
				if (h.last_offset + 1 > w->next_expected)
					w->next_expected = h.last_offset + 1;
				pos += h.size;
				continue;
			}
			ss_cimage_warn(w->img, w->file, pos, "%s: the replay stops here", segscan_strerror(rc));
			goto out;
		}
		if ((rc = fn(w, p, &h, pos)) < 0) {
			ret = rc;
			goto out;
		}
		if (rc > 0)
			goto out; /* the callback warned and wants the file to end here */
		pos += h.size;
	}
	ret = 0;
	goto out;
ioerr:
	if (err == -ENOMEM) {
		ret = -ENOMEM;
		goto out;
	}
	ss_cimage_warn(w->img, w->file, f.wpos, "read failed: %s", segscan_strerror(err));
out:
	free(f.buf);
	if (f.fd >= 0)
		close(f.fd); /* opened at the top */
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

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

struct snap {
	char    name[64];
	int64_t offset;
	int32_t epoch;
};
struct seg {
	char    name[32];
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

int ss_mlog_replay_log(const char *path, struct ss_cimage **img_out, struct ss_mlog_info *info,
		       struct ss_logsink *log)
{
	struct mprog prog = { .log = log };
	const struct mprog *pp = NULL;
	struct snap *snaps = NULL;
	struct seg *segs = NULL;
	uint32_t n_snaps = 0, cap_snaps = 0, n_segs = 0, cap_segs = 0;
	struct ss_cimage *img = NULL;
	DIR *d = NULL;
	int dfd = -1, rc;
	unsigned reasons = 0;
	char *fpath = NULL;

	memset(info, 0, sizeof *info);
	info->snapshot_offset = -1;
	info->snapshot_epoch = -1;
	info->log_start_offset = -1;
	info->last_offset = -1;
	info->last_epoch = -1;
	info->node_id = -1;
	info->complete = true;
	*img_out = NULL;

	if ((rc = ss_mlog_find(path, &info->dir)))
		goto fail;
	/* O_DIRECTORY|O_NONBLOCK (ss_open_ro): a FIFO there fails with ENOTDIR, never blocks */
	dfd = ss_open_ro(AT_FDCWD, info->dir, O_DIRECTORY); /* closed at the end */
	if (dfd < 0) {
		rc = dfd;
		goto fail;
	}
	int lfd = dup(dfd); /* owned by d (closedir) */
	if (lfd < 0 || !(d = fdopendir(lfd))) {
		rc = -errno;
		if (lfd >= 0)
			close(lfd);
		goto fail;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t l = strlen(n);
		if (l == 42 && digits(n, 20) && n[20] == '-' && digits(n + 21, 10) && !strcmp(n + 31, ".checkpoint")) {
			struct snap *s;
			if ((rc = SS_DA_PUSH(&snaps, &n_snaps, &cap_snaps, &s)))
				goto fail;
			memcpy(s->name, n, l + 1);
			s->offset = strtoll(n, NULL, 10);
			long long e = strtoll(n + 21, NULL, 10);
			s->epoch = e > INT32_MAX ? INT32_MAX : (int32_t)e;
		} else if (l == 24 && digits(n, 20) && !strcmp(n + 20, ".log")) {
			struct seg *s;
			if ((rc = SS_DA_PUSH(&segs, &n_segs, &cap_segs, &s)))
				goto fail;
			memcpy(s->name, n, l + 1);
			s->base = strtoll(n, NULL, 10);
		}
	}
	if (n_snaps) /* qsort's array must not be NULL, even when empty */
		qsort(snaps, n_snaps, sizeof *snaps, cmp_snap_desc);
	if (n_segs)
		qsort(segs, n_segs, sizeof *segs, cmp_seg);
	info->snapshots_found = n_snaps;
	info->segments = n_segs;
	if (ss_progress_on(log)) {
		/* what the replay reads when the newest snapshot is good: it and the segments
		 * from the one holding its end offset on (the loop below skips the rest) */
		int64_t from = n_snaps ? snaps[0].offset : 0;
		if (n_snaps)
			prog.total += file_size(dfd, snaps[0].name);
		for (uint32_t i = 0; i < n_segs; i++)
			if (!(i + 1 < n_segs && segs[i + 1].base <= from))
				prog.total += file_size(dfd, segs[i].name);
		pp = &prog;
		ss_progress(log, SEGSCAN_PHASE_METADATA_LOG, SEGSCAN_UNIT_BYTES, "bytes", 0, prog.total);
	}
	if (n_segs)
		info->log_start_offset = segs[0].base;

	if ((rc = ss_cimage_new(&img)))
		goto fail;
	/* The newest complete snapshot: each attempt replays into a fresh image, so a torn
	 * one leaves nothing behind but its warnings. */
	for (uint32_t i = 0; i < n_snaps; i++) {
		struct ss_cimage *t;
		if ((rc = ss_cimage_new(&t)))
			goto fail;
		free(fpath);
		if (asprintf(&fpath, "%s/%s", info->dir, snaps[i].name) < 0) {
			fpath = NULL;
			ss_cimage_free(t);
			rc = -ENOMEM;
			goto fail;
		}
		/* Two passes: the first checks the whole file (every batch's framing and CRC, the
		 * SnapshotHeader first and the SnapshotFooter last) and applies nothing, so that
		 * a torn or corrupt snapshot costs a read, not a replay; the second replays the
		 * one that passed. */
		struct walk w = { .img = t, .info = info, .file = fpath, .start = 0, .snapshot = true,
				  .check_only = true, .prog = pp, .reasons = &reasons };
		rc = walk_file(dfd, snaps[i].name, &w, snapshot_batch);
		if (rc == 0 && !w.bad && !w.saw_footer)
			ss_cimage_warn(t, fpath, 0, "the snapshot has no SnapshotFooter (torn)");
		if (rc == 0 && !w.bad && w.saw_footer) {
			w = (struct walk){ .img = t, .info = info, .file = fpath, .start = 0, .snapshot = true,
					   .prog = pp, .reasons = &reasons };
			rc = walk_file(dfd, snaps[i].name, &w, snapshot_batch);
			if (rc == 0 && !w.bad && !w.saw_footer) /* it changed between the passes */
				ss_cimage_warn(t, fpath, 0, "the snapshot has no SnapshotFooter (torn)");
		}
		if (rc < 0) {
			ss_cimage_free(t);
			goto fail;
		}
		if (rc == 0 && !w.bad && w.saw_footer) {
			/* this image, with the warnings of the rejected newer ones */
			if ((rc = ss_cimage_take_warnings(t, img))) {
				ss_cimage_free(t);
				goto fail;
			}
			ss_cimage_free(img);
			img = t;
			info->snapshot = strdup(snaps[i].name);
			info->snapshot_offset = snaps[i].offset;
			info->snapshot_epoch = snaps[i].epoch;
			info->last_offset = snaps[i].offset - 1;
			info->last_epoch = snaps[i].epoch;
			if (!info->snapshot) {
				rc = -ENOMEM;
				goto fail;
			}
			break;
		}
		if ((rc = ss_cimage_take_warnings(img, t))) {
			ss_cimage_free(t);
			goto fail;
		}
		ss_cimage_warn(img, NULL, 0, "%s: snapshot not used (%s); trying an older one", fpath,
			       w.stop_denied ? "it cannot be read" : "incomplete");
		reasons |= w.stop_denied ? R_SNAP_DENIED : R_SNAP_BAD;
		ss_cimage_free(t);
		info->snapshots_rejected++;
		info->complete = false;
	}

	int64_t start = info->snapshot_offset >= 0 ? info->snapshot_offset : 0;
	if (!info->snapshot && n_segs && segs[0].base > 0) {
		ss_cimage_warn(img, NULL, 0,
			       "%s: no usable snapshot and the log starts at offset %lld: the history before it is missing",
			       info->dir, (long long)segs[0].base);
		info->history_incomplete = true;
		start = segs[0].base;
		ss_cimage_mark_lost(img, SS_CI_LOST_ALL);
		reasons |= R_HISTORY;
	}
	struct walk w = { .img = img, .info = info, .start = start, .next_expected = start, .prog = pp,
			  .reasons = &reasons };
	for (uint32_t i = 0; i < n_segs; i++) {
		/* every record of a segment lies below the next one's base offset */
		if (i + 1 < n_segs && segs[i + 1].base <= start)
			continue;
		free(fpath);
		if (asprintf(&fpath, "%s/%s", info->dir, segs[i].name) < 0) {
			fpath = NULL;
			rc = -ENOMEM;
			goto fail;
		}
		w.file = fpath;
		rc = walk_file(dfd, segs[i].name, &w, log_batch);
		if (rc < 0)
			goto fail;
		if (rc > 0) {
			info->complete = false;
			/* The rest of this file is not applied. A torn tail of the last segment is
			 * the batch being written (a live log): nothing after it was committed yet.
			 * Anything else loses what followed; a later segment's base offset cannot
			 * tell, as the offsets of the unread batches are unknown. */
			if (!(w.stop_torn && i + 1 == n_segs)) {
				ss_cimage_mark_lost(img, SS_CI_LOST_ALL);
				reasons |= w.stop_denied ? R_DENIED : R_DAMAGE;
			}
		}
	}
	if (!info->snapshot && !n_segs) {
		ss_cimage_warn(img, NULL, 0, "%s: no usable snapshot and no log segment: nothing to replay", info->dir);
		info->history_incomplete = true;
		ss_cimage_mark_lost(img, SS_CI_LOST_ALL);
		reasons |= R_HISTORY;
	}
	ss_cimage_finish(img);
	info->lost = ss_cimage_lost(img);
	if (ss_cimage_stats(img)->unapplied)
		reasons |= R_RECORDS;
	if (info->lost)
		info->complete = false; /* something is unknown: never reported as whole */
	if ((rc = closing_warning(img, info, reasons, log)))
		goto fail;
	read_meta_properties(info->dir, info);
	ss_progress_end(pp ? log : NULL, SEGSCAN_PHASE_METADATA_LOG, SEGSCAN_UNIT_BYTES, "bytes", prog.total,
			prog.total);
	*img_out = img;
	img = NULL;
	rc = 0;
	goto out;
fail:
	ss_mlog_info_free(info);
out:
	ss_cimage_free(img);
	free(fpath);
	free(snaps);
	free(segs);
	if (d)
		closedir(d); /* fdopendir above */
	if (dfd >= 0)
		close(dfd);  /* opened above */
	return rc;
}
