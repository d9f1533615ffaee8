/*
 * KRaft metadata records (__cluster_metadata-0): a pure decoder over the *value* of one
 * record of an ordinary v2 record batch (src/fmt/batch.h walks batches and records).
 *
 * The value is a frame (server-common/.../serialization/AbstractApiMessageSerde.java):
 *   unsigned varint frame version (must be 1), unsigned varint api key, unsigned varint
 *   record version, then the message body in the flexible-version encoding: compact
 *   strings and arrays (unsigned varint length + 1, 0 = null), 16-byte UUIDs, and a
 *   tagged-field section (unsigned varint count, then tag, size, bytes) at the end of
 *   every struct. Schemas: metadata/src/main/resources/common/metadata/<Name>.json,
 *   checked against the 4.4.0 jar's generated classes (HIGHEST_SUPPORTED_VERSION and the
 *   read() method's tag switch), which added RegisterBrokerRecord v4 and
 *   BrokerRegistrationChangeRecord v3 (CordonedLogDirs) beyond the JSON of the mirror.
 *
 * Nothing is allocated and nothing is copied: strings and arrays are views into the
 * caller's buffer, valid as long as it is. Every length is checked against the end of
 * the buffer before use; no input can make the decoder read outside [buf, buf + len).
 */
#ifndef SS_FMT_KRAFT_H
#define SS_FMT_KRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Api keys of metadata records (MetadataRecordType in the 4.4.0 jar). */
enum ss_kraft_key {
	SS_KR_REGISTER_BROKER          = 0,
	SS_KR_UNREGISTER_BROKER        = 1,
	SS_KR_TOPIC                    = 2,
	SS_KR_PARTITION                = 3,
	SS_KR_CONFIG                   = 4,
	SS_KR_PARTITION_CHANGE         = 5,
	SS_KR_ACCESS_CONTROL           = 6,  /* removed; kept for the count */
	SS_KR_FENCE_BROKER             = 7,
	SS_KR_UNFENCE_BROKER           = 8,
	SS_KR_REMOVE_TOPIC             = 9,
	SS_KR_DELEGATION_TOKEN         = 10,
	SS_KR_USER_SCRAM_CREDENTIAL    = 11,
	SS_KR_FEATURE_LEVEL            = 12,
	SS_KR_CLIENT_QUOTA             = 14,
	SS_KR_PRODUCER_IDS             = 15,
	SS_KR_BROKER_REGISTRATION_CHANGE = 17,
	SS_KR_ACCESS_CONTROL_ENTRY     = 18,
	SS_KR_REMOVE_ACCESS_CONTROL_ENTRY = 19,
	SS_KR_NO_OP                    = 20,
	SS_KR_ZK_MIGRATION_STATE       = 21,
	SS_KR_REMOVE_USER_SCRAM_CREDENTIAL = 22,
	SS_KR_BEGIN_TRANSACTION        = 23,
	SS_KR_END_TRANSACTION          = 24,
	SS_KR_ABORT_TRANSACTION        = 25,
	SS_KR_REMOVE_DELEGATION_TOKEN  = 26,
	SS_KR_REGISTER_CONTROLLER      = 27,
	SS_KR_CLEAR_ELR                = 28,
};
/* Counters are kept per api key below this bound; higher keys share the last slot. */
#define SS_KRAFT_KEY_SLOTS 64

/* A compact string: len < 0 is null. Not NUL-terminated. */
struct ss_kstr {
	const char *p;
	int32_t     len;
};

/* A compact array of fixed-size elements (int32 big-endian, or 16-byte UUIDs): n < 0 is
 * null (or, for a tagged field, absent). */
struct ss_karr {
	const uint8_t *p;
	int32_t        n;
};

/* A compact array of structs, validated by the decoder; walk it with the iterators. */
struct ss_klist {
	const uint8_t *p;    /* first element */
	const uint8_t *end;  /* end of the last element */
	int32_t        n;
	int16_t        version;
};

int32_t ss_karr_i32(struct ss_karr a, int32_t i);                 /* element i, 0 <= i < n */
const uint8_t *ss_karr_uuid(struct ss_karr a, int32_t i);         /* 16 bytes */

/* RegisterBrokerRecord.EndPoints / .Features elements. */
struct ss_kraft_endpoint {
	struct ss_kstr name, host;
	uint16_t       port;
	int16_t        security_protocol;
};
struct ss_kraft_feature {
	struct ss_kstr name;
	int16_t        min_version, max_version;
};
struct ss_kiter {
	const uint8_t *p, *end;
	int32_t        left;
	int16_t        version;
};
void ss_kiter_init(struct ss_kiter *it, const struct ss_klist *l);
/* 1: *out filled; 0: no more; < 0: the list is malformed (cannot happen for a list the
 * decoder accepted). */
int ss_kiter_endpoint(struct ss_kiter *it, struct ss_kraft_endpoint *out);
int ss_kiter_feature(struct ss_kiter *it, struct ss_kraft_feature *out);

