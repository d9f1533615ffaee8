/*
 * bench/kraftbench: replay cost of a large KRaft metadata log, through the library.
 *
 * Shape `cluster` (the first, always): a metadata stream of TOPICS topics with PARTS
 * partitions in all (TopicRecord, PartitionRecord, one ConfigRecord per topic, broker
 * registrations and configs, and CHANGES PartitionChangeRecords: leader changes and ISR
 * shrinks), packed into v2 record batches of BATCH records as a controller writes them.
 * Then the shapes that were quadratic before issue 21 item 6, each at the size the issue
 * measured:
 *
 *   config-keys      200,000 ConfigRecords of distinct keys on one topic resource
 *   desc-partitions  one topic of 100,000 partitions whose PartitionRecords come in
 *                    descending id
 *   features         100,000 FeatureLevelRecords of distinct feature names
 *   torn-snapshots   200 snapshots of 10,000 records each, all torn (no SnapshotFooter),
 *                    newer than one good snapshot: `source` replays the directory
 *
 * For each shape it measures:
 *
 *   decode   every batch's header and CRC-32C, every record parsed and its value decoded
 *            (ss_batch_* + ss_kraft_decode), no state: the floor
 *   replay   the same plus ss_cimage_apply into a fresh cluster image: what the scan pays
 *   source   the stream written as one log segment of a __cluster_metadata-0 in a temp
 *            directory, replayed by ss_mlog_replay (pread in chunks, page cache warm);
 *            torn-snapshots: the directory of snapshots
 *
 * replay / decode is the ratio to read: a replay linear in records keeps it flat across
 * shapes; a quadratic one makes it hundreds.
 *
 *   kraftbench [-t TOPICS] [-p PARTS] [-c CHANGES] [-b BATCH] [-r REPS] [-s SHAPE[,SHAPE]]
 *
 * Output: "kraftbench NAME REP SECONDS RECORDS RECORDS_PER_S" per repetition (NAME is
 * decode, replay, source for `cluster`, SHAPE-decode ... for the others) and a summary
 * (best of REPS) on stderr. Built by bench/run.sh (part `kraft`), or by hand like evalbench:
 *   gcc -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/kraftbench.c -o build/hk/kraftbench \
 *       build/hk/libsegscan.a $(pkg-config --libs ...) -lsnappy -lpthread -lm
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../tests/kraft_enc.h"
#include "fmt/batch.h"
#include "fmt/kraft.h"
#include "gen/encode.h"
#include "segscan.h"
#include "source/cluster_image.h"
#include "source/metadata_log.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct stream {
	uint8_t *p;
	size_t   n, cap;
	uint64_t records;
};

static struct ss_enc enc;
static int32_t in_batch;
static int64_t next_offset;
static struct stream S;

static void flush(void)
{
	if (!in_batch)
		return;
	const uint8_t *out;
	size_t len;
	if (ss_enc_finish(&enc, &out, &len)) {
		fprintf(stderr, "kraftbench: encode failed\n");
		exit(1);
	}
	if (S.n + len > S.cap) {
		S.cap = (S.n + len) * 2;
		S.p = realloc(S.p, S.cap);
		if (!S.p)
			exit(1);
	}
	memcpy(S.p + S.n, out, len);
	S.n += len;
	in_batch = 0;
}

static int batch_size = 500;

static void emit(const struct kw *w)
{
	if (!in_batch)
		ss_enc_begin(&enc, &(struct ss_enc_batch){ .base_offset = next_offset, .leader_epoch = 1,
							   .producer_id = -1, .producer_epoch = -1,
							   .base_sequence = -1 });
	struct ss_enc_record r = { .timestamp = 1700000000000LL, .offset_delta = in_batch, .key_len = -1,
				   .value = w->b, .value_len = (int32_t)w->n };
	if (ss_enc_append(&enc, &r)) {
		fprintf(stderr, "kraftbench: append failed\n");
		exit(1);
	}
	in_batch++;
	next_offset++;
	S.records++;
	if (in_batch >= batch_size)
		flush();
}

static void topic_id(int t, uint8_t id[16])
{
	memset(id, 0, 16);
	for (int i = 0; i < 4; i++)
		id[i] = (uint8_t)(t >> (8 * i));
	id[15] = 0x5a;
}

static void generate(int topics, int parts, int changes)
{
	struct kw w;
	char name[64];
	uint8_t id[16];
	ss_enc_init(&enc);
	kw_feature_level(&w, "metadata.version", 27);
	emit(&w);
	for (int b = 0; b < 3; b++) {
		snprintf(name, sizeof name, "broker%d.example", b);
		kw_register(&w, b, 100 + b, name, 9092, "rack", false, 1, 27);
		emit(&w);
	}
	kw_config(&w, 4, "", "log.retention.ms", "604800000");
	emit(&w);
	int per = parts / topics, extra = parts % topics;
	for (int t = 0; t < topics; t++) {
		topic_id(t, id);
		snprintf(name, sizeof name, "topic-%06d", t);
		kw_topic(&w, name, id);
		emit(&w);
		int np = per + (t < extra);
		for (int p = 0; p < np; p++) {
			int32_t reps[3] = { p % 3, (p + 1) % 3, (p + 2) % 3 };
			kw_partition(&w, id, p, reps, 3, reps[0], 0, 0);
			emit(&w);
		}
		kw_config(&w, 2, name, "retention.ms", "86400000");
		emit(&w);
	}
	uint64_t x = 88172645463325252ull;
	for (int c = 0; c < changes; c++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int t = (int)(x % (uint64_t)topics);
		int np = per + (t < extra);
		int p = np ? (int)((x >> 20) % (uint64_t)np) : 0;
		topic_id(t, id);
		if (c & 1)
			kw_change(&w, id, p, (int32_t)((x >> 40) % 3), NULL, -1);
		else
			kw_change(&w, id, p, -2, (const int32_t[]){ (int32_t)((x >> 40) % 3) }, 1);
		emit(&w);
	}
	flush();
	ss_enc_free(&enc);
}

static void stream_reset(void)
{
	S.n = 0;
	S.records = 0;
	next_offset = 0;
	in_batch = 0;
}

/* 200,000 distinct config keys on one topic resource. */
static void gen_config_keys(int n)
{
	struct kw w;
	uint8_t id[16];
	char key[48], val[24];
	ss_enc_init(&enc);
	topic_id(0, id);
	kw_topic(&w, "wide", id);
	emit(&w);
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof key, "custom.config.key.%07d", i);
		snprintf(val, sizeof val, "%d", i);
		kw_config(&w, 2, "wide", key, val);
		emit(&w);
	}
	flush();
	ss_enc_free(&enc);
}

