/*
 * Replay of KRaft metadata records into the cluster image (see cluster_image.h).
 *
 * Merge rules, from Kafka's sources:
 *  - TopicRecord creates a topic with no partitions (TopicsDelta.replay(TopicRecord));
 *    RemoveTopicRecord removes it with its partitions and deletes every config of the
 *    TOPIC resource of its name (MetadataDelta.replay(RemoveTopicRecord),
 *    ConfigurationsDelta.replay(RemoveTopicRecord, name)).
 *  - PartitionRecord sets a partition whole; PartitionChangeRecord merges
 *    (PartitionRegistration.merge): a null array keeps the old one, leader -2 keeps leader
 *    and leader epoch, any other leader value (even the same broker) sets it and bumps the
 *    leader epoch by one; the partition epoch is bumped by one on every change;
 *    LeaderRecoveryState -1 keeps the old state.
 *  - ConfigRecord sets (or, with a null value, deletes) one key of a resource
 *    (ConfigurationDelta.replay).
 *  - RegisterBrokerRecord replaces the registration, UnregisterBrokerRecord removes it
 *    (ClusterDelta); Fence/Unfence/BrokerRegistrationChange need the registered epoch
 *    (getBrokerOrThrow) — a mismatch is a fault in Kafka, a warning here.
 *    BrokerRegistrationChangeRecord.Fenced: 1 fence, -1 unfence, 0 no change
 *    (BrokerRegistrationFencingChange); InControlledShutdown 1 yes, 0 no change; a
 *    non-empty LogDirs replaces the directories.
 *  - FeatureLevelRecord sets a finalized level; level 0 removes the feature
 *    (FeaturesDelta.replay).
 *  - Begin/End/AbortTransactionRecord (KIP-868, MetadataBatchLoader.replay): records
 *    between Begin and End are published together at End, discarded at Abort.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/darray.h"
#include "common/esc.h"
#include "eval/config.h"
#include "source/cluster_image.h"
#include "common/hidx.h"
#include "common/search.h"
#include "segscan.h"

/* ---- a table of pointers, on the one hash index (common/hidx.h) ------------------------ */

/* The items in an array (removal moves the last one into the hole), indexed by their hash. */
struct htab {
	void          **items;
	uint32_t       *hashes;   /* items' */
	uint32_t        n, cap;
	struct ss_hidx  ix;
};

typedef bool (*h_eq)(const void *item, const void *key);

static uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	/* FNV-1a with a final mix: keys are topic names and UUIDs, not adversarial here */
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

struct h_probe {
	const struct htab *t;
	h_eq               eq;
};

static bool h_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct h_probe *q = ctx;
	return q->eq(q->t->items[pos], key);
}

/* The index slot of the item with key (its item: h_at), or -1. */
static int64_t h_find(const struct htab *t, uint64_t h, h_eq eq, const void *key)
{
	const struct h_probe q = { t, eq };
	return ss_hidx_find(&t->ix, (uint32_t)h, h_is, &q, key, NULL);
}

static void *h_at(const struct htab *t, int64_t slot)
{
	return t->items[ss_hidx_pos(&t->ix, slot)];
}

/* The key must not be present. */
static int h_insert(struct htab *t, uint64_t h, void *item)
{
	if (t->n == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 16;
		void **ni = realloc(t->items, (size_t)nc * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		t->items = ni;
		uint32_t *nh = realloc(t->hashes, (size_t)nc * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		t->hashes = nh;
		t->cap = nc;
	}
	int rc = ss_hidx_insert(&t->ix, (uint32_t)h, t->n, NULL);
	if (rc)
		return rc;
	t->items[t->n] = item;
	t->hashes[t->n++] = (uint32_t)h;
	return 0;
}

static void h_remove_at(struct htab *t, int64_t slot)
{
	uint32_t pos = ss_hidx_pos(&t->ix, slot), last = t->n - 1;
	ss_hidx_del(&t->ix, slot);
	if (pos != last) {   /* the last item fills the hole */
		t->items[pos] = t->items[last];
		t->hashes[pos] = t->hashes[last];
		ss_hidx_move(&t->ix, t->hashes[pos], last, pos, NULL);
	}
	t->n--;
}

static void h_free(struct htab *t)
{
	free(t->items);
	free(t->hashes);
	ss_hidx_free(&t->ix);
	memset(t, 0, sizeof *t);
}

/* ---- hashes for the position indexes (common/hidx.h) ------------------------------------ */

static uint32_t hash_kstr(const char *p, size_t n) { return ss_hash_bytes(p, n); }
static uint32_t hash_str(const char *s) { return ss_hash_str(s); }
static uint32_t hash_i32(int32_t v) { return ss_hash_u32((uint32_t)v); }

/* ---- the image ------------------------------------------------------------------------ */

/*
 * A record held inside a metadata transaction: 32 bytes beside its value, which lives in
 * the transaction's one arena (ss_cimage.parena). The file it came from is an index into
 * the few names the transaction spans (ss_cimage.pfiles), not a copy per record: a
 * 600-byte log dir path held 2.4 million times was 1.4 GB (issue 21 item 5). Records
 * that change nothing when applied (NoOpRecord, types and versions not decoded) are not
 * held at all.
 */
struct pending {
	uint64_t at;        /* value at parena + at */
	uint32_t len;
	uint32_t file;      /* index into pfiles; UINT32_MAX: none */
	int64_t  pos, offset;
};

struct ffeature {
	char    *name;
	int16_t  level;
	uint64_t seq;      /* when it was last set */
};

/*
 * A topic as the image holds it: the public part first (a struct ss_ci_topic * is a
 * struct topic *). Partitions are appended; while they arrive in ascending id the array
 * stays sorted and a lookup is a binary search. The first one out of order makes the
 * topic `unsorted`: from then on `pidx` finds a partition by id, and ss_cimage_finish
 * sorts the array once (partitions inserted in descending id cost O(n log n), not the
 * O(n^2) of inserting each at its place).
 */
struct topic {
	struct ss_ci_topic pub;
	struct ss_hidx          pidx;
	bool               unsorted;
	uint64_t           seq;       /* when its TopicRecord was applied */
};

/* A config resource: the public part first, and an index of its keys once it has more
 * than a few (a resource with 200,000 keys is found key by key in O(1)). */
#define KV_LINEAR 8
struct res {
	struct ss_ci_resource pub;
	struct ss_hidx             kidx;
	uint64_t              reset_seq;  /* when a RemoveTopicRecord emptied it; 0 never */
};

/*
 * What was removed after a loss, so that its absence is known (ss_cimage_*_known): a
 * config key (type = the resource type), a topic (TOMB_TOPIC, key = its name), a broker
 * (TOMB_BROKER, key = its id in decimal) or a feature (TOMB_FEATURE). Kept only while a
 * loss of that kind is marked; there are no more of them than removals.
 */
#define TOMB_TOPIC   (-1)
#define TOMB_BROKER  (-2)
#define TOMB_FEATURE (-3)
struct tomb {
	int8_t   type;
	char    *res, *key;
	uint64_t seq;
};

struct ss_cimage {
	struct ss_ci_topic    **topics;
	uint32_t                n_topics, cap_topics;
	struct htab             by_name, by_id;
	uint64_t                n_partitions;

	struct ss_ci_resource **res;
	uint32_t                n_res, cap_res;
	struct htab             res_tab;

	/* sorted by id unless brokers_unsorted, as a topic's partitions are (see above) */
	struct ss_ci_broker   **brokers;
	uint32_t                n_brokers, cap_brokers;
	struct ss_hidx               bidx;
	bool                    brokers_unsorted;

	struct ffeature        *features;  /* unordered */
	uint32_t                n_features, cap_features;
	struct ss_hidx               fidx;

	/* the open metadata transaction (see struct pending) */
	bool                    in_txn;
	bool                    txn_over;     /* it outgrew txn_limit: nothing of it is held */
	int64_t                 txn_begin;    /* offset of its BeginTransactionRecord */
	uint64_t                txn_records;  /* records in it so far, held or not */
	uint64_t                txn_limit;    /* bytes a transaction may hold */
	struct pending         *pend;
	uint32_t                n_pend, cap_pend;
	uint8_t                *parena;
	uint64_t                parena_n, parena_cap;
	char                  **pfiles;
	uint32_t                n_pfiles, cap_pfiles;

	/* what the replay could not apply (cluster_image.h, "What the replay could not
	 * apply"): seq counts the records applied; lost_at[k] is seq at the last loss of
	 * kind k (1u << k), valid when lost has the bit */
	uint64_t                seq;
	unsigned                lost;
	uint64_t                lost_at[4];
	unsigned                txn_cats;     /* kinds of the records an overflowed transaction dropped */
	unsigned                txn_lost;     /* kinds of its records that did not decode */
	struct htab             tombs;

	struct ss_ci_stats      st;
	char                  **warns;
	uint32_t                n_warns, cap_warns;
};

static bool eq_name(const void *item, const void *key)
{
	return strcmp(((const struct ss_ci_topic *)item)->name, key) == 0;
}

static bool eq_id(const void *item, const void *key)
{
	return memcmp(((const struct ss_ci_topic *)item)->id, key, 16) == 0;
}

struct res_key {
	int8_t      type;
	const char *name;
};

static bool eq_res(const void *item, const void *key)
{
	const struct ss_ci_resource *r = item;
	const struct res_key *k = key;
	return r->type == k->type && strcmp(r->name, k->name) == 0;
}

/* ss_hidx_eq over the arrays: the key is an int32_t * (partitions, brokers), a struct ss_kstr *
 * (features by a record's name) or a const char * (config keys, feature lookups). */
static bool eq_part(const void *ctx, uint32_t pos, const void *key)
{
	return ((const struct ss_ci_partition *)ctx)[pos].id == *(const int32_t *)key;
}

static bool eq_broker(const void *ctx, uint32_t pos, const void *key)
{
	return ((struct ss_ci_broker *const *)ctx)[pos]->id == *(const int32_t *)key;
}

static bool eq_feature(const void *ctx, uint32_t pos, const void *key)
{
	const char *n = ((const struct ffeature *)ctx)[pos].name;
	const struct ss_kstr *k = key;
	return strlen(n) == (size_t)k->len && memcmp(n, k->p, (size_t)k->len) == 0;
}

static bool eq_kv(const void *ctx, uint32_t pos, const void *key)
{
	return strcmp(((const struct ss_ci_config *)ctx)[pos].key, key) == 0;
}

static uint64_t hash_name(const char *s) { return hash_bytes(s, strlen(s), 0); }
static uint64_t hash_id(const uint8_t id[16]) { return hash_bytes(id, 16, 1); }
static uint64_t hash_res(int8_t type, const char *name) { return hash_bytes(name, strlen(name), 2 + (uint8_t)type); }

struct tomb_key {
	int8_t      type;
	const char *res, *key;
};

static bool eq_tomb(const void *item, const void *key)
{
	const struct tomb *t = item;
	const struct tomb_key *k = key;
	return t->type == k->type && !strcmp(t->res, k->res) && !strcmp(t->key, k->key);
}

static uint64_t hash_tomb(int8_t type, const char *res, const char *key)
{
	return hash_bytes(key, strlen(key), hash_res(type, res));
}

static const struct tomb *tomb_find(const struct ss_cimage *img, int8_t type, const char *res, const char *key)
{
	struct tomb_key k = { type, res, key };
	int64_t i = h_find(&img->tombs, hash_tomb(type, res, key), eq_tomb, &k);
	return i < 0 ? NULL : h_at(&img->tombs, i);
}

static void tombs_free(struct ss_cimage *img)
{
	for (uint32_t i = 0; i < img->tombs.n; i++) {
		struct tomb *t = img->tombs.items[i];
		free(t->res);
		free(t->key);
		free(t);
	}
	h_free(&img->tombs);
}

/* The kind bit's index in lost_at. */
static int kind_ix(unsigned kind)
{
	return kind == SS_CI_LOST_TOPICS ? 0 : kind == SS_CI_LOST_CONFIGS ? 1 : kind == SS_CI_LOST_BROKERS ? 2 : 3;
}

/* Was something of `kind` set at `seq` after its last loss? */
static bool after_loss(const struct ss_cimage *img, unsigned kind, uint64_t seq)
{
	return !(img->lost & kind) || seq > img->lost_at[kind_ix(kind)];
}

/* Remember that (type, res, key) was removed now, if a loss of `kind` makes that worth
 * knowing. Without memory it is simply not remembered: its absence stays unknown. */
static void tomb_note(struct ss_cimage *img, unsigned kind, int8_t type, const char *res, const char *key)
{
	if (!(img->lost & kind))
		return;
	struct tomb_key k = { type, res, key };
	uint64_t h = hash_tomb(type, res, key);
	int64_t i = h_find(&img->tombs, h, eq_tomb, &k);
	if (i >= 0) {
		((struct tomb *)h_at(&img->tombs, i))->seq = img->seq;
		return;
	}
	struct tomb *t = calloc(1, sizeof *t);
	if (!t || !(t->res = strdup(res)) || !(t->key = strdup(key)) || h_insert(&img->tombs, h, t)) {
		if (t) {
			free(t->res);
			free(t->key);
		}
		free(t);
		return;
	}
	t->type = type;
	t->seq = img->seq;
}

int ss_cimage_new(struct ss_cimage **out)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return -ENOMEM;
	(*out)->txn_limit = SS_CI_TXN_MAX_BYTES;
	return 0;
}

void ss_cimage_set_txn_limit(struct ss_cimage *img, uint64_t bytes)
{
	img->txn_limit = bytes;
}

static void part_free(struct ss_ci_partition *p)
{
	free(p->block_);
	p->block_ = NULL;
}

static void topic_free(struct ss_ci_topic *pub)
{
	if (!pub)
		return;
	struct topic *t = (struct topic *)pub;
	for (uint32_t i = 0; i < pub->n_parts; i++)
		part_free(&pub->parts[i]);
	free(pub->parts);
	free(pub->name);
	ss_hidx_free(&t->pidx);
	free(t);
}

static void kv_clear(struct res *rs)
{
	for (uint32_t i = 0; i < rs->pub.n; i++) {
		free(rs->pub.kv[i].key);
		free(rs->pub.kv[i].value);
	}
	rs->pub.n = 0;
	ss_hidx_free(&rs->kidx);
}

static void res_free(struct ss_ci_resource *r)
{
	if (!r)
		return;
	struct res *rs = (struct res *)r;
	kv_clear(rs);
	free(r->kv);
	free(r->name);
	free(rs);
}

static void broker_free(struct ss_ci_broker *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->n_endpoints; i++) {
		free(b->endpoints[i].name);
		free(b->endpoints[i].host);
	}
	for (uint32_t i = 0; i < b->n_features; i++)
		free(b->features[i].name);
	free(b->endpoints);
	free(b->features);
	free(b->log_dirs);
	free(b->rack);
	free(b);
}

