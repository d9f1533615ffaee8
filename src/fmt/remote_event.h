/*
 * The vocabulary of remote log metadata: segment and partition-delete states and one
 * event as both input parsers produce it (fmt/ndjson.h from the --remote-state file,
 * fmt/rlmm.h from __remote_log_metadata records). The store that replays events
 * (eval/remote.h) and the parsers share it; the parsers know nothing of the store.
 * Kafka: storage/src/main/java/org/apache/kafka/server/log/remote/storage/
 * RemoteLogSegmentState.java, RemotePartitionDeleteState.java.
 */
#ifndef SS_FMT_REMOTE_EVENT_H
#define SS_FMT_REMOTE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/names.h"

/* RemoteLogSegmentState byte ids, plus DANGLING (4) as proposed with KAFKA-17428. */
enum ss_rseg_state {
	SS_RSEG_COPY_STARTED    = 0,
	SS_RSEG_COPY_FINISHED   = 1,
	SS_RSEG_DELETE_STARTED  = 2,
	SS_RSEG_DELETE_FINISHED = 3,
	SS_RSEG_DANGLING        = 4,
};
#define SS_RSEG_NSTATES 5

/* RemotePartitionDeleteState byte ids; SS_RPART_NONE when no delete event was seen. */
enum ss_rpart_state {
	SS_RPART_NONE             = -1,
	SS_RPART_DELETE_MARKED    = 0,
	SS_RPART_DELETE_STARTED   = 1,
	SS_RPART_DELETE_FINISHED  = 2,
};

const char *ss_rseg_state_name(int state);           /* "COPY_SEGMENT_STARTED"...; "?" */
int         ss_rseg_state_parse(const char *s, size_t len);   /* state or -1 */
const char *ss_rpart_state_name(int state);          /* "DELETE_PARTITION_MARKED"... */
int         ss_rpart_state_parse(const char *s, size_t len);

enum ss_rev_type {
	SS_REV_SEGMENT = 0,           /* RemoteLogSegmentMetadataRecord (add)       */
	SS_REV_UPDATE = 1,            /* RemoteLogSegmentMetadataUpdateRecord        */
	SS_REV_PARTITION_DELETE = 2,  /* RemotePartitionDeleteMetadataRecord        */
	SS_REV_SNAPSHOT = 3,          /* RemoteLogSegmentMetadataSnapshotRecord: carries no
				       * partition; Kafka refuses it, so does the replay */
};

/*
 * One event as both readers produce it. Strings are not NUL-terminated and need only
 * live for the duration of the call that receives the event. Fields a type does not carry are ignored.
 */
struct ss_remote_event {
	enum ss_rev_type type;
	const char *topic;        size_t topic_len;
	int32_t     partition;
	bool        has_topic_id;
	uint8_t     topic_id[16];
	const char *segment_id;   size_t segment_id_len;  /* text: as given, or base64url */
	bool        has_id_bytes;                          /* from the metadata topic */
	uint8_t     id_bytes[16];
	int64_t     start_offset, end_offset;              /* segment */
	int64_t     size_bytes;                            /* segment */
	int64_t     max_timestamp_ms;                      /* segment */
	const struct ss_epoch_entry *epochs;               /* segment: epoch -> start offset */
	uint32_t    n_epochs;
	int32_t     broker_id;
	int64_t     event_timestamp_ms;
	int         state;        /* ss_rseg_state, or ss_rpart_state for PARTITION_DELETE */
};

/* Where a parser hands each event: 0 to go on, > 0 when the consumer dropped it (and
 * said why in msg), < 0 to stop with that error (msg says why, or is empty). */
typedef int (*ss_remote_event_fn)(void *arg, const struct ss_remote_event *ev, char *msg, size_t msglen);

#endif
