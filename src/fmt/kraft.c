/*
 * KRaft metadata record decoder (see kraft.h). Schemas, each read field by field:
 *   metadata/src/main/resources/common/metadata/TopicRecord.json            (key 2, v0)
 *   metadata/src/main/resources/common/metadata/RemoveTopicRecord.json      (key 9, v0)
 *   metadata/src/main/resources/common/metadata/PartitionRecord.json        (key 3, v0-2)
 *   metadata/src/main/resources/common/metadata/PartitionChangeRecord.json  (key 5, v0-2)
 *   metadata/src/main/resources/common/metadata/ConfigRecord.json           (key 4, v0)
 *   metadata/src/main/resources/common/metadata/RegisterBrokerRecord.json   (key 0, v0-3;
 *       v4 from the 4.4.0 jar: tagged CordonedLogDirs, tag 1, nullable []uuid)
 *   metadata/src/main/resources/common/metadata/UnregisterBrokerRecord.json (key 1, v0)
 *   metadata/src/main/resources/common/metadata/BrokerRegistrationChangeRecord.json (key 17,
 *       v0-2; v3 from the 4.4.0 jar: tagged CordonedLogDirs, tag 3, nullable []uuid)
 *   metadata/src/main/resources/common/metadata/FenceBrokerRecord.json      (key 7, v0)
 *   metadata/src/main/resources/common/metadata/UnfenceBrokerRecord.json    (key 8, v0)
 *   metadata/src/main/resources/common/metadata/FeatureLevelRecord.json     (key 12, v0)
 *   metadata/src/main/resources/common/metadata/BeginTransactionRecord.json (key 23, v0)
 *   metadata/src/main/resources/common/metadata/EndTransactionRecord.json   (key 24, v0)
 *   metadata/src/main/resources/common/metadata/AbortTransactionRecord.json (key 25, v0)
 *   metadata/src/main/resources/common/metadata/NoOpRecord.json             (key 20, v0)
 * Frame: server-common/src/main/java/org/apache/kafka/server/common/serialization/
 * AbstractApiMessageSerde.java (read). Primitive encodings: clients/.../utils/ByteUtils.java
 * (readUnsignedVarint) and the generated read() methods (compact length - 1, null = -1,
 * a bool is any non-zero byte, unknown tags are skipped by their size).
 *
 * A tagged field the schema defines only from a later version than the record's is
 * treated as unknown and skipped, as the generated code does.
 */
#include <string.h>

#include "common/endian.h"
#include "fmt/kraft.h"
#include "segscan.h"

struct kr {
	const uint8_t *p;
	const uint8_t *end;
};

static inline size_t left(const struct kr *r)
{
	return (size_t)(r->end - r->p);
}

/* ByteUtils.readUnsignedVarint, at most 5 bytes. Unlike Java (which keeps the low 32
 * bits), a value beyond INT32_MAX is refused: no field of these schemas can hold one,
 * and a length that wraps to negative would otherwise pass for null. */
static int rd_uvarint(struct kr *r, uint32_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < 5; i++) {
		if (r->p >= r->end)
			return SEGSCAN_ETRUNC;
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (v > INT32_MAX)
				return SEGSCAN_EVARINT;
			*out = (uint32_t)v;
			return 0;
		}
	}
	return SEGSCAN_EVARINT;
}

static int rd_i8(struct kr *r, int8_t *v)
{
	if (left(r) < 1)
		return SEGSCAN_ETRUNC;
	*v = (int8_t)*r->p++;
	return 0;
}

static int rd_bool(struct kr *r, bool *v)
{
	int8_t b;
	int rc = rd_i8(r, &b);
	if (!rc)
		*v = b != 0;
	return rc;
}

/* The fixed-width big-endian readers: rd_i16, rd_u16, rd_i32, rd_i64. */
#define RD_FIXED(name, type, width, load)                  \
	static int name(struct kr *r, type *v)             \
	{                                                  \
		if (left(r) < (width))                     \
			return SEGSCAN_ETRUNC;             \
		*v = load(r->p);                           \
		r->p += (width);                           \
		return 0;                                  \
	}
