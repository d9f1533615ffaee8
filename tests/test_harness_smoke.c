/*
 * Smoke test of the real-broker test infrastructure (docs/conformance.md, "Scenario clusters"):
 * tests/harness_smoke.sh starts one 2-broker Kafka 4.3.1 scenario cluster (segscan.oracle.Scenario)
 * with Kafka's own LocalTieredStorage and the Prometheus JMX exporter, versitygw and Prometheus, and
 * runs every case once, in the group setup; each test below reports its case's verdict.
 *
 *   lts_copy             every COPY_SEGMENT_FINISHED segment (RemoteLogMetadataSerde) is a complete
 *                        LocalTieredStorage fileset on disk, .log of the metadata's size; LATEST_TIERED
 *                        = the highest finished end offset
 *   segscan_scan         segscan scan on each broker (its server.properties; local and cluster remote
 *                        metadata): remote.highest_offset = ListOffsets LATEST_TIERED, remote segments
 *                        and bytes = the finished segments, per topic the leaders' remote.size_bytes =
 *                        RemoteLogSizeBytes over JMX; no false finding
 *   s3_list              versitygw's ListObjectsV2 (2 keys a page) = the store's files and sizes; a
 *                        wrong secret is refused
 *   prometheus_scrape    Prometheus scraping the exporters: the example rules' series
 *                        (kafka_server_brokertopicmetrics_remote*{topic}) = the MBeans over JMX; a
 *                        rule file's recording rule = their per-topic sum, its alert fires
 *   stall_release        a copy held by the stalling transferer stays COPY_SEGMENT_STARTED with
 *                        nothing in the store; released, it finishes
 *   leadership           reassignment + preferred leader election move a partition's leader
 *   remote_delete_fetch  objects deleted behind Kafka's back: its consumer reads nothing there and
 *                        the broker counts RemoteFetchErrorsPerSec; the intact store read before
 *
 * Its segscan runs are the release binary's ($SEGSCAN, set by tests/run.sh); the sanitizer builds
 * do not run it: the time is Kafka's, and the scan code is under ASan in the unit tests.
 * Skipped (one clear SKIP per case) only where java/mvn (every case), Go (s3_list) or Prometheus
 * (prometheus_scrape) is absent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_BUILD 1
#else
#define SANITIZER_BUILD 0
#endif

static char results[4096];
static char lines[64][1024];
static int n_lines;

static int group_setup(void **state)
{
	const char *tmp = getenv("SEGSCAN_TEST_TMP");
	char cmd[8192];
	(void)state;
	snprintf(results, sizeof(results), "%s/harness-smoke-results.%d", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(cmd, sizeof(cmd), "bash tests/harness_smoke.sh '%s'", results);
	int rc = system(cmd);
	FILE *f = fopen(results, "r");
	if (!f) {
		fprintf(stderr, "harness_smoke.sh (exit %d) wrote no results\n", rc);
		return 0; /* every test then fails: "no verdict" */
	}
	while (n_lines < 64 && fgets(lines[n_lines], sizeof(lines[0]), f)) {
		lines[n_lines][strcspn(lines[n_lines], "\n")] = 0;
		n_lines++;
	}
	fclose(f);
	unlink(results);
	return 0;
}

static void verdict(const char *name)
{
	size_t nl = strlen(name);
	for (int i = 0; i < n_lines; i++) {
		const char *l = lines[i];
		const char *sp = strchr(l, ' ');
		if (!sp || strncmp(sp + 1, name, nl) || (sp[1 + nl] != 0 && sp[1 + nl] != ' ' && sp[1 + nl] != ':'))
			continue;
		print_message("%s\n", l);
		if (!strncmp(l, "PASS ", 5))
			return;
		if (!strncmp(l, "SKIP ", 5)) {
			skip();
			return;
		}
		fail_msg("%s", l);
	}
	fail_msg("harness_smoke.sh gave no verdict for %s", name);
}

static void lts_copy(void **s) { (void)s; verdict("lts_copy"); }
static void segscan_scan(void **s) { (void)s; verdict("segscan_scan"); }
static void s3_list(void **s) { (void)s; verdict("s3_list"); }
static void prometheus_scrape(void **s) { (void)s; verdict("prometheus_scrape"); }
static void stall_release(void **s) { (void)s; verdict("stall_release"); }
static void leadership(void **s) { (void)s; verdict("leadership"); }
static void remote_delete_fetch(void **s) { (void)s; verdict("remote_delete_fetch"); }

int main(void)
{
	if (SANITIZER_BUILD) {
		printf("test_harness_smoke: not run in sanitizer builds: its time is Kafka's, versitygw's "
		       "and Prometheus's; the release suite runs it\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lts_copy),
		cmocka_unit_test(segscan_scan),
		cmocka_unit_test(s3_list),
		cmocka_unit_test(prometheus_scrape),
		cmocka_unit_test(stall_release),
		cmocka_unit_test(leadership),
		cmocka_unit_test(remote_delete_fetch),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
