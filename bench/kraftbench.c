/*
 * bench/kraftbench: replay cost of a large KRaft metadata log, through the library.
 *
 * Generates in memory a metadata stream of TOPICS topics with PARTS partitions in all
 * (TopicRecord, PartitionRecord, one ConfigRecord per topic, broker registrations and
 * configs, and CHANGES PartitionChangeRecords: leader changes and ISR shrinks), packed into
 * v2 record batches of BATCH records as a controller writes them, then measures:
 *
 *   decode   every batch's header and CRC-32C, every record parsed and its value decoded
 *            (ss_batch_* + ss_kraft_decode), no state
 *   replay   the same plus ss_cimage_apply into a fresh cluster image: what the scan pays
 *   source   the stream written as one log segment of a __cluster_metadata-0 in a temp
 *            directory, replayed by ss_mlog_replay (pread in chunks, page cache warm)
 *
 *   kraftbench [-t TOPICS] [-p PARTS] [-c CHANGES] [-b BATCH] [-r REPS]
 *
 * Output: "kraftbench NAME REP SECONDS RECORDS RECORDS_PER_S" per repetition and a summary
 * (best of REPS) on stderr. Built by hand like evalbench:
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
		if (ss_batch_foreach_record(S.p + pos, &h, on_rec, c))
			return 1;
		pos += (size_t)h.size;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int topics = 10000, parts = 100000, changes = 50000, reps = 3, opt;
	while ((opt = getopt(argc, argv, "t:p:c:b:r:")) != -1) {
		switch (opt) {
		case 't': topics = atoi(optarg); break;
		case 'p': parts = atoi(optarg); break;
		case 'c': changes = atoi(optarg); break;
		case 'b': batch_size = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: kraftbench [-t TOPICS] [-p PARTS] [-c CHANGES] [-b BATCH] [-r REPS]\n");
			return 2;
		}
	}
	if (topics < 1 || parts < 0 || changes < 0 || batch_size < 1 || reps < 1)
		return 2;
	double t0 = now();
	generate(topics, parts, changes);
	fprintf(stderr, "kraftbench: %d topics, %d partitions, %d changes: %llu records, %zu bytes in %.3f s\n",
		topics, parts, changes, (unsigned long long)S.records, S.n, now() - t0);

	/* the stream as a metadata log on disk */
	char tmpl[] = "/tmp/kraftbench.XXXXXX";
	char *root = mkdtemp(tmpl), dir[256], seg[320];
	if (!root)
		return 1;
	snprintf(dir, sizeof dir, "%s/%s", root, SS_MLOG_DIRNAME);
	snprintf(seg, sizeof seg, "%s/00000000000000000000.log", dir);
	FILE *f = NULL;
	if (mkdir(dir, 0755) || !(f = fopen(seg, "wb")) || fwrite(S.p, 1, S.n, f) != S.n || fclose(f)) {
		fprintf(stderr, "kraftbench: cannot write %s\n", seg);
		return 1;
	}

	double best[3] = { 1e9, 1e9, 1e9 };
	const char *names[3] = { "decode", "replay", "source" };
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
			} else {
				rc = ss_mlog_replay(dir, &c.img, &info);
				c.n = ss_cimage_stats(c.img)->records;
			}
			double s = now() - a;
			if (rc || (c.img && (ss_cimage_partition_count(c.img) != (size_t)parts ||
					     ss_cimage_topic_count(c.img) != (size_t)topics ||
					     ss_cimage_warning_count(c.img)))) {
				fprintf(stderr, "kraftbench: %s failed (rc %d)\n", names[m], rc);
				return 1;
			}
			printf("kraftbench %s %d %.6f %llu %.0f\n", names[m], r, s, (unsigned long long)c.n, (double)c.n / s);
			if (s < best[m])
				best[m] = s;
			if (m == 2)
				ss_mlog_info_free(&info);
			ss_cimage_free(c.img);
		}
	}
	for (int m = 0; m < 3; m++)
		fprintf(stderr, "kraftbench: %-6s best %.3f s, %.2f M records/s\n", names[m], best[m],
			(double)S.records / best[m] / 1e6);
	unlink(seg);
	rmdir(dir);
	rmdir(root);
	free(S.p);
	return 0;
}