RD_FIXED(rd_i16, int16_t, 2, ss_be16s)
RD_FIXED(rd_u16, uint16_t, 2, ss_be16)
RD_FIXED(rd_i32, int32_t, 4, ss_be32s)
RD_FIXED(rd_i64, int64_t, 8, ss_be64s)
#undef RD_FIXED

static int rd_uuid(struct kr *r, uint8_t out[16])
{
	if (left(r) < 16)
		return SEGSCAN_ETRUNC;
	memcpy(out, r->p, 16);
	r->p += 16;
	return 0;
}

/* A compact length (N+1, 0 for null): *n, or -1 for a null the field allows. */
static int rd_compact_len(struct kr *r, bool nullable, int64_t *n)
{
	uint32_t u;
	int rc = rd_uvarint(r, &u);
	if (rc)
		return rc;
	if (u == 0 && !nullable)
		return SEGSCAN_ESCHEMA;
	*n = (int64_t)u - 1;
	return 0;
}

/* Compact string; the generated code refuses one longer than Short.MAX_VALUE. */
static int rd_str(struct kr *r, struct ss_kstr *s, bool nullable)
{
	int64_t n;
	int rc = rd_compact_len(r, nullable, &n);
	if (rc)
		return rc;
	if (n < 0) {
		s->p = NULL;
		s->len = -1;
		return 0;
	}
	if (n > 0x7fff)
		return SEGSCAN_ESCHEMA;
	if ((uint64_t)n > left(r))
		return SEGSCAN_ETRUNC;
	s->p = (const char *)r->p;
	s->len = (int32_t)n;
	r->p += n;
	return 0;
}

/* Compact array of fixed-size elements. */
static int rd_arr(struct kr *r, struct ss_karr *a, size_t elem, bool nullable)
{
	int64_t n;
	int rc = rd_compact_len(r, nullable, &n);
	if (rc)
		return rc;
	if (n < 0) {
		a->p = NULL;
		a->n = -1;
		return 0;
	}
	if ((uint64_t)n * elem > left(r))
		return SEGSCAN_ETRUNC;
	a->p = r->p;
	a->n = (int32_t)n;
	r->p += n * elem;
	return 0;
}

/*
 * Tagged-field section: calls fn for every tag with a reader over exactly its bytes;
 * fn returns 1 for a tag it does not know (skipped), 0 when it decoded the field (which
 * must then consume the field's bytes exactly), or an error.
 */
typedef int (*tag_fn)(void *ctx, uint32_t tag, struct kr *f);

static int rd_tags(struct kr *r, tag_fn fn, void *ctx)
{
	uint32_t count;
	int rc = rd_uvarint(r, &count);
	if (rc)
		return rc;
	/* every field needs at least two bytes (tag, size) */
	if (count > left(r) / 2 + 1)
		return SEGSCAN_ETRUNC;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t tag, size;
		if ((rc = rd_uvarint(r, &tag)) || (rc = rd_uvarint(r, &size)))
			return rc;
		if (size > left(r))
			return SEGSCAN_ETRUNC;
		struct kr f = { r->p, r->p + size };
		r->p += size;
		rc = fn ? fn(ctx, tag, &f) : 1;
		if (rc < 0)
			return rc;
		if (rc == 0 && f.p != f.end)
			return SEGSCAN_ESCHEMA; /* the field's size disagrees with its content */
	}
	return 0;
}

/* ---- views ----------------------------------------------------------------------- */

int32_t ss_karr_i32(struct ss_karr a, int32_t i)
{
	return ss_be32s(a.p + (size_t)i * 4);
}

const uint8_t *ss_karr_uuid(struct ss_karr a, int32_t i)
{
	return a.p + (size_t)i * 16;
}

/* RegisterBrokerRecord BrokerEndpoint: Name, Host, Port uint16, SecurityProtocol int16, tags. */
static int rd_endpoint(struct kr *r, struct ss_kraft_endpoint *ep)
{
	int rc;
	if ((rc = rd_str(r, &ep->name, false)) || (rc = rd_str(r, &ep->host, false)) ||
	    (rc = rd_u16(r, &ep->port)) || (rc = rd_i16(r, &ep->security_protocol)))
		return rc;
	return rd_tags(r, NULL, NULL);
}

