/*
 * The scan option table (src/lib/options.c): every row reachable through segscan_set()
 * and through the CLI of `scan` and `serve`, named by both --help texts, and bad values
 * answered with the messages the options have always had (spelled out here, not taken
 * from the table, so a changed message fails).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/options.h"
#include "scan/scan_int.h"
#include "testutil.h"

/* A valid value for each row and what must land in struct ss_opts. Every row of the
 * table needs one here (test_every_row_has_a_sample), so a new row gets tested. */
struct sample {
	const char *name, *value;
	int64_t     want_int;   /* INT, RATE, BOOL, SWITCH (0/1) */
	const char *want_str;   /* CHOICE, STRING */
};

static const struct sample samples[] = {
	{ "verify", "true", 1, NULL },
	{ "remote-state", "events.ndjson", 0, "events.ndjson" },
	{ "remote-metadata", "cluster", 0, "cluster" },
	{ "remote-store", "s3://kafka-tiered/prod?region=eu-west-1", 0, "s3://kafka-tiered/prod?region=eu-west-1" },
	{ "remote-layout", "aiven", 0, "aiven" },
	{ "deep", "true", 1, NULL },
	{ "rate", "50", 50, NULL },
	{ "metadata-dir", "/var/lib/kafka/meta", 0, "/var/lib/kafka/meta" },
	{ "cluster-metadata", "off", 0, NULL },
	{ "kafka-version", "4.3.1", 0, "4.3.1" },
	{ "bootstrap-server", "127.0.0.1:9092,127.0.0.1:9093", 0, "127.0.0.1:9092,127.0.0.1:9093" },
	{ "kafka-config", "client.properties", 0, "client.properties" },
	{ "kafka-timeout", "2500", 2500, NULL },
	{ "kafka-deadline", "60000", 60000, NULL },
	{ "broker-process", "off", 0, NULL },
	{ "broker-metrics", "3=http://broker-3:9404/metrics", 3, "http://broker-3:9404/metrics" },
	{ "broker-metrics-names", "a,b,c,d,t", 0, "a,b,c,d,t" },
	{ "broker-metrics-timeout", "2500", 2500, NULL },
	{ "http.config.file", "http.yml", 0, "http.yml" },
	{ "topic", "orders.*", 0, "orders.*" },
	{ "partition", "orders.v2-3", 3, "orders.v2" },
	{ "findings-only", "true", 1, NULL },
	{ "metrics-level", "topic", 0, "topic" },
	{ "metrics-extra", "true", 1, NULL },
	{ "proc-root", "/tmp/fake-proc", 0, "/tmp/fake-proc" },
	{ "seed", "orders-3=1200", 1200, NULL },
	{ "topic-config", "topics.txt", 0, "topics.txt" },
	{ "server-properties", "server.properties", 0, "server.properties" },
	{ "now", "1700000000000", 1700000000000LL, NULL },
	{ "dangling-after", "60000", 60000, NULL },
	{ "stuck-after", "5m", 300000, NULL },
	{ "horizon", "1d", 86400000, NULL },
	{ "disable-tiering", "orders", 0, "orders" },
	{ "threads", "7", 7, NULL },
	{ "io", "mmap", 0, "mmap" },
	{ "queue-depth", "1", 1, NULL },
	{ "numa", "off", 0, NULL },
	{ "stats", "yes", 1, NULL },
	{ "progress", "on", 1, NULL },
	{ "max-read-rate", "10M", 10000000, NULL },
	{ "io-priority", "idle", 1, NULL },
	{ "evict", "1", 1, NULL },
	{ "avoid-cpus", "0-3,8", 5, NULL },
	{ "quiet", "true", 1, NULL },
	{ "numa-topology", "/tmp/fake-sys", 0, "/tmp/fake-sys" },
};

