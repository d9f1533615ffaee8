/*
 * `segscan dump` against Apache Kafka's own DumpLogSegments on the real-broker fixtures
 * (tests/fixtures/kafka/<case>/, README there). The dump runs in-process (src/dump/) with
 * -f ndjson over every file of every partition directory and its objects are compared,
 * field by field, with what DumpLogSegments printed:
 *
 *  - dump.json (shallow iteration): every batch of every segment (offsets, count, position,
 *    size, magic, codec, CRC and its verdict, producer fields, sequences, flags, timestamp
 *    type, max timestamp, delete horizon), the trailing bytes, every .index / .timeindex
 *    entry as listed, --verify-index failing exactly where Kafka reported mismatches, every
 *    aborted transaction of each .txnindex, every producer snapshot entry;
 *  - dump-records.json (--deep-iteration --print-data-log): every record (offset,
 *    timestamp, key and value sizes, sequence, header keys, control markers with their
 *    coordinator epoch, and key and payload text);
 *  - dump-decoders.json (--offsets-decoder, --transaction-log-decoder,
 *    --remote-log-metadata-decoder) and cluster-metadata.json (--cluster-metadata-decoder):
 *    the --decode=auto output of every record.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "dump/dump.h"
#include "dumputil.h"

#define FIXTURES "tests/fixtures/kafka"

/* paths are built from fixture names of a few dozen bytes; a cut one would fail a lookup */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static long n_batches, n_records, n_entries, n_snap, n_txn, n_decoded, n_verify, n_files, n_control;
static int mismatches;

#define MISMATCH(...)                                                                          \
	do {                                                                                   \
		if (mismatches++ < 40)                                                         \
			print_error(__VA_ARGS__);                                              \
	} while (0)

static json_t *load(const char *dir, const char *name)
{
	char p[1024];
	json_error_t e;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	struct stat st;
	if (stat(p, &st))
		return NULL;
	json_t *j = json_load_file(p, JSON_ALLOW_NUL, &e);
	if (!j)
		fail_msg("%s: %s", p, e.text);
	return j;
}

/* The dump of one file as an array of its ndjson objects; *status = ss_dump_file's. */
static json_t *run_dump(const char *path, const struct ss_dump_opts *o, int *status)
{
	n_files++;
	return du_dump_ndjson(path, o, status);
}

static json_t *file_end(json_t *items)
{
	json_t *e = du_of_type(items, "file_end");
	json_t *r = json_array_size(e) == 1 ? json_incref(json_array_get(e, 0)) : NULL;
	json_decref(e);
	return r;
}

/* Same JSON value, where a Kafka number may be our boolean/number/string and the reverse. */
static bool same(json_t *ours, json_t *kafka)
{
	if (json_equal(ours, kafka))
		return true;
	if (json_is_integer(ours) && json_is_string(kafka)) {
		char t[32];
		snprintf(t, sizeof(t), "%lld", (long long)json_integer_value(ours));
		return !strcmp(t, json_string_value(kafka));
	}
	return false;
}

static void cmp_field(const char *where, json_t *ours, const char *ok, json_t *kafka, const char *kk)
{
	json_t *a = json_object_get(ours, ok), *b = json_object_get(kafka, kk);
	if (!a || !b || !same(a, b)) {
		char *sa = a ? json_dumps(a, JSON_ENCODE_ANY) : strdup("(absent)");
		char *sb = b ? json_dumps(b, JSON_ENCODE_ANY) : strdup("(absent)");
		MISMATCH("%s: %s = %s, Kafka's %s = %s\n", where, ok, sa, kk, sb);
		free(sa);
		free(sb);
	}
}

/* ---- dump.json ---- */

