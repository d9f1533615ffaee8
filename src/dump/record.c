/*
 * The records of a batch as DumpLogSegments prints them with --deep-iteration (dumpLog's
 * "| offset: ..." lines) or as JSON items: v2 records through fmt/batch.h's iterator, legacy
 * (magic 0/1) entries decompressed here; control records decoded (COMMIT/ABORT markers,
 * the KRaft control records of fmt/kraft_control.h); --decode's value decoders (decode.c).
 */
#include <limits.h>
#include <stdlib.h>

#include "common/endian.h"
#include "dump/dump_int.h"
#include "fmt/codec.h"
#include "fmt/kraft.h"
#include "fmt/kraft_control.h"
#include "segscan.h"

static const char *const control_names[] = { "ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER",
					      "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS" };

struct rec_ctx {
	struct ss_dump *d;
	int64_t         pos;       /* the batch's */
	enum ss_dump_decode dec;
};

/* What a record is, beyond its bytes: its sequence and, in a control batch, its type. */
struct rec_facts {
	int32_t        seq;
	bool           control;
	int            ctype;          /* ControlRecordType; -1 none or unreadable */
	const char    *cname;
	bool           marker;         /* COMMIT/ABORT with an EndTransactionMarker value */
	int32_t        coord_epoch;
	bool           kc_ok;          /* kc holds a KRaft control record's value */
	struct ss_kctl kc;
};

static void record_facts(struct rec_ctx *c, const struct ss_batch_hdr *h, const struct ss_record *r,
			 struct rec_facts *f)
{
	struct ss_dump *d = c->d;
	f->control = h->attributes & SS_ATTR_CONTROL;
	f->seq = -1;
	if (h->base_sequence >= 0) {   /* DefaultRecordBatch: baseSequence + offsetDelta, wrapping */
		int64_t s = (int64_t)h->base_sequence + (r->offset - h->base_offset);
		f->seq = s > INT32_MAX ? (int32_t)(s - INT32_MAX - 1) : (int32_t)s;
	}
	/* control records: key int16 version, int16 type (ControlRecordType); COMMIT/ABORT
	 * values are EndTransactionMarker: int16 version, int32 coordinator epoch */
	f->ctype = -1;
	f->coord_epoch = -1;
	f->marker = false;
	if (f->control && r->key_len >= 4) {
		f->ctype = ss_be16s(r->key + 2);
		if ((f->ctype == 0 || f->ctype == 1) && r->value_len >= 6) {
			f->marker = true;
			f->coord_epoch = ss_be32s(r->value + 2);
		}
	}
	f->cname = f->ctype >= 0 && f->ctype < 7 ? control_names[f->ctype] : "UNKNOWN";
	if (f->control && f->ctype < 0)
		dd_error(d, c->pos, "control record at offset %lld has no valid type key", (long long)r->offset);
	/* KRaft's control records (LeaderChange, SnapshotHeader/Footer, KRaftVersion, Voters):
	 * their values decoded, as DumpLogSegments.printControlRecord prints them */
	f->kc_ok = false;
	if (f->control && ss_kctl_known(f->ctype)) {
		int e = r->value_len < 0 ? SEGSCAN_ESCHEMA
					 : ss_kctl_decode(f->ctype, r->value, (size_t)r->value_len, &f->kc);
		if (e)
			dd_error(d, c->pos, "%s control record at offset %lld: %s", ss_kctl_name(f->ctype),
				 (long long)r->offset, segscan_strerror(e));
		f->kc_ok = e == 0;
	}
}

