/*
 * bench/clusterbench: remote log metadata consumed from a live broker and replayed, beside
 * the on-disk decoder reading the same records from the broker's log dir (issue 10).
 *
 *   clusterbench BOOTSTRAP TOPIC PARTITION_DIR [REPS]
 *   CLUSTERBENCH_FETCH_ONLY=1: the cluster read without decode and replay (librdkafka's floor)
 *
 *   cluster  ss_cluster_read_rlmm of TOPIC partition 0 (earliest to the high watermark),
 *            every value through ss_remote_topic_apply_value into a fresh KAFKA-mode store
 *   disk     ss_remote_topic_replay of PARTITION_DIR (the same partition's segment files,
 *            page cache warm after the first repetition): the same decoder and state machine
 *
 * The input comes from scripts/kafka-oracle's LiveCluster "bench" command (1M records as
 * Kafka's RemoteLogMetadataSerde writes them). Output per repetition:
 *   clusterbench NAME REP SECONDS RECORDS RECORDS_PER_S
 * Built by hand like kraftbench:
 *   gcc -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/clusterbench.c -o build/hc/clusterbench \
 *       build/hc/libsegscan.a $(pkg-config --libs liburing numa jemalloc jansson libmicrohttpd zlib \
 *       liblz4 libzstd rdkafka) -lsnappy -lpthread -lm
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "eval/remote.h"
#include "source/cluster.h"
#include "source/remote_topic.h"

struct ctx {
	double t_first;   /* the first record's arrival: connection and fetch set-up before it */
	bool   no_replay; /* CLUSTERBENCH_FETCH_ONLY=1: librdkafka's own cost, no decode or replay */
	struct ss_remote *r;
	struct ss_remote_topic_stats st;
};

static int on_rec(void *arg, int32_t mpart, int64_t offset, int64_t ts, const void *value, size_t len, bool has_value)
{
	struct ctx *x = arg;
	if (x->t_first == 0)
		x->t_first = ss_mono();
	if (x->no_replay) {
		x->st.records++;
		x->st.applied++;
		return 0;
	}
	return ss_remote_topic_apply_value(x->r, mpart, 0, offset, value, has_value ? (int32_t)len : -1, "bench", NULL,
					   NULL, &x->st, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: clusterbench BOOTSTRAP TOPIC PARTITION_DIR [REPS]\n");
		return 2;
	}
	int reps = argc > 4 ? atoi(argv[4]) : 3;
	double best_c = 1e30, best_d = 1e30;
	uint64_t nc = 0, nd = 0;
	char err[1024];
	for (int rep = 0; rep < reps; rep++) {
		struct ss_cluster *c = NULL;
		struct ctx x = { .no_replay = getenv("CLUSTERBENCH_FETCH_ONLY") != NULL };
		struct ss_cluster_opts o = { .bootstrap = argv[1], .topic = argv[2], .timeout_ms = 30000 };
		int32_t mp = 0;
		if (ss_remote_new(SS_REMOTE_KAFKA, "cluster", &x.r))
			return 1;
		double t0 = ss_mono();
		int e = ss_cluster_open(&c, &o, err, sizeof(err));
		if (!e)
			e = ss_cluster_read_rlmm(c, &mp, 1, &(struct ss_cluster_sink){ .record = on_rec, .arg = &x }, NULL, err,
						 sizeof(err));
		double dt = ss_mono() - t0;
		ss_cluster_close(c);
		fprintf(stderr, "clusterbench: first record after %.3f s\n", x.t_first - t0);
		if (e) {
			fprintf(stderr, "clusterbench: %s\n", err);
			return 1;
		}
		if (x.st.applied != x.st.records)
			fprintf(stderr, "clusterbench: cluster: %llu of %llu records applied\n", (unsigned long long)x.st.applied,
				(unsigned long long)x.st.records);
		nc = x.st.records;
		printf("clusterbench cluster %d %.4f %llu %.0f\n", rep, dt, (unsigned long long)nc, (double)nc / dt);
		if (dt < best_c)
			best_c = dt;
		ss_remote_free(x.r);

		struct ss_remote *r;
		struct ss_remote_topic_stats st;
		const char *dirs[1] = { argv[3] };
		if (ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r))
			return 1;
		t0 = ss_mono();
		e = ss_remote_topic_replay(r, dirs, 1, 0, NULL, NULL, &st, NULL);
		dt = ss_mono() - t0;
		ss_remote_free(r);
		if (e) {
			fprintf(stderr, "clusterbench: disk: %d\n", e);
			return 1;
		}
		nd = st.records;
		printf("clusterbench disk %d %.4f %llu %.0f\n", rep, dt, (unsigned long long)nd, (double)nd / dt);
		if (dt < best_d)
			best_d = dt;
		fflush(stdout);
	}
	fprintf(stderr, "clusterbench: best of %d: cluster %llu records in %.3f s (%.0f records/s), disk %llu in %.3f s "
		"(%.0f records/s): network/disk time %.2fx\n",
		reps, (unsigned long long)nc, best_c, (double)nc / best_c, (unsigned long long)nd, best_d,
		(double)nd / best_d, best_c / best_d);
	return nc == nd ? 0 : 1;
}
