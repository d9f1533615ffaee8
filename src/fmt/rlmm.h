/*
 * __remote_log_metadata record values (docs/kafka-format.md §6): the BytesApiMessageSerde
 * frame (uvarint frame version 1, apiKey, version) and the flexible-version bodies of
 * RemoteLogSegmentMetadataRecord (0), ...UpdateRecord (1), RemotePartitionDeleteMetadata-
 * Record (2) and ...SnapshotRecord (3), versions 0 and 1. Pure: no I/O.
 *
 * The decoded record carries a struct ss_remote_event in the same representation the
 * NDJSON reader produces, so both feed the same replay (eval/remote.h). The topic name in it
 * points into the input buffer.
 */
#ifndef SS_FMT_RLMM_H
#define SS_FMT_RLMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/remote_event.h"

#define SS_RLMM_SEGMENT          0
#define SS_RLMM_SEGMENT_UPDATE   1
#define SS_RLMM_PARTITION_DELETE 2
#define SS_RLMM_SEGMENT_SNAPSHOT 3

struct ss_rlmm_rec {
	int      api_key;
	int      version;
	struct ss_remote_event ev;
	char     segment_id[23];        /* base64url of ev.id_bytes (ev.segment_id points here) */
	struct ss_epoch_entry *epochs;  /* owned (ev.epochs) */
	bool     has_custom_metadata;
	uint32_t custom_metadata_len;
	/* tagged fields of later Kafka (KIP-1058 and others) */
	bool     has_txn_index_empty;
	bool     txn_index_empty;
	int32_t  broker_leader_epoch;   /* -1 when absent */
	int64_t  update_end_offset;     /* update record tag 1; -1 when absent */
	uint32_t unknown_tags;          /* tagged fields skipped, all levels */
};

/*
 * Decode one record value. 0, or SEGSCAN_ETRUNC (the value ends inside a field),
 * SEGSCAN_ESCHEMA (frame version != 1, unknown apiKey/version, a null non-nullable
 * field, an unknown state byte, bytes after the message), SEGSCAN_EVARINT, -ENOMEM.
 * Call ss_rlmm_rec_free() after success (harmless after failure).
 */
int  ss_rlmm_decode(const uint8_t *buf, size_t len, struct ss_rlmm_rec *out);
void ss_rlmm_rec_free(struct ss_rlmm_rec *r);

/* org.apache.kafka.common.utils.Utils.murmur2 */
uint32_t ss_murmur2(const void *data, size_t len);

/* RemoteLogMetadataTopicPartitioner.metadataPartition for a user partition. */
int32_t ss_rlmm_metadata_partition(const uint8_t topic_id[16], int32_t partition, int32_t num_partitions);

#endif
