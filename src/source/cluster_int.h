/*
 * What the live-cluster source's files share (source/cluster.h is the interface): the
 * client handle and its helpers. cluster.c: the handle, its errors and bounds, the
 * one-shot read; cluster_describe.c: DescribeConfigs and the configs it returns;
 * cluster_tail.c: serve's tail thread and the statistics it reads; cluster_conf.c: the
 * client's configuration file.
 */
#ifndef SS_SOURCE_CLUSTER_INT_H
#define SS_SOURCE_CLUSTER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "source/cluster.h"

struct ss_cluster {
	rd_kafka_t      *rk;
	rd_kafka_topic_t *rkt;         /* the metadata topic's handle (the simple consumer's) */
	char            *bootstrap;
	int64_t          timeout_ms;
	int64_t          deadline_ms;  /* 0: none (a tail) */
	double           t_deadline;   /* ss_mono() at which it passes; 0: none */
	const atomic_bool *cancel;     /* NULL: none */
	pthread_mutex_t  emu;          /* guards the last error, set from librdkafka's threads */
	rd_kafka_resp_err_t last_err;
	char             last_reason[256];
	int32_t          rlmm_parts;   /* cached, 0 unknown */
	struct ss_cluster_tail *tail;  /* the tail this client serves, for stats_cb; NULL one-shot */
	char            *topic;        /* the metadata topic: __remote_log_metadata (benchmarks: another) */
};

/* A client for o; with tail, the tail's (no deadline, statistics to the tail). */
int  ss_cluster_new(struct ss_cluster **out, const struct ss_cluster_opts *o, struct ss_cluster_tail *tail,
		    char *err, size_t errlen);
/* "cluster HOSTS: what (reason)": the reason is the client's last error when the call
 * itself only says it timed out. Returns the errno for it. */
int  ss_cluster_fail(struct ss_cluster *c, rd_kafka_resp_err_t e, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The cancel flag or the deadline: -ECANCELED / -ETIMEDOUT with err saying what was being
 * done; else 0. */
int  ss_cluster_check_stop(struct ss_cluster *c, char *err, size_t errlen, const char *doing);
/* The client's last error from librdkafka's threads (error_cb), copied under its lock. */
void ss_cluster_last_error(struct ss_cluster *c, rd_kafka_resp_err_t *err, char *reason, size_t len);
/* The next wait's slice in ms: at most 250, never past until or the deadline. */
int  ss_cluster_slice_ms(const struct ss_cluster *c, double until);
/* The tail's statistics callback (cluster_tail.c), set on a tail's client by ss_cluster_new. */
int  ss_cluster_tail_stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque);

#endif
