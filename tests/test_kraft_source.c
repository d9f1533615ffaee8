/*
 * The KRaft metadata log as `segscan scan` reads it, end to end, on hostile and damaged
 * logs (issue 21 items 3, 5, 12; issue 20 item 7):
 * - one metadata transaction of 2.4 million NoOpRecords under a 600-byte log dir path, the
 *   scan under `ulimit -v 1500000`: a report, not an allocation failure;
 * - a flipped bit in a record of a real Kafka broker's metadata log
 *   (tests/fixtures/kafka/cluster-meta): the batch is reported with file and byte
 *   position, its records are not applied, what it could have changed is unknown;
 * - an unparseable dynamic topic config: a warning naming topic, key and value, the value
 *   reported with the source it has;
 * - a real broker's checkpoint files at mode 0400, owned by another user: scanned as
 *   nobody (a warning, and what it leaves unknown) and as nobody with the systemd unit's
 *   one capability (everything read).
 */
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fmt/batch.h"
#include "gen/encode.h"
#include "kraft_enc.h"
#include "source/metadata_log.h"
#include "testutil.h"

#define FIXTURES "tests/fixtures/kafka"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

/* ---- writing metadata log segments ------------------------------------------------------- */

struct seg {
	FILE   *f;
	int64_t next;      /* next offset */
	struct ss_enc e;
	int     in_batch;
};

static void seg_flush(struct seg *s)
{
	if (!s->in_batch)
		return;
	const uint8_t *out;
	size_t len;
	assert_int_equal(ss_enc_finish(&s->e, &out, &len), 0);
	assert_int_equal(fwrite(out, 1, len, s->f), len);
	s->in_batch = 0;
}

static void seg_add(struct seg *s, const struct kw *w)
{
	if (!s->in_batch)
		ss_enc_begin(&s->e, &(struct ss_enc_batch){ .base_offset = s->next, .leader_epoch = 1, .producer_id = -1,
							   .producer_epoch = -1, .base_sequence = -1 });
	struct ss_enc_record r = { .timestamp = 1700000000000LL, .offset_delta = s->in_batch, .key_len = -1,
				   .value = w->b, .value_len = (int32_t)w->n };
	assert_int_equal(ss_enc_append(&s->e, &r), 0);
	s->next++;
	/* KafkaRaftClient's batches hold at most 8 MiB; a few thousand small records each */
	if (++s->in_batch == 4000)
		seg_flush(s);
}

static char *path_join(const char *a, const char *b)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s", a, b) > 0);
	return p;
}

/* Run segscan; its JSON report (NULL if stdout is not JSON), exit code, stderr text. */
static json_t *scan_json(const char *prefix, const char *args, int *rc, char **err)
{
	char *out = NULL, *errf = path_join(getenv("SEGSCAN_TEST_TMP") ? getenv("SEGSCAN_TEST_TMP") : "/tmp",
					    "kraft_source.err");
	int r = tu_run(&out, "%s %s scan -q -f json %s 2>%s", prefix ? prefix : "", tu_segscan(), args, errf);
	if (rc)
		*rc = r;
	if (err)
		*err = tu_read_file(errf, NULL);
	unlink(errf);
	free(errf);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	free(out);
	return j;
}

static json_t *cluster_meta(json_t *rep)
{
	return json_object_get(json_object_get(rep, "summary"), "cluster_metadata");
}

/* ---- issue 21 item 5: one transaction of 2.4 million records ------------------------------- */