/* Forget what the open transaction holds (the buffers stay for the next one, up to 1 MiB). */
static void pend_clear(struct ss_cimage *img)
{
	for (uint32_t i = 0; i < img->n_pfiles; i++)
		free(img->pfiles[i]);
	img->n_pfiles = 0;
	img->n_pend = 0;
	img->parena_n = 0;
	if (img->parena_cap > (1u << 20)) {
		free(img->parena);
		img->parena = NULL;
		img->parena_cap = 0;
	}
	if (img->cap_pend > (1u << 15)) {
		free(img->pend);
		img->pend = NULL;
		img->cap_pend = 0;
	}
	img->st.txn_held_bytes = 0;
}

void ss_cimage_reset(struct ss_cimage *img)
{
	for (uint32_t i = 0; i < img->n_topics; i++)
		topic_free(img->topics[i]);
	img->n_topics = 0;
	img->n_partitions = 0;
	h_free(&img->by_name);
	h_free(&img->by_id);
	for (uint32_t i = 0; i < img->n_res; i++)
		res_free(img->res[i]);
	img->n_res = 0;
	h_free(&img->res_tab);
	for (uint32_t i = 0; i < img->n_brokers; i++)
		broker_free(img->brokers[i]);
	img->n_brokers = 0;
	ss_hidx_free(&img->bidx);
	img->brokers_unsorted = false;
	for (uint32_t i = 0; i < img->n_features; i++)
		free(img->features[i].name);
	img->n_features = 0;
	ss_hidx_free(&img->fidx);
	pend_clear(img);
	img->in_txn = img->txn_over = false;
	img->txn_records = 0;
	img->txn_cats = img->txn_lost = 0;
	/* a snapshot is the whole state: nothing before it matters any more */
	img->lost = 0;
	tombs_free(img);
}

void ss_cimage_free(struct ss_cimage *img)
{
	if (!img)
		return;
	ss_cimage_reset(img);
	free(img->topics);
	free(img->res);
	free(img->brokers);
	free(img->features);
	free(img->pend);
	free(img->parena);
	free(img->pfiles);
	for (uint32_t i = 0; i < img->n_warns; i++)
		free(img->warns[i]);
	free(img->warns);
	free(img);
}

/* ---- warnings ---------------------------------------------------------------------------- */

static int vwarn(struct ss_cimage *img, const char *file, int64_t pos, const char *fmt, va_list ap)
{
	if (img->n_warns >= SS_CI_MAX_WARNINGS) {
		img->st.warnings_dropped++;
		return 0;
	}
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	char *raw, *s;
	int n = file ? asprintf(&raw, "%s: byte %lld: %s", file, (long long)pos, msg) : asprintf(&raw, "%s", msg);
	if (n < 0)
		return -ENOMEM;
	/* a topic name from a record, the metadata log's path: any byte but NUL, and a warning
	 * is one line wherever it is printed (the table, stderr, json, serve's log), so it goes
	 * through the one escaping routine (ss_esc_line leaves its own output as it is, so a
	 * warning taken over from another image stays the same) */
	s = ss_esc_line(raw);
	free(raw);
	if (!s)
		return -ENOMEM;
	char **slot;
	if (SS_DA_PUSH(&img->warns, &img->n_warns, &img->cap_warns, &slot)) {
		free(s);
		return -ENOMEM;
	}
	*slot = s;
	return 0;
}

