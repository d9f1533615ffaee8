/*
 * The remote-store audit against a real broker (tests/audit_real.sh): a Kafka 4.3.1 scenario
 * cluster (docs/conformance.md, "Scenario clusters") whose store Kafka's own LocalTieredStorage
 * (kafka-storage test jar) wrote, then versitygw serving it over S3. Each case's expectation is
 * Kafka's own reading (RemoteLogMetadataSerde over __remote_log_metadata, ListOffsets, JMX, its
 * consumer) or the files on disk:
 *
 *   clean        no remote-store finding; per partition objects and stored_bytes = the files,
 *                accounted_bytes = the finished segments' sizes = per topic RemoteLogSizeBytes
 *   deep_clean   --deep over the untouched store, file:// and s3://: every finished .log read
 *                and verified, no error; one request more per .log (a file opened, a GET)
 *   deep_flip    a byte flipped inside a batch of one .log: exit 1, one error naming that key
 *                and the batch's position, file:// and s3:// alike
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
 *   aiven_clean  the aiven layout in versitygw, objects written by the test from the layout's
 *                rules with Kafka's bytes for Kafka's finished segments, .log objects plain,
 *                zstd-compressed, AES-GCM-encrypted or both: no finding, the totals = the listing
 *   aiven_mismatch  a transformed .log one byte short, a manifest's originalFileSize not the
 *                metadata's: REMOTE_SIZE_MISMATCH for those two ids only
 *   aiven_missing   a .indexes object deleted: MISSING_REMOTE_OBJECT naming that key
 *   aiven_orphan    a fileset under a new id, one of a DELETE_SEGMENT_FINISHED id: orphans
 *   aiven_torn      .log and .indexes without the manifest, a new id: TORN_REMOTE_UPLOAD
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
TU_SCRIPT_CASE(deep_clean)
TU_SCRIPT_CASE(deep_flip)
TU_SCRIPT_CASE(missing)
TU_SCRIPT_CASE(kafka_fetch)
TU_SCRIPT_CASE(orphan)
TU_SCRIPT_CASE(expired)
TU_SCRIPT_CASE(torn)
TU_SCRIPT_CASE(s3_equal)
TU_SCRIPT_CASE(aiven_clean)
TU_SCRIPT_CASE(aiven_mismatch)
TU_SCRIPT_CASE(aiven_missing)
TU_SCRIPT_CASE(aiven_orphan)
TU_SCRIPT_CASE(aiven_torn)
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
		cmocka_unit_test(deep_clean),
		cmocka_unit_test(deep_flip),
		cmocka_unit_test(missing),
		cmocka_unit_test(kafka_fetch),
		cmocka_unit_test(orphan),
		cmocka_unit_test(expired),
		cmocka_unit_test(torn),
		cmocka_unit_test(s3_equal),
		cmocka_unit_test(aiven_clean),
		cmocka_unit_test(aiven_mismatch),
		cmocka_unit_test(aiven_missing),
		cmocka_unit_test(aiven_orphan),
		cmocka_unit_test(aiven_torn),
		cmocka_unit_test(s3_errors),
	};
	return cmocka_run_group_tests(tests, tu_suite_setup, NULL);
}
