/*
 * The KRaft decoder and replay against a real broker's metadata log
 * (tests/fixtures/kafka/cluster-meta*, captured by scripts/kafka-oracle from Kafka 4.4.0
 * and 4.3.1):
 *
 *  - every record of every segment, snapshot and bootstrap checkpoint, decoded here, equals
 *    Kafka's own decoding of it (cluster-metadata.json: DumpLogSegments
 *    --cluster-metadata-decoder): same offset, type, version and every field; control
 *    records have the same type;
 *  - the replayed image (newest complete snapshot, then the log) equals what the broker
 *    answered over its Admin API at capture time (cluster.json): topic ids, partition
 *    leader / replicas / isr, finalized feature levels, every dynamic topic / broker /
 *    default-broker config value, this node's registration, node and cluster id.
 */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/file.h"
#include "fmt/batch.h"
#include "fmt/kraft.h"
#include "segscan.h"
#include "source/cluster_image.h"
#include "source/metadata_log.h"

#define FIXTURES "tests/fixtures/kafka"

/* Kafka's Uuid.toString: URL-safe base64 without padding. */
static void uuid_b64(const uint8_t id[16], char out[23])
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	int o = 0;
	for (int i = 0; i < 16; i += 3) {
		uint32_t v = (uint32_t)id[i] << 16;
		if (i + 1 < 16)
			v |= (uint32_t)id[i + 1] << 8;
		if (i + 2 < 16)
			v |= id[i + 2];
		out[o++] = t[(v >> 18) & 63];
		out[o++] = t[(v >> 12) & 63];
		if (i + 1 < 16)
			out[o++] = t[(v >> 6) & 63];
		if (i + 2 < 16)
			out[o++] = t[v & 63];
	}
	out[o] = 0;
}

/* "PartitionChangeRecord" -> "PARTITION_CHANGE_RECORD" (MetadataRecordType names). */
static void snake(const char *camel, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; camel[i] && o + 2 < cap; i++) {
		char c = camel[i];
		if (c >= 'A' && c <= 'Z' && i)
			out[o++] = '_';
		out[o++] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
	}
	out[o] = 0;
}

static const char *ctl_name(int t)
{
	switch (t) {
	case SS_KC_LEADER_CHANGE: return "LeaderChange";
	case SS_KC_SNAPSHOT_HEADER: return "SnapshotHeader";
	case SS_KC_SNAPSHOT_FOOTER: return "SnapshotFooter";
	case SS_KC_KRAFT_VERSION: return "KRaftVersion";
	case SS_KC_KRAFT_VOTERS: return "KRaftVoters";
	}
	return "?";
}

static char where[256];
static int checked_fields;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			print_error("%s: ", where);                        \
			print_error(__VA_ARGS__);                          \
			print_error("\n");                                 \
			fail();                                            \
		}                                                          \
		checked_fields++;                                          \
	} while (0)

static void cmp_int(json_t *d, const char *k, long long have, bool tagged, long long dflt)
{
	json_t *v = json_object_get(d, k);
	if (!v) {
		CHECK(tagged, "field %s missing from Kafka's decoding", k);
		CHECK(have == dflt, "%s: Kafka omits it (default %lld), decoded %lld", k, dflt, have);
		return;
	}
	long long want = json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);
	CHECK(json_is_integer(v) || json_is_boolean(v), "%s is not a number", k);
	CHECK(want == have, "%s: Kafka %lld, decoded %lld", k, want, have);
}

static void cmp_str(json_t *d, const char *k, struct ss_kstr s)
{
	json_t *v = json_object_get(d, k);
	if (!v || json_is_null(v)) {
		CHECK(s.len < 0, "%s: Kafka null/absent, decoded \"%.*s\"", k, s.len, s.p);
		return;
	}
	const char *want = json_string_value(v);
	CHECK(want && s.len >= 0 && strlen(want) == (size_t)s.len && !memcmp(want, s.p, (size_t)s.len),
	      "%s: Kafka \"%s\", decoded \"%.*s\"", k, want ? want : "?", s.len < 0 ? 6 : s.len, s.len < 0 ? "(null)" : s.p);
}

static void cmp_uuid(json_t *d, const char *k, const uint8_t id[16])
{
	char b[23];
	uuid_b64(id, b);
	const char *want = json_string_value(json_object_get(d, k));
	CHECK(want && !strcmp(want, b), "%s: Kafka %s, decoded %s", k, want ? want : "(none)", b);
}