/* DumpLogSegments.dumpLog, deep iteration: "| offset: ..." */
static void record_text(struct rec_ctx *c, const struct ss_batch_hdr *h, const struct ss_record *r,
			const struct rec_facts *f)
{
	struct ss_dump *d = c->d;
	struct ss_dout *o = &d->out;
	ss_dout_str(o, "| offset: "); ss_dout_i64(o, r->offset);
	ss_dout_ch(o, ' '); ss_dout_str(o, dd_ts_type(h)); ss_dout_str(o, ": "); ss_dout_i64(o, r->timestamp);
	ss_dout_str(o, " keySize: "); ss_dout_i64(o, r->key_len);
	ss_dout_str(o, " valueSize: "); ss_dout_i64(o, r->value_len);
	ss_dout_str(o, " sequence: "); ss_dout_i64(o, f->seq);
	ss_dout_str(o, " headerKeys: [");
	const uint8_t *hp = r->headers, *hk, *hv;
	int32_t hkl, hvl;
	bool first = true;
	while (r->headers && ss_record_header_next(&hp, r->headers_end, &hk, &hkl, &hv, &hvl) > 0) {
		if (!first)
			ss_dout_ch(o, ',');
		first = false;
		dd_text(d, hk, (size_t)hkl);
	}
	ss_dout_ch(o, ']');
	if (f->marker) {
		ss_dout_str(o, " endTxnMarker: "); ss_dout_str(o, f->cname);
		ss_dout_str(o, " coordinatorEpoch: "); ss_dout_i64(o, f->coord_epoch);
	} else if (f->kc_ok) {
		/* " LeaderChange: {...}", " SnapshotHeader {...}": Kafka's words, colon and all */
		ss_dout_ch(o, ' ');
		ss_dout_str(o, ss_kctl_name(f->ctype));
		ss_dout_str(o, f->ctype == SS_KC_LEADER_CHANGE ? ": " : " ");
		ss_dj_reset(o);
		dd_control_json(d, &f->kc);
	} else if (f->control) {
		ss_dout_str(o, " controlType: "); ss_dout_str(o, f->cname);
		ss_dout_ch(o, '('); ss_dout_i64(o, f->ctype); ss_dout_ch(o, ')');
	}
	if (!f->control && c->dec != SS_DEC_NONE) {
		dd_decode_text(d, c->dec, r);
	} else if (!f->control && d->opts.print_data) {
		if (r->key_len >= 0)
			dd_text_data(d, "key", r->key, r->key_len);
		dd_text_data(d, "payload", r->value, r->value_len);
	}
	ss_dout_ch(o, '\n');
}

/* The same as a JSON item of type "record". */
static void record_json(struct rec_ctx *c, const struct ss_record *r, const struct rec_facts *f)
{
	struct ss_dump *d = c->d;
	struct ss_dout *o = &d->out;
	dd_item(d, "record");
	ss_dj_ki64(o, "offset", r->offset);
	ss_dj_ki64(o, "timestamp_ms", r->timestamp);
	ss_dj_ki64(o, "key_size", r->key_len);
	ss_dj_ki64(o, "value_size", r->value_len);
	ss_dj_ki64(o, "sequence", f->seq);
	ss_dj_key(o, "headers");
	ss_dj_arr(o);
	const uint8_t *hp = r->headers, *hk, *hv;
	int32_t hkl, hvl;
	while (r->headers && ss_record_header_next(&hp, r->headers_end, &hk, &hkl, &hv, &hvl) > 0) {
		ss_dj_obj(o);
		ss_dj_key(o, "key");
		dd_strn(o, hk, hkl);
		ss_dj_ki64(o, "value_size", hvl);
		if (d->opts.print_data)
			dd_data_field(d, "value", hv, hvl);
		ss_dj_obj_end(o);
	}
	ss_dj_arr_end(o);
	if (f->control) {
		ss_dj_key(o, "control");
		ss_dj_obj(o);
		ss_dj_kstr(o, "type", f->cname);
		ss_dj_ki64(o, "type_id", f->ctype);
		if (f->marker)
			ss_dj_ki64(o, "coordinator_epoch", f->coord_epoch);
		if (f->kc_ok) {
			ss_dj_key(o, "data");
			dd_control_json(d, &f->kc);
		}
		ss_dj_obj_end(o);
	}
	if (!f->control && c->dec != SS_DEC_NONE) {
		ss_dj_key(o, "decoded");
		dd_decode_json(d, c->dec, r);
	}
	if (d->opts.print_data || (f->control && !f->marker)) {
		dd_data_field(d, "key", r->key, r->key_len);
		dd_data_field(d, "value", r->value, r->value_len);
	}
	dd_item_end(d);
}

static int on_record(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	struct rec_ctx *c = arg;
	const struct ss_dump_opts *op = &c->d->opts;
	if ((op->has_from && r->offset < op->from) || (op->has_to && r->offset > op->to))
		return 0;
	c->d->records++;
	struct rec_facts f;
	record_facts(c, h, r, &f);
	if (op->fmt == SS_DUMP_TEXT)
		record_text(c, h, r, &f);
	else
		record_json(c, r, &f);
	return 0;
}

/*
 * Records of a legacy (magic 0/1) entry, as LegacyRecord / AbstractLegacyRecordBatch read
 * them (docs/kafka-format.md §2.5): an uncompressed entry is one record; a compressed
 * wrapper's value is a compressed run of inner entries (offsets absolute in v0, relative
 * to the wrapper's last offset in v1; a LogAppendTime wrapper's timestamp is every inner
 * record's). Returns 0 or a negative error.
 */