/* The messages of the options before the table existed (segscan_last_error). */
static const struct bad {
	const char *name, *value, *msg;
} bads[] = {
	{ "threads", "0", "expected a thread count from 1 to 1024" },
	{ "threads", "1025", "expected a thread count from 1 to 1024" },
	{ "threads", "4x", "expected a thread count from 1 to 1024" },
	{ "io", "aio", "expected uring, mmap or pread" },
	{ "io", "", "expected uring, mmap or pread" },
	{ "io", "urin", "expected uring, mmap or pread" },
	{ "queue-depth", "0", "expected a queue depth from 1 to 32768" },
	{ "queue-depth", "32769", "expected a queue depth from 1 to 32768" },
	{ "verify", "maybe", "expected true or false" },
	{ "stats", "2", "expected true or false" },
	{ "progress", "", "expected true or false" },
	{ "quiet", "nope", "expected true or false" },
	{ "evict", "TRUE", "expected true or false" },
	{ "numa", "on", "expected auto or off" },
	{ "remote-metadata", "autooff", "expected auto, off, local or cluster" },
	{ "remote-layout", "lts", "expected local-tiered-storage or aiven" },
	{ "remote-store", "", "expected file:///DIR or s3://BUCKET[/PREFIX][?endpoint=URL&region=R]" },
	{ "rate", "-1", "expected requests per second (suffixes k, M, G; 0 = unlimited)" },
	{ "cluster-metadata", "on", "expected auto or off" },
	{ "kafka-version", "4.x", "expected a Kafka release such as 4.3.1 or 4.1" },
	{ "kafka-version", "4", "expected a Kafka release such as 4.3.1 or 4.1" },
	{ "kafka-timeout", "0", "expected milliseconds from 1 to 3600000" },
	{ "kafka-deadline", "0", "expected milliseconds from 1 to 86400000" },
	{ "numa-topology", "", "expected a directory" },
	{ "metadata-dir", "", "expected a directory" },
	{ "broker-process", "on", "expected auto or off" },
	{ "proc-root", "", "expected a directory" },
	{ "topic", "", "expected a regular expression" },
	{ "findings-only", "maybe", "expected true or false" },
	{ "metrics-level", "replica", "expected partition or topic" },
	{ "metrics-extra", "maybe", "expected true or false" },
	{ "bootstrap-server", "", "expected HOST:PORT[,HOST:PORT...]" },
	{ "kafka-config", "", "expected a file name" },
	{ "remote-state", "", "expected a file name or '-'" },
	{ "topic-config", "", "expected a file name" },
	{ "server-properties", "", "expected a file name" },
	{ "now", "-1", "expected milliseconds since the epoch" },
	{ "now", "4611686018427387904", "expected milliseconds since the epoch" },
	{ "dangling-after", "x", "expected milliseconds (>= 0)" },
	{ "disable-tiering", "", "expected a topic name" },
	{ "horizon", "0", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "horizon", "1w", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "stuck-after", "0", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "stuck-after", "5x", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "stuck-after", "-5m", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "stuck-after", "m", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "stuck-after", "9999999999999999d", "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)" },
	{ "max-read-rate", "1X", "expected bytes per second (suffixes k, M, G; 0 = unlimited)" },
	{ "max-read-rate", "-5", "expected bytes per second (suffixes k, M, G; 0 = unlimited)" },
	{ "max-read-rate", "M", "expected bytes per second (suffixes k, M, G; 0 = unlimited)" },
	{ "io-priority", "high", "expected idle or normal" },
	{ "avoid-cpus", "z", "expected a CPU list such as 0-3,8" },
	{ "seed", "nodash", "expected TOPIC-PARTITION=OFFSET (e.g. orders-3=1200)" },
	{ "partition", "orders", "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)" },
	{ "partition", "orders-", "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)" },
	{ "partition", "-3", "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)" },
	{ "partition", "orders- 3", "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)" },
	{ "partition", "or/ders-3", "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)" },
	{ "partition", "orders-2147483648", "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)" },
#define BM_ERR "expected [NODE_ID=]http(s)://HOST:PORT[/PATH] (no credentials in the URL: basic_auth in " \
	       "--http.config.file), one without NODE_ID or one per NODE_ID"
	{ "broker-metrics", "broker:9404", BM_ERR },
	{ "broker-metrics", "ftp://broker:9404/", BM_ERR },
	{ "broker-metrics", "http://", BM_ERR },
	{ "broker-metrics", "http://u:p@broker:9404/", BM_ERR },
	{ "broker-metrics", "x=http://broker:9404/", BM_ERR },
	{ "broker-metrics", "-1=http://broker:9404/", BM_ERR },
	{ "broker-metrics", "2147483648=http://broker:9404/", BM_ERR },
	{ "broker-metrics-timeout", "0", "expected milliseconds from 1 to 3600000" },
	{ "broker-metrics-names", "", "expected four metric names and optionally a label name, comma-separated" },
	{ "http.config.file", "", "expected a file name" },
};

