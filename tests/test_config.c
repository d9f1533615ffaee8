/*
 * --topic-config and --server-properties: parsing, Kafka's validators, precedence
 * (topic line > '*' > server.properties > Kafka defaults), Java properties syntax,
 * FILE:LINE errors. Expected values are the literal numbers in the inputs and Kafka's
 * documented defaults (LogConfig: retention.ms 604800000, segment.bytes 1 GiB).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/config.h"
#include "segscan.h"
#include "source/local_files.h"
#include "testutil.h"

static struct ss_config *topics(const char *text, int want)
{
	struct ss_config *c;
	char err[512] = "";
	assert_int_equal(ss_config_new(&c), 0);
	int e = ss_config_load_topics_buf(c, text, strlen(text), "topics.conf", err, sizeof(err));
	if (e != want)
		fail_msg("load_topics: got %d (%s), want %d", e, err, want);
	return c;
}

static void test_defaults(void **state)
{
	(void)state;
	struct ss_topic_cfg t;
	ss_config_resolve(NULL, "orders", &t);
	assert_int_equal(t.retention_ms, 604800000LL);
	assert_int_equal(t.retention_bytes, -1);
	assert_int_equal(t.local_retention_ms, -2);
	assert_int_equal(t.local_retention_bytes, -2);
	assert_int_equal(t.segment_bytes, 1073741824LL);
	assert_int_equal(t.remote_storage, -1);
	assert_int_equal(t.remote_system_enable, 0);
	assert_int_equal(t.compact, 0);
}

static void test_topic_file(void **state)
{
	(void)state;
	struct ss_config *c = topics("# comment line\n"
				     "*       retention.ms=604800001 retention.bytes=-1 remote.storage.enable=false\n"
				     "\n"
				     "orders  retention.bytes=134217728 local.retention.bytes=-2 remote.storage.enable=true # tail\n"
				     "logs.v2-eu retention.ms=-1 local.retention.ms=3600000 segment.bytes=1048576 "
				     "cleanup.policy=compact,delete remote.log.copy.disable=TRUE\n"
				     "orders  retention.ms=1000\n"
				     "plain\n",
				     0);
	struct ss_topic_cfg t;
	ss_config_resolve(c, "orders", &t);
	assert_int_equal(t.retention_ms, 1000);          /* later line for the same topic */
	assert_int_equal(t.retention_bytes, 134217728);
	assert_int_equal(t.local_retention_bytes, -2);
	assert_int_equal(t.remote_storage, 1);
	ss_config_resolve(c, "logs.v2-eu", &t);
	assert_int_equal(t.retention_ms, -1);
	assert_int_equal(t.local_retention_ms, 3600000);
	assert_int_equal(t.segment_bytes, 1048576);
	assert_int_equal(t.compact, 1);
	assert_int_equal(t.remote_copy_disable, 1);
	assert_int_equal(t.remote_storage, 0);           /* from '*' */
	ss_config_resolve(c, "other", &t);
	assert_int_equal(t.retention_ms, 604800001);
	assert_int_equal(t.remote_storage, 0);
	assert_int_equal(t.segment_bytes, 1073741824LL);
	ss_config_resolve(c, "order", &t);               /* a prefix is another topic */
	assert_int_equal(t.retention_bytes, -1);
	assert_int_equal(c->n_warnings, 0);
	ss_config_free(c);
}

static void test_topic_unknown_keys(void **state)
{
	(void)state;
	struct ss_config *c = topics("t segment.ms=100 min.insync.replicas=2 retention.ms=5\n", 0);
	assert_int_equal(c->n_warnings, 2);
	assert_non_null(strstr(c->warnings[0], "topics.conf:1:"));
	assert_non_null(strstr(c->warnings[0], "segment.ms"));
	struct ss_topic_cfg t;
	ss_config_resolve(c, "t", &t);
	assert_int_equal(t.retention_ms, 5);
	ss_config_free(c);
}

