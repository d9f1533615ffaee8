/*
 * The --remote-state reader on arbitrary bytes, then the evaluator over every partition
 * it produced, against a small fixed local log: no crash, no leak, and the evaluator's
 * output stays self-consistent whatever the remote state says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/remote.h"
#include "fmt/ndjson.h"

static void check(const struct ss_eval *ev)
{
	if (ev->remote_segments < 0 || ev->dangling_segments < 0 || ev->only_local_segments < 0)
		abort();
	const struct ss_retention *rs[3] = { &ev->size, &ev->time, &ev->local };
	for (int i = 0; i < 3; i++) {
		if (!rs[i]->evaluated && !rs[i]->reason)
			abort();
		if (rs[i]->n_delete && !(rs[i]->delete_is_remote ? (void *)rs[i]->delete_ids : (void *)rs[i]->delete_offsets))
			abort();
		if (rs[i]->delete_is_remote && rs[i]->n_delete > (uint64_t)ev->remote_segments)
			abort();
	}
	for (uint32_t i = 0; i < ev->n_findings; i++)
		if (!ev->findings[i].code || !ev->findings[i].message)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	struct ss_remote *r;
	char err[512];
	if (ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r))
		abort();
	(void)ss_ndjson_parse(buf, size, "fuzz.ndjson", ss_remote_apply_fn, r, err, sizeof(err));

	for (uint32_t i = 0; i < ss_remote_part_count(r) && i < 8; i++) {
		const struct ss_remote_part *p = ss_remote_part_at(r, i);
		struct ss_epoch_entry ep[2] = { { 0, 0 }, { 3, 150 } };
		struct ss_seg segs[3];
		memset(segs, 0, sizeof(segs));
		int64_t base[3] = { 0, 100, 200 };
		for (int k = 0; k < 3; k++) {
			segs[k].base_offset = base[k];
			segs[k].last_offset = base[k] + 49;
			segs[k].flags = SS_SEG_HAS_LAST;
			segs[k].size_bytes = 1000;
			segs[k].max_timestamp_ms = 1000 * k;
		}
		segs[2].flags |= SS_SEG_ACTIVE;
		struct ss_part part = { .topic = p->topic, .partition = p->partition, .seg_count = 3,
					.epochs = ep, .n_epochs = 2, .epochs_read = (i & 1) == 0 };
		struct ss_topic_cfg cfg = { .retention_ms = 500, .retention_bytes = 1500, .local_retention_ms = -2,
					    .local_retention_bytes = 1000, .segment_bytes = 1 << 20,
					    .remote_storage = (int)(i % 3) - 1 };
		struct ss_eval_input in = { .part = &part, .segs = segs, .cfg = &cfg, .remote = p,
					    .remote_source = "remote-state", .now_ms = 5000, .dangling_after_ms = 100 };
		struct ss_eval *ev;
		if (ss_eval_partition(&in, &ev))
			abort();
		check(ev);
		ss_eval_free(ev);
	}
	ss_remote_free(r);
	free(buf);
	return 0;
}