static void test_huge_transaction_under_ulimit(void **state)
{
#ifdef SANITIZED
	skip(); /* a sanitizer's shadow memory does not fit under ulimit -v */
#endif
	char *root = tu_mkdtemp("kraft-txn");
	assert_non_null(root);
	/* a log dir 600 bytes deep */
	char *deep = strdup(root);
	while (strlen(deep) < 600) {
		char *n = path_join(deep, "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
		free(deep);
		deep = n;
		assert_int_equal(mkdir(deep, 0755), 0);
	}
	char *mdir = path_join(deep, SS_MLOG_DIRNAME);
	assert_int_equal(mkdir(mdir, 0755), 0);
	char *segp = path_join(mdir, "00000000000000000000.log");
	struct seg s = { .f = fopen(segp, "wb") };
	assert_non_null(s.f);
	ss_enc_init(&s.e);
	struct kw w;
	uint8_t id[16] = { 0x7a, 1 };
	kw_feature_level(&w, "metadata.version", 27);
	seg_add(&s, &w);
	kw_topic(&w, "before", id);
	seg_add(&s, &w);
	kw_config(&w, 2, "before", "retention.ms", "3600000");
	seg_add(&s, &w);
	kw_empty(&w, SS_KR_BEGIN_TRANSACTION);
	seg_add(&s, &w);
	kw_empty(&w, SS_KR_NO_OP);
	for (int i = 0; i < 2400000; i++)
		seg_add(&s, &w);
	seg_flush(&s);
	ss_enc_free(&s.e);
	assert_int_equal(fclose(s.f), 0);
	struct stat st;
	assert_int_equal(stat(segp, &st), 0);
	print_message("metadata log of %lld bytes under a %zu-byte path\n", (long long)st.st_size, strlen(deep));

	/* the limit: 1.5 GB of address space */
	char *args = NULL;
	assert_true(asprintf(&args, "--now=1700000000000 '%s'", deep) > 0);
	int rc;
	char *err = NULL;
	json_t *rep = scan_json("ulimit -v 1500000;", args, &rc, &err);
	if (!rep)
		fail_msg("no report under ulimit -v 1500000 (exit %d): %s", rc, err ? err : "");
	assert_true(rc == 0 || rc == 1);
	json_t *cm = cluster_meta(rep);
	assert_true(json_is_true(json_object_get(cm, "used")));
	assert_int_equal(json_integer_value(json_object_get(cm, "records")), 2400004);
	bool said = false;
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(cm, "warning_messages"), i, m)
		said |= strstr(json_string_value(m), "ends inside the transaction begun at offset 3") != NULL;
	assert_true(said);
	json_decref(rep);
	free(err);
	free(args);
	free(segp);
	free(mdir);
	free(deep);
	free(root);
}


/* ---- the real broker's metadata log, copied and changed ------------------------------------ */

static long long now_of(const char *dir)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s/case.json", FIXTURES, dir) > 0);
	json_error_t je;
	json_t *c = json_load_file(p, 0, &je);
	assert_non_null(c);
	long long n = (long long)json_integer_value(json_object_get(c, "capture_time_ms"));
	json_decref(c);
	free(p);
	return n;
}

/* A copy of cluster-meta's log dir in a fresh directory every user can reach (0755). */
static char *copy_fixture(char **root_out)
{
	char tmpl[] = "/tmp/segscan-kraft.XXXXXX";
	char *root = mkdtemp(tmpl);
	assert_non_null(root);
	assert_int_equal(chmod(root, 0755), 0);
	assert_int_equal(tu_run(NULL, "cp -a %s/cluster-meta/logdir '%s/logdir'", FIXTURES, root), 0);
	*root_out = strdup(root);
	return path_join(root, "logdir");
}

static void remove_tree(char *root)
{
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

static const char *MDIR = SS_MLOG_DIRNAME;

/* Flip one bit of the file at byte `at`. */
static void flip_bit(const char *logdir, const char *file, long at)
{
	char *d = path_join(logdir, MDIR), *p = path_join(d, file);
	FILE *f = fopen(p, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, at, SEEK_SET), 0);
	int c = fgetc(f);
	assert_true(c != EOF);
	assert_int_equal(fseek(f, at, SEEK_SET), 0);
	assert_int_equal(fputc(c ^ 0x08, f), c ^ 0x08);
	assert_int_equal(fclose(f), 0);
	free(p);
	free(d);
}

static json_t *part_of(json_t *rep, const char *topic, int partition)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rep, "partitions"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "topic")), topic) &&
		    json_integer_value(json_object_get(p, "partition")) == partition)
			return p;
	return NULL;
}