static int legacy_one(const uint8_t *e, int64_t n, struct ss_record *r, uint8_t *magic, uint8_t *attrs)
{
	/* offset 8, size 4, crc 4, magic 1, attributes 1, [timestamp 8], key, value */
	if (n < SS_LOG_OVERHEAD + SS_LEGACY_MIN_V0)
		return SEGSCAN_ECORRUPT;
	*magic = e[16];
	*attrs = e[17];
	if (*magic > 1)
		return SEGSCAN_EMAGIC;
	int64_t q = 18;
	r->offset = ss_be64s(e);
	r->timestamp = -1;
	if (*magic == 1) {
		if (n < SS_LOG_OVERHEAD + SS_LEGACY_MIN_V1)
			return SEGSCAN_ECORRUPT;
		r->timestamp = ss_be64s(e + q);
		q += 8;
	}
	for (int k = 0; k < 2; k++) {
		if (q + 4 > n)
			return SEGSCAN_ECORRUPT;
		int32_t l = ss_be32s(e + q);
		q += 4;
		if (l >= 0 && l > n - q)
			return SEGSCAN_ECORRUPT;
		if (k == 0) { r->key = l >= 0 ? e + q : NULL; r->key_len = l < 0 ? -1 : l; }
		else { r->value = l >= 0 ? e + q : NULL; r->value_len = l < 0 ? -1 : l; }
		if (l > 0)
			q += l;
	}
	r->header_count = 0;
	r->headers = r->headers_end = NULL;
	return 0;
}

static int legacy_records(const uint8_t *buf, const struct ss_batch_hdr *h, struct rec_ctx *c)
{
	struct ss_record r;
	uint8_t magic, attrs;
	int rc = legacy_one(buf, h->size, &r, &magic, &attrs);
	if (rc)
		return rc;
	int codec = attrs & SS_ATTR_CODEC_MASK;
	if (codec == SS_CODEC_NONE)
		return on_record(c, h, &r);
	if (codec > SS_CODEC_ZSTD || r.value_len < 0)
		return SEGSCAN_ECODEC;
	uint8_t *plain = NULL;
	size_t plen = 0;
	if ((rc = ss_codec_decompress((enum ss_codec)codec, r.value, (size_t)r.value_len, &plain, &plen,
				      (size_t)256 << 20)))
		return rc;
	/* v1: inner offsets are relative; the wrapper's offset is the last inner one's */
	int64_t last_rel = 0;
	for (size_t q = 0; magic == 1 && q + SS_LOG_OVERHEAD <= plen;) {
		int64_t sz = (int64_t)ss_be32s(plain + q + 8) + SS_LOG_OVERHEAD;
		if (sz < SS_LOG_OVERHEAD || (uint64_t)sz > plen - q)
			break;
		last_rel = ss_be64s(plain + q);
		q += (size_t)sz;
	}
	int64_t wrapper_off = h->last_offset, wrapper_ts = r.timestamp;
	for (size_t q = 0; q < plen && rc == 0;) {
		if (plen - q < SS_LOG_OVERHEAD) {
			rc = SEGSCAN_ECORRUPT;
			break;
		}
		int64_t sz = (int64_t)ss_be32s(plain + q + 8) + SS_LOG_OVERHEAD;
		if (sz < SS_LOG_OVERHEAD || (uint64_t)sz > plen - q) {
			rc = SEGSCAN_ECORRUPT;
			break;
		}
		struct ss_record in;
		uint8_t im, ia;
		if ((rc = legacy_one(plain + q, sz, &in, &im, &ia)))
			break;
		if (magic == 1) {
			in.offset = wrapper_off - last_rel + in.offset;
			if (attrs & SS_ATTR_LOG_APPEND)
				in.timestamp = wrapper_ts;
		}
		rc = on_record(c, h, &in);
		q += (size_t)sz;
	}
	free(plain);   /* pairs with ss_codec_decompress */
	return rc;
}

int dd_records(struct ss_dump *d, const uint8_t *batch, const struct ss_batch_hdr *h, int64_t pos,
	       enum ss_dump_decode dec)
{
	struct rec_ctx c = { d, pos, dec };
	return h->magic == 2 ? ss_batch_foreach_record(batch, h, on_record, &c) : legacy_records(batch, h, &c);
}
