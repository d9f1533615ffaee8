/*
 * A segment's producer state files as DumpLogSegments shows them: the producer snapshot
 * (NNN.snapshot, dumpProducerIdSnapshot: one line or item per producer id) and the aborted
 * transactions of the transaction index (NNN.txnindex), decoded by fmt/producer_snapshot.h.
 */
#include <stdio.h>

#include "dump/dump_int.h"
#include "fmt/producer_snapshot.h"
#include "segscan.h"

void dd_dump_producer_snapshot(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	struct ss_dout *o = &d->out;
	struct ss_psnap s;
	int r = ss_psnap_parse(buf, len, &s);
	if (r && r != SEGSCAN_ECRC && !(r == SEGSCAN_ETRUNC && s.entries)) {
		dd_error(d, -1, "producer snapshot: %s", segscan_strerror(r));
		return;
	}
	for (int32_t i = 0; i < s.count; i++) {
		struct ss_pid_entry e = ss_psnap_entry(&s, i);
		d->entries++;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			/* DumpLogSegments.dumpProducerIdSnapshot */
			ss_dout_str(o, "producerId: "); ss_dout_i64(o, e.producer_id);
			ss_dout_str(o, " producerEpoch: "); ss_dout_i64(o, e.epoch);
			ss_dout_str(o, " coordinatorEpoch: "); ss_dout_i64(o, e.coordinator_epoch);
			ss_dout_str(o, " currentTxnFirstOffset: ");
			if (e.txn_first_offset >= 0) {
				ss_dout_str(o, "OptionalLong[");
				ss_dout_i64(o, e.txn_first_offset);
				ss_dout_ch(o, ']');
			} else
				ss_dout_str(o, "OptionalLong.empty");
			ss_dout_str(o, " lastTimestamp: "); ss_dout_i64(o, e.timestamp);
			if (e.last_offset >= 0) {
				ss_dout_str(o, " firstSequence: "); ss_dout_i64(o, ss_psnap_first_seq(&e));
				ss_dout_str(o, " lastSequence: "); ss_dout_i64(o, e.last_seq);
				ss_dout_str(o, " lastOffset: "); ss_dout_i64(o, e.last_offset);
				ss_dout_str(o, " offsetDelta: "); ss_dout_i64(o, e.offset_delta);
				ss_dout_str(o, " timestamp: "); ss_dout_i64(o, e.timestamp);
			}
			ss_dout_ch(o, '\n');
			continue;
		}
		dd_item(d, "producer");
		ss_dj_ki64(o, "producer_id", e.producer_id);
		ss_dj_ki64(o, "producer_epoch", e.epoch);
		ss_dj_ki64(o, "coordinator_epoch", e.coordinator_epoch);
		ss_dj_key(o, "current_txn_first_offset");
		if (e.txn_first_offset >= 0)
			ss_dj_i64(o, e.txn_first_offset);
		else
			ss_dj_null(o);
		ss_dj_ki64(o, "last_timestamp_ms", e.timestamp);
		if (e.last_offset >= 0) {
			ss_dj_ki64(o, "first_sequence", ss_psnap_first_seq(&e));
			ss_dj_ki64(o, "last_sequence", e.last_seq);
			ss_dj_ki64(o, "last_offset", e.last_offset);
			ss_dj_ki64(o, "offset_delta", e.offset_delta);
		}
		dd_item_end(d);
	}
	if (r == SEGSCAN_ECRC)
		dd_error(d, -1, "producer snapshot CRC mismatch: stored %u, computed %u", s.crc, s.crc_computed);
	else if (r)
		dd_error(d, -1, "producer snapshot: %s", segscan_strerror(r));
}

void dd_dump_txnindex(struct ss_dump *d, const uint8_t *buf, size_t len)
{
	struct ss_dout *o = &d->out;
	for (size_t i = 0; i < len / SS_TXNIDX_ENTRY; i++) {
		struct ss_aborted_txn t;
		if (ss_txnidx_entry(buf, len, i, &t)) {
			dd_error(d, (int64_t)(i * SS_TXNIDX_ENTRY), "aborted transaction entry version %d", t.version);
			return;
		}
		d->entries++;
		if (d->opts.fmt == SS_DUMP_TEXT) {
			ss_dout_str(o, "version: "); ss_dout_i64(o, t.version);
			ss_dout_str(o, " producerId: "); ss_dout_i64(o, t.producer_id);
			ss_dout_str(o, " firstOffset: "); ss_dout_i64(o, t.first_offset);
			ss_dout_str(o, " lastOffset: "); ss_dout_i64(o, t.last_offset);
			ss_dout_str(o, " lastStableOffset: "); ss_dout_i64(o, t.last_stable_offset);
			ss_dout_ch(o, '\n');
			continue;
		}
		dd_item(d, "aborted_txn");
		ss_dj_ki64(o, "version", t.version);
		ss_dj_ki64(o, "producer_id", t.producer_id);
		ss_dj_ki64(o, "first_offset", t.first_offset);
		ss_dj_ki64(o, "last_offset", t.last_offset);
		ss_dj_ki64(o, "last_stable_offset", t.last_stable_offset);
		dd_item_end(d);
	}
	if (len % SS_TXNIDX_ENTRY)
		dd_error(d, (int64_t)(len - len % SS_TXNIDX_ENTRY), "%zu trailing bytes, not a whole entry",
			 len % SS_TXNIDX_ENTRY);
}
