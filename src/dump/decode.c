/*
 * --decode: a record of an internal topic as what it means, each decoder the pure one in
 * src/fmt/ (rlmm.h, kraft.h, group_metadata.h, txn_state.h). Field names follow Kafka's
 * own JSON converters where DumpLogSegments prints JSON (--offsets-decoder,
 * --cluster-metadata-decoder: the generated *JsonConverter names, camelCase) so that its
 * output and ours compare field by field; the RLMM and transaction-state decoders print
 * Java toString()/prose there, so ours use the names of docs/contract.md.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/endian.h"
#include "dump/dump_int.h"
#include "fmt/group_metadata.h"
#include "fmt/kraft.h"
#include "fmt/kraft_control.h"
#include "fmt/names.h"
#include "fmt/rlmm.h"
#include "fmt/txn_state.h"
#include "segscan.h"

static void kstr(struct ss_dout *o, const char *k, struct ss_kbytes s)
{
	ss_dj_key(o, k);
	dd_strn(o, s.p, s.len);
}

static void uuid(struct ss_dout *o, const char *k, const uint8_t id[16])
{
	char t[23];
	ss_uuid_format(id, t);
	ss_dj_kstr(o, k, t);
}

static void err_obj(struct ss_dump *d, const struct ss_record *r, const char *what, int e)
{
	char why[160];
	snprintf(why, sizeof(why), "%s at offset %lld: %s", what, (long long)r->offset, segscan_strerror(e));
	ss_dj_obj(&d->out);
	ss_dj_kstr(&d->out, "error", why);
	ss_dj_obj_end(&d->out);
	d->errors++;
	if (d->status < SS_DUMP_DATA)
		d->status = SS_DUMP_DATA;
}

/* ---- __remote_log_metadata ---- */
static const char *const rlmm_names[] = { "RemoteLogSegmentMetadataRecord", "RemoteLogSegmentMetadataUpdateRecord",
					  "RemotePartitionDeleteMetadataRecord", "RemoteLogSegmentMetadataSnapshotRecord" };

static void dec_rlmm(struct ss_dump *d, const struct ss_record *r)
{
	struct ss_dout *o = &d->out;
	struct ss_rlmm_rec m;
	memset(&m, 0, sizeof m);
	int e = r->value_len < 0 ? SEGSCAN_ESCHEMA : ss_rlmm_decode(r->value, (size_t)r->value_len, &m);
	if (e) {
		err_obj(d, r, "remote log metadata", e);
		ss_rlmm_rec_free(&m);
		return;
	}
	const struct ss_remote_event *ev = &m.ev;
	ss_dj_obj(o);
	ss_dj_kstr(o, "record", m.api_key >= 0 && m.api_key < 4 ? rlmm_names[m.api_key] : "unknown");
	ss_dj_ki64(o, "api_key", m.api_key);
	ss_dj_ki64(o, "version", m.version);
	if (ev->type != SS_REV_SNAPSHOT) {
		ss_dj_key(o, "topic");
		dd_strn(o, (const uint8_t *)ev->topic, (int32_t)ev->topic_len);
		ss_dj_ki64(o, "partition", ev->partition);
		if (ev->has_topic_id)
			uuid(o, "topic_id", ev->topic_id);
	}
	if (ev->type == SS_REV_PARTITION_DELETE) {
		ss_dj_kstr(o, "state", ss_rpart_state_name(ev->state));
	} else {
		ss_dj_kstr(o, "segment_id", m.segment_id);
		ss_dj_kstr(o, "state", ss_rseg_state_name(ev->state));
	}
	if (ev->type == SS_REV_SEGMENT || ev->type == SS_REV_SNAPSHOT) {
		ss_dj_ki64(o, "start_offset", ev->start_offset);
		ss_dj_ki64(o, "end_offset", ev->end_offset);
		ss_dj_ki64(o, "max_timestamp_ms", ev->max_timestamp_ms);
		ss_dj_ki64(o, "size_bytes", ev->size_bytes);
		ss_dj_key(o, "leader_epochs");
		ss_dj_arr(o);
		for (uint32_t i = 0; i < ev->n_epochs; i++) {
			ss_dj_arr(o);
			ss_dj_i64(o, ev->epochs[i].epoch);
			ss_dj_i64(o, ev->epochs[i].start_offset);
			ss_dj_arr_end(o);
		}
		ss_dj_arr_end(o);
		if (m.has_custom_metadata)
			ss_dj_ki64(o, "custom_metadata_size", m.custom_metadata_len);
		if (m.has_txn_index_empty)
			ss_dj_kbool(o, "txn_index_empty", m.txn_index_empty);
	}
	ss_dj_ki64(o, "broker_id", ev->broker_id);
	ss_dj_ki64(o, "event_timestamp_ms", ev->event_timestamp_ms);
	ss_dj_obj_end(o);
	ss_rlmm_rec_free(&m);
}

