/*
 * The text files of a log dir and a partition directory: leader-epoch-checkpoint (epoch ->
 * start offset), the offset checkpoints (recovery-point-offset-, replication-offset-,
 * log-start-offset-, cleaner-offset-checkpoint) and partition.metadata (the topic id), parsed
 * by fmt/names.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "dump/dump_int.h"
#include "fmt/names.h"
#include "segscan.h"

void dd_dump_epochs(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	struct ss_dout *o = &d->out;
	size_t n = 0;
	int line = 0;
	int r = ss_ckpt_parse_epochs((const char *)buf, len, NULL, 0, &n, &line);
	struct ss_epoch_entry *e = n ? calloc(n, sizeof(*e)) : NULL;
	if (r == 0 && n && !e)
		r = -ENOMEM;
	if (r == 0 && n)
		r = ss_ckpt_parse_epochs((const char *)buf, len, e, n, &n, &line);
	if (r) {
		dd_error(d, -1, "line %d: %s", line, segscan_strerror(r));
		free(e);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		d->entries++;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			ss_dout_str(o, "epoch: "); ss_dout_i64(o, e[i].epoch);
			ss_dout_str(o, " startOffset: "); ss_dout_i64(o, e[i].start_offset);
			ss_dout_ch(o, '\n');
			continue;
		}
		dd_item(d, "leader_epoch");
		ss_dj_ki64(o, "epoch", e[i].epoch);
		ss_dj_ki64(o, "start_offset", e[i].start_offset);
		dd_item_end(d);
	}
	free(e);   /* pairs with the calloc above */
}

static int on_ckpt(void *arg, const char *topic, size_t topic_len, int32_t partition, int64_t offset)
{
	struct ss_dump *d = arg;
	struct ss_dout *o = &d->out;
	d->entries++;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(o, "topic: "); dd_text(d, topic, topic_len);
		ss_dout_str(o, " partition: "); ss_dout_i64(o, partition);
		ss_dout_str(o, " offset: "); ss_dout_i64(o, offset);
		ss_dout_ch(o, '\n');
		return 0;
	}
	dd_item(d, "checkpoint_entry");
	ss_dj_key(o, "topic");
	dd_strn(o, (const uint8_t *)topic, (int32_t)topic_len);
	ss_dj_ki64(o, "partition", partition);
	ss_dj_ki64(o, "offset", offset);
	dd_item_end(d);
	return 0;
}

void dd_dump_offsets_ckpt(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	int line = 0;
	int r = ss_ckpt_parse_offsets((const char *)buf, len, on_ckpt, d, &line);
	if (r)
		dd_error(d, -1, "line %d: %s", line, segscan_strerror(r));
}

void dd_dump_partition_metadata(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	uint8_t id[16];
	char txt[23];
	int line = 0;
	int r = ss_partition_metadata_parse((const char *)buf, len, id, &line);
	if (r) {
		dd_error(d, -1, "line %d: %s", line, segscan_strerror(r));
		return;
	}
	ss_uuid_format(id, txt);
	d->entries++;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		ss_dout_str(&d->out, "version: 0 topicId: ");
		ss_dout_str(&d->out, txt);
		ss_dout_ch(&d->out, '\n');
		return;
	}
	dd_item(d, "partition_metadata");
	ss_dj_ki64(&d->out, "version", 0);
	ss_dj_kstr(&d->out, "topic_id", txt);
	dd_item_end(d);
}
