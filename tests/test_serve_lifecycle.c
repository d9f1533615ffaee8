/*
 * The metric lifecycle of `segscan serve` at the level of its publication module
 * (src/service/snapshot.c), no HTTP: generations taken at scan start, whole-set
 * replacement, stale publications refused, cumulative counters, snapshot lifetimes.
 *
 * Interleavings are built by hand (two scans constructed, run and published in a chosen
 * order), so every test is deterministic: no sleeps, no timing.
 *
 * Expected values come from the file system (partition directories, .log files) or
 * from the library's own per-scan stats, never from the module under test.
 */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <cmocka.h>

#include <jansson.h>

#include "testutil.h"
#include "scanutil.h"
#include "service/serve.h"

struct pdir {
	char topic[256];
	int32_t partition;
	char name[300];
};

/* Live partition directories of a log dir, parsed as Kafka does (split at the last '-');
 * -delete/-future/-stray directories are not partitions. */
static size_t list_parts(const char *logdir, struct pdir *out, size_t cap)
{
	DIR *d = opendir(logdir);
	struct dirent *e;
	size_t n = 0;
	assert_non_null(d);
	while ((e = readdir(d))) {
		const char *dash = strrchr(e->d_name, '-');
		if (e->d_name[0] == '.' || !dash || dash == e->d_name || !dash[1] || strchr(dash, '.'))
			continue;
		if (strspn(dash + 1, "0123456789") != strlen(dash + 1))
			continue;
		assert_true(n < cap);
		snprintf(out[n].topic, sizeof(out[n].topic), "%.*s", (int)(dash - e->d_name), e->d_name);
		out[n].partition = atoi(dash + 1);
		snprintf(out[n].name, sizeof(out[n].name), "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static segscan_scan *run_scan(const char *logdir)
{
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "quiet", "true"), 0);
	assert_int_equal(segscan_set(s, "metrics-extra", "true"), 0);   /* every family */
	assert_int_equal(segscan_add_logdir(s, logdir), 0);
	assert_int_equal(segscan_run(s), 0);
	return s;
}

/* Does the exposition hold a series of `family` for this topic and partition? */
static bool has_series(const char *metrics, const char *family, const char *topic, int32_t part)
{
	char pat[512];
	snprintf(pat, sizeof(pat), "\n%s{topic=\"%s\",partition=\"%d\",", family, topic, part);
	return strstr(metrics, pat) != NULL;
}

/* Any series at all for this topic and partition, whatever the family. */
static bool has_any_series(const char *metrics, const char *topic, int32_t part)
{
	char pat[512];
	snprintf(pat, sizeof(pat), "{topic=\"%s\",partition=\"%d\",", topic, part);
	return strstr(metrics, pat) != NULL;
}

static uint64_t counter(const char *metrics, const char *name)
{
	char pat[256];
	snprintf(pat, sizeof(pat), "\n%s ", name);
	const char *p = strstr(metrics, pat);
	assert_non_null(p);
	return strtoull(p + strlen(pat), NULL, 10);
}

static char *gen_dir(const char *tag, uint32_t segs, char **root)
{
	char *ld = su_gen(tag, 2, 2, segs, 16384, 0, false, root);
	assert_non_null(ld);
	return ld;
}

static void delete_dir_name(const char *logdir, const char *name, char *out, size_t cap)
{
	/* Kafka's asynchronous delete: <topic>-<partition>.<32 hex uuid>-delete */
	snprintf(out, cap, "%s/%s.0123456789abcdef0123456789abcdef-delete", logdir, name);
}

/* The KAFKA-21098 interleaving: scan A starts (and sees partition X), X is deleted,
 * scan B starts and finishes without X and publishes; A finishes last. A's publication
 * must be refused, so X's series stay gone. */
static void test_stale_scan_cannot_resurrect(void **state)
{
	char *root = NULL, *ld = gen_dir("lc-stale", 3, &root);
	struct pdir parts[16];
	size_t n = list_parts(ld, parts, 16);
	assert_int_equal(n, 4);
	const struct pdir *x = &parts[0];

	struct ss_pub *pub = NULL;
	assert_int_equal(ss_pub_new(&pub), 0);
	assert_null(ss_pub_acquire(pub));
	assert_int_equal(ss_pub_generation(pub), 0);

	uint64_t gen_a = ss_pub_begin_scan(pub);
	segscan_scan *a = run_scan(ld);
	assert_int_equal(segscan_partition_count(a), 4);

	char from[1024], to[1024];
	snprintf(from, sizeof(from), "%s/%s", ld, x->name);
	delete_dir_name(ld, x->name, to, sizeof(to));
	assert_int_equal(rename(from, to), 0);

	uint64_t gen_b = ss_pub_begin_scan(pub);
	assert_true(gen_b > gen_a);
	segscan_scan *b = run_scan(ld);
	assert_int_equal(segscan_partition_count(b), 3);

	assert_int_equal(ss_pub_publish(pub, b, gen_b), 0);
	assert_int_equal(ss_pub_publish(pub, a, gen_a), -ESTALE);

	struct ss_snapshot *s = ss_pub_acquire(pub);
	assert_non_null(s);
	assert_int_equal(s->generation, gen_b);
	assert_int_equal(ss_pub_generation(pub), gen_b);
	assert_false(has_any_series(s->metrics, x->topic, x->partition));
	assert_null(ss_snapshot_find(s, x->topic, x->partition));
	for (size_t i = 1; i < n; i++) {
		assert_true(has_series(s->metrics, "segscan_log_segments", parts[i].topic, parts[i].partition));
		assert_non_null(ss_snapshot_find(s, parts[i].topic, parts[i].partition));
	}
	/* the json report of the published scan has no trace of X either */
	char needle[512];
	snprintf(needle, sizeof(needle), "\"dir\":\"%s\"", x->name);
	assert_null(strstr(s->json, needle));
	ss_snapshot_release(s);

	struct ss_pub_totals t;
	ss_pub_get_totals(pub, &t);
	assert_int_equal(t.refused, 1);
	assert_int_equal(t.scans, 2);
	ss_pub_free(pub);
	free(ld);
	free(root);
}

/* In order, the later scan's set replaces the earlier one's as a whole: series of a
 * partition the later scan did not see are dropped, not merged in. */
static void test_publication_replaces_whole_set(void **state)
{
	char *root = NULL, *ld = gen_dir("lc-replace", 3, &root);
	struct pdir parts[16];
	size_t n = list_parts(ld, parts, 16);
	assert_int_equal(n, 4);
	const struct pdir *x = &parts[n - 1];
	struct ss_pub *pub = NULL;
	assert_int_equal(ss_pub_new(&pub), 0);

	uint64_t g1 = ss_pub_begin_scan(pub);
	assert_int_equal(ss_pub_publish(pub, run_scan(ld), g1), 0);
	struct ss_snapshot *s1 = ss_pub_acquire(pub);
	assert_true(has_any_series(s1->metrics, x->topic, x->partition));
	assert_non_null(ss_snapshot_find(s1, x->topic, x->partition));

	/* a partition moved away (to another log dir, outside this scan) */
	char from[1024], to[1024];
	snprintf(from, sizeof(from), "%s/%s", ld, x->name);
	snprintf(to, sizeof(to), "%s/moved-%s", root, x->name);
	assert_int_equal(rename(from, to), 0);

	uint64_t g2 = ss_pub_begin_scan(pub);
	assert_int_equal(ss_pub_publish(pub, run_scan(ld), g2), 0);
	struct ss_snapshot *s2 = ss_pub_acquire(pub);
	assert_int_equal(s2->generation, g2);
	assert_false(has_any_series(s2->metrics, x->topic, x->partition));
	assert_null(ss_snapshot_find(s2, x->topic, x->partition));
	assert_int_equal(s2->n_parts, n - 1);

	/* the reader that still holds generation 1 keeps a consistent view of it */
	assert_int_equal(s1->generation, g1);
	assert_true(has_any_series(s1->metrics, x->topic, x->partition));
	ss_snapshot_release(s1);
	ss_snapshot_release(s2);

	/* equal generations are refused too: a generation publishes at most once */
	assert_int_equal(ss_pub_publish(pub, run_scan(ld), g2), -ESTALE);
	ss_pub_free(pub);
	free(ld);
	free(root);
}

/* _total counters are cumulative over every finished scan, refused ones included (the
 * bytes were read), and never go down between publications; the duration gauge is the
 * published scan's own. */
static void test_counters_cumulative(void **state)
{
	char *root = NULL, *ld = gen_dir("lc-count", 4, &root);
	struct ss_pub *pub = NULL;
	struct segscan_scan_stats st;
	uint64_t segs = 0, bytes = 0, errs = 0;
	assert_int_equal(ss_pub_new(&pub), 0);

	uint64_t g1 = ss_pub_begin_scan(pub);
	uint64_t g2 = ss_pub_begin_scan(pub);
	segscan_scan *s1 = run_scan(ld), *s2 = run_scan(ld);
	segscan_get_stats(s2, &st);
	segs += st.segments, bytes += st.bytes_read, errs += st.errors;
	double d2 = st.seconds;
	assert_int_equal(ss_pub_publish(pub, s2, g2), 0);
	segscan_get_stats(s1, &st);
	segs += st.segments, bytes += st.bytes_read, errs += st.errors;
	assert_int_equal(ss_pub_publish(pub, s1, g1), -ESTALE);

	struct ss_snapshot *snap = ss_pub_acquire(pub);
	uint64_t first_segs = counter(snap->metrics, "segscan_scan_segments_total");
	ss_snapshot_release(snap);

	uint64_t g3 = ss_pub_begin_scan(pub);
	segscan_scan *s3 = run_scan(ld);
	segscan_get_stats(s3, &st);
	segs += st.segments, bytes += st.bytes_read, errs += st.errors;
	assert_true(st.segments > 0);
	assert_int_equal(ss_pub_publish(pub, s3, g3), 0);

	snap = ss_pub_acquire(pub);
	assert_int_equal(counter(snap->metrics, "segscan_scan_segments_total"), segs);
	assert_int_equal(counter(snap->metrics, "segscan_scan_bytes_read_total"), bytes);
	assert_int_equal(counter(snap->metrics, "segscan_scan_errors_total"), errs);
	assert_int_equal(counter(snap->metrics, "segscan_scans_total"), 3);
	assert_int_equal(counter(snap->metrics, "segscan_scan_stale_total"), 1);
	assert_int_equal(counter(snap->metrics, "segscan_scan_generation"), g3);
	assert_true(counter(snap->metrics, "segscan_scan_segments_total") > first_segs);
	/* gauge of the published scan: s3's own seconds, printed with 6 decimals */
	char want[64];
	segscan_get_stats(snap->scan, &st);
	snprintf(want, sizeof(want), "\nsegscan_scan_duration_seconds %.6f\n", st.seconds);
	assert_non_null(strstr(snap->metrics, want));
	(void)d2;
	/* the contract's families are all there, with HELP and TYPE */
	static const char *const fam[] = { "segscan_log_size_bytes", "segscan_log_segments",
		"segscan_only_local_segments", "segscan_only_local_bytes", "segscan_remote_copy_lag_segments",
		"segscan_remote_copy_lag_bytes", "segscan_broker_reported_copy_lag_segments",
		"segscan_remote_dangling_segments", "segscan_retention_size_excess_bytes",
		"segscan_scan_duration_seconds", "segscan_scan_segments_total", "segscan_scan_bytes_read_total",
		"segscan_scan_errors_total", "segscan_build_info" };
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		char h[256];
		snprintf(h, sizeof(h), "# HELP %s ", fam[i]);
		assert_non_null(strstr(snap->metrics, h));
		snprintf(h, sizeof(h), "# TYPE %s ", fam[i]);
		assert_non_null(strstr(snap->metrics, h));
	}
	ss_snapshot_release(snap);

	/* a failed scan is counted and shows at the next publication */
	ss_pub_note_failure(pub);
	uint64_t g4 = ss_pub_begin_scan(pub);
	assert_int_equal(ss_pub_publish(pub, run_scan(ld), g4), 0);
	snap = ss_pub_acquire(pub);
	assert_int_equal(counter(snap->metrics, "segscan_scan_failures_total"), 1);
	ss_snapshot_release(snap);
	ss_pub_free(pub);
	free(ld);
	free(root);
}