/* The decoded record. Which member of `u` is valid depends on api_key. */
struct ss_kraft_rec {
	int16_t api_key;
	int16_t version;
	bool    known;           /* false: a valid frame of a type/version not decoded */
	union {
		struct {         /* TopicRecord v0 */
			struct ss_kstr name;
			uint8_t        topic_id[16];
		} topic;
		struct {         /* RemoveTopicRecord v0 */
			uint8_t topic_id[16];
		} remove_topic;
		struct {         /* PartitionRecord v0-2 */
			int32_t        partition_id;
			uint8_t        topic_id[16];
			struct ss_karr replicas, isr, removing, adding;
			int32_t        leader;
			int8_t         leader_recovery_state;   /* tag 0, default 0 */
			int32_t        leader_epoch, partition_epoch;
			struct ss_karr directories;             /* v1+; n = -1 before */
			struct ss_karr elr, last_known_elr;     /* v2+ tags 1, 2; n = -1 absent/null */
		} partition;
		struct {         /* PartitionChangeRecord v0-2: every field but the ids is tagged */
			int32_t        partition_id;
			uint8_t        topic_id[16];
			struct ss_karr isr, replicas, removing, adding;  /* tags 0, 2, 3, 4; n = -1: no change */
			int32_t        leader;                  /* tag 1, -2 = no change, -1 = none */
			int8_t         leader_recovery_state;   /* tag 5, -1 = no change */
			struct ss_karr directories;             /* tag 8, v1+ */
			struct ss_karr elr, last_known_elr;     /* tags 6, 7, v2+ */
		} change;
		struct {         /* ConfigRecord v0 */
			int8_t         resource_type;           /* ConfigResource.Type: 2 TOPIC, 4 BROKER */
			struct ss_kstr resource_name, name, value;  /* value null = delete */
		} config;
		struct {         /* RegisterBrokerRecord v0-4 */
			int32_t         broker_id;
			bool            is_migrating_zk;        /* v2+ */
			uint8_t         incarnation_id[16];
			int64_t         broker_epoch;
			struct ss_klist endpoints, features;
			struct ss_kstr  rack;
			bool            fenced;
			bool            in_controlled_shutdown; /* v1+ */
			struct ss_karr  log_dirs;               /* tag 0, v3+ */
			struct ss_karr  cordoned_log_dirs;      /* tag 1, v4+ (4.4.0 jar) */
		} reg;
		struct {         /* UnregisterBrokerRecord, FenceBrokerRecord, UnfenceBrokerRecord v0 */
			int32_t broker_id;
			int64_t broker_epoch;
		} broker;
		struct {         /* BrokerRegistrationChangeRecord v0-3 */
			int32_t        broker_id;
			int64_t        broker_epoch;
			int8_t         fenced;                  /* tag 0: 1 fence, -1 unfence, 0 none */
			int8_t         in_controlled_shutdown;  /* tag 1, v1+: 1 yes, 0 none */
			struct ss_karr log_dirs;                /* tag 2, v2+ */
			struct ss_karr cordoned_log_dirs;       /* tag 3, v3+ (4.4.0 jar) */
		} change_broker;
		struct {         /* FeatureLevelRecord v0 */
			struct ss_kstr name;
			int16_t        level;                   /* 0 = removed */
		} feature;
		struct {         /* BeginTransactionRecord.Name / AbortTransactionRecord.Reason (tag 0) */
			struct ss_kstr text;
		} txn;
	} u;
};

/*
 * Decode one record value buf[0..len).
 *   0   decoded; rec->known tells whether the body was decoded (false: a valid frame of
 *       another api key, or of a version newer than this decoder knows: skip and count)
 *   < 0 SEGSCAN_ESCHEMA (frame version not 1, null where the schema forbids it, bytes
 *       left over, a field that cannot be), SEGSCAN_ETRUNC (ends inside a field),
 *       SEGSCAN_EVARINT (a varint longer than 5 bytes or beyond 32 bits).
 */
int ss_kraft_decode(const uint8_t *buf, size_t len, struct ss_kraft_rec *rec);

/* Highest version of an api key this decoder reads, or -1 for a key it does not decode. */
int ss_kraft_max_version(int api_key);
/* "TopicRecord", ...; "UnknownRecord" for keys it has no name for. */
const char *ss_kraft_key_name(int api_key);

/*
 * Control records (clients/.../record/ControlRecordType.java): the key of a record in a
 * control batch is int16 version, int16 type.
 */
enum ss_kraft_control {
	SS_KC_ABORT = 0, SS_KC_COMMIT = 1, SS_KC_LEADER_CHANGE = 2, SS_KC_SNAPSHOT_HEADER = 3,
	SS_KC_SNAPSHOT_FOOTER = 4, SS_KC_KRAFT_VERSION = 5, SS_KC_KRAFT_VOTERS = 6,
};
/* Type of a control record from its key: >= 0, or SEGSCAN_ETRUNC / SEGSCAN_ESCHEMA (null key). */
int ss_kraft_control_type(const uint8_t *key, int32_t key_len);

#endif