int ss_cimage_warn(struct ss_cimage *img, const char *file, int64_t pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vwarn(img, file, pos, fmt, ap);
	va_end(ap);
	return rc;
}

int ss_cimage_warn_front(struct ss_cimage *img, const char *fmt, ...)
{
	char msg[2048], *d, **slot;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!(d = ss_esc_line(msg)))   /* one line, as vwarn's */
		return -ENOMEM;
	if (SS_DA_PUSH(&img->warns, &img->n_warns, &img->cap_warns, &slot)) {
		free(d);
		return -ENOMEM;
	}
	memmove(img->warns + 1, img->warns, (size_t)(img->n_warns - 1) * sizeof *img->warns);
	img->warns[0] = d;
	return 0;
}

static void warn_at(struct ss_cimage *img, const struct ss_ci_where *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn_at(struct ss_cimage *img, const struct ss_ci_where *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	/* a warning that cannot be stored for lack of memory is lost, not fatal */
	(void)vwarn(img, w && w->file ? w->file : "(metadata)", w ? w->pos : 0, fmt, ap);
	va_end(ap);
}

int ss_cimage_take_warnings(struct ss_cimage *dst, const struct ss_cimage *src)
{
	for (uint32_t i = 0; i < src->n_warns; i++) {
		int rc = ss_cimage_warn(dst, NULL, 0, "%s", src->warns[i]);
		if (rc)
			return rc;
	}
	dst->st.warnings_dropped += src->st.warnings_dropped;
	return 0;
}

/* ---- helpers --------------------------------------------------------------------------------- */

static char *kdup(struct ss_kstr s)
{
	if (s.len < 0)
		return NULL;
	char *d = malloc((size_t)s.len + 1);
	if (d) {
		memcpy(d, s.p, (size_t)s.len);
		d[s.len] = 0;
	}
	return d;
}

/* A string field must not hold a NUL: it would truncate every lookup by name. */
static bool kstr_ok(struct ss_kstr s)
{
	return s.len < 0 || !memchr(s.p, 0, (size_t)s.len);
}

static void fmt_uuid(const uint8_t id[16], char out[37])
{
	static const char hx[] = "0123456789abcdef";
	int o = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hx[id[i] >> 4];
		out[o++] = hx[id[i] & 15];
	}
	out[o] = 0;
}

static struct ss_ci_topic *find_topic_id(const struct ss_cimage *img, const uint8_t id[16])
{
	int64_t i = h_find(&img->by_id, hash_id(id), eq_id, id);
	return i < 0 ? NULL : h_at(&img->by_id, i);
}

static struct ss_ci_topic *find_topic_name(const struct ss_cimage *img, const char *name)
{
	int64_t i = h_find(&img->by_name, hash_name(name), eq_name, name);
	return i < 0 ? NULL : h_at(&img->by_name, i);
}

static struct ss_ci_resource *find_res(const struct ss_cimage *img, int8_t type, const char *name)
{
	struct res_key k = { type, name };
	int64_t i = h_find(&img->res_tab, hash_res(type, name), eq_res, &k);
	return i < 0 ? NULL : h_at(&img->res_tab, i);
}

/* The sorted arrays' orders for the one sorted search (common/search.h). */
static int cmp_part_id(const void *elem, const void *key)
{
	int32_t a = ((const struct ss_ci_partition *)elem)->id, b = *(const int32_t *)key;
	return a < b ? -1 : a > b;
}

static int cmp_broker_id(const void *elem, const void *key)
{
	int32_t a = (*(struct ss_ci_broker *const *)elem)->id, b = *(const int32_t *)key;
	return a < b ? -1 : a > b;
}

/* A partition's index in t->parts, or -1. */
static int64_t part_find(const struct ss_ci_topic *pub, int32_t id, uint64_t *work)
{
	const struct topic *t = (const struct topic *)pub;
	if (t->unsorted) {
		int64_t s = ss_hidx_find(&t->pidx, hash_i32(id), eq_part, pub->parts, &id, work);
		return s < 0 ? -1 : (int64_t)t->pidx.pos[s] - 1;
	}
	int64_t at = ss_sorted_find(pub->parts, pub->n_parts, sizeof(*pub->parts), cmp_part_id, &id, work);
	return at >= 0 ? at : -1;
}

/* A broker's index in img->brokers, or -1. */
static int64_t broker_find(const struct ss_cimage *img, int32_t id, uint64_t *work)
{
	if (img->brokers_unsorted) {
		int64_t s = ss_hidx_find(&img->bidx, hash_i32(id), eq_broker, img->brokers, &id, work);
		return s < 0 ? -1 : (int64_t)img->bidx.pos[s] - 1;
	}
	int64_t at = ss_sorted_find(img->brokers, img->n_brokers, sizeof(*img->brokers), cmp_broker_id, &id, work);
	return at >= 0 ? at : -1;
}

/* Index every element of an array that was sorted until now (it is about to stop being). */
static int index_all_parts(struct topic *t, uint64_t *work)
{
	for (uint32_t i = 0; i < t->pub.n_parts; i++) {
		int rc = ss_hidx_insert(&t->pidx, hash_i32(t->pub.parts[i].id), i, work);
		if (rc) {
			ss_hidx_free(&t->pidx);
			return rc;
		}
	}
	return 0;
}

static int index_all_brokers(struct ss_cimage *img)
{
	for (uint32_t i = 0; i < img->n_brokers; i++) {
		int rc = ss_hidx_insert(&img->bidx, hash_i32(img->brokers[i]->id), i, &img->st.work);
		if (rc) {
			ss_hidx_free(&img->bidx);
			return rc;
		}
	}
	return 0;
}

static int cmp_part(const void *a, const void *b)
{
	int32_t x = ((const struct ss_ci_partition *)a)->id, y = ((const struct ss_ci_partition *)b)->id;
	return x < y ? -1 : x > y;
}

