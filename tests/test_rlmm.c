/*
 * __remote_log_metadata decoding. Every byte vector below is written by hand from the
 * schemas in docs/kafka-format.md §6.2-6.4 (annotated field by field); murmur2 vectors
 * come from kafka-python (kafka.partitioner.default.murmur2) and Kafka's UtilsTest;
 * metadataPartition vectors from §6.1; Uuid text from Python's base64.urlsafe_b64encode.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/remote.h"
#include "fmt/rlmm.h"
#include "fmt/names.h"
#include "segscan.h"

#define TOPIC_ID 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10
#define SEG_ID   0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff
#define I64(v)   0, 0, 0, 0, 0, 0, 0, (v)
#define TS0      0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00   /* 1700000000000 */
#define TS1      0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x01
#define TS2      0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x02

static const char TOPIC_ID_TXT[] = "ASNFZ4mrze_-3LqYdlQyEA";
static const char SEG_ID_TXT[] = "ABEiM0RVZneImaq7zN3u_w";

/* apiKey 0, version 0: RemoteLogSegmentMetadataRecord */
static const uint8_t V0_SEGMENT[] = {
	0x01,                   /* frame version 1 */
	0x00,                   /* apiKey 0 */
	0x00,                   /* version 0 */
	/* RemoteLogSegmentId.TopicIdPartition */
	0x04, 'f', 'o', 'o',    /* Name: compact string, length 3 + 1 */
	TOPIC_ID,               /* Id */
	0x00, 0x00, 0x00, 0x02, /* Partition 2 */
	0x00,                   /* TopicIdPartition tagged fields: none */
	SEG_ID,                 /* RemoteLogSegmentId.Id */
	0x00,                   /* RemoteLogSegmentId tagged fields */
	I64(100),               /* StartOffset */
	I64(199),               /* EndOffset */
	0x00, 0x00, 0x00, 0x03, /* BrokerId */
	TS0,                    /* MaxTimestampMs */
	TS1,                    /* EventTimestampMs */
	0x03,                   /* SegmentLeaderEpochs: compact array, 2 + 1 */
	0x00, 0x00, 0x00, 0x05, I64(100), 0x00,   /* epoch 5 @ 100, no tags */
	0x00, 0x00, 0x00, 0x07, I64(150), 0x00,   /* epoch 7 @ 150 */
	0x00, 0x10, 0x00, 0x00, /* SegmentSizeInBytes 1048576 */
	0x00,                   /* CustomMetadata: null */
	0x00,                   /* RemoteLogSegmentState: COPY_SEGMENT_STARTED */
	0x00,                   /* tagged fields */
};

/* apiKey 0, version 1, with tagged fields at three levels incl. unknown ones */
static const uint8_t V1_SEGMENT[] = {
	0x01, 0x00, 0x01,
	0x04, 'b', 'a', 'r',
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0x00, 0x00, 0x00, 0x00, /* Partition 0 */
	0x01, 0x03, 0x01, 0xff, /* 1 tagged field: tag 3 (unknown), size 1, 0xff */
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00,
	I64(0), I64(9),
	0x00, 0x00, 0x00, 0x01,
	I64(16), I64(17),
	0x02,                                       /* 1 epoch */
	0x00, 0x00, 0x00, 0x00, I64(0),
	0x01, 0x05, 0x02, 0xab, 0xcd,               /* epoch entry: unknown tag 5, 2 bytes */
	0x00, 0x00, 0x01, 0x00,                     /* size 256 */
	0x03, 'h', 'i',                             /* CustomMetadata "hi" */
	0x00,
	0x03,                                       /* 3 tagged fields */
	0x00, 0x01, 0x01,                           /* tag 0 TxnIndexEmpty = true */
	0x01, 0x04, 0x00, 0x00, 0x00, 0x09,         /* tag 1 BrokerLeaderEpoch = 9 */
	0x07, 0x03, 0x01, 0x02, 0x03,               /* tag 7: unknown, skipped */
};

/* apiKey 1, version 0: RemoteLogSegmentMetadataUpdateRecord -> COPY_SEGMENT_FINISHED */
static const uint8_t V0_UPDATE[] = {
	0x01, 0x01, 0x00,
	0x04, 'f', 'o', 'o', TOPIC_ID, 0x00, 0x00, 0x00, 0x02, 0x00,
	SEG_ID, 0x00,
	0x00, 0x00, 0x00, 0x04, /* BrokerId 4 */
	TS2,                    /* EventTimestampMs */
	0x01,                   /* CustomMetadata: empty, not null */
	0x01,                   /* COPY_SEGMENT_FINISHED */
	0x00,
};