/* ---- __cluster_metadata ---- */

/* "TopicRecord" -> "TOPIC_RECORD": the MetadataRecordType enum name Kafka prints. */
static void kraft_type(struct ss_dout *o, const char *camel)
{
	char t[96];
	size_t n = 0;
	for (const char *s = camel; *s && n + 2 < sizeof(t); s++) {
		if (isupper((unsigned char)*s) && s != camel)
			t[n++] = '_';
		t[n++] = (char)toupper((unsigned char)*s);
	}
	t[n] = 0;
	ss_dj_kstr(o, "type", t);
}

static void kks(struct ss_dout *o, const char *k, struct ss_kstr s)
{
	ss_dj_key(o, k);
	dd_strn(o, (const uint8_t *)s.p, s.len);
}

static void kia(struct ss_dout *o, const char *k, struct ss_karr a)
{
	ss_dj_key(o, k);
	if (a.n < 0) {
		ss_dj_null(o);
		return;
	}
	ss_dj_arr(o);
	for (int32_t i = 0; i < a.n; i++)
		ss_dj_i64(o, ss_karr_i32(a, i));
	ss_dj_arr_end(o);
}

/* A []uuid field (directories, log dirs), each as Uuid.toString. */
static void kua(struct ss_dout *o, const char *k, struct ss_karr a)
{
	char t[23];
	ss_dj_key(o, k);
	if (a.n < 0) {
		ss_dj_null(o);
		return;
	}
	ss_dj_arr(o);
	for (int32_t i = 0; i < a.n; i++) {
		ss_uuid_format(ss_karr_uuid(a, i), t);
		ss_dj_str(o, t);
	}
	ss_dj_arr_end(o);
}

/*
 * A record's "data" as the generated *JsonConverter.write writes it for its version
 * (MetadataJsonConverters, which DumpLogSegments' --cluster-metadata-decoder prints): the
 * fields in the schema's order (the metadata record schemas of Kafka's metadata module), each
 * field of the version; a tagged field only when it is not its default (null, -1, -2, 0
 * or an empty array, as the schema says), as generateNonDefaultValueCheck has it.
 */
static void kraft_partition(struct ss_dout *o, int v, const struct ss_kraft_rec *k)
{
	ss_dj_ki64(o, "partitionId", k->u.partition.partition_id);
	uuid(o, "topicId", k->u.partition.topic_id);
	kia(o, "replicas", k->u.partition.replicas);
	kia(o, "isr", k->u.partition.isr);
	kia(o, "removingReplicas", k->u.partition.removing);
	kia(o, "addingReplicas", k->u.partition.adding);
	ss_dj_ki64(o, "leader", k->u.partition.leader);
	if (k->u.partition.leader_recovery_state != 0)   /* tag 0, default 0 */
		ss_dj_ki64(o, "leaderRecoveryState", k->u.partition.leader_recovery_state);
	ss_dj_ki64(o, "leaderEpoch", k->u.partition.leader_epoch);
	ss_dj_ki64(o, "partitionEpoch", k->u.partition.partition_epoch);
	if (v >= 1)
		kua(o, "directories", k->u.partition.directories);
	if (k->u.partition.elr.n >= 0)                    /* v2+ tags 1, 2, default null */
		kia(o, "eligibleLeaderReplicas", k->u.partition.elr);
	if (k->u.partition.last_known_elr.n >= 0)
		kia(o, "lastKnownElr", k->u.partition.last_known_elr);
}

