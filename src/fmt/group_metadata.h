/*
 * __consumer_offsets records (the classic group coordinator's records,
 * group-coordinator/src/main/resources/common/message/OffsetCommitKey.json,
 * OffsetCommitValue.json, GroupMetadataKey.json, GroupMetadataValue.json; the framing is
 * CoordinatorRecordSerde: key = int16 record type + the key struct, value = int16 version
 * + the value struct, null value = tombstone). Pure: no I/O.
 *
 * Key types: 0 and 1 OffsetCommitKey (v0-1), 2 GroupMetadataKey; higher types are the new
 * consumer/share group records (KIP-848), framed the same way but not decoded here
 * (known = false).
 */
#ifndef SS_FMT_GROUP_METADATA_H
#define SS_FMT_GROUP_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/kmsg.h"

#define SS_GM_OFFSET_COMMIT_V0 0
#define SS_GM_OFFSET_COMMIT_V1 1
#define SS_GM_GROUP_METADATA   2

struct ss_gm_key {
	int16_t          type;     /* the key's version = record type */
	bool             known;    /* type 0..2 decoded */
	struct ss_kbytes group, topic;   /* topic: offset commits only */
	int32_t          partition;
};

struct ss_gm_offset {
	int16_t          version;  /* 0..4 */
	int64_t          offset;
	int32_t          leader_epoch;      /* v3+, else -1 */
	struct ss_kbytes metadata;
	int64_t          commit_timestamp;
	int64_t          expire_timestamp;  /* v1 only, else -1 */
	bool             has_topic_id;      /* v4+ tag 0 (Kafka 4.x, KIP-848 commits by topic id) */
	uint8_t          topic_id[16];
	uint32_t         unknown_tags;
};

struct ss_gm_member {
	struct ss_kbytes member_id, group_instance_id, client_id, client_host;
	int32_t          rebalance_timeout; /* v1+, else -1 */
	int32_t          session_timeout;
	struct ss_kbytes subscription, assignment;
};

struct ss_gm_group {
	int16_t          version;  /* 0..4 */
	struct ss_kbytes protocol_type, protocol, leader;
	int32_t          generation;
	int64_t          current_state_timestamp;   /* v2+, else -1 */
	int32_t          n_members;
	struct ss_gm_member *members;               /* malloc'd: ss_gm_group_free */
	uint32_t         unknown_tags;
};

/* 0, or SEGSCAN_ETRUNC / SEGSCAN_ESCHEMA (bytes left over, null where not allowed) /
 * SEGSCAN_EVARINT. A type above 2 is 0 with known = false. */
int ss_gm_decode_key(const uint8_t *buf, size_t len, struct ss_gm_key *k);
/* OffsetCommitValue: SEGSCAN_ESCHEMA also for a version above 4. */
int ss_gm_decode_offset(const uint8_t *buf, size_t len, struct ss_gm_offset *v);
/* GroupMetadataValue (-ENOMEM possible). Call ss_gm_group_free after either result. */
int ss_gm_decode_group(const uint8_t *buf, size_t len, struct ss_gm_group *g);
void ss_gm_group_free(struct ss_gm_group *g);

#endif
