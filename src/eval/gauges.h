/*
 * What a broker itself reports about its tiering, per topic: the RemoteCopyLag* and
 * RemoteDeleteLag* gauges of kafka.server:type=BrokerTopicMetrics, as read from that broker's
 * JMX-exporter endpoint (--broker-metrics). Kafka publishes these per topic only, summed
 * over the topic's partitions the broker leads (BrokerTopicAggregatedMetric), so they are a
 * fact about one (broker, topic), never about one partition.
 *
 * Delivered by a context source (source/broker_metrics.c), read by the evaluator (src/eval/),
 * which never fetches anything itself: ss_eval_input.broker_gauges and .topic_gauges.
 * Read-only once loaded. The types are model/gauges.h's, so that the results view (which
 * never reaches into eval/) lists them for the outputs too; this header stays the
 * evaluator's name for them.
 */
#ifndef SS_EVAL_GAUGES_H
#define SS_EVAL_GAUGES_H

#include "model/gauges.h"

#endif