static void kraft_change(struct ss_dout *o, const struct ss_kraft_rec *k)
{
	/* every field but the ids is tagged; the defaults are "no change" */
	ss_dj_ki64(o, "partitionId", k->u.change.partition_id);
	uuid(o, "topicId", k->u.change.topic_id);
	if (k->u.change.isr.n >= 0)
		kia(o, "isr", k->u.change.isr);
	if (k->u.change.leader != -2)
		ss_dj_ki64(o, "leader", k->u.change.leader);
	if (k->u.change.replicas.n >= 0)
		kia(o, "replicas", k->u.change.replicas);
	if (k->u.change.removing.n >= 0)
		kia(o, "removingReplicas", k->u.change.removing);
	if (k->u.change.adding.n >= 0)
		kia(o, "addingReplicas", k->u.change.adding);
	if (k->u.change.leader_recovery_state != -1)
		ss_dj_ki64(o, "leaderRecoveryState", k->u.change.leader_recovery_state);
	if (k->u.change.directories.n >= 0)
		kua(o, "directories", k->u.change.directories);
	if (k->u.change.elr.n >= 0)
		kia(o, "eligibleLeaderReplicas", k->u.change.elr);
	if (k->u.change.last_known_elr.n >= 0)
		kia(o, "lastKnownElr", k->u.change.last_known_elr);
}

static void kraft_register(struct ss_dout *o, int v, const struct ss_kraft_rec *k)
{
	struct ss_kiter it;
	ss_dj_ki64(o, "brokerId", k->u.reg.broker_id);
	if (v >= 2)
		ss_dj_kbool(o, "isMigratingZkBroker", k->u.reg.is_migrating_zk);
	uuid(o, "incarnationId", k->u.reg.incarnation_id);
	ss_dj_ki64(o, "brokerEpoch", k->u.reg.broker_epoch);
	ss_dj_key(o, "endPoints");
	ss_dj_arr(o);
	struct ss_kraft_endpoint ep;
	ss_kiter_init(&it, &k->u.reg.endpoints);
	while (ss_kiter_endpoint(&it, &ep) > 0) {
		ss_dj_obj(o);
		kks(o, "name", ep.name);
		kks(o, "host", ep.host);
		ss_dj_ki64(o, "port", ep.port);
		ss_dj_ki64(o, "securityProtocol", ep.security_protocol);
		ss_dj_obj_end(o);
	}
	ss_dj_arr_end(o);
	ss_dj_key(o, "features");
	ss_dj_arr(o);
	struct ss_kraft_feature ft;
	ss_kiter_init(&it, &k->u.reg.features);
	while (ss_kiter_feature(&it, &ft) > 0) {
		ss_dj_obj(o);
		kks(o, "name", ft.name);
		ss_dj_ki64(o, "minSupportedVersion", ft.min_version);
		ss_dj_ki64(o, "maxSupportedVersion", ft.max_version);
		ss_dj_obj_end(o);
	}
	ss_dj_arr_end(o);
	kks(o, "rack", k->u.reg.rack);
	ss_dj_kbool(o, "fenced", k->u.reg.fenced);
	if (v >= 1)
		ss_dj_kbool(o, "inControlledShutdown", k->u.reg.in_controlled_shutdown);
	if (k->u.reg.log_dirs.n > 0)                      /* tag 0, v3+, default empty */
		kua(o, "logDirs", k->u.reg.log_dirs);
	if (k->u.reg.cordoned_log_dirs.n >= 0)            /* tag 1, v4+, default null */
		kua(o, "cordonedLogDirs", k->u.reg.cordoned_log_dirs);
}