static void check_batches(const char *path, json_t *seg)
{
	struct ss_dump_opts o = { .max_bytes = -1 };
	int st;
	json_t *items = run_dump(path, &o, &st);
	json_t *ours = du_of_type(items, "batch"), *kb = json_object_get(seg, "batches");
	if (json_array_size(ours) != json_array_size(kb))
		MISMATCH("%s: %zu batches, Kafka %zu\n", path, json_array_size(ours), json_array_size(kb));
	static const char *const map[][2] = {
		{ "base_offset", "base_offset" }, { "last_offset", "last_offset" }, { "count", "count" },
		{ "position", "position" }, { "size_bytes", "size" }, { "magic", "magic" },
		{ "compression", "compresscodec" }, { "crc", "crc" }, { "crc_valid", "is_valid" },
		{ "partition_leader_epoch", "partition_leader_epoch" }, { "producer_id", "producer_id" },
		{ "producer_epoch", "producer_epoch" }, { "base_sequence", "base_sequence" },
		{ "last_sequence", "last_sequence" }, { "transactional", "is_transactional" },
		{ "control", "is_control" }, { "timestamp_type", "timestamp_type" },
		{ "max_timestamp_ms", "max_timestamp" }, { "delete_horizon_ms", "delete_horizon_ms" },
	};
	for (size_t i = 0; i < json_array_size(ours) && i < json_array_size(kb); i++) {
		char where[600];
		snprintf(where, sizeof(where), "%s batch %zu", path, i);
		for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
			cmp_field(where, json_array_get(ours, i), map[k][0], json_array_get(kb, i), map[k][1]);
		n_batches++;
	}
	json_t *fe = file_end(items);
	assert_non_null(fe);
	const char *exc = json_string_value(json_object_get(seg, "exception"));
	int64_t trailing = json_integer_value(json_object_get(fe, "trailing_bytes"));
	if (!exc && trailing != json_integer_value(json_object_get(seg, "trailing_invalid_bytes")))
		MISMATCH("%s: trailing %lld, Kafka %lld\n", path, (long long)trailing,
			 (long long)json_integer_value(json_object_get(seg, "trailing_invalid_bytes")));
	/* Kafka's CorruptRecordException at a preallocated zero tail: ours is a zero_tail item */
	json_t *zt = du_of_type(items, "zero_tail");
	if (exc && strstr(exc, "record size 0") && json_array_size(zt) != 1)
		MISMATCH("%s: Kafka stopped at zeros (%s), no zero_tail here\n", path, exc);
	bool all_valid = json_is_true(json_object_get(seg, "all_batches_valid"));
	if (all_valid != (st == SS_DUMP_OK) && !exc)
		MISMATCH("%s: status %d, Kafka all_batches_valid %d\n", path, st, all_valid);
	json_decref(zt);
	json_decref(fe);
	json_decref(ours);
	json_decref(items);
}

