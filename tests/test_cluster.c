/*
 * The live-cluster source without a cluster (source/cluster.h): placement of user partitions
 * on metadata partitions, the --kafka-config parser's errors and warnings, and bounded failure
 * against a port nobody listens on. The real-broker cases are in test_live_cluster.c.
 *
 * Not a TSan test: librdkafka starts its threads with C11 thrd_create, which glibc runs
 * without TSan's pthread_create interceptor, so the first allocation in one of them crashes
 * the TSan runtime (seen with librdkafka 2.0.2, gcc 12). ASan+UBSan cover it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "eval/config.h"
#include "fmt/rlmm.h"
#include "source/cluster.h"
#include "source/cluster_conf.h"
#include "source/cluster_describe.h"
#include "source/cluster_load.h"
#include "testutil.h"

static char tmpdir[512];

static int setup(void **state)
{
	const char *t = getenv("SEGSCAN_TEST_TMP");
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_cluster.XXXXXX", t ? t : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* A loopback port that nothing listens on: bound, then closed. */
static int dead_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static char warned[1024];
static int n_warned;
static void warn_cb(void *arg, const char *msg)
{
	snprintf(warned, sizeof(warned), "%s", msg);
	n_warned++;
}

/* mparts_for agrees with the placement function for every partition, sorted and distinct. */
static void placement(void **state)
{
	struct ss_cluster_tp tps[40];
	for (int i = 0; i < 40; i++) {
		for (int b = 0; b < 16; b++)
			tps[i].topic_id[b] = (uint8_t)(i / 8 * 37 + b * 11);
		tps[i].partition = i % 8;
	}
	int32_t *mp = NULL;
	uint32_t n = 0;
	assert_int_equal(ss_cluster_mparts_for(tps, 40, 7, &mp, &n), 0);
	assert_true(n >= 1 && n <= 7);
	for (uint32_t i = 1; i < n; i++)
		assert_true(mp[i - 1] < mp[i]);
	for (int i = 0; i < 40; i++) {
		int32_t want = ss_rlmm_metadata_partition(tps[i].topic_id, tps[i].partition, 7);
		bool found = false;
		for (uint32_t k = 0; k < n; k++)
			found |= mp[k] == want;
		assert_true(found);
	}
	/* and nothing that no partition maps to */
	for (uint32_t k = 0; k < n; k++) {
		bool used = false;
		for (int i = 0; i < 40; i++)
			used |= ss_rlmm_metadata_partition(tps[i].topic_id, tps[i].partition, 7) == mp[k];
		assert_true(used);
	}
	free(mp);
	assert_int_equal(ss_cluster_mparts_for(tps, 40, 0, &mp, &n), -EINVAL);
}

/* A property librdkafka does not know is a usage error naming the file and its line. */
static void config_unknown_key(void **state)
{
	char path[600], err[1024];
	snprintf(path, sizeof(path), "%s/bad.properties", tmpdir);
	write_file(path, "# comment\n! also a comment\n\nsecurity.protocol=PLAINTEXT\nno.such.property = 1\n", 0600);
	struct ss_cluster *c = NULL;
	struct ss_cluster_opts o = { .bootstrap = "127.0.0.1:1", .config_file = path, .timeout_ms = 500, .warn = warn_cb };
	n_warned = 0;
	assert_int_equal(ss_cluster_open(&c, &o, err, sizeof(err)), -EINVAL);
	assert_null(c);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "line 5"));
	assert_non_null(strstr(err, "no.such.property"));
	assert_int_equal(n_warned, 0);   /* mode 600: no warning */
}

/* --kafka-config is read as Kafka's Java clients read it (java.util.Properties): '\r' ends a
 * line, escapes are unescaped, a value keeps its trailing blanks, continuation lines join.
 * The client's own reader split at '\n' only, passed escapes through raw and trimmed values. */