/* The per-partition index: every partition directory is found, its object is the
 * partition's json (checked with an independent JSON parser), absent ones are NULL; the
 * same partition in two log dirs resolves to the first log dir in byte order. */
static void test_partition_index(void **state)
{
	char *root1 = NULL, *root2 = NULL;
	char *ld1 = gen_dir("lc-index", 3, &root1), *ld2 = gen_dir("lc-index", 2, &root2);
	struct pdir parts[16];
	size_t n = list_parts(ld1, parts, 16);
	struct ss_pub *pub = NULL;
	assert_int_equal(ss_pub_new(&pub), 0);

	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "quiet", "true"), 0);
	assert_int_equal(segscan_set(s, "metrics-extra", "true"), 0);   /* every family */
	assert_int_equal(segscan_add_logdir(s, ld2), 0);
	assert_int_equal(segscan_add_logdir(s, ld1), 0);
	assert_int_equal(segscan_run(s), 0);
	assert_int_equal(ss_pub_publish(pub, s, ss_pub_begin_scan(pub)), 0);
	struct ss_snapshot *snap = ss_pub_acquire(pub);
	assert_int_equal(snap->n_parts, 2 * n);
	const char *first = strcmp(ld1, ld2) < 0 ? ld1 : ld2;

	for (size_t i = 0; i < n; i++) {
		const struct ss_part_ref *r = ss_snapshot_find(snap, parts[i].topic, parts[i].partition);
		assert_non_null(r);
		json_error_t je;
		json_t *o = json_loadb(snap->part_json + r->off, r->len, 0, &je);
		if (!o)
			fail_msg("partition %s-%d: %s", parts[i].topic, parts[i].partition, je.text);
		assert_string_equal(json_string_value(json_object_get(o, "topic")), parts[i].topic);
		assert_int_equal(json_integer_value(json_object_get(o, "partition")), parts[i].partition);
		assert_string_equal(json_string_value(json_object_get(o, "log_dir")), first);
		assert_string_equal(json_string_value(json_object_get(o, "dir")), parts[i].name);
		json_decref(o);
		assert_int_equal(snap->part_json[r->off + r->len - 1], '\n');
	}
	assert_null(ss_snapshot_find(snap, parts[0].topic, 9999));
	assert_null(ss_snapshot_find(snap, "no-such-topic", 0));
	assert_null(ss_snapshot_find(snap, "", 0));

	/* the whole report parses and lists every partition of both log dirs */
	json_error_t je;
	json_t *all = json_loadb(snap->json, snap->json_len, 0, &je);
	assert_non_null(all);
	assert_int_equal(json_array_size(json_object_get(all, "partitions")), 2 * n);
	json_decref(all);
	ss_snapshot_release(snap);
	ss_pub_free(pub);
	free(ld1);
	free(ld2);
	free(root1);
	free(root2);
}