/* apiKey 1, version 1: BrokerLeaderEpoch (tag 0) and EndOffset (tag 1) */
static const uint8_t V1_UPDATE[] = {
	0x01, 0x01, 0x01,
	0x04, 'f', 'o', 'o', TOPIC_ID, 0x00, 0x00, 0x00, 0x02, 0x00,
	SEG_ID, 0x00,
	0x00, 0x00, 0x00, 0x04, TS2,
	0x00,                   /* CustomMetadata null */
	0x02,                   /* DELETE_SEGMENT_STARTED */
	0x02,
	0x00, 0x04, 0x00, 0x00, 0x00, 0x0c,         /* BrokerLeaderEpoch 12 */
	0x01, 0x08, I64(199),                       /* EndOffset 199 */
};

/* apiKey 2, version 0: RemotePartitionDeleteMetadataRecord */
static const uint8_t V0_PDELETE[] = {
	0x01, 0x02, 0x00,
	0x04, 'f', 'o', 'o', TOPIC_ID, 0x00, 0x00, 0x00, 0x02, 0x00,
	0x00, 0x00, 0x00, 0x05, /* BrokerId */
	TS2,
	0x01,                   /* DELETE_PARTITION_STARTED */
	0x00,
};

/* apiKey 3, version 0: RemoteLogSegmentMetadataSnapshotRecord */
static const uint8_t V0_SNAPSHOT[] = {
	0x01, 0x03, 0x00,
	SEG_ID,
	I64(100), I64(199),
	0x00, 0x00, 0x00, 0x03, TS0, TS1,
	0x02, 0x00, 0x00, 0x00, 0x05, I64(100), 0x00,
	0x00, 0x00, 0x00, 0x10,
	0x00,
	0x01,                   /* COPY_SEGMENT_FINISHED */
	0x00,
};

static const uint8_t tid_bytes[16] = { TOPIC_ID };
static const uint8_t sid_bytes[16] = { SEG_ID };

static void test_v0_segment(void **state)
{
	(void)state;
	struct ss_rlmm_rec d;
	assert_int_equal(ss_rlmm_decode(V0_SEGMENT, sizeof(V0_SEGMENT), &d), 0);
	assert_int_equal(d.api_key, 0);
	assert_int_equal(d.version, 0);
	assert_int_equal(d.ev.type, SS_REV_SEGMENT);
	assert_int_equal(d.ev.topic_len, 3);
	assert_memory_equal(d.ev.topic, "foo", 3);
	assert_true(d.ev.has_topic_id);
	assert_memory_equal(d.ev.topic_id, tid_bytes, 16);
	assert_int_equal(d.ev.partition, 2);
	assert_memory_equal(d.ev.id_bytes, sid_bytes, 16);
	assert_int_equal(d.ev.segment_id_len, 22);
	assert_memory_equal(d.ev.segment_id, SEG_ID_TXT, 22);
	assert_int_equal(d.ev.start_offset, 100);
	assert_int_equal(d.ev.end_offset, 199);
	assert_int_equal(d.ev.broker_id, 3);
	assert_int_equal(d.ev.max_timestamp_ms, 1700000000000LL);
	assert_int_equal(d.ev.event_timestamp_ms, 1700000000001LL);
	assert_int_equal(d.ev.n_epochs, 2);
	assert_int_equal(d.ev.epochs[0].epoch, 5);
	assert_int_equal(d.ev.epochs[0].start_offset, 100);
	assert_int_equal(d.ev.epochs[1].epoch, 7);
	assert_int_equal(d.ev.epochs[1].start_offset, 150);
	assert_int_equal(d.ev.size_bytes, 1048576);
	assert_false(d.has_custom_metadata);
	assert_int_equal(d.ev.state, SS_RSEG_COPY_STARTED);
	assert_int_equal(d.unknown_tags, 0);
	assert_false(d.has_txn_index_empty);
	assert_int_equal(d.broker_leader_epoch, -1);
	ss_rlmm_rec_free(&d);
}

