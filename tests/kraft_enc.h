/*
 * A tiny, independent encoder of KRaft metadata record values for the tests (never the
 * decoder under test): the frame (AbstractApiMessageSerde: unsigned varints frame version
 * 1, api key, version) and the flexible-version primitives (compact strings and arrays,
 * UUIDs, tagged fields), written from the schema JSON files cited in src/fmt/kraft.c.
 */
#ifndef TESTS_KRAFT_ENC_H
#define TESTS_KRAFT_ENC_H

#include <stdint.h>
#include <string.h>

struct kw {
	uint8_t b[8192];
	size_t  n;
};

static inline void kw_u8(struct kw *w, uint8_t v) { if (w->n < sizeof w->b) w->b[w->n++] = v; }
static inline void kw_uv(struct kw *w, uint32_t v)
{
	while (v >= 0x80) {
		kw_u8(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	kw_u8(w, (uint8_t)v);
}
static inline void kw_i16(struct kw *w, int16_t v) { kw_u8(w, (uint8_t)((uint16_t)v >> 8)); kw_u8(w, (uint8_t)v); }
static inline void kw_i32(struct kw *w, int32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		kw_u8(w, (uint8_t)((uint32_t)v >> s));
}
static inline void kw_i64(struct kw *w, int64_t v)
{
	for (int s = 56; s >= 0; s -= 8)
		kw_u8(w, (uint8_t)((uint64_t)v >> s));
}
static inline void kw_bytes(struct kw *w, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kw_u8(w, ((const uint8_t *)p)[i]);
}
static inline void kw_uuid(struct kw *w, const uint8_t id[16]) { kw_bytes(w, id, 16); }
/* compact string; NULL = null */
static inline void kw_str(struct kw *w, const char *s)
{
	if (!s) {
		kw_uv(w, 0);
		return;
	}
	kw_uv(w, (uint32_t)strlen(s) + 1);
	kw_bytes(w, s, strlen(s));
}
/* compact []int32; n < 0 = null */
static inline void kw_ints(struct kw *w, const int32_t *v, int n)
{
	if (n < 0) {
		kw_uv(w, 0);
		return;
	}
	kw_uv(w, (uint32_t)n + 1);
	for (int i = 0; i < n; i++)
		kw_i32(w, v[i]);
}
/* compact []uuid; n < 0 = null */
static inline void kw_uuids(struct kw *w, const uint8_t (*v)[16], int n)
{
	if (n < 0) {
		kw_uv(w, 0);
		return;
	}
	kw_uv(w, (uint32_t)n + 1);
	for (int i = 0; i < n; i++)
		kw_uuid(w, v[i]);
}
static inline void kw_frame(struct kw *w, int key, int version)
{
	w->n = 0;
	kw_uv(w, 1);
	kw_uv(w, (uint32_t)key);
	kw_uv(w, (uint32_t)version);
}
/* one tagged field whose content is f */
static inline void kw_tag(struct kw *w, uint32_t tag, const struct kw *f)
{
	kw_uv(w, tag);
	kw_uv(w, (uint32_t)f->n);
	kw_bytes(w, f->b, f->n);
}

/* ---- whole records ---- */

static inline void kw_topic(struct kw *w, const char *name, const uint8_t id[16])
{
	kw_frame(w, 2, 0);
	kw_str(w, name);
	kw_uuid(w, id);
	kw_uv(w, 0);
}

static inline void kw_remove_topic(struct kw *w, const uint8_t id[16])
{
	kw_frame(w, 9, 0);
	kw_uuid(w, id);
	kw_uv(w, 0);
}

/* PartitionRecord v0 with replicas = isr = reps[0..n), leader reps[0] */
static inline void kw_partition(struct kw *w, const uint8_t id[16], int32_t part, const int32_t *reps, int n,
				int32_t leader, int32_t leader_epoch, int32_t part_epoch)
{
	kw_frame(w, 3, 0);
	kw_i32(w, part);
	kw_uuid(w, id);
	kw_ints(w, reps, n);
	kw_ints(w, reps, n);
	kw_ints(w, NULL, 0);
	kw_ints(w, NULL, 0);
	kw_i32(w, leader);
	kw_i32(w, leader_epoch);
	kw_i32(w, part_epoch);
	kw_uv(w, 0);
}

/* PartitionChangeRecord v0: leader -2 = not written; isr NULL with n_isr < 0 = not written */
static inline void kw_change(struct kw *w, const uint8_t id[16], int32_t part, int32_t leader, const int32_t *isr,
			     int n_isr)
{
	kw_frame(w, 5, 0);
	kw_i32(w, part);
	kw_uuid(w, id);
	struct kw f0 = { .n = 0 }, f1 = { .n = 0 };
	int nt = (n_isr >= 0) + (leader != -2);
	kw_uv(w, (uint32_t)nt);
	if (n_isr >= 0) {
		kw_ints(&f0, isr, n_isr);
		kw_tag(w, 0, &f0);
	}
	if (leader != -2) {
		kw_i32(&f1, leader);
		kw_tag(w, 1, &f1);
	}
}

static inline void kw_config(struct kw *w, int8_t type, const char *res, const char *key, const char *val)
{
	kw_frame(w, 4, 0);
	kw_u8(w, (uint8_t)type);
	kw_str(w, res);
	kw_str(w, key);
	kw_str(w, val);
	kw_uv(w, 0);
}

static inline void kw_feature_level(struct kw *w, const char *name, int16_t level)
{
	kw_frame(w, 12, 0);
	kw_str(w, name);
	kw_i16(w, level);
	kw_uv(w, 0);
}

/* RegisterBrokerRecord v3: one endpoint, features metadata.version [mv_min, mv_max] */
static inline void kw_register(struct kw *w, int32_t id, int64_t epoch, const char *host, uint16_t port,
			       const char *rack, bool fenced, int16_t mv_min, int16_t mv_max)
{
	kw_frame(w, 0, 3);
	kw_i32(w, id);
	kw_u8(w, 0); /* IsMigratingZkBroker */
	uint8_t inc[16] = { 0xaa, (uint8_t)id };
	kw_uuid(w, inc);
	kw_i64(w, epoch);
	kw_uv(w, 2); /* one endpoint */
	kw_str(w, "PLAINTEXT");
	kw_str(w, host);
	kw_i16(w, (int16_t)port);
	kw_i16(w, 0);
	kw_uv(w, 0);
	kw_uv(w, 2); /* one feature */
	kw_str(w, "metadata.version");
	kw_i16(w, mv_min);
	kw_i16(w, mv_max);
	kw_uv(w, 0);
	kw_str(w, rack);
	kw_u8(w, fenced);
	kw_u8(w, 0); /* InControlledShutdown */
	kw_uv(w, 0);
}

static inline void kw_broker_epoch_rec(struct kw *w, int key, int32_t id, int64_t epoch)
{
	kw_frame(w, key, 0);
	kw_i32(w, id);
	kw_i64(w, epoch);
	kw_uv(w, 0);
}

/* BrokerRegistrationChangeRecord v1 with the Fenced tag (0 = not written) */
static inline void kw_broker_change(struct kw *w, int32_t id, int64_t epoch, int8_t fenced)
{
	kw_frame(w, 17, 1);
	kw_i32(w, id);
	kw_i64(w, epoch);
	if (fenced) {
		struct kw f = { .n = 0 };
		kw_u8(&f, (uint8_t)fenced);
		kw_uv(w, 1);
		kw_tag(w, 0, &f);
	} else {
		kw_uv(w, 0);
	}
}

static inline void kw_empty(struct kw *w, int key)
{
	kw_frame(w, key, 0);
	kw_uv(w, 0);
}

#endif
