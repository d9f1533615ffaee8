/*
 * Producer state files of a partition directory: the producer snapshot
 * (<offset>.snapshot, storage/src/main/resources/message/ProducerSnapshot.json read by
 * storage/.../log/ProducerStateManager.java readSnapshot) and the aborted-transaction index
 * (<offset>.txnindex, storage/.../log/TransactionIndex.java, AbortedTxn.java). Pure.
 *
 * Snapshot: int16 version (1), uint32 CRC-32C of every byte after the CRC, int32 count,
 * then per producer int64 id, int16 epoch, int32 last sequence, int64 last offset, int32
 * offset delta, int64 timestamp, int32 coordinator epoch, int64 current txn first offset
 * (-1 none): 46 bytes.
 * Txn index: 34-byte entries: int16 version (0), int64 producer id, int64 first offset,
 * int64 last offset, int64 last stable offset.
 */
#ifndef SS_FMT_PRODUCER_SNAPSHOT_H
#define SS_FMT_PRODUCER_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SS_PSNAP_HEADER 10   /* version + crc + count */
#define SS_PSNAP_ENTRY  46
#define SS_TXNIDX_ENTRY 34

struct ss_pid_entry {
	int64_t producer_id;
	int16_t epoch;
	int32_t last_seq;
	int64_t last_offset;        /* < 0: no batch metadata (Kafka prints none) */
	int32_t offset_delta;
	int64_t timestamp;
	int32_t coordinator_epoch;
	int64_t txn_first_offset;   /* < 0: none (OptionalLong.empty) */
};

struct ss_psnap {
	int16_t  version;
	uint32_t crc;               /* stored */
	uint32_t crc_computed;
	int32_t  count;             /* entries in the file */
	const uint8_t *entries;     /* count * SS_PSNAP_ENTRY bytes, into the input */
};

/* 0, or SEGSCAN_ETRUNC (shorter than its count says), SEGSCAN_ESCHEMA (version != 1,
 * negative count, bytes after the entries), SEGSCAN_ECRC (CRC mismatch: *s is still filled
 * so the entries can be shown). */
int ss_psnap_parse(const uint8_t *buf, size_t len, struct ss_psnap *s);
/* Entry i (0 <= i < s->count). */
struct ss_pid_entry ss_psnap_entry(const struct ss_psnap *s, int32_t i);
/* ProducerStateEntry.firstSeq: DefaultRecordBatch.decrementSequence(lastSeq, offsetDelta). */
int32_t ss_psnap_first_seq(const struct ss_pid_entry *e);

struct ss_aborted_txn {
	int16_t version;
	int64_t producer_id, first_offset, last_offset, last_stable_offset;
};
/* Entry i of a txn index: the caller bounds i by len / SS_TXNIDX_ENTRY. 0, or
 * SEGSCAN_ESCHEMA for a version other than 0 (TransactionIndex refuses it). */
int ss_txnidx_entry(const uint8_t *buf, size_t len, size_t i, struct ss_aborted_txn *out);

#endif