/* An int32 array; absent in Kafka's JSON means the default (null, n < 0) for a tagged one. */
static void cmp_ints(json_t *d, const char *k, struct ss_karr a, bool tagged)
{
	json_t *v = json_object_get(d, k);
	if (!v || json_is_null(v)) {
		CHECK(tagged || v, "field %s missing", k);
		CHECK(a.n < 0, "%s: Kafka null, decoded %d elements", k, a.n);
		return;
	}
	CHECK(json_is_array(v) && (int32_t)json_array_size(v) == a.n, "%s: Kafka %zu elements, decoded %d", k,
	      json_array_size(v), a.n);
	for (int32_t i = 0; i < a.n; i++)
		CHECK(json_integer_value(json_array_get(v, (size_t)i)) == ss_karr_i32(a, i), "%s[%d] differs", k, i);
}

static void cmp_uuids(json_t *d, const char *k, struct ss_karr a, bool tagged)
{
	json_t *v = json_object_get(d, k);
	if (!v || json_is_null(v)) {
		CHECK(tagged || v, "field %s missing", k);
		CHECK(a.n < 0, "%s: Kafka null, decoded %d elements", k, a.n);
		return;
	}
	CHECK(json_is_array(v) && (int32_t)json_array_size(v) == a.n, "%s: Kafka %zu, decoded %d", k,
	      json_array_size(v), a.n);
	for (int32_t i = 0; i < a.n; i++) {
		char b[23];
		uuid_b64(ss_karr_uuid(a, i), b);
		const char *want = json_string_value(json_array_get(v, (size_t)i));
		CHECK(want && !strcmp(want, b), "%s[%d]: Kafka %s, decoded %s", k, i, want ? want : "?", b);
	}
}

