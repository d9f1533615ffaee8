/*
 * The Prometheus text-exposition parser (fmt/promtext.h): the 0.0.4 format as the JMX
 * exporter writes it (a real jmx_prometheus_javaagent 1.0.1 scrape of a Kafka 4.3.1 broker,
 * tests/fixtures/promtext/), Prometheus's own syntax (escapes, NaN, +Inf, exponents,
 * timestamps, CRLF), and bad input refused with its line number, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/file.h"
#include "fmt/promtext.h"

#define MAXS 64
struct got {
	unsigned n;
	char     name[MAXS][128];
	char     lab[MAXS][256];   /* "k=v;k=v" */
	double   v[MAXS];
	bool     has_ts[MAXS];
	int64_t  ts[MAXS];
	unsigned line[MAXS];
	unsigned stop_at;
};

static int cb(void *arg, const struct ss_prom_sample *s)
{
	struct got *g = arg;
	if (g->stop_at && g->n + 1 == g->stop_at)
		return -ECANCELED;
	if (g->n < MAXS) {
		snprintf(g->name[g->n], sizeof(g->name[0]), "%.*s", (int)s->name_len, s->name);
		size_t o = 0;
		g->lab[g->n][0] = 0;
		for (size_t i = 0; i < s->n_labels && o < sizeof(g->lab[0]); i++)
			o += (size_t)snprintf(g->lab[g->n] + o, sizeof(g->lab[0]) - o, "%s%.*s=%s", i ? ";" : "",
					      (int)s->labels[i].name_len, s->labels[i].name, s->labels[i].value);
		g->v[g->n] = s->value;
		g->has_ts[g->n] = s->has_ts;
		g->ts[g->n] = s->ts_ms;
		g->line[g->n] = s->line;
	}
	g->n++;
	return 0;
}

static int parse(const char *text, struct got *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	return ss_promtext_parse(text, strlen(text), "m", NULL, cb, g, err, errlen);
}