static void check_index(const char *dir, json_t *ix, bool offsets)
{
	if (!json_is_object(ix))
		return;
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, json_string_value(json_object_get(ix, "file")));
	struct ss_dump_opts o = { .max_bytes = -1, .verify_index = true };
	int st;
	json_t *items = run_dump(path, &o, &st);
	json_t *ours = du_of_type(items, offsets ? "index_entry" : "time_index_entry");
	json_t *ke = json_object_get(ix, "entries");
	/* DumpLogSegments threw part way (an entry into an empty or zero-filled log): what it
	 * listed must begin ours, and ours must fail verification where it could not finish */
	bool threw = json_object_get(ix, "exception") != NULL;
	if (threw ? json_array_size(ours) < json_array_size(ke) : json_array_size(ours) != json_array_size(ke))
		MISMATCH("%s: %zu entries, Kafka %zu\n", path, json_array_size(ours), json_array_size(ke));
	for (size_t i = 0; i < json_array_size(ours) && i < json_array_size(ke); i++) {
		json_t *e = json_array_get(ours, i), *k = json_array_get(ke, i);
		int64_t a = json_integer_value(json_object_get(e, offsets ? "offset" : "timestamp_ms"));
		int64_t b = json_integer_value(json_object_get(e, offsets ? "position" : "offset"));
		if (a != json_integer_value(json_array_get(k, 0)) || b != json_integer_value(json_array_get(k, 1)))
			MISMATCH("%s entry %zu: [%lld, %lld], Kafka [%lld, %lld]\n", path, i, (long long)a, (long long)b,
				 (long long)json_integer_value(json_array_get(k, 0)),
				 (long long)json_integer_value(json_array_get(k, 1)));
		n_entries++;
	}
	/* --verify-index fails exactly where DumpLogSegments reported a mismatch */
	json_t *v = du_of_type(items, "verify_index");
	bool ok = json_array_size(v) == 1 && json_is_true(json_object_get(json_array_get(v, 0), "ok"));
	json_t *kerr = json_object_get(ix, "stderr");
	bool kafka_ok = (!kerr || json_array_size(kerr) == 0) && !threw;
	if (ok != kafka_ok) {
		char *s = kerr ? json_dumps(kerr, 0) : strdup("[]");
		json_t *r = json_object_get(json_array_get(v, 0), "reason");
		MISMATCH("%s: verify %s (%s), Kafka's reports %s\n", path, ok ? "passed" : "failed",
			 r ? json_string_value(r) : "", s);
		free(s);
	}
	if (ok != (st == SS_DUMP_OK))
		MISMATCH("%s: verify ok %d but status %d\n", path, ok, st);
	n_verify++;
	json_decref(v);
	json_decref(ours);
	json_decref(items);
}

static void check_txnindex(const char *dir, json_t *tx)
{
	if (!json_is_object(tx))
		return;
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, json_string_value(json_object_get(tx, "file")));
	struct ss_dump_opts o = { .max_bytes = -1 };
	int st;
	json_t *items = run_dump(path, &o, &st);
	json_t *ours = du_of_type(items, "aborted_txn"), *k = json_object_get(tx, "aborted_txns");
	if (json_array_size(ours) != json_array_size(k) || st)
		MISMATCH("%s: %zu aborted txns (status %d), Kafka %zu\n", path, json_array_size(ours), st,
			 json_array_size(k));
	for (size_t i = 0; i < json_array_size(ours) && i < json_array_size(k); i++) {
		static const char *const f[] = { "version", "producer_id", "first_offset", "last_offset",
						 "last_stable_offset" };
		for (size_t j = 0; j < 5; j++)
			cmp_field(path, json_array_get(ours, i), f[j], json_array_get(k, i), f[j]);
		n_txn++;
	}
	json_decref(ours);
	json_decref(items);
}

static void check_snapshot(const char *dir, json_t *sn)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, json_string_value(json_object_get(sn, "file")));
	struct ss_dump_opts o = { .max_bytes = -1 };
	int st;
	json_t *items = run_dump(path, &o, &st);
	json_t *ours = du_of_type(items, "producer"), *k = json_object_get(sn, "entries");
	if (json_array_size(ours) != json_array_size(k) || st)
		MISMATCH("%s: %zu producers (status %d), Kafka %zu\n", path, json_array_size(ours), st, json_array_size(k));
	static const char *const map[][2] = {
		{ "producer_id", "producerId" }, { "producer_epoch", "producerEpoch" },
		{ "coordinator_epoch", "coordinatorEpoch" }, { "last_timestamp_ms", "lastTimestamp" },
		{ "first_sequence", "firstSequence" }, { "last_sequence", "lastSequence" },
		{ "last_offset", "lastOffset" }, { "offset_delta", "offsetDelta" },
	};
	for (size_t i = 0; i < json_array_size(ours) && i < json_array_size(k); i++) {
		json_t *a = json_array_get(ours, i), *b = json_array_get(k, i);
		for (size_t j = 0; j < sizeof(map) / sizeof(map[0]); j++) {
			bool has_a = json_object_get(a, map[j][0]) != NULL, has_b = json_object_get(b, map[j][1]) != NULL;
			if (has_a || has_b)
				cmp_field(path, a, map[j][0], b, map[j][1]);
		}
		/* "OptionalLong.empty" / "OptionalLong[N]" */
		json_t *t = json_object_get(a, "current_txn_first_offset");
		const char *kt = json_string_value(json_object_get(b, "currentTxnFirstOffset"));
		char want[48];
		if (json_is_null(t))
			snprintf(want, sizeof(want), "OptionalLong.empty");
		else
			snprintf(want, sizeof(want), "OptionalLong[%lld]", (long long)json_integer_value(t));
		if (!kt || strcmp(want, kt))
			MISMATCH("%s: currentTxnFirstOffset %s, Kafka %s\n", path, want, kt ? kt : "?");
		n_snap++;
	}
	json_decref(ours);
	json_decref(items);
}

