/*
 * --broker-metrics against a real Kafka 4.3.1 broker and its real JMX exporter
 * (docs/conformance.md, "Scenario clusters"): tests/broker_metrics_real.sh starts one tiered broker
 * and runs every case once, in the group setup; each test below reports its case's verdict.
 *
 *   gauges_read  the exporter's RemoteCopyLag* and RemoteDeleteLag* per topic read by segscan exactly as
 *                the exporter serves them and Kafka's JMX reports them, the KAFKA-20977 phantom
 *                segment among them, and segscan's 4.3.1 reproduction beside them equal
 *   names_label  other series names: no gauge (null, not 0); nobody listening: unknown, a warning
 *
 * Its segscan runs are the release binary's ($SEGSCAN, set by tests/run.sh); not run in the
 * sanitizer builds (the time is Kafka's: test_broker_metrics covers the code under ASan).
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

TU_SCRIPT_SUITE("broker_metrics_real")

TU_SCRIPT_CASE(gauges_read)
TU_SCRIPT_CASE(names_label)

int main(void)
{
	if (TU_SANITIZER_BUILD) {
		printf("test_broker_metrics_real: not run in sanitizer builds: its time is Kafka's; the release "
		       "suite runs it\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gauges_read),
		cmocka_unit_test(names_label),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
