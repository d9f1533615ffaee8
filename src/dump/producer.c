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
	bool text = d->opts.fmt == SS_DUMP_TEXT;
	for (int32_t i = 0; i < s.count; i++) {
		struct ss_pid_entry e = ss_psnap_entry(&s, i);
		/* DumpLogSegments.dumpProducerIdSnapshot */
		const struct dd_field head[] = {
			{ "producerId: ", "producer_id", e.producer_id },
			{ " producerEpoch: ", "producer_epoch", e.epoch },
			{ " coordinatorEpoch: ", "coordinator_epoch", e.coordinator_epoch },
		};
		const struct dd_field seq[] = {
			{ " firstSequence: ", "first_sequence", ss_psnap_first_seq(&e) },
			{ " lastSequence: ", "last_sequence", e.last_seq },
			{ " lastOffset: ", "last_offset", e.last_offset },
			{ " offsetDelta: ", "offset_delta", e.offset_delta },
			{ " timestamp: ", NULL, e.timestamp },
		};
		d->entries++;
		if (!text)
			dd_item(d, "producer");
		dd_fields(d, head, sizeof(head) / sizeof(head[0]));
		if (text) {
			ss_dout_str(o, " currentTxnFirstOffset: ");
			if (e.txn_first_offset >= 0) {
				ss_dout_str(o, "OptionalLong[");
				ss_dout_i64(o, e.txn_first_offset);
				ss_dout_ch(o, ']');
			} else {
				ss_dout_str(o, "OptionalLong.empty");
			}
			ss_dout_str(o, " lastTimestamp: ");
			ss_dout_i64(o, e.timestamp);
		} else {
			ss_dj_key(o, "current_txn_first_offset");
			if (e.txn_first_offset >= 0)
				ss_dj_i64(o, e.txn_first_offset);
			else
				ss_dj_null(o);
			ss_dj_ki64(o, "last_timestamp_ms", e.timestamp);
		}
		if (e.last_offset >= 0)
			dd_fields(d, seq, sizeof(seq) / sizeof(seq[0]));
		if (text)
			ss_dout_ch(o, '\n');
		else
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
		const struct dd_field f[] = {
			{ "version: ", "version", t.version },
			{ " producerId: ", "producer_id", t.producer_id },
			{ " firstOffset: ", "first_offset", t.first_offset },
			{ " lastOffset: ", "last_offset", t.last_offset },
			{ " lastStableOffset: ", "last_stable_offset", t.last_stable_offset },
		};
		d->entries++;
		if (d->opts.fmt != SS_DUMP_TEXT)
			dd_item(d, "aborted_txn");
		dd_fields(d, f, sizeof(f) / sizeof(f[0]));
		if (d->opts.fmt == SS_DUMP_TEXT)
			ss_dout_ch(o, '\n');
		else
			dd_item_end(d);
	}
	if (len % SS_TXNIDX_ENTRY)
		dd_error(d, (int64_t)(len - len % SS_TXNIDX_ENTRY), "%zu trailing bytes, not a whole entry",
			 len % SS_TXNIDX_ENTRY);
}