static json_t *cfg_of(json_t *rep, const char *topic, const char *key)
{
	json_t *p = part_of(rep, topic, 0);
	assert_non_null(p);
	json_t *e = json_object_get(json_object_get(p, "config"), key);
	assert_non_null(e);
	return e;
}

static bool has_msg(json_t *rep, const char *a, const char *b)
{
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(cluster_meta(rep), "warning_messages"), i, m)
		if (strstr(json_string_value(m), a) && (!b || strstr(json_string_value(m), b)))
			return true;
	return false;
}

static int count_code(json_t *rep, const char *code)
{
	size_t i, j;
	json_t *p, *f;
	int n = 0;
	json_array_foreach(json_object_get(rep, "partitions"), i, p)
		json_array_foreach(json_object_get(p, "findings"), j, f)
			n += !strcmp(json_string_value(json_object_get(f, "code")), code);
	return n;
}

static json_t *scan_fixture(const char *prefix, const char *logdir, int *rc, char **err)
{
	char *args = NULL;
	assert_true(asprintf(&args, "--now=%lld --broker-process=off '%s'", now_of("cluster-meta"), logdir) > 0);
	json_t *rep = scan_json(prefix, args, rc, err);
	free(args);
	if (!rep)
		fail_msg("segscan printed no JSON report (exit %d): %s", rc ? *rc : -1, err && *err ? *err : "");
	return rep;
}

/* ---- zeros in the metadata log: a tail, or a hole before data ------------------------------ */