static void config_java_syntax(void **state)
{
	char path[600], err[1024];
	snprintf(path, sizeof(path), "%s/java.properties", tmpdir);
	write_file(path, "client.rack=r\\u0031\rsocket.keepalive.enable = tr\\\n    ue\r\nclient.id=a b \n", 0600);
	struct ss_client_conf cc = { 0 };
	assert_int_equal(ss_client_conf_read(&cc, path, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(cc.n, 3);
	assert_string_equal(cc.kv[0].k, "client.rack");
	assert_string_equal(cc.kv[0].v, "r1");
	assert_string_equal(cc.kv[1].k, "socket.keepalive.enable");
	assert_string_equal(cc.kv[1].v, "true");
	assert_int_equal(cc.kv[1].line, 2);
	assert_string_equal(cc.kv[2].v, "a b ");
	assert_int_equal(cc.kv[2].line, 4);
	ss_client_conf_free(&cc);
	/* a malformed escape refuses the file, naming its line, as Java does */
	write_file(path, "a=1\nb=\\u12\n", 0600);
	assert_int_equal(ss_client_conf_read(&cc, path, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2"));
	ss_client_conf_free(&cc);
}

/* A config file others can read is warned about (it holds credentials); a JAAS line of the
 * Java clients becomes sasl.username/sasl.password; an unreachable cluster fails within
 * the timeout with a message naming the server. */
static void config_mode_jaas_unreachable(void **state)
{
	char path[600], err[1024], boot[64];
	snprintf(path, sizeof(path), "%s/sasl.properties", tmpdir);
	write_file(path,
		   "security.protocol: SASL_PLAINTEXT\n"
		   "sasl.mechanism PLAIN\n"
		   "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
		   "    username=\"u\" password=\"p\";\n",
		   0644);
	snprintf(boot, sizeof(boot), "127.0.0.1:%d", dead_port());
	struct ss_cluster *c = NULL;
	struct ss_cluster_opts o = { .bootstrap = boot, .config_file = path, .timeout_ms = 800, .warn = warn_cb };
	n_warned = 0;
	double t0 = ss_mono();
	int r = ss_cluster_open(&c, &o, err, sizeof(err));
	double dt = ss_mono() - t0;
	assert_true(r == -EHOSTUNREACH || r == -ETIMEDOUT);
	assert_null(c);
	assert_int_equal(n_warned, 1);
	assert_non_null(strstr(warned, "readable by others"));
	assert_non_null(strstr(err, boot));
	/* bounded by the 0.8 s timeout: the error names the timeout it gave up at (one that
	 * ignored it would name the 10 s default), and the time is 5 s scaled for sanitizers
	 * and load, kept below that default */
	assert_non_null(strstr(err, "within 800 ms"));
	double bound = 5.0 * tu_slowdown();
	if (bound > 9.5)
		bound = 9.5;
	if (dt >= bound)
		fail_msg("an unreachable cluster took %.1f s with a 0.8 s timeout (bound %.1f s)", dt, bound);

	/* a JAAS line without a password is refused (not silently dropped) */
	write_file(path, "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required;\n", 0600);
	assert_int_equal(ss_cluster_open(&c, &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1"));
}

/* The tail starts while the cluster is down (a service catches up later), reports itself
 * disconnected, and a snapshot of a partition never read fails within the timeout. */
static void tail_down(void **state)
{
	char err[1024], boot[64];
	snprintf(boot, sizeof(boot), "127.0.0.1:%d", dead_port());
	struct ss_cluster_tail *t = NULL;
	struct ss_cluster_opts o = { .bootstrap = boot, .timeout_ms = 700 };
	assert_int_equal(ss_cluster_tail_start(&t, &o, err, sizeof(err)), 0);
	int32_t mp = 0;
	double t0 = ss_mono();
	int r = ss_cluster_tail_snapshot(t, &mp, 1, &(struct ss_cluster_sink){ 0 }, NULL, err, sizeof(err));
	assert_true(r == -EHOSTUNREACH || r == -ETIMEDOUT);
	/* as above: the 0.7 s timeout named, the time bounded below the 10 s default */
	double dt = ss_mono() - t0, bound = 5.0 * tu_slowdown();
	if (bound > 9.5)
		bound = 9.5;
	if (dt >= bound)
		fail_msg("a snapshot of an unreachable cluster took %.1f s with a 0.7 s timeout (bound %.1f s)", dt, bound);
	assert_non_null(strstr(err, boot));
	assert_non_null(strstr(err, "within 700 ms"));
	struct ss_cluster_status *st = NULL;
	assert_int_equal(ss_cluster_tail_status(t, &st), 0);
	assert_false(st->connected);
	assert_int_equal(st->n_parts, 1);
	assert_false(st->caught_up);
	assert_true(st->parts[0].age_s > 0.5);
	free(st);
	ss_cluster_tail_stop(t);
}

/* A peer that streams for ever (tests/fake_kafka.py --stream: a high watermark of 10^8 and
 * its real batches served again and again): the tail keeps at most its bound, then drops
 * the partition and every snapshot of it fails with the reason (remote state unknown),
 * never a partial replay and never unbounded memory. Before the bound it kept every record
 * (serve's RSS grew with the stream). */
static void tail_bounded(void **state)
{
	char cmd[2048], port_file[600], pid_file[600], err[1024], boot[64];
	snprintf(port_file, sizeof(port_file), "%s/peer.port", tmpdir);
	snprintf(pid_file, sizeof(pid_file), "%s/peer.pid", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "python3 tests/fake_kafka.py --logdir tests/fixtures/kafka/tiered/logdir --port-file '%s' "
		 "--log '%s/peer.log' --stream 3 --hwm 100000000 </dev/null >/dev/null 2>&1 & echo $! > '%s'",
		 port_file, tmpdir, pid_file);
	assert_int_equal(system(cmd), 0);
	int port = 0;
	for (double t0 = ss_mono(); !port && ss_mono() - t0 < 30; ) {   /* generous: a loaded host */
		FILE *f = fopen(port_file, "r");
		if (!f || fscanf(f, "%d", &port) != 1)
			port = 0;
		if (f)
			fclose(f);
		if (!port)
			usleep(50 * 1000);
	}
	assert_true(port > 0);
	snprintf(boot, sizeof(boot), "127.0.0.1:%d", port);
	struct ss_cluster_tail *t = NULL;
	struct ss_cluster_opts o = { .bootstrap = boot, .timeout_ms = 60000, .tail_max_bytes = 256 << 10 };
	assert_int_equal(ss_cluster_tail_start(&t, &o, err, sizeof(err)), 0);   /* stopped below */
	int32_t mp = 3;
	int r = ss_cluster_tail_snapshot(t, &mp, 1, &(struct ss_cluster_sink){ 0 }, NULL, err, sizeof(err));
	assert_int_equal(r, -ENOBUFS);
	assert_non_null(strstr(err, "__remote_log_metadata-3"));
	assert_non_null(strstr(err, "bound of 262144 bytes"));
	struct ss_cluster_status *st = NULL;
	assert_int_equal(ss_cluster_tail_status(t, &st), 0);
	assert_int_equal(st->n_parts, 1);
	assert_true(st->parts[0].over_bound);
	assert_int_equal(st->parts[0].records, 0);   /* dropped, not kept */
	free(st);
	/* and so it stays: the next snapshot says the same at once */
	double t0 = ss_mono();
	assert_int_equal(ss_cluster_tail_snapshot(t, &mp, 1, &(struct ss_cluster_sink){ 0 }, NULL, err, sizeof(err)),
			 -ENOBUFS);
	assert_true(ss_mono() - t0 < 5.0);
	ss_cluster_tail_stop(t);
	snprintf(cmd, sizeof(cmd), "kill $(cat '%s') 2>/dev/null", pid_file);
	assert_int_equal(system(cmd), 0);
}

/* Helper mode for tests/live_cluster.sh (a real cluster is only up there):
 *   test_cluster describe BOOTSTRAP BROKER_ID TOPIC...
 * prints every DescribeConfigs entry "topic|-<TAB>key<TAB>value<TAB>source" and, per topic,
 * what the dynamic source answers for its DYNAMIC_TOPIC_CONFIG level. */
static void print_ent(void *arg, const char *topic, const char *key, const char *value, const char *source)
{
	printf("%s\t%s\t%s\t%s\n", topic ? topic : "-", key, value ? value : "(null)", source);
}

static int describe(int argc, char **argv)
{
	struct ss_cluster_opts o = { .bootstrap = argv[2], .timeout_ms = 10000 };
	struct ss_cluster_cfgs *c = NULL;
	char err[1024];
	int r = ss_cluster_cfgs_fetch(&o, (const char *const *)argv + 4, (uint32_t)(argc - 4), atoi(argv[3]), &c, err,
				      sizeof(err));
	if (r) {
		fprintf(stderr, "describe: %s\n", err);
		return 1;
	}
	ss_cluster_cfgs_each(c, print_ent, NULL);
	struct ss_cfg_dynamic dyn;
	ss_cluster_cfgs_dynamic(c, &dyn);
	for (int i = 4; i < argc; i++) {
		const char *v = dyn.get(dyn.arg, SS_CFGL_DYN_TOPIC, argv[i], "remote.storage.enable");
		printf("dynamic\t%s\tremote.storage.enable\t%s\n", argv[i], v ? v : "(null)");
	}
	ss_cluster_cfgs_free(c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "describe"))
		return describe(argc, argv);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(placement),
		cmocka_unit_test(config_unknown_key),
		cmocka_unit_test(config_mode_jaas_unreachable),
		cmocka_unit_test(config_java_syntax),
		cmocka_unit_test(tail_down),
		cmocka_unit_test(tail_bounded),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
