/*
 * Live-cluster source against real brokers (issue 10): tests/live_cluster.sh starts one
 * 3-node KRaft cluster with scripts/kafka-oracle (segscan.oracle.LiveCluster) and runs every
 * case against it once, in the group setup; each test below reports its case's verdict.
 *
 *   no_consumer_group    segscan changes nothing in the cluster: after every scan and serve's tail
 *                        below, the fresh cluster still has no __consumer_offsets and lists no
 *                        group (Admin listTopics/listGroups on the Java side)
 *   cluster_scan         --bootstrap-server: for every tiered partition of node 1,
 *                        remote.highest_offset = ListOffsets LATEST_TIERED and remote.segments =
 *                        COPY_SEGMENT_FINISHED segments as RemoteLogMetadataSerde decodes the topic
 *   local_unknown        without it: exactly the partitions whose metadata partition is not in
 *                        node 1's log dir are REMOTE_STATE_UNKNOWN, the others match Kafka
 *   unreachable          a closed port: exit 1 within the timeout, the server named, unknown state
 *   sasl_wrong_password  SASL_PLAINTEXT with a wrong password: exit 1, "authentication", bounded;
 *                        the right password works; a group/other-readable config file is warned about
 *   describe_configs     DescribeConfigs of two topics and broker 1: the values and sources Kafka
 *                        reports for what the harness set (dynamic topic, static broker, default)
 *   scan_configs         no metadata log: the scan's topic configs come from DescribeConfigs
 *   serve_live           serve's tail: a segment the brokers copy later is in the next publication
 *   serve_outage         brokers stopped: /healthz and the age metric flip; resumed: recovered
 *
 * Skipped (one clear SKIP per case) only where java or mvn is absent.
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

TU_SCRIPT_SUITE("live_cluster")

TU_SCRIPT_CASE(no_consumer_group)
TU_SCRIPT_CASE(cluster_scan)
TU_SCRIPT_CASE(local_unknown)
TU_SCRIPT_CASE(unreachable)
TU_SCRIPT_CASE(sasl_wrong_password)
TU_SCRIPT_CASE(describe_configs)
TU_SCRIPT_CASE(scan_configs)
TU_SCRIPT_CASE(serve_live)
TU_SCRIPT_CASE(serve_outage)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cluster_scan),
		cmocka_unit_test(local_unknown),
		cmocka_unit_test(unreachable),
		cmocka_unit_test(sasl_wrong_password),
		cmocka_unit_test(describe_configs),
		cmocka_unit_test(scan_configs),
		cmocka_unit_test(serve_live),
		cmocka_unit_test(serve_outage),
		cmocka_unit_test(no_consumer_group),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
