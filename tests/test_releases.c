/*
 * The Kafka release table (src/eval/releases.c): version parsing, metadata.version -> release
 * line, and which releases each ticket affects. Expected values are the facts of
 * docs/kafka-releases.md written out literally (from the jars: 4.1's latestProduction() is 27,
 * 4.2's is 29 and 4.1's latestTesting() is 29 too; from bytecode: 4.3.1 has >= in
 * UnifiedLog.onlyLocalLogSegmentsCount and 4.4.0 has >), not read back from the table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/releases.h"

static struct ss_kver V(const char *s)
{
	struct ss_kver v;
	if (ss_kver_parse(s, &v) != 0)
		fail_msg("parse(\"%s\") failed", s);
	return v;
}

static void test_parse(void **state)
{
	(void)state;
	struct ss_kver v;
	assert_int_equal(ss_kver_parse("4.3.1", &v), 0);
	assert_int_equal(v.major, 4);
	assert_int_equal(v.minor, 3);
	assert_int_equal(v.patch, 1);
	assert_int_equal(ss_kver_parse("4.1", &v), 0);
	assert_int_equal(v.major, 4);
	assert_int_equal(v.minor, 1);
	assert_int_equal(v.patch, SS_KVER_LINE);
	assert_int_equal(ss_kver_parse("3.9.0", &v), 0);
	assert_int_equal(v.patch, 0);
	assert_int_equal(ss_kver_parse("10.12.103", &v), 0);
	assert_int_equal(v.major, 10);
	assert_int_equal(v.minor, 12);
	assert_int_equal(v.patch, 103);

	static const char *bad[] = {
		"", "4", "4.", ".4", "4..1", "4.3.", "4.3.1.2", "4.x", "4.3.x", "4.3-rc1",
		"4.3.1-SNAPSHOT", " 4.3", "4.3 ", "v4.3", "-4.3", "4.-3", "+4.3", "4,3", "1000.0",
		"4.3.1000", "abc",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ss_kver w = { 7, 7, 7 };
		if (ss_kver_parse(bad[i], &w) != -EINVAL)
			fail_msg("parse(\"%s\") accepted", bad[i]);
		/* a rejected string leaves the output alone */
		assert_int_equal(w.major, 7);
		assert_int_equal(w.patch, 7);
	}
	assert_int_equal(ss_kver_parse(NULL, &v), -EINVAL);
}

static void test_cmp_format(void **state)
{
	(void)state;
	struct ss_kver a = V("4.3.1"), b = V("4.3.2"), l = V("4.3"), z = V("4.3.0"), c = V("4.10.0");
	assert_true(ss_kver_cmp(&a, &b) < 0);
	assert_true(ss_kver_cmp(&b, &a) > 0);
	assert_int_equal(ss_kver_cmp(&a, &a), 0);
	assert_true(ss_kver_cmp(&l, &z) < 0);   /* the line sorts before its .0 */
	struct ss_kver x = V("4.9.9");
	assert_true(ss_kver_cmp(&x, &c) < 0);   /* numeric, not lexical */
	struct ss_kver y = V("3.99.0");
	assert_true(ss_kver_cmp(&y, &z) < 0);

	char buf[16];
	assert_int_equal(ss_kver_format(&a, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "4.3.1");
	ss_kver_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "4.3");
	char tiny[4];
	assert_int_equal(ss_kver_format(&c, tiny, sizeof(tiny)), 6);  /* length it wanted */
	assert_string_equal(tiny, "4.1");
}

/* level -> (kind, first line, second line or NULL) from the kafka-server-common jars */
static void expect_mv(int level, enum ss_mv_kind kind, const char *l0, int t0, const char *l1)
{
	struct ss_mv_release r;
	char buf[16];
	assert_int_equal(ss_release_from_mv(level, &r), 0);
	if (r.kind != kind)
		fail_msg("level %d: kind %d, want %d", level, r.kind, kind);
	int want = (l0 != NULL) + (l1 != NULL);
	if (r.nlines != want)
		fail_msg("level %d: %d lines, want %d", level, r.nlines, want);
	if (l0) {
		ss_kver_format(&r.lines[0], buf, sizeof(buf));
		if (strcmp(buf, l0) != 0 || r.testing[0] != t0)
			fail_msg("level %d: line %s (testing %d), want %s (%d)", level, buf, r.testing[0], l0, t0);
	}
	if (l1) {
		ss_kver_format(&r.lines[1], buf, sizeof(buf));
		if (strcmp(buf, l1) != 0 || !r.testing[1])
			fail_msg("level %d: second line %s, want %s (testing)", level, buf, l1);
	}
}

