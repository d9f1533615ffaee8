/*
 * The broker's delete-lag gauges against the true delete lag (issue 27, KAFKA-21098).
 *
 * Kafka's RemoteDeleteLagSegments/Bytes (kafka.server:type=BrokerTopicMetrics) are per
 * (broker, topic): the sum, over the topic's partitions the broker leads, of what each
 * partition's expiration pass last recorded. On 3.7.0 to 4.3.1 a pass still running when the
 * partition moves to another leader records its value after the move removed it
 * (updateRemoteDeleteLagWith has no isCancelled() guard; the fix, apache/kafka#23471, is in
 * 4.4.0), and nothing removes it again: the old leader's gauge keeps a backlog that is not
 * there. PHANTOM_DELETE_LAG says so, for one broker and one topic, when its gauge reports more
 * than the true delete lag (ss_eval.delete_lag) of every partition of the topic it leads, by
 * the metadata log, adds up to, plus what finished deleting within SS_DELLAG_SLACK_MS (a gauge
 * read then may still have counted it).
 *
 * Pure: the scan hands in the evaluated partitions and the metadata log's leaders, after
 * every partition is evaluated.
 */
#ifndef SS_EVAL_DELLAG_H
#define SS_EVAL_DELLAG_H

#include <stdbool.h>
#include <stdint.h>

#include "eval/eval.h"
#include "eval/gauges.h"

/* How long before the scan's clock a finished delete may still be in a gauge read, and how
 * far from it the gauges may have been read for a comparison at all. */
#define SS_DELLAG_SLACK_MS 600000LL

/* One partition of the topic in the metadata log, and this broker's replica of it in the
 * scan (ev NULL: not among the scanned log dirs, or not evaluated). */
struct ss_dellag_member {
	int32_t               partition;
	int32_t               leader;        /* -1: none */
	int32_t               leader_epoch;
	const struct ss_eval *ev;
};

struct ss_dellag_input {
	const char                   *topic;
	int32_t                       node_id;      /* the broker; must be known (>= 0) to compare */
	const struct ss_broker_gauges *gauges;      /* that broker's (ok or not) */
	const struct ss_topic_gauges *tg;           /* its gauges for the topic; NULL: none */
	bool                          image;        /* the metadata log knows the topic's partitions */
	const struct ss_dellag_member *members;     /* every partition of the topic (image) */
	uint32_t                      n_members;
	const struct ss_eval_release *release;      /* NULL: unknown */
	int64_t                       now_ms;
};

/* Fill *out (zeroed by the caller; free with ss_topic_dellag_free). 0 or -ENOMEM. */
int  ss_eval_topic_delete_lag(const struct ss_dellag_input *in, struct ss_topic_dellag *out);
void ss_topic_dellag_free(struct ss_topic_dellag *t);

#endif
