/*
 * kafka-configs.sh --describe output as a --topic-config file (src/fmt/kafka_configs.c).
 * The inputs are laid out exactly as Kafka's ConfigCommand.describeResourceConfig prints
 * them (core/src/main/scala/kafka/admin/ConfigCommand.scala): a block header per entity,
 * then "  name=value sensitive=B synonyms={SOURCE:name=value, ...}".
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

#include "fmt/kafka_configs.h"
#include "segscan.h"

struct got {
	char text[4096];
	int  n;
	int  stop_at;   /* return -ECANCELED at this entry (1-based), 0 = never */
};

static int collect(void *arg, const struct ss_kc_entry *e)
{
	struct got *g = arg;
	size_t l = strlen(g->text);
	snprintf(g->text + l, sizeof(g->text) - l, "%s|%s|%s|%s|%s|%u\n", e->entity_type, e->entity, e->key,
		 e->value ? e->value : "(null)", e->source ? e->source : "(none)", e->line);
	g->n++;
	return g->stop_at && g->n == g->stop_at ? -ECANCELED : 0;
}

static const char describe_all[] =
	"All configs for topic orders are:\n"
	"  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, "
	"DEFAULT_CONFIG:log.cleanup.policy=delete}\n"
	"  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, "
	"STATIC_BROKER_CONFIG:log.retention.hours=100, DEFAULT_CONFIG:log.retention.hours=168}\n"
	"  retention.bytes=-1 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.bytes=-1}\n"
	"  follower.replication.throttled.replicas= sensitive=false synonyms={}\n"
	"\n"
	"All configs for topic __consumer_offsets are:\r\n"
	"  segment.bytes=104857600 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=104857600}\r\n"
	"Dynamic configs for broker 1 are:\n"
	"  log.retention.bytes=1000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.bytes=1000}\n"
	"  ssl.keystore.password=null sensitive=true synonyms={}\n"
	"Default configs for brokers in the cluster are:\n"
	"  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=7200000}\n";

static void test_describe_all(void **state)
{
	(void)state;
	struct got g = { .n = 0 };
	char err[256] = "";
	assert_true(ss_kc_detect(describe_all, strlen(describe_all)));
	int r = ss_kc_parse(describe_all, strlen(describe_all), "cfg.txt", collect, &g, err, sizeof(err));
	if (r)
		fail_msg("parse: %d %s", r, err);
	assert_int_equal(g.n, 8);
	assert_string_equal(g.text,
			    "topic|orders|cleanup.policy|compact,delete|DYNAMIC_TOPIC_CONFIG|2\n"
			    "topic|orders|retention.ms|3600000|DYNAMIC_TOPIC_CONFIG|3\n"
			    "topic|orders|retention.bytes|-1|DEFAULT_CONFIG|4\n"
			    "topic|orders|follower.replication.throttled.replicas||(none)|5\n"
			    "topic|__consumer_offsets|segment.bytes|104857600|DYNAMIC_TOPIC_CONFIG|8\n"
			    "broker|1|log.retention.bytes|1000|DYNAMIC_BROKER_CONFIG|10\n"
			    "broker|1|ssl.keystore.password|(null)|(none)|11\n"
			    "broker||log.retention.ms|7200000|DYNAMIC_DEFAULT_BROKER_CONFIG|13\n");
}

/* A value holding " sensitive=" itself still ends at the last one. */
static void test_value_with_spaces(void **state)
{
	(void)state;
	static const char t[] = "All configs for topic t are:\n"
				"  message.x=a b sensitive=false c sensitive=false synonyms={}\n";
	struct got g = { .n = 0 };
	char err[256] = "";
	assert_int_equal(ss_kc_parse(t, strlen(t), "f", collect, &g, err, sizeof(err)), 0);
	assert_string_equal(g.text, "topic|t|message.x|a b sensitive=false c|(none)|2\n");
}

static void expect_error(const char *text, const char *want_prefix)
{
	struct got g = { .n = 0 };
	char err[256] = "";
	int r = ss_kc_parse(text, strlen(text), "cfg.txt", collect, &g, err, sizeof(err));
	assert_int_equal(r, SEGSCAN_ECONFIG);
	if (strncmp(err, want_prefix, strlen(want_prefix)) != 0)
		fail_msg("error '%s' does not start with '%s'", err, want_prefix);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("  retention.ms=1 sensitive=false synonyms={}\n", "cfg.txt:1: config entry before");
	expect_error("All configs for topic t are:\n  retention.ms=1\n", "cfg.txt:2: not a kafka-configs entry");
	expect_error("All configs for topic t are:\nretention.ms=1 sensitive=false synonyms={}\n",
		     "cfg.txt:2: not a kafka-configs block header");
	expect_error("Configs for topic t\n", "cfg.txt:1: not a kafka-configs block header");
	static const char nul[] = "All configs for topic t are:\n  a=b\0 sensitive=false synonyms={}\n";
	struct got g = { .n = 0 };
	char err[256] = "";
	assert_int_equal(ss_kc_parse(nul, sizeof(nul) - 1, "f", collect, &g, err, sizeof(err)), SEGSCAN_ECONFIG);
	assert_string_equal(err, "f:2: NUL byte in line");
}

static void test_detect(void **state)
{
	(void)state;
	static const char native[] = "# comment\n*  retention.ms=1\n";
	assert_false(ss_kc_detect(native, strlen(native)));
	static const char blank_first[] = "\n\n  \nDynamic configs for topic t are:\n";
	assert_true(ss_kc_detect(blank_first, strlen(blank_first)));
	assert_false(ss_kc_detect("", 0));
}

static void test_callback_stops(void **state)
{
	(void)state;
	struct got g = { .stop_at = 2 };
	char err[256] = "";
	assert_int_equal(ss_kc_parse(describe_all, strlen(describe_all), "f", collect, &g, err, sizeof(err)), -ECANCELED);
	assert_int_equal(g.n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe_all),   cmocka_unit_test(test_value_with_spaces),
		cmocka_unit_test(test_errors),         cmocka_unit_test(test_detect),
		cmocka_unit_test(test_callback_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