static void kraft_change_broker(struct ss_dout *o, const struct ss_kraft_rec *k)
{
	ss_dj_ki64(o, "brokerId", k->u.change_broker.broker_id);
	ss_dj_ki64(o, "brokerEpoch", k->u.change_broker.broker_epoch);
	if (k->u.change_broker.fenced != 0)               /* tag 0, default 0 */
		ss_dj_ki64(o, "fenced", k->u.change_broker.fenced);
	if (k->u.change_broker.in_controlled_shutdown != 0)   /* tag 1, v1+, default 0 */
		ss_dj_ki64(o, "inControlledShutdown", k->u.change_broker.in_controlled_shutdown);
	if (k->u.change_broker.log_dirs.n > 0)            /* tag 2, v2+, default empty */
		kua(o, "logDirs", k->u.change_broker.log_dirs);
	if (k->u.change_broker.cordoned_log_dirs.n >= 0)  /* tag 3, v3+, default null */
		kua(o, "cordonedLogDirs", k->u.change_broker.cordoned_log_dirs);
}

/* The fields of a record type segscan decodes (k->known). */
static void kraft_data(struct ss_dout *o, const struct ss_kraft_rec *k)
{
	int v = k->version;
	switch (k->api_key) {
	case SS_KR_TOPIC:
		kks(o, "name", k->u.topic.name);
		uuid(o, "topicId", k->u.topic.topic_id);
		break;
	case SS_KR_REMOVE_TOPIC:
		uuid(o, "topicId", k->u.remove_topic.topic_id);
		break;
	case SS_KR_PARTITION:
		kraft_partition(o, v, k);
		break;
	case SS_KR_PARTITION_CHANGE:
		kraft_change(o, k);
		break;
	case SS_KR_CONFIG:
		ss_dj_ki64(o, "resourceType", k->u.config.resource_type);
		kks(o, "resourceName", k->u.config.resource_name);
		kks(o, "name", k->u.config.name);
		kks(o, "value", k->u.config.value);
		break;
	case SS_KR_REGISTER_BROKER:
		kraft_register(o, v, k);
		break;
	case SS_KR_UNREGISTER_BROKER:
		ss_dj_ki64(o, "brokerId", k->u.broker.broker_id);
		ss_dj_ki64(o, "brokerEpoch", k->u.broker.broker_epoch);
		break;
	case SS_KR_FENCE_BROKER:
	case SS_KR_UNFENCE_BROKER:
		ss_dj_ki64(o, "id", k->u.broker.broker_id);
		ss_dj_ki64(o, "epoch", k->u.broker.broker_epoch);
		break;
	case SS_KR_BROKER_REGISTRATION_CHANGE:
		kraft_change_broker(o, k);
		break;
	case SS_KR_FEATURE_LEVEL:
		kks(o, "name", k->u.feature.name);
		ss_dj_ki64(o, "featureLevel", k->u.feature.level);
		break;
	case SS_KR_BEGIN_TRANSACTION:
	case SS_KR_ABORT_TRANSACTION:
		if (k->u.txn.text.len >= 0)                   /* tag 0, default null */
			kks(o, k->api_key == SS_KR_BEGIN_TRANSACTION ? "name" : "reason", k->u.txn.text);
		break;
	default:   /* EndTransactionRecord, NoOpRecord: no fields */
		break;
	}
}

/* DumpLogSegments' ClusterMetadataLogMessageParser: {"type", "version", "data"}, with
 * data null for a record type or version segscan does not decode (Kafka would show its
 * fields; segscan does not know them, and an empty object would say there are none). */
static void dec_kraft(struct ss_dump *d, const struct ss_record *r)
{
	struct ss_dout *o = &d->out;
	struct ss_kraft_rec k;
	int e = r->value_len < 0 ? SEGSCAN_ESCHEMA : ss_kraft_decode(r->value, (size_t)r->value_len, &k);
	if (e) {
		err_obj(d, r, "cluster metadata record", e);
		return;
	}
	ss_dj_obj(o);
	kraft_type(o, ss_kraft_key_name(k.api_key));
	ss_dj_ki64(o, "version", k.version);
	ss_dj_key(o, "data");
	if (k.known) {
		ss_dj_obj(o);
		kraft_data(o, &k);
		ss_dj_obj_end(o);
	} else {
		ss_dj_null(o);
	}
	ss_dj_obj_end(o);
}

