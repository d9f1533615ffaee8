/*
 * NUMA placement end to end with an injected two-node topology (no machine here has two
 * nodes): the log dir's block device is declared to sit on node 1 in a fake sysfs tree,
 * and the scan must pin a worker to node 1's CPUs and still report exactly what an
 * unpinned scan reports.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

static void mkpath(const char *root, const char *rel, const char *content)
{
	char *cmd = NULL, *p = NULL;
	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	assert_true(asprintf(&cmd, "mkdir -p \"$(dirname '%s')\"", p) > 0);
	assert_int_equal(tu_run(NULL, "%s", cmd), 0);
	assert_int_equal(tu_write_file(p, content, strlen(content)), 0);
	free(cmd);
	free(p);
}

static void test_two_node_placement(void **state)
{
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	if (!CPU_ISSET(0, &set) || !CPU_ISSET(1, &set))
		skip(); /* the fake layout needs CPUs 0 and 1 */

	char *root = NULL;
	char *logdir = su_gen("numa", 2, 2, 4, 32 * 1024, 0, false, &root);
	assert_non_null(logdir);
	struct stat st;
	assert_int_equal(stat(logdir, &st), 0);
	if (major(st.st_dev) == 0)
		skip(); /* tmpfs/overlay: no block device to place */

	char *sys = NULL, rel[128];
	assert_true(asprintf(&sys, "%s/sys", root) > 0);
	mkpath(sys, "devices/system/node/node0/cpulist", "0\n");
	mkpath(sys, "devices/system/node/node1/cpulist", "1\n");
	snprintf(rel, sizeof(rel), "dev/block/%u:%u/device/numa_node", major(st.st_dev), minor(st.st_dev));
	mkpath(sys, rel, "1\n");

	char *out = NULL, *ref = NULL;
	assert_int_equal(tu_run(&ref, "%s scan -q -f ndjson --numa=off %s", tu_segscan(), logdir), 0);
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --stats --threads=1 --numa-topology=%s %s 2>%s/stats.txt",
				tu_segscan(), sys, logdir, root), 0);
	assert_string_equal(out, ref);
	free(out);
	char *stats_path = NULL;
	assert_true(asprintf(&stats_path, "%s/stats.txt", root) > 0);
	char *stats = tu_read_file(stats_path, NULL);
	assert_non_null(stats);
	/* the log dir is on node 1 and the only worker serves it from CPU 1 */
	assert_non_null(strstr(stats, "on NUMA node 1"));
	assert_non_null(strstr(stats, "node 1   pinned to cpus 1"));
	free(stats);

	/* with numa off nobody is pinned */
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --stats --numa=off --numa-topology=%s %s 2>%s/stats.txt",
				tu_segscan(), sys, logdir, root), 0);
	stats = tu_read_file(stats_path, NULL);
	assert_null(strstr(stats, "pinned to cpus"));
	free(stats);
	free(out);
	free(ref);
	free(stats_path);
	free(sys);
	free(logdir);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_node_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