/* Generations are unique and increasing, even when taken from several threads. */
#define GEN_THREADS 4
#define GEN_PER 1000
static void *take_gens(void *arg)
{
	struct ss_pub *pub = ((void **)arg)[0];
	uint64_t *out = ((void **)arg)[1];
	for (int i = 0; i < GEN_PER; i++) {
		out[i] = ss_pub_begin_scan(pub);
		if (i && out[i] <= out[i - 1])
			return (void *)1;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_generations_unique(void **state)
{
	struct ss_pub *pub = NULL;
	static uint64_t g[GEN_THREADS * GEN_PER];
	pthread_t th[GEN_THREADS];
	void *args[GEN_THREADS][2];
	assert_int_equal(ss_pub_new(&pub), 0);
	for (int t = 0; t < GEN_THREADS; t++) {
		args[t][0] = pub;
		args[t][1] = &g[t * GEN_PER];
		assert_int_equal(pthread_create(&th[t], NULL, take_gens, args[t]), 0);
	}
	for (int t = 0; t < GEN_THREADS; t++) {
		void *ret;
		pthread_join(th[t], &ret);
		assert_null(ret);
	}
	qsort(g, GEN_THREADS * GEN_PER, sizeof(g[0]), cmp_u64);
	assert_true(g[0] > 0);
	for (size_t i = 1; i < GEN_THREADS * GEN_PER; i++)
		assert_true(g[i] > g[i - 1]);
	ss_pub_free(pub);
}

/* Readers take and drop references while scans publish: each snapshot a reader holds
 * stays whole (its metrics carry its own generation), and a reader never sees the
 * generation go backwards. Run under ASan, a snapshot freed too early is a
 * use-after-free; one never freed is a leak. */
struct reader_arg {
	struct ss_pub *pub;
	atomic_bool   *stop;
	uint64_t       seen;
	int            bad;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	uint64_t last = 0;
	/* acquire: pairs with the release store of stop in the test thread */
	while (!atomic_load_explicit(a->stop, memory_order_acquire)) {
		struct ss_snapshot *s = ss_pub_acquire(a->pub);
		if (!s)
			continue;
		char want[64];
		snprintf(want, sizeof(want), "\nsegscan_scan_generation %" PRIu64 "\n", s->generation);
		if (!strstr(s->metrics, want) || s->generation < last)
			a->bad++;
		last = s->generation;
		a->seen++;
		ss_snapshot_release(s);
	}
	return NULL;
}

static void test_readers_during_publication(void **state)
{
	char *root = NULL, *ld = gen_dir("lc-readers", 2, &root);
	struct ss_pub *pub = NULL;
	atomic_bool stop;
	atomic_init(&stop, false);
	struct reader_arg ra[2] = { { .stop = &stop }, { .stop = &stop } };
	pthread_t th[2];
	assert_int_equal(ss_pub_new(&pub), 0);
	for (int i = 0; i < 2; i++) {
		ra[i].pub = pub;
		assert_int_equal(pthread_create(&th[i], NULL, reader, &ra[i]), 0);
	}
	segscan_scan *prev_scan = NULL;
	for (int k = 0; k < 12; k++) {
		uint64_t g = ss_pub_begin_scan(pub);
		segscan_scan *s = NULL;
		assert_int_equal(segscan_scan_new(&s), 0);
		assert_int_equal(segscan_set(s, "quiet", "true"), 0);
		assert_int_equal(segscan_set(s, "metrics-extra", "true"), 0);   /* every family */
		assert_int_equal(segscan_add_logdir(s, ld), 0);
		/* as serve does: reuse the published scan, held by a reference */
		struct ss_snapshot *prev = ss_pub_acquire(pub);
		if (prev)
			assert_int_equal(segscan_reuse(s, prev->scan), 0);
		assert_int_equal(segscan_run(s), 0);
		ss_snapshot_release(prev);
		prev_scan = s;
		assert_int_equal(ss_pub_publish(pub, s, g), 0);
	}
	(void)prev_scan;
	/* release: pairs with the acquire loads in reader() */
	atomic_store_explicit(&stop, true, memory_order_release);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(ra[i].bad, 0);
	}
	assert_true(ra[0].seen + ra[1].seen > 0);
	ss_pub_free(pub);
	free(ld);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_scan_cannot_resurrect),
		cmocka_unit_test(test_publication_replaces_whole_set),
		cmocka_unit_test(test_counters_cumulative),
		cmocka_unit_test(test_partition_index),
		cmocka_unit_test(test_generations_unique),
		cmocka_unit_test(test_readers_during_publication),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