static int cmp_broker(const void *a, const void *b)
{
	int32_t x = (*(struct ss_ci_broker *const *)a)->id, y = (*(struct ss_ci_broker *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* What a sort of n elements costs in the work model: n log2 n. */
static uint64_t sort_work(uint64_t n)
{
	uint64_t l = 1;
	while (((uint64_t)1 << l) < n)
		l++;
	return n * l;
}

/* ---- partitions ---------------------------------------------------------------------------- */

/* The arrays of a partition, each either a view into a record or an existing array. */
struct parr {
	const uint8_t *be;   /* big-endian source (from a record), or NULL */
	const int32_t *host; /* host-order source (the old partition), or NULL */
	uint32_t       n;
};

static struct parr from_rec(struct ss_karr a)
{
	return (struct parr){ a.p, NULL, a.n > 0 ? (uint32_t)a.n : 0 };
}

static struct parr from_old(const int32_t *v, uint32_t n)
{
	return (struct parr){ NULL, v, n };
}

/*
 * Build p's one-block storage from the six int arrays and the directories (a record's
 * view or the old copy). On failure p is unchanged.
 */
static int part_build(struct ss_ci_partition *p, struct parr a[6], const uint8_t *dirs_be,
		      const uint8_t (*dirs_old)[16], uint32_t n_dirs)
{
	uint64_t ints = 0;
	for (int i = 0; i < 6; i++)
		ints += a[i].n;
	size_t bytes = (size_t)ints * 4 + (size_t)n_dirs * 16;
	uint8_t *blk = malloc(bytes ? bytes : 1);
	if (!blk)
		return -ENOMEM;
	int32_t *iv = (int32_t *)(void *)blk;
	int32_t *starts[6];
	for (int i = 0; i < 6; i++) {
		starts[i] = iv;
		for (uint32_t j = 0; j < a[i].n; j++)
			iv[j] = a[i].be ? ss_karr_i32((struct ss_karr){ a[i].be, (int32_t)a[i].n }, (int32_t)j)
					: a[i].host[j];
		iv += a[i].n;
	}
	uint8_t (*dv)[16] = (uint8_t (*)[16])(void *)iv;
	if (n_dirs)
		memcpy(dv, dirs_be ? dirs_be : (const uint8_t *)dirs_old, (size_t)n_dirs * 16);
	void *old = p->block_;
	p->replicas = starts[0];
	p->n_replicas = a[0].n;
	p->isr = starts[1];
	p->n_isr = a[1].n;
	p->removing = starts[2];
	p->n_removing = a[2].n;
	p->adding = starts[3];
	p->n_adding = a[3].n;
	p->elr = starts[4];
	p->n_elr = a[4].n;
	p->last_known_elr = starts[5];
	p->n_last_known_elr = a[5].n;
	p->directories = n_dirs ? dv : NULL;
	p->n_directories = n_dirs;
	p->block_ = blk;
	free(old);
	return 0;
}

static int apply_partition(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	const typeof(r->u.partition) *pr = &r->u.partition;
	struct ss_ci_topic *t = find_topic_id(img, pr->topic_id);
	if (!t) {
		char id[37];
		fmt_uuid(pr->topic_id, id);
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: PartitionRecord for partition %d of unknown topic id %s",
			(long long)w->offset, pr->partition_id, id);
		return 0;
	}
	if (pr->partition_id < 0) {
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: PartitionRecord with partition id %d in topic %s",
			(long long)w->offset, pr->partition_id, t->name);
		return 0;
	}
	struct ss_ci_partition np = { 0 };
	np.id = pr->partition_id;
	np.leader = pr->leader;
	np.leader_epoch = pr->leader_epoch;
	np.partition_epoch = pr->partition_epoch;
	np.leader_recovery_state = pr->leader_recovery_state;
	struct parr a[6] = { from_rec(pr->replicas), from_rec(pr->isr), from_rec(pr->removing),
			     from_rec(pr->adding), from_rec(pr->elr), from_rec(pr->last_known_elr) };
	uint32_t nd = pr->directories.n > 0 ? (uint32_t)pr->directories.n : 0;
	int rc = part_build(&np, a, pr->directories.p, NULL, nd);
	if (rc)
		return rc;
	int64_t at = part_find(t, np.id, &img->st.work);
	if (at >= 0) {
		/* PartitionRecord for an existing partition replaces it (TopicDelta.replay) */
		part_free(&t->parts[at]);
		t->parts[at] = np;
		return 0;
	}
	struct topic *T = (struct topic *)t;
	uint32_t n = t->n_parts;
	if ((rc = SS_DA_RESERVE(&t->parts, &t->cap_parts, (uint64_t)n + 1))) {
		part_free(&np);
		return rc;
	}
	/* appended: in ascending id the array stays sorted, otherwise the index takes over
	 * until ss_cimage_finish sorts it (struct topic) */
	if (!T->unsorted && n && np.id < t->parts[n - 1].id) {
		if ((rc = index_all_parts(T, &img->st.work))) {
			part_free(&np);
			return rc;
		}
		T->unsorted = true;
	}
	if (T->unsorted && (rc = ss_hidx_insert(&T->pidx, hash_i32(np.id), n, &img->st.work))) {
		part_free(&np);
		return rc;
	}
	t->parts[n] = np;
	t->n_parts++;
	img->n_partitions++;
	img->st.work++;
	return 0;
}

static int apply_change(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	const typeof(r->u.change) *c = &r->u.change;
	struct ss_ci_topic *t = find_topic_id(img, c->topic_id);
	int64_t at = t ? part_find(t, c->partition_id, &img->st.work) : -1;
	if (at < 0) {
		char id[37];
		fmt_uuid(c->topic_id, id);
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: PartitionChangeRecord for unknown partition %d of topic %s",
			(long long)w->offset, c->partition_id, t ? t->name : id);
		return 0;
	}
	struct ss_ci_partition *p = &t->parts[at];
	struct ss_karr rec_arr[6] = { c->replicas, c->isr, c->removing, c->adding, c->elr, c->last_known_elr };
	const int32_t *old_v[6] = { p->replicas, p->isr, p->removing, p->adding, p->elr, p->last_known_elr };
	uint32_t old_n[6] = { p->n_replicas, p->n_isr, p->n_removing, p->n_adding, p->n_elr, p->n_last_known_elr };
	struct parr a[6];
	for (int i = 0; i < 6; i++)
		a[i] = rec_arr[i].n >= 0 ? from_rec(rec_arr[i]) : from_old(old_v[i], old_n[i]);
	/* Directories: a record's list, or the old one. Kafka pads a list that does not match
	 * the replicas with MIGRATING (defaultToMigrating); here a mismatched list is dropped,
	 * so `directories` is either parallel to replicas or empty. */
	const uint8_t *dbe = NULL;
	const uint8_t (*dold)[16] = NULL;
	uint32_t nd = 0;
	if (c->directories.n >= 0) {
		dbe = c->directories.p;
		nd = (uint32_t)c->directories.n;
	} else {
		dold = (const uint8_t (*)[16])p->directories;
		nd = p->n_directories;
	}
	if (nd != a[0].n) {
		dbe = NULL;
		dold = NULL;
		nd = 0;
	}
	struct ss_ci_partition np = *p;
	int rc = part_build(&np, a, dbe, dold, nd);
	if (rc)
		return rc;
	/* Both epochs step as Kafka's PartitionRegistration.merge steps them, in Java int
	 * arithmetic: INT32_MAX + 1 wraps to INT32_MIN (a record can claim any epoch; in C
	 * the overflow was undefined, found by fuzz_kraft) */
	if (c->leader != -2) {
		np.leader = c->leader;
		np.leader_epoch = (int32_t)((uint32_t)p->leader_epoch + 1u);
	}
	if (c->leader_recovery_state != -1)
		np.leader_recovery_state = c->leader_recovery_state;
	np.partition_epoch = (int32_t)((uint32_t)p->partition_epoch + 1u);
	*p = np; /* part_build freed the old block */
	return 0;
}

/* ---- topics ---------------------------------------------------------------------------------- */

static void topic_remove(struct ss_cimage *img, struct ss_ci_topic *t)
{
	int64_t i = h_find(&img->by_id, hash_id(t->id), eq_id, t->id);
	if (i >= 0 && h_at(&img->by_id, i) == t)
		h_remove_at(&img->by_id, i);
	i = h_find(&img->by_name, hash_name(t->name), eq_name, t->name);
	if (i >= 0 && h_at(&img->by_name, i) == t)
		h_remove_at(&img->by_name, i);
	uint32_t s = t->slot_;
	img->topics[s] = img->topics[img->n_topics - 1];
	img->topics[s]->slot_ = s;
	img->n_topics--;
	img->n_partitions -= t->n_parts;
	topic_free(t);
}

static void config_delete_resource(struct ss_cimage *img, int8_t type, const char *name)
{
	struct res_key k = { type, name };
	int64_t i = h_find(&img->res_tab, hash_res(type, name), eq_res, &k);
	if (i < 0)
		return;
	/* the resource stays, empty, as ConfigurationDelta.deleteAll leaves it */
	struct res *rs = h_at(&img->res_tab, i);
	kv_clear(rs);
	rs->reset_seq = img->seq;
}

static int apply_topic(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	if (!kstr_ok(r->u.topic.name) || r->u.topic.name.len == 0) {
		img->st.malformed++;
		warn_at(img, w, "offset %lld: TopicRecord with an empty or NUL-holding name", (long long)w->offset);
		return 0;
	}
	struct topic *T = calloc(1, sizeof *T);
	struct ss_ci_topic *t = T ? &T->pub : NULL;
	if (!t || !(t->name = kdup(r->u.topic.name))) {
		free(T);
		return -ENOMEM;
	}
	memcpy(t->id, r->u.topic.topic_id, 16);
	struct ss_ci_topic *old = find_topic_id(img, t->id);
	if (old) /* the same id again: a fresh topic image, as TopicsDelta does */
		topic_remove(img, old);
	old = find_topic_name(img, t->name);
	if (old) {
		/* Kafka's controller never lets two live topics share a name */
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: TopicRecord %s with a new id while the old one is live; the old one is dropped",
			(long long)w->offset, t->name);
		topic_remove(img, old);
	}
	struct ss_ci_topic **slot;
	int rc = SS_DA_PUSH(&img->topics, &img->n_topics, &img->cap_topics, &slot);
	if (rc)
		goto fail;
	if ((rc = h_insert(&img->by_id, hash_id(t->id), t))) {
		img->n_topics--;
		goto fail;
	}
	if ((rc = h_insert(&img->by_name, hash_name(t->name), t))) {
		int64_t i = h_find(&img->by_id, hash_id(t->id), eq_id, t->id);
		h_remove_at(&img->by_id, i);
		img->n_topics--;
		goto fail;
	}
	*slot = t;
	t->slot_ = img->n_topics - 1;
	T->seq = img->seq;
	return 0;
fail:
	topic_free(t);
	return rc;
}

static int apply_remove_topic(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	struct ss_ci_topic *t = find_topic_id(img, r->u.remove_topic.topic_id);
	if (!t) {
		char id[37];
		fmt_uuid(r->u.remove_topic.topic_id, id);
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: RemoveTopicRecord for unknown topic id %s", (long long)w->offset, id);
		return 0;
	}
	config_delete_resource(img, SS_CI_RES_TOPIC, t->name);
	tomb_note(img, SS_CI_LOST_TOPICS, TOMB_TOPIC, "", t->name);
	topic_remove(img, t);
	return 0;
}

/* ---- configs ---------------------------------------------------------------------------------- */

/* The position of `key` among a resource's configs, or -1; *slot: its index slot (-1
 * while the resource is small enough to be scanned). */
static int64_t kv_find(struct ss_cimage *img, struct res *rs, const char *key, uint32_t h, int64_t *slot)
{
	*slot = -1;
	if (!rs->kidx.cap) {
		for (uint32_t i = 0; i < rs->pub.n; i++) {
			img->st.work++;
			if (!strcmp(rs->pub.kv[i].key, key))
				return i;
		}
		return -1;
	}
	*slot = ss_hidx_find(&rs->kidx, h, eq_kv, rs->pub.kv, key, &img->st.work);
	return *slot < 0 ? -1 : (int64_t)rs->kidx.pos[*slot] - 1;
}

