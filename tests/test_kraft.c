/*
 * The KRaft metadata record decoder (src/fmt/kraft.c) on hand-built values: every decoded
 * record type at every version Kafka 3.3-4.4 writes, tagged fields (known, unknown, and
 * ones from a later version), and bad bytes (truncation at every length, huge lengths,
 * bad varints, trailing garbage, nulls where the schema forbids them). Values are built
 * by the independent encoder in kraft_enc.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/kraft.h"
#include "kraft_enc.h"
#include "segscan.h"

static const uint8_t TID[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xf0, 0x01 };
static const uint8_t DIRS[3][16] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } };

static void assert_str(struct ss_kstr s, const char *want)
{
	if (!want) {
		assert_true(s.len < 0);
		return;
	}
	assert_int_equal(s.len, (int32_t)strlen(want));
	assert_memory_equal(s.p, want, strlen(want));
}

static void assert_ints(struct ss_karr a, const int32_t *want, int n)
{
	assert_int_equal(a.n, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(ss_karr_i32(a, i), want[i]);
}

static int dec(const struct kw *w, struct ss_kraft_rec *r)
{
	/* an exact-size heap copy so that ASan sees any read past the end */
	uint8_t *b = malloc(w->n ? w->n : 1);
	memcpy(b, w->b, w->n);
	int rc = ss_kraft_decode(b, w->n, r);
	free(b); /* r's views now dangle: callers look only at scalars and counts */
	return rc;
}

/* For tests that read views after decoding: decode in place. */
static int dec_keep(struct kw *w, struct ss_kraft_rec *r)
{
	return ss_kraft_decode(w->b, w->n, r);
}

static void test_topic_and_remove(void **state)
{
	struct kw w;
	struct ss_kraft_rec r;
	kw_topic(&w, "orders", TID);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_true(r.known);
	assert_int_equal(r.api_key, SS_KR_TOPIC);
	assert_int_equal(r.version, 0);
	assert_str(r.u.topic.name, "orders");
	assert_memory_equal(r.u.topic.topic_id, TID, 16);

	kw_remove_topic(&w, TID);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_REMOVE_TOPIC);
	assert_memory_equal(r.u.remove_topic.topic_id, TID, 16);
}

/* PartitionRecord at version v with every field set differently from its neighbours. */
static void build_partition(struct kw *w, int v, bool unknown_tag)
{
	static const int32_t reps[] = { 3, 1, 2 }, isr[] = { 3, 1 }, rem[] = { 2 }, add[] = { 7, 8 };
	static const int32_t elr[] = { 1 }, lke[] = { 2, 3 };
	kw_frame(w, 3, v);
	kw_i32(w, 5);
	kw_uuid(w, TID);
	kw_ints(w, reps, 3);
	kw_ints(w, isr, 2);
	kw_ints(w, rem, 1);
	kw_ints(w, add, 2);
	kw_i32(w, 3);      /* leader */
	kw_i32(w, 17);     /* leader epoch */
	kw_i32(w, 42);     /* partition epoch */
	if (v >= 1)
		kw_uuids(w, DIRS, 3);
	struct kw t0 = { .n = 0 }, t1 = { .n = 0 }, t2 = { .n = 0 }, t9 = { .n = 0 };
	kw_u8(&t0, 1);  /* LeaderRecoveryState: recovering */
	kw_ints(&t1, elr, 1);
	kw_ints(&t2, lke, 2);
	kw_bytes(&t9, "\x01\x02\x03", 3);
	int n = 1 + (v >= 2 ? 2 : 0) + unknown_tag;
	kw_uv(w, (uint32_t)n);
	kw_tag(w, 0, &t0);
	if (v >= 2) {
		kw_tag(w, 1, &t1);
		kw_tag(w, 2, &t2);
	}
	if (unknown_tag)
		kw_tag(w, 9, &t9);
}

