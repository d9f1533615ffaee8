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

#include "testutil.h"

TU_SCRIPT_SUITE("harness_smoke")

TU_SCRIPT_CASE(lts_copy)
TU_SCRIPT_CASE(segscan_scan)
TU_SCRIPT_CASE(s3_list)
TU_SCRIPT_CASE(prometheus_scrape)
TU_SCRIPT_CASE(stall_release)
TU_SCRIPT_CASE(leadership)
TU_SCRIPT_CASE(remote_delete_fetch)

int main(void)
{
	if (TU_SANITIZER_BUILD) {
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
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