/* ---- KRaft control records ----
 * The field names and order of the generated LeaderChangeMessageJsonConverter,
 * SnapshotHeaderRecordJsonConverter, SnapshotFooterRecordJsonConverter,
 * KRaftVersionRecordJsonConverter and VotersRecordJsonConverter (camelCase, every field of
 * version 0, the message's own "version" first). */
static void kctl_voters(struct ss_dout *o, const char *k, const struct ss_kctl_arr *a, int type)
{
	struct ss_kctl_iter it;
	struct ss_kctl_voter v;
	ss_dj_key(o, k);
	ss_dj_arr(o);
	ss_kctl_iter_init(&it, a, type);
	while (ss_kctl_next_voter(&it, &v) > 0) {
		ss_dj_obj(o);
		ss_dj_ki64(o, "voterId", v.id);
		if (type == SS_KC_KRAFT_VOTERS) {
			uuid(o, "voterUuid", v.dir_id);
			ss_dj_key(o, "endpoints");
			ss_dj_arr(o);
			struct ss_kctl_iter ei;
			struct ss_kctl_endpoint e;
			ss_kctl_iter_init(&ei, &v.endpoints, type);
			while (ss_kctl_next_endpoint(&ei, &e) > 0) {
				ss_dj_obj(o);
				kstr(o, "name", e.name);
				kstr(o, "host", e.host);
				ss_dj_ki64(o, "port", e.port);
				ss_dj_obj_end(o);
			}
			ss_dj_arr_end(o);
			ss_dj_key(o, "kRaftVersionFeature");
			ss_dj_obj(o);
			ss_dj_ki64(o, "minSupportedVersion", v.min_version);
			ss_dj_ki64(o, "maxSupportedVersion", v.max_version);
			ss_dj_obj_end(o);
		}
		ss_dj_obj_end(o);
	}
	ss_dj_arr_end(o);
}

void dd_control_json(struct ss_dump *d, const struct ss_kctl *k)
{
	struct ss_dout *o = &d->out;
	ss_dj_obj(o);
	ss_dj_ki64(o, "version", k->version);
	switch (k->type) {
	case SS_KC_LEADER_CHANGE:
		ss_dj_ki64(o, "leaderId", k->u.leader_change.leader_id);
		kctl_voters(o, "voters", &k->u.leader_change.voters, k->type);
		kctl_voters(o, "grantingVoters", &k->u.leader_change.granting, k->type);
		break;
	case SS_KC_SNAPSHOT_HEADER:
		ss_dj_ki64(o, "lastContainedLogTimestamp", k->u.header.last_contained_log_timestamp);
		break;
	case SS_KC_KRAFT_VERSION:
		ss_dj_ki64(o, "kRaftVersion", k->u.kraft_version.kraft_version);
		break;
	case SS_KC_KRAFT_VOTERS:
		kctl_voters(o, "voters", &k->u.voters.voters, k->type);
		break;
	default:   /* SnapshotFooter: the version alone */
		break;
	}
	ss_dj_obj_end(o);
}

/* ---- the coordinator-record envelope ----
 * {"key": {"type", "decoded", "data": {...}}, "value": {"version", "data": {...}} | null}:
 * the one shape DumpLogSegments' OffsetsMessageParser and TransactionLogMessageParser
 * print, shared by dec_offsets and dec_txn. env_key_open opens the outer object and leaves
 * the key's "data" open for the caller's fields; env_key_close (its partner) closes "data"
 * and the key and names "value", whose object or null the caller writes before closing
 * the outer object. env_value_open/env_value_close pair the same way for the value. */
static void env_key_open(struct ss_dout *o, int64_t type, bool known)
{
	ss_dj_obj(o);
	ss_dj_key(o, "key");
	ss_dj_obj(o);
	ss_dj_ki64(o, "type", type);
	ss_dj_kbool(o, "decoded", known);
	ss_dj_key(o, "data");
	ss_dj_obj(o);
}

