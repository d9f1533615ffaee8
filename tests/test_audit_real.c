/*
 * The remote-store audit against a real broker (tests/audit_real.sh): a Kafka 4.3.1 scenario
 * cluster (docs/conformance.md, "Scenario clusters") whose store Kafka's own LocalTieredStorage
 * (kafka-storage test jar) wrote, then versitygw serving it over S3. Each case's expectation is
 * Kafka's own reading (RemoteLogMetadataSerde over __remote_log_metadata, ListOffsets, JMX, its
 * consumer) or the files on disk:
 *
 *   clean        no remote-store finding; per partition objects and stored_bytes = the files,
 *                accounted_bytes = the finished segments' sizes = per topic RemoteLogSizeBytes
 *   missing      a segment's objects deleted behind Kafka's back: MISSING_REMOTE_OBJECT for that
 *                segment id alone, naming exactly the deleted keys
 *   kafka_fetch  ... and Kafka's consumer reads nothing from its start offset while the broker
 *                counts RemoteFetchErrorsPerSec
 *   orphan       a fileset copied under an id Kafka never gave: ORPHAN_REMOTE_OBJECT for that id,
 *                its objects and bytes; a file no RSM writes: unrecognised 1, not an orphan
 *   expired      remote retention with the RSM's delete.enable=false: ORPHAN_REMOTE_OBJECT for
 *                exactly the ids Kafka now says DELETE_SEGMENT_FINISHED
 *   torn         a copy held after its .log: in flight with the default --dangling-after (no
 *                finding), TORN_REMOTE_UPLOAD for that id past it
 *   s3_equal     versitygw over the same directory, 7 keys a page: the S3 audit = the file:// one
 *   s3_errors    a wrong secret, an unknown bucket, a stopped server: exit 1 naming the store,
 *                nothing compared
 *
 * The release suite runs it; sanitizer builds print why and run nothing (the time is Kafka's;
 * the audit's code is under ASan in test_audit and test_store). SKIPped only without java/mvn
 * (every case) or Go 1.25+ (the S3 cases).
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

TU_SCRIPT_SUITE("audit_real")

TU_SCRIPT_CASE(clean)
TU_SCRIPT_CASE(missing)
TU_SCRIPT_CASE(kafka_fetch)
TU_SCRIPT_CASE(orphan)
TU_SCRIPT_CASE(expired)
TU_SCRIPT_CASE(torn)
TU_SCRIPT_CASE(s3_equal)
TU_SCRIPT_CASE(s3_errors)

int main(void)
{
	if (TU_SANITIZER_BUILD) {
		printf("test_audit_real: not run in sanitizer builds: its time is Kafka's and versitygw's; "
		       "the release suite runs it\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean),
		cmocka_unit_test(missing),
		cmocka_unit_test(kafka_fetch),
		cmocka_unit_test(orphan),
		cmocka_unit_test(expired),
		cmocka_unit_test(torn),
		cmocka_unit_test(s3_equal),
		cmocka_unit_test(s3_errors),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
