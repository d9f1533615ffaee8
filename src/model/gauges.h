/*
 * What a broker itself reports about its tiering, per topic: the RemoteCopyLag* and
 * RemoteDeleteLag* gauges of kafka.server:type=BrokerTopicMetrics, as read from that broker's
 * JMX-exporter endpoint (--broker-metrics). Kafka publishes these per topic only, summed
 * over the topic's partitions the broker leads (BrokerTopicAggregatedMetric), so they are a
 * fact about one (broker, topic), never about one partition.
 *
 * Delivered by a context source (source/broker_metrics.c), read by the evaluator (src/eval/,
 * through eval/gauges.h), which never fetches anything itself, and by the outputs (through
 * model/results.h: the results view lists each broker's gauges once, per topic, never on a
 * partition's row). Read-only once loaded.
 */
#ifndef SS_MODEL_GAUGES_H
#define SS_MODEL_GAUGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One gauge value: absent when the endpoint had no sample of it for the topic. */
struct ss_gauge {
	bool    present;
	int64_t value;        /* the sample, integral (a non-integral sample is not present) */
};

struct ss_topic_gauges {
	const char     *topic;                    /* owned by the table */
	struct ss_gauge copy_lag_segments, copy_lag_bytes;
	struct ss_gauge delete_lag_segments, delete_lag_bytes;
};

/* One broker's gauges. ok == false: the endpoint could not be read or parsed (error says
 * why): every gauge of that broker is unknown, which is not the same as 0. */
struct ss_broker_gauges {
	int32_t                 node_id;          /* the broker they belong to; -1 = the scan's only broker */
	const char             *url;              /* where they were read (credentials removed) */
	bool                    ok;
	const char             *error;            /* !ok: one line, escaped */
	int64_t                 read_at_ms;       /* wall clock when read */
	size_t                  n;
	const struct ss_topic_gauges *topics;     /* ascending by strcmp(topic) */
};

#endif
