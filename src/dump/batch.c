/*
 * A batch as DumpLogSegments prints it (printBatchLevel): its text line or its JSON item
 * (with --records in the json format, its records nest inside, closed by dd_batch_end).
 */
#include <limits.h>

#include "dump/dump_int.h"
#include "fmt/codec.h"

const char *dd_ts_type(const struct ss_batch_hdr *h)
{
	if (h->magic == 0)
		return "NoTimestampType";
	return (h->attributes & SS_ATTR_LOG_APPEND) ? "LogAppendTime" : "CreateTime";
}

static int32_t last_sequence(const struct ss_batch_hdr *h)
{
	/* DefaultRecordBatch.lastSequence: incrementSequence(base, lastOffsetDelta) */
	if (h->base_sequence < 0)
		return -1;
	int64_t delta = h->last_offset - h->base_offset;
	int64_t s = (int64_t)h->base_sequence + delta;
	return s > INT32_MAX ? (int32_t)(s - INT32_MAX - 1) : (int32_t)s;
}

void dd_batch_begin(struct ss_dump *d, const struct ss_batch_hdr *h, int64_t pos, bool crc_ok)
{
	struct ss_dout *o = &d->out;
	enum ss_codec codec = (enum ss_codec)(h->attributes & SS_ATTR_CODEC_MASK);
	const char *cname = codec <= SS_CODEC_ZSTD ? ss_codec_name(codec) : "unknown";
	bool v2 = h->magic >= 2;
	if (d->opts.fmt == SS_DUMP_TEXT) {
		/* DumpLogSegments.printBatchLevel */
		if (v2) {
			ss_dout_str(o, "baseOffset: "); ss_dout_i64(o, h->base_offset);
			ss_dout_str(o, " lastOffset: "); ss_dout_i64(o, h->last_offset);
			ss_dout_str(o, " count: "); ss_dout_i64(o, h->records_count);
			ss_dout_str(o, " baseSequence: "); ss_dout_i64(o, h->base_sequence);
			ss_dout_str(o, " lastSequence: "); ss_dout_i64(o, last_sequence(h));
			ss_dout_str(o, " producerId: "); ss_dout_i64(o, h->producer_id);
			ss_dout_str(o, " producerEpoch: "); ss_dout_i64(o, h->producer_epoch);
			ss_dout_str(o, " partitionLeaderEpoch: "); ss_dout_i64(o, h->leader_epoch);
			ss_dout_str(o, (h->attributes & SS_ATTR_TRANSACTIONAL) ? " isTransactional: true" : " isTransactional: false");
			ss_dout_str(o, (h->attributes & SS_ATTR_CONTROL) ? " isControl: true" : " isControl: false");
			ss_dout_str(o, " deleteHorizonMs: ");
			if (h->attributes & SS_ATTR_DELETE_HORIZON) {
				ss_dout_str(o, "OptionalLong[");
				ss_dout_i64(o, h->base_timestamp);
				ss_dout_ch(o, ']');
			} else {
				ss_dout_str(o, "OptionalLong.empty");
			}
		} else {
			ss_dout_str(o, "offset: "); ss_dout_i64(o, h->last_offset);
		}
		ss_dout_str(o, " position: "); ss_dout_i64(o, pos);
		ss_dout_ch(o, ' '); ss_dout_str(o, dd_ts_type(h)); ss_dout_str(o, ": "); ss_dout_i64(o, h->max_timestamp);
		ss_dout_str(o, " size: "); ss_dout_i64(o, h->size);
		ss_dout_str(o, " magic: "); ss_dout_i64(o, h->magic);
		ss_dout_str(o, " compresscodec: "); ss_dout_str(o, cname);
		ss_dout_str(o, " crc: "); ss_dout_u64(o, h->crc);
		ss_dout_str(o, crc_ok ? " isvalid: true\n" : " isvalid: false\n");
		return;
	}
	dd_item(d, "batch");
	ss_dj_ki64(o, "base_offset", h->has_base ? h->base_offset : h->last_offset);
	ss_dj_ki64(o, "last_offset", h->last_offset);
	ss_dj_key(o, "count");
	if (h->records_count >= 0)
		ss_dj_i64(o, h->records_count);
	else
		ss_dj_null(o);
	ss_dj_ki64(o, "position", pos);
	ss_dj_ki64(o, "size_bytes", h->size);
	ss_dj_ki64(o, "magic", h->magic);
	ss_dj_kstr(o, "compression", cname);
	ss_dj_ku64(o, "crc", h->crc);
	ss_dj_kbool(o, "crc_valid", crc_ok);
	ss_dj_ki64(o, "partition_leader_epoch", h->leader_epoch);
	ss_dj_ki64(o, "producer_id", h->producer_id);
	ss_dj_ki64(o, "producer_epoch", h->producer_epoch);
	ss_dj_ki64(o, "base_sequence", h->base_sequence);
	ss_dj_ki64(o, "last_sequence", v2 ? last_sequence(h) : -1);
	ss_dj_kbool(o, "transactional", v2 && (h->attributes & SS_ATTR_TRANSACTIONAL));
	ss_dj_kbool(o, "control", v2 && (h->attributes & SS_ATTR_CONTROL));
	ss_dj_kstr(o, "timestamp_type", dd_ts_type(h));
	ss_dj_ki64(o, "max_timestamp_ms", h->max_timestamp);
	ss_dj_key(o, "delete_horizon_ms");
	if (v2 && (h->attributes & SS_ATTR_DELETE_HORIZON))
		ss_dj_i64(o, h->base_timestamp);
	else
		ss_dj_null(o);
	/* json + --records: the records nest in the batch (closed by dd_batch_end) */
	if (d->opts.fmt == SS_DUMP_JSON && d->opts.records) {
		ss_dj_key(o, "records");
		ss_dj_arr(o);
		return;
	}
	dd_item_end(d);
}

void dd_batch_end(struct ss_dump *d)
{
	if (d->opts.fmt == SS_DUMP_JSON && d->opts.records) {
		ss_dj_arr_end(&d->out);
		dd_item_end(d);
	}
}
