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
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

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
		if (chdir(root) != 0)
			_exit(127);
		/* "; :" keeps bash from exec'ing sleep, so its own command line stays */
		execlp("bash", "bash", "-c", "sleep 30; :", "kafka.Kafka", "server.properties", "--override", "x=y",
		       (char *)NULL);
		_exit(127);
	}
	usleep(200 * 1000);
	struct ss_broker_config b;
	char *dirs[1] = { ld };
	assert_int_equal(ss_broker_config_find(NULL, dirs, 1, &b), 0);
	assert_non_null(b.path);
	assert_int_equal(b.pid, pid);
	assert_int_equal(b.err, 0);
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
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(other);
	free(ld);
	free(props);
	free(text);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

/* A /proc-like tree: a non-broker, a broker with an absolute path for these dirs, and an
 * unreadable config (a directory where the file should be). */
static void test_proc_tree(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("bpt"), *out = NULL, *p = NULL, *ld = NULL, *text = NULL;
	assert_true(asprintf(&ld, "%s/data", root) > 0);
	assert_int_equal(mkdir(ld, 0755), 0);
	assert_true(asprintf(&text, "log.dir=%s\n", ld) > 0);
	free(mkfile(root, "good.properties", text));
	assert_int_equal(tu_run(&out, "mkdir -p %s/proc/10 %s/proc/20 %s/proc/30 %s/proc/self", root, root, root, root), 0);
	free(out);
	static const char notbroker[] = "java\0-cp\0x\0org.example.Main\0a.properties";
	assert_true(asprintf(&p, "%s/proc/10/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, notbroker, sizeof(notbroker)), 0);
	free(p);
	/* pid 20: a broker whose config path is a directory: unreadable */
	char *cmd = NULL;
	int n = asprintf(&cmd, "java%c-Xmx1G%ckafka.Kafka%c%s/proc", 0, 0, 0, root);
	assert_true(n > 0);
	assert_true(asprintf(&p, "%s/proc/20/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, cmd, (size_t)n + 1), 0);
	free(p);
	free(cmd);
	struct ss_broker_config b;
	char *proc = NULL;
	assert_true(asprintf(&proc, "%s/proc", root) > 0);
	char *dirs[1] = { ld };
	assert_int_equal(ss_broker_config_find(proc, dirs, 1, &b), 0);
	assert_non_null(b.path);   /* a broker runs, but its config cannot be read: said, not hidden */
	assert_int_equal(b.pid, 20);
	assert_true(b.err < 0);   /* not a regular file */
	ss_broker_config_release(&b);
	/* pid 30: the readable one that serves the dir wins */
	n = asprintf(&cmd, "java%ckafka.Kafka%c%s/good.properties", 0, 0, root);
	assert_true(asprintf(&p, "%s/proc/30/cmdline", root) > 0);
	assert_int_equal(tu_write_file(p, cmd, (size_t)n + 1), 0);
	free(p);
	free(cmd);
	assert_int_equal(ss_broker_config_find(proc, dirs, 1, &b), 0);
	assert_int_equal(b.pid, 30);
	assert_int_equal(b.err, 0);
	ss_broker_config_release(&b);
	free(proc);
	free(ld);
	free(text);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_process),
		cmocka_unit_test(test_proc_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