static void test_mv_lines(void **state)
{
	(void)state;
	/* every line's latestProduction() */
	expect_mv(7, SS_MV_LINE, "3.3", 0, NULL);
	expect_mv(8, SS_MV_LINE, "3.4", 0, NULL);
	expect_mv(11, SS_MV_LINE, "3.5", 0, NULL);
	expect_mv(14, SS_MV_LINE, "3.6", 0, NULL);
	expect_mv(19, SS_MV_LINE, "3.7", 0, NULL);
	expect_mv(20, SS_MV_LINE, "3.8", 0, "3.7");   /* 3.7's latestTesting() is 20 */
	expect_mv(21, SS_MV_LINE, "3.9", 0, "3.8");
	expect_mv(25, SS_MV_LINE, "4.0", 0, NULL);
	expect_mv(27, SS_MV_LINE, "4.1", 0, NULL);
	expect_mv(29, SS_MV_LINE, "4.2", 0, "4.1");
	expect_mv(30, SS_MV_LINE, "4.3", 0, "4.2");
	expect_mv(33, SS_MV_LINE, "4.4", 0, NULL);
	/* only a latestTesting() */
	expect_mv(23, SS_MV_LINE, "3.9", 1, NULL);
	expect_mv(26, SS_MV_LINE, "4.0", 1, NULL);
	expect_mv(31, SS_MV_LINE, "4.3", 1, NULL);
	/* levels no release tops out at */
	expect_mv(22, SS_MV_UNRELEASED, NULL, 0, NULL);
	expect_mv(24, SS_MV_UNRELEASED, NULL, 0, NULL);
	expect_mv(28, SS_MV_UNRELEASED, NULL, 0, NULL);
	expect_mv(32, SS_MV_UNRELEASED, NULL, 0, NULL);
	/* beyond the table */
	expect_mv(34, SS_MV_NEWER, "4.4", 1, NULL);    /* 4.4's latestTesting(), IBP_4_5_IV0 */
	expect_mv(35, SS_MV_NEWER, NULL, 0, NULL);
	expect_mv(500, SS_MV_NEWER, NULL, 0, NULL);
	/* before the table */
	expect_mv(1, SS_MV_OLDER, NULL, 0, NULL);
	expect_mv(6, SS_MV_OLDER, NULL, 0, NULL);

	struct ss_mv_release r;
	assert_int_equal(ss_release_from_mv(0, &r), -EINVAL);
	assert_int_equal(ss_release_from_mv(-1, &r), -EINVAL);
	assert_int_equal(ss_release_from_mv(40000, &r), -EINVAL);

	assert_int_equal(ss_release_from_mv(21, &r), 0);
	assert_string_equal(r.mv_name, "IBP_3_9_IV0");
	assert_string_equal(r.mv_release, "3.9");
	assert_int_equal(ss_release_from_mv(27, &r), 0);
	assert_string_equal(r.mv_name, "IBP_4_1_IV1");
	assert_int_equal(ss_release_from_mv(29, &r), 0);
	assert_string_equal(r.mv_name, "IBP_4_2_IV1");
	assert_int_equal(ss_release_from_mv(30, &r), 0);
	assert_string_equal(r.mv_name, "IBP_4_3_IV0");
	assert_int_equal(ss_release_from_mv(33, &r), 0);
	assert_string_equal(r.mv_name, "IBP_4_4_IV2");
	assert_int_equal(ss_release_from_mv(34, &r), 0);
	assert_string_equal(r.mv_name, "IBP_4_5_IV0");
	assert_string_equal(r.mv_release, "4.5");
	assert_int_equal(ss_release_from_mv(35, &r), 0);
	assert_null(r.mv_name);
}