/* One topic whose partitions arrive in descending id. */
static void gen_desc_partitions(int n)
{
	struct kw w;
	uint8_t id[16];
	ss_enc_init(&enc);
	topic_id(0, id);
	kw_topic(&w, "desc", id);
	emit(&w);
	for (int p = n - 1; p >= 0; p--) {
		int32_t reps[3] = { p % 3, (p + 1) % 3, (p + 2) % 3 };
		kw_partition(&w, id, p, reps, 3, reps[0], 0, 0);
		emit(&w);
	}
	flush();
	ss_enc_free(&enc);
}

/* n distinct finalized features. */
static void gen_features(int n)
{
	struct kw w;
	char name[48];
	ss_enc_init(&enc);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "bench.feature.%07d", i);
		kw_feature_level(&w, name, (int16_t)(1 + i % 1000));
		emit(&w);
	}
	flush();
	ss_enc_free(&enc);
}

/* One control batch (SnapshotHeader or SnapshotFooter) at `base`, appended to S. */
static void control_batch(int64_t base, int type)
{
	flush();
	ss_enc_init(&enc);
	ss_enc_begin(&enc, &(struct ss_enc_batch){ .base_offset = base, .leader_epoch = 1, .attributes = 0x20,
						   .producer_id = -1, .producer_epoch = -1, .base_sequence = -1 });
	uint8_t key[4] = { 0, 0, 0, (uint8_t)type }, val[11] = { 0 };
	struct ss_enc_record r = { .timestamp = 1700000000000LL, .key = key, .key_len = 4, .value = val,
				   .value_len = 11 };
	const uint8_t *out;
	size_t len;
	if (ss_enc_append(&enc, &r) || ss_enc_finish(&enc, &out, &len)) {
		fprintf(stderr, "kraftbench: encode failed\n");
		exit(1);
	}
	if (S.n + len > S.cap) {
		S.cap = (S.n + len) * 2;
		if (!(S.p = realloc(S.p, S.cap)))
			exit(1);
	}
	memcpy(S.p + S.n, out, len);
	S.n += len;
	ss_enc_free(&enc);
}