static void env_key_close(struct ss_dout *o)
{
	ss_dj_obj_end(o);
	ss_dj_obj_end(o);
	ss_dj_key(o, "value");
}

static void env_value_open(struct ss_dout *o, int64_t version)
{
	ss_dj_obj(o);
	ss_dj_ki64(o, "version", version);
	ss_dj_key(o, "data");
	ss_dj_obj(o);
}

static void env_value_close(struct ss_dout *o)
{
	ss_dj_obj_end(o);
	ss_dj_obj_end(o);
}

/* ---- __consumer_offsets ---- */
static void dec_offsets(struct ss_dump *d, const struct ss_record *r)
{
	struct ss_dout *o = &d->out;
	struct ss_gm_key k;
	if (r->key_len < 0) {
		err_obj(d, r, "consumer offsets record (no key)", SEGSCAN_ESCHEMA);
		return;
	}
	int e = ss_gm_decode_key(r->key, (size_t)r->key_len, &k);
	if (e) {
		err_obj(d, r, "consumer offsets key", e);
		return;
	}
	/* {"key": {"type", "data"}, "value": {"version", "data"} | null (a tombstone)}, the
	 * shape of DumpLogSegments.OffsetsMessageParser */
	env_key_open(o, k.type, k.known);
	if (k.known) {
		kstr(o, "group", k.group);
		if (k.type != SS_GM_GROUP_METADATA) {
			kstr(o, "topic", k.topic);
			ss_dj_ki64(o, "partition", k.partition);
		}
	}
	env_key_close(o);
	if (r->value_len < 0 || !k.known) {
		ss_dj_null(o);
	} else if (k.type != SS_GM_GROUP_METADATA) {
		struct ss_gm_offset v;
		if ((e = ss_gm_decode_offset(r->value, (size_t)r->value_len, &v))) {
			err_obj(d, r, "offset commit value", e);
		} else {
			env_value_open(o, v.version);
			ss_dj_ki64(o, "offset", v.offset);
			if (v.version >= 3)
				ss_dj_ki64(o, "leaderEpoch", v.leader_epoch);
			kstr(o, "metadata", v.metadata);
			ss_dj_ki64(o, "commitTimestamp", v.commit_timestamp);
			if (v.version == 1)
				ss_dj_ki64(o, "expireTimestamp", v.expire_timestamp);
			if (v.has_topic_id)
				uuid(o, "topicId", v.topic_id);
			env_value_close(o);
		}
	} else {
		struct ss_gm_group g;
		if ((e = ss_gm_decode_group(r->value, (size_t)r->value_len, &g))) {
			err_obj(d, r, "group metadata value", e);
		} else {
			env_value_open(o, g.version);
			kstr(o, "protocolType", g.protocol_type);
			ss_dj_ki64(o, "generation", g.generation);
			kstr(o, "protocol", g.protocol);
			kstr(o, "leader", g.leader);
			if (g.version >= 2)
				ss_dj_ki64(o, "currentStateTimestamp", g.current_state_timestamp);
			ss_dj_key(o, "members");
			ss_dj_arr(o);
			for (int32_t i = 0; i < g.n_members; i++) {
				const struct ss_gm_member *m = &g.members[i];
				ss_dj_obj(o);
				kstr(o, "memberId", m->member_id);
				if (g.version >= 3)
					kstr(o, "groupInstanceId", m->group_instance_id);
				kstr(o, "clientId", m->client_id);
				kstr(o, "clientHost", m->client_host);
				if (g.version >= 1)
					ss_dj_ki64(o, "rebalanceTimeout", m->rebalance_timeout);
				ss_dj_ki64(o, "sessionTimeout", m->session_timeout);
				ss_dj_ki64(o, "subscriptionSize", m->subscription.len);
				ss_dj_ki64(o, "assignmentSize", m->assignment.len);
				ss_dj_obj_end(o);
			}
			ss_dj_arr_end(o);
			env_value_close(o);
		}
		ss_gm_group_free(&g);
	}
	ss_dj_obj_end(o);
}