static void expect_mv_text(int level, const char *want)
{
	struct ss_mv_release r;
	char buf[128];
	ss_release_from_mv(level, &r);
	ss_mv_release_describe(&r, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("level %d: \"%s\", want \"%s\"", level, buf, want);
}

static void test_mv_describe(void **state)
{
	(void)state;
	expect_mv_text(27, "4.1");
	expect_mv_text(29, "4.2 (or 4.1 with unstable metadata versions)");
	expect_mv_text(31, "4.3 (with unstable metadata versions)");
	expect_mv_text(34, "newer than 4.4 (or 4.4 with unstable metadata versions)");
	expect_mv_text(99, "newer than 4.4");
	expect_mv_text(28, "unreleased (IBP_4_2_IV0)");
	expect_mv_text(3, "older than 3.3");
}

static void test_line_info(void **state)
{
	(void)state;
	int p = 0, t = 0, lp = 0;
	struct ss_kver l = V("4.3.1");   /* a patch names its line */
	assert_int_equal(ss_release_line_info(&l, &p, &t, &lp), 0);
	assert_int_equal(p, 30);
	assert_int_equal(t, 31);
	assert_int_equal(lp, 2);
	l = V("4.4");
	assert_int_equal(ss_release_line_info(&l, &p, &t, &lp), 0);
	assert_int_equal(p, 33);
	assert_int_equal(t, 34);
	assert_int_equal(lp, 0);
	l = V("3.2");
	assert_int_equal(ss_release_line_info(&l, NULL, NULL, NULL), -ENOENT);
	l = V("4.5");
	assert_int_equal(ss_release_line_info(&l, NULL, NULL, NULL), -ENOENT);
	struct ss_kver n = ss_release_newest_line();
	assert_int_equal(n.major, 4);
	assert_int_equal(n.minor, 4);
}

static void expect(const char *id, const char *ver, enum ss_affect want)
{
	const struct ss_ticket *t = ss_ticket_find(id);
	if (t == NULL)
		fail_msg("no ticket %s", id);
	struct ss_kver v = V(ver);
	enum ss_affect got = ss_ticket_affects(t, &v);
	if (got != want)
		fail_msg("%s on %s: %s, want %s", id, ver, ss_affect_name(got), ss_affect_name(want));
}

#define A SS_AFFECTED
#define N SS_NOT_AFFECTED
#define U SS_AFFECT_UNKNOWN

/* The project's real-broker fixtures: 4.4.0 has both fixes, 4.3.1 neither. */
static void test_fixture_releases(void **state)
{
	(void)state;
	expect("KAFKA-20977", "4.4.0", N);
	expect("KAFKA-20732", "4.4.0", N);
	expect("KAFKA-20977", "4.3.1", A);
	expect("KAFKA-20732", "4.3.1", A);
}

static void test_20977(void **state)
{
	(void)state;
	const char *k = "KAFKA-20977";
	expect(k, "3.6.2", N);   /* no copy-lag metric before 3.7 */
	expect(k, "3.6", N);
	expect(k, "3.7.0", A);   /* first affected */
	expect(k, "3.7", A);
	expect(k, "3.9.2", A);
	expect(k, "4.2.2", A);
	expect(k, "4.2", A);     /* every 4.2 release checked is affected */
	expect(k, "4.2.3", U);   /* not a release the table knows */
	expect(k, "4.3.0", A);
	expect(k, "4.3.1", A);   /* last affected checked */
	expect(k, "4.3.2", U);   /* no kafka-storage 4.3.2 to read */
	expect(k, "4.3", U);
	expect(k, "4.4.0", N);   /* first fixed */
	expect(k, "4.4", N);
	expect(k, "4.4.7", N);
	expect(k, "4.5.0", N);
	expect(k, "5.0", N);
	expect(k, "2.8.1", N);
	assert_int_equal(ss_ticket_affects(ss_ticket_find(k), NULL), U);
}

static void test_20732(void **state)
{
	(void)state;
	const char *k = "KAFKA-20732";
	expect(k, "3.5.2", N);
	expect(k, "3.6.0", A);   /* tiered storage early access */
	expect(k, "3.6", A);
	expect(k, "3.9.2", A);   /* backport #22735 not merged */
	expect(k, "3.9", A);
	expect(k, "4.2.2", A);
	expect(k, "4.3.1", A);   /* last affected of 4.3 */
	expect(k, "4.3.2", N);   /* first fixed of 4.3 */
	expect(k, "4.3.3", N);
	expect(k, "4.3", U);     /* 4.3.0/4.3.1 affected, 4.3.2 fixed */
	expect(k, "4.4.0", N);
	expect(k, "4.4", N);
	expect(k, "4.6", N);
}

static void test_20932(void **state)
{
	(void)state;
	const char *k = "KAFKA-20932";
	expect(k, "3.5.2", N);
	expect(k, "3.6.0", A);
	expect(k, "4.3.1", A);
	expect(k, "4.3.2", U);
	expect(k, "4.3", U);
	expect(k, "4.4.0", A);   /* no fix merged */
	expect(k, "4.4", A);     /* 4.4.0 is the only 4.4 release */
	expect(k, "4.4.1", U);
	expect(k, "4.5.0", U);
	expect(k, "4.5", U);
}

static void test_21098(void **state)
{
	(void)state;
	const char *k = "KAFKA-21098";
	expect(k, "3.6.2", N);   /* no delete-lag gauges yet */
	expect(k, "3.7.0", A);
	expect(k, "4.3.1", A);
	expect(k, "4.3.2", U);
	expect(k, "4.4.0", N);
	expect(k, "4.4", N);
}

static void test_17428(void **state)
{
	(void)state;
	const char *k = "KAFKA-17428";
	expect(k, "3.5.2", N);
	expect(k, "3.6.0", A);
	expect(k, "3.9.2", A);   /* last affected */
	expect(k, "3.9", A);
	expect(k, "3.9.3", U);   /* not a release the table knows */
	expect(k, "4.0.0", N);   /* first fixed */
	expect(k, "4.0", N);
	expect(k, "4.3.1", N);
}

/* KAFKA-17360: -2 handed on raw in 3.6.0 .. 3.8.0 (javap of kafka_2.13 UnifiedLog$:
 * getfield RemoteLogConfig.localRetentionMs in 3.6.0, 3.6.2, 3.7.0, 3.7.1, 3.8.0;
 * invokevirtual LogConfig.localRetentionMs() in 3.7.2, 3.8.1, 3.9.0) */
static void test_17360(void **state)
{
	(void)state;
	const char *k = "KAFKA-17360";
	expect(k, "3.5.2", N);   /* RemoteLogConfig still resolved -2 */
	expect(k, "3.6.0", A);
	expect(k, "3.6.2", A);
	expect(k, "3.6", A);
	expect(k, "3.7.0", A);
	expect(k, "3.7.1", A);   /* last affected of 3.7 */
	expect(k, "3.7.2", N);   /* the 3.7 backport */
	expect(k, "3.7", U);     /* a line with both */
	expect(k, "3.8.0", A);
	expect(k, "3.8.1", N);
	expect(k, "3.8", U);
	expect(k, "3.9.0", N);
	expect(k, "3.9", N);
	expect(k, "4.3.1", N);
	assert_null(ss_ticket_find("KAFKA-17360")->finding);
}

/* A behaviour that changed at a line (Kafka 4.2's local retention of an empty policy). */
static void test_release_before(void **state)
{
	(void)state;
	struct ss_kver v;
	assert_int_equal(ss_kver_parse("4.1.2", &v), 0);
	assert_int_equal(ss_release_before(&v, 0, 4, 2), A);
	assert_int_equal(ss_kver_parse("4.2", &v), 0);
	assert_int_equal(ss_release_before(&v, 0, 4, 2), N);
	assert_int_equal(ss_kver_parse("4.2.0", &v), 0);
	assert_int_equal(ss_release_before(&v, 0, 4, 2), N);
	assert_int_equal(ss_release_before(NULL, 0, 4, 2), U);
	assert_int_equal(ss_release_before(NULL, 27, 4, 2), A);   /* 4.1 */
	assert_int_equal(ss_release_before(NULL, 29, 4, 2), U);   /* 4.2, or 4.1 with unstable versions */
	assert_int_equal(ss_release_before(NULL, 30, 4, 2), N);   /* 4.3, or 4.2 with unstable versions */
	assert_int_equal(ss_release_before(NULL, 34, 4, 2), N);   /* newer than 4.4, or 4.4 testing */
	assert_int_equal(ss_release_before(NULL, 28, 4, 2), U);   /* unreleased */
	assert_int_equal(ss_release_before(NULL, 6, 4, 2), A);    /* older than 3.3 */
}

static void expect_mv_affect(const char *id, int level, enum ss_affect want)
{
	enum ss_affect got = ss_ticket_affects_mv(ss_ticket_find(id), level);
	if (got != want)
		fail_msg("%s at metadata.version %d: %s, want %s", id, level, ss_affect_name(got), ss_affect_name(want));
}

static void test_affects_mv(void **state)
{
	(void)state;
	expect_mv_affect("KAFKA-20977", 33, N);   /* 4.4 */
	expect_mv_affect("KAFKA-20977", 30, U);   /* 4.3 (4.3.2 unchecked), or 4.2 testing */
	expect_mv_affect("KAFKA-20977", 27, A);   /* 4.1 */
	expect_mv_affect("KAFKA-20977", 29, A);   /* 4.2 or 4.1: both affected */
	expect_mv_affect("KAFKA-20977", 20, A);   /* 3.8 or 3.7 */
	expect_mv_affect("KAFKA-20977", 14, N);   /* 3.6 */
	expect_mv_affect("KAFKA-20977", 34, N);   /* newer, or 4.4 testing */
	expect_mv_affect("KAFKA-20977", 99, N);
	expect_mv_affect("KAFKA-20977", 28, U);   /* unreleased */
	expect_mv_affect("KAFKA-20977", 6, N);    /* older than 3.3 */
	expect_mv_affect("KAFKA-20732", 30, U);
	expect_mv_affect("KAFKA-20732", 14, A);
	expect_mv_affect("KAFKA-20932", 33, A);
	expect_mv_affect("KAFKA-20932", 34, U);   /* a newer release might carry the fix */
	expect_mv_affect("KAFKA-17428", 25, N);   /* 4.0 */
	expect_mv_affect("KAFKA-17428", 26, N);   /* 4.0 testing */
	expect_mv_affect("KAFKA-17428", 23, A);   /* 3.9 testing */
	expect_mv_affect("KAFKA-17428", 21, A);   /* 3.9, or 3.8 testing */
	expect_mv_affect("KAFKA-17428", 0, U);
	assert_int_equal(ss_ticket_affects_mv(NULL, 27), U);
}

static void expect_text(const char *id, const char *want)
{
	char buf[256];
	int n = ss_ticket_describe(ss_ticket_find(id), buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%s: \"%s\", want \"%s\"", id, buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_describe(void **state)
{
	(void)state;
	expect_text("KAFKA-20977", "Kafka 3.7.0 to 4.3.1 (fixed in 4.4.0; 4.3.2 not checked)");
	expect_text("KAFKA-20732", "Kafka 3.6.0 to 4.3.1 (fixed in 4.3.2, 4.4.0)");
	expect_text("KAFKA-20932", "Kafka 3.6.0 to 4.4.0 (no fixed release known; 4.3.2 not checked)");
	expect_text("KAFKA-21098", "Kafka 3.7.0 to 4.3.1 (fixed in 4.4.0; 4.3.2 not checked)");
	expect_text("KAFKA-17428", "Kafka 3.6.0 to 3.9.2 (fixed in 4.0.0)");
	expect_text("KAFKA-17360", "Kafka 3.6.0 to 3.8.0 (fixed in 3.7.2, 3.8.1, 3.9.0)");

	/* a short buffer is cut, terminated, and the full length still returned */
	char small[12];
	const char *full = "Kafka 3.6.0 to 3.9.2 (fixed in 4.0.0)";
	int n = ss_ticket_describe(ss_ticket_find("KAFKA-17428"), small, sizeof(small));
	assert_int_equal(n, (int)strlen(full));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, full, sizeof(small) - 1);
}

static void test_find_and_sources(void **state)
{
	(void)state;
	assert_non_null(ss_ticket_find("kafka-20977"));
	assert_ptr_equal(ss_ticket_find("PHANTOM_COPY_LAG"), ss_ticket_find("KAFKA-20977"));
	assert_ptr_equal(ss_ticket_find("UNSEEDED_SIZE_RETENTION"), ss_ticket_find("KAFKA-20732"));
	assert_ptr_equal(ss_ticket_find("LOST_EPOCH_SEGMENT"), ss_ticket_find("KAFKA-20932"));
	assert_ptr_equal(ss_ticket_find("DANGLING_REMOTE_SEGMENT"), ss_ticket_find("KAFKA-17428"));
	assert_null(ss_ticket_find("KAFKA-1"));
	assert_null(ss_ticket_find("TRUNCATED_TAIL"));
	assert_null(ss_ticket_find(NULL));
	assert_string_equal(ss_ticket_find("KAFKA-20977")->fix_url, "https://github.com/apache/kafka/pull/23246");
	assert_string_equal(ss_ticket_find("KAFKA-20732")->fix_url, "https://github.com/apache/kafka/pull/22661");

	size_t n;
	const struct ss_ticket *all = ss_tickets(&n);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		const struct ss_ticket *t = &all[i];
		assert_true(strncmp(t->fix_url, "https://", 8) == 0);
		assert_true(strncmp(t->intro_source, "https://", 8) == 0);
		assert_true(t->nlines > 0);
		for (size_t j = 0; j < t->nlines; j++) {
			const struct ss_ticket_line *l = &t->lines[j];
			char v[16];
			ss_kver_format(&l->line, v, sizeof(v));
			if (strncmp(l->source, "https://", 8) != 0 || l->evidence[0] == '\0')
				fail_msg("%s line %s: no source or evidence", t->id, v);
			/* lines in order, within introduced .. fixed_line, patches within the releases known */
			if (j > 0 && ss_kver_cmp(&t->lines[j - 1].line, &l->line) >= 0)
				fail_msg("%s: line %s out of order", t->id, v);
			struct ss_kver intro_line = { t->introduced.major, t->introduced.minor, SS_KVER_LINE };
			if (ss_kver_cmp(&l->line, &intro_line) < 0)
				fail_msg("%s: line %s before the bug", t->id, v);
			if (t->fixed_line.major && ss_kver_cmp(&l->line, &t->fixed_line) >= 0)
				fail_msg("%s: line %s at or after the fixed line", t->id, v);
			int lp;
			if (ss_release_line_info(&l->line, NULL, NULL, &lp) != 0 || l->last_affected > lp ||
			    l->first_fixed > lp || (l->first_fixed >= 0 && l->first_fixed <= l->last_affected))
				fail_msg("%s: line %s patches inconsistent", t->id, v);
		}
	}
	assert_string_equal(ss_affect_name(SS_AFFECTED), "AFFECTED");
	assert_string_equal(ss_affect_name(SS_NOT_AFFECTED), "NOT_AFFECTED");
	assert_string_equal(ss_affect_name(SS_AFFECT_UNKNOWN), "UNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_cmp_format),
		cmocka_unit_test(test_mv_lines),
		cmocka_unit_test(test_mv_describe),
		cmocka_unit_test(test_line_info),
		cmocka_unit_test(test_fixture_releases),
		cmocka_unit_test(test_20977),
		cmocka_unit_test(test_20732),
		cmocka_unit_test(test_20932),
		cmocka_unit_test(test_21098),
		cmocka_unit_test(test_17428),
		cmocka_unit_test(test_17360),
		cmocka_unit_test(test_release_before),
		cmocka_unit_test(test_affects_mv),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_find_and_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