static const struct sample *sample_of(const char *name)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (!strcmp(samples[i].name, name))
			return &samples[i];
	return NULL;
}

static void test_table_is_consistent(void **state)
{
	assert_true(ss_n_optdefs >= 20);
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		const struct ss_optdef *d = &ss_optdefs[i];
		assert_non_null(d->name);
		assert_non_null(d->err);
		assert_non_null(d->help);
		assert_ptr_equal(ss_optdef_find(d->name), d);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(ss_optdefs[k].name, d->name);
		/* a value-taking option shows its value syntax in the help */
		if (ss_optdef_has_arg(d))
			assert_non_null(d->values);
		if (d->type == SS_OPT_INT)
			assert_true(d->lo <= d->hi);
		if (d->type == SS_OPT_SWITCH) /* exactly two words */
			assert_non_null(strchr(d->values, '|'));
	}
	assert_null(ss_optdef_find("format"));  /* the CLI's own, not a scan option */
	assert_null(ss_optdef_find(""));
}

static void test_every_row_has_a_sample(void **state)
{
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		if (!sample_of(ss_optdefs[i].name))
			fail_msg("option %s has no sample in test_options.c", ss_optdefs[i].name);
	}
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		assert_non_null(ss_optdef_find(samples[i].name));
}

/* The defaults segscan_scan_new() always had. */
static void test_defaults(void **state)
{
	segscan_scan *s;
	assert_int_equal(segscan_scan_new(&s), 0);
	const struct ss_opts *o = &s->opts;
	assert_string_equal(o->io, "uring");
	assert_int_equal(o->queue_depth, 128);
	assert_int_equal(o->threads, 0);
	assert_true(o->numa);
	assert_string_equal(o->remote_metadata, "auto");
	assert_true(o->cluster_metadata);
	assert_null(o->metadata_dir);
	assert_null(o->kafka_version);
	assert_null(o->bootstrap_server);
	assert_int_equal(o->kafka_timeout_ms, 10000);
	assert_int_equal(o->dangling_after_ms, 3600000);
	assert_false(o->verify);
	assert_false(o->stats);
	assert_false(o->progress);
	assert_false(o->quiet);
	assert_false(o->evict);
	assert_false(o->io_idle);
	assert_false(o->has_now);
	assert_false(o->has_avoid);
	assert_int_equal(o->max_read_rate, 0);
	assert_null(o->remote_state);
	assert_null(o->topic_config);
	assert_null(o->server_properties);
	assert_null(o->numa_root);
	assert_int_equal(o->n_seeds, 0);
	segscan_scan_free(s);
}