/* Every other file of the partition (leader-epoch-checkpoint, partition.metadata) dumps
 * without a problem: Kafka has no reading of them to compare with. */
static void check_other(const char *dir, json_t *names)
{
	size_t i;
	json_t *n;
	json_array_foreach(names, i, n) {
		const char *s = json_string_value(n);
		if (strcmp(s, "leader-epoch-checkpoint") && strcmp(s, "partition.metadata"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, s);
		struct ss_dump_opts o = { .max_bytes = -1 };
		int st;
		json_t *items = run_dump(path, &o, &st);
		json_t *e = du_of_type(items, s[0] == 'l' ? "leader_epoch" : "partition_metadata");
		if (st || (s[0] == 'p' && json_array_size(e) != 1))
			MISMATCH("%s: status %d, %zu items\n", path, st, json_array_size(e));
		json_decref(e);
		json_decref(items);
	}
}

static void check_dump_json(const char *cdir, const char *logdir, json_t *dump)
{
	size_t i, j;
	json_t *p, *s;
	json_array_foreach(json_object_get(dump, "partitions"), i, p) {
		char dir[1024];
		snprintf(dir, sizeof(dir), "%s/%s/%s", cdir, logdir, json_string_value(json_object_get(p, "dir")));
		json_array_foreach(json_object_get(p, "segments"), j, s) {
			char path[1100];
			if (!json_is_null(json_object_get(s, "file_size"))) {
				snprintf(path, sizeof(path), "%s/%020lld.log", dir,
					 (long long)json_integer_value(json_object_get(s, "base_offset")));
				check_batches(path, s);
			}
			check_index(dir, json_object_get(s, "index"), true);
			check_index(dir, json_object_get(s, "timeindex"), false);
			check_txnindex(dir, json_object_get(s, "txnindex"));
		}
		json_array_foreach(json_object_get(p, "producer_snapshots"), j, s)
			check_snapshot(dir, s);
		check_other(dir, json_object_get(p, "other_files"));
	}
}

/* ---- dump-records.json ---- */

static void check_records_file(const char *cdir, json_t *kf)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", cdir, json_string_value(json_object_get(kf, "file")));
	struct ss_dump_opts o = { .max_bytes = -1, .records = true, .print_data = true };
	int st;
	json_t *items = run_dump(path, &o, &st);
	json_t *ours = du_of_type(items, "record"), *k = json_object_get(kf, "records");
	if (json_array_size(ours) != json_array_size(k))
		MISMATCH("%s: %zu records, Kafka %zu\n", path, json_array_size(ours), json_array_size(k));
	for (size_t i = 0; i < json_array_size(ours) && i < json_array_size(k); i++) {
		json_t *a = json_array_get(ours, i), *b = json_array_get(k, i);
		char where[1100];
		snprintf(where, sizeof(where), "%s record %zu", path, i);
		cmp_field(where, a, "offset", b, "offset");
		cmp_field(where, a, "timestamp_ms", b, "timestamp");
		cmp_field(where, a, "key_size", b, "key_size");
		cmp_field(where, a, "value_size", b, "value_size");
		cmp_field(where, a, "sequence", b, "sequence");
		json_t *hk = json_array(), *h;
		size_t x;
		json_array_foreach(json_object_get(a, "headers"), x, h) json_array_append(hk, json_object_get(h, "key"));
		if (!json_equal(hk, json_object_get(b, "header_keys")))
			MISMATCH("%s: header keys differ\n", where);
		json_decref(hk);
		json_t *ctl = json_object_get(a, "control");
		if (json_object_get(b, "end_txn_marker")) {
			cmp_field(where, ctl, "type", b, "end_txn_marker");
			cmp_field(where, ctl, "coordinator_epoch", b, "coordinator_epoch");
		} else if (json_object_get(b, "control_type_id")) {
			cmp_field(where, ctl, "type_id", b, "control_type_id");
		} else if (ctl) {
			MISMATCH("%s: a control record here, not in Kafka's\n", where);
		} else {
			/* StringDecoder: UTF-8 text; compared where ours is text too */
			if (json_object_get(b, "key") &&
			    !strcmp(json_string_value(json_object_get(a, "key_encoding")) ?: "", "utf8"))
				cmp_field(where, a, "key", b, "key");
			/* a payload Kafka printed across lines lost its empty lines in the capture */
			if (json_object_get(b, "payload") && !json_is_true(json_object_get(b, "multiline")) &&
			    !strcmp(json_string_value(json_object_get(a, "value_encoding")) ?: "", "utf8"))
				cmp_field(where, a, "value", b, "payload");
			if (!json_object_get(b, "key") && !json_is_null(json_object_get(a, "key")))
				MISMATCH("%s: a key here, none in Kafka's\n", where);
		}
		n_records++;
	}
	json_decref(ours);
	json_decref(items);
}

