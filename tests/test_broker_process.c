/*
 * The running broker's server.properties found through /proc (src/source/broker_process.c):
 * a real process whose command line reads `... kafka.Kafka server.properties`, as
 * kafka-server-start.sh starts a broker, and a /proc-like test tree for the cases a live
 * process cannot stage (another broker's config, an unreadable one).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fmt/procfs.h"
#include "source/broker_process.h"
#include "testutil.h"

static char *mkfile(const char *dir, const char *name, const char *text)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	return p;
}

/* A live process with the broker's command line shape, cwd = dir (a relative config path). */
static void test_live_process(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("bp"), *ld = NULL, *props = NULL, *text = NULL;
	assert_true(asprintf(&ld, "%s/data", root) > 0);
	assert_int_equal(mkdir(ld, 0755), 0);
	assert_true(asprintf(&text, "node.id=7\nlog.dirs=/nowhere,%s\nlog.retention.hours=72\n", ld) > 0);
	props = mkfile(root, "server.properties", text);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* its own process group: killed whole below, bash and its sleep */
		if (setpgid(0, 0) != 0 || chdir(root) != 0)
			_exit(127);
		/* "; :" keeps bash from exec'ing sleep, so its own command line stays */
		/* it must outlive the test, killed at its end: a loaded machine makes the test slow */
		execlp("bash", "bash", "-c", "sleep 600; :", "kafka.Kafka", "server.properties", "--override", "x=y",
		       (char *)NULL);
		_exit(127);
	}
	/* wait for the exec (an event, generously bounded), not a fixed sleep */
	bool execd = false;
	for (int t = 0; t < 12000 && !execd; t++) { /* 2 minutes at least */
		char cp[64];
		size_t n = 0;
		snprintf(cp, sizeof(cp), "/proc/%d/cmdline", (int)pid);
		char *c = tu_read_file(cp, &n);
		execd = c && memmem(c, n, "kafka.Kafka", 11);
		free(c);
		if (!execd)
			usleep(10 * 1000);
	}
	assert_true(execd);
	struct ss_broker_config b;
	char *dirs[1] = { ld };
	assert_int_equal(ss_broker_config_find(NULL, dirs, 1, &b), 0);
	assert_non_null(b.path);
	assert_int_equal(b.pid, pid);
	assert_non_null(b.text);   /* the bytes read, once: the caller parses these */
	assert_non_null(strstr(b.text, "node.id=7\n"));
	assert_int_equal(b.len, strlen(text));
	char *want = realpath(props, NULL);
	char *got = realpath(b.path, NULL);
	assert_string_equal(got, want);
	free(want);
	free(got);
	ss_broker_config_release(&b);

	/* the CLI reports it and takes node.id and the static configs from it */
	char *out = NULL;
	tu_run(&out, "%s scan -q -f json %s", tu_segscan(), ld);
	assert_non_null(strstr(out, "\"how\":\"the running broker's (pid"));
	assert_non_null(strstr(out, "\"node_id\":7"));
	free(out);
	tu_run(&out, "%s scan -q -f json --broker-process=off %s", tu_segscan(), ld);
	assert_null(strstr(out, "the running broker's"));
	assert_non_null(strstr(out, "--broker-process=off"));
	free(out);

	/* another log dir: this broker's config is not lent to it */
	char *other = NULL;
	assert_true(asprintf(&other, "%s/other", root) > 0);
	assert_int_equal(mkdir(other, 0755), 0);
	dirs[0] = other;
	assert_int_equal(ss_broker_config_find(NULL, dirs, 1, &b), 0);
	assert_null(b.path);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(other);
	free(ld);
	free(props);
	free(text);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

static void write_status(const char *proc, int pid, unsigned uid)
{
	char *p = NULL, st[128];
	int n = snprintf(st, sizeof(st), "Name:\tjava\nUid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\n", uid, uid, uid, uid);
	assert_true(asprintf(&p, "%s/%d/status", proc, pid) > 0);
	assert_int_equal(tu_write_file(p, st, (size_t)n), 0);
	free(p);
}

/* A /proc-like tree: a non-broker, a broker whose config cannot be read (a directory
 * where the file should be), a broker with an absolute path for these dirs, and status
 * files that do not say who runs the process. */
