/*
 * __remote_log_metadata record values on arbitrary bytes: the decoder must never read
 * out of bounds, and what it accepts must replay into a KAFKA-mode store without an
 * error (the replay drops what Kafka would drop). The first byte picks numPartitions
 * for the placement function.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/remote.h"
#include "fmt/rlmm.h"
#include "fmt/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy so reads past the end are caught */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	(void)ss_murmur2(buf, size);

	struct ss_rlmm_rec d;
	int e = ss_rlmm_decode(buf, size, &d);
	if (e == 0) {
		if (d.ev.has_id_bytes) {
			uint8_t back[16];
			if (d.ev.segment_id_len != 22 || ss_uuid_parse(d.ev.segment_id, 22, back) ||
			    memcmp(back, d.ev.id_bytes, 16) != 0)
				abort();
		}
		if (d.ev.topic && (d.ev.topic < (const char *)buf || d.ev.topic + d.ev.topic_len > (const char *)buf + size))
			abort();
		if (d.ev.has_topic_id) {
			int32_t n = size ? (int32_t)(buf[0] % 64) + 1 : 50;
			int32_t p = ss_rlmm_metadata_partition(d.ev.topic_id, d.ev.partition, n);
			if (p < 0 || p >= n)
				abort();
		}
		struct ss_remote *r;
		char msg[256];
		if (ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r))
			abort();
		/* twice: the second is a self-transition or a refused re-add */
		for (int i = 0; i < 2; i++) {
			int a = ss_remote_apply(r, &d.ev, msg, sizeof(msg));
			if (a < 0 || a > 1)
				abort();
		}
		const struct ss_remote_part *p = ss_remote_part_at(r, 0);
		for (uint32_t i = 0; p && i < p->n_epochs; i++) {
			const struct ss_rseg **l;
			uint32_t n;
			int64_t h;
			if (ss_remote_list_epoch(p, p->epochs[i].epoch, false, &l, &n))
				abort();
			free(l);
			(void)ss_remote_highest_for_epoch(p, p->epochs[i].epoch, &h);
		}
		ss_remote_free(r);
		ss_rlmm_rec_free(&d);
	}
	free(buf);
	return 0;
}