static void test_set_reaches_every_row(void **state)
{
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		const struct ss_optdef *d = &ss_optdefs[i];
		const struct sample *sm = sample_of(d->name);
		assert_non_null(sm);
		segscan_scan *s;
		assert_int_equal(segscan_scan_new(&s), 0);
		if (segscan_set(s, d->name, sm->value) != 0)
			fail_msg("segscan_set(%s, %s): %s", d->name, sm->value, segscan_last_error(s));
		const char *field = (const char *)&s->opts + d->off;
		switch (d->type) {
		case SS_OPT_BOOL:
		case SS_OPT_SWITCH:
			assert_int_equal(*(const bool *)field, sm->want_int);
			break;
		case SS_OPT_INT:
			if (d->narrow)
				assert_int_equal(*(const unsigned *)field, sm->want_int);
			else
				assert_int_equal(*(const int64_t *)field, sm->want_int);
			break;
		case SS_OPT_RATE:
		case SS_OPT_DURATION:
			assert_int_equal(*(const int64_t *)field, sm->want_int);
			break;
		case SS_OPT_CHOICE:
		case SS_OPT_STRING:
		case SS_OPT_KVER:
			assert_string_equal(*(char *const *)field, sm->want_str);
			break;
		case SS_OPT_CPULIST:
			assert_int_equal(CPU_COUNT((const cpu_set_t *)field), sm->want_int);
			assert_true(s->opts.has_avoid);
			break;
		case SS_OPT_PARTITION:
			assert_int_equal(s->opts.n_partitions, 1);
			assert_string_equal(s->opts.partitions[0].topic, sm->want_str);
			assert_int_equal(s->opts.partitions[0].partition, sm->want_int);
			break;
		case SS_OPT_BMETRICS:
			assert_int_equal(s->opts.n_bmetrics, 1);
			assert_int_equal(s->opts.bmetrics[0].node_id, sm->want_int);
			assert_string_equal(s->opts.bmetrics[0].url, sm->want_str);
			break;
		case SS_OPT_SEED:
			assert_int_equal(s->opts.n_seeds, 1);
			assert_string_equal(s->opts.seeds[0].topic, "orders");
			assert_int_equal(s->opts.seeds[0].partition, 3);
			assert_int_equal(s->opts.seeds[0].offset, sm->want_int);
			break;
		}
		segscan_scan_free(s);
	}
}

static void test_side_effects(void **state)
{
	segscan_scan *s;
	assert_int_equal(segscan_scan_new(&s), 0);
	/* --now marks the clock as given; a flag with no value is true (the CLI's form) */
	assert_int_equal(segscan_set(s, "now", "5"), 0);
	assert_true(s->opts.has_now);
	assert_int_equal(segscan_set(s, "verify", NULL), 0);
	assert_true(s->opts.verify);
	assert_int_equal(segscan_set(s, "verify", "false"), 0);
	assert_false(s->opts.verify);
	/* seeds accumulate */
	assert_int_equal(segscan_set(s, "seed", "a-0=1"), 0);
	assert_int_equal(segscan_set(s, "seed", "b.c-12=0"), 0);
	assert_int_equal(s->opts.n_seeds, 2);
	assert_string_equal(s->opts.seeds[1].topic, "b.c");
	assert_int_equal(s->opts.seeds[1].partition, 12);
	/* so do partitions: the topic is what comes before the last '-' */
	assert_int_equal(segscan_set(s, "partition", "a-b-0"), 0);
	assert_int_equal(segscan_set(s, "partition", "c-7"), 0);
	assert_int_equal(s->opts.n_partitions, 2);
	assert_string_equal(s->opts.partitions[0].topic, "a-b");
	assert_int_equal(s->opts.partitions[1].partition, 7);
	/* broker-metrics: one per NODE_ID, or one alone; a query's '=' is the URL's */
	assert_int_equal(segscan_set(s, "broker-metrics", "1=http://b1:9404/metrics?name[]=x"), 0);
	assert_int_equal(segscan_set(s, "broker-metrics", "2=https://b2:9404/"), 0);
	assert_int_equal(s->opts.n_bmetrics, 2);
	assert_string_equal(s->opts.bmetrics[0].url, "http://b1:9404/metrics?name[]=x");
	assert_int_equal(s->opts.bmetrics[1].node_id, 2);
	assert_int_equal(segscan_set(s, "broker-metrics", "2=http://b2b:9404/"), -EINVAL);   /* node 2 twice */
	assert_int_equal(segscan_set(s, "broker-metrics", "http://b3:9404/"), -EINVAL);      /* whose? */
	assert_int_equal(s->opts.n_bmetrics, 2);
	/* a string replaces the previous one (and frees it: ASan) */
	assert_int_equal(segscan_set(s, "io", "pread"), 0);
	assert_int_equal(segscan_set(s, "io", "mmap"), 0);
	assert_string_equal(s->opts.io, "mmap");
	assert_int_equal(segscan_set(s, "max-read-rate", "512k"), 0);
	assert_int_equal(s->opts.max_read_rate, 512000);
	assert_int_equal(segscan_set(s, "max-read-rate", "1G"), 0);
	assert_int_equal(s->opts.max_read_rate, 1000000000);
	/* a bad value leaves the old one */
	assert_int_equal(segscan_set(s, "threads", "3"), 0);
	assert_int_equal(segscan_set(s, "threads", "0"), -EINVAL);
	assert_int_equal(s->opts.threads, 3);
	segscan_scan_free(s);
}

