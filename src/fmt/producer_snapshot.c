/* Producer snapshot and txn index decoding: see fmt/producer_snapshot.h. */
#include <string.h>

#include "common/endian.h"
#include "fmt/crc32c.h"
#include "fmt/producer_snapshot.h"
#include "segscan.h"

int ss_psnap_parse(const uint8_t *buf, size_t len, struct ss_psnap *s)
{
	memset(s, 0, sizeof *s);
	if (len < SS_PSNAP_HEADER)
		return SEGSCAN_ETRUNC;
	s->version = ss_be16s(buf);
	if (s->version != 1)   /* ProducerSnapshot.json validVersions "1" */
		return SEGSCAN_ESCHEMA;
	s->crc = ss_be32(buf + 2);
	/* ProducerStateManager.PRODUCER_ENTRIES_OFFSET = 6: the CRC covers the count too */
	s->crc_computed = ss_crc32c(0, buf + 6, len - 6);
	s->count = ss_be32s(buf + 6);
	if (s->count < 0)
		return SEGSCAN_ESCHEMA;
	if ((uint64_t)s->count > (len - SS_PSNAP_HEADER) / SS_PSNAP_ENTRY) {
		s->count = (int32_t)((len - SS_PSNAP_HEADER) / SS_PSNAP_ENTRY);
		s->entries = buf + SS_PSNAP_HEADER;
		return SEGSCAN_ETRUNC;
	}
	s->entries = buf + SS_PSNAP_HEADER;
	if (len != SS_PSNAP_HEADER + (size_t)s->count * SS_PSNAP_ENTRY)
		return SEGSCAN_ESCHEMA;
	return s->crc == s->crc_computed ? 0 : SEGSCAN_ECRC;
}

struct ss_pid_entry ss_psnap_entry(const struct ss_psnap *s, int32_t i)
{
	const uint8_t *p = s->entries + (size_t)i * SS_PSNAP_ENTRY;
	struct ss_pid_entry e;
	e.producer_id = ss_be64s(p);
	e.epoch = ss_be16s(p + 8);
	e.last_seq = ss_be32s(p + 10);
	e.last_offset = ss_be64s(p + 14);
	e.offset_delta = ss_be32s(p + 22);
	e.timestamp = ss_be64s(p + 26);
	e.coordinator_epoch = ss_be32s(p + 34);
	e.txn_first_offset = ss_be64s(p + 38);
	return e;
}

int32_t ss_psnap_first_seq(const struct ss_pid_entry *e)
{
	/* DefaultRecordBatch.decrementSequence: sequences wrap at Integer.MAX_VALUE; the file
	 * may hold any ints, so compute in 64 bits and wrap to 32 as Java's int does */
	int64_t r;
	if (e->last_seq < e->offset_delta)
		r = (int64_t)INT32_MAX - ((int64_t)e->offset_delta - e->last_seq) + 1;
	else
		r = (int64_t)e->last_seq - e->offset_delta;
	return (int32_t)(uint32_t)(uint64_t)r;
}

int ss_txnidx_entry(const uint8_t *buf, size_t len, size_t i, struct ss_aborted_txn *out)
{
	if ((i + 1) * SS_TXNIDX_ENTRY > len)
		return SEGSCAN_ETRUNC;
	const uint8_t *p = buf + i * SS_TXNIDX_ENTRY;
	out->version = ss_be16s(p);
	out->producer_id = ss_be64s(p + 2);
	out->first_offset = ss_be64s(p + 10);
	out->last_offset = ss_be64s(p + 18);
	out->last_stable_offset = ss_be64s(p + 26);
	/* AbortedTxn.CURRENT_VERSION = 0; TransactionIndex throws on anything else */
	return out->version == 0 ? 0 : SEGSCAN_ESCHEMA;
}