static void test_v1_segment_tags(void **state)
{
	(void)state;
	struct ss_rlmm_rec d;
	assert_int_equal(ss_rlmm_decode(V1_SEGMENT, sizeof(V1_SEGMENT), &d), 0);
	assert_int_equal(d.version, 1);
	assert_memory_equal(d.ev.topic, "bar", 3);
	assert_int_equal(d.ev.partition, 0);
	assert_memory_equal(d.ev.segment_id, "EBESExQVFhcYGRobHB0eHw", 22);
	assert_int_equal(d.ev.start_offset, 0);
	assert_int_equal(d.ev.end_offset, 9);
	assert_int_equal(d.ev.max_timestamp_ms, 16);
	assert_int_equal(d.ev.event_timestamp_ms, 17);
	assert_int_equal(d.ev.n_epochs, 1);
	assert_int_equal(d.ev.size_bytes, 256);
	assert_true(d.has_custom_metadata);
	assert_int_equal(d.custom_metadata_len, 2);
	assert_true(d.has_txn_index_empty);
	assert_true(d.txn_index_empty);
	assert_int_equal(d.broker_leader_epoch, 9);
	assert_int_equal(d.unknown_tags, 3);
	ss_rlmm_rec_free(&d);
}

static void test_updates_delete_snapshot(void **state)
{
	(void)state;
	struct ss_rlmm_rec d;
	assert_int_equal(ss_rlmm_decode(V0_UPDATE, sizeof(V0_UPDATE), &d), 0);
	assert_int_equal(d.ev.type, SS_REV_UPDATE);
	assert_memory_equal(d.ev.segment_id, SEG_ID_TXT, 22);
	assert_int_equal(d.ev.broker_id, 4);
	assert_int_equal(d.ev.event_timestamp_ms, 1700000000002LL);
	assert_true(d.has_custom_metadata);
	assert_int_equal(d.custom_metadata_len, 0);
	assert_int_equal(d.ev.state, SS_RSEG_COPY_FINISHED);
	ss_rlmm_rec_free(&d);

	assert_int_equal(ss_rlmm_decode(V1_UPDATE, sizeof(V1_UPDATE), &d), 0);
	assert_int_equal(d.ev.state, SS_RSEG_DELETE_STARTED);
	assert_int_equal(d.broker_leader_epoch, 12);
	assert_int_equal(d.update_end_offset, 199);
	assert_int_equal(d.unknown_tags, 0);
	ss_rlmm_rec_free(&d);

	assert_int_equal(ss_rlmm_decode(V0_PDELETE, sizeof(V0_PDELETE), &d), 0);
	assert_int_equal(d.ev.type, SS_REV_PARTITION_DELETE);
	assert_memory_equal(d.ev.topic, "foo", 3);
	assert_int_equal(d.ev.partition, 2);
	assert_int_equal(d.ev.broker_id, 5);
	assert_int_equal(d.ev.state, SS_RPART_DELETE_STARTED);
	ss_rlmm_rec_free(&d);

	assert_int_equal(ss_rlmm_decode(V0_SNAPSHOT, sizeof(V0_SNAPSHOT), &d), 0);
	assert_int_equal(d.ev.type, SS_REV_SNAPSHOT);
	assert_memory_equal(d.ev.segment_id, SEG_ID_TXT, 22);
	assert_int_equal(d.ev.end_offset, 199);
	assert_int_equal(d.ev.size_bytes, 16);
	assert_int_equal(d.ev.state, SS_RSEG_COPY_FINISHED);
	assert_false(d.ev.has_topic_id);
	ss_rlmm_rec_free(&d);
}

/* Every proper prefix is a truncation; one more byte is garbage. */
static void check_truncations(const uint8_t *v, size_t n)
{
	struct ss_rlmm_rec d;
	for (size_t k = 0; k < n; k++) {
		int e = ss_rlmm_decode(v, k, &d);
		if (e != SEGSCAN_ETRUNC)
			fail_msg("prefix %zu of %zu: got %d (%s)", k, n, e, segscan_strerror(e));
		ss_rlmm_rec_free(&d);
	}
	uint8_t *g = malloc(n + 1);
	assert_non_null(g);
	memcpy(g, v, n);
	g[n] = 0x00;
	assert_int_equal(ss_rlmm_decode(g, n + 1, &d), SEGSCAN_ESCHEMA);
	free(g);
}

static void test_truncated_and_garbage(void **state)
{
	(void)state;
	check_truncations(V0_SEGMENT, sizeof(V0_SEGMENT));
	check_truncations(V1_SEGMENT, sizeof(V1_SEGMENT));
	check_truncations(V0_UPDATE, sizeof(V0_UPDATE));
	check_truncations(V1_UPDATE, sizeof(V1_UPDATE));
	check_truncations(V0_PDELETE, sizeof(V0_PDELETE));
	check_truncations(V0_SNAPSHOT, sizeof(V0_SNAPSHOT));
}

static int decode_patched(const uint8_t *v, size_t n, size_t at, uint8_t byte)
{
	uint8_t buf[256];
	struct ss_rlmm_rec d;
	assert_true(n <= sizeof(buf));
	memcpy(buf, v, n);
	buf[at] = byte;
	int e = ss_rlmm_decode(buf, n, &d);
	ss_rlmm_rec_free(&d);
	return e;
}