static void test_partition_all_versions(void **state)
{
	static const int32_t reps[] = { 3, 1, 2 }, isr[] = { 3, 1 }, rem[] = { 2 }, add[] = { 7, 8 };
	static const int32_t elr[] = { 1 }, lke[] = { 2, 3 };
	for (int v = 0; v <= 2; v++) {
		for (int unk = 0; unk <= 1; unk++) {
			struct kw w;
			struct ss_kraft_rec r;
			build_partition(&w, v, unk);
			assert_int_equal(dec(&w, &r), 0);
			assert_int_equal(dec_keep(&w, &r), 0);
			assert_true(r.known);
			assert_int_equal(r.api_key, SS_KR_PARTITION);
			assert_int_equal(r.version, v);
			assert_int_equal(r.u.partition.partition_id, 5);
			assert_memory_equal(r.u.partition.topic_id, TID, 16);
			assert_ints(r.u.partition.replicas, reps, 3);
			assert_ints(r.u.partition.isr, isr, 2);
			assert_ints(r.u.partition.removing, rem, 1);
			assert_ints(r.u.partition.adding, add, 2);
			assert_int_equal(r.u.partition.leader, 3);
			assert_int_equal(r.u.partition.leader_epoch, 17);
			assert_int_equal(r.u.partition.partition_epoch, 42);
			assert_int_equal(r.u.partition.leader_recovery_state, 1);
			if (v >= 1) {
				assert_int_equal(r.u.partition.directories.n, 3);
				assert_memory_equal(ss_karr_uuid(r.u.partition.directories, 2), DIRS[2], 16);
			} else {
				assert_int_equal(r.u.partition.directories.n, -1);
			}
			if (v >= 2) {
				assert_ints(r.u.partition.elr, elr, 1);
				assert_ints(r.u.partition.last_known_elr, lke, 2);
			} else {
				assert_int_equal(r.u.partition.elr.n, -1);
			}
		}
	}
}

static void test_partition_elr_tag_in_v1_is_unknown(void **state)
{
	/* tag 1 is EligibleLeaderReplicas only from v2: in v1 it is skipped as unknown */
	struct kw w;
	struct ss_kraft_rec r;
	kw_frame(&w, 3, 1);
	kw_i32(&w, 0);
	kw_uuid(&w, TID);
	for (int i = 0; i < 4; i++)
		kw_ints(&w, NULL, 0);
	kw_i32(&w, -1);
	kw_i32(&w, 0);
	kw_i32(&w, 0);
	kw_uuids(&w, NULL, 0);
	struct kw t = { .n = 0 };
	kw_bytes(&t, "\xff\xff", 2); /* not a valid array at all: must not be parsed */
	kw_uv(&w, 1);
	kw_tag(&w, 1, &t);
	assert_int_equal(dec(&w, &r), 0);
	assert_int_equal(r.u.partition.elr.n, -1);
	assert_int_equal(r.u.partition.leader_recovery_state, 0); /* default */
}

static void test_partition_change_all_versions(void **state)
{
	static const int32_t isr[] = { 1, 2 }, reps[] = { 1, 2, 4 }, elr[] = { 4 }, lke[] = { 9 };
	for (int v = 0; v <= 2; v++) {
		struct kw w, f;
		struct ss_kraft_rec r;
		kw_frame(&w, 5, v);
		kw_i32(&w, 7);
		kw_uuid(&w, TID);
		int n = 6 + (v >= 1) + (v >= 2 ? 2 : 0);
		kw_uv(&w, (uint32_t)n);
		f.n = 0; kw_ints(&f, isr, 2); kw_tag(&w, 0, &f);
		f.n = 0; kw_i32(&f, 4); kw_tag(&w, 1, &f);
		f.n = 0; kw_ints(&f, reps, 3); kw_tag(&w, 2, &f);
		f.n = 0; kw_ints(&f, NULL, 0); kw_tag(&w, 3, &f);
		f.n = 0; kw_ints(&f, NULL, -1); kw_tag(&w, 4, &f);  /* explicit null: no change */
		f.n = 0; kw_u8(&f, 0); kw_tag(&w, 5, &f);
		if (v >= 2) {
			f.n = 0; kw_ints(&f, elr, 1); kw_tag(&w, 6, &f);
			f.n = 0; kw_ints(&f, lke, 1); kw_tag(&w, 7, &f);
		}
		if (v >= 1) {
			f.n = 0; kw_uuids(&f, DIRS, 3); kw_tag(&w, 8, &f);
		}
		assert_int_equal(dec(&w, &r), 0);
		assert_int_equal(dec_keep(&w, &r), 0);
		assert_true(r.known);
		assert_int_equal(r.version, v);
		assert_int_equal(r.u.change.partition_id, 7);
		assert_ints(r.u.change.isr, isr, 2);
		assert_int_equal(r.u.change.leader, 4);
		assert_ints(r.u.change.replicas, reps, 3);
		assert_int_equal(r.u.change.removing.n, 0);
		assert_int_equal(r.u.change.adding.n, -1);
		assert_int_equal(r.u.change.leader_recovery_state, 0);
		assert_int_equal(r.u.change.directories.n, v >= 1 ? 3 : -1);
		if (v >= 2) {
			assert_ints(r.u.change.elr, elr, 1);
			assert_ints(r.u.change.last_known_elr, lke, 1);
		} else {
			assert_int_equal(r.u.change.elr.n, -1);
		}
	}
	/* no tags at all: every field "no change" */
	struct kw w;
	struct ss_kraft_rec r;
	kw_change(&w, TID, 3, -2, NULL, -1);
	assert_int_equal(dec(&w, &r), 0);
	assert_int_equal(r.u.change.leader, -2);
	assert_int_equal(r.u.change.leader_recovery_state, -1);
	assert_int_equal(r.u.change.isr.n, -1);
	assert_int_equal(r.u.change.replicas.n, -1);
	/* directories (tag 8) in a v0 record: unknown there, skipped */
	kw_frame(&w, 5, 0);
	kw_i32(&w, 0);
	kw_uuid(&w, TID);
	struct kw f = { .n = 0 };
	kw_uuids(&f, DIRS, 1);
	kw_uv(&w, 1);
	kw_tag(&w, 8, &f);
	assert_int_equal(dec(&w, &r), 0);
	assert_int_equal(r.u.change.directories.n, -1);
}