/* A new config resource (type, name), taking *rname on success. */
static int new_resource(struct ss_cimage *img, int8_t type, char **rname, struct ss_ci_resource **out)
{
	struct res *nr = calloc(1, sizeof *nr);
	if (!nr)
		return -ENOMEM;
	struct ss_ci_resource *res = &nr->pub, **slot;
	res->type = type;
	res->name = *rname;
	if (SS_DA_PUSH(&img->res, &img->n_res, &img->cap_res, &slot)) {
		free(nr);
		return -ENOMEM;
	}
	if (h_insert(&img->res_tab, hash_res(res->type, *rname), res)) {
		img->n_res--;
		free(nr);
		return -ENOMEM;
	}
	*slot = res;
	*rname = NULL; /* owned by res */
	*out = res;
	return 0;
}

/* Key i of a resource removed: the last entry takes its place (ks: its index slot, or -1). */
static void remove_key(struct ss_cimage *img, struct res *rs, uint32_t i, int64_t ks)
{
	struct ss_ci_resource *res = &rs->pub;
	uint32_t last = res->n - 1;
	tomb_note(img, SS_CI_LOST_CONFIGS, res->type, res->name, res->kv[i].key);
	free(res->kv[i].value);
	free(res->kv[i].key);
	if (ks >= 0)
		ss_hidx_del(&rs->kidx, ks);
	if (i != last) {
		res->kv[i] = res->kv[last];
		if (rs->kidx.cap)
			ss_hidx_move(&rs->kidx, hash_str(res->kv[i].key), last, i, &img->st.work);
	}
	res->n--;
}

/* A new key of a resource, taking *key and *val on success. */
static int add_key(struct ss_cimage *img, struct res *rs, uint32_t h, char **key, char **val)
{
	struct ss_ci_resource *res = &rs->pub;
	struct ss_ci_config *kv;
	if (SS_DA_PUSH(&res->kv, &res->n, &res->cap, &kv))
		return -ENOMEM;
	kv->key = *key;
	kv->value = *val;
	kv->seq_ = img->seq;
	*key = *val = NULL; /* owned by the resource */
	img->st.work++;
	/* Past a few keys, an index: each key is then found in O(1). An index that cannot
	 * grow is dropped and the resource scanned (slower, never wrong); the next key
	 * tries to build it again. */
	if (!rs->kidx.cap && res->n > KV_LINEAR) {
		for (uint32_t j = 0; j < res->n; j++)
			if (ss_hidx_insert(&rs->kidx, hash_str(res->kv[j].key), j, &img->st.work)) {
				ss_hidx_free(&rs->kidx);
				break;
			}
	} else if (rs->kidx.cap && ss_hidx_insert(&rs->kidx, h, res->n - 1, &img->st.work)) {
		ss_hidx_free(&rs->kidx);
	}
	return 0;
}

static int apply_config(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	const typeof(r->u.config) *c = &r->u.config;
	if (!kstr_ok(c->resource_name) || !kstr_ok(c->name) || !kstr_ok(c->value)) {
		img->st.malformed++;
		warn_at(img, w, "offset %lld: ConfigRecord with a NUL byte in a name or value", (long long)w->offset);
		return 0;
	}
	int rc = -ENOMEM;
	char *rname = kdup(c->resource_name), *key = kdup(c->name), *val = NULL;
	if (!rname || !key)
		goto out;
	if (c->value.len >= 0 && !(val = kdup(c->value)))
		goto out;
	struct ss_ci_resource *res = find_res(img, c->resource_type, rname);
	if (!res && !val) { /* deleting from a resource that has nothing */
		tomb_note(img, SS_CI_LOST_CONFIGS, c->resource_type, rname, key);
		rc = 0;
		goto out;
	}
	if (!res && (rc = new_resource(img, c->resource_type, &rname, &res)))
		goto out;
	struct res *rs = (struct res *)res;
	uint32_t h = hash_str(key);
	int64_t ks;
	int64_t i = kv_find(img, rs, key, h, &ks);
	if (i >= 0 && val) {
		free(res->kv[i].value);
		res->kv[i].value = val;
		res->kv[i].seq_ = img->seq;
		val = NULL;
	} else if (i >= 0) {
		remove_key(img, rs, (uint32_t)i, ks);
	} else if (val && (rc = add_key(img, rs, h, &key, &val))) {
		goto out;
	}
	rc = 0;
out:
	free(rname);
	free(key);
	free(val);
	return rc;
}

/* ---- brokers ---------------------------------------------------------------------------------- */

static int apply_register(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	const typeof(r->u.reg) *rb = &r->u.reg;
	struct ss_ci_broker *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	int rc = -ENOMEM;
	b->id = rb->broker_id;
	b->epoch = rb->broker_epoch;
	b->seq_ = img->seq;
	memcpy(b->incarnation_id, rb->incarnation_id, 16);
	b->fenced = rb->fenced;
	b->in_controlled_shutdown = rb->in_controlled_shutdown;
	b->is_migrating_zk = rb->is_migrating_zk;
	if (rb->rack.len >= 0 && !(b->rack = kdup(rb->rack)))
		goto fail;
	struct ss_kiter it;
	if (rb->endpoints.n > 0 && !(b->endpoints = calloc((size_t)rb->endpoints.n, sizeof *b->endpoints)))
		goto fail;
	ss_kiter_init(&it, &rb->endpoints);
	struct ss_kraft_endpoint ep;
	while (ss_kiter_endpoint(&it, &ep) == 1) {
		struct ss_ci_endpoint *e = &b->endpoints[b->n_endpoints++];
		e->port = ep.port;
		e->security_protocol = ep.security_protocol;
		if (!(e->name = kdup(ep.name)) || !(e->host = kdup(ep.host)))
			goto fail;
	}
	if (rb->features.n > 0 && !(b->features = calloc((size_t)rb->features.n, sizeof *b->features)))
		goto fail;
	ss_kiter_init(&it, &rb->features);
	struct ss_kraft_feature f;
	while (ss_kiter_feature(&it, &f) == 1) {
		struct ss_ci_bfeature *bf = &b->features[b->n_features++];
		bf->min_version = f.min_version;
		bf->max_version = f.max_version;
		if (!(bf->name = kdup(f.name)))
			goto fail;
	}
	if (rb->log_dirs.n > 0) {
		if (!(b->log_dirs = malloc((size_t)rb->log_dirs.n * 16)))
			goto fail;
		memcpy(b->log_dirs, rb->log_dirs.p, (size_t)rb->log_dirs.n * 16);
		b->n_log_dirs = (uint32_t)rb->log_dirs.n;
	}
	int64_t at = broker_find(img, b->id, &img->st.work);
	if (at >= 0) {
		broker_free(img->brokers[at]);
		img->brokers[at] = b;
		return 0;
	}
	uint32_t n = img->n_brokers;
	if ((rc = SS_DA_RESERVE(&img->brokers, &img->cap_brokers, (uint64_t)n + 1)))
		goto fail;
	/* appended, as a topic's partitions are (struct topic) */
	if (!img->brokers_unsorted && n && b->id < img->brokers[n - 1]->id) {
		if ((rc = index_all_brokers(img)))
			goto fail;
		img->brokers_unsorted = true;
	}
	if (img->brokers_unsorted && (rc = ss_hidx_insert(&img->bidx, hash_i32(b->id), n, &img->st.work)))
		goto fail;
	img->brokers[n] = b;
	img->n_brokers++;
	img->st.work++;
	(void)w;
	return 0;
fail:
	broker_free(b);
	return rc;
}

/* getBrokerOrThrow: the broker must be registered with this epoch. */
static struct ss_ci_broker *broker_check(struct ss_cimage *img, int32_t id, int64_t epoch, const char *what,
					 const struct ss_ci_where *w)
{
	int64_t at = broker_find(img, id, &img->st.work);
	if (at < 0) {
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: %s for broker %d, which is not registered", (long long)w->offset, what, id);
		return NULL;
	}
	struct ss_ci_broker *b = img->brokers[at];
	if (b->epoch != epoch) {
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: %s for broker %d with epoch %lld, but it is registered with epoch %lld",
			(long long)w->offset, what, id, (long long)epoch, (long long)b->epoch);
		return NULL;
	}
	return b;
}

static int apply_broker_change(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	const typeof(r->u.change_broker) *c = &r->u.change_broker;
	struct ss_ci_broker *b = broker_check(img, c->broker_id, c->broker_epoch, "BrokerRegistrationChangeRecord", w);
	if (!b)
		return 0;
	if (c->fenced < -1 || c->fenced > 1 || c->in_controlled_shutdown < 0 || c->in_controlled_shutdown > 1) {
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: BrokerRegistrationChangeRecord with fenced %d, inControlledShutdown %d",
			(long long)w->offset, c->fenced, c->in_controlled_shutdown);
		return 0;
	}
	if (c->log_dirs.n > 0) {
		void *d = malloc((size_t)c->log_dirs.n * 16);
		if (!d)
			return -ENOMEM;
		memcpy(d, c->log_dirs.p, (size_t)c->log_dirs.n * 16);
		free(b->log_dirs);
		b->log_dirs = d;
		b->n_log_dirs = (uint32_t)c->log_dirs.n;
	}
	if (c->fenced == 1)
		b->fenced = true;
	else if (c->fenced == -1)
		b->fenced = false;
	if (c->in_controlled_shutdown == 1)
		b->in_controlled_shutdown = true;
	return 0;
}