static void append_to(const char *logdir, const char *file, size_t zeros, const char *data)
{
	char *d = path_join(logdir, MDIR), *p = path_join(d, file);
	FILE *f = fopen(p, "ab");
	assert_non_null(f);
	for (size_t i = 0; i < zeros; i++)
		assert_int_equal(fputc(0, f), 0);
	if (data)
		assert_int_equal(fputs(data, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	free(p);
	free(d);
}

/*
 * Zeros after the last batch of the last segment are a tail (a crashed or preallocated
 * segment): nothing is lost. Zeros and then data are damage, found wherever the data lies
 * (the one reader checks the zeros to the end of the file; a 4 KiB probe of them took the
 * data for a tail before): the replay stops there and says what that leaves unknown.
 */
static void test_zeros_then_data(void **state)
{
	char *root, *logdir = copy_fixture(&root);
	int rc;
	char *err = NULL;
	append_to(logdir, "00000000000000000115.log", 70000, NULL);
	json_t *rep = scan_fixture(NULL, logdir, &rc, &err);
	assert_true(json_is_true(json_object_get(cluster_meta(rep), "complete")));
	json_decref(rep);
	free(err);
	append_to(logdir, "00000000000000000115.log", 0, "data");
	rep = scan_fixture(NULL, logdir, &rc, &err);
	assert_false(json_is_true(json_object_get(cluster_meta(rep), "complete")));
	assert_true(has_msg(rep, "__cluster_metadata-0/00000000000000000115.log: byte 1038: ",
			    "record batch framing is corrupt: the replay stops here"));
	json_decref(rep);
	free(err);
	free(logdir);
	remove_tree(root);
}

/* ---- issue 21 item 3: a flipped bit in a record of the real log ------------------------- */

/*
 * cluster-meta's log after its newest snapshot (offset 108) ends with the broker's clean
 * shutdown: 00000000000000000115.log byte 144 is the batch of offsets 117-129, twelve
 * PartitionChangeRecords (leader -1, ISR [] for every partition), then NoOp and a
 * BrokerRegistrationChangeRecord. One bit flipped inside its first record.
 */
static void test_crc_flipped_bit_in_real_log(void **state)
{
	char *root, *logdir = copy_fixture(&root);
	int rc;
	char *err = NULL;
	json_t *good = scan_fixture(NULL, logdir, &rc, &err);
	free(err);
	assert_true(json_is_true(json_object_get(cluster_meta(good), "complete")));
	assert_string_equal(json_string_value(json_object_get(cfg_of(good, "dyn-config", "retention.ms"), "source")),
			    "DYNAMIC_TOPIC_CONFIG");

	flip_bit(logdir, "00000000000000000115.log", 144 + 61 + 12);
	json_t *rep = scan_fixture(NULL, logdir, &rc, &err);
	json_t *cm = cluster_meta(rep);
	/* the batch, with file and byte position, its records not applied */
	assert_true(has_msg(rep, "__cluster_metadata-0/00000000000000000115.log: byte 144: the batch at offsets 117 to 129",
			    "fails its CRC-32C: its records are not applied"));
	assert_false(json_is_true(json_object_get(cm, "complete")));
	/* the batches after it are read on: the last record (offset 131) was applied */
	assert_int_equal(json_integer_value(json_object_get(cm, "last_offset")), 131);
	/* and what it could have changed is unknown: every config it could have set (their
	 * values stay as the log said before it), every assignment, no stray partition */
	assert_true(has_msg(rep, "the metadata log could not be read whole: batches fail their CRC-32C", "Unknown: "));
	assert_non_null(strstr(err, "warning: "));
	assert_non_null(strstr(err, "could not be read whole"));
	json_t *e = cfg_of(rep, "dyn-config", "retention.ms");
	assert_string_equal(json_string_value(json_object_get(e, "value")), "86400000");
	assert_true(json_is_null(json_object_get(e, "source")));
	e = cfg_of(rep, "defaults", "retention.bytes");
	assert_string_equal(json_string_value(json_object_get(e, "value")), "1073741824");
	assert_true(json_is_null(json_object_get(e, "source")));
	json_t *t = part_of(rep, "tiered", 0);
	assert_true(json_is_null(json_object_get(t, "assignment")));
	/* remote.storage.enable itself is unknown (source null above); what settles tiering
	 * is the partition's own remote metadata, and the report says that is why */
	assert_true(json_is_true(json_object_get(t, "remote_storage")));
	assert_non_null(strstr(json_string_value(json_object_get(t, "tiered_reason")), "remote metadata exists"));
	assert_int_equal(count_code(rep, "STRAY_PARTITION"), 0);
	/* and nothing is predicted from a value that may be stale: dyn-config's retention.ms
	 * (86400000, its source null) gives no time retention, the reason names the key; the
	 * same scan of the intact log predicted it */
	json_t *tr = json_object_get(json_object_get(part_of(rep, "dyn-config", 0), "retention"), "time");
	assert_false(json_is_true(json_object_get(tr, "evaluated")));
	assert_non_null(strstr(json_string_value(json_object_get(tr, "reason")), "retention.ms"));
	tr = json_object_get(json_object_get(part_of(good, "dyn-config", 0), "retention"), "time");
	assert_true(json_is_true(json_object_get(tr, "evaluated")));
	json_decref(rep);
	json_decref(good);
	free(err);
	free(logdir);
	remove_tree(root);
}

/* A flipped bit in the newest snapshot: not used, and the older one with the log after it
 * is the same state (nothing unknown, the configs as Kafka described them). */
static void test_crc_flipped_bit_in_real_snapshot(void **state)
{
	char *root, *logdir = copy_fixture(&root);
	int rc;
	char *err = NULL;
	flip_bit(logdir, "00000000000000000108-0000000001.checkpoint", 83 + 61 + 40);
	json_t *rep = scan_fixture(NULL, logdir, &rc, &err);
	json_t *cm = cluster_meta(rep);
	assert_string_equal(json_string_value(json_object_get(cm, "snapshot")), "00000000000000000088-0000000001.checkpoint");
	assert_true(has_msg(rep, "00000000000000000108-0000000001.checkpoint: byte 83: record batch CRC mismatch", NULL));
	assert_true(has_msg(rep, "could not be read whole: snapshots are torn or corrupt", "nothing is unknown"));
	assert_false(json_is_true(json_object_get(cm, "complete")));
	json_t *e = cfg_of(rep, "dyn-config", "retention.ms");
	assert_string_equal(json_string_value(json_object_get(e, "value")), "86400000");
	assert_string_equal(json_string_value(json_object_get(e, "source")), "DYNAMIC_TOPIC_CONFIG");
	assert_false(json_is_null(json_object_get(part_of(rep, "tiered", 0), "assignment")));
	json_decref(rep);
	free(err);
	free(logdir);
	remove_tree(root);
}

/* ---- issue 21 item 12: an unparseable dynamic topic config ----------------------------------- */

/* A ConfigRecord retention.ms=1d for dyn-config appended to the real log as a controller
 * would (offset 132, the leader epoch of the batch before). */
static void test_unparseable_dynamic_config(void **state)
{
	char *root, *logdir = copy_fixture(&root);
	char *d = path_join(logdir, MDIR), *segp = path_join(d, "00000000000000000115.log");
	size_t len = 0;
	char *old = tu_read_file(segp, &len);
	assert_non_null(old);
	struct ss_batch_hdr h;
	assert_true(ss_batch_header((const uint8_t *)old + 951, len - 951, &h) > 0); /* the last batch */
	assert_int_equal(h.last_offset, 131);
	struct seg s = { .f = fopen(segp, "ab"), .next = 132 };
	assert_non_null(s.f);
	ss_enc_init(&s.e);
	ss_enc_begin(&s.e, &(struct ss_enc_batch){ .base_offset = 132, .leader_epoch = h.leader_epoch, .producer_id = -1,
						   .producer_epoch = -1, .base_sequence = -1 });
	struct kw w;
	kw_config(&w, 2, "dyn-config", "retention.ms", "1d");
	struct ss_enc_record r = { .timestamp = 1700000000000LL, .key_len = -1, .value = w.b, .value_len = (int32_t)w.n };
	assert_int_equal(ss_enc_append(&s.e, &r), 0);
	s.in_batch = 1;
	seg_flush(&s);
	ss_enc_free(&s.e);
	assert_int_equal(fclose(s.f), 0);

	int rc;
	char *err = NULL;
	json_t *rep = scan_fixture(NULL, logdir, &rc, &err);
	assert_true(has_msg(rep, "topic dyn-config: retention.ms=1d (DYNAMIC_TOPIC_CONFIG) does not parse", NULL));
	json_t *e = cfg_of(rep, "dyn-config", "retention.ms");
	/* the value as it is, with the source it has: not the default in its place */
	assert_string_equal(json_string_value(json_object_get(e, "value")), "1d");
	assert_string_equal(json_string_value(json_object_get(e, "source")), "DYNAMIC_TOPIC_CONFIG");
	/* the other keys are untouched */
	e = cfg_of(rep, "dyn-config", "retention.bytes");
	assert_string_equal(json_string_value(json_object_get(e, "value")), "1048576");
	assert_string_equal(json_string_value(json_object_get(e, "source")), "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(json_integer_value(json_object_get(cluster_meta(rep), "last_offset")), 132);
	json_decref(rep);
	free(err);
	free(old);
	free(segp);
	free(d);
	free(logdir);
	remove_tree(root);
}

/* ---- names from records and paths in the replay's warnings: one line each --------------------- */

/* Does any line of `text` start with `what`? (a line the input forged) */
static bool line_starts(const char *text, const char *what)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, what, strlen(what)))
			return true;
	return false;
}

