/*
 * The values of KRaft's control records (a record in a control batch whose key's type,
 * ss_kraft_control_type in fmt/kraft.h, is 2..6), as Kafka reads them in
 * ControlRecordUtils (clients/src/main/java/org/apache/kafka/common/record/
 * ControlRecordUtils.java) and DumpLogSegments prints them through the generated
 * *JsonConverter. Schemas (clients/src/main/resources/common/message/, each valid version 0,
 * flexible 0+, the message's own first field an int16 Version):
 *
 *   LEADER_CHANGE (2)    LeaderChangeMessage: Version, LeaderId int32, Voters []Voter,
 *                        GrantingVoters []Voter; Voter = {VoterId int32}
 *   SNAPSHOT_HEADER (3)  SnapshotHeaderRecord: Version, LastContainedLogTimestamp int64
 *   SNAPSHOT_FOOTER (4)  SnapshotFooterRecord: Version
 *   KRAFT_VERSION (5)    KRaftVersionRecord: Version, KRaftVersion int16
 *   KRAFT_VOTERS (6)     VotersRecord: Version, Voters []{VoterId int32, VoterUuid uuid,
 *                        Endpoints []{Name string, Host string, Port uint16},
 *                        KRaftVersionFeature {MinSupportedVersion int16, MaxSupportedVersion int16}}
 *
 * Kafka reads each with the version-0 schema whatever its Version field says, so this does
 * too. ss_kctl_decode checks the whole value (every array, string and tagged-field section,
 * nothing left over); the iterators then walk the arrays it checked. Pure: no I/O.
 */
#ifndef SS_FMT_KRAFT_CONTROL_H
#define SS_FMT_KRAFT_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/kmsg.h"

/* An array checked by ss_kctl_decode: n elements in [p, end). */
struct ss_kctl_arr {
	int32_t        n;
	const uint8_t *p, *end;
};

struct ss_kctl {
	int     type;            /* SS_KC_LEADER_CHANGE .. SS_KC_KRAFT_VOTERS */
	int16_t version;         /* the message's Version field */
	union {
		struct { int32_t leader_id; struct ss_kctl_arr voters, granting; } leader_change;
		struct { int64_t last_contained_log_timestamp; } header;
		struct { int16_t kraft_version; } kraft_version;
		struct { struct ss_kctl_arr voters; } voters;
	} u;
};

struct ss_kctl_endpoint {
	struct ss_kbytes name, host;
	uint16_t         port;
};

/* A voter: LeaderChangeMessage's has only id; VotersRecord's has all of it. */
struct ss_kctl_voter {
	int32_t            id;
	uint8_t            dir_id[16];
	struct ss_kctl_arr endpoints;
	int16_t            min_version, max_version;
};

/* Does this control type have a value decoded here (2..6)? */
bool ss_kctl_known(int type);
/* The name DumpLogSegments prints before the JSON ("LeaderChange", "SnapshotHeader", ...). */
const char *ss_kctl_name(int type);
/* 0, or SEGSCAN_ETRUNC / SEGSCAN_EVARINT / SEGSCAN_ESCHEMA (a null value, bytes left over,
 * a type not decoded here). Points into buf. */
int ss_kctl_decode(int type, const uint8_t *buf, size_t len, struct ss_kctl *out);

/* The elements of an array of ss_kctl_decode's, in order: each call fills *v / *e and
 * returns 1, then 0 at the end. `type` is the record's (the voter's shape depends on it). */
struct ss_kctl_iter {
	struct ss_kmsg r;
	int32_t        left;
	int            type;
};
void ss_kctl_iter_init(struct ss_kctl_iter *it, const struct ss_kctl_arr *a, int type);
int  ss_kctl_next_voter(struct ss_kctl_iter *it, struct ss_kctl_voter *v);
int  ss_kctl_next_endpoint(struct ss_kctl_iter *it, struct ss_kctl_endpoint *e);

#endif
