/*
 * __transaction_state records (transaction-coordinator/src/main/resources/common/message/
 * TransactionLogKey.json, TransactionLogValue.json; framing as core/.../coordinator/
 * transaction/TransactionLog.scala: key = int16 version 0 + TransactionalId, value = int16
 * version (0, or 1 = flexible with tagged PreviousProducerId, NextProducerId,
 * ClientTransactionVersion) + the struct; null value = tombstone). Pure: no I/O.
 */
#ifndef SS_FMT_TXN_STATE_H
#define SS_FMT_TXN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/kmsg.h"

struct ss_txn_key {
	int16_t          version;
	bool             known;           /* version 0 */
	struct ss_kbytes transactional_id;
};

struct ss_txn_topic {
	struct ss_kbytes topic;
	int32_t          n_partitions;
	const uint8_t   *partitions;      /* n_partitions big-endian int32, into the input */
};

struct ss_txn_value {
	int16_t  version;
	int64_t  producer_id;
	int64_t  previous_producer_id;    /* tag 0, default -1 */
	int64_t  next_producer_id;        /* tag 1, default -1 */
	int16_t  producer_epoch;
	int32_t  timeout_ms;
	int8_t   status;                  /* TransactionState id, ss_txn_status_name */
	int32_t  n_topics;                /* -1: null */
	struct ss_txn_topic *topics;      /* malloc'd: ss_txn_value_free */
	int64_t  last_update_timestamp_ms;
	int64_t  start_timestamp_ms;
	int16_t  client_txn_version;      /* tag 2, default 0 */
	uint32_t unknown_tags;
};

/* 0 or SEGSCAN_ETRUNC / SEGSCAN_ESCHEMA; a key version other than 0 is 0 with known = false
 * (TransactionLog's UnknownKey). */
int ss_txn_decode_key(const uint8_t *buf, size_t len, struct ss_txn_key *k);
/* SEGSCAN_ESCHEMA for a version above 1; -ENOMEM. Call ss_txn_value_free after either. */
int ss_txn_decode_value(const uint8_t *buf, size_t len, struct ss_txn_value *v);
void ss_txn_value_free(struct ss_txn_value *v);
/* TransactionState.java names: "Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
 * "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"; NULL when unknown. */
const char *ss_txn_status_name(int status);

#endif