static void test_config(void **state)
{
	struct kw w;
	struct ss_kraft_rec r;
	kw_config(&w, 2, "orders", "retention.ms", "3600000");
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_CONFIG);
	assert_int_equal(r.u.config.resource_type, 2);
	assert_str(r.u.config.resource_name, "orders");
	assert_str(r.u.config.name, "retention.ms");
	assert_str(r.u.config.value, "3600000");
	kw_config(&w, 4, "", "log.retention.bytes", NULL);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_int_equal(r.u.config.resource_type, 4);
	assert_str(r.u.config.resource_name, "");
	assert_true(r.u.config.value.len < 0);
	/* a null name is not allowed by the schema */
	kw_config(&w, 2, "orders", NULL, "x");
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
}

static void build_register(struct kw *w, int v)
{
	kw_frame(w, 0, v);
	kw_i32(w, 2);
	if (v >= 2)
		kw_u8(w, 1);
	uint8_t inc[16] = { 9, 9, 9 };
	kw_uuid(w, inc);
	kw_i64(w, 1234567890123ll);
	kw_uv(w, 3); /* two endpoints */
	kw_str(w, "PLAINTEXT");
	kw_str(w, "broker2.example");
	kw_i16(w, 9092);
	kw_i16(w, 0);
	kw_uv(w, 0);
	kw_str(w, "SSL");
	kw_str(w, "broker2.example");
	kw_i16(w, (int16_t)60000); /* uint16 above INT16_MAX */
	kw_i16(w, 1);
	struct kw unk = { .n = 0 };
	kw_u8(&unk, 0x5a);
	kw_uv(w, 1);
	kw_tag(w, 4, &unk); /* an unknown tag inside a struct element */
	kw_uv(w, 3); /* two features */
	kw_str(w, "metadata.version");
	kw_i16(w, 7);
	kw_i16(w, 27);
	kw_uv(w, 0);
	kw_str(w, "kraft.version");
	kw_i16(w, 0);
	kw_i16(w, 1);
	kw_uv(w, 0);
	kw_str(w, v == 1 ? NULL : "rack-a");
	kw_u8(w, 1); /* fenced */
	if (v >= 1)
		kw_u8(w, 1);
	struct kw t0 = { .n = 0 }, t1 = { .n = 0 };
	kw_uuids(&t0, DIRS, 2);
	kw_uuids(&t1, DIRS + 2, 1);
	int n = (v >= 3) + (v >= 4);
	kw_uv(w, (uint32_t)n);
	if (v >= 3)
		kw_tag(w, 0, &t0);
	if (v >= 4)
		kw_tag(w, 1, &t1);
}