static void test_topic_errors(void **state)
{
	(void)state;
	static const struct { const char *text; const char *where; const char *what; } bad[] = {
		{ "t retention.ms\n", "topics.conf:1:", "key=value" },
		{ "\n\nt retention.ms=\n", "topics.conf:3:", "key=value" },
		{ "t =5\n", "topics.conf:1:", "key=value" },
		{ "t retention.ms=abc\n", "topics.conf:1:", "retention.ms" },
		{ "t retention.ms=-2\n", "topics.conf:1:", ">= -1" },
		{ "t local.retention.bytes=-3\n", "topics.conf:1:", ">= -2" },
		{ "t retention.ms=9223372036854775808\n", "topics.conf:1:", "retention.ms" },
		{ "t segment.bytes=13\n", "topics.conf:1:", "segment.bytes" },
		{ "t segment.bytes=2147483648\n", "topics.conf:1:", "segment.bytes" },
		{ "t remote.storage.enable=yes\n", "topics.conf:1:", "true or false" },
		{ "t cleanup.policy=compact,,delete\n", "topics.conf:1:", "cleanup.policy" },
		{ "t cleanup.policy=Compact\n", "topics.conf:1:", "cleanup.policy" },
		{ "t Retention.ms=5\n", "topics.conf:1:", "not a topic config" },
		{ "t retention_ms=5\n", "topics.conf:1:", "not a topic config" },
		{ "bad/topic retention.ms=5\n", "topics.conf:1:", "not a topic name" },
		{ "# ok\n** retention.ms=5\n", "topics.conf:2:", "not a topic name" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ss_config *c;
		char err[512] = "";
		assert_int_equal(ss_config_new(&c), 0);
		int e = ss_config_load_topics_buf(c, bad[i].text, strlen(bad[i].text), "topics.conf", err, sizeof(err));
		if (e != SEGSCAN_ECONFIG || strncmp(err, bad[i].where, strlen(bad[i].where)) || !strstr(err, bad[i].what))
			fail_msg("case %zu: %d \"%s\"", i, e, err);
		ss_config_free(c);
	}
	/* values Kafka accepts: sign, case, spaces are not in tokens */
	struct ss_config *c = topics("t retention.ms=+5 remote.storage.enable=False retention.bytes=-7\n", 0);
	struct ss_topic_cfg t;
	ss_config_resolve(c, "t", &t);
	assert_int_equal(t.retention_ms, 5);
	assert_int_equal(t.retention_bytes, -7);
	assert_int_equal(t.remote_storage, 0);
	ss_config_free(c);
}

static struct ss_config *server(const char *text, int want, char *err, size_t errlen)
{
	struct ss_config *c;
	assert_int_equal(ss_config_new(&c), 0);
	int e = ss_config_load_server_buf(c, text, strlen(text), "server.properties", err, errlen);
	if (e != want)
		fail_msg("load_server: got %d (%s), want %d", e, err, want);
	return c;
}

static void test_server_properties(void **state)
{
	(void)state;
	char err[512] = "";
	struct ss_config *c = server("# Kafka broker\n"
				     "! another comment style \\\n"
				     "broker.id=1\n"
				     "log.dirs=/data/k1, /data/k2,\\\n"
				     "    /data/k3\n"
				     "log.dir=/tmp/ignored\n"
				     "log.retention.hours=48\n"
				     "log.retention.minutes : 90\n"
				     "log.retention.bytes 1073741824\n"
				     "log.local.retention.ms=  3600000\n"
				     "log.segment.bytes=536870912\r\n"
				     "remote.log.storage.system.enable=true\n"
				     "some.other.key=\\u00e9t\\u00e9\n",
				     0, err, sizeof(err));
	assert_int_equal(c->n_log_dirs, 3);
	assert_string_equal(c->log_dirs[0], "/data/k1");
	assert_string_equal(c->log_dirs[1], "/data/k2");
	assert_string_equal(c->log_dirs[2], "/data/k3");
	struct ss_topic_cfg t;
	ss_config_resolve(c, "x", &t);
	assert_int_equal(t.retention_ms, 90LL * 60000);   /* minutes beat hours */
	assert_int_equal(t.retention_bytes, 1073741824LL);
	assert_int_equal(t.local_retention_ms, 3600000);
	assert_int_equal(t.local_retention_bytes, -2);
	assert_int_equal(t.segment_bytes, 536870912);
	assert_int_equal(t.remote_system_enable, 1);
	assert_int_equal(t.remote_storage, -1);
	ss_config_free(c);

	/* ms beats minutes and hours, negative means unlimited (-1); system enable defaults false */
	c = server("log.retention.hours=1\nlog.retention.ms=-5\nlog.retention.minutes=3\nlog.dir=/one\n", 0, err,
		   sizeof(err));
	ss_config_resolve(c, "x", &t);
	assert_int_equal(t.retention_ms, -1);
	assert_int_equal(t.remote_system_enable, -1);
	assert_int_equal(c->n_log_dirs, 1);
	assert_string_equal(c->log_dirs[0], "/one");
	ss_config_free(c);

	/* hours alone; the last occurrence of a key wins */
	c = server("log.retention.hours=1\nlog.retention.hours=2\n", 0, err, sizeof(err));
	ss_config_resolve(c, "x", &t);
	assert_int_equal(t.retention_ms, 2LL * 3600000);
	ss_config_free(c);
}

static void test_precedence(void **state)
{
	(void)state;
	char err[512] = "";
	struct ss_config *c = server("log.retention.ms=111\nlog.retention.bytes=222\nlog.cleanup.policy=compact\n", 0,
				     err, sizeof(err));
	const char *tc = "* retention.bytes=333\nt retention.ms=444 cleanup.policy=delete\n";
	assert_int_equal(ss_config_load_topics_buf(c, tc, strlen(tc), "topics.conf", err, sizeof(err)), 0);
	struct ss_topic_cfg t;
	ss_config_resolve(c, "t", &t);
	assert_int_equal(t.retention_ms, 444);   /* topic line */
	assert_int_equal(t.retention_bytes, 333);   /* '*' over server.properties */
	assert_int_equal(t.compact, 0);
	ss_config_resolve(c, "u", &t);
	assert_int_equal(t.retention_ms, 111);   /* server.properties over the default */
	assert_int_equal(t.compact, 1);
	ss_config_free(c);
}

static void test_server_errors(void **state)
{
	(void)state;
	static const struct { const char *text; const char *where; } bad[] = {
		{ "a=1\nlog.retention.ms=12x\n", "server.properties:2:" },
		{ "log.retention.hours=2147483648\n", "server.properties:1:" },
		{ "# c\n\nlog.segment.bytes=1\n", "server.properties:3:" },
		{ "x=\\u12G4\n", "server.properties:1:" },
		{ "remote.log.storage.system.enable=1\n", "server.properties:1:" },
		{ "log.local.retention.bytes=-3\n", "server.properties:1:" },
		/* the error names the line where the (continued) entry starts */
		{ "a=1\nlog.retention.ms=1\\\n   2x\n", "server.properties:2:" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512] = "";
		struct ss_config *c = server(bad[i].text, SEGSCAN_ECONFIG, err, sizeof(err));
		if (strncmp(err, bad[i].where, strlen(bad[i].where)))
			fail_msg("case %zu: \"%s\"", i, err);
		ss_config_free(c);
	}
	/* a continued value joins without the next line's leading spaces: "12" */
	char err[512];
	struct ss_config *c = server("log.retention.ms=1\\\n    2\n", 0, err, sizeof(err));
	struct ss_topic_cfg t;
	ss_config_resolve(c, "x", &t);
	assert_int_equal(t.retention_ms, 12);
	ss_config_free(c);
	/* an even number of backslashes does not continue */
	c = server("log.dirs=/a\\\\\nlog.retention.ms=7\n", 0, err, sizeof(err));
	assert_string_equal(c->log_dirs[0], "/a\\");
	ss_config_resolve(c, "x", &t);
	assert_int_equal(t.retention_ms, 7);
	ss_config_free(c);
}

/* The local-files source: a regular file, a pipe (as the shell's <(...) gives), and the
 * messages for a file that cannot be opened or read. */
static void test_files(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp("config");
	char tp[512], sp[512];
	snprintf(tp, sizeof(tp), "%s/topics.conf", dir);
	snprintf(sp, sizeof(sp), "%s/server.properties", dir);
	const char *text = "t retention.ms=5\n";
	assert_int_equal(tu_write_file(tp, text, strlen(text)), 0);
	struct ss_config *c;
	char err[512];
	assert_int_equal(ss_config_new(&c), 0);
	assert_int_equal(ss_source_topic_config(c, tp, err, sizeof(err)), 0);
	/* server.properties through a pipe, read to its end */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	const char *props = "log.retention.ms=9\n";
	assert_int_equal(write(pfd[1], props, strlen(props)), (ssize_t)strlen(props));
	close(pfd[1]);
	char pp[64];
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", pfd[0]);
	assert_int_equal(ss_source_server_properties(c, pp, err, sizeof(err)), 0);
	close(pfd[0]);
	struct ss_topic_cfg t;
	ss_config_resolve(c, "t", &t);
	assert_int_equal(t.retention_ms, 5);
	ss_config_resolve(c, "u", &t);
	assert_int_equal(t.retention_ms, 9);
	/* a parse error names the file and line */
	assert_int_equal(tu_write_file(sp, "log.retention.ms=x\n", 19), 0);
	assert_int_equal(ss_source_server_properties(c, sp, err, sizeof(err)), SEGSCAN_ECONFIG);
	assert_non_null(strstr(err, "server.properties:1:"));
	ss_config_free(c);

	assert_int_equal(ss_config_new(&c), 0);
	snprintf(tp, sizeof(tp), "%s/missing.conf", dir);
	assert_int_equal(ss_source_topic_config(c, tp, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "--topic-config "));
	assert_non_null(strstr(err, "cannot open"));
	assert_int_equal(ss_source_topic_config(c, dir, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "cannot read"));
	ss_config_free(c);
	snprintf(tp, sizeof(tp), "%s/topics.conf", dir);
	unlink(tp);
	unlink(sp);
	rmdir(dir);
	free(dir);
}

/* ---- dynamic levels (the metadata log) --------------------------------------------- */
struct dynkv {
	enum ss_cfg_level lvl;
	const char *topic, *key, *value;
};
struct dynset {
	const struct dynkv *kv;
	size_t n;
};

static const char *dyn_get(const void *arg, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	const struct dynset *d = arg;
	for (size_t i = 0; i < d->n; i++)
		if (d->kv[i].lvl == lvl && !strcmp(d->kv[i].key, key) &&
		    (lvl != SS_CFGL_DYN_TOPIC || (topic && !strcmp(d->kv[i].topic, topic))))
			return d->kv[i].value;
	return NULL;
}

static const struct ss_cfg_entry *entry(const struct ss_topic_cfg *t, const char *key)
{
	const struct ss_cfg_entry *e = ss_cfg_entry_find(t, key);
	if (!e)
		fail_msg("no entry %s", key);
	return e;
}

static void expect_entry(const struct ss_topic_cfg *t, const char *key, const char *value, const char *source)
{
	const struct ss_cfg_entry *e = entry(t, key);
	assert_string_equal(e->value, value);
	if (!source)
		assert_null(e->source);
	else if (!e->source)
		fail_msg("%s: source null, want %s", key, source);
	else
		assert_string_equal(e->source, source);
}

/* Kafka's precedence: topic > this broker > cluster default > static > default, with the
 * broker names; retention.ms over ms/minutes/hours merged across the broker levels, and
 * the source DescribeConfigs names (log.retention.ms alone). */
static void test_dynamic_levels(void **state)
{
	(void)state;
	struct ss_config *c = NULL;
	char err[256];
	assert_int_equal(ss_config_new(&c), 0);
	static const char props[] = "log.retention.hours=72\nlog.segment.bytes=536870912\n"
				    "log.retention.bytes=99\nlog.cleanup.policy=delete\n";
	assert_int_equal(ss_config_load_server_buf(c, props, strlen(props), "server.properties", err, sizeof(err)), 0);
	static const struct dynkv kv[] = {
		{ SS_CFGL_DYN_TOPIC, "t", "retention.bytes", "5000" },
		{ SS_CFGL_DYN_TOPIC, "t", "cleanup.policy", "compact, delete" },
		{ SS_CFGL_DYN_TOPIC, "t", "remote.storage.enable", "true" },
		{ SS_CFGL_DYN_BROKER, NULL, "log.local.retention.ms", "1000" },
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.local.retention.ms", "2000" },
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.local.retention.bytes", "3000" },
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.retention.minutes", "10" },
	};
	struct dynset ds = { kv, sizeof(kv) / sizeof(kv[0]) };
	struct ss_cfg_dynamic dyn = { dyn_get, &ds, NULL };
	struct ss_topic_cfg t;

	ss_config_resolve_ctx(c, &dyn, "t", &t);
	expect_entry(&t, "retention.bytes", "5000", "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(t.retention_bytes, 5000);
	expect_entry(&t, "cleanup.policy", "compact,delete", "DYNAMIC_TOPIC_CONFIG");
	assert_true(t.compact && t.policy_known);
	expect_entry(&t, "remote.storage.enable", "true", "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(t.remote_storage, 1);
	expect_entry(&t, "local.retention.ms", "1000", "DYNAMIC_BROKER_CONFIG");     /* broker over default */
	expect_entry(&t, "local.retention.bytes", "3000", "DYNAMIC_DEFAULT_BROKER_CONFIG");
	expect_entry(&t, "segment.bytes", "536870912", "STATIC_BROKER_CONFIG");
	/* minutes (dynamic default) beat hours (static): ms > minutes > hours over the merged
	 * levels; no level holds log.retention.ms itself, so Kafka names DEFAULT_CONFIG */
	expect_entry(&t, "retention.ms", "600000", "DEFAULT_CONFIG");
	assert_int_equal(t.retention_ms, 600000);

	/* another topic: no topic configs; static retention.bytes, remote storage off */
	ss_config_resolve_ctx(c, &dyn, "u", &t);
	expect_entry(&t, "retention.bytes", "99", "STATIC_BROKER_CONFIG");
	expect_entry(&t, "remote.storage.enable", "false", "DEFAULT_CONFIG");
	assert_int_equal(t.remote_storage, 0);
	expect_entry(&t, "cleanup.policy", "delete", "STATIC_BROKER_CONFIG");
	assert_true(t.policy_known && !t.compact);

	/* without the metadata log a default is not a fact, and remote storage is unknown */
	ss_config_resolve_ctx(c, NULL, "u", &t);
	expect_entry(&t, "remote.storage.enable", "false", NULL);
	assert_int_equal(t.remote_storage, -1);
	expect_entry(&t, "retention.ms", "259200000", NULL);   /* static hours: the value, not Kafka's source */
	expect_entry(&t, "retention.bytes", "99", "STATIC_BROKER_CONFIG");
	ss_config_free(c);

	/* without server.properties, a default of a key with a broker synonym is unknown */
	ss_config_resolve_ctx(NULL, &dyn, "u", &t);
	expect_entry(&t, "segment.bytes", "1073741824", NULL);
	expect_entry(&t, "remote.storage.enable", "false", "DEFAULT_CONFIG");   /* topic-only key */
	expect_entry(&t, "retention.ms", "600000", NULL);
	assert_false(t.policy_known);

	/* a --topic-config line overrides every level (what-if questions) */
	c = topics("t retention.bytes=7\n* segment.bytes=1048576\n", 0);
	ss_config_resolve_ctx(c, &dyn, "t", &t);
	expect_entry(&t, "retention.bytes", "7", "TOPIC_CONFIG_FILE");
	expect_entry(&t, "segment.bytes", "1048576", "TOPIC_CONFIG_FILE");
	expect_entry(&t, "cleanup.policy", "compact,delete", "DYNAMIC_TOPIC_CONFIG");
	ss_config_free(c);
}

/*
 * An empty cleanup.policy (issue 20 follow-up): ConfigDef parses "" as the empty LIST and
 * every release accepts it (Kafka 4.2 documents it as infinite retention). A --topic-config
 * line, server.properties and the metadata log's dynamic value all give it; it has no
 * delete (so no retention by time or size of the local log) and no compact. An empty item
 * is still refused, as Kafka's ValidString refuses "".
 */
static void test_empty_cleanup_policy(void **state)
{
	(void)state;
	struct ss_topic_cfg t;
	struct ss_config *c = topics("t cleanup.policy= retention.ms=5\nu cleanup.policy=delete\n", 0);
	ss_config_resolve(c, "t", &t);
	expect_entry(&t, "cleanup.policy", "", "TOPIC_CONFIG_FILE");
	assert_int_equal(t.no_delete, 1);
	assert_int_equal(t.compact, 0);
	assert_true(t.policy_known);
	assert_int_equal(t.retention_ms, 5);
	ss_config_resolve(c, "u", &t);
	assert_int_equal(t.no_delete, 0);
	ss_config_free(c);
	static const char *const bad[] = { "t cleanup.policy=delete,\n", "t cleanup.policy=,\n", "t retention.ms=\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ss_config_free(topics(bad[i], SEGSCAN_ECONFIG));

	char err[256] = "";
	c = server("log.cleanup.policy=\n", 0, err, sizeof(err));
	ss_config_resolve(c, "t", &t);
	expect_entry(&t, "cleanup.policy", "", "STATIC_BROKER_CONFIG");
	assert_int_equal(t.no_delete, 1);
	ss_config_free(c);

	/* the metadata log's value: parsed, not a warning's "does not parse" */
	assert_true(ss_config_dynamic_valid(false, "cleanup.policy", ""));
	assert_true(ss_config_dynamic_valid(true, "log.cleanup.policy", " "));
	assert_false(ss_config_dynamic_valid(false, "cleanup.policy", "delete,"));
	static const struct dynkv kv[] = { { SS_CFGL_DYN_TOPIC, "t", "cleanup.policy", "" } };
	struct dynset ds = { kv, 1 };
	struct ss_cfg_dynamic dyn = { dyn_get, &ds, NULL };
	ss_config_resolve_ctx(NULL, &dyn, "t", &t);
	expect_entry(&t, "cleanup.policy", "", "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(t.no_delete, 1);
	assert_true(t.policy_known);
}

/* A level the metadata log lost (a gap, a bad batch): the value shown may be stale, so its
 * source is null and value_unsure marks it, bit for bit with the entries; a key set again
 * after the loss, or given by a --topic-config line, is known. */
static bool known_but_retention(const void *arg, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	(void)arg;
	(void)lvl;
	(void)topic;
	return strcmp(key, "retention.ms") && strcmp(key, "log.retention.ms") && strcmp(key, "log.retention.minutes") &&
	       strcmp(key, "log.retention.hours") && strcmp(key, "cleanup.policy");
}

static void test_value_unsure(void **state)
{
	(void)state;
	static const struct dynkv kv[] = {
		{ SS_CFGL_DYN_TOPIC, "t", "retention.ms", "1000" },    /* set before the loss */
		{ SS_CFGL_DYN_TOPIC, "t", "retention.bytes", "5000" }, /* set again after it */
	};
	struct dynset ds = { kv, 2 };
	struct ss_cfg_dynamic dyn = { dyn_get, &ds, known_but_retention };
	struct ss_topic_cfg t;
	ss_config_resolve_ctx(NULL, &dyn, "t", &t);
	expect_entry(&t, "retention.ms", "1000", NULL);
	expect_entry(&t, "retention.bytes", "5000", "DYNAMIC_TOPIC_CONFIG");
	uint32_t want = 0;
	for (uint32_t i = 0; i < t.n_entries; i++)
		if (!strcmp(t.entries[i].key, "retention.ms") || !strcmp(t.entries[i].key, "cleanup.policy"))
			want |= 1u << i;
	assert_int_equal(t.value_unsure, want);
	assert_false(t.policy_known);
	/* a --topic-config line is what the user asks about: known */
	struct ss_config *c = topics("t retention.ms=7 cleanup.policy=delete\n", 0);
	ss_config_resolve_ctx(c, &dyn, "t", &t);
	assert_int_equal(t.value_unsure, 0);
	ss_config_free(c);
	/* every level read whole: nothing unsure */
	dyn.known = NULL;
	ss_config_resolve_ctx(NULL, &dyn, "t", &t);
	assert_int_equal(t.value_unsure, 0);
}

/* The bit of `key` in a mask over t's entries. */
static uint32_t bit_of(const struct ss_topic_cfg *t, const char *key)
{
	for (uint32_t i = 0; i < t->n_entries; i++)
		if (!strcmp(t->entries[i].key, key))
			return 1u << i;
	fail_msg("no entry %s", key);
	return 0;
}

/*
 * What Kafka sets on an internal topic when it creates it is a topic-level value, never the
 * broker's: __remote_log_metadata gets retention.ms from the creating broker's
 * remote.log.metadata.topic.retention.ms (default -1) and cleanup.policy=delete
 * (TopicBasedRemoteLogMetadataManager), __consumer_offsets and __transaction_state
 * cleanup.policy=compact and their own segment.bytes. Without the topic's level (no
 * metadata log) those keys are not taken from the broker levels: a value Kafka always sets
 * is shown with a null source, one from the creator's config is unknown. With the topic's
 * level read, its value, or without one (deleted) the broker's, as in Kafka.
 */
static void test_internal_topic_creation_configs(void **state)
{
	(void)state;
	char err[256] = "";
	struct ss_config *c =
		server("log.retention.ms=1000\nlog.cleanup.policy=compact\nlog.segment.bytes=2000\n", 0, err, sizeof(err));
	struct ss_topic_cfg t;

	/* no metadata log: the broker's 1000 ms and compact are not this topic's */
	ss_config_resolve(c, "__remote_log_metadata", &t);
	expect_entry(&t, "retention.ms", "", NULL);
	assert_int_equal(t.value_unknown, bit_of(&t, "retention.ms"));
	assert_int_equal(t.retention_ms, -1);   /* no limit printed beside an unknown value */
	expect_entry(&t, "cleanup.policy", "delete", NULL);
	assert_int_equal(t.no_delete, 0);
	assert_false(t.policy_known);
	expect_entry(&t, "retention.bytes", "-1", NULL);   /* not set at creation: as any topic */
	expect_entry(&t, "segment.bytes", "2000", "STATIC_BROKER_CONFIG");

	ss_config_resolve(c, "__consumer_offsets", &t);
	expect_entry(&t, "cleanup.policy", "compact", NULL);
	assert_true(t.compact);
	assert_false(t.policy_known);
	expect_entry(&t, "segment.bytes", "", NULL);   /* offsets.topic.segment.bytes */
	assert_int_equal(t.value_unknown, bit_of(&t, "segment.bytes"));
	expect_entry(&t, "retention.ms", "1000", "STATIC_BROKER_CONFIG");

	/* an ordinary topic takes the broker's */
	ss_config_resolve(c, "t", &t);
	expect_entry(&t, "retention.ms", "1000", "STATIC_BROKER_CONFIG");
	assert_int_equal(t.value_unknown, 0);

	/* the metadata log read whole: the topic's own (a real broker's: -1, delete) */
	static const struct dynkv kv[] = {
		{ SS_CFGL_DYN_TOPIC, "__remote_log_metadata", "retention.ms", "-1" },
		{ SS_CFGL_DYN_TOPIC, "__remote_log_metadata", "cleanup.policy", "delete" },
	};
	struct dynset ds = { kv, 2 };
	struct ss_cfg_dynamic dyn = { dyn_get, &ds, NULL };
	ss_config_resolve_ctx(c, &dyn, "__remote_log_metadata", &t);
	expect_entry(&t, "retention.ms", "-1", "DYNAMIC_TOPIC_CONFIG");
	expect_entry(&t, "cleanup.policy", "delete", "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(t.value_unknown, 0);
	assert_true(t.policy_known);
	/* ... and where the topic has none (kafka-configs --delete-config), the broker's */
	ds.n = 0;
	ss_config_resolve_ctx(c, &dyn, "__remote_log_metadata", &t);
	expect_entry(&t, "retention.ms", "1000", "STATIC_BROKER_CONFIG");
	assert_int_equal(t.value_unknown, 0);
	/* the metadata log lost what could have changed the topic's level: the value it has
	 * may be stale (unsure); with none there, not the broker's either (unknown) */
	ds.n = 2;
	dyn.known = known_but_retention;
	ss_config_resolve_ctx(c, &dyn, "__remote_log_metadata", &t);
	expect_entry(&t, "retention.ms", "-1", NULL);
	assert_true(t.value_unsure & bit_of(&t, "retention.ms"));
	ds.n = 0;
	ss_config_resolve_ctx(c, &dyn, "__remote_log_metadata", &t);
	expect_entry(&t, "retention.ms", "", NULL);
	assert_true(t.value_unknown & bit_of(&t, "retention.ms"));
	assert_true(t.value_unsure & bit_of(&t, "retention.ms"));
	ss_config_free(c);

	/* a --topic-config line is what the user asks about */
	c = topics("__remote_log_metadata retention.ms=5000\n", 0);
	ss_config_resolve(c, "__remote_log_metadata", &t);
	expect_entry(&t, "retention.ms", "5000", "TOPIC_CONFIG_FILE");
	assert_int_equal(t.value_unknown, 0);
	ss_config_free(c);
}

/* kafka-configs.sh --describe --all output is a --topic-config file. */
static void test_kafka_configs_file(void **state)
{
	(void)state;
	struct ss_config *c = topics(
		"All configs for topic orders are:\n"
		"  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete}\n"
		"  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000}\n"
		"  remote.storage.enable=true sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:remote.storage.enable=true}\n"
		"  message.format.version=3.0-IV1 sensitive=false synonyms={}\n"
		"Dynamic configs for broker 1 are:\n"
		"  log.retention.bytes=1000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.bytes=1000}\n",
		0);
	assert_true(c->kafka_configs_format);
	struct ss_topic_cfg t;
	ss_config_resolve(c, "orders", &t);
	assert_int_equal(t.retention_ms, 3600000);
	assert_int_equal(t.remote_storage, 1);
	assert_true(t.compact);
	expect_entry(&t, "retention.ms", "3600000", "TOPIC_CONFIG_FILE");
	/* the broker block is left to the metadata log, with one warning, not one per key */
	assert_int_equal(c->n_warnings, 1);
	ss_config_free(c);
	/* a value Kafka would not accept is an error naming the line */
	topics("All configs for topic t are:\n  retention.ms=abc sensitive=false synonyms={}\n", SEGSCAN_ECONFIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_topic_file),
		cmocka_unit_test(test_topic_unknown_keys),
		cmocka_unit_test(test_topic_errors),
		cmocka_unit_test(test_server_properties),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_server_errors),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_dynamic_levels),
		cmocka_unit_test(test_empty_cleanup_policy),
		cmocka_unit_test(test_value_unsure),
		cmocka_unit_test(test_internal_topic_creation_configs),
		cmocka_unit_test(test_kafka_configs_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