static void test_proc_tree(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("bpt"), *out = NULL, *p = NULL, *ld = NULL, *text = NULL;
	unsigned me = (unsigned)geteuid();
	assert_true(asprintf(&ld, "%s/data", root) > 0);
	assert_int_equal(mkdir(ld, 0755), 0);
	assert_true(asprintf(&text, "log.dir=%s\n", ld) > 0);
	free(mkfile(root, "good.properties", text));
	assert_int_equal(tu_run(&out, "mkdir -p %s/proc/10 %s/proc/20 %s/proc/30 %s/proc/self", root, root, root, root), 0);
	free(out);
	char *proc = NULL;
	assert_true(asprintf(&proc, "%s/proc", root) > 0);
	static const char notbroker[] = "java\0-cp\0x\0org.example.Main\0a.properties";
	assert_true(asprintf(&p, "%s/proc/10/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, notbroker, sizeof(notbroker)), 0);
	free(p);
	write_status(proc, 10, me);
	/* pid 20: a broker whose config path is a directory: unreadable */
	char *cmd = NULL;
	int n = asprintf(&cmd, "java%c-Xmx1G%ckafka.Kafka%c%s/proc", 0, 0, 0, root);
	assert_true(n > 0);
	assert_true(asprintf(&p, "%s/proc/20/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, cmd, (size_t)n + 1), 0);
	free(p);
	free(cmd);
	write_status(proc, 20, me);
	struct ss_broker_config b;
	char *dirs[1] = { ld };
	assert_int_equal(ss_broker_config_find(proc, dirs, 1, &b), 0);
	/* a broker-shaped process, but nothing ties it to the dir: not named, only counted */
	assert_null(b.path);
	assert_int_equal(b.pid, -1);
	assert_int_equal(b.n_unverified, 1);
	assert_non_null(b.unverified);
	assert_non_null(strstr(b.unverified, "a directory"));
	assert_null(strstr(b.unverified, root));
	ss_broker_config_release(&b);
	/* pid 30: the readable one that serves the dir wins */
	n = asprintf(&cmd, "java%ckafka.Kafka%c%s/good.properties", 0, 0, root);
	assert_true(asprintf(&p, "%s/proc/30/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, cmd, (size_t)n + 1), 0);
	free(p);
	free(cmd);
	write_status(proc, 30, me);
	assert_int_equal(ss_broker_config_find(proc, dirs, 1, &b), 0);
	assert_int_equal(b.pid, 30);
	assert_string_equal(b.text, text);
	ss_broker_config_release(&b);
	/* who runs it, unknown: no status, a status without its Uid line, a malformed one */
	static const char *const bad[] = { NULL, "Name:\tjava\nGid:\t0\t0\t0\t0\n", "Uid:\t0\t0\n",
					   "Uid:\t0\t0\t0\t99999999999\n", "Uid:\t-1\t0\t0\t0\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(asprintf(&p, "%s/proc/30/status", root) > 0);
		unlink(p);
		if (bad[i])
			assert_int_equal(tu_write_file(p, bad[i], strlen(bad[i])), 0);
		free(p);
		assert_int_equal(ss_broker_config_find(proc, dirs, 1, &b), 0);
		assert_null(b.path);
		ss_broker_config_release(&b);
	}
	/* a relative path is resolved in the process's working directory (its cwd link) */
	write_status(proc, 30, me);
	n = asprintf(&cmd, "java%ckafka.Kafka%cgood.properties", 0, 0);
	assert_true(asprintf(&p, "%s/proc/30/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, cmd, (size_t)n + 1), 0);
	free(p);
	free(cmd);
	assert_true(asprintf(&p, "%s/proc/30/cwd", root) > 0);
	assert_int_equal(symlink(root, p), 0);
	free(p);
	assert_int_equal(ss_broker_config_find(proc, dirs, 1, &b), 0);
	assert_int_equal(b.pid, 30);
	assert_non_null(b.path);
	assert_non_null(strstr(b.path, "/good.properties"));
	assert_int_equal(b.path[0], '/');
	ss_broker_config_release(&b);
	free(proc);
	free(ld);
	free(text);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

/* The /proc texts, parsed (fmt/procfs.c). */
static void test_procfs_parsers(void **state)
{
	(void)state;
	uint32_t u[4];
	static const char st[] = "Name:\tjava\nUmask:\t0022\nUid:\t1000\t0\t1001\t1002\nGid:\t1\t1\t1\t1\n";
	assert_true(ss_procfs_uids(st, sizeof(st) - 1, u));
	assert_int_equal(u[0], 1000);
	assert_int_equal(u[1], 0);
	assert_int_equal(u[2], 1001);
	assert_int_equal(u[3], 1002);
	/* first line, no newline at the end */
	assert_true(ss_procfs_uids("Uid:\t5 6 7 8", 12, u));
	assert_int_equal(u[3], 8);
	static const char *const bad[] = {
		"Name:\tUid:\t0\t0\t0\t0\n",             /* "Uid:" inside another line */
		"Uid:\t0\t0\t0\n",                       /* three */
		"Uid:\t0\t0\t0\t0\t0\n",               /* five */
		"Uid:\t0\t0\t0\t4294967296\n",          /* past 32 bits */
		"Uid:\t0\t0\t0\t-1\n", "Uid:\t0x0\t0\t0\t0\n", "", "Uid:",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(ss_procfs_uids(bad[i], strlen(bad[i]), u));
	/* a status whose Uid line is cut by len is not read past len */
	assert_false(ss_procfs_uids("Uid:\t1\t2\t3\t4\n", 10, u));

	static const char c1[] = "java\0-cp\0x\0kafka.Kafka\0/etc/kafka/server.properties\0--override\0a=b";
	const char *a = ss_procfs_kafka_config(c1, sizeof(c1) - 1);
	assert_non_null(a);
	assert_string_equal(a, "/etc/kafka/server.properties");
	static const char c2[] = "java\0kafka.Kafka";          /* no argument */
	assert_null(ss_procfs_kafka_config(c2, sizeof(c2) - 1));
	static const char c3[] = "java\0kafka.Kafka\0\0x";     /* an empty argument */
	assert_null(ss_procfs_kafka_config(c3, sizeof(c3) - 1));
	static const char c4[] = "java\0kafka.KafkaX\0f";       /* another class */
	assert_null(ss_procfs_kafka_config(c4, sizeof(c4) - 1));
	static const char c5[] = "java\0kafka.Kafka\0f";        /* unterminated last argument */
	a = ss_procfs_kafka_config(c5, sizeof(c5) - 1);
	assert_non_null(a);
	assert_string_equal(a, "f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_process),
		cmocka_unit_test(test_proc_tree),
		cmocka_unit_test(test_procfs_parsers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
