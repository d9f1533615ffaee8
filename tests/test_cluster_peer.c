/*
 * The live-cluster source against a hostile peer (issue 21 items 3 and 4, issue 20 item 8):
 * tests/cluster_peer.sh starts tests/fake_kafka.py on 127.0.0.1, a fake broker serving the
 * real __remote_log_metadata batches of tests/fixtures/kafka/tiered or lying about them, and
 * scans the fixture against it; each test below reports one case's verdict.
 *
 *   peer_clean           the peer's records give the on-disk replay's remote state
 *   peer_no_group        no group request (FindCoordinator, JoinGroup, OffsetFetch/Commit)
 *                        from scan or from serve's tail
 *   peer_crc             a flipped bit: refused (check.crcs), named, its partition unknown
 *   peer_crc_serve       the same through serve's tail
 *   peer_giveup          a high watermark of 2^62: the rate-based give-up, exit 1
 *   peer_deadline        --kafka-deadline=3000 against a long stream: exit 1, named
 *   peer_sigterm_stream  SIGTERM while records stream in: exit 143 at once
 *   peer_sigterm_stall   SIGTERM while a Fetch is never answered: exit 143 at once
 *   peer_sigterm_cfgs    SIGTERM while DescribeConfigs is never answered: exit 143 at once
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

TU_SCRIPT_SUITE("cluster_peer")

TU_SCRIPT_CASE(peer_clean)
TU_SCRIPT_CASE(peer_no_group)
TU_SCRIPT_CASE(peer_crc)
TU_SCRIPT_CASE(peer_crc_serve)
TU_SCRIPT_CASE(peer_giveup)
TU_SCRIPT_CASE(peer_deadline)
TU_SCRIPT_CASE(peer_sigterm_stream)
TU_SCRIPT_CASE(peer_sigterm_stall)
TU_SCRIPT_CASE(peer_sigterm_cfgs)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(peer_clean),
		cmocka_unit_test(peer_no_group),
		cmocka_unit_test(peer_crc),
		cmocka_unit_test(peer_crc_serve),
		cmocka_unit_test(peer_giveup),
		cmocka_unit_test(peer_deadline),
		cmocka_unit_test(peer_sigterm_stream),
		cmocka_unit_test(peer_sigterm_stall),
		cmocka_unit_test(peer_sigterm_cfgs),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