/* RegisterBrokerRecord BrokerFeature: Name, MinSupportedVersion, MaxSupportedVersion, tags. */
static int rd_feature(struct kr *r, struct ss_kraft_feature *f)
{
	int rc;
	if ((rc = rd_str(r, &f->name, false)) || (rc = rd_i16(r, &f->min_version)) ||
	    (rc = rd_i16(r, &f->max_version)))
		return rc;
	return rd_tags(r, NULL, NULL);
}

/* A non-nullable compact array of structs, each element validated by `one`. */
static int rd_list(struct kr *r, struct ss_klist *l, int16_t version, int kind)
{
	uint32_t u;
	int rc = rd_uvarint(r, &u);
	if (rc)
		return rc;
	if (u == 0)
		return SEGSCAN_ESCHEMA; /* "non-nullable field ... was serialized as null" */
	uint32_t n = u - 1;
	/* an element is at least 3 bytes; the generated code refuses n > remaining too */
	if (n > left(r))
		return SEGSCAN_ETRUNC;
	l->p = r->p;
	l->n = (int32_t)n;
	l->version = version;
	for (uint32_t i = 0; i < n; i++) {
		if (kind == 0) {
			struct ss_kraft_endpoint ep;
			rc = rd_endpoint(r, &ep);
		} else {
			struct ss_kraft_feature f;
			rc = rd_feature(r, &f);
		}
		if (rc)
			return rc;
	}
	l->end = r->p;
	return 0;
}

void ss_kiter_init(struct ss_kiter *it, const struct ss_klist *l)
{
	it->p = l->p;
	it->end = l->end;
	it->left = l->n > 0 ? l->n : 0;
	it->version = l->version;
}

int ss_kiter_endpoint(struct ss_kiter *it, struct ss_kraft_endpoint *out)
{
	if (it->left <= 0)
		return 0;
	struct kr r = { it->p, it->end };
	int rc = rd_endpoint(&r, out);
	if (rc)
		return rc;
	it->p = r.p;
	it->left--;
	return 1;
}

int ss_kiter_feature(struct ss_kiter *it, struct ss_kraft_feature *out)
{
	if (it->left <= 0)
		return 0;
	struct kr r = { it->p, it->end };
	int rc = rd_feature(&r, out);
	if (rc)
		return rc;
	it->p = r.p;
	it->left--;
	return 1;
}

/* ---- records --------------------------------------------------------------------- */

static const struct ss_karr NO_ARR = { NULL, -1 };

/* Tagged-field context: the record and its version. */
struct tctx {
	struct ss_kraft_rec *rec;
	int16_t              v;
};

static int tags_partition(void *c, uint32_t tag, struct kr *f)
{
	struct tctx *t = c;
	switch (tag) {
	case 0: /* LeaderRecoveryState int8, v0+ */
		return rd_i8(f, &t->rec->u.partition.leader_recovery_state);
	case 1: /* EligibleLeaderReplicas, nullable []int32, v2+ */
		return t->v >= 2 ? rd_arr(f, &t->rec->u.partition.elr, 4, true) : 1;
	case 2: /* LastKnownElr, nullable []int32, v2+ */
		return t->v >= 2 ? rd_arr(f, &t->rec->u.partition.last_known_elr, 4, true) : 1;
	}
	return 1;
}

