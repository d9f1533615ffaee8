/*
 * The effective config over dynamic levels the metadata log's replay does not know whole
 * (eval/config.c with ss_cfg_dynamic.known: issue 20 item 7, issue 21 item 3) and over a
 * dynamic value that does not parse (issue 21 item 12), on hand-made levels; the same
 * end to end on a real broker's metadata log is tests/test_kraft_source.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval/config.h"

struct lv {
	enum ss_cfg_level lvl;
	const char *topic, *key, *value;
	bool known;
};
struct lvs {
	const struct lv *v;
	size_t n;
	bool rest_known;   /* what known() says of a key none of v names */
};

static const struct lv *find(const struct lvs *d, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].lvl == lvl && !strcmp(d->v[i].key, key) &&
		    (lvl != SS_CFGL_DYN_TOPIC || (topic && !strcmp(d->v[i].topic, topic))))
			return &d->v[i];
	return NULL;
}

static const char *get(const void *arg, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	const struct lv *x = find(arg, lvl, topic, key);
	return x ? x->value : NULL;
}

static bool known(const void *arg, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	const struct lv *x = find(arg, lvl, topic, key);
	return x ? x->known : ((const struct lvs *)arg)->rest_known;
}

static void expect(const struct ss_topic_cfg *t, const char *key, const char *value, const char *source)
{
	const struct ss_cfg_entry *e = ss_cfg_entry_find(t, key);
	assert_non_null(e);
	assert_string_equal(e->value, value);
	if (!source)
		assert_null(e->source);
	else if (!e->source)
		fail_msg("%s: source null, want %s", key, source);
	else
		assert_string_equal(e->source, source);
}

/* Everything known: the same as without known() (today's answers). */
static void test_all_known(void **state)
{
	static const struct lv v[] = {
		{ SS_CFGL_DYN_TOPIC, "t", "remote.storage.enable", "true", true },
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.retention.bytes", "99", true },
	};
	struct lvs d = { v, 2, true };
	struct ss_cfg_dynamic dyn = { .get = get, .arg = &d, .known = known };
	struct ss_topic_cfg t;
	ss_config_resolve_ctx(NULL, &dyn, "t", &t);
	expect(&t, "remote.storage.enable", "true", "DYNAMIC_TOPIC_CONFIG");
	expect(&t, "retention.bytes", "99", "DYNAMIC_DEFAULT_BROKER_CONFIG");
	expect(&t, "local.retention.ms", "-2", NULL); /* no server.properties: a broker level unread */
	expect(&t, "cleanup.policy", "delete", NULL);
	expect(&t, "remote.log.copy.disable", "false", "DEFAULT_CONFIG");
	assert_int_equal(t.remote_storage, 1);
	assert_int_equal(t.retention_bytes, 99);
}

/* A level not known for a key: whatever it or a level below says is not the fact. */
static void test_levels_not_known(void **state)
{
	static const struct lv v[] = {
		{ SS_CFGL_DYN_TOPIC, "t", "retention.ms", "1000", false },          /* maybe stale */
		{ SS_CFGL_DYN_TOPIC, "t", "retention.bytes", NULL, false },         /* maybe set */
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.retention.bytes", "99", true },
		{ SS_CFGL_DYN_TOPIC, "t", "segment.bytes", "2048", true },          /* set after the loss */
		{ SS_CFGL_DYN_TOPIC, "t", "preallocate", NULL, true },              /* removed after it */
	};
	struct lvs d = { v, 5, false };
	struct ss_cfg_dynamic dyn = { .get = get, .arg = &d, .known = known };
	struct ss_topic_cfg t;
	ss_config_resolve_ctx(NULL, &dyn, "t", &t);
	expect(&t, "retention.ms", "1000", NULL);
	assert_int_equal(t.retention_ms, 1000);          /* the best there is, evaluated */
	expect(&t, "retention.bytes", "99", NULL);       /* the level below, not as a fact */
	expect(&t, "segment.bytes", "2048", "DYNAMIC_TOPIC_CONFIG");
	expect(&t, "remote.storage.enable", "false", NULL);
	assert_int_equal(t.remote_storage, -1);           /* tiering unknown, never "false" */
	assert_false(t.policy_known);
	/* --topic-config overrides every level: known whatever the log */
	struct ss_config *c = NULL;
	assert_int_equal(ss_config_new(&c), 0);
	char err[128];
	static const char line[] = "t remote.storage.enable=true\n";
	assert_int_equal(ss_config_load_topics_buf(c, line, strlen(line), "topics.txt", err, sizeof err), 0);
	ss_config_resolve_ctx(c, &dyn, "t", &t);
	expect(&t, "remote.storage.enable", "true", "TOPIC_CONFIG_FILE");
	assert_int_equal(t.remote_storage, 1);
	ss_config_free(c);
}

/* A dynamic value that does not parse: shown as it is, with its level; evaluated below. */
static void test_value_does_not_parse(void **state)
{
	static const struct lv v[] = {
		{ SS_CFGL_DYN_TOPIC, "t", "retention.ms", "1d", true },
		{ SS_CFGL_DYN_BROKER, NULL, "log.retention.ms", "3600000", true },
		{ SS_CFGL_DYN_TOPIC, "t", "remote.storage.enable", "yes", true },
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.cleanup.policy", "shred", true },
		{ SS_CFGL_DYN_DEFAULT, NULL, "log.retention.hours", "x", true },
	};
	struct lvs d = { v, 5, true };
	struct ss_cfg_dynamic dyn = { .get = get, .arg = &d, .known = known };
	struct ss_topic_cfg t;
	ss_config_resolve_ctx(NULL, &dyn, "t", &t);
	expect(&t, "retention.ms", "1d", "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(t.retention_ms, 3600000);
	expect(&t, "remote.storage.enable", "yes", "DYNAMIC_TOPIC_CONFIG");
	assert_int_equal(t.remote_storage, -1);
	expect(&t, "cleanup.policy", "shred", "DYNAMIC_DEFAULT_BROKER_CONFIG");
	assert_false(t.policy_known);
	/* the replay's validator agrees */
	assert_false(ss_config_dynamic_valid(false, "retention.ms", "1d"));
	assert_true(ss_config_dynamic_valid(false, "retention.ms", "-1"));
	assert_false(ss_config_dynamic_valid(false, "remote.storage.enable", "yes"));
	assert_false(ss_config_dynamic_valid(true, "log.retention.hours", "x"));
	assert_true(ss_config_dynamic_valid(true, "log.retention.ms", "-5"));
	assert_true(ss_config_dynamic_valid(false, "max.message.bytes", "anything"));
	assert_true(ss_config_dynamic_valid(true, "retention.ms", "not a broker key"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_known),
		cmocka_unit_test(test_levels_not_known),
		cmocka_unit_test(test_value_does_not_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