/*
 * A topic name with LF and CR in TopicRecords (appended to the real log as a controller
 * would, then named by the replay's warnings: a second TopicRecord for the live name, a
 * PartitionChangeRecord for a partition it does not have) and a metadata log under a path
 * with LF, whose replay is not whole (a flipped bit), so its closing warning names the path
 * on stderr too. Every warning goes through the one escaping routine (common/esc.h): no
 * raw LF or CR in json's warning_messages, and no line forged on stderr or in the table.
 */
static void test_replay_warnings_escaped(void **state)
{
	char tmpl[] = "/tmp/segscan-kraft.XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	char *root = strdup(tmpl);   /* remove_tree frees it */
	assert_non_null(root);
	assert_int_equal(chmod(root, 0755), 0);
	char *logdir = NULL;
	assert_true(asprintf(&logdir, "%s/ld\nforged path/logdir", root) > 0);
	assert_int_equal(tu_run(NULL, "mkdir -p '%s/ld\nforged path' && cp -a %s/cluster-meta/logdir '%s'", root,
				FIXTURES, logdir), 0);
	char *d = path_join(logdir, MDIR), *segp = path_join(d, "00000000000000000115.log");
	size_t len = 0;
	char *old = tu_read_file(segp, &len);
	assert_non_null(old);
	struct ss_batch_hdr h;
	assert_true(ss_batch_header((const uint8_t *)old + 951, len - 951, &h) > 0); /* the last batch */
	struct seg sg = { .f = fopen(segp, "ab"), .next = 132 };
	assert_non_null(sg.f);
	ss_enc_init(&sg.e);
	ss_enc_begin(&sg.e, &(struct ss_enc_batch){ .base_offset = 132, .leader_epoch = h.leader_epoch,
						    .producer_id = -1, .producer_epoch = -1, .base_sequence = -1 });
	static const char evil[] = "evil\nforged topic\rX";
	static const uint8_t id1[16] = { 0xe1, 1 }, id2[16] = { 0xe2, 2 };
	struct kw w[3];
	memset(w, 0, sizeof(w));
	kw_topic(&w[0], evil, id1);
	kw_topic(&w[1], evil, id2);                       /* the live name again: a warning names it */
	kw_change(&w[2], id2, 9, 1, NULL, -1);            /* a partition it does not have: another */
	for (int i = 0; i < 3; i++) {
		struct ss_enc_record r = { .timestamp = 1700000000000LL, .offset_delta = i, .key_len = -1,
					   .value = w[i].b, .value_len = (int32_t)w[i].n };
		assert_int_equal(ss_enc_append(&sg.e, &r), 0);
	}
	sg.in_batch = 3;
	seg_flush(&sg);
	ss_enc_free(&sg.e);
	assert_int_equal(fclose(sg.f), 0);
	flip_bit(logdir, "00000000000000000115.log", 144 + 61 + 12);   /* not read whole: a closing warning */

	int rc;
	char *err = NULL;
	json_t *rep = scan_fixture(NULL, logdir, &rc, &err);
	size_t i, named = 0;
	json_t *m;
	json_array_foreach(json_object_get(cluster_meta(rep), "warning_messages"), i, m) {
		const char *t = json_string_value(m);
		if (strchr(t, '\n') || strchr(t, '\r'))
			fail_msg("a warning with a raw LF or CR: %s", t);
		named += strstr(t, "evil\\x0aforged topic\\x0dX") != NULL;
	}
	assert_int_equal(named, 2);
	assert_true(has_msg(rep, "ld\\x0aforged path/logdir/__cluster_metadata-0", "could not be read whole"));
	assert_non_null(strstr(err, "could not be read whole"));
	if (line_starts(err, "forged"))
		fail_msg("a line forged on stderr:\n%s", err);
	json_decref(rep);
	free(err);

	char *out = NULL, *args = NULL;
	assert_true(asprintf(&args, "%s scan -q --now=%lld --broker-process=off '%s' 2>/dev/null", tu_segscan(),
			     now_of("cluster-meta"), logdir) > 0);
	tu_run(&out, "%s", args);
	assert_non_null(strstr(out, "metadata log warning: "));
	assert_non_null(strstr(out, "evil\\x0aforged topic\\x0dX"));
	if (line_starts(out, "forged") || strchr(out, '\r'))
		fail_msg("a line forged in the table:\n%s", out);
	free(out);
	free(args);
	free(old);
	free(segp);
	free(d);
	free(logdir);
	remove_tree(root);
}