static void test_schema_errors(void **state)
{
	(void)state;
	size_t n = sizeof(V0_SEGMENT);
	assert_int_equal(decode_patched(V0_SEGMENT, n, 0, 0x00), SEGSCAN_ESCHEMA);   /* frame version 0 */
	assert_int_equal(decode_patched(V0_SEGMENT, n, 0, 0x02), SEGSCAN_ESCHEMA);   /* frame version 2 */
	assert_int_equal(decode_patched(V0_SEGMENT, n, 1, 0x04), SEGSCAN_ESCHEMA);   /* apiKey 4 */
	assert_int_equal(decode_patched(V0_SEGMENT, n, 2, 0x02), SEGSCAN_ESCHEMA);   /* version 2 */
	assert_int_equal(decode_patched(V0_PDELETE, sizeof(V0_PDELETE), 2, 0x01), SEGSCAN_ESCHEMA);
	assert_int_equal(decode_patched(V0_SEGMENT, n, 3, 0x00), SEGSCAN_ESCHEMA);   /* null topic name */
	assert_int_equal(decode_patched(V0_SEGMENT, n, n - 2, 0x05), SEGSCAN_ESCHEMA);   /* state 5 */
	assert_int_equal(decode_patched(V0_SEGMENT, n, n - 2, 0x04), 0);   /* DANGLING is a state */
	/* SegmentLeaderEpochs count byte: null array */
	size_t ep = 3 + 4 + 16 + 4 + 1 + 16 + 1 + 8 + 8 + 4 + 8 + 8;
	assert_int_equal(V0_SEGMENT[ep], 0x03);
	assert_int_equal(decode_patched(V0_SEGMENT, n, ep, 0x00), SEGSCAN_ESCHEMA);
	/* a count the input cannot hold */
	assert_int_equal(decode_patched(V0_SEGMENT, n, ep, 0x7f), SEGSCAN_ETRUNC);
	/* TxnIndexEmpty with a size of 2 */
	size_t t0 = sizeof(V1_SEGMENT) - 14;
	assert_int_equal(V1_SEGMENT[t0], 0x00);
	assert_int_equal(decode_patched(V1_SEGMENT, sizeof(V1_SEGMENT), t0 + 1, 0x02), SEGSCAN_ESCHEMA);
	/* an overlong varint */
	static const uint8_t ovl[] = { 0x81, 0x80, 0x80, 0x80, 0x80, 0x00 };
	struct ss_rlmm_rec d;
	assert_int_equal(ss_rlmm_decode(ovl, sizeof(ovl), &d), SEGSCAN_EVARINT);
	/* a 5-byte varint is fine when it fits 32 bits: 1 */
	static const uint8_t five[] = { 0x81, 0x80, 0x80, 0x80, 0x00 };
	assert_int_equal(ss_rlmm_decode(five, sizeof(five), &d), SEGSCAN_ETRUNC);
	assert_int_equal(ss_rlmm_decode(NULL, 0, &d), SEGSCAN_ETRUNC);
}

/* Decoded records replay into a KAFKA-mode store like NDJSON ones. */
static void test_replay_decoded(void **state)
{
	(void)state;
	struct ss_remote *r;
	struct ss_rlmm_rec d;
	char msg[256];
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_rlmm_decode(V0_SEGMENT, sizeof(V0_SEGMENT), &d), 0);
	assert_int_equal(ss_remote_apply(r, &d.ev, msg, sizeof(msg)), 0);
	ss_rlmm_rec_free(&d);
	assert_int_equal(ss_rlmm_decode(V0_UPDATE, sizeof(V0_UPDATE), &d), 0);
	assert_int_equal(ss_remote_apply(r, &d.ev, msg, sizeof(msg)), 0);
	ss_rlmm_rec_free(&d);
	const struct ss_remote_part *p = ss_remote_find(r, "foo", 2, tid_bytes);
	assert_non_null(p);
	const struct ss_rseg *s = ss_remote_seg(p, 0);
	assert_string_equal(s->id, SEG_ID_TXT);
	assert_true(s->has_id_bytes);
	assert_memory_equal(s->id_bytes, sid_bytes, 16);
	assert_int_equal(s->state, SS_RSEG_COPY_FINISHED);
	assert_int_equal(s->event_ms, 1700000000002LL);
	int64_t h;
	assert_true(ss_remote_highest_for_epoch(p, 5, &h));
	assert_int_equal(h, 149);
	assert_true(ss_remote_highest_for_epoch(p, 7, &h));
	assert_int_equal(h, 199);
	/* a snapshot record is refused, counted */
	assert_int_equal(ss_rlmm_decode(V0_SNAPSHOT, sizeof(V0_SNAPSHOT), &d), 0);
	assert_int_equal(ss_remote_apply(r, &d.ev, msg, sizeof(msg)), 1);
	ss_rlmm_rec_free(&d);
	assert_int_equal(ss_rlmm_decode(V0_PDELETE, sizeof(V0_PDELETE), &d), 0);
	assert_int_equal(ss_remote_apply(r, &d.ev, msg, sizeof(msg)), 0);
	ss_rlmm_rec_free(&d);
	assert_int_equal(p->delete_state, SS_RPART_DELETE_STARTED);
	ss_remote_free(r);
}