/* UnregisterBrokerRecord (ClusterDelta.replay: removes it whatever its epoch). The last
 * broker takes the removed one's place, so the array is unsorted until ss_cimage_finish. */
static int unregister_broker(struct ss_cimage *img, int32_t id)
{
	int64_t at = broker_find(img, id, &img->st.work);
	if (at < 0)
		return 0;
	char idtext[16];
	snprintf(idtext, sizeof idtext, "%d", id);
	tomb_note(img, SS_CI_LOST_BROKERS, TOMB_BROKER, "", idtext);
	uint32_t last = img->n_brokers - 1;
	if ((uint32_t)at != last && !img->brokers_unsorted) {
		int rc = index_all_brokers(img);
		if (rc)
			return rc;
		img->brokers_unsorted = true;
	}
	if (img->brokers_unsorted) {
		int64_t s = ss_hidx_find(&img->bidx, hash_i32(id), eq_broker, img->brokers, &id, &img->st.work);
		ss_hidx_del(&img->bidx, s);
	}
	broker_free(img->brokers[at]);
	if ((uint32_t)at != last) {
		img->brokers[at] = img->brokers[last];
		ss_hidx_move(&img->bidx, hash_i32(img->brokers[at]->id), last, (uint32_t)at, &img->st.work);
	}
	img->n_brokers--;
	img->st.work++;
	return 0;
}

/* ---- features ---------------------------------------------------------------------------------- */

static int apply_feature(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	const typeof(r->u.feature) *f = &r->u.feature;
	if (!kstr_ok(f->name)) {
		img->st.malformed++;
		warn_at(img, w, "offset %lld: FeatureLevelRecord with a NUL byte in its name", (long long)w->offset);
		return 0;
	}
	uint32_t h = hash_kstr(f->name.p, (size_t)f->name.len);
	int64_t s = ss_hidx_find(&img->fidx, h, eq_feature, img->features, &f->name, &img->st.work);
	if (s >= 0) {
		uint32_t i = img->fidx.pos[s] - 1;
		if (f->level != 0) {
			img->features[i].level = f->level;
			img->features[i].seq = img->seq;
			return 0;
		}
		/* level 0 removes it; the last feature takes its place */
		uint32_t last = img->n_features - 1;
		tomb_note(img, SS_CI_LOST_FEATURES, TOMB_FEATURE, "", img->features[i].name);
		free(img->features[i].name);
		ss_hidx_del(&img->fidx, s);
		if (i != last) {
			img->features[i] = img->features[last];
			ss_hidx_move(&img->fidx, hash_str(img->features[i].name), last, i, &img->st.work);
		}
		img->n_features--;
		return 0;
	}
	if (f->level == 0) {
		if (img->lost & SS_CI_LOST_FEATURES) { /* removed: known absent from now */
			char *n = kdup(f->name);
			if (n)
				tomb_note(img, SS_CI_LOST_FEATURES, TOMB_FEATURE, "", n);
			free(n);
		}
		return 0;
	}
	char *name = kdup(f->name);
	struct ffeature *slot;
	if (!name || SS_DA_PUSH(&img->features, &img->n_features, &img->cap_features, &slot)) {
		free(name);
		return -ENOMEM;
	}
	if (ss_hidx_insert(&img->fidx, h, img->n_features - 1, &img->st.work)) {
		img->n_features--;
		free(name);
		return -ENOMEM;
	}
	slot->name = name;
	slot->level = f->level;
	slot->seq = img->seq;
	return 0;
}

/* ---- dispatch ------------------------------------------------------------------------------------ */

static int apply_decoded(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w)
{
	img->seq++; /* what this record sets, it sets at seq */
	switch (r->api_key) {
	case SS_KR_TOPIC:
		return apply_topic(img, r, w);
	case SS_KR_REMOVE_TOPIC:
		return apply_remove_topic(img, r, w);
	case SS_KR_PARTITION:
		return apply_partition(img, r, w);
	case SS_KR_PARTITION_CHANGE:
		return apply_change(img, r, w);
	case SS_KR_CONFIG:
		return apply_config(img, r, w);
	case SS_KR_REGISTER_BROKER:
		return apply_register(img, r, w);
	case SS_KR_UNREGISTER_BROKER:
		return unregister_broker(img, r->u.broker.broker_id);
	case SS_KR_FENCE_BROKER:
	case SS_KR_UNFENCE_BROKER: {
		bool fence = r->api_key == SS_KR_FENCE_BROKER;
		struct ss_ci_broker *b = broker_check(img, r->u.broker.broker_id, r->u.broker.broker_epoch,
						      fence ? "FenceBrokerRecord" : "UnfenceBrokerRecord", w);
		if (b)
			b->fenced = fence;
		return 0;
	}
	case SS_KR_BROKER_REGISTRATION_CHANGE:
		return apply_broker_change(img, r, w);
	case SS_KR_FEATURE_LEVEL:
		return apply_feature(img, r, w);
	}
	return 0; /* NoOpRecord */
}

/* What a record of this api key changes, as the kinds of cluster_image.h's losses. */
static unsigned kinds_of(int api_key)
{
	switch (api_key) {
	case SS_KR_TOPIC:
	case SS_KR_PARTITION:
	case SS_KR_PARTITION_CHANGE:
		return SS_CI_LOST_TOPICS;
	case SS_KR_REMOVE_TOPIC:
		return SS_CI_LOST_TOPICS | SS_CI_LOST_CONFIGS;
	case SS_KR_CONFIG:
		return SS_CI_LOST_CONFIGS;
	case SS_KR_REGISTER_BROKER:
	case SS_KR_UNREGISTER_BROKER:
	case SS_KR_FENCE_BROKER:
	case SS_KR_UNFENCE_BROKER:
	case SS_KR_BROKER_REGISTRATION_CHANGE:
		return SS_CI_LOST_BROKERS;
	case SS_KR_FEATURE_LEVEL:
		return SS_CI_LOST_FEATURES;
	case SS_KR_BEGIN_TRANSACTION:
	case SS_KR_END_TRANSACTION:
	case SS_KR_ABORT_TRANSACTION:
		return SS_CI_LOST_ALL; /* a transaction's bounds not understood: anything in it */
	}
	return 0; /* NoOpRecord, and the kinds the image does not keep (ACLs, quotas, ...) */
}

void ss_cimage_mark_lost(struct ss_cimage *img, unsigned what)
{
	for (unsigned k = 1; k <= SS_CI_LOST_FEATURES; k <<= 1)
		if (what & k) {
			img->lost |= k;
			img->lost_at[kind_ix(k)] = img->seq;
		}
}

unsigned ss_cimage_lost(const struct ss_cimage *img)
{
	return img->lost;
}

/* A record that could not be applied: a loss of what it could have changed, now, or at
 * the end of the transaction it is in (which applies its other records then). */
static void record_lost(struct ss_cimage *img, unsigned kinds, bool held)
{
	if (!kinds)
		return;
	if (img->in_txn && !held)
		img->txn_lost |= kinds;
	else
		ss_cimage_mark_lost(img, kinds);
}

/* Hold one record of the open transaction (struct pending). 0, 1 when it does not fit in
 * txn_limit (nothing held then), or -ENOMEM. */
static int pend_hold(struct ss_cimage *img, const uint8_t *value, size_t len, const struct ss_ci_where *w)
{
	uint64_t need = img->st.txn_held_bytes + sizeof(struct pending) + len;
	if (need > img->txn_limit || len > UINT32_MAX)
		return 1;
	uint32_t file = UINT32_MAX;
	if (w->file) {
		/* the records of one file come together: compare with the last name only */
		if (img->n_pfiles && !strcmp(img->pfiles[img->n_pfiles - 1], w->file)) {
			file = img->n_pfiles - 1;
		} else {
			char *d = strdup(w->file), **slot;
			if (!d || SS_DA_PUSH(&img->pfiles, &img->n_pfiles, &img->cap_pfiles, &slot)) {
				free(d);
				return -ENOMEM;
			}
			*slot = d;
			file = img->n_pfiles - 1;
			need += strlen(d) + 1;
		}
	}
	if (img->parena_n + len > img->parena_cap) {
		uint64_t nc = img->parena_cap ? img->parena_cap : 4096;
		while (nc < img->parena_n + len)
			nc *= 2;
		uint8_t *na = realloc(img->parena, (size_t)nc);
		if (!na)
			return -ENOMEM;
		img->parena = na;
		img->parena_cap = nc;
	}
	struct pending *p;
	if (SS_DA_PUSH(&img->pend, &img->n_pend, &img->cap_pend, &p))
		return -ENOMEM;
	if (len)
		memcpy(img->parena + img->parena_n, value, len);
	*p = (struct pending){ img->parena_n, (uint32_t)len, file, w->pos, w->offset };
	img->parena_n += len;
	img->st.txn_held_bytes = need;
	if (need > img->st.txn_held_peak)
		img->st.txn_held_peak = need;
	return 0;
}