static void test_basic(void **state)
{
	(void)state;
	struct got g;
	char err[256];
	const char *t = "# HELP kafka_server_brokertopicmetrics_remotecopylagsegments Attribute exposed for management\n"
			"# TYPE kafka_server_brokertopicmetrics_remotecopylagsegments untyped\n"
			"kafka_server_brokertopicmetrics_remotecopylagsegments{topic=\"orders\",} 3.0\n"
			"kafka_server_brokertopicmetrics_remotecopylagsegments 3.0\n"
			"up{a=\"x\",b=\"y\"} 1.0E9 1700000000000\n"
			"\n"
			"   \t\n"
			"# just a comment\n"
			"x{} -4.5e-3\n";
	assert_int_equal(parse(t, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.name[0], "kafka_server_brokertopicmetrics_remotecopylagsegments");
	assert_string_equal(g.lab[0], "topic=orders");
	assert_true(g.v[0] == 3.0);
	assert_int_equal(g.line[0], 3);
	assert_string_equal(g.lab[1], "");
	assert_true(g.v[2] == 1e9);
	assert_true(g.has_ts[2]);
	assert_true(g.ts[2] == 1700000000000LL);
	assert_false(g.has_ts[0]);
	assert_true(g.v[3] == -4.5e-3);
	assert_int_equal(g.line[3], 9);
}

static void test_specials(void **state)
{
	(void)state;
	struct got g;
	char err[256];
	const char *t = "a NaN\nb +Inf\nc -Inf\nd Inf\ne nan\nf 1e+3\ng .5\nh 5.\ni 007\nj -0 -17\n";
	assert_int_equal(parse(t, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 10);
	assert_true(isnan(g.v[0]));
	assert_true(isinf(g.v[1]) && g.v[1] > 0);
	assert_true(isinf(g.v[2]) && g.v[2] < 0);
	assert_true(isinf(g.v[3]));
	assert_true(isnan(g.v[4]));
	assert_true(g.v[5] == 1000.0);
	assert_true(g.v[6] == 0.5);
	assert_true(g.v[7] == 5.0);
	assert_true(g.v[8] == 7.0);
	assert_true(g.has_ts[9] && g.ts[9] == -17);
}

static void test_escapes_crlf(void **state)
{
	(void)state;
	struct got g;
	char err[256];
	const char *t = "# TYPE m gauge\r\n"
			"m{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\",nl=\"a\\nb\",odd=\"x\\ty\"} 1\r\n"
			"m{ a = \"1\" , b=\"2\" , } 2\r\n"
			"m{a=\"}\"}3\r\n";
	assert_int_equal(parse(t, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lab[0], "path=C:\\dir;q=say \"hi\";nl=a\nb;odd=x\\ty");
	assert_string_equal(g.lab[1], "a=1;b=2");
	assert_true(g.v[1] == 2.0);
	assert_string_equal(g.lab[2], "a=}");
	assert_true(g.v[2] == 3.0);
}

static void test_duplicates_delivered(void **state)
{
	(void)state;
	struct got g;
	char err[256];
	assert_int_equal(parse("m{t=\"a\"} 1\nm{t=\"a\"} 2\n", &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 2);
	assert_true(g.v[0] == 1.0 && g.v[1] == 2.0);
}

/* each bad line: -EBADMSG, its line number in the message, nothing after it delivered */
static void test_bad_lines(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "ok 1\n9bad 1\n", "m:2: a metric name expected" },
		{ "ok 1\nm{a=\"x\" 1\n", "m:2: ',' or '}' expected" },
		{ "m{a=\"x} 1\n", "m:1: a label value without its closing quote" },
		{ "m{a=x} 1\n", "m:1: a quoted label value expected" },
		{ "m{=\"x\"} 1\n", "m:1: a label name expected" },
		{ "m{a \"x\"} 1\n", "m:1: '=' expected" },
		{ "m{a=\"1\",a=\"2\"} 1\n", "m:1: the label a twice" },
		{ "m\n", "m:1: m: no value" },
		{ "m 1.2.3\n", "m:1: not a number" },
		{ "m 0x10\n", "m:1: not a number" },
		{ "m e5\n", "m:1: not a number" },
		{ "m 1e\n", "m:1: not a number" },
		{ "m 1 12.5\n", "m:1: not a timestamp" },
		{ "m 1 99999999999999999999\n", "m:1: a timestamp out of range" },
		{ "m 1 2 3\n", "m:1: the end of the line expected" },
		{ "m-x 1\n", "m:1: a blank expected" },
		{ "# TYPE m gauges\n", "m:1: TYPE: counter, gauge" },
		{ "# TYPE m\n", "m:1: TYPE: counter, gauge" },
		{ "# TYPE 1m gauge\n", "m:1: TYPE: a metric name expected" },
		{ "# HELP\n", "m:1: HELP: a metric name expected" },
		{ "a 1\nb 2\nc\x1b]0;x\x07 3\n", "m:3: a blank expected before the value at \"\\x1b]0;x\\x07 3\"" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct got g;
		char err[256];
		int r = parse(bad[i].text, &g, err, sizeof(err));
		if (r != -EBADMSG || !strstr(err, bad[i].want))
			fail_msg("case %zu: r=%d err=\"%s\", want \"%s\"", i, r, err, bad[i].want);
	}
}

static void test_bounds(void **state)
{
	(void)state;
	struct got g;
	char err[256];
	struct ss_promtext_limits lim = { .line_max = 16, .labels_max = 2, .samples_max = 3 };
	const char *t = "a 1\nb 2\nc 3\nd 4\n";
	memset(&g, 0, sizeof(g));
	assert_int_equal(ss_promtext_parse(t, strlen(t), "m", &lim, cb, &g, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "m:4: more than 3 samples"));
	t = "a 1\nabcdefghijklmnopq 1\n";
	memset(&g, 0, sizeof(g));
	assert_int_equal(ss_promtext_parse(t, strlen(t), "m", &lim, cb, &g, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "m:2: a line longer than 16 bytes"));
	t = "a{x=\"\",y=\"\",z=\"\"} 1\n";
	lim.line_max = 0;
	memset(&g, 0, sizeof(g));
	assert_int_equal(ss_promtext_parse(t, strlen(t), "m", &lim, cb, &g, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "m:1: more than 2 labels"));
	/* the callback's return ends the parse */
	memset(&g, 0, sizeof(g));
	g.stop_at = 2;
	assert_int_equal(ss_promtext_parse("a 1\nb 2\nc 3\n", 12, "m", NULL, cb, &g, err, sizeof(err)), -ECANCELED);
	assert_int_equal(g.n, 1);
	/* no NUL needed at the end, and none read past len */
	char nonul[3] = { 'a', ' ', '7' };
	memset(&g, 0, sizeof(g));
	assert_int_equal(ss_promtext_parse(nonul, sizeof(nonul), "m", NULL, cb, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 1);
	assert_true(g.v[0] == 7.0);
}

/* A real exporter's answer: every line a sample or a comment, the four tiering gauges found. */
static void test_real_scrape(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	const char *path = "tests/fixtures/promtext/jmx-exporter-1.0.1-kafka-4.3.1.txt";
	assert_int_equal(ss_read_file(AT_FDCWD, path, 1 << 24, &buf, &len), 0);
	struct got g;
	char err[256];
	memset(&g, 0, sizeof(g));
	assert_int_equal(ss_promtext_parse(buf, len, path, NULL, cb, &g, err, sizeof(err)), 0);
	assert_true(g.n > 100);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_specials),
		cmocka_unit_test(test_escapes_crlf),
		cmocka_unit_test(test_duplicates_delivered),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_real_scrape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