static void test_murmur2(void **state)
{
	(void)state;
	static const struct { const char *s; uint32_t h; } v[] = {
		/* kafka-python murmur2 (and Kafka's UtilsTest for "21", "foobar", "abc", ...) */
		{ "", 275646681u },
		{ "a", 2731586172u },
		{ "ab", 316155434u },
		{ "abc", 479470107u },
		{ "21", 3321034988u },   /* -973932308 */
		{ "foobar", 3504634814u },
		{ "a-little-bit-long-string", 3308985760u },
		{ "a-little-bit-longer-string", 2808662467u },
		{ "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", 4236069325u },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(ss_murmur2(v[i].s, strlen(v[i].s)), v[i].h);
	/* §6.1: h(topic, partition 0) = 0x1111835f -> murmur 0x6c518351 */
	static const uint8_t b[4] = { 0x11, 0x11, 0x83, 0x5f };
	assert_int_equal(ss_murmur2(b, 4), 0x6c518351u);
}

static void test_metadata_partition(void **state)
{
	(void)state;
	uint8_t tid[16];
	assert_int_equal(ss_uuid_parse(TOPIC_ID_TXT, 22, tid), 0);
	assert_memory_equal(tid, tid_bytes, 16);
	assert_int_equal(ss_rlmm_metadata_partition(tid, 0, 50), 11);
	assert_int_equal(ss_rlmm_metadata_partition(tid, 1, 50), 2);
	assert_int_equal(ss_rlmm_metadata_partition(tid, 2, 50), 38);
	assert_int_equal(ss_rlmm_metadata_partition(tid, 3, 50), 12);
	assert_int_equal(ss_rlmm_metadata_partition(tid, 0, 1), 0);
}

static void test_uuid_text(void **state)
{
	(void)state;
	char out[23];
	uint8_t b[16];
	ss_uuid_format(tid_bytes, out);
	assert_string_equal(out, TOPIC_ID_TXT);
	ss_uuid_format(sid_bytes, out);
	assert_string_equal(out, SEG_ID_TXT);
	memset(b, 0, 16);
	ss_uuid_format(b, out);
	assert_string_equal(out, "AAAAAAAAAAAAAAAAAAAAAA");
	memset(b, 0xff, 16);
	ss_uuid_format(b, out);
	assert_string_equal(out, "_____________________w");
	assert_int_equal(ss_uuid_parse("_____________________w", 22, b), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(b[i], 0xff);
	assert_int_equal(ss_uuid_parse("AAAAAAAAAAAAAAAAAAAAAA", 22, b), 0);   /* zero parses */
	assert_int_equal(ss_uuid_parse("ASNFZ4mrze_-3LqYdlQyEA==", 24, b), 0);   /* padded, as Java */
	assert_memory_equal(b, tid_bytes, 16);
	assert_int_equal(ss_uuid_parse("ASNFZ4mrze_-3LqYdlQyE", 21, b), -EINVAL);
	assert_int_equal(ss_uuid_parse("ASNFZ4mrze/+3LqYdlQyEA", 22, b), -EINVAL);   /* base64, not url */
	assert_int_equal(ss_uuid_parse("ASNFZ4mrze_-3LqYdlQyEA=x", 24, b), -EINVAL);
	assert_int_equal(ss_uuid_parse("ASNFZ4mrze_-3LqYdlQyEAAA", 24, b), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v0_segment),
		cmocka_unit_test(test_v1_segment_tags),
		cmocka_unit_test(test_updates_delete_snapshot),
		cmocka_unit_test(test_truncated_and_garbage),
		cmocka_unit_test(test_schema_errors),
		cmocka_unit_test(test_replay_decoded),
		cmocka_unit_test(test_murmur2),
		cmocka_unit_test(test_metadata_partition),
		cmocka_unit_test(test_uuid_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