/* A snapshot of n records (a topic and its partitions), with or without its footer. */
static void gen_snapshot(int n, bool footer)
{
	struct kw w;
	uint8_t id[16];
	control_batch(0, 3);
	next_offset = 1;
	ss_enc_init(&enc);
	topic_id(1, id);
	kw_topic(&w, "snap", id);
	emit(&w);
	for (int p = 0; p < n - 1; p++) {
		int32_t reps[3] = { p % 3, (p + 1) % 3, (p + 2) % 3 };
		kw_partition(&w, id, p, reps, 3, reps[0], 0, 0);
		emit(&w);
	}
	flush();
	ss_enc_free(&enc);
	if (footer)
		control_batch(next_offset, 4);
}

struct ctx {
	struct ss_cimage *img;
	uint64_t          n;
};

static int on_rec(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct ctx *c = arg;
	c->n++;
	if (c->img) {
		struct ss_ci_where w = { "bench", 0, r->offset };
		return ss_cimage_apply(c->img, r->value, (size_t)r->value_len, &w);
	}
	struct ss_kraft_rec k;
	return ss_kraft_decode(r->value, (size_t)r->value_len, &k) < 0;
}

static int walk(struct ctx *c)
{
	size_t pos = 0;
	while (pos < S.n) {
		struct ss_batch_hdr h;
		if (ss_batch_header(S.p + pos, S.n - pos, &h) <= 0 || ss_batch_verify(S.p + pos, &h))
			return 1;
		if (!(h.attributes & 0x20) && ss_batch_foreach_record(S.p + pos, &h, on_rec, c))
			return 1;
		pos += (size_t)h.size;
	}
	return 0;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* What one replay must have built, for the shape: a failed check fails the bench. */
struct expect {
	size_t topics, partitions, features, keys;
	bool   warnings_ok;
};

static bool image_ok(const struct ss_cimage *img, const struct expect *e)
{
	if (ss_cimage_topic_count(img) != e->topics || ss_cimage_partition_count(img) != e->partitions ||
	    ss_cimage_feature_count(img) != e->features)
		return false;
	if (e->keys) {
		const struct ss_ci_resource *r = ss_cimage_resource(img, 2, "wide");
		if (!r || r->n != e->keys)
			return false;
	}
	return e->warnings_ok || !ss_cimage_warning_count(img);
}

static double best[5][3]; /* cluster, the three shapes, torn-snapshots */

/* Measure decode, replay and source of the stream in S (already written to `dir` for
 * source), REPS times; shape index k. */
static int measure(int k, const char *shape, const char *dir, int reps, const struct expect *e)
{
	const char *names[3] = { "decode", "replay", "source" };
	for (int m = 0; m < 3; m++)
		best[k][m] = 1e9;
	for (int r = 0; r < reps; r++) {
		for (int m = 0; m < 3; m++) {
			struct ctx c = { NULL, 0 };
			struct ss_mlog_info info;
			double a = now();
			int rc = 0;
			if (m == 1 && ss_cimage_new(&c.img))
				return 1;
			if (m < 2) {
				rc = walk(&c);
				if (c.img)
					ss_cimage_finish(c.img);
			} else {
				rc = ss_mlog_replay(dir, &c.img, &info);
				c.n = rc ? 0 : info.records_replayed;
			}
			double s = now() - a;
			if (rc || (c.img && m == 1 && !image_ok(c.img, e))) {
				fprintf(stderr, "kraftbench: %s %s failed (rc %d)\n", shape, names[m], rc);
				return 1;
			}
			printf("kraftbench %s%s%s %d %.6f %llu %.0f\n", k ? shape : "", k ? "-" : "", names[m], r, s,
			       (unsigned long long)c.n, (double)c.n / s);
			if (s < best[k][m])
				best[k][m] = s;
			if (m == 2)
				ss_mlog_info_free(&info);
			ss_cimage_free(c.img);
		}
	}
	for (int m = 0; m < 3; m++)
		fprintf(stderr, "kraftbench: %-16s %-6s best %.3f s, %.2f M records/s\n", shape, names[m], best[k][m],
			(double)S.records / best[k][m] / 1e6);
	fprintf(stderr, "kraftbench: %-16s replay/decode %.2f\n", shape, best[k][1] / best[k][0]);
	return 0;
}

static bool want_shape(const char *list, const char *shape)
{
	if (!list)
		return true;
	size_t n = strlen(shape);
	for (const char *p = list; (p = strstr(p, shape)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int topics = 10000, parts = 100000, changes = 50000, reps = 3, opt;
	const char *shapes = NULL;
	while ((opt = getopt(argc, argv, "t:p:c:b:r:s:")) != -1) {
		switch (opt) {
		case 't': topics = atoi(optarg); break;
		case 'p': parts = atoi(optarg); break;
		case 'c': changes = atoi(optarg); break;
		case 'b': batch_size = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 's': shapes = optarg; break;
		default:
			fprintf(stderr, "usage: kraftbench [-t TOPICS] [-p PARTS] [-c CHANGES] [-b BATCH] [-r REPS] "
					"[-s cluster,config-keys,desc-partitions,features,torn-snapshots]\n");
			return 2;
		}
	}
	if (topics < 1 || parts < 0 || changes < 0 || batch_size < 1 || reps < 1)
		return 2;

	char tmpl[] = "/tmp/kraftbench.XXXXXX";
	char *root = mkdtemp(tmpl), dir[256], seg[320], snap[320];
	if (!root)
		return 1;
	snprintf(dir, sizeof dir, "%s/%s", root, SS_MLOG_DIRNAME);
	snprintf(seg, sizeof seg, "%s/00000000000000000000.log", dir);
	if (mkdir(dir, 0755))
		return 1;
	int rc = 0;

	if (want_shape(shapes, "cluster")) {
		double t0 = now();
		generate(topics, parts, changes);
		fprintf(stderr, "kraftbench: %d topics, %d partitions, %d changes: %llu records, %zu bytes in %.3f s\n",
			topics, parts, changes, (unsigned long long)S.records, S.n, now() - t0);
		struct expect e = { .topics = (size_t)topics, .partitions = (size_t)parts, .features = 1 };
		if (write_file(seg, S.p, S.n) || measure(0, "cluster", dir, reps, &e))
			rc = 1;
	}
	struct {
		const char *name;
		void (*gen)(int);
		int n;
		struct expect e;
	} shape[] = {
		{ "config-keys", gen_config_keys, 200000, { .topics = 1, .keys = 200000 } },
		{ "desc-partitions", gen_desc_partitions, 100000, { .topics = 1, .partitions = 100000 } },
		{ "features", gen_features, 100000, { .features = 100000 } },
	};
	for (int k = 0; k < 3 && !rc; k++) {
		if (!want_shape(shapes, shape[k].name))
			continue;
		stream_reset();
		shape[k].gen(shape[k].n);
		fprintf(stderr, "kraftbench: %s: %llu records, %zu bytes\n", shape[k].name,
			(unsigned long long)S.records, S.n);
		if (write_file(seg, S.p, S.n) || measure(k + 1, shape[k].name, dir, reps, &shape[k].e))
			rc = 1;
	}
	unlink(seg);

	/* 200 torn snapshots over one good one; the decode and replay floors are of one torn
	 * snapshot's stream times 200 (what replaying each in full cost) */
	if (!rc && want_shape(shapes, "torn-snapshots")) {
		enum { TORN = 200, PER = 10000 };
		stream_reset();
		gen_snapshot(10, true);
		snprintf(snap, sizeof snap, "%s/%020d-%010d.checkpoint", dir, 10, 1);
		if (write_file(snap, S.p, S.n))
			rc = 1;
		stream_reset();
		gen_snapshot(PER, false);
		for (int i = 0; i < TORN && !rc; i++) {
			snprintf(snap, sizeof snap, "%s/%020d-%010d.checkpoint", dir, 11 + i, 1);
			if (write_file(snap, S.p, S.n))
				rc = 1;
		}
		fprintf(stderr, "kraftbench: torn-snapshots: %d snapshots of %llu records, %zu bytes each\n", TORN,
			(unsigned long long)S.records, S.n);
		/* the floors read the torn stream TORN times, as the old replay did */
		size_t one = S.n;
		uint8_t *all = malloc(one * TORN);
		if (!all)
			return 1;
		for (int i = 0; i < TORN; i++)
			memcpy(all + (size_t)i * one, S.p, one);
		free(S.p);
		S.p = all;
		S.n = S.cap = one * TORN;
		S.records *= TORN;
		struct expect e = { .topics = 1, .partitions = PER - 1, .warnings_ok = true };
		/* replay of the concatenation resets nothing: every copy's records replace the
		 * same partitions, so the image is one snapshot's */
		if (measure(4, "torn-snapshots", dir, reps, &e))
			rc = 1;
		for (int i = 0; i <= TORN; i++) {
			snprintf(snap, sizeof snap, "%s/%020d-%010d.checkpoint", dir, 10 + i, 1);
			unlink(snap);
		}
	}
	rmdir(dir);
	rmdir(root);
	free(S.p);
	return rc;
}