/* The scan options serve does not take (src/cli/cmd_serve.c not_serve: it draws no
 * progress; --format is the CLI's, not a row). */
static bool not_serve(const char *name)
{
	return !strcmp(name, "progress") || !strcmp(name, "quiet");
}

static void test_bad_values(void **state)
{
	segscan_scan *s;
	assert_int_equal(segscan_scan_new(&s), 0);
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		int r = segscan_set(s, bads[i].name, bads[i].value);
		if (r != -EINVAL)
			fail_msg("--%s=%s: got %d", bads[i].name, bads[i].value, r);
		assert_string_equal(segscan_last_error(s), bads[i].msg);
		/* a success clears the message */
		assert_int_equal(segscan_set(s, "verify", "true"), 0);
		assert_string_equal(segscan_last_error(s), "no error");
	}
	/* value-taking options refuse no value at all */
	for (size_t i = 0; i < ss_n_optdefs; i++)
		if (ss_optdef_has_arg(&ss_optdefs[i]))
			assert_int_equal(segscan_set(s, ss_optdefs[i].name, NULL), -EINVAL);
	assert_int_equal(segscan_set(s, "bogus", "1"), -EINVAL);
	assert_string_equal(segscan_last_error(s), "unknown option");
	assert_int_equal(segscan_set(s, "format", "json"), -EINVAL);
	segscan_scan_free(s);
}

static void test_help_names_every_row(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	ss_opts_write_help(f);
	fclose(f);
	/* every entry starts a line: give the first one the newline the others have */
	char *help[3] = { NULL, NULL, NULL };
	assert_true(asprintf(&help[0], "\n%s", buf) > 0);
	free(buf);
	assert_int_equal(tu_run(&help[1], "%s scan --help", tu_segscan()), 0);
	assert_int_equal(tu_run(&help[2], "%s serve --help", tu_segscan()), 0);
	for (int h = 0; h < 3; h++) {
		for (size_t i = 0; i < ss_n_optdefs; i++) {
			const struct ss_optdef *d = &ss_optdefs[i];
			char want[128];
			if (h == 2 && not_serve(d->name))
				continue; /* serve --help lists only what serve takes */
			/* at a line's start: "      --name=VALUES" (or "  -q, --name" with a short
			 * option) then two spaces or a newline; a flag has no "=VALUES" */
			if (d->short_name)
				snprintf(want, sizeof(want), "\n  -%c, --%s", d->short_name, d->name);
			else
				snprintf(want, sizeof(want), "\n      --%s", d->name);
			if (ss_optdef_has_arg(d))
				snprintf(want + strlen(want), sizeof(want) - strlen(want), "=%s", d->values);
			const char *at = strstr(help[h], want);
			if (!at)
				fail_msg("help %d does not name %s", h, want + 1);
			at += strlen(want);
			assert_true(*at == ' ' || *at == '\n');
			/* the description's first line follows */
			char first[64];
			snprintf(first, sizeof(first), "%.*s", (int)strcspn(d->help, "\n"), d->help);
			at += strspn(at, " \n");
			assert_memory_equal(at, first, strlen(first));
		}
	}
	/* the CLI's own --format is documented too; the defaults the table gives are stated */
	assert_non_null(strstr(help[1], "-f, --format=table|json|ndjson|prom"));
	assert_non_null(strstr(help[1], "(default 128)"));
	assert_non_null(strstr(help[1], "(default 3600000)"));
	for (int h = 0; h < 3; h++)
		free(help[h]);
}

/* The public header's list of option names names every row, in quotes. */
static void test_header_names_every_row(void **state)
{
	size_t len;
	char *h = tu_read_file("include/segscan.h", &len);
	assert_non_null(h);
	const char *from = strstr(h, "Set a scan option by its long CLI name");
	assert_non_null(from);
	const char *to = strstr(from, "int segscan_set(");
	assert_non_null(to);
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		char want[64];
		snprintf(want, sizeof(want), "\"%s\"", ss_optdefs[i].name);
		const char *at = strstr(from, want);
		if (!at || at > to)
			fail_msg("include/segscan.h does not list %s", want);
	}
	free(h);
}