/* ---- decoders ---- */

static json_t *decoded_of(json_t *rec) { return json_object_get(rec, "decoded"); }

static void check_decoded_file(const char *cdir, json_t *kf)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", cdir, json_string_value(json_object_get(kf, "file")));
	const char *dec = json_string_value(json_object_get(kf, "decoder"));
	struct ss_dump_opts o = { .max_bytes = -1, .decode = SS_DEC_AUTO };
	int st;
	json_t *items = run_dump(path, &o, &st);
	json_t *ours = du_of_type(items, "record"), *k = json_object_get(kf, "records");
	if (json_array_size(ours) != json_array_size(k) || st)
		MISMATCH("%s: %zu records (status %d), Kafka %zu\n", path, json_array_size(ours), st, json_array_size(k));
	for (size_t i = 0; i < json_array_size(ours) && i < json_array_size(k); i++) {
		json_t *a = json_array_get(ours, i), *b = json_array_get(k, i), *d = decoded_of(a);
		char where[1100];
		snprintf(where, sizeof(where), "%s record %zu (%s)", path, i, dec);
		cmp_field(where, a, "offset", b, "offset");
		if (json_object_get(a, "control"))
			continue;
		const char *payload = json_string_value(json_object_get(b, "payload"));
		if (!strcmp(dec, "--remote-log-metadata-decoder")) {
			/* Kafka prints RemoteLogMetadata.toString(): our fields must appear in it */
			char want[256];
			const char *sid = json_string_value(json_object_get(d, "segment_id"));
			const char *state = json_string_value(json_object_get(d, "state"));
			snprintf(want, sizeof(want), "state=%s", state ? state : "?");
			if (!payload || !strstr(payload, want))
				MISMATCH("%s: %s not in %s\n", where, want, payload ? payload : "(none)");
			if (sid) {
				snprintf(want, sizeof(want), "id=%s}", sid);
				if (!strstr(payload, want))
					MISMATCH("%s: %s not in %s\n", where, want, payload);
			}
			snprintf(want, sizeof(want), "eventTimestampMs=%lld",
				 (long long)json_integer_value(json_object_get(d, "event_timestamp_ms")));
			if (!strstr(payload, want))
				MISMATCH("%s: %s not in %s\n", where, want, payload);
			n_decoded++;
			continue;
		}
		/* offsets and transaction decoders print {"type"|"version": "N", "data": {...}} */
		json_t *kk = json_loads(json_string_value(json_object_get(b, "key")) ?: "null", JSON_DECODE_ANY, NULL);
		json_t *ok = json_object_get(d, "key");
		cmp_field(where, ok, "type", kk, "type");
		if (!json_equal(json_object_get(ok, "data"), json_object_get(kk, "data")))
			MISMATCH("%s: key data differs\n", where);
		json_t *ov = json_object_get(d, "value");
		if (payload && !strcmp(payload, "<DELETE>")) {
			if (!json_is_null(ov))
				MISMATCH("%s: Kafka's tombstone, a value here\n", where);
		} else {
			json_t *kv = json_loads(payload ?: "null", JSON_DECODE_ANY, NULL);
			cmp_field(where, ov, "version", kv, "version");
			json_t *od = json_object_get(ov, "data"), *kd = json_object_get(kv, "data");
			if (json_object_get(od, "members")) {
				/* GroupMetadataValue: Kafka expands the consumer protocol's subscription and
				 * assignment bytes; ours keeps their sizes: compare the rest */
				static const char *const f[] = { "protocolType", "generation", "protocol", "leader",
								 "currentStateTimestamp" };
				for (size_t j = 0; j < 5; j++)
					if (json_object_get(kd, f[j]) || json_object_get(od, f[j]))
						cmp_field(where, od, f[j], kd, f[j]);
				json_t *om = json_object_get(od, "members"), *km = json_object_get(kd, "members");
				if (json_array_size(om) != json_array_size(km))
					MISMATCH("%s: %zu members, Kafka %zu\n", where, json_array_size(om), json_array_size(km));
				static const char *const mf[] = { "memberId", "clientId", "clientHost", "sessionTimeout",
								  "rebalanceTimeout" };
				for (size_t m = 0; m < json_array_size(om) && m < json_array_size(km); m++)
					for (size_t j = 0; j < 5; j++)
						cmp_field(where, json_array_get(om, m), mf[j], json_array_get(km, m), mf[j]);
			} else if (!json_equal(od, kd)) {
				char *x = json_dumps(od, 0), *y = json_dumps(kd, 0);
				MISMATCH("%s: value data %s, Kafka %s\n", where, x, y);
				free(x);
				free(y);
			}
			json_decref(kv);
		}
		json_decref(kk);
		n_decoded++;
	}
	json_decref(ours);
	json_decref(items);
}