static void test_register_broker_all_versions(void **state)
{
	for (int v = 0; v <= 4; v++) {
		struct kw w;
		struct ss_kraft_rec r;
		build_register(&w, v);
		assert_int_equal(dec(&w, &r), 0);
		assert_int_equal(dec_keep(&w, &r), 0);
		assert_true(r.known);
		assert_int_equal(r.version, v);
		assert_int_equal(r.u.reg.broker_id, 2);
		assert_int_equal(r.u.reg.is_migrating_zk, v >= 2);
		assert_int_equal(r.u.reg.incarnation_id[2], 9);
		assert_int_equal(r.u.reg.broker_epoch, 1234567890123ll);
		assert_int_equal(r.u.reg.fenced, true);
		assert_int_equal(r.u.reg.in_controlled_shutdown, v >= 1);
		assert_str(r.u.reg.rack, v == 1 ? NULL : "rack-a");
		assert_int_equal(r.u.reg.log_dirs.n, v >= 3 ? 2 : -1);
		assert_int_equal(r.u.reg.cordoned_log_dirs.n, v >= 4 ? 1 : -1);
		struct ss_kiter it;
		struct ss_kraft_endpoint ep;
		ss_kiter_init(&it, &r.u.reg.endpoints);
		assert_int_equal(ss_kiter_endpoint(&it, &ep), 1);
		assert_str(ep.name, "PLAINTEXT");
		assert_int_equal(ep.port, 9092);
		assert_int_equal(ss_kiter_endpoint(&it, &ep), 1);
		assert_str(ep.name, "SSL");
		assert_str(ep.host, "broker2.example");
		assert_int_equal(ep.port, 60000);
		assert_int_equal(ep.security_protocol, 1);
		assert_int_equal(ss_kiter_endpoint(&it, &ep), 0);
		struct ss_kraft_feature f;
		ss_kiter_init(&it, &r.u.reg.features);
		assert_int_equal(ss_kiter_feature(&it, &f), 1);
		assert_str(f.name, "metadata.version");
		assert_int_equal(f.min_version, 7);
		assert_int_equal(f.max_version, 27);
		assert_int_equal(ss_kiter_feature(&it, &f), 1);
		assert_str(f.name, "kraft.version");
		assert_int_equal(f.max_version, 1);
		assert_int_equal(ss_kiter_feature(&it, &f), 0);
	}
	/* a null endpoint list is refused */
	struct kw w;
	struct ss_kraft_rec r;
	kw_frame(&w, 0, 0);
	kw_i32(&w, 1);
	uint8_t inc[16] = { 0 };
	kw_uuid(&w, inc);
	kw_i64(&w, 1);
	kw_uv(&w, 0);
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
}

static void test_broker_small_records(void **state)
{
	static const int keys[] = { SS_KR_UNREGISTER_BROKER, SS_KR_FENCE_BROKER, SS_KR_UNFENCE_BROKER };
	for (int i = 0; i < 3; i++) {
		struct kw w;
		struct ss_kraft_rec r;
		kw_broker_epoch_rec(&w, keys[i], 100 + i, -5 - i);
		assert_int_equal(dec(&w, &r), 0);
		assert_int_equal(r.api_key, keys[i]);
		assert_int_equal(r.u.broker.broker_id, 100 + i);
		assert_int_equal(r.u.broker.broker_epoch, -5 - i);
	}
}

static void test_broker_registration_change_all_versions(void **state)
{
	for (int v = 0; v <= 3; v++) {
		struct kw w, f;
		struct ss_kraft_rec r;
		kw_frame(&w, 17, v);
		kw_i32(&w, 4);
		kw_i64(&w, 77);
		kw_uv(&w, (uint32_t)(1 + v));
		f.n = 0; kw_u8(&f, 0xff); kw_tag(&w, 0, &f);            /* -1: unfence */
		if (v >= 1) { f.n = 0; kw_u8(&f, 1); kw_tag(&w, 1, &f); }
		if (v >= 2) { f.n = 0; kw_uuids(&f, DIRS, 3); kw_tag(&w, 2, &f); }
		if (v >= 3) { f.n = 0; kw_uuids(&f, NULL, -1); kw_tag(&w, 3, &f); }
		assert_int_equal(dec(&w, &r), 0);
		assert_true(r.known);
		assert_int_equal(r.u.change_broker.broker_id, 4);
		assert_int_equal(r.u.change_broker.broker_epoch, 77);
		assert_int_equal(r.u.change_broker.fenced, -1);
		assert_int_equal(r.u.change_broker.in_controlled_shutdown, v >= 1 ? 1 : 0);
		assert_int_equal(r.u.change_broker.log_dirs.n, v >= 2 ? 3 : -1);
		assert_int_equal(r.u.change_broker.cordoned_log_dirs.n, -1);
	}
}