/* ---- issue 20 item 7: the broker's 0400 checkpoints, read as another user ------------------ */

/*
 * The log dir as a real broker leaves it: everything owned by the broker's user (here a
 * uid with no other meaning), files 0644 and directories 0755 (umask 022), the snapshots
 * 0400 (Kafka writes them so). `trim`: the log segments below the newest snapshot deleted,
 * as a broker deletes them once a snapshot covers them (the log then starts at 91).
 */
#define BROKER_UID 54321
static char *broker_owned_copy(char **root, bool trim)
{
	char *logdir = copy_fixture(root);
	if (trim)
		assert_int_equal(tu_run(NULL, "rm -f '%s/%s'/00000000000000000000.* '%s/%s'/00000000000000000079.*",
					logdir, MDIR, logdir, MDIR), 0);
	assert_int_equal(tu_run(NULL, "chown -R %d:%d '%s' && chmod 0400 '%s/%s'/*.checkpoint", BROKER_UID, BROKER_UID,
				logdir, logdir, MDIR), 0);
	return logdir;
}

/* The capabilities the shipped unit grants (scripts/segscan.service AmbientCapabilities=),
 * as setpriv names them: "+dac_read_search,...". */
static char *unit_caps(void)
{
	char *unit = tu_read_file("scripts/segscan.service", NULL), *caps = calloc(1, 512);
	assert_non_null(unit);
	assert_non_null(caps);
	const char *l = strstr(unit, "\nAmbientCapabilities=");
	assert_non_null(l);
	l += strlen("\nAmbientCapabilities=");
	for (size_t n = 0; *l && *l != '\n';) {
		while (*l == ' ')
			l++;
		if (strncmp(l, "CAP_", 4))
			fail_msg("AmbientCapabilities= holds %.20s", l);
		l += 4;
		if (n)
			caps[n++] = ',';
		caps[n++] = '+';
		while (*l && *l != ' ' && *l != '\n' && n < 500)
			caps[n++] = (char)(*l >= 'A' && *l <= 'Z' ? *l - 'A' + 'a' : *l), l++;
	}
	free(unit);
	assert_string_equal(caps, "+dac_read_search"); /* the one the unit needs, no more */
	return caps;
}

