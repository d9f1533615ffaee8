/*
 * segscan gen: a synthetic Kafka log dir, byte-for-byte deterministic per seed. What it
 * models and why is described in gen.h; the Kafka rules are cited from
 * docs/kafka-format.md by section.
 *
 * Speed: a partition is generated in one pass with reusable buffers (one batch encoder,
 * one .log write buffer flushed every 4 MiB, growable index arrays), so a segment costs a
 * handful of syscalls per file and nothing grows with the number of partitions except
 * one small summary per partition for the checkpoint files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "segscan.h"
#include "common/darray.h"
#include "fmt/codec.h"
#include "fmt/crc32c.h"
#include "fmt/index.h"
#include "fmt/names.h"
#include "gen/encode.h"
#include "gen/gen.h"

#define INDEX_INTERVAL_BYTES  4096       /* index.interval.bytes default (§3.1) */
#define OFFSET_INDEX_PREALLOC 10485760   /* segment.index.bytes default (§3.1) */
#define TIME_INDEX_PREALLOC   10485756   /* the same rounded down to 12-byte entries */
#define LOGBUF_FLUSH          (4u << 20)
#define POOL_BASE             (1u << 20)
#define MAX_VALUE_BYTES       (1u << 20)
#define MAX_RECORDS_PER_BATCH 1000000u
#define KEY_BYTES             16
#define HDR_VALUE_BYTES       16
#define DEFAULT_START_MS      1699136000000LL     /* 10 days before 1700000000000 */
#define DEFAULT_SPAN_MS       (10LL * 86400000)
#define COPY_TASK_INTERVAL_MS 30000              /* remote.log.manager.task.interval.ms */
#define COPY_BYTES_PER_MS     50000              /* ~50 MB/s to the remote store */
#define SNAPSHOT_ENTRY_SIZE   46                 /* §3.6 */
#define MAX_TOPIC_LEN         249                /* Topic.MAX_NAME_LENGTH */
#define PROBE_BATCHES         64                 /* batches sampled to size a topic's batches */

/* stream tags: each random decision family draws from its own stream, so adding one
 * never shifts another */
enum { TAG_TOPIC_ID = 1, TAG_PART, TAG_POOL, TAG_PID, TAG_DEL, TAG_DANG, TAG_DANGP, TAG_DELREC,
       TAG_META, TAG_PROBE, TAG_SEGID };

/* ---- deterministic randomness: splitmix64 to seed, xoshiro256** to draw ---- */
struct rng { uint64_t s[4]; };

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ (b * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull);
	splitmix64(&x);
	return splitmix64(&x);
}

static void rng_init(struct rng *r, uint64_t key)
{
	uint64_t x = key;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return res;
}

/* uniform in [0, n) (Lemire's multiply-shift; the bias is far below anything visible) */
static uint64_t rnd(struct rng *r, uint64_t n)
{
	return n ? (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64) : 0;
}

/* A Kafka Uuid as Uuid.randomUuid() makes them: a version-4 java.util.UUID, redrawn
 * while its text starts with '-' (so it cannot be mistaken for a command-line flag). */