static int dec_partition(struct kr *r, struct ss_kraft_rec *rec)
{
	int16_t v = rec->version;
	typeof(rec->u.partition) *p = &rec->u.partition;
	int rc;
	p->leader_recovery_state = 0;
	p->directories = p->elr = p->last_known_elr = NO_ARR;
	if ((rc = rd_i32(r, &p->partition_id)) || (rc = rd_uuid(r, p->topic_id)) ||
	    (rc = rd_arr(r, &p->replicas, 4, false)) || (rc = rd_arr(r, &p->isr, 4, false)) ||
	    (rc = rd_arr(r, &p->removing, 4, false)) || (rc = rd_arr(r, &p->adding, 4, false)) ||
	    (rc = rd_i32(r, &p->leader)) || (rc = rd_i32(r, &p->leader_epoch)) ||
	    (rc = rd_i32(r, &p->partition_epoch)))
		return rc;
	if (v >= 1 && (rc = rd_arr(r, &p->directories, 16, false)))
		return rc;
	struct tctx t = { rec, v };
	return rd_tags(r, tags_partition, &t);
}

static int tags_change(void *c, uint32_t tag, struct kr *f)
{
	struct tctx *t = c;
	typeof(t->rec->u.change) *p = &t->rec->u.change;
	switch (tag) {
	case 0: return rd_arr(f, &p->isr, 4, true);
	case 1: return rd_i32(f, &p->leader);
	case 2: return rd_arr(f, &p->replicas, 4, true);
	case 3: return rd_arr(f, &p->removing, 4, true);
	case 4: return rd_arr(f, &p->adding, 4, true);
	case 5: return rd_i8(f, &p->leader_recovery_state);
	case 6: return t->v >= 2 ? rd_arr(f, &p->elr, 4, true) : 1;
	case 7: return t->v >= 2 ? rd_arr(f, &p->last_known_elr, 4, true) : 1;
	case 8: return t->v >= 1 ? rd_arr(f, &p->directories, 16, true) : 1;
	}
	return 1;
}

static int dec_change(struct kr *r, struct ss_kraft_rec *rec)
{
	typeof(rec->u.change) *p = &rec->u.change;
	int rc;
	p->isr = p->replicas = p->removing = p->adding = NO_ARR;
	p->directories = p->elr = p->last_known_elr = NO_ARR;
	p->leader = -2;                 /* default "-2": no change */
	p->leader_recovery_state = -1;  /* default "-1": no change */
	if ((rc = rd_i32(r, &p->partition_id)) || (rc = rd_uuid(r, p->topic_id)))
		return rc;
	struct tctx t = { rec, rec->version };
	return rd_tags(r, tags_change, &t);
}

static int tags_register(void *c, uint32_t tag, struct kr *f)
{
	struct tctx *t = c;
	if (tag == 0 && t->v >= 3)
		return rd_arr(f, &t->rec->u.reg.log_dirs, 16, false);
	if (tag == 1 && t->v >= 4)
		return rd_arr(f, &t->rec->u.reg.cordoned_log_dirs, 16, true);
	return 1;
}

static int dec_register(struct kr *r, struct ss_kraft_rec *rec)
{
	int16_t v = rec->version;
	typeof(rec->u.reg) *b = &rec->u.reg;
	int rc;
	b->is_migrating_zk = false;
	b->in_controlled_shutdown = false;
	b->log_dirs = b->cordoned_log_dirs = NO_ARR;
	if ((rc = rd_i32(r, &b->broker_id)))
		return rc;
	if (v >= 2 && (rc = rd_bool(r, &b->is_migrating_zk)))
		return rc;
	if ((rc = rd_uuid(r, b->incarnation_id)) || (rc = rd_i64(r, &b->broker_epoch)) ||
	    (rc = rd_list(r, &b->endpoints, v, 0)) || (rc = rd_list(r, &b->features, v, 1)) ||
	    (rc = rd_str(r, &b->rack, true)) || (rc = rd_bool(r, &b->fenced)))
		return rc;
	if (v >= 1 && (rc = rd_bool(r, &b->in_controlled_shutdown)))
		return rc;
	struct tctx t = { rec, v };
	return rd_tags(r, tags_register, &t);
}

static int tags_change_broker(void *c, uint32_t tag, struct kr *f)
{
	struct tctx *t = c;
	typeof(t->rec->u.change_broker) *b = &t->rec->u.change_broker;
	switch (tag) {
	case 0: return rd_i8(f, &b->fenced);
	case 1: return t->v >= 1 ? rd_i8(f, &b->in_controlled_shutdown) : 1;
	case 2: return t->v >= 2 ? rd_arr(f, &b->log_dirs, 16, false) : 1;
	case 3: return t->v >= 3 ? rd_arr(f, &b->cordoned_log_dirs, 16, true) : 1;
	}
	return 1;
}

