/*
 * __remote_log_metadata value decoder. Layout in docs/kafka-format.md §6.2-6.4; what a
 * version 1 record adds (tagged fields only) in §6.4 (later releases).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/endian.h"
#include "fmt/rlmm.h"
#include "segscan.h"

struct rd {
	const uint8_t *p;
	size_t         n;
	int            err;       /* first error, sticky */
	uint32_t       unknown_tags;
};

static void rd_fail(struct rd *r, int e)
{
	if (!r->err)
		r->err = e;
	r->n = 0;
}

static bool rd_need(struct rd *r, size_t k)
{
	if (r->err)
		return false;
	if (r->n < k) {
		rd_fail(r, SEGSCAN_ETRUNC);
		return false;
	}
	return true;
}

/* ByteUtils.readUnsignedVarint: at most 5 bytes. */
static uint32_t rd_uvarint(struct rd *r)
{
	uint32_t v = 0;
	for (int i = 0; i < 5; i++) {
		if (!rd_need(r, 1))
			return 0;
		uint8_t b = *r->p++;
		r->n--;
		if (i == 4 && (b & 0xf0)) {
			rd_fail(r, SEGSCAN_EVARINT);
			return 0;
		}
		v |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	rd_fail(r, SEGSCAN_EVARINT);
	return 0;
}

static uint64_t rd_be(struct rd *r, size_t k)
{
	if (!rd_need(r, k))
		return 0;
	uint64_t v = k == 1 ? r->p[0] : k == 2 ? ss_be16(r->p) : k == 4 ? ss_be32(r->p) : ss_be64(r->p);
	r->p += k;
	r->n -= k;
	return v;
}

static int8_t rd_i8(struct rd *r) { return (int8_t)(uint8_t)rd_be(r, 1); }
static int32_t rd_i32(struct rd *r) { return (int32_t)(uint32_t)rd_be(r, 4); }
static int64_t rd_i64(struct rd *r) { return (int64_t)rd_be(r, 8); }

static void rd_uuid(struct rd *r, uint8_t out[16])
{
	if (!rd_need(r, 16)) {
		memset(out, 0, 16);
		return;
	}
	memcpy(out, r->p, 16);
	r->p += 16;
	r->n -= 16;
}

/* compact (nullable) string or bytes: uvarint N+1, 0 = null */
static const uint8_t *rd_compact(struct rd *r, bool nullable, uint32_t *len, bool *is_null)
{
	uint32_t n1 = rd_uvarint(r);
	*len = 0;
	if (is_null)
		*is_null = false;
	if (r->err)
		return NULL;
	if (n1 == 0) {
		if (!nullable)
			rd_fail(r, SEGSCAN_ESCHEMA);
		else if (is_null)
			*is_null = true;
		return NULL;
	}
	if (n1 - 1 > INT32_MAX) {   /* Java reads a negative length: invalid */
		rd_fail(r, SEGSCAN_ESCHEMA);
		return NULL;
	}
	if (!rd_need(r, n1 - 1))
		return NULL;
	const uint8_t *p = r->p;
	*len = n1 - 1;
	r->p += n1 - 1;
	r->n -= n1 - 1;
	return p;
}

/*
 * A struct's tagged-field section. `known` handles a tag it knows (reading exactly
 * `size` bytes from a sub-reader) and returns false for tags it does not know, which
 * are skipped by size.
 */
typedef bool (*tag_fn)(struct rd *sub, uint32_t tag, uint32_t size, void *arg);

static void rd_tags(struct rd *r, tag_fn known, void *arg)
{
	uint32_t count = rd_uvarint(r);
	for (uint32_t i = 0; i < count && !r->err; i++) {
		uint32_t tag = rd_uvarint(r);
		uint32_t size = rd_uvarint(r);
		if (r->err || !rd_need(r, size))
			return;
		struct rd sub = { .p = r->p, .n = size };
		if (known && known(&sub, tag, size, arg)) {
			if (sub.err || sub.n) {
				rd_fail(r, sub.err && sub.err != SEGSCAN_ETRUNC ? sub.err : SEGSCAN_ESCHEMA);
				return;
			}
		} else {
			r->unknown_tags++;
		}
		r->p += size;
		r->n -= size;
	}
}

/* TopicIdPartitionEntry: Name, Id, Partition, tags */
static void rd_tip(struct rd *r, struct ss_remote_event *ev)
{
	uint32_t len;
	const uint8_t *name = rd_compact(r, false, &len, NULL);
	ev->topic = (const char *)name;
	ev->topic_len = len;
	rd_uuid(r, ev->topic_id);
	ev->has_topic_id = true;
	ev->partition = rd_i32(r);
	rd_tags(r, NULL, NULL);
}

/* RemoteLogSegmentIdEntry: TopicIdPartition, Id, tags */
static void rd_segid(struct rd *r, struct ss_rlmm_rec *o)
{
	rd_tip(r, &o->ev);
	rd_uuid(r, o->ev.id_bytes);
	o->ev.has_id_bytes = true;
	rd_tags(r, NULL, NULL);
}

static void rd_epochs(struct rd *r, struct ss_rlmm_rec *o)
{
	uint32_t n1 = rd_uvarint(r);
	if (r->err)
		return;
	if (n1 == 0) {   /* a null array for a non-nullable field */
		rd_fail(r, SEGSCAN_ESCHEMA);
		return;
	}
	uint32_t n = n1 - 1;
	/* each element is at least 4 + 8 + 1 bytes: refuse counts the input cannot hold */
	if ((uint64_t)n * 13 > r->n) {
		rd_fail(r, SEGSCAN_ETRUNC);
		return;
	}
	if (n && !(o->epochs = malloc((size_t)n * sizeof(*o->epochs)))) {
		rd_fail(r, -ENOMEM);
		return;
	}
	for (uint32_t i = 0; i < n && !r->err; i++) {
		o->epochs[i].epoch = rd_i32(r);
		o->epochs[i].start_offset = rd_i64(r);
		rd_tags(r, NULL, NULL);
	}
	o->ev.epochs = o->epochs;
	o->ev.n_epochs = n;
}

static void rd_custom(struct rd *r, struct ss_rlmm_rec *o)
{
	bool is_null;
	uint32_t len;
	rd_compact(r, true, &len, &is_null);
	o->has_custom_metadata = !r->err && !is_null;
	o->custom_metadata_len = len;
}

static void rd_seg_state(struct rd *r, struct ss_rlmm_rec *o)
{
	int8_t st = rd_i8(r);
	if (!r->err && (st < 0 || st >= SS_RSEG_NSTATES))
		rd_fail(r, SEGSCAN_ESCHEMA);
	o->ev.state = st;
}

/* tags of RemoteLogSegmentMetadataRecord / SnapshotRecord: 0 TxnIndexEmpty, 1 BrokerLeaderEpoch (v1+) */
static bool seg_tags(struct rd *sub, uint32_t tag, uint32_t size, void *arg)
{
	struct ss_rlmm_rec *o = arg;
	if (tag == 0) {
		if (size != 1)
			rd_fail(sub, SEGSCAN_ESCHEMA);
		o->has_txn_index_empty = true;
		o->txn_index_empty = rd_i8(sub) != 0;
		return true;
	}
	if (tag == 1 && o->version >= 1) {
		if (size != 4)
			rd_fail(sub, SEGSCAN_ESCHEMA);
		o->broker_leader_epoch = rd_i32(sub);
		return true;
	}
	return false;
}

/* tags of RemoteLogSegmentMetadataUpdateRecord v1+: 0 BrokerLeaderEpoch, 1 EndOffset */
static bool update_tags(struct rd *sub, uint32_t tag, uint32_t size, void *arg)
{
	struct ss_rlmm_rec *o = arg;
	if (o->version < 1)
		return false;
	if (tag == 0) {
		if (size != 4)
			rd_fail(sub, SEGSCAN_ESCHEMA);
		o->broker_leader_epoch = rd_i32(sub);
		return true;
	}
	if (tag == 1) {
		if (size != 8)
			rd_fail(sub, SEGSCAN_ESCHEMA);
		o->update_end_offset = rd_i64(sub);
		return true;
	}
	return false;
}

void ss_rlmm_rec_free(struct ss_rlmm_rec *r)
{
	if (!r)
		return;
	free(r->epochs);
	r->epochs = NULL;
	r->ev.epochs = NULL;
	r->ev.n_epochs = 0;
}

/* The fields RemoteLogSegmentMetadataRecord and its snapshot record share after the
 * segment id, in schema order (docs/kafka-format.md §6.4). */
static void rd_segment_body(struct rd *r, struct ss_rlmm_rec *o)
{
	o->ev.start_offset = rd_i64(r);
	o->ev.end_offset = rd_i64(r);
	o->ev.broker_id = rd_i32(r);
	o->ev.max_timestamp_ms = rd_i64(r);
	o->ev.event_timestamp_ms = rd_i64(r);
	rd_epochs(r, o);
	o->ev.size_bytes = rd_i32(r);
	rd_custom(r, o);
	rd_seg_state(r, o);
	rd_tags(r, seg_tags, o);
}

int ss_rlmm_decode(const uint8_t *buf, size_t len, struct ss_rlmm_rec *o)
{
	struct rd r = { .p = buf, .n = len };

	memset(o, 0, sizeof(*o));
	o->broker_leader_epoch = -1;
	o->update_end_offset = -1;
	o->ev.broker_id = -1;
	if (!buf && len)
		return -EINVAL;

	uint32_t frame = rd_uvarint(&r);
	if (r.err)
		return r.err;
	if (frame != 1)
		return SEGSCAN_ESCHEMA;
	uint32_t api = rd_uvarint(&r);
	uint32_t ver = rd_uvarint(&r);
	if (r.err)
		return r.err;
	if (api > SS_RLMM_SEGMENT_SNAPSHOT)
		return SEGSCAN_ESCHEMA;
	/* segment records: versions 0-1; partition delete: 0 (a newer one may add tags only,
	 * but a version we do not know could also change the body: refuse) */
	if (ver > (api == SS_RLMM_PARTITION_DELETE ? 0u : 1u))
		return SEGSCAN_ESCHEMA;
	o->api_key = (int)api;
	o->version = (int)ver;

	switch (api) {
	case SS_RLMM_SEGMENT:
		o->ev.type = SS_REV_SEGMENT;
		rd_segid(&r, o);
		rd_segment_body(&r, o);
		break;
	case SS_RLMM_SEGMENT_UPDATE:
		o->ev.type = SS_REV_UPDATE;
		rd_segid(&r, o);
		o->ev.broker_id = rd_i32(&r);
		o->ev.event_timestamp_ms = rd_i64(&r);
		rd_custom(&r, o);
		rd_seg_state(&r, o);
		rd_tags(&r, update_tags, o);
		break;
	case SS_RLMM_PARTITION_DELETE:
		o->ev.type = SS_REV_PARTITION_DELETE;
		rd_tip(&r, &o->ev);
		o->ev.broker_id = rd_i32(&r);
		o->ev.event_timestamp_ms = rd_i64(&r);
		o->ev.state = rd_i8(&r);
		if (!r.err && (o->ev.state < 0 || o->ev.state > SS_RPART_DELETE_FINISHED))
			rd_fail(&r, SEGSCAN_ESCHEMA);
		rd_tags(&r, NULL, NULL);
		break;
	case SS_RLMM_SEGMENT_SNAPSHOT:
		o->ev.type = SS_REV_SNAPSHOT;
		rd_uuid(&r, o->ev.id_bytes);
		o->ev.has_id_bytes = true;
		rd_segment_body(&r, o);
		break;
	}
	o->unknown_tags = r.unknown_tags;
	if (!r.err && r.n)
		r.err = SEGSCAN_ESCHEMA;   /* "Found N byte(s) of garbage" */
	if (r.err) {
		int e = r.err;
		ss_rlmm_rec_free(o);
		return e;
	}
	if (o->ev.has_id_bytes) {
		ss_uuid_format(o->ev.id_bytes, o->segment_id);
		o->ev.segment_id = o->segment_id;
		o->ev.segment_id_len = 22;
	}
	return 0;
}

uint32_t ss_murmur2(const void *data, size_t len)
{
	const uint8_t *d = data;
	const uint32_t m = 0x5bd1e995;
	uint32_t h = 0x9747b28c ^ (uint32_t)len;
	size_t n4 = len / 4;

	for (size_t i = 0; i < n4; i++) {
		uint32_t k = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 | (uint32_t)d[4 * i + 2] << 16 |
			     (uint32_t)d[4 * i + 3] << 24;
		k *= m;
		k ^= k >> 24;
		k *= m;
		h *= m;
		h ^= k;
	}
	size_t t = len & ~(size_t)3;
	switch (len % 4) {
	case 3:
		h ^= (uint32_t)d[t + 2] << 16;
		/* fall through */
	case 2:
		h ^= (uint32_t)d[t + 1] << 8;
		/* fall through */
	case 1:
		h ^= d[t];
		h *= m;
	}
	h ^= h >> 13;
	h *= m;
	h ^= h >> 15;
	return h;
}

static uint32_t long_hash(uint64_t v)
{
	return (uint32_t)(v ^ (v >> 32));
}

int32_t ss_rlmm_metadata_partition(const uint8_t topic_id[16], int32_t partition, int32_t num_partitions)
{
	uint64_t msb = ss_be64(topic_id), lsb = ss_be64(topic_id + 8);   /* Uuid's two longs */
	/* Objects.hash(lsb, msb, partition): int arithmetic, wrapping */
	uint32_t h = 1;
	h = 31 * h + long_hash(lsb);
	h = 31 * h + long_hash(msb);
	h = 31 * h + (uint32_t)partition;
	uint8_t b[4] = { (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h };
	if (num_partitions <= 0)
		return -1;
	return (int32_t)((ss_murmur2(b, 4) & 0x7fffffff) % (uint32_t)num_partitions);
}