/* The KRaft control records of a metadata log or snapshot (LeaderChange, SnapshotHeader,
 * SnapshotFooter, KRaftVersion, KRaftVoters) against Kafka's control_records: same offsets,
 * same type, and the decoded value equal to the JSON Kafka's converter printed. */
static void check_controls(const char *path, json_t *records, json_t *kctl)
{
	static const char *const names[][2] = {
		{ "LEADER_CHANGE", "LeaderChange" }, { "SNAPSHOT_HEADER", "SnapshotHeader" },
		{ "SNAPSHOT_FOOTER", "SnapshotFooter" }, { "KRAFT_VERSION", "KRaftVersion" },
		{ "KRAFT_VOTERS", "KRaftVoters" },
	};
	json_t *ctl = json_array(), *r;
	size_t j;
	json_array_foreach(records, j, r) if (json_object_get(r, "control")) json_array_append(ctl, r);
	if (json_array_size(ctl) != json_array_size(kctl))
		MISMATCH("%s: %zu control records, Kafka %zu\n", path, json_array_size(ctl), json_array_size(kctl));
	for (j = 0; j < json_array_size(ctl) && j < json_array_size(kctl); j++) {
		json_t *a = json_array_get(ctl, j), *k = json_array_get(kctl, j), *c = json_object_get(a, "control");
		char where[1100];
		snprintf(where, sizeof(where), "%s control record %zu", path, j);
		cmp_field(where, a, "offset", k, "offset");
		const char *ours = json_string_value(json_object_get(c, "type")), *kt = json_string_value(json_object_get(k, "type"));
		const char *want = NULL;
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
			if (ours && !strcmp(ours, names[n][0]))
				want = names[n][1];
		if (!want || !kt || strcmp(want, kt))
			MISMATCH("%s: type %s, Kafka's %s\n", where, ours ? ours : "?", kt ? kt : "?");
		if (!json_equal(json_object_get(c, "data"), json_object_get(k, "data"))) {
			char *x = json_dumps(json_object_get(c, "data"), JSON_ENCODE_ANY);
			char *y = json_dumps(json_object_get(k, "data"), JSON_ENCODE_ANY);
			MISMATCH("%s: data %s, Kafka %s\n", where, x ? x : "(absent)", y ? y : "(absent)");
			free(x);
			free(y);
		}
		n_control++;
	}
	json_decref(ctl);
}