static int dec_change_broker(struct kr *r, struct ss_kraft_rec *rec)
{
	typeof(rec->u.change_broker) *b = &rec->u.change_broker;
	int rc;
	b->fenced = 0;
	b->in_controlled_shutdown = 0;
	b->log_dirs = b->cordoned_log_dirs = NO_ARR;
	if ((rc = rd_i32(r, &b->broker_id)) || (rc = rd_i64(r, &b->broker_epoch)))
		return rc;
	struct tctx t = { rec, rec->version };
	return rd_tags(r, tags_change_broker, &t);
}

static int tags_txn(void *c, uint32_t tag, struct kr *f)
{
	struct tctx *t = c;
	if (tag == 0)
		return rd_str(f, &t->rec->u.txn.text, true);
	return 1;
}

int ss_kraft_max_version(int api_key)
{
	switch (api_key) {
	case SS_KR_REGISTER_BROKER: return 4;
	case SS_KR_PARTITION: return 2;
	case SS_KR_PARTITION_CHANGE: return 2;
	case SS_KR_BROKER_REGISTRATION_CHANGE: return 3;
	case SS_KR_UNREGISTER_BROKER: case SS_KR_TOPIC: case SS_KR_CONFIG: case SS_KR_FENCE_BROKER:
	case SS_KR_UNFENCE_BROKER: case SS_KR_REMOVE_TOPIC: case SS_KR_FEATURE_LEVEL: case SS_KR_NO_OP:
	case SS_KR_BEGIN_TRANSACTION: case SS_KR_END_TRANSACTION: case SS_KR_ABORT_TRANSACTION:
		return 0;
	}
	return -1;
}

const char *ss_kraft_key_name(int api_key)
{
	static const char *const names[] = {
		[0] = "RegisterBrokerRecord", [1] = "UnregisterBrokerRecord", [2] = "TopicRecord",
		[3] = "PartitionRecord", [4] = "ConfigRecord", [5] = "PartitionChangeRecord",
		[6] = "AccessControlRecord", [7] = "FenceBrokerRecord", [8] = "UnfenceBrokerRecord",
		[9] = "RemoveTopicRecord", [10] = "DelegationTokenRecord",
		[11] = "UserScramCredentialRecord", [12] = "FeatureLevelRecord",
		[14] = "ClientQuotaRecord", [15] = "ProducerIdsRecord",
		[17] = "BrokerRegistrationChangeRecord", [18] = "AccessControlEntryRecord",
		[19] = "RemoveAccessControlEntryRecord", [20] = "NoOpRecord",
		[21] = "ZkMigrationStateRecord", [22] = "RemoveUserScramCredentialRecord",
		[23] = "BeginTransactionRecord", [24] = "EndTransactionRecord",
		[25] = "AbortTransactionRecord", [26] = "RemoveDelegationTokenRecord",
		[27] = "RegisterControllerRecord", [28] = "ClearElrRecord",
	};
	if (api_key >= 0 && (size_t)api_key < sizeof names / sizeof names[0] && names[api_key])
		return names[api_key];
	return "UnknownRecord";
}

/* unsignedIntToShort: the frame's three varints must fit an int16. */
static int rd_frame_short(struct kr *r, int16_t *out)
{
	uint32_t u;
	int rc = rd_uvarint(r, &u);
	if (rc)
		return rc;
	if (u > 0x7fff)
		return SEGSCAN_ESCHEMA;
	*out = (int16_t)u;
	return 0;
}