/* ---- __transaction_state ---- */
static void dec_txn(struct ss_dump *d, const struct ss_record *r)
{
	struct ss_dout *o = &d->out;
	struct ss_txn_key k;
	if (r->key_len < 0) {
		err_obj(d, r, "transaction state record (no key)", SEGSCAN_ESCHEMA);
		return;
	}
	int e = ss_txn_decode_key(r->key, (size_t)r->key_len, &k);
	if (e) {
		err_obj(d, r, "transaction state key", e);
		return;
	}
	/* the shape and names of TransactionLogKey/ValueJsonConverter as DumpLogSegments
	 * --transaction-log-decoder prints them (tagged fields only when not at their default) */
	env_key_open(o, k.version, k.known);
	if (k.known)
		kstr(o, "transactionalId", k.transactional_id);
	env_key_close(o);
	if (r->value_len < 0 || !k.known) {
		ss_dj_null(o);
	} else {
		struct ss_txn_value v;
		if ((e = ss_txn_decode_value(r->value, (size_t)r->value_len, &v))) {
			err_obj(d, r, "transaction state value", e);
		} else {
			env_value_open(o, v.version);
			ss_dj_ki64(o, "producerId", v.producer_id);
			if (v.version >= 1 && v.previous_producer_id != -1)
				ss_dj_ki64(o, "previousProducerId", v.previous_producer_id);
			if (v.version >= 1 && v.next_producer_id != -1)
				ss_dj_ki64(o, "nextProducerId", v.next_producer_id);
			ss_dj_ki64(o, "producerEpoch", v.producer_epoch);
			ss_dj_ki64(o, "transactionTimeoutMs", v.timeout_ms);
			const char *st = ss_txn_status_name(v.status);
			if (st)
				ss_dj_kstr(o, "transactionStatus", st);
			else
				ss_dj_ki64(o, "transactionStatus", v.status);
			ss_dj_key(o, "transactionPartitions");
			if (v.n_topics < 0) {
				ss_dj_null(o);
			} else {
				ss_dj_arr(o);
				for (int32_t i = 0; i < v.n_topics; i++) {
					ss_dj_obj(o);
					kstr(o, "topic", v.topics[i].topic);
					ss_dj_key(o, "partitionIds");
					ss_dj_arr(o);
					for (int32_t j = 0; j < v.topics[i].n_partitions; j++)
						ss_dj_i64(o, ss_be32s(v.topics[i].partitions + 4 * j));
					ss_dj_arr_end(o);
					ss_dj_obj_end(o);
				}
				ss_dj_arr_end(o);
			}
			ss_dj_ki64(o, "transactionLastUpdateTimestampMs", v.last_update_timestamp_ms);
			ss_dj_ki64(o, "transactionStartTimestampMs", v.start_timestamp_ms);
			if (v.version >= 1 && v.client_txn_version != 0)
				ss_dj_ki64(o, "clientTransactionVersion", v.client_txn_version);
			env_value_close(o);
		}
		ss_txn_value_free(&v);
	}
	ss_dj_obj_end(o);
}

void dd_decode_json(struct ss_dump *d, enum ss_dump_decode dec, const struct ss_record *r)
{
	switch (dec) {
	case SS_DEC_RLMM: dec_rlmm(d, r); break;
	case SS_DEC_KRAFT: dec_kraft(d, r); break;
	case SS_DEC_OFFSETS: dec_offsets(d, r); break;
	case SS_DEC_TXN: dec_txn(d, r); break;
	default: ss_dj_null(&d->out); break;
	}
}

void dd_decode_text(struct ss_dump *d, enum ss_dump_decode dec, const struct ss_record *r)
{
	/* DumpLogSegments prints " payload: <the decoder's text>"; ours is the same JSON as
	 * the json format's "decoded", on the record's line */
	ss_dout_str(&d->out, " payload: ");
	ss_dj_reset(&d->out);
	dd_decode_json(d, dec, r);
}