static void gen_uuid(struct rng *r, uint8_t id[16], char txt[23])
{
	for (;;) {
		uint64_t msb = rng_next(r), lsb = rng_next(r);
		msb = (msb & ~0xF000ull) | 0x4000ull;
		lsb = (lsb & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
		ss_put_be64(id, msb);
		ss_put_be64(id + 8, lsb);
		ss_uuid_format(id, txt);
		if (txt[0] != '-')
			return;
	}
}

/* ---- topics ---- */
struct topic_kind { const char *name; bool keyed, headers, idempotent; };

/* Names exercise the directory-name parser: '.', '-', '_', digits after a '-'. */
static const struct topic_kind kinds[] = {
	{ "orders.v2",             true,  false, true  },
	{ "click-stream",          false, false, false },
	{ "payments_eu",           true,  true,  true  },
	{ "user-events",           true,  false, true  },
	{ "inventory.updates",     true,  false, true  },
	{ "audit_log",             false, true,  true  },
	{ "metrics.raw-v1",        false, false, false },
	{ "sessions_v3.eu-west-1", true,  false, true  },
	{ "ad-impressions",        false, false, false },
	{ "fraud.signals_v2",      true,  true,  true  },
	{ "shipping-events.v1",    true,  false, true  },
	{ "search_queries",        false, false, true  },
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct gen_topic {
	char     name[MAX_TOPIC_LEN + 1];
	uint8_t  id[16];
	char     id_txt[23];
	bool     tiered, keyed, headers, idempotent;
	int64_t  producer_id;
	size_t   probe_len;   /* size of one typical batch, for time and epoch planning */
};

int ss_gen_topic_name(const struct ss_gen_opts *o, uint32_t i, char *buf, size_t len)
{
	const char *pre = o->topic_prefix ? o->topic_prefix : "";
	int n;
	if (i < N_KINDS)
		n = snprintf(buf, len, "%s%s", pre, kinds[i].name);
	else  /* "orders.v2-1": a topic name ending in -<digits>, as operators do create */
		n = snprintf(buf, len, "%s%s-%" PRIu32, pre, kinds[i % N_KINDS].name, (uint32_t)(i / N_KINDS));
	if (n < 0 || (size_t)n >= len || n > MAX_TOPIC_LEN)
		return -ENAMETOOLONG;
	return 0;
}

bool ss_gen_topic_tiered(const struct ss_gen_opts *o, uint32_t i)
{
	/* topic i is tiered when the running count ceil(k * f) steps up at k = i + 1:
	 * f = 0.5 gives topics 0, 2, 4...; f = 1 all; f = 0 none */
	double f = o->tiered;
	if (f <= 0)
		return false;
	if (f >= 1)
		return true;
	double a = (double)i * f, b = (double)(i + 1) * f;
	long long ca = (long long)a, cb = (long long)b;
	if ((double)ca < a)
		ca++;
	if ((double)cb < b)
		cb++;
	return cb > ca;
}

/* ---- sizes ---- */
int ss_gen_parse_size(const char *s, int64_t *out)
{
	if (!s || !*s)
		return -EINVAL;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -EINVAL;   /* no sign, no space: strtoull would accept both */
	errno = 0;
	char *end;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	unsigned shift = 0;
	if (*end) {
		char c = (char)(*end | 0x20);
		if (c == 'k')
			shift = 10;
		else if (c == 'm')
			shift = 20;
		else if (c == 'g')
			shift = 30;
		else
			return -EINVAL;
		end++;
		/* "k" or "KiB" (any case): binary multiples, as Kafka sizes are */
		if (*end && !((end[0] | 0x20) == 'i' && (end[1] | 0x20) == 'b' && !end[2]))
			return -EINVAL;
	}
	if (v > (unsigned long long)INT64_MAX >> shift)
		return -ERANGE;
	*out = (int64_t)(v << shift);
	return 0;
}

/* ---- generator state ---- */
struct gen_psum {            /* what the log-dir checkpoint files need per partition */
	int64_t leo;
	int64_t log_start;
	bool    lso_in_ckpt;
};

struct gen_seg {             /* one segment of a partition's history */
	int64_t  base;
	int64_t  size;
	int64_t  max_ts, max_ts_off;   /* maxTimestampSoFar and its (shallow) offset */
	int64_t  first_nominal;        /* arrival time of the first batch: the previous roll */
	int64_t  last_nominal;         /* arrival time of the last batch: the .log mtime */
	int64_t  records;
	int32_t  last_epoch;
	int64_t  since_index;          /* bytesSinceLastIndexEntry */
	int64_t  tidx_last_ts;         /* the time index's last timestamp (-1 = empty) */
};

struct pstate {              /* one partition being generated */
	struct rng r;
	const struct gen_topic *tp;
	uint32_t t, p;
	int64_t  next_off;
	int32_t  seq;                  /* the topic producer's next sequence here */
	int64_t  clock, dt;            /* arrival time of the last batch; mean gap */
	int32_t  epoch;
	uint64_t batch_no;
	uint64_t bumps[3];
	unsigned nbumps, next_bump;
	bool     has_last;             /* producer state for snapshots: the last batch */
	int32_t  last_seq;
	int64_t  last_off;
	int32_t  last_delta;
	int64_t  last_ts;
};

struct built {               /* an encoded batch not yet appended (bytes in g->enc) */
	bool           valid;
	const uint8_t *bytes;
	size_t         len;
	int64_t        base, last, max_ts, nominal;
	int32_t        nrec, epoch;
	bool           bump;
};

struct gen {
	const struct ss_gen_opts *o;
	char            *err;
	size_t           errlen;
	struct ss_gen_stats st;
	int              outfd;
	struct gen_topic *topics;
	struct gen_psum *sums;
	uint8_t         *pool;
	size_t           pool_len;
	struct ss_enc    enc;
	struct ss_enc_record *recs;
	uint8_t         *logbuf;
	size_t           loglen;
	int              logfd;
	uint8_t         *idx, *tidx;
	size_t           idxlen, tidxlen;
	uint32_t         idxcap, tidxcap;   /* common/darray.h capacities */
	struct ss_epoch_entry *epochs;
	size_t           nep;
	uint32_t         epcap;
	struct ss_epoch_entry *range;  /* scratch for epochEntriesInRange */
	uint32_t         rangecap;
	struct gen_seg  *segs;
	uint32_t         segcap;
	FILE            *remote;
	int64_t          tail_gap;
	bool             has_del, has_dang, has_delrec;
	uint32_t         del_t, del_p, dang_t, dang_p, delrec_t, delrec_p;
	char             dir[MAX_TOPIC_LEN + 16];   /* current partition directory */
};

static int gfail(struct gen *g, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int gfail(struct gen *g, int err, const char *fmt, ...)
{
	if (g->err && g->errlen && !g->err[0]) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(g->err, g->errlen, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < g->errlen && err != -EINVAL && err != -EEXIST)
			snprintf(g->err + n, g->errlen - (size_t)n, ": %s", segscan_strerror(err));
	}
	return err;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Creates dirfd/name holding buf, then extends it to `extend` bytes (sparse) if larger. */
static int put_file(struct gen *g, int dirfd, const char *name, const void *buf, size_t len, off_t extend)
{
	int err = 0;
	const char *sub = dirfd == g->outfd ? "" : g->dir, *sep = dirfd == g->outfd ? "" : "/";
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return gfail(g, -errno, "cannot create %s/%s%s%s", g->o->outdir, sub, sep, name);
	if (len)
		err = write_all(fd, buf, len);
	if (!err && extend > (off_t)len && ftruncate(fd, extend) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err)
		return gfail(g, err, "cannot write %s/%s%s%s", g->o->outdir, sub, sep, name);
	g->st.files++;
	return 0;
}

/* ---- batches ---- */
static int build_batch(struct gen *g, struct pstate *ps, int32_t nrec, int64_t extra_gap, struct built *b)
{
	const struct ss_gen_opts *o = g->o;
	const struct gen_topic *tp = ps->tp;
	struct rng *r = &ps->r;

	/* a leader change shows up as the first batch written under the new epoch; epoch
	 * numbers skip when a leader was elected but wrote nothing */
	bool bump = ps->next_bump < ps->nbumps && ps->batch_no >= ps->bumps[ps->next_bump];
	int32_t epoch = bump ? ps->epoch + 1 + (int32_t)rnd(r, 2) : ps->epoch;

	int64_t dt = ps->dt;
	/* arrivals dt +-25% apart: irregular, yet the log still ends where it was planned */
	int64_t nominal = ps->clock + extra_gap + dt - dt / 4 + (int64_t)rnd(r, (uint64_t)dt / 2 + 1);
	/* one batch in 16 carries older CreateTime stamps (a slow producer): its max
	 * timestamp may not advance the time index */
	int64_t late = rnd(r, 16) == 0 ? 1 + (int64_t)rnd(r, 2 * (uint64_t)dt) : 0;
	int64_t step = dt / (4 * (int64_t)nrec);
	int64_t ts0 = nominal - late - step * (nrec - 1);
	if (ts0 < o->start_time_ms)
		ts0 = o->start_time_ms;

	struct ss_enc_batch hb = {
		.base_offset = ps->next_off,
		.leader_epoch = epoch,
		.codec = o->codec,
		.attributes = 0,  /* CreateTime, not transactional */
		.producer_id = tp->idempotent ? tp->producer_id : -1,
		.producer_epoch = tp->idempotent ? 0 : -1,
		.base_sequence = tp->idempotent ? ps->seq : -1,
	};
	ss_enc_begin(&g->enc, &hb);
	uint32_t vb = o->value_bytes;
	struct ss_enc_header hdr = { .key = "trace-id", .key_len = 8, .value_len = HDR_VALUE_BYTES };
	for (int32_t i = 0; i < nrec; i++) {
		struct ss_enc_record *rec = &g->recs[i];
		memset(rec, 0, sizeof(*rec));
		rec->timestamp = ts0 + step * i;
		rec->offset_delta = i;
		if (tp->keyed) {
			rec->key = g->pool + rnd(r, g->pool_len - KEY_BYTES);
			rec->key_len = KEY_BYTES;
		} else {
			rec->key_len = -1;
		}
		uint32_t vlen = vb - vb / 4 + (uint32_t)rnd(r, vb / 2 + 1);
		rec->value = g->pool + rnd(r, g->pool_len - vlen);
		rec->value_len = (int32_t)vlen;
		if (tp->headers) {
			hdr.value = g->pool + rnd(r, g->pool_len - HDR_VALUE_BYTES);
			rec->headers = &hdr;
			rec->n_headers = 1;
		}
		int err = ss_enc_append(&g->enc, rec);
		if (err)
			return gfail(g, err, "encoding a record batch");
	}
	int err = ss_enc_finish(&g->enc, &b->bytes, &b->len);
	if (err)
		return gfail(g, err, "encoding a %s record batch", ss_codec_name(o->codec));
	b->valid = true;
	b->base = ps->next_off;
	b->last = ps->next_off + nrec - 1;
	b->max_ts = g->enc.max_ts;
	b->nominal = nominal;
	b->nrec = nrec;
	b->epoch = epoch;
	b->bump = bump;
	return 0;
}

static int flush_log(struct gen *g, const char *name)
{
	if (!g->loglen)
		return 0;
	int err = write_all(g->logfd, g->logbuf, g->loglen);
	if (err)
		return gfail(g, err, "cannot write %s/%s/%s", g->o->outdir, g->dir, name);
	g->loglen = 0;
	return 0;
}

static void put_time_entry(struct gen *g, struct gen_seg *sg)
{
	uint8_t *e = g->tidx + g->tidxlen;
	ss_put_be64(e, (uint64_t)sg->max_ts);
	ss_put_be32(e + 8, (uint32_t)(sg->max_ts_off - sg->base));
	g->tidxlen += SS_TIME_ENTRY;
	sg->tidx_last_ts = sg->max_ts;
}

/* Appends b to the partition (LogSegment.append for a local segment). */
static int commit_batch(struct gen *g, struct pstate *ps, struct gen_seg *sg, struct built *b,
			bool local, const char *logname)
{
	int err;
	if (sg->size == 0)
		sg->first_nominal = b->nominal;
	if (b->max_ts > sg->max_ts) {
		sg->max_ts = b->max_ts;
		sg->max_ts_off = b->last;  /* shallowOffsetOfMaxTimestamp: the batch's last offset */
	}
	if (local) {
		/* LogSegment.append: the index check uses the bytes appended BEFORE this batch,
		 * and the entry points at this batch (its last offset, its position) */
		if (sg->since_index > INDEX_INTERVAL_BYTES) {
			if ((err = SS_DA_RESERVE(&g->idx, &g->idxcap, g->idxlen + SS_OFFSET_ENTRY)) ||
			    (err = SS_DA_RESERVE(&g->tidx, &g->tidxcap, g->tidxlen + SS_TIME_ENTRY)))
				return gfail(g, err, "out of memory");
			ss_put_be32(g->idx + g->idxlen, (uint32_t)(b->last - sg->base));
			ss_put_be32(g->idx + g->idxlen + 4, (uint32_t)sg->size);
			g->idxlen += SS_OFFSET_ENTRY;
			/* TimeIndex.maybeAppend: only a strictly larger timestamp is recorded */
			if (sg->max_ts > sg->tidx_last_ts)
				put_time_entry(g, sg);
			sg->since_index = 0;
		}
		if (g->loglen + b->len > LOGBUF_FLUSH && (err = flush_log(g, logname)))
			return err;
		if (b->len > LOGBUF_FLUSH) {
			if ((err = write_all(g->logfd, b->bytes, b->len)))
				return gfail(g, err, "cannot write %s/%s/%s", g->o->outdir, g->dir, logname);
		} else {
			memcpy(g->logbuf + g->loglen, b->bytes, b->len);
			g->loglen += b->len;
		}
		g->st.batches++;
		g->st.records += (uint64_t)b->nrec;
	}
	sg->since_index += (int64_t)b->len;
	sg->size += (int64_t)b->len;
	sg->records += b->nrec;
	sg->last_nominal = b->nominal;
	sg->last_epoch = b->epoch;

	/* LeaderEpochFileCache.assign: a new entry when a batch carries a newer epoch */
	if (g->nep == 0 || b->epoch > g->epochs[g->nep - 1].epoch) {
		if ((err = SS_DA_RESERVE(&g->epochs, &g->epcap, g->nep + 1)))
			return gfail(g, err, "out of memory");
		g->epochs[g->nep].epoch = b->epoch;
		g->epochs[g->nep].start_offset = b->base;
		g->nep++;
	}
	ps->epoch = b->epoch;
	if (b->bump)
		ps->next_bump++;
	ps->clock = b->nominal;
	ps->batch_no++;
	ps->next_off = b->last + 1;
	if (ps->tp->idempotent) {
		int64_t last_seq = (int64_t)ps->seq + b->nrec - 1;
		if (last_seq > INT32_MAX)  /* sequences wrap to 0 past Integer.MAX_VALUE (§2.5) */
			last_seq -= (int64_t)INT32_MAX + 1;
		ps->has_last = true;
		ps->last_seq = (int32_t)last_seq;
		ps->last_off = b->last;
		ps->last_delta = b->nrec - 1;
		ps->last_ts = b->max_ts;
		ps->seq = last_seq == INT32_MAX ? 0 : (int32_t)last_seq + 1;
	}
	b->valid = false;
	return 0;
}

/* Producer state snapshot (§3.6, ProducerSnapshot.json version 1). */
static int write_snapshot(struct gen *g, int dirfd, const struct pstate *ps, int64_t offset)
{
	uint8_t buf[10 + SNAPSHOT_ENTRY_SIZE];
	size_t n = 10;
	int32_t count = ps->has_last ? 1 : 0;
	ss_put_be16(buf, 1);
	ss_put_be32(buf + 6, (uint32_t)count);
	if (count) {
		uint8_t *e = buf + 10;
		ss_put_be64(e, (uint64_t)ps->tp->producer_id);
		ss_put_be16(e + 8, 0);                          /* producer epoch */
		ss_put_be32(e + 10, (uint32_t)ps->last_seq);
		ss_put_be64(e + 14, (uint64_t)ps->last_off);
		ss_put_be32(e + 22, (uint32_t)ps->last_delta);
		ss_put_be64(e + 26, (uint64_t)ps->last_ts);
		ss_put_be32(e + 34, (uint32_t)-1);              /* coordinatorEpoch: none */
		ss_put_be64(e + 38, (uint64_t)-1);              /* currentTxnFirstOffset: none */
		n += SNAPSHOT_ENTRY_SIZE;
	}
	ss_put_be32(buf + 2, ss_crc32c(0, buf + 6, n - 6));
	char name[40];
	snprintf(name, sizeof(name), "%020" PRId64 ".snapshot", offset);
	return put_file(g, dirfd, name, buf, n, 0);
}

/* LeaderEpochFileCache.epochEntriesInRange(base, next) (§5.2.3) over the full cache. */
static size_t epochs_in_range(const struct gen *g, int64_t base, int64_t next, struct ss_epoch_entry *out)
{
	size_t i = 0, k = 0;
	bool have = false;
	struct ss_epoch_entry last = { 0, 0 };
	while (i < g->nep && g->epochs[i].start_offset <= base) {
		last = g->epochs[i++];
		have = true;
	}
	if (have) {
		last.start_offset = base;
		out[k++] = last;
	}
	for (; i < g->nep && g->epochs[i].start_offset < next; i++)
		out[k++] = g->epochs[i];
	return k;
}

static void json_segment(struct gen *g, const struct pstate *ps, const struct gen_seg *sg, int64_t next,
			 const char *sid, int32_t broker, int64_t ts)
{
	FILE *f = g->remote;
	size_t n = epochs_in_range(g, sg->base, next, g->range);
	fprintf(f, "{\"type\":\"segment\",\"topic\":\"%s\",\"partition\":%" PRIu32 ",\"topic_id\":\"%s\","
		"\"segment_id\":\"%s\",\"start_offset\":%" PRId64 ",\"end_offset\":%" PRId64 ",\"leader_epochs\":{",
		ps->tp->name, ps->p, ps->tp->id_txt, sid, sg->base, next - 1);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\"%" PRId32 "\":%" PRId64, i ? "," : "", g->range[i].epoch, g->range[i].start_offset);
	fprintf(f, "},\"size_bytes\":%" PRId64 ",\"max_timestamp_ms\":%" PRId64 ",\"broker_id\":%" PRId32
		",\"event_timestamp_ms\":%" PRId64 ",\"state\":\"COPY_SEGMENT_STARTED\"}\n",
		sg->size, sg->max_ts, broker, ts);
	g->st.remote_events++;
}

static void json_update(struct gen *g, const struct pstate *ps, const char *sid, const char *state,
			int32_t broker, int64_t ts)
{
	fprintf(g->remote, "{\"type\":\"update\",\"topic\":\"%s\",\"partition\":%" PRIu32 ",\"segment_id\":\"%s\","
		"\"state\":\"%s\",\"broker_id\":%" PRId32 ",\"event_timestamp_ms\":%" PRId64 "}\n",
		ps->tp->name, ps->p, sid, state, broker, ts);
	g->st.remote_events++;
}

/*
 * The remote tier of one tiered partition, as the leader's RLMCopyTask and
 * RLMExpirationTask would have published it (§5.2, §5.3): segments [0, ncopied) copied
 * in order, each after its roll.
 */
static void remote_events(struct gen *g, struct pstate *ps, uint32_t V, uint32_t pre, uint32_t closed,
			  bool dangling, bool del)
{
	const struct ss_gen_opts *o = g->o;
	struct rng r;
	rng_init(&r, mix(mix(mix(o->seed, TAG_SEGID), ps->t), ps->p));
	/* the newest closed segments wait for the next run of the copy task */
	uint32_t unc = o->uncopied >= 0 ? (uint32_t)o->uncopied : 1 + (uint32_t)rnd(&r, 2);
	if (unc > closed)
		unc = closed;
	uint32_t ncopied = pre + closed - unc;
	uint32_t dang_seg = dangling && ncopied ? (uint32_t)rnd(&r, ncopied) : UINT32_MAX;
	int64_t last_ev = 0;
	char sid[23], first_sid[23] = "";
	uint8_t id[16];

	for (uint32_t s = 0; s < ncopied && s + 1 < V; s++) {
		const struct gen_seg *sg = &g->segs[s];
		int64_t next = g->segs[s + 1].base;
		/* the partition's leader at copy time copies; leadership rotates over 3 brokers */
		int32_t broker = o->node_id + (int32_t)(((uint32_t)sg->last_epoch + ps->p) % 3);
		int64_t t0 = g->segs[s + 1].first_nominal + COPY_TASK_INTERVAL_MS / 2 +
			     (int64_t)rnd(&r, COPY_TASK_INTERVAL_MS);
		if (t0 <= last_ev)
			t0 = last_ev + 1;
		if (s == dang_seg) {
			/* the upload died with the broker (no KAFKA-17062 cleanup ran): the
			 * STARTED record stays, a later run copies the segment under a new id */
			gen_uuid(&r, id, sid);
			json_segment(g, ps, sg, next, sid, broker, t0);
			t0 += COPY_TASK_INTERVAL_MS * (1 + (int64_t)rnd(&r, 4));
		}
		gen_uuid(&r, id, sid);
		json_segment(g, ps, sg, next, sid, broker, t0);
		int64_t t1 = t0 + 100 + sg->size / COPY_BYTES_PER_MS + (int64_t)rnd(&r, 200);
		json_update(g, ps, sid, "COPY_SEGMENT_FINISHED", broker, t1);
		last_ev = t1;
		if (s == 0)
			memcpy(first_sid, sid, sizeof(sid));
		g->st.remote_segments++;
		if (s < pre)
			g->st.remote_only++;
	}
	if (del && first_sid[0]) {
		/* retention removed the oldest remote segment on the expiration task's latest run */
		int64_t td = last_ev + 5000 + (int64_t)rnd(&r, 5000);
		int32_t broker = o->node_id + (int32_t)(((uint32_t)g->epochs[g->nep - 1].epoch + ps->p) % 3);
		json_update(g, ps, first_sid, "DELETE_SEGMENT_STARTED", broker, td);
		json_update(g, ps, first_sid, "DELETE_SEGMENT_FINISHED", broker, td + 20 + (int64_t)rnd(&r, 200));
		g->st.remote_segments--;
		if (pre > 0)
			g->st.remote_only--;
	}
}

static int write_epoch_checkpoint(struct gen *g, int dirfd, int64_t log_start)
{
	/* LeaderEpochFileCache.truncateFromStart(logStartOffset): entries at or below the log
	 * start go, the last of them comes back starting at the log start (§1.6) */
	size_t i = 0, k = 0;
	while (i + 1 < g->nep && g->epochs[i + 1].start_offset <= log_start)
		i++;
	char *buf = NULL;
	uint32_t cap = 0;
	size_t need = 32 + (g->nep - i) * 40;
	if (SS_DA_RESERVE(&buf, &cap, need))
		return gfail(g, -ENOMEM, "out of memory");
	int n = snprintf(buf, cap, "0\n%zu\n", g->nep - i);
	for (; i < g->nep; i++, k++) {
		int64_t start = k == 0 && g->epochs[i].start_offset < log_start ? log_start : g->epochs[i].start_offset;
		n += snprintf(buf + n, cap - (size_t)n, "%" PRId32 " %" PRId64 "\n", g->epochs[i].epoch, start);
	}
	int err = put_file(g, dirfd, "leader-epoch-checkpoint", buf, (size_t)n, 0);
	free(buf);
	return err;
}

/* Writes the closed or active segment's index files (§3.1–3.3). */
static int finish_segment(struct gen *g, int dirfd, struct gen_seg *sg, bool active, const char *logname)
{
	int err = flush_log(g, logname);
	if (err)
		return err;
	if (g->o->preallocate && active && sg->size < g->o->segment_bytes &&
	    ftruncate(g->logfd, (off_t)g->o->segment_bytes) < 0)
		return gfail(g, -errno, "cannot preallocate %s/%s/%s", g->o->outdir, g->dir, logname);
	/* the .log was last modified by its last append (Kafka falls back on it, §3.3) */
	if (sg->size > 0) {
		struct timespec ts[2] = {
			{ .tv_sec = sg->last_nominal / 1000, .tv_nsec = (sg->last_nominal % 1000) * 1000000 },
			{ .tv_sec = sg->last_nominal / 1000, .tv_nsec = (sg->last_nominal % 1000) * 1000000 },
		};
		(void)futimens(g->logfd, ts);  /* cosmetic: a failure changes no byte */
	}
	err = close(g->logfd) < 0 ? -errno : 0;
	g->logfd = -1;
	if (err)
		return gfail(g, err, "cannot write %s/%s/%s", g->o->outdir, g->dir, logname);
	g->st.files++;
	g->st.segments++;
	g->st.log_bytes += (uint64_t)sg->size;

	char name[40];
	int64_t base = sg->base;
	snprintf(name, sizeof(name), "%020" PRId64 ".index", base);
	if ((err = put_file(g, dirfd, name, g->idx, g->idxlen, active ? OFFSET_INDEX_PREALLOC : 0)))
		return err;
	if (!active && sg->size > 0 && sg->max_ts > sg->tidx_last_ts) {
		/* onBecomeInactiveSegment: the final (maxTimestamp, offset) entry */
		if ((err = SS_DA_RESERVE(&g->tidx, &g->tidxcap, g->tidxlen + SS_TIME_ENTRY)))
			return gfail(g, err, "out of memory");
		put_time_entry(g, sg);
	}
	snprintf(name, sizeof(name), "%020" PRId64 ".timeindex", base);
	return put_file(g, dirfd, name, g->tidx, g->tidxlen, active ? TIME_INDEX_PREALLOC : 0);
}

/* What a partition will hold, drawn from its own random stream in a fixed order (the tree
 * is a function of the seed): how many remote-only segments, the active segment's batches,
 * the clock step between batches and the leader changes. */
struct pplan {
	uint32_t N, tail, pre, V, active_batches;
	bool     tiered, is_del;
};

static int plan_partition(struct gen *g, struct pstate *ps, uint32_t t, uint32_t p, struct pplan *pl)
{
	const struct ss_gen_opts *o = g->o;
	int err;

	memset(ps, 0, sizeof(*ps));
	rng_init(&ps->r, mix(mix(mix(o->seed, TAG_PART), t), p));
	ps->tp = &g->topics[t];
	ps->t = t;
	ps->p = p;
	struct rng *r = &ps->r;
	pl->tiered = ps->tp->tiered;
	pl->is_del = g->has_del && t == g->del_t && p == g->del_p;

	uint32_t N = pl->N = o->segments, tail = pl->tail = o->single_record_tail;
	uint32_t pre;
	if (pl->tiered) {
		pre = o->remote_only >= 0 ? (uint32_t)o->remote_only : 1 + (uint32_t)rnd(r, 3);
		if (pl->is_del && o->remote_only < 0 && pre < 2)
			pre = 2;  /* keep a remote-only segment after the deleted one */
	} else {
		pre = rnd(r, 2) ? 1 + (uint32_t)rnd(r, 2) : 0;
	}
	uint32_t V = pl->V = pre + N;
	pl->pre = pre;
	uint32_t active_batches = pl->active_batches = o->active_batches >= 0 ? (uint32_t)o->active_batches : 1 + (uint32_t)rnd(r, 4);

	if ((err = SS_DA_RESERVE(&g->segs, &g->segcap, V)))
		return gfail(g, err, "out of memory");

	/* Plan time and leader changes from the size of a typical batch. */
	uint64_t bps = (uint64_t)o->segment_bytes / ps->tp->probe_len;
	if (!bps)
		bps = 1;
	uint64_t normal = V - 1 - tail;
	uint64_t est = normal * bps + tail + active_batches;
	int64_t gaps = tail ? (int64_t)(tail + 1) * g->tail_gap : 0;
	/* 3% to spare: batch sizes and arrival gaps vary, and the log should end within the span */
	int64_t room = o->span_ms > gaps ? (o->span_ms - gaps) / 100 * 97 : 1;
	ps->dt = room / (int64_t)(est ? est : 1);
	if (ps->dt < 1)
		ps->dt = 1;
	ps->clock = o->start_time_ms - ps->dt / 2 + (int64_t)rnd(r, (uint64_t)ps->dt / 2 + 1);
	ps->nbumps = (unsigned)rnd(r, 4);
	for (unsigned i = 0; i < ps->nbumps; i++)
		ps->bumps[i] = 1 + rnd(r, est > 1 ? est - 1 : 1);
	for (unsigned i = 1; i < ps->nbumps; i++)  /* sort 3 values */
		for (unsigned j = i; j > 0 && ps->bumps[j - 1] > ps->bumps[j]; j--) {
			uint64_t x = ps->bumps[j];
			ps->bumps[j] = ps->bumps[j - 1];
			ps->bumps[j - 1] = x;
		}
	g->nep = 0;
	return 0;
}

/* Segment s of the partition (remote-only below pl->pre: its batches only for the remote
 * state; local: its .log, indexes and the producer snapshot at its base). A batch built for
 * the previous segment that did not fit opens this one (pend). */
static int gen_segment(struct gen *g, struct pstate *ps, const struct pplan *pl, int dirfd, uint32_t s,
		       struct built *pend, char logname[40])
{
	const struct ss_gen_opts *o = g->o;
	int err;

	struct gen_seg *sg = &g->segs[s];
	bool local = s >= pl->pre;
	uint32_t li = s - pl->pre;
	bool active = local && li == pl->N - 1;
	bool single = local && !active && li + 1 + pl->tail >= pl->N;
	memset(sg, 0, sizeof(*sg));
	sg->base = ps->next_off;
	sg->max_ts = -1;               /* TimestampOffset.UNKNOWN -> (-1, base) */
	sg->max_ts_off = sg->base;
	sg->tidx_last_ts = -1;
	if (local) {
		g->idxlen = g->tidxlen = 0;
		if (sg->base > 0 && (err = write_snapshot(g, dirfd, ps, sg->base)))
			return err;
		snprintf(logname, 40, "%020" PRId64 ".log", sg->base);
		g->logfd = openat(dirfd, logname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (g->logfd < 0) {
			err = gfail(g, -errno, "cannot create %s/%s/%s", o->outdir, g->dir, logname);
			return err;
		}
	}
	int32_t want = single ? 1 : (int32_t)o->records_per_batch;
	/* a single-record segment is rolled by segment.ms: the next batch came late */
	int64_t gap = (single || (active && pl->tail)) ? g->tail_gap : 0;
	uint64_t max_batches = single ? 1 : active ? pl->active_batches : UINT64_MAX;
	for (uint64_t nb = 0; nb < max_batches; nb++) {
		int64_t extra = nb == 0 ? gap : 0;
		if (pend->valid && (extra || pend->nrec != want))
			pend->valid = false;
		if (!pend->valid && (err = build_batch(g, ps, want, extra, pend)))
			return err;
		/* LogSegment.shouldRoll: size > segment.bytes - incoming */
		if (sg->size + (int64_t)pend->len > o->segment_bytes) {
			if (sg->size == 0) {
				err = gfail(g, -EINVAL, "--segment-bytes=%" PRId64 " cannot hold one batch of %" PRId32
					    " records (%zu bytes); raise it or lower --records-per-batch/--value-bytes",
					    o->segment_bytes, want, pend->len);
				return err;
			}
			break;  /* the batch opens the next segment */
		}
		if ((err = commit_batch(g, ps, sg, pend, local, logname)))
			return err;
	}
	if (local && (err = finish_segment(g, dirfd, sg, active, logname)))
		return err;
	return 0;
}

/* After the segments: the log start offset and what Kafka would checkpoint for it, the
 * snapshot a clean shutdown takes, the remote state, the epoch checkpoint and
 * partition.metadata. */
static int partition_end(struct gen *g, struct pstate *ps, const struct pplan *pl, int dirfd, uint32_t t, uint32_t p)
{
	const struct ss_gen_opts *o = g->o;
	int err;

	/* log start offset and what Kafka would checkpoint for it (§1.1, §5.0) */
	int64_t first_local = g->segs[pl->pre].base;
	int64_t log_start;
	if (pl->tiered) {
		log_start = pl->is_del && pl->pre >= 1 ? g->segs[1].base : 0;
	} else {
		log_start = first_local;
		if (g->has_delrec && t == g->delrec_t && p == g->delrec_p && g->segs[pl->pre].records >= 2)
			log_start = first_local + g->segs[pl->pre].records / 2;  /* DeleteRecords */
	}
	struct gen_psum *sum = &g->sums[(uint64_t)t * o->partitions + p];
	sum->leo = ps->next_off;
	sum->log_start = log_start;
	sum->lso_in_ckpt = pl->tiered || log_start > first_local;

	if (o->clean_shutdown && ps->next_off > g->segs[pl->V - 1].base &&
	    (err = write_snapshot(g, dirfd, ps, ps->next_off)))  /* taken on close */
		return err;

	if (pl->tiered && g->remote) {
		bool dangling = (mix(mix(mix(o->seed, TAG_DANG), t), p) & 3) == 0 ||
				(g->has_dang && t == g->dang_t && p == g->dang_p);
		if ((err = SS_DA_RESERVE(&g->range, &g->rangecap, g->nep + 1))) {
			err = gfail(g, err, "out of memory");
			return err;
		}
		remote_events(g, ps, pl->V, pl->pre, pl->N - 1, dangling, pl->is_del && pl->pre >= 1);
	}

	if ((err = write_epoch_checkpoint(g, dirfd, log_start)))
		return err;
	{
		char md[64];
		int n = snprintf(md, sizeof(md), "version: 0\ntopic_id: %s", ps->tp->id_txt);  /* no final LF (§1.5) */
		if ((err = put_file(g, dirfd, "partition.metadata", md, (size_t)n, 0)))
			return err;
	}
	return 0;
}

static int gen_partition(struct gen *g, uint32_t t, uint32_t p)
{
	const struct ss_gen_opts *o = g->o;
	struct pstate ps;
	struct pplan pl;
	int err = 0, dirfd = -1;
	char logname[40] = "";
	struct built pend = { .valid = false };

	if ((err = plan_partition(g, &ps, t, p, &pl)))
		return err;
	snprintf(g->dir, sizeof(g->dir), "%s-%" PRIu32, ps.tp->name, p);
	if (mkdirat(g->outfd, g->dir, 0755) < 0 && !(errno == EEXIST && o->force))
		return gfail(g, -errno, "cannot create %s/%s", o->outdir, g->dir);
	dirfd = openat(g->outfd, g->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return gfail(g, -errno, "cannot open %s/%s", o->outdir, g->dir);

	for (uint32_t s = 0; s < pl.V; s++)
		if ((err = gen_segment(g, &ps, &pl, dirfd, s, &pend, logname)))
			goto out;
	if ((err = partition_end(g, &ps, &pl, dirfd, t, p)))
		goto out;
	g->st.partitions++;
out:
	if (g->logfd >= 0) {
		close(g->logfd);
		g->logfd = -1;
	}
	if (dirfd >= 0)
		close(dirfd);
	return err;
}

/* ---- log-dir level files (§1.1–1.3) ---- */
static int write_checkpoint(struct gen *g, const char *name, int which)
{
	const struct ss_gen_opts *o = g->o;
	uint64_t total = (uint64_t)o->topics * o->partitions, count = 0;
	for (uint64_t i = 0; i < total; i++)
		if (which != 1 || g->sums[i].lso_in_ckpt)
			count++;
	size_t cap = 32 + (size_t)count * (MAX_TOPIC_LEN + 48), n;
	char *buf = malloc(cap);
	if (!buf)
		return gfail(g, -ENOMEM, "out of memory");
	n = (size_t)snprintf(buf, cap, "0\n%" PRIu64 "\n", count);
	for (uint32_t t = 0; t < o->topics; t++)
		for (uint32_t p = 0; p < o->partitions; p++) {
			const struct gen_psum *s = &g->sums[(uint64_t)t * o->partitions + p];
			if (which == 1 && !s->lso_in_ckpt)
				continue;
			/* recovery point and high watermark = log end offset: everything was
			 * flushed and replicated before the clean shutdown */
			int64_t v = which == 1 ? s->log_start : s->leo;
			n += (size_t)snprintf(buf + n, cap - n, "%s %" PRIu32 " %" PRId64 "\n", g->topics[t].name, p, v);
		}
	int err = put_file(g, g->outfd, name, buf, n, 0);
	free(buf);
	return err;
}

static int write_top_files(struct gen *g)
{
	const struct ss_gen_opts *o = g->o;
	struct rng r;
	rng_init(&r, mix(o->seed, TAG_META));
	uint8_t id[16];
	char cluster[23], dirid[23], buf[512], date[64];
	gen_uuid(&r, id, cluster);
	gen_uuid(&r, id, dirid);
	int64_t epoch = 100 + (int64_t)rnd(&r, 100000);  /* KRaft broker epochs are metadata offsets */

	/* java.util.Properties.store(writer, ""): an empty comment, the date, then keys */
	time_t secs = (time_t)(o->start_time_ms / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
	int n = snprintf(buf, sizeof(buf), "#\n#%s\nnode.id=%" PRId32 "\ndirectory.id=%s\nversion=1\ncluster.id=%s\n",
			 date, o->node_id, dirid, cluster);
	int err;
	if ((err = put_file(g, g->outfd, "meta.properties", buf, (size_t)n, 0)) ||
	    (err = write_checkpoint(g, "recovery-point-offset-checkpoint", 0)) ||
	    (err = write_checkpoint(g, "log-start-offset-checkpoint", 1)) ||
	    (err = write_checkpoint(g, "replication-offset-checkpoint", 2)) ||
	    (err = put_file(g, g->outfd, "cleaner-offset-checkpoint", "0\n0\n", 4, 0)))
		return err;
	if (o->clean_shutdown) {
		/* last, as the broker writes it: its presence says the rest is complete */
		n = snprintf(buf, sizeof(buf), "{\"version\":0,\"brokerEpoch\":%" PRId64 "}", epoch);
		if ((err = put_file(g, g->outfd, ".kafka_cleanshutdown", buf, (size_t)n, 0)))
			return err;
	}
	return 0;
}

static int write_topic_config(struct gen *g, const char *path)
{
	const struct ss_gen_opts *o = g->o;
	FILE *f = fopen(path, "w");
	if (!f)
		return gfail(g, -errno, "cannot create %s", path);
	int64_t sb = o->segment_bytes;
	int64_t keep = sb * (o->segments > 1 ? o->segments - 1 : 1);
	fprintf(f, "# topic configs for the log dir %s (segscan gen --seed=%" PRIu64 ")\n", o->outdir, o->seed);
	fprintf(f, "* retention.ms=604800000 retention.bytes=-1 remote.storage.enable=false segment.bytes=%" PRId64 "\n", sb);
	for (uint32_t t = 0; t < o->topics; t++)
		if (g->topics[t].tiered)
			fprintf(f, "%s remote.storage.enable=true retention.ms=604800000 retention.bytes=%" PRId64
				" local.retention.ms=86400000 local.retention.bytes=-2 segment.bytes=%" PRId64 "\n",
				g->topics[t].name, keep, sb);
	int err = ferror(f) ? -EIO : 0;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err ? gfail(g, err, "cannot write %s", path) : 0;
}

/* ---- setup ---- */
void ss_gen_opts_init(struct ss_gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->records_per_batch = 16;
	o->codec = SS_CODEC_NONE;
	o->value_bytes = 200;
	o->start_time_ms = DEFAULT_START_MS;
	o->span_ms = DEFAULT_SPAN_MS;
	o->tiered = 0.5;
	o->remote_only = -1;
	o->uncopied = -1;
	o->active_batches = -1;
	o->node_id = 1;
	o->clean_shutdown = true;
}

static int check_opts(struct gen *g)
{
	const struct ss_gen_opts *o = g->o;
	if (!o->outdir || !*o->outdir)
		return gfail(g, -EINVAL, "no output directory");
	if (!o->topics || !o->partitions || !o->segments)
		return gfail(g, -EINVAL, "--topics, --partitions and --segments must be at least 1");
	if (o->partitions > INT32_MAX)
		return gfail(g, -EINVAL, "--partitions=%" PRIu32 ": partition ids are int32", o->partitions);
	if ((uint64_t)o->topics * o->partitions > (1ull << 32))
		return gfail(g, -EINVAL, "--topics x --partitions is too large");
	if (o->segments > (1u << 24))
		return gfail(g, -EINVAL, "--segments=%" PRIu32 " is too large", o->segments);
	if (o->segment_bytes < SS_V2_HEADER_SIZE + 8 || o->segment_bytes > INT32_MAX)
		return gfail(g, -EINVAL, "--segment-bytes=%" PRId64 " must be between %d and %d (segment.bytes is an int)",
			     o->segment_bytes, SS_V2_HEADER_SIZE + 8, INT32_MAX);
	if (!o->records_per_batch || o->records_per_batch > MAX_RECORDS_PER_BATCH)
		return gfail(g, -EINVAL, "--records-per-batch=%" PRIu32 " must be between 1 and %u",
			     o->records_per_batch, MAX_RECORDS_PER_BATCH);
	if (o->single_record_tail >= o->segments)
		return gfail(g, -EINVAL, "--single-record-tail=%" PRIu32 " must be less than --segments=%" PRIu32
			     " (the active segment is not a closed one)", o->single_record_tail, o->segments);
	if (o->value_bytes > MAX_VALUE_BYTES)
		return gfail(g, -EINVAL, "--value-bytes=%" PRIu32 " is larger than %u", o->value_bytes, MAX_VALUE_BYTES);
	if (o->start_time_ms < 0 || o->span_ms < 1 || o->start_time_ms > INT64_MAX / 4 - o->span_ms)
		return gfail(g, -EINVAL, "--start-time and --span-ms must be positive and sensible");
	if (!(o->tiered >= 0 && o->tiered <= 1))
		return gfail(g, -EINVAL, "--tiered must be a fraction between 0 and 1");
	if (o->remote_only < -1 || o->remote_only > 1000 || o->uncopied < -1 || o->active_batches < -1 ||
	    o->node_id < 0)
		return gfail(g, -EINVAL, "--remote-only, --uncopied, --active-batches and --node-id must not be negative");
	if ((unsigned)o->codec > SS_CODEC_ZSTD)
		return gfail(g, -EINVAL, "unknown compression codec %d", (int)o->codec);
	if (o->topic_prefix)
		for (const char *c = o->topic_prefix; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			      *c == '.' || *c == '_' || *c == '-'))
				return gfail(g, -EINVAL, "--topic-prefix=%s: topic names allow only [a-zA-Z0-9._-]",
					     o->topic_prefix);
	return 0;
}

/* mkdir -p, then refuse to mix our files with someone else's unless forced. */
static int prepare_outdir(struct gen *g)
{
	const struct ss_gen_opts *o = g->o;
	char *path = strdup(o->outdir);
	if (!path)
		return gfail(g, -ENOMEM, "out of memory");
	for (char *c = path + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int e = -errno;
			gfail(g, e, "cannot create %s", path);
			free(path);
			return e;
		}
		*c = '/';
	}
	free(path);
	if (mkdir(o->outdir, 0755) < 0 && errno != EEXIST)
		return gfail(g, -errno, "cannot create %s", o->outdir);
	g->outfd = open(o->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->outfd < 0)
		return gfail(g, -errno, "cannot open %s", o->outdir);
	if (o->force)
		return 0;
	int fd = dup(g->outfd);
	if (fd < 0)
		return gfail(g, -errno, "cannot read %s", o->outdir);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return gfail(g, -errno, "cannot read %s", o->outdir);
	}
	struct dirent *de;
	bool empty = true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	if (!empty)
		return gfail(g, -EEXIST, "%s exists and is not empty (use --force to write into it anyway)", o->outdir);
	return 0;
}

static int setup_topics(struct gen *g)
{
	const struct ss_gen_opts *o = g->o;
	g->topics = calloc(o->topics, sizeof(*g->topics));
	if (!g->topics)
		return gfail(g, -ENOMEM, "out of memory");
	bool first_tiered = true, first_plain = true;
	for (uint32_t t = 0; t < o->topics; t++) {
		struct gen_topic *tp = &g->topics[t];
		if (ss_gen_topic_name(o, t, tp->name, sizeof(tp->name)))
			return gfail(g, -EINVAL, "--topic-prefix makes topic %" PRIu32 " longer than %d characters",
				     t, MAX_TOPIC_LEN);
		const struct topic_kind *k = &kinds[t % N_KINDS];
		tp->keyed = k->keyed;
		tp->headers = k->headers;
		tp->idempotent = k->idempotent;
		tp->tiered = ss_gen_topic_tiered(o, t);
		struct rng r;
		rng_init(&r, mix(mix(o->seed, TAG_TOPIC_ID), t));
		gen_uuid(&r, tp->id, tp->id_txt);
		tp->producer_id = 1000 + (int64_t)(mix(mix(o->seed, TAG_PID), t) % 1000000);

		/* designated partitions for the per-seed special shapes */
		if (tp->tiered && first_tiered) {
			first_tiered = false;
			g->has_del = g->has_dang = true;
			g->del_t = g->dang_t = t;
			g->del_p = (uint32_t)(mix(o->seed, TAG_DEL) % o->partitions);
			g->dang_p = (uint32_t)(mix(o->seed, TAG_DANGP) % o->partitions);
		}
		if (!tp->tiered && first_plain) {
			first_plain = false;
			g->has_delrec = true;
			g->delrec_t = t;
			g->delrec_p = (uint32_t)(mix(o->seed, TAG_DELREC) % o->partitions);
		}

		/* one batch as this topic writes them, to plan time spacing and rolls */
		struct pstate ps;
		memset(&ps, 0, sizeof(ps));
		rng_init(&ps.r, mix(mix(o->seed, TAG_PROBE), t));
		ps.tp = tp;
		ps.dt = 1000;
		ps.clock = o->start_time_ms;
		size_t sum = 0, largest = 0;
		for (int i = 0; i < PROBE_BATCHES; i++) {
			struct built b;
			int err = build_batch(g, &ps, (int32_t)o->records_per_batch, 0, &b);
			if (err)
				return err;
			sum += b.len;
			if (b.len > largest)
				largest = b.len;
		}
		tp->probe_len = sum / PROBE_BATCHES;
		if ((int64_t)largest > o->segment_bytes)
			return gfail(g, -EINVAL, "--segment-bytes=%" PRId64 " cannot hold one batch of %" PRIu32
				     " records (%zu bytes); raise it or lower --records-per-batch/--value-bytes",
				     o->segment_bytes, o->records_per_batch, largest);
	}
	return 0;
}

static int setup_pool(struct gen *g)
{
	/* Record payloads are slices of one seeded pool of hex text: pseudo-random, cheap to
	 * produce, and about 2:1 compressible, which is what codecs see on real topics. */
	const struct ss_gen_opts *o = g->o;
	static const char hex[] = "0123456789abcdef";
	g->pool_len = POOL_BASE + o->value_bytes + o->value_bytes / 4 + 64;
	g->pool = malloc(g->pool_len);
	if (!g->pool)
		return gfail(g, -ENOMEM, "out of memory");
	struct rng r;
	rng_init(&r, mix(o->seed, TAG_POOL));
	for (size_t i = 0; i < g->pool_len; i += 16) {
		uint64_t v = rng_next(&r);
		for (size_t j = 0; j < 16 && i + j < g->pool_len; j++)
			g->pool[i + j] = (uint8_t)hex[(v >> (4 * j)) & 15];
	}
	return 0;
}

/* The buffers, the value pool, the topics and the output directory. */
static int gen_setup(struct gen *g, uint64_t nparts)
{
	const struct ss_gen_opts *o = g->o;
	int rc;
	g->tail_gap = o->span_ms / (4 * ((int64_t)o->single_record_tail + 1));
	if (g->tail_gap > 3600000)
		g->tail_gap = 3600000;  /* a segment.ms of an hour on a quiet partition */
	if (g->tail_gap < 1)
		g->tail_gap = 1;
	g->sums = calloc(nparts, sizeof(*g->sums));
	g->recs = calloc(o->records_per_batch, sizeof(*g->recs));
	g->logbuf = malloc(LOGBUF_FLUSH);
	if (!g->sums || !g->recs || !g->logbuf)
		return gfail(g, -ENOMEM, "out of memory");
	if ((rc = setup_pool(g)) || (rc = setup_topics(g)) || (rc = prepare_outdir(g)))
		return rc;
	return 0;
}

/* The --remote-state file (g->remote, closed by the caller) and the path of the topic
 * config written beside it or where --topic-config-out says (*cfg_path, freed by the
 * caller; NULL when neither is asked for). */
static int open_side_files(struct gen *g, char **cfg_path)
{
	const struct ss_gen_opts *o = g->o;
	if (o->remote_state) {
		g->remote = fopen(o->remote_state, "w");
		if (!g->remote)
			return gfail(g, -errno, "cannot create %s", o->remote_state);
		setvbuf(g->remote, NULL, _IOFBF, 1 << 20);
	}
	if (o->topic_config_out) {
		*cfg_path = strdup(o->topic_config_out);
	} else if (o->remote_state) {
		const char *slash = strrchr(o->remote_state, '/');
		if (!slash)
			*cfg_path = strdup("topic-config.txt");
		else if (asprintf(cfg_path, "%.*s/topic-config.txt", (int)(slash - o->remote_state), o->remote_state) < 0)
			*cfg_path = NULL;
	}
	if ((o->topic_config_out || o->remote_state) && !*cfg_path)
		return gfail(g, -ENOMEM, "out of memory");
	return 0;
}

int ss_gen_run(const struct ss_gen_opts *o, struct ss_gen_stats *st, char *err, size_t errlen)
{
	struct gen g;
	int rc;
	char *cfg_path = NULL;

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.err = err;
	g.errlen = errlen;
	g.outfd = -1;
	g.logfd = -1;
	if (err && errlen)
		err[0] = 0;
	ss_enc_init(&g.enc);

	if ((rc = check_opts(&g)))
		goto out;
	uint64_t nparts = (uint64_t)o->topics * o->partitions;
	if ((rc = gen_setup(&g, nparts)) || (rc = open_side_files(&g, &cfg_path)))
		goto out;

	uint64_t done = 0;
	for (uint32_t t = 0; t < o->topics; t++)
		for (uint32_t p = 0; p < o->partitions; p++) {
			if ((rc = gen_partition(&g, t, p)))
				goto out;
			done++;
			if (o->progress)
				o->progress(o->progress_arg, &g.st, done, nparts);
		}
	if ((rc = write_top_files(&g)))
		goto out;
	if (cfg_path && (rc = write_topic_config(&g, cfg_path)))
		goto out;
	if (g.remote) {
		int e = ferror(g.remote) ? -EIO : 0;
		if (fclose(g.remote) != 0 && !e)
			e = -errno;
		g.remote = NULL;
		if (e) {
			rc = gfail(&g, e, "cannot write %s", o->remote_state);
			goto out;
		}
	}
	rc = 0;
out:
	if (g.remote)
		fclose(g.remote);
	if (g.outfd >= 0)
		close(g.outfd);
	if (st)
		*st = g.st;
	free(cfg_path);
	free(g.topics);
	free(g.sums);
	free(g.pool);
	free(g.recs);
	free(g.logbuf);
	free(g.idx);
	free(g.tidx);
	free(g.epochs);
	free(g.range);
	free(g.segs);
	ss_enc_free(&g.enc);
	return rc;
}