/* The prefix that runs segscan as nobody, with the systemd unit's capabilities (ambient,
 * and the bounding set reduced to them, as systemd sets them up) or none. */
static char *as_nobody(bool cap)
{
	char *p, *caps = cap ? unit_caps() : NULL;
	if (cap)
		assert_true(asprintf(&p, "setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=%s "
					 "--ambient-caps=%s --bounding-set=-all,%s",
				     caps, caps, caps) > 0);
	else
		assert_true(asprintf(&p, "setpriv --reuid=nobody --regid=nogroup --clear-groups") > 0);
	free(caps);
	return p;
}

static bool can_drop_privileges(void)
{
	return geteuid() == 0 && getpwnam("nobody") && getgrnam("nogroup") &&
	       tu_run(NULL, "setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null") == 0;
}

/* The same configs (value and source) for every partition of two reports. */
static void same_configs(json_t *a, json_t *b)
{
	size_t i;
	json_t *p;
	int n = 0;
	json_array_foreach(json_object_get(a, "partitions"), i, p) {
		const char *topic = json_string_value(json_object_get(p, "topic"));
		json_t *q = part_of(b, topic, (int)json_integer_value(json_object_get(p, "partition")));
		assert_non_null(q);
		if (!json_equal(json_object_get(p, "config"), json_object_get(q, "config")) ||
		    !json_equal(json_object_get(p, "assignment"), json_object_get(q, "assignment")))
			fail_msg("%s: config or assignment differ", topic);
		n++;
	}
	assert_true(n >= 10);
}

