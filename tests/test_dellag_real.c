/*
 * KAFKA-21098 on real brokers (docs/conformance.md, "Scenario clusters"; docs/kafka-releases.md):
 * tests/dellag_real.sh runs one workload on a 2-broker Kafka 4.3.1 cluster and on a 4.4.0 one
 * (Kafka's own LocalTieredStorage with held deletes, the real JMX exporter on every broker): an
 * expiration pass held at its first delete while the partition's leadership moves to the other
 * broker, then let go on past the move. Each test below reports its case's verdict.
 *
 *   gauge_latched      4.3.1: the old leader's RemoteDeleteLagSegments/Bytes, read through its
 *                      JMX exporter, come back after the move (6 segments and their bytes) and stay
 *                      after the new leader deleted everything and reports 0
 *   gauge_not_latched  4.4.0 (apache/kafka#23471): the same workload leaves them at 0
 *   prometheus_rule    contrib/prometheus/segscan.rules.yml in a real Prometheus over a segscan
 *                      serve per broker and the brokers' JMX exporters: the old leader's phantom
 *                      recorded at its gauge's value and SegscanPhantomRemoteDeleteLag pending
 *                      on 4.3.1, 0 and nothing pending on 4.4.0
 *   phantom_finding    segscan --broker-metrics on the old leader: PHANTOM_DELETE_LAG with the
 *                      gauge's value on 4.3.1, none on 4.4.0
 *   true_lag           segscan's delete_lag on the new leader = its expiration task's gauges,
 *                      while its pass is held (bytes: plus the retried segment's, which Kafka
 *                      leaves out) and after it has run
 *
 * Its segscan runs are the release binary's ($SEGSCAN, set by tests/run.sh); the sanitizer builds
 * do not run it (the time is Kafka's). Skipped only where java/mvn are absent, and the segscan
 * cases where this segscan has no --broker-metrics.
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

TU_SCRIPT_SUITE("dellag_real")

TU_SCRIPT_CASE(gauge_latched)
TU_SCRIPT_CASE(gauge_not_latched)
TU_SCRIPT_CASE(prometheus_rule)
TU_SCRIPT_CASE(phantom_finding)
TU_SCRIPT_CASE(true_lag)

int main(void)
{
	if (TU_SANITIZER_BUILD) {
		printf("test_dellag_real: not run in sanitizer builds: its time is Kafka's; the release "
		       "suite runs it\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gauge_latched),
		cmocka_unit_test(gauge_not_latched),
		cmocka_unit_test(prometheus_rule),
		cmocka_unit_test(phantom_finding),
		cmocka_unit_test(true_lag),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