/* The same message through the CLI, exit 2; a flag is accepted (the missing log dir
 * then exits 3). scan takes every scan option, serve every one but the progress
 * switches, which it refuses. */
static void test_cli_reaches_every_row(void **state)
{
	static const char *cmds[] = { "scan", "serve" };
	for (int c = 0; c < 2; c++) {
		for (size_t i = 0; i < ss_n_optdefs; i++) {
			const struct ss_optdef *d = &ss_optdefs[i];
			char *out = NULL;
			if (c == 1 && not_serve(d->name)) {
				int rc = tu_run(&out, "%s serve --once --%s /nonexistent/h3-logdir 2>&1", tu_segscan(), d->name);
				if (rc != 2 || !strstr(out, "serve has no --"))
					fail_msg("serve --%s: exit %d (want 2, refused): %s", d->name, rc, out);
				free(out);
				continue;
			}
			if (!ss_optdef_has_arg(d)) {
				int rc = c == 0 ? tu_run(&out, "%s scan -q --%s /nonexistent/h3-logdir 2>&1", tu_segscan(), d->name)
						: tu_run(&out, "%s serve --once --%s --help 2>&1", tu_segscan(), d->name);
				if (rc != (c == 0 ? 3 : 0))
					fail_msg("%s --%s: exit %d: %s", cmds[c], d->name, rc, out);
				free(out);
				continue;
			}
			const char *bad = NULL;
			const char *msg = NULL;
			for (size_t k = 0; k < sizeof(bads) / sizeof(bads[0]); k++)
				if (!strcmp(bads[k].name, d->name) && bads[k].value[0]) {
					bad = bads[k].value;
					msg = bads[k].msg;
					break;
				}
			if (!bad) { /* strings: only the empty value is bad */
				bad = "";
				for (size_t k = 0; k < sizeof(bads) / sizeof(bads[0]); k++)
					if (!strcmp(bads[k].name, d->name))
						msg = bads[k].msg;
			}
			assert_non_null(msg);
			int rc = tu_run(&out, "%s %s --%s='%s' /nonexistent/h3-logdir 2>&1", tu_segscan(), cmds[c], d->name, bad);
			char want[256];
			snprintf(want, sizeof(want), "segscan: --%s=%s: %s\n", d->name, bad, msg);
			if (rc != 2 || !strstr(out, want))
				fail_msg("%s --%s=%s: exit %d, output %s", cmds[c], d->name, bad, rc, out);
			free(out);
		}
	}
}

/* getopt's abbreviations resolve as they always did: the first row a prefix names. */
static void test_cli_abbreviations(void **state)
{
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan --queue=0 /x 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "segscan: --queue-depth=0: expected a queue depth from 1 to 32768"));
	free(out);
	/* --n: now, numa and numa-topology all take a value: now comes first */
	assert_int_equal(tu_run(&out, "%s scan --n=x /x 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "segscan: --now=x: expected milliseconds since the epoch"));
	free(out);
	/* --s is seed, server-properties or stats: ambiguous */
	assert_int_equal(tu_run(&out, "%s scan --s /x 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "Try 'segscan scan --help'."));
	free(out);
	/* serve's own options come before the scan options */
	assert_int_equal(tu_run(&out, "%s serve --interval=0 /x 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "--interval=0: expected seconds"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan --format=xml /x 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "segscan: --format=xml: expected table, json, ndjson or prom"));
	free(out);
	assert_int_equal(tu_run(&out, "%s serve -f json /x 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "serve has no --format"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_consistent),
		cmocka_unit_test(test_every_row_has_a_sample),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_set_reaches_every_row),
		cmocka_unit_test(test_side_effects),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_help_names_every_row),
		cmocka_unit_test(test_header_names_every_row),
		cmocka_unit_test(test_cli_reaches_every_row),
		cmocka_unit_test(test_cli_abbreviations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
