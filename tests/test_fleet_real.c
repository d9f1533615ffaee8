/*
 * Issue 22's proof on a real cluster (docs/conformance.md, "Fleet sums on a real cluster (issue 22)"):
 * tests/fleet_real.sh starts one 3-broker Kafka 4.3.1 scenario cluster with Kafka's own
 * LocalTieredStorage and tiered topics at RF 1, 2 and 3 (a copy held in each), one
 * `segscan serve` per broker and a real Prometheus with contrib/prometheus/segscan.rules.yml,
 * and runs every case once, in the group setup; each test below reports its case's verdict.
 *
 *   prometheus_rules  a copy held in each topic: the recorded cluster_topic: and cluster: remote
 *                     bytes, remote segments, copy lag and broker-reported copy lag (bytes,
 *                     segments) = Kafka's (RemoteLogSizeBytes over JMX summed over the brokers =
 *                     the finished segments = LocalTieredStorage's files; the leaders' closed
 *                     segment files above LATEST_TIERED; the broker's formula over them, as its
 *                     RemoteCopyLag* gauges stay frozen while a copy is held), each partition
 *                     once, while the raw series sum to RF times that
 *   prometheus_released  the copies let go: the same, the broker-reported copy lag =
 *                     RemoteCopyLagSegments/Bytes over JMX
 *   node_labels       every partition series carries its broker's node_id; segscan_partition_leader
 *                     is 1 exactly on Kafka's leader; segscan_broker_info = Kafka's node and cluster
 *   merge             `segscan merge` of the three serve endpoints: complete, the same totals, each
 *                     partition's leader and remote state = Kafka's
 *   topic_level       `scan --metrics-level=topic` on each broker: the per-topic series summed over
 *                     the brokers = Kafka's
 *
 * Release suite only (as test_harness_smoke): its time is Kafka's and Prometheus's, and the
 * code it runs is under the sanitizers in the unit tests. SKIPped (each case) only where java/mvn
 * or prometheus is absent.
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

TU_SCRIPT_SUITE("fleet_real")

TU_SCRIPT_CASE(prometheus_rules)
TU_SCRIPT_CASE(node_labels)
TU_SCRIPT_CASE(merge)
TU_SCRIPT_CASE(topic_level)
TU_SCRIPT_CASE(prometheus_released)

int main(void)
{
	if (TU_SANITIZER_BUILD) {
		printf("test_fleet_real: not run in sanitizer builds: its time is Kafka's and Prometheus's; "
		       "the release suite runs it\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prometheus_rules),
		cmocka_unit_test(node_labels),
		cmocka_unit_test(merge),
		cmocka_unit_test(topic_level),
		cmocka_unit_test(prometheus_released),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
