/*
 * --broker-metrics: a broker's own tiering gauges, read where they are: its JMX-exporter
 * endpoint (Prometheus text, fmt/promtext.h) through the one HTTP client (source/http.h),
 * delivered as struct ss_broker_gauges (eval/gauges.h) for the evaluator and the outputs.
 *
 * The four series, per topic (the label topic_label, "topic" by default), are by default
 * the names the Prometheus JMX exporter's example Kafka rules (kafka-kraft-3_0_0.yml, the
 * rule "kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+)><>Value" with lowercaseOutputName)
 * give kafka.server:type=BrokerTopicMetrics,name=RemoteCopyLagSegments,topic=T and its
 * siblings, as a real jmx_prometheus_javaagent 1.0.1 on Kafka 4.3.1 writes them
 * (tests/fixtures/promtext/):
 *
 *   kafka_server_brokertopicmetrics_remotecopylagsegments{topic="orders"} 3.0
 *   kafka_server_brokertopicmetrics_remotecopylagbytes{topic="orders"} 996.0
 *   kafka_server_brokertopicmetrics_remotedeletelagsegments{topic="orders"} 0.0
 *   kafka_server_brokertopicmetrics_remotedeletelagbytes{topic="orders"} 0.0
 *
 * A sample without the topic label (the broker-wide aggregate) is not a topic's. A value
 * that is not an integer (NaN, Inf, 2.5) or two samples of one topic's series that differ
 * (a duplicate series with other labels) leave that gauge absent, never a guess. An
 * endpoint that cannot be read, answers other than 200, or does not parse: ok false, its
 * error one escaped line, every gauge of that broker unknown (which is not 0).
 */
#ifndef SS_SOURCE_BROKER_METRICS_H
#define SS_SOURCE_BROKER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/gauges.h"

struct ss_httpconf;

struct ss_bm_names {
	const char *copy_segments, *copy_bytes, *delete_segments, *delete_bytes;
	const char *topic_label;
};

extern const struct ss_bm_names ss_bm_default_names;

/* "COPY_SEGMENTS,COPY_BYTES,DELETE_SEGMENTS,DELETE_BYTES[,TOPIC_LABEL]": metric names
 * ([a-zA-Z_:][a-zA-Z0-9_:]*) and a label name. *store is malloc'd and holds the strings
 * out points into (free it). 0 or -EINVAL (err says why), -ENOMEM. */
int ss_bm_names_parse(const char *spec, struct ss_bm_names *out, char **store, char *err, size_t errlen);

struct ss_bm_opts {
	int32_t                   node_id;      /* -1: the scan's only broker */
	const char               *url;
	const struct ss_bm_names *names;        /* NULL: ss_bm_default_names */
	const struct ss_httpconf *http_conf;    /* --http.config.file, or NULL */
	long                      timeout_ms;   /* the whole read, connecting included */
	size_t                    max_bytes;    /* 0: 64 MiB */
	bool                    (*cancelled)(void *arg);
	void                     *cancel_arg;
	int64_t                   now_ms;       /* read_at_ms */
};

/* One broker's gauges: *out is always an object (ok false, error set, when the endpoint
 * could not be read or parsed) unless the return is -ENOMEM or -ECANCELED. */
int ss_bm_load(const struct ss_bm_opts *o, struct ss_broker_gauges **out);

/* Pure: the gauges from an exposition text, into a new object (ok true), or an error
 * (-EBADMSG, -E2BIG with "FNAME:LINE: problem" in err; -ENOMEM). */
int ss_bm_from_text(const char *buf, size_t len, const char *fname, const struct ss_bm_names *names,
		    struct ss_broker_gauges **out, char *err, size_t errlen);

/* An object that says the gauges are unknown (ok false) with why (copied, escaped). */
int ss_bm_failed(int32_t node_id, const char *url, int64_t now_ms, const char *why, struct ss_broker_gauges **out);

void ss_bm_free(struct ss_broker_gauges *g);

/* The topic's entry, or NULL (none in the endpoint, or g not ok). */
const struct ss_topic_gauges *ss_bm_topic(const struct ss_broker_gauges *g, const char *topic);

#endif