static void cmp_record(const struct ss_kraft_rec *r, json_t *d)
{
	switch (r->api_key) {
	case SS_KR_TOPIC:
		cmp_str(d, "name", r->u.topic.name);
		cmp_uuid(d, "topicId", r->u.topic.topic_id);
		break;
	case SS_KR_REMOVE_TOPIC:
		cmp_uuid(d, "topicId", r->u.remove_topic.topic_id);
		break;
	case SS_KR_PARTITION: {
		const typeof(r->u.partition) *p = &r->u.partition;
		cmp_int(d, "partitionId", p->partition_id, false, 0);
		cmp_uuid(d, "topicId", p->topic_id);
		cmp_ints(d, "replicas", p->replicas, false);
		cmp_ints(d, "isr", p->isr, false);
		cmp_ints(d, "removingReplicas", p->removing, false);
		cmp_ints(d, "addingReplicas", p->adding, false);
		cmp_int(d, "leader", p->leader, false, 0);
		cmp_int(d, "leaderRecoveryState", p->leader_recovery_state, true, 0);
		cmp_int(d, "leaderEpoch", p->leader_epoch, false, 0);
		cmp_int(d, "partitionEpoch", p->partition_epoch, false, 0);
		if (r->version >= 1)
			cmp_uuids(d, "directories", p->directories, false);
		cmp_ints(d, "eligibleLeaderReplicas", p->elr, true);
		cmp_ints(d, "lastKnownElr", p->last_known_elr, true);
		break;
	}
	case SS_KR_PARTITION_CHANGE: {
		const typeof(r->u.change) *c = &r->u.change;
		cmp_int(d, "partitionId", c->partition_id, false, 0);
		cmp_uuid(d, "topicId", c->topic_id);
		cmp_ints(d, "isr", c->isr, true);
		cmp_int(d, "leader", c->leader, true, -2);
		cmp_ints(d, "replicas", c->replicas, true);
		cmp_ints(d, "removingReplicas", c->removing, true);
		cmp_ints(d, "addingReplicas", c->adding, true);
		cmp_int(d, "leaderRecoveryState", c->leader_recovery_state, true, -1);
		cmp_uuids(d, "directories", c->directories, true);
		cmp_ints(d, "eligibleLeaderReplicas", c->elr, true);
		cmp_ints(d, "lastKnownElr", c->last_known_elr, true);
		break;
	}
	case SS_KR_CONFIG:
		cmp_int(d, "resourceType", r->u.config.resource_type, false, 0);
		cmp_str(d, "resourceName", r->u.config.resource_name);
		cmp_str(d, "name", r->u.config.name);
		cmp_str(d, "value", r->u.config.value);
		break;
	case SS_KR_REGISTER_BROKER: {
		const typeof(r->u.reg) *b = &r->u.reg;
		cmp_int(d, "brokerId", b->broker_id, false, 0);
		cmp_int(d, "isMigratingZkBroker", b->is_migrating_zk, r->version < 2, 0);
		cmp_uuid(d, "incarnationId", b->incarnation_id);
		cmp_int(d, "brokerEpoch", b->broker_epoch, false, 0);
		cmp_str(d, "rack", b->rack);
		cmp_int(d, "fenced", b->fenced, false, 0);
		cmp_int(d, "inControlledShutdown", b->in_controlled_shutdown, r->version < 1, 0);
		cmp_uuids(d, "logDirs", b->log_dirs, true);
		cmp_uuids(d, "cordonedLogDirs", b->cordoned_log_dirs, true);
		json_t *eps = json_object_get(d, "endPoints"), *fs = json_object_get(d, "features");
		CHECK(json_is_array(eps) && (int32_t)json_array_size(eps) == b->endpoints.n, "endPoints count");
		struct ss_kiter it;
		struct ss_kraft_endpoint ep;
		ss_kiter_init(&it, &b->endpoints);
		for (size_t i = 0; ss_kiter_endpoint(&it, &ep) == 1; i++) {
			json_t *e = json_array_get(eps, i);
			cmp_str(e, "name", ep.name);
			cmp_str(e, "host", ep.host);
			cmp_int(e, "port", ep.port, false, 0);
			cmp_int(e, "securityProtocol", ep.security_protocol, false, 0);
		}
		CHECK(json_is_array(fs) && (int32_t)json_array_size(fs) == b->features.n, "features count");
		struct ss_kraft_feature f;
		ss_kiter_init(&it, &b->features);
		for (size_t i = 0; ss_kiter_feature(&it, &f) == 1; i++) {
			json_t *e = json_array_get(fs, i);
			cmp_str(e, "name", f.name);
			cmp_int(e, "minSupportedVersion", f.min_version, false, 0);
			cmp_int(e, "maxSupportedVersion", f.max_version, false, 0);
		}
		break;
	}
	case SS_KR_UNREGISTER_BROKER:
		cmp_int(d, "brokerId", r->u.broker.broker_id, false, 0);
		cmp_int(d, "brokerEpoch", r->u.broker.broker_epoch, false, 0);
		break;
	case SS_KR_FENCE_BROKER:
	case SS_KR_UNFENCE_BROKER:
		cmp_int(d, "id", r->u.broker.broker_id, false, 0);
		cmp_int(d, "epoch", r->u.broker.broker_epoch, false, 0);
		break;
	case SS_KR_BROKER_REGISTRATION_CHANGE: {
		const typeof(r->u.change_broker) *c = &r->u.change_broker;
		cmp_int(d, "brokerId", c->broker_id, false, 0);
		cmp_int(d, "brokerEpoch", c->broker_epoch, false, 0);
		cmp_int(d, "fenced", c->fenced, true, 0);
		cmp_int(d, "inControlledShutdown", c->in_controlled_shutdown, true, 0);
		cmp_uuids(d, "logDirs", c->log_dirs, true);
		cmp_uuids(d, "cordonedLogDirs", c->cordoned_log_dirs, true);
		break;
	}
	case SS_KR_FEATURE_LEVEL:
		cmp_str(d, "name", r->u.feature.name);
		cmp_int(d, "featureLevel", r->u.feature.level, false, 0);
		break;
	case SS_KR_BEGIN_TRANSACTION:
		cmp_str(d, "name", r->u.txn.text);
		break;
	case SS_KR_ABORT_TRANSACTION:
		cmp_str(d, "reason", r->u.txn.text);
		break;
	}
}

/* ---- walking one file and comparing it with Kafka's decoding ---- */

struct fcmp {
	json_t *recs, *ctls;
	size_t  ri, ci;
	const char *file;
	int     decoded, skipped;
};