/* The record's fields after its frame, by api key (one the version table knows). */
static int dec_body(struct kr *rp, struct ss_kraft_rec *rec)
{
	struct tctx t = { rec, rec->version };
	int rc;
	switch (rec->api_key) {
	case SS_KR_TOPIC:
		if ((rc = rd_str(rp, &rec->u.topic.name, false)) || (rc = rd_uuid(rp, rec->u.topic.topic_id)))
			break;
		rc = rd_tags(rp, NULL, NULL);
		break;
	case SS_KR_REMOVE_TOPIC:
		if (!(rc = rd_uuid(rp, rec->u.remove_topic.topic_id)))
			rc = rd_tags(rp, NULL, NULL);
		break;
	case SS_KR_PARTITION:
		rc = dec_partition(rp, rec);
		break;
	case SS_KR_PARTITION_CHANGE:
		rc = dec_change(rp, rec);
		break;
	case SS_KR_CONFIG:
		if ((rc = rd_i8(rp, &rec->u.config.resource_type)) ||
		    (rc = rd_str(rp, &rec->u.config.resource_name, false)) ||
		    (rc = rd_str(rp, &rec->u.config.name, false)) ||
		    (rc = rd_str(rp, &rec->u.config.value, true)))
			break;
		rc = rd_tags(rp, NULL, NULL);
		break;
	case SS_KR_REGISTER_BROKER:
		rc = dec_register(rp, rec);
		break;
	case SS_KR_UNREGISTER_BROKER:
	case SS_KR_FENCE_BROKER:
	case SS_KR_UNFENCE_BROKER:
		if ((rc = rd_i32(rp, &rec->u.broker.broker_id)) || (rc = rd_i64(rp, &rec->u.broker.broker_epoch)))
			break;
		rc = rd_tags(rp, NULL, NULL);
		break;
	case SS_KR_BROKER_REGISTRATION_CHANGE:
		rc = dec_change_broker(rp, rec);
		break;
	case SS_KR_FEATURE_LEVEL:
		if ((rc = rd_str(rp, &rec->u.feature.name, false)) || (rc = rd_i16(rp, &rec->u.feature.level)))
			break;
		rc = rd_tags(rp, NULL, NULL);
		break;
	case SS_KR_BEGIN_TRANSACTION:
	case SS_KR_ABORT_TRANSACTION:
		rec->u.txn.text.p = NULL;
		rec->u.txn.text.len = -1;
		rc = rd_tags(rp, tags_txn, &t);
		break;
	case SS_KR_END_TRANSACTION:
	case SS_KR_NO_OP:
		rc = rd_tags(rp, NULL, NULL);
		break;
	default:
		rc = SEGSCAN_ESCHEMA; /* unreachable: max_version said known */
	}
	return rc;
}

int ss_kraft_decode(const uint8_t *buf, size_t len, struct ss_kraft_rec *rec)
{
	struct kr r = { buf, buf + len };
	int16_t frame;
	int rc;
	memset(rec, 0, sizeof *rec);
	if (!buf && len)
		return SEGSCAN_ESCHEMA;
	if ((rc = rd_frame_short(&r, &frame)))
		return rc;
	if (frame != 1)
		return SEGSCAN_ESCHEMA; /* 0 was KRaft's 2.8 preview; nothing else exists */
	if ((rc = rd_frame_short(&r, &rec->api_key)) || (rc = rd_frame_short(&r, &rec->version)))
		return rc;
	int maxv = ss_kraft_max_version(rec->api_key);
	if (maxv < 0 || rec->version > maxv) {
		rec->known = false; /* skipped by its frame; the caller counts it */
		return 0;
	}
	rec->known = true;
	rc = dec_body(&r, rec);
	if (rc)
		return rc;
	/* "Found N byte(s) of garbage after ..." */
	return r.p == r.end ? 0 : SEGSCAN_ESCHEMA;
}

int ss_kraft_control_type(const uint8_t *key, int32_t key_len)
{
	if (key_len < 0 || !key)
		return SEGSCAN_ESCHEMA;
	if (key_len < 4)
		return SEGSCAN_ETRUNC;
	if (ss_be16s(key) < 0)
		return SEGSCAN_ESCHEMA; /* "Invalid version found for control record" */
	int16_t t = ss_be16s(key + 2);
	return t < 0 ? SEGSCAN_ESCHEMA : t;
}