static void test_checkpoints_0400_other_owner(void **state)
{
	if (!can_drop_privileges())
		skip(); /* tests run as root here and in CI */
	char *root, *logdir = broker_owned_copy(&root, true);
	char *nob = as_nobody(false), *cap = as_nobody(true);
	int rc;
	char *err = NULL;
	json_t *ref = scan_fixture(NULL, logdir, &rc, &err); /* root reads everything */
	free(err);
	assert_true(json_is_true(json_object_get(cluster_meta(ref), "complete")));
	assert_string_equal(json_string_value(json_object_get(cluster_meta(ref), "snapshot")),
			    "00000000000000000108-0000000001.checkpoint");

	/* nobody: the snapshots cannot be opened, the log starts after them */
	json_t *rep = scan_fixture(nob, logdir, &rc, &err);
	json_t *cm = cluster_meta(rep);
	assert_true(json_is_true(json_object_get(cm, "used")));
	assert_false(json_is_true(json_object_get(cm, "complete")));
	assert_true(json_is_null(json_object_get(cm, "snapshot")));
	assert_true(has_msg(rep, "00000000000000000108-0000000001.checkpoint: byte 0: cannot open: Permission denied", NULL));
	/* said plainly, first, on stderr too: why, and what it leaves unknown */
	const char *first = json_string_value(json_array_get(json_object_get(cm, "warning_messages"), 0));
	assert_non_null(strstr(first, "the metadata log could not be read whole: snapshots could not be opened "
				      "(permission denied); no snapshot was usable and the log starts at offset 91"));
	assert_non_null(strstr(first, "CAP_DAC_READ_SEARCH"));
	assert_non_null(strstr(first, "Unknown: the dynamic configs"));
	assert_non_null(strstr(err, "warning: "));
	assert_non_null(strstr(err, "could not be read whole"));
	/* the consequence: nothing the lost history held is shown as known */
	json_t *e = cfg_of(rep, "dyn-config", "retention.ms");
	assert_true(json_is_null(json_object_get(e, "source")));
	e = cfg_of(rep, "tiered", "remote.storage.enable");
	assert_true(json_is_null(json_object_get(e, "source")));
	/* not from the lost config: from the partition's remote metadata, and said so */
	assert_true(json_is_true(json_object_get(part_of(rep, "tiered", 0), "remote_storage")));
	assert_non_null(strstr(json_string_value(json_object_get(part_of(rep, "tiered", 0), "tiered_reason")),
			       "remote metadata exists"));
	assert_true(json_is_null(json_object_get(part_of(rep, "tiered", 0), "assignment")));
	assert_int_equal(count_code(rep, "STRAY_PARTITION"), 0);
	json_t *br = json_object_get(json_object_get(rep, "summary"), "broker");
	assert_true(json_is_null(json_object_get(br, "kafka_version")));
	json_decref(rep);
	free(err);

	/* nobody with the unit's one capability: everything read, as root read it */
	rep = scan_fixture(cap, logdir, &rc, &err);
	cm = cluster_meta(rep);
	if (!json_is_true(json_object_get(cm, "complete")))
		fail_msg("with CAP_DAC_READ_SEARCH: %s", json_dumps(cm, 0));
	assert_int_equal(json_integer_value(json_object_get(cm, "warnings")), 0);
	assert_null(strstr(err, "could not be read whole"));
	same_configs(ref, rep);
	br = json_object_get(json_object_get(rep, "summary"), "broker");
	assert_string_equal(json_string_value(json_object_get(br, "kafka_version")), "4.4");
	json_decref(rep);
	json_decref(ref);
	free(err);
	free(nob);
	free(cap);
	free(logdir);
	remove_tree(root);
}

/* The same 0400 snapshots, but the log still reaches back to offset 0 (a young broker):
 * unreadable snapshots cost nothing, and the scan says so. */
static void test_checkpoints_0400_log_covers(void **state)
{
	if (!can_drop_privileges())
		skip();
	char *root, *logdir = broker_owned_copy(&root, false);
	char *nob = as_nobody(false);
	int rc;
	char *err = NULL;
	json_t *ref = scan_fixture(NULL, logdir, &rc, &err);
	free(err);
	json_t *rep = scan_fixture(nob, logdir, &rc, &err);
	json_t *cm = cluster_meta(rep);
	assert_false(json_is_true(json_object_get(cm, "complete")));
	assert_true(has_msg(rep, "snapshots could not be opened (permission denied)", "so nothing is unknown"));
	assert_non_null(strstr(err, "nothing is unknown"));
	same_configs(ref, rep);
	json_decref(rep);
	json_decref(ref);
	free(err);
	free(nob);
	free(logdir);
	remove_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_transaction_under_ulimit),
		cmocka_unit_test(test_zeros_then_data),
		cmocka_unit_test(test_crc_flipped_bit_in_real_log),
		cmocka_unit_test(test_crc_flipped_bit_in_real_snapshot),
		cmocka_unit_test(test_unparseable_dynamic_config),
		cmocka_unit_test(test_replay_warnings_escaped),
		cmocka_unit_test(test_checkpoints_0400_other_owner),
		cmocka_unit_test(test_checkpoints_0400_log_covers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