static int apply_value(struct ss_cimage *img, const uint8_t *value, size_t len, const struct ss_ci_where *w,
		       bool held);

/* A BeginTransactionRecord: a new transaction (one inside another is inconsistent). */
static int txn_begin(struct ss_cimage *img, const struct ss_ci_where *w)
{
	if (img->in_txn) {
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: BeginTransactionRecord inside a transaction", (long long)w->offset);
	} else {
		img->txn_begin = w->offset;
		img->txn_records = 0;
		img->txn_over = false;
		img->txn_cats = img->txn_lost = 0;
	}
	img->in_txn = true;
	return 0;
}

/* The held records of a committed transaction, applied in order. */
static int txn_replay(struct ss_cimage *img)
{
	int rc = 0;
	for (uint32_t i = 0; i < img->n_pend && !rc; i++) {
		const struct pending *p = &img->pend[i];
		struct ss_ci_where pw = { p->file == UINT32_MAX ? NULL : img->pfiles[p->file], p->pos, p->offset };
		rc = apply_value(img, img->parena + p->at, p->len, &pw, true);
	}
	/* a record of it that did not decode could have changed any of them */
	ss_cimage_mark_lost(img, img->txn_lost);
	return rc;
}

/* An EndTransactionRecord (commit) or AbortTransactionRecord. */
static int txn_end(struct ss_cimage *img, bool commit, const struct ss_ci_where *w)
{
	int rc = 0;
	if (!img->in_txn) {
		img->st.inconsistent++;
		warn_at(img, w, "offset %lld: %s without a BeginTransactionRecord", (long long)w->offset,
			commit ? "EndTransactionRecord" : "AbortTransactionRecord");
		return 0;
	}
	img->in_txn = false;
	if (commit && img->txn_over) {
		/* Kafka published it; what it changed was not held, so the image keeps the
		 * state from before it */
		img->st.txn_committed++;
		img->st.txn_dropped_records += img->txn_records;
		img->st.unapplied += img->txn_records;
		warn_at(img, w,
			"offset %lld: the transaction begun at offset %lld is committed, but its %llu record(s) "
			"were too many to hold (more than %llu bytes) and are not applied: the configs, topics "
			"and brokers are reported as they were before it",
			(long long)w->offset, (long long)img->txn_begin, (unsigned long long)img->txn_records,
			(unsigned long long)img->txn_limit);
		ss_cimage_mark_lost(img, img->txn_cats | img->txn_lost);
	} else if (commit) {
		img->st.txn_committed++;
		rc = txn_replay(img);
	} else {
		img->st.txn_aborted++;
		img->st.txn_dropped_records += img->txn_records;
	}
	pend_clear(img);
	img->txn_over = false;
	img->txn_records = 0;
	img->txn_cats = img->txn_lost = 0;
	return rc;
}

/* A record inside a transaction, first seen: held until End (NoOpRecord changes nothing:
 * counted, never held). */
static int txn_hold(struct ss_cimage *img, int16_t api_key, const uint8_t *value, size_t len,
		    const struct ss_ci_where *w)
{
	if (api_key == SS_KR_NO_OP)
		return 0;
	img->txn_cats |= kinds_of(api_key);
	if (img->txn_over)
		return 0;
	int rc = pend_hold(img, value, len, w);
	if (rc == 1) {
		/* degrade rather than abort: drop what is held, hold nothing more of it */
		warn_at(img, w,
			"offset %lld: the transaction begun at offset %lld holds more than %llu bytes of records: "
			"they are not held, and its records are not applied (the state before it is kept)",
			(long long)w->offset, (long long)img->txn_begin, (unsigned long long)img->txn_limit);
		pend_clear(img);
		img->txn_over = true;
		img->st.txn_overflowed++;
		rc = 0;
	}
	return rc;
}

/* A record that did not decode, though its batch's CRC matched: the controller wrote this,
 * and what it changed is unknown (its api key with it: the frame may be what is broken). */
static int malformed_record(struct ss_cimage *img, int rc, const struct ss_ci_where *w, bool held)
{
	img->st.malformed++;
	warn_at(img, w, "offset %lld: malformed metadata record: %s", (long long)w->offset, segscan_strerror(rc));
	if (img->in_txn && !held)
		img->txn_records++;
	if (!held)
		img->st.unapplied++;
	record_lost(img, SS_CI_LOST_ALL, held);
	return 0;
}

/* A record the replay does not read: a newer version of a record the image applies
 * changed something unknown; an api key it does not know is counted only. */
static int unknown_record(struct ss_cimage *img, const struct ss_kraft_rec *r, const struct ss_ci_where *w,
			  bool held)
{
	if (!held)
		img->st.unknown++;
	if (ss_kraft_max_version(r->api_key) < 0)
		return 0;
	if (!held) {
		warn_at(img, w, "offset %lld: %s version %d is newer than this replay reads (%d): not applied",
			(long long)w->offset, ss_kraft_key_name(r->api_key), r->version, ss_kraft_max_version(r->api_key));
		img->st.unapplied++;
	}
	record_lost(img, kinds_of(r->api_key), held);
	return 0;
}

/* Decode, count and apply one value (no transaction handling). held: replayed at End. */
static int apply_value(struct ss_cimage *img, const uint8_t *value, size_t len, const struct ss_ci_where *w,
		       bool held)
{
	struct ss_kraft_rec r;
	int rc = ss_kraft_decode(value, len, &r);
	if (rc < 0)
		return malformed_record(img, rc, w, held);
	if (!held)
		img->st.by_key[r.api_key < SS_KRAFT_KEY_SLOTS ? r.api_key : SS_KRAFT_KEY_SLOTS - 1]++;
	bool control = r.known && (r.api_key == SS_KR_BEGIN_TRANSACTION || r.api_key == SS_KR_END_TRANSACTION ||
				   r.api_key == SS_KR_ABORT_TRANSACTION);
	if (img->in_txn && !held && !control)
		img->txn_records++;
	if (!r.known)
		return unknown_record(img, &r, w, held);
	if (r.api_key == SS_KR_BEGIN_TRANSACTION)
		return txn_begin(img, w);
	if (r.api_key == SS_KR_END_TRANSACTION || r.api_key == SS_KR_ABORT_TRANSACTION)
		return txn_end(img, r.api_key == SS_KR_END_TRANSACTION, w);
	if (img->in_txn && !held)
		return txn_hold(img, r.api_key, value, len, w);
	return apply_decoded(img, &r, w);
}

int ss_cimage_apply(struct ss_cimage *img, const uint8_t *value, size_t len, const struct ss_ci_where *w)
{
	static const struct ss_ci_where none = { NULL, 0, -1 };
	img->st.records++;
	return apply_value(img, value, len, w ? w : &none, false);
}

/* Sort what the replay left unsorted (struct topic): partitions and brokers by id. */
static void sort_arrays(struct ss_cimage *img)
{
	for (uint32_t i = 0; i < img->n_topics; i++) {
		struct topic *t = (struct topic *)img->topics[i];
		if (!t->unsorted)
			continue;
		qsort(t->pub.parts, t->pub.n_parts, sizeof *t->pub.parts, cmp_part);
		img->st.work += sort_work(t->pub.n_parts);
		ss_hidx_free(&t->pidx);
		t->unsorted = false;
	}
	if (img->brokers_unsorted) {
		qsort(img->brokers, img->n_brokers, sizeof *img->brokers, cmp_broker);
		img->st.work += sort_work(img->n_brokers);
		ss_hidx_free(&img->bidx);
		img->brokers_unsorted = false;
	}
}

/* s for a warning: printable ASCII as it is, every other byte as \xHH (a name or value
 * from a record must not reach a terminal raw), cut to fit n. */
static const char *esc(const char *s, char *out, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t o = 0;
	for (; *s && o + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hx[c >> 4];
			out[o++] = hx[c & 15];
		}
	}
	if (*s && o + 3 < n)
		out[o++] = '.', out[o++] = '.', out[o++] = '.';
	out[o] = 0;
	return out;
}

/*
 * Dynamic configs segscan evaluates whose value does not parse (issue 21 item 12): one
 * warning each, naming the resource, the key and the value. The report shows such a value
 * as given, with its source, and evaluates with the level below (eval/config.h).
 */