/* The record types whose fields segscan decodes (fmt/kraft.h, dump/decode.c kraft_data). */
static bool kraft_decoded_type(const char *t)
{
	static const char *const ts[] = {
		"TOPIC_RECORD", "REMOVE_TOPIC_RECORD", "PARTITION_RECORD", "PARTITION_CHANGE_RECORD", "CONFIG_RECORD",
		"REGISTER_BROKER_RECORD", "UNREGISTER_BROKER_RECORD", "FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD",
		"BROKER_REGISTRATION_CHANGE_RECORD", "FEATURE_LEVEL_RECORD", "BEGIN_TRANSACTION_RECORD",
		"ABORT_TRANSACTION_RECORD", "END_TRANSACTION_RECORD", "NO_OP_RECORD",
	};
	for (size_t i = 0; t && i < sizeof(ts) / sizeof(ts[0]); i++)
		if (!strcmp(t, ts[i]))
			return true;
	return false;
}

/* A --decode=cluster-metadata payload against ClusterMetadataLogMessageParser's: the same
 * keys (type, version, data, nothing else), and data the JSON Kafka's converter wrote, field
 * for field in its order (so the text format's " payload: " is Kafka's text), or null for a
 * record type segscan does not decode. */
static long n_kraft_exact, n_kraft_null;

static void check_kraft_payload(const char *where, json_t *d, json_t *kr)
{
	json_t *od = json_object_get(d, "data"), *kd = json_object_get(kr, "data");
	if (json_object_size(d) != 3 || !od)
		MISMATCH("%s: the payload's keys are not Kafka's type, version and data\n", where);
	if (!od)
		return;
	if (json_is_null(od)) {
		if (kraft_decoded_type(json_string_value(json_object_get(kr, "type"))))
			MISMATCH("%s: a %s without data\n", where, json_string_value(json_object_get(kr, "type")));
		n_kraft_null++;
		return;
	}
	char *a = json_dumps(od, JSON_COMPACT | JSON_ENCODE_ANY), *b = json_dumps(kd, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!a || !b || strcmp(a, b))
		MISMATCH("%s: data %s, Kafka's %s\n", where, a ? a : "?", b ? b : "?");
	else
		n_kraft_exact++;
	free(a);
	free(b);
}