static int on_record(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct fcmp *c = arg;
	if (h->attributes & SS_ATTR_CONTROL) {
		json_t *k = json_array_get(c->ctls, c->ci++);
		snprintf(where, sizeof where, "%s control record at offset %lld", c->file, (long long)r->offset);
		CHECK(k, "Kafka lists fewer control records");
		int t = ss_kraft_control_type(r->key, r->key_len);
		CHECK(json_integer_value(json_object_get(k, "offset")) == r->offset, "offset differs");
		CHECK(!strcmp(json_string_value(json_object_get(k, "type")), ctl_name(t)), "type: Kafka %s, decoded %s",
		      json_string_value(json_object_get(k, "type")), ctl_name(t));
		return 0;
	}
	json_t *k = json_array_get(c->recs, c->ri++);
	snprintf(where, sizeof where, "%s record at offset %lld", c->file, (long long)r->offset);
	CHECK(k, "Kafka lists fewer records");
	CHECK(json_integer_value(json_object_get(k, "offset")) == r->offset, "offset: Kafka %lld",
	      (long long)json_integer_value(json_object_get(k, "offset")));
	struct ss_kraft_rec d;
	int rc = ss_kraft_decode(r->value, r->value_len > 0 ? (size_t)r->value_len : 0, &d);
	CHECK(rc == 0, "decode: %s", segscan_strerror(rc));
	char name[64];
	snake(ss_kraft_key_name(d.api_key), name, sizeof name);
	const char *kt = json_string_value(json_object_get(k, "type"));
	CHECK(kt && !strcmp(kt, name), "type: Kafka %s, decoded %s (key %d)", kt ? kt : "?", name, d.api_key);
	CHECK(json_integer_value(json_object_get(k, "version")) == d.version, "version differs");
	CHECK(json_integer_value(json_object_get(k, "value_size")) == r->value_len, "value size differs");
	if (d.known) {
		cmp_record(&d, json_object_get(k, "data"));
		c->decoded++;
	} else {
		c->skipped++;
	}
	return 0;
}

static void compare_file(const char *path, const char *name, json_t *kf, int *decoded, int *skipped)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = ss_read_file(AT_FDCWD, path, 64 << 20, &buf, &len);
	snprintf(where, sizeof where, "%s", path);
	CHECK(rc == 0, "read: %s", segscan_strerror(rc));
	struct fcmp c = { json_object_get(kf, "records"), json_object_get(kf, "control_records"), 0, 0, name, 0, 0 };
	size_t pos = 0;
	while (pos < len) {
		struct ss_batch_hdr h;
		rc = ss_batch_header((const uint8_t *)buf + pos, len - pos, &h);
		snprintf(where, sizeof where, "%s: byte %zu", path, pos);
		CHECK(rc > 0 && (size_t)h.size <= len - pos, "batch header: %d", rc);
		CHECK(ss_batch_verify((const uint8_t *)buf + pos, &h) == 0, "CRC");
		CHECK(ss_batch_foreach_record((const uint8_t *)buf + pos, &h, on_record, &c) == 0, "records");
		pos += (size_t)h.size;
	}
	snprintf(where, sizeof where, "%s", path);
	CHECK(c.ri == json_array_size(c.recs), "decoded %zu records, Kafka %zu", c.ri, json_array_size(c.recs));
	CHECK(c.ci == json_array_size(c.ctls), "decoded %zu control records, Kafka %zu", c.ci, json_array_size(c.ctls));
	*decoded += c.decoded;
	*skipped += c.skipped;
	free(buf);
}

static int n_cases;

static void check_case_records(const char *dir)
{
	char *p;
	json_error_t e;
	assert_true(asprintf(&p, "%s/cluster-metadata.json", dir) > 0);
	json_t *cm = json_load_file(p, 0, &e);
	free(p);
	assert_non_null(cm);
	json_t *files = json_object_get(cm, "files");
	int decoded = 0, skipped = 0;
	for (size_t i = 0; i < json_array_size(files); i++) {
		json_t *f = json_array_get(files, i);
		const char *name = json_string_value(json_object_get(f, "file"));
		const char *kind = json_string_value(json_object_get(f, "kind"));
		char *path;
		if (!strcmp(kind, "bootstrap"))
			assert_true(asprintf(&path, "%s/logdir/%s", dir, name) > 0);
		else
			assert_true(asprintf(&path, "%s/logdir/%s/%s", dir, SS_MLOG_DIRNAME, name) > 0);
		compare_file(path, name, f, &decoded, &skipped);
		free(path);
	}
	print_message("%s: %d records decoded and equal to Kafka's decoding, %d skipped by type\n", dir, decoded,
		      skipped);
	assert_true(decoded > 50);
	json_decref(cm);
}

/* ---- replayed state against the Admin API ---- */