static void test_feature_txn_noop(void **state)
{
	struct kw w, f;
	struct ss_kraft_rec r;
	kw_feature_level(&w, "metadata.version", 27);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_FEATURE_LEVEL);
	assert_str(r.u.feature.name, "metadata.version");
	assert_int_equal(r.u.feature.level, 27);

	kw_frame(&w, 23, 0);
	f.n = 0;
	kw_str(&f, "create topics");
	kw_uv(&w, 1);
	kw_tag(&w, 0, &f);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_BEGIN_TRANSACTION);
	assert_str(r.u.txn.text, "create topics");
	kw_empty(&w, 23);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_true(r.u.txn.text.len < 0);

	kw_frame(&w, 25, 0);
	f.n = 0;
	kw_str(&f, "controller failover");
	kw_uv(&w, 1);
	kw_tag(&w, 0, &f);
	assert_int_equal(dec_keep(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_ABORT_TRANSACTION);
	assert_str(r.u.txn.text, "controller failover");

	kw_empty(&w, 24);
	assert_int_equal(dec(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_END_TRANSACTION);
	assert_true(r.known);
	kw_empty(&w, 20);
	assert_int_equal(dec(&w, &r), 0);
	assert_int_equal(r.api_key, SS_KR_NO_OP);
	assert_true(r.known);
}

static void test_skipped_types_and_versions(void **state)
{
	struct kw w;
	struct ss_kraft_rec r;
	/* ProducerIdsRecord (15): a valid frame, body not decoded */
	kw_frame(&w, 15, 0);
	kw_bytes(&w, "\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9);
	assert_int_equal(dec(&w, &r), 0);
	assert_false(r.known);
	assert_int_equal(r.api_key, 15);
	/* a future PartitionRecord v3: skipped, not misread */
	kw_frame(&w, 3, 3);
	kw_bytes(&w, "\xff", 1);
	assert_int_equal(dec(&w, &r), 0);
	assert_false(r.known);
	assert_int_equal(r.version, 3);
	/* an api key needing two varint bytes */
	kw_frame(&w, 300, 0);
	assert_int_equal(dec(&w, &r), 0);
	assert_false(r.known);
	assert_int_equal(r.api_key, 300);
	assert_string_equal(ss_kraft_key_name(300), "UnknownRecord");
	assert_string_equal(ss_kraft_key_name(5), "PartitionChangeRecord");
}

static void test_frame_errors(void **state)
{
	struct kw w;
	struct ss_kraft_rec r;
	/* frame version 0 (KRaft preview) and 2 (unknown) */
	kw_topic(&w, "t", TID);
	w.b[0] = 0;
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
	w.b[0] = 2;
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
	/* empty value */
	w.n = 0;
	assert_int_equal(dec(&w, &r), SEGSCAN_ETRUNC);
	/* an api key beyond int16 */
	w.n = 0;
	kw_uv(&w, 1);
	kw_uv(&w, 40000);
	kw_uv(&w, 0);
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
	/* a varint of six bytes, and one beyond 32 bits */
	w.n = 0;
	kw_bytes(&w, "\x01\x82\x80\x80\x80\x80\x00", 7);
	assert_int_equal(dec(&w, &r), SEGSCAN_EVARINT);
	w.n = 0;
	kw_bytes(&w, "\x01\x80\x80\x80\x80\x7f", 6);
	assert_int_equal(dec(&w, &r), SEGSCAN_EVARINT);
	/* garbage after the tagged fields */
	kw_topic(&w, "t", TID);
	kw_u8(&w, 0);
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
	/* null non-nullable topic name */
	kw_frame(&w, 2, 0);
	kw_str(&w, NULL);
	kw_uuid(&w, TID);
	kw_uv(&w, 0);
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
}

static void test_huge_lengths(void **state)
{
	struct kw w;
	struct ss_kraft_rec r;
	/* a compact string length far beyond the buffer */
	kw_frame(&w, 2, 0);
	kw_uv(&w, 0x7000);
	kw_bytes(&w, "abc", 3);
	assert_int_equal(dec(&w, &r), SEGSCAN_ETRUNC);
	/* beyond Short.MAX_VALUE: the generated code refuses such a string */
	kw_frame(&w, 2, 0);
	kw_uv(&w, 0x7fffff);
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
	/* a replicas array of 2^31-2 elements */
	kw_frame(&w, 3, 0);
	kw_i32(&w, 0);
	kw_uuid(&w, TID);
	kw_uv(&w, 0x7fffffff);
	assert_int_equal(dec(&w, &r), SEGSCAN_ETRUNC);
	/* a tagged-field count and a tag size beyond the buffer */
	kw_frame(&w, 24, 0);
	kw_uv(&w, 1000000);
	assert_int_equal(dec(&w, &r), SEGSCAN_ETRUNC);
	kw_frame(&w, 24, 0);
	kw_uv(&w, 1);
	kw_uv(&w, 0);
	kw_uv(&w, 500);
	assert_int_equal(dec(&w, &r), SEGSCAN_ETRUNC);
	/* a known tagged field whose size disagrees with its content */
	kw_frame(&w, 5, 0);
	kw_i32(&w, 0);
	kw_uuid(&w, TID);
	kw_uv(&w, 1);
	kw_uv(&w, 1);      /* Leader */
	kw_uv(&w, 5);      /* int32 + one stray byte */
	kw_i32(&w, 1);
	kw_u8(&w, 0);
	assert_int_equal(dec(&w, &r), SEGSCAN_ESCHEMA);
}

/* Every strict prefix of every valid record is an error, never a crash or a success. */
static void test_every_truncation(void **state)
{
	struct kw recs[8];
	int n = 0;
	build_partition(&recs[n++], 2, true);
	build_register(&recs[n++], 4);
	build_register(&recs[n++], 0);
	kw_topic(&recs[n++], "topic-name", TID);
	kw_config(&recs[n++], 2, "orders", "cleanup.policy", "compact,delete");
	kw_broker_change(&recs[n++], 1, 2, 1);
	kw_change(&recs[n++], TID, 1, 3, (const int32_t[]){ 3 }, 1);
	kw_feature_level(&recs[n++], "kraft.version", 1);
	for (int i = 0; i < n; i++) {
		struct ss_kraft_rec r;
		assert_int_equal(dec(&recs[i], &r), 0);
		size_t full = recs[i].n;
		for (size_t len = 0; len < full; len++) {
			recs[i].n = len;
			int rc = dec(&recs[i], &r);
			if (rc != SEGSCAN_ETRUNC && rc != SEGSCAN_ESCHEMA)
				fail_msg("record %d cut at %zu of %zu: rc %d", i, len, full, rc);
		}
		recs[i].n = full;
	}
}

static void test_control_type(void **state)
{
	assert_int_equal(ss_kraft_control_type((const uint8_t *)"\x00\x00\x00\x03", 4), SS_KC_SNAPSHOT_HEADER);
	assert_int_equal(ss_kraft_control_type((const uint8_t *)"\x00\x00\x00\x04", 4), SS_KC_SNAPSHOT_FOOTER);
	assert_int_equal(ss_kraft_control_type((const uint8_t *)"\x00\x00\x00\x02", 4), SS_KC_LEADER_CHANGE);
	assert_int_equal(ss_kraft_control_type((const uint8_t *)"\x00\x01\x00\x06", 4), SS_KC_KRAFT_VOTERS);
	assert_int_equal(ss_kraft_control_type((const uint8_t *)"\x00\x00\x00", 3), SEGSCAN_ETRUNC);
	assert_int_equal(ss_kraft_control_type((const uint8_t *)"\xff\xff\x00\x03", 4), SEGSCAN_ESCHEMA);
	assert_int_equal(ss_kraft_control_type(NULL, -1), SEGSCAN_ESCHEMA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topic_and_remove),
		cmocka_unit_test(test_partition_all_versions),
		cmocka_unit_test(test_partition_elr_tag_in_v1_is_unknown),
		cmocka_unit_test(test_partition_change_all_versions),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_register_broker_all_versions),
		cmocka_unit_test(test_broker_small_records),
		cmocka_unit_test(test_broker_registration_change_all_versions),
		cmocka_unit_test(test_feature_txn_noop),
		cmocka_unit_test(test_skipped_types_and_versions),
		cmocka_unit_test(test_frame_errors),
		cmocka_unit_test(test_huge_lengths),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_control_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