/* cluster-metadata.json: type and version of every record, and its payload (above) */
static void check_cluster_metadata(const char *cdir, json_t *cm)
{
	size_t i, j;
	json_t *f, *kr;
	json_array_foreach(json_object_get(cm, "files"), i, f) {
		char path[1024];
		const char *name = json_string_value(json_object_get(f, "file"));
		const char *dir = json_string_value(json_object_get(cm, "dir"));
		if (!strcmp(name, "bootstrap.checkpoint"))
			snprintf(path, sizeof(path), "%s/logdir/%s", cdir, name);
		else
			snprintf(path, sizeof(path), "%s/logdir%s/%s/%s", cdir, strcmp(cdir + strlen(cdir) - 12, "multi-broker") ? "" : "-1",
				 dir, name);
		struct stat st_;
		if (stat(path, &st_))
			continue;
		struct ss_dump_opts o = { .max_bytes = -1, .decode = SS_DEC_KRAFT };
		int st;
		json_t *items = run_dump(path, &o, &st);
		json_t *ours = du_of_type(items, "record"), *nonctl = json_array(), *r;
		json_array_foreach(ours, j, r) if (!json_object_get(r, "control")) json_array_append(nonctl, r);
		json_t *krs = json_object_get(f, "records");
		if (json_array_size(nonctl) != json_array_size(krs))
			MISMATCH("%s: %zu metadata records, Kafka %zu\n", path, json_array_size(nonctl), json_array_size(krs));
		json_array_foreach(krs, j, kr) {
			if (j >= json_array_size(nonctl))
				break;
			json_t *a = json_array_get(nonctl, j), *d = decoded_of(a);
			char where[1100];
			snprintf(where, sizeof(where), "%s record %zu", path, j);
			cmp_field(where, a, "offset", kr, "offset");
			cmp_field(where, d, "type", kr, "type");
			cmp_field(where, d, "version", kr, "version");
			check_kraft_payload(where, d, kr);
			n_decoded++;
		}
		check_controls(path, ours, json_object_get(f, "control_records"));
		json_decref(nonctl);
		json_decref(ours);
		json_decref(items);
	}
}

/* Each entry of the "files" array of the case's fixture `name`, if it has one, checked by
 * `check` (check_records_file, check_decoded_file). */
static void check_each_file(const char *cdir, const char *name, void (*check)(const char *cdir, json_t *kf))
{
	json_t *j = load(cdir, name);
	if (!j)
		return;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "files"), i, f) check(cdir, f);
	json_decref(j);
}

static void test_dump_equals_kafka(void **state)
{
	(void)state;
	DIR *dp = opendir(FIXTURES);
	assert_non_null(dp);
	struct dirent *de;
	int cases = 0;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		char cdir[512];
		snprintf(cdir, sizeof(cdir), "%s/%s", FIXTURES, de->d_name);
		struct stat st;
		if (stat(cdir, &st) || !S_ISDIR(st.st_mode))
			continue;
		json_t *dump = load(cdir, "dump.json");
		if (dump) {
			check_dump_json(cdir, "logdir", dump);
			json_decref(dump);
		}
		for (int n = 1; n <= 3; n++) {   /* multi-broker: dump-N.json for logdir-N */
			char name[32], ld[32];
			snprintf(name, sizeof(name), "dump-%d.json", n);
			snprintf(ld, sizeof(ld), "logdir-%d", n);
			if ((dump = load(cdir, name))) {
				check_dump_json(cdir, ld, dump);
				json_decref(dump);
			}
		}
		check_each_file(cdir, "dump-records.json", check_records_file);
		check_each_file(cdir, "dump-decoders.json", check_decoded_file);
		json_t *cm = load(cdir, "cluster-metadata.json");
		if (cm) {
			check_cluster_metadata(cdir, cm);
			json_decref(cm);
		}
		cases++;
	}
	closedir(dp);
	print_message("dump vs DumpLogSegments: %d cases, %ld files: %ld batches, %ld records, %ld index entries "
		      "(%ld verified), %ld producer entries, %ld aborted txns, %ld decoded records, %ld KRaft control "
		      "records; metadata records: %ld as Kafka wrote them, %ld of types not decoded; %d mismatches\n",
		      cases, n_files, n_batches, n_records, n_entries, n_verify, n_snap, n_txn, n_decoded, n_control,
		      n_kraft_exact, n_kraft_null, mismatches);
	assert_true(cases >= 10);
	assert_true(n_batches > 1000 && n_records > 1000 && n_entries > 50 && n_snap > 5 && n_decoded > 100);
	assert_true(n_control >= 20);   /* 4 cases' LeaderChange records and snapshot headers/footers */
	assert_true(n_kraft_exact > 900 && n_kraft_null < n_kraft_exact / 10);
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_equals_kafka),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