static void check_case_image(const char *dir)
{
	char *p, *logdir;
	json_error_t e;
	assert_true(asprintf(&p, "%s/cluster.json", dir) > 0);
	assert_true(asprintf(&logdir, "%s/logdir", dir) > 0);
	json_t *cl = json_load_file(p, 0, &e);
	free(p);
	assert_non_null(cl);
	assert_true(asprintf(&p, "%s/case.json", dir) > 0);
	json_t *cs = json_load_file(p, 0, &e);
	free(p);
	assert_non_null(cs);
	bool live = json_is_true(json_object_get(cs, "live_copy"));
	json_decref(cs);
	struct ss_cimage *img;
	struct ss_mlog_info info;
	assert_int_equal(ss_mlog_replay(logdir, &img, &info), 0);
	for (size_t i = 0; i < ss_cimage_warning_count(img); i++)
		print_message("%s: warning: %s\n", dir, ss_cimage_warning_at(img, i));
	print_message("%s: snapshot %s, last offset %lld epoch %d, %llu bytes read\n", dir,
		      info.snapshot ? info.snapshot : "(none)", (long long)info.last_offset, info.last_epoch,
		      (unsigned long long)info.bytes_read);
	snprintf(where, sizeof where, "%s replay", dir);
	CHECK(info.snapshot != NULL, "no snapshot used");
	CHECK(!info.history_incomplete, "history incomplete");
	CHECK(ss_cimage_stats(img)->malformed == 0, "malformed records");
	CHECK(ss_cimage_stats(img)->inconsistent == 0, "inconsistent records");
	CHECK(info.node_id == json_integer_value(json_object_get(cl, "node_id")), "node.id %d", info.node_id);
	CHECK(info.cluster_id && !strcmp(info.cluster_id, json_string_value(json_object_get(cl, "cluster_id"))),
	      "cluster.id %s", info.cluster_id ? info.cluster_id : "(none)");

	json_t *topics = json_object_get(cl, "describe_topics");
	const char *tn;
	json_t *tj;
	CHECK(json_object_size(topics) == ss_cimage_topic_count(img), "topics: Admin %zu, replay %zu",
	      json_object_size(topics), ss_cimage_topic_count(img));
	json_object_foreach(topics, tn, tj) {
		snprintf(where, sizeof where, "%s topic %s", dir, tn);
		const struct ss_ci_topic *t = ss_cimage_topic(img, tn);
		CHECK(t, "missing from the replay");
		cmp_uuid(tj, "topic_id", t->id);
		json_t *parts = json_object_get(tj, "partitions");
		CHECK(json_array_size(parts) == t->n_parts, "partitions: Admin %zu, replay %u", json_array_size(parts),
		      t->n_parts);
		for (size_t i = 0; i < json_array_size(parts); i++) {
			json_t *pj = json_array_get(parts, i);
			int32_t id = (int32_t)json_integer_value(json_object_get(pj, "partition"));
			const struct ss_ci_partition *pp = ss_ci_topic_partition(t, id);
			CHECK(pp, "partition %d missing", id);
			json_t *ld = json_object_get(pj, "leader");
			json_t *reps = json_object_get(pj, "replicas"), *isr = json_object_get(pj, "isr");
			CHECK(json_array_size(reps) == pp->n_replicas, "partition %d replicas", id);
			for (size_t j = 0; j < pp->n_replicas; j++)
				CHECK(json_integer_value(json_array_get(reps, j)) == pp->replicas[j], "replica %zu", j);
			if (!live) {
				/* The stopped copy holds what the controlled shutdown wrote after the Admin
				 * call: no leader, an empty ISR, and the old ISR as the eligible leader
				 * replicas (KIP-966, ELR enabled on these clusters). */
				CHECK(pp->leader == -1 && pp->n_isr == 0, "partition %d: leader %d, isr %u after shutdown", id,
				      pp->leader, pp->n_isr);
				CHECK(json_array_size(isr) == pp->n_elr, "partition %d elr", id);
				for (size_t j = 0; j < pp->n_elr; j++)
					CHECK(json_integer_value(json_array_get(isr, j)) == pp->elr[j], "elr %zu", j);
				continue;
			}
			CHECK((json_is_null(ld) ? -1 : json_integer_value(ld)) == pp->leader, "partition %d leader", id);
			CHECK(json_array_size(isr) == pp->n_isr, "partition %d isr", id);
			for (size_t j = 0; j < pp->n_isr; j++)
				CHECK(json_integer_value(json_array_get(isr, j)) == pp->isr[j], "isr %zu", j);
		}
	}

	/* dynamic configs: every value the broker says comes from the metadata */
	json_t *cfg = json_object_get(json_object_get(cl, "describe_configs"), "topics");
	char node[16];
	snprintf(node, sizeof node, "%d", info.node_id);
	int dyn = 0;
	json_object_foreach(cfg, tn, tj) {
		const char *key;
		json_t *kj;
		json_object_foreach(tj, key, kj) {
			json_t *syn = json_object_get(kj, "synonyms");
			for (size_t i = 0; i < json_array_size(syn); i++) {
				json_t *s = json_array_get(syn, i);
				const char *src = json_string_value(json_object_get(s, "source"));
				const char *sn = json_string_value(json_object_get(s, "name"));
				json_t *sv = json_object_get(s, "value");
				const char *have;
				if (!strcmp(src, "DYNAMIC_TOPIC_CONFIG"))
					have = ss_cimage_config(img, SS_CI_RES_TOPIC, tn, sn);
				else if (!strcmp(src, "DYNAMIC_BROKER_CONFIG"))
					have = ss_cimage_config(img, SS_CI_RES_BROKER, node, sn);
				else if (!strcmp(src, "DYNAMIC_DEFAULT_BROKER_CONFIG"))
					have = ss_cimage_config(img, SS_CI_RES_BROKER, SS_CI_DEFAULT_BROKER, sn);
				else
					continue;
				snprintf(where, sizeof where, "%s topic %s config %s (%s %s)", dir, tn, key, src, sn);
				if (json_is_true(json_object_get(kj, "sensitive")) || json_is_null(sv)) {
					CHECK(have != NULL, "set in the broker, missing from the replay");
				} else {
					CHECK(have && !strcmp(have, json_string_value(sv)), "Admin \"%s\", replay \"%s\"",
					      json_string_value(sv), have ? have : "(unset)");
				}
				dyn++;
			}
		}
	}
	print_message("%s: %d dynamic config values equal to DescribeConfigs\n", dir, dyn);
	CHECK(dyn > 0, "no dynamic configs compared");

	/* finalized features and this broker's supported metadata.version */
	json_t *fin = json_object_get(json_object_get(cl, "features"), "finalized");
	const char *fname;
	json_t *fj;
	json_object_foreach(fin, fname, fj) {
		int16_t lv = -1;
		snprintf(where, sizeof where, "%s feature %s", dir, fname);
		CHECK(ss_cimage_feature_level(img, fname, &lv) == 0, "not finalized in the replay");
		CHECK(lv == json_integer_value(json_object_get(fj, "max_version_level")), "level %d", lv);
	}
	CHECK(json_object_size(fin) == ss_cimage_feature_count(img), "finalized features: Admin %zu, replay %zu",
	      json_object_size(fin), ss_cimage_feature_count(img));
	json_t *sup = json_object_get(json_object_get(json_object_get(cl, "features"), "supported"), "metadata.version");
	const struct ss_ci_broker *b = ss_cimage_broker(img, info.node_id);
	int16_t mn, mx;
	snprintf(where, sizeof where, "%s broker %d", dir, info.node_id);
	CHECK(b, "this node is not registered in the replay");
	CHECK(ss_ci_broker_feature(b, "metadata.version", &mn, &mx) == 0, "no metadata.version");
	CHECK(mx == json_integer_value(json_object_get(sup, "max_version")), "supported metadata.version max %d", mx);
	CHECK(mn == json_integer_value(json_object_get(sup, "min_version")), "supported metadata.version min %d", mn);
	/* a clean shutdown fences the broker (BrokerRegistrationChangeRecord fenced=1) */
	CHECK(b->fenced == !live, "fenced %d in a %s copy", b->fenced, live ? "live" : "stopped");

	ss_cimage_free(img);
	ss_mlog_info_free(&info);
	json_decref(cl);
	free(logdir);
}

static void for_each_case(void (*fn)(const char *))
{
	DIR *d = opendir(FIXTURES);
	if (!d)
		skip();
	struct dirent *e;
	n_cases = 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "cluster-meta", 12))
			continue;
		char *dir, *p;
		assert_true(asprintf(&dir, FIXTURES "/%s", e->d_name) > 0);
		assert_true(asprintf(&p, "%s/cluster-metadata.json", dir) > 0);
		if (access(p, R_OK) == 0) {
			fn(dir);
			n_cases++;
		}
		free(p);
		free(dir);
	}
	closedir(d);
	if (!n_cases)
		skip();
	print_message("%d fixture case(s), %d field comparisons\n", n_cases, checked_fields);
}

static void test_records_equal_kafka(void **state)
{
	for_each_case(check_case_records);
}

static void test_image_equals_admin(void **state)
{
	for_each_case(check_case_image);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_equal_kafka),
		cmocka_unit_test(test_image_equals_admin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