static void warn_invalid_configs(struct ss_cimage *img)
{
	for (uint32_t i = 0; i < img->n_res; i++) {
		const struct ss_ci_resource *r = img->res[i];
		if (r->type != SS_CI_RES_TOPIC && r->type != SS_CI_RES_BROKER)
			continue;
		bool broker = r->type == SS_CI_RES_BROKER;
		for (uint32_t k = 0; k < r->n; k++) {
			if (ss_config_dynamic_valid(broker, r->kv[k].key, r->kv[k].value))
				continue;
			char n[160], key[96], val[96], what[200];
			if (!broker)
				snprintf(what, sizeof what, "topic %s", esc(r->name, n, sizeof n));
			else if (!r->name[0])
				snprintf(what, sizeof what, "the cluster-wide default (broker \"\")");
			else
				snprintf(what, sizeof what, "broker %s", esc(r->name, n, sizeof n));
			(void)ss_cimage_warn(img, NULL, 0,
					     "%s: %s=%s (%s) does not parse as that config: it is reported as given, "
					     "and the value below it is the one evaluated", what,
					     esc(r->kv[k].key, key, sizeof key), esc(r->kv[k].value, val, sizeof val),
					     !broker ? "DYNAMIC_TOPIC_CONFIG"
					     : r->name[0] ? "DYNAMIC_BROKER_CONFIG" : "DYNAMIC_DEFAULT_BROKER_CONFIG");
		}
	}
}

void ss_cimage_finish(struct ss_cimage *img)
{
	sort_arrays(img);
	warn_invalid_configs(img);
	if (!img->in_txn)
		return;
	warn_at(img, NULL,
		"the metadata log ends inside the transaction begun at offset %lld: its %llu record(s) are not applied",
		(long long)img->txn_begin, (unsigned long long)img->txn_records);
	img->st.txn_dropped_records += img->txn_records;
	pend_clear(img);
	img->in_txn = img->txn_over = false;
	img->txn_records = 0;
	img->txn_cats = img->txn_lost = 0;
}

/* ---- lookups ------------------------------------------------------------------------------------- */

const struct ss_ci_topic *ss_cimage_topic(const struct ss_cimage *img, const char *name)
{
	return name ? find_topic_name(img, name) : NULL;
}

const struct ss_ci_topic *ss_cimage_topic_by_id(const struct ss_cimage *img, const uint8_t id[16])
{
	return find_topic_id(img, id);
}

const struct ss_ci_partition *ss_ci_topic_partition(const struct ss_ci_topic *t, int32_t id)
{
	if (!t)
		return NULL;
	int64_t at = part_find(t, id, NULL);
	return at < 0 ? NULL : &t->parts[at];
}

const struct ss_ci_partition *ss_cimage_partition(const struct ss_cimage *img, const char *topic, int32_t id)
{
	return ss_ci_topic_partition(ss_cimage_topic(img, topic), id);
}

size_t ss_cimage_topic_count(const struct ss_cimage *img)
{
	return img->n_topics;
}

const struct ss_ci_topic *ss_cimage_topic_at(const struct ss_cimage *img, size_t i)
{
	return i < img->n_topics ? img->topics[i] : NULL;
}

size_t ss_cimage_partition_count(const struct ss_cimage *img)
{
	return (size_t)img->n_partitions;
}

const struct ss_ci_resource *ss_cimage_resource(const struct ss_cimage *img, int8_t type, const char *name)
{
	return name ? find_res(img, type, name) : NULL;
}

const char *ss_cimage_config(const struct ss_cimage *img, int8_t type, const char *resource, const char *key)
{
	const struct ss_ci_resource *r = ss_cimage_resource(img, type, resource);
	if (!r || !key)
		return NULL;
	const struct res *rs = (const struct res *)r;
	if (rs->kidx.cap) {
		int64_t s = ss_hidx_find(&rs->kidx, hash_str(key), eq_kv, r->kv, key, NULL);
		return s < 0 ? NULL : r->kv[rs->kidx.pos[s] - 1].value;
	}
	for (uint32_t i = 0; i < r->n; i++)
		if (!strcmp(r->kv[i].key, key))
			return r->kv[i].value;
	return NULL;
}

const struct ss_ci_broker *ss_cimage_broker(const struct ss_cimage *img, int32_t id)
{
	int64_t at = broker_find(img, id, NULL);
	return at < 0 ? NULL : img->brokers[at];
}

size_t ss_cimage_broker_count(const struct ss_cimage *img)
{
	return img->n_brokers;
}

const struct ss_ci_broker *ss_cimage_broker_at(const struct ss_cimage *img, size_t i)
{
	return i < img->n_brokers ? img->brokers[i] : NULL;
}

int ss_ci_broker_feature(const struct ss_ci_broker *b, const char *name, int16_t *min, int16_t *max)
{
	for (uint32_t i = 0; b && i < b->n_features; i++) {
		if (strcmp(b->features[i].name, name))
			continue;
		if (min)
			*min = b->features[i].min_version;
		if (max)
			*max = b->features[i].max_version;
		return 0;
	}
	return -ENOENT;
}

int ss_cimage_feature_level(const struct ss_cimage *img, const char *name, int16_t *level)
{
	if (!name)
		return -ENOENT;
	struct ss_kstr k = { name, (int32_t)strlen(name) };
	int64_t s = ss_hidx_find(&img->fidx, hash_str(name), eq_feature, img->features, &k, NULL);
	if (s < 0)
		return -ENOENT;
	if (level)
		*level = img->features[img->fidx.pos[s] - 1].level;
	return 0;
}

size_t ss_cimage_feature_count(const struct ss_cimage *img)
{
	return img->n_features;
}

const char *ss_cimage_feature_at(const struct ss_cimage *img, size_t i, int16_t *level)
{
	if (i >= img->n_features)
		return NULL;
	if (level)
		*level = img->features[i].level;
	return img->features[i].name;
}

const struct ss_ci_stats *ss_cimage_stats(const struct ss_cimage *img)
{
	return &img->st;
}

size_t ss_cimage_warning_count(const struct ss_cimage *img)
{
	return img->n_warns;
}

const char *ss_cimage_warning_at(const struct ss_cimage *img, size_t i)
{
	return i < img->n_warns ? img->warns[i] : NULL;
}

bool ss_cimage_config_known(const struct ss_cimage *img, int8_t type, const char *resource, const char *key)
{
	if (!(img->lost & SS_CI_LOST_CONFIGS))
		return true;
	if (!resource || !key)
		return false;
	const struct ss_ci_resource *r = ss_cimage_resource(img, type, resource);
	if (r) {
		const struct res *rs = (const struct res *)r;
		for (uint32_t i = 0; !rs->kidx.cap && i < r->n; i++)
			if (!strcmp(r->kv[i].key, key))
				return after_loss(img, SS_CI_LOST_CONFIGS, r->kv[i].seq_);
		if (rs->kidx.cap) {
			int64_t s = ss_hidx_find(&rs->kidx, hash_str(key), eq_kv, r->kv, key, NULL);
			if (s >= 0)
				return after_loss(img, SS_CI_LOST_CONFIGS, r->kv[rs->kidx.pos[s] - 1].seq_);
		}
		if (rs->reset_seq && after_loss(img, SS_CI_LOST_CONFIGS, rs->reset_seq))
			return true; /* emptied since */
	}
	const struct tomb *t = tomb_find(img, type, resource, key);
	if (t && after_loss(img, SS_CI_LOST_CONFIGS, t->seq))
		return true;
	/* a topic created since has no config but those set since (its old ones died with
	 * its old incarnation) */
	if (type == SS_CI_RES_TOPIC) {
		const struct topic *tp = (const struct topic *)find_topic_name(img, resource);
		if (tp && after_loss(img, SS_CI_LOST_CONFIGS, tp->seq))
			return true;
	}
	return false;
}

bool ss_cimage_topic_known(const struct ss_cimage *img, const char *name)
{
	if (!(img->lost & SS_CI_LOST_TOPICS))
		return true;
	if (!name)
		return false;
	const struct topic *t = (const struct topic *)find_topic_name(img, name);
	if (t)
		return after_loss(img, SS_CI_LOST_TOPICS, t->seq);
	const struct tomb *tb = tomb_find(img, TOMB_TOPIC, "", name);
	return tb && after_loss(img, SS_CI_LOST_TOPICS, tb->seq);
}

bool ss_cimage_broker_known(const struct ss_cimage *img, int32_t id)
{
	if (!(img->lost & SS_CI_LOST_BROKERS))
		return true;
	const struct ss_ci_broker *b = ss_cimage_broker(img, id);
	if (b)
		return after_loss(img, SS_CI_LOST_BROKERS, b->seq_);
	char idtext[16];
	snprintf(idtext, sizeof idtext, "%d", id);
	const struct tomb *tb = tomb_find(img, TOMB_BROKER, "", idtext);
	return tb && after_loss(img, SS_CI_LOST_BROKERS, tb->seq);
}

bool ss_cimage_feature_known(const struct ss_cimage *img, const char *name)
{
	if (!(img->lost & SS_CI_LOST_FEATURES))
		return true;
	if (!name)
		return false;
	struct ss_kstr k = { name, (int32_t)strlen(name) };
	int64_t s = ss_hidx_find(&img->fidx, hash_str(name), eq_feature, img->features, &k, NULL);
	if (s >= 0)
		return after_loss(img, SS_CI_LOST_FEATURES, img->features[img->fidx.pos[s] - 1].seq);
	const struct tomb *tb = tomb_find(img, TOMB_FEATURE, "", name);
	return tb && after_loss(img, SS_CI_LOST_FEATURES, tb->seq);
}

bool ss_cimage_in_transaction(const struct ss_cimage *img)
{
	return img->in_txn;
}
