/* The remote-store audit: the listing joined with the remote metadata. See audit.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/darray.h"
#include "common/search.h"
#include "eval/audit.h"
#include "eval/eval.h"
#include "eval/eval_int.h"
#include "eval/remote.h"
#include "fmt/aiven_manifest.h"
#include "fmt/names.h"
#include "fmt/remote_event.h"

#define KEY_MAX 4096
#define NO_AP UINT32_MAX
#define ID_TXT 22

const char *ss_audit_code_name(enum ss_audit_code c)
{
	static const char *const n[SS_AUDIT_CODES] = {
		"MISSING_REMOTE_OBJECT", "ORPHAN_REMOTE_OBJECT", "TORN_REMOTE_UPLOAD", "REMOTE_SIZE_MISMATCH",
	};
	return (unsigned)c < SS_AUDIT_CODES ? n[c] : "?";
}

/* A metadata segment of the partition being joined, sorted as its objects' keys sort. */
struct mseg {
	int64_t  off;
	char     txt[ID_TXT];   /* the id as Uuid.toString writes it */
	uint32_t i;             /* ss_remote_seg(rp, i) */
};

/* The segment whose objects are being read (one contiguous run of keys). */
struct group {
	bool     open;
	int64_t  off;
	uint8_t  id[16];
	char     txt[ID_TXT];
	uint16_t mask;
	uint32_t objects;
	int64_t  bytes, log_size, indexes_size;
	char    *manifest_key;  /* aiven: its manifest's key (owned) */
};

/* A manifest to read (aiven). */
struct manreq {
	uint32_t ap;
	uint8_t  id[16];
	int64_t  off, end;
	int64_t  log_size, indexes_size, meta_size;   /* -1: that object is absent */
	char    *key;
};

struct ss_audit {
	struct ss_audit_cfg cfg;
	uint32_t required, kinds;
	struct ss_audit_part *parts;
	uint32_t n_parts, cap_parts;
	uint32_t n_meta_parts;   /* parts[0..n_meta_parts) are the first replay's, sorted by name */
	/* the partition being joined */
	bool     run_open;
	uint32_t run_ap;
	bool     judge;          /* its objects are judged against its metadata */
	char     run_prefix[KEY_MAX + 1];
	size_t   run_plen;
	struct mseg *ms;
	uint32_t n_ms, cap_ms, cur;
	struct group g;
	/* order */
	char     prev[KEY_MAX + 1];
	size_t   prev_len;
	bool     have_prev;
	int      lts_form;       /* -1 unknown, 0 bare "<dir>/", 1 "kafka-tiered-storage/<dir>/" */
	struct ss_audit_totals tot;
	struct manreq *mr;
	uint32_t n_mr, cap_mr;
	struct ss_audit_deep *dr;
	uint32_t n_dr, cap_dr;
	uint32_t *sorted;        /* every part, by (topic, partition, topic id): after confirm */
	struct ss_audit_topic *topics;
	uint32_t n_topics;
	bool     ended, final;
	struct ss_audit_part zero;   /* "compared, nothing there": a partition neither side has */
	char     err[2 * KEY_MAX + 160];
};

/* ---- helpers ---- */

static int popcount16(uint32_t m)
{
	return __builtin_popcount(m & 0xffff);
}

static bool seg_id_bytes(const struct ss_rseg *s, uint8_t out[16], char txt[ID_TXT])
{
	char t[23];
	if (s->has_id_bytes) {
		memcpy(out, s->id_bytes, 16);
	} else {
		/* --remote-state: the id as given must be a Kafka Uuid in its canonical form */
		if (!s->id || s->id_len != ID_TXT || ss_uuid_parse(s->id, s->id_len, out))
			return false;
	}
	ss_uuid_format(out, t);
	if (!s->has_id_bytes && memcmp(t, s->id, ID_TXT))
		return false;
	memcpy(txt, t, ID_TXT);
	return true;
}

static int cmp_name(const struct ss_audit_part *a, const struct ss_audit_part *b)
{
	int c = strcmp(a->topic, b->topic);
	if (c)
		return c;
	return a->partition < b->partition ? -1 : a->partition > b->partition;
}

/* ss_search_cmp over a->parts (elem) and a probe part (key) */
static int cmp_name_key(const void *elem, const void *key)
{
	return cmp_name(elem, key);
}

/* ss_search_cmp over a->sorted (elem: an index into parts) and a probe part */
struct sorted_key {
	const struct ss_audit_part *parts;
	const struct ss_audit_part *probe;
};
static int cmp_sorted_key(const void *elem, const void *key)
{
	const struct sorted_key *k = key;
	return cmp_name(&k->parts[*(const uint32_t *)elem], k->probe);
}

static int cmp_part_name(const void *x, const void *y)
{
	return cmp_name(x, y);
}

static int cmp_mseg(const void *x, const void *y)
{
	const struct mseg *a = x, *b = y;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return memcmp(a->txt, b->txt, ID_TXT);
}

static int item_push(struct ss_audit_part *ap, const struct ss_audit_item *it)
{
	struct ss_audit_item *slot;
	if (SS_DA_PUSH(&ap->items, &ap->n_items, &ap->cap_items, &slot) < 0)
		return -ENOMEM;
	*slot = *it;
	return 0;
}

static int list_key(char ***v, uint32_t *n, const char *key, size_t len)
{
	if (*n >= SS_AUDIT_LIST_MAX)
		return 0;
	char **nv = realloc(*v, (*n + 1) * sizeof(char *));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = strndup(key, len)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The FINISHED segments the metadata accounts for. */
static void account(struct ss_audit_part *ap)
{
	ap->accounted_bytes = 0;
	ap->finished_segments = 0;
	for (uint32_t i = 0; ap->rp && i < ap->rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(ap->rp, i);
		if (s->state == SS_RSEG_COPY_FINISHED) {
			ap->accounted_bytes += s->size_bytes;
			ap->finished_segments++;
		}
	}
}

/* ---- setup ---- */

int ss_audit_new(const struct ss_audit_cfg *cfg, struct ss_audit **out)
{
	struct ss_audit *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->cfg = *cfg;
	a->required = ss_store_required(cfg->layout);
	a->kinds = ss_store_kinds(cfg->layout);
	a->lts_form = -1;
	a->run_ap = NO_AP;
	a->zero.compared = true;
	uint32_t n = ss_remote_part_count(cfg->remote);
	if (n && !(a->parts = calloc(n, sizeof(*a->parts)))) {
		free(a);
		return -ENOMEM;
	}
	a->cap_parts = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_remote_part *rp = ss_remote_part_at(cfg->remote, i);
		struct ss_audit_part *ap = &a->parts[a->n_parts];
		if (!(ap->topic = strdup(rp->topic))) {
			ss_audit_free(a);
			return -ENOMEM;
		}
		a->n_parts++;
		ap->partition = rp->partition;
		ap->has_topic_id = rp->has_topic_id;
		memcpy(ap->topic_id, rp->topic_id, 16);
		ap->rp = rp;
		ap->in_metadata = true;
		ap->m0_events = rp->n_events;
		account(ap);
	}
	a->n_meta_parts = a->n_parts;
	if (a->n_parts > 1)
		qsort(a->parts, a->n_parts, sizeof(*a->parts), cmp_part_name);
	*out = a;
	return 0;
}

static void free_part(struct ss_audit_part *ap)
{
	free(ap->topic);
	free(ap->prefix);
	free(ap->items);
	for (uint32_t i = 0; i < ap->n_unrec_keys; i++)
		free(ap->unrec_keys[i]);
	free(ap->unrec_keys);
}

void ss_audit_free(struct ss_audit *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->n_parts; i++)
		free_part(&a->parts[i]);
	free(a->parts);
	free(a->ms);
	free(a->g.manifest_key);
	ss_audit_manifest_clear(a);
	free(a->mr);
	ss_audit_deep_clear(a);
	free(a->dr);
	for (uint32_t i = 0; i < a->tot.n_unrec_keys; i++)
		free(a->tot.unrec_keys[i]);
	free(a->tot.unrec_keys);
	free(a->sorted);
	free(a->topics);
	free(a);
}

/* ---- the join ---- */

/* A metadata segment no object was listed for. */
static int unmatched(struct ss_audit *a, struct ss_audit_part *ap, const struct ss_rseg *s, const struct mseg *m)
{
	if (s->state != SS_RSEG_COPY_FINISHED)
		return 0;   /* nothing was promised to be there */
	struct ss_audit_item it = { .code = SS_AUDIT_MISSING, .state = s->state, .absent = (uint16_t)a->required,
				    .objects = (uint32_t)popcount16(a->required), .start_offset = s->start_offset,
				    .end_offset = s->end_offset, .bytes = s->size_bytes };
	uint8_t id[16];
	char txt[ID_TXT];
	if (m) {
		seg_id_bytes(s, id, txt);
		memcpy(it.seg_id, id, 16);
	}
	return item_push(ap, &it);
}

static int want_manifest(struct ss_audit *a, const struct ss_rseg *s)
{
	struct manreq *r;
	if (SS_DA_PUSH(&a->mr, &a->n_mr, &a->cap_mr, &r) < 0)
		return -ENOMEM;
	*r = (struct manreq){ .ap = a->run_ap, .off = a->g.off, .end = s->end_offset, .meta_size = s->size_bytes,
			      .log_size = a->g.mask & (1u << SS_OBJ_LOG) ? a->g.log_size : -1,
			      .indexes_size = a->g.mask & (1u << SS_OBJ_INDEXES) ? a->g.indexes_size : -1,
			      .key = a->g.manifest_key };
	memcpy(r->id, a->g.id, 16);
	a->g.manifest_key = NULL;   /* the request owns it */
	return 0;
}

/* The segment's objects, with the metadata's state of it (s NULL: the id is unknown). */
static int judge_group(struct ss_audit *a, struct ss_audit_part *ap, const struct ss_rseg *s)
{
	struct group *g = &a->g;
	uint32_t req = a->required, have = g->mask & req;
	struct ss_audit_item it = { .state = s ? s->state : SS_AUDIT_UNKNOWN_STATE, .present = g->mask,
				    .objects = g->objects, .start_offset = g->off, .end_offset = s ? s->end_offset : -1,
				    .bytes = g->bytes };
	memcpy(it.seg_id, g->id, 16);
	if (!s) {
		/* no metadata: what is complete nothing will ever read or delete; what is partial
		 * is an upload that broke off */
		it.code = have == req ? SS_AUDIT_ORPHAN : SS_AUDIT_TORN;
		return item_push(ap, &it);
	}
	switch (s->state) {
	case SS_RSEG_COPY_FINISHED: {
		ap->ok_objects += g->objects;
		ap->ok_bytes += g->bytes;
		int e;
		if (have != req) {
			struct ss_audit_item m = it;
			m.code = SS_AUDIT_MISSING;
			m.absent = (uint16_t)(req & ~have);
			m.objects = (uint32_t)popcount16(m.absent);
			m.bytes = s->size_bytes;
			if ((e = item_push(ap, &m)))
				return e;
		}
		if (a->cfg.layout == SS_LAYOUT_LTS && (g->mask & (1u << SS_OBJ_LOG)) && g->log_size >= 0 &&
		    g->log_size != s->size_bytes) {
			struct ss_audit_item m = it;
			m.code = SS_AUDIT_SIZE;
			m.what = SS_ASIZE_LOG_META;
			m.bytes = g->log_size;
			m.expected = s->size_bytes;
			if ((e = item_push(ap, &m)))
				return e;
		}
		if (a->cfg.deep && a->cfg.layout == SS_LAYOUT_LTS && (g->mask & (1u << SS_OBJ_LOG)) && g->log_size >= 0) {
			struct ss_audit_deep *d;
			char seg[SS_STORE_SEG_NAME_LEN], key[KEY_MAX + 64];
			ss_store_seg_name(g->off, g->id, seg);
			snprintf(key, sizeof(key), "%.*s%s.log", (int)a->run_plen, a->run_prefix, seg);
			if (SS_DA_PUSH(&a->dr, &a->n_dr, &a->cap_dr, &d) < 0)
				return -ENOMEM;
			*d = (struct ss_audit_deep){ .key = strdup(key), .size = g->log_size, .start_offset = s->start_offset,
						     .end_offset = s->end_offset };
			if (!d->key) {
				a->n_dr--;
				return -ENOMEM;
			}
		}
		if (a->cfg.layout == SS_LAYOUT_AIVEN && g->manifest_key)
			return want_manifest(a, s);
		return 0;
	}
	case SS_RSEG_COPY_STARTED:
		/* a copy in flight writes its objects one by one: partial is torn only once the
		 * copy has been STARTED longer than a copy may take */
		if (have != req && g->mask && ss_older_than(a->cfg.now_ms, s->event_ms, a->cfg.dangling_after_ms)) {
			it.code = SS_AUDIT_TORN;
			return item_push(ap, &it);
		}
		return 0;   /* pending: in flight, or complete and about to be FINISHED */
	case SS_RSEG_DELETE_FINISHED:
		it.code = SS_AUDIT_ORPHAN;
		return item_push(ap, &it);
	default:
		return 0;   /* DELETE_SEGMENT_STARTED, DANGLING: a delete under way or to be retried */
	}
}

static int close_group(struct ss_audit *a)
{
	struct group *g = &a->g;
	int e = 0;
	if (!g->open)
		return 0;
	g->open = false;
	if (a->judge) {
		struct ss_audit_part *ap = &a->parts[a->run_ap];
		struct mseg key = { .off = g->off };
		memcpy(key.txt, g->txt, ID_TXT);
		while (a->cur < a->n_ms && cmp_mseg(&a->ms[a->cur], &key) < 0) {
			if ((e = unmatched(a, ap, ss_remote_seg(ap->rp, a->ms[a->cur].i), &a->ms[a->cur])))
				goto out;
			a->cur++;
		}
		const struct ss_rseg *s = NULL;
		if (a->cur < a->n_ms && cmp_mseg(&a->ms[a->cur], &key) == 0)
			s = ss_remote_seg(ap->rp, a->ms[a->cur++].i);
		e = judge_group(a, ap, s);
	}
out:
	free(g->manifest_key);
	g->manifest_key = NULL;
	return e;
}

/* Sort the partition's metadata segments as their keys sort. false: an id is not a Kafka
 * Uuid (a --remote-state file may name segments any way), so nothing can be matched. */
static int load_msegs(struct ss_audit *a, const struct ss_remote_part *rp, bool *ok)
{
	*ok = true;
	a->n_ms = a->cur = 0;
	if (!rp || !rp->n_segs)
		return 0;
	if (rp->n_segs > a->cap_ms) {
		struct mseg *n = realloc(a->ms, rp->n_segs * sizeof(*n));
		if (!n)
			return -ENOMEM;
		a->ms = n;
		a->cap_ms = rp->n_segs;
	}
	for (uint32_t i = 0; i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		uint8_t id[16];
		struct mseg *m = &a->ms[a->n_ms];
		if (!seg_id_bytes(s, id, m->txt)) {
			*ok = false;
			a->n_ms = 0;
			return 0;
		}
		if (s->start_offset < 0)
			continue;   /* no key can name it */
		m->off = s->start_offset;
		m->i = i;
		a->n_ms++;
	}
	if (a->n_ms > 1)
		qsort(a->ms, a->n_ms, sizeof(*a->ms), cmp_mseg);
	return 0;
}

/* Whether the partition's objects can be judged, and if not why (ap->why_not). */
static bool judgeable(struct ss_audit *a, struct ss_audit_part *ap)
{
	const char *why = NULL;
	if (ap->rp && (ap->rp->delete_state == SS_RPART_DELETE_MARKED || ap->rp->delete_state == SS_RPART_DELETE_STARTED)) {
		ap->why_not = "the partition's remote data is being deleted (a DELETE_PARTITION event without its "
			      "DELETE_PARTITION_FINISHED)";
		return false;
	}
	if (a->cfg.coverage) {
		if (!a->cfg.coverage(a->cfg.coverage_arg, ap->topic, ap->partition, ap->topic_id, ap->rp != NULL, &why)) {
			ap->why_not = why ? why : "the remote metadata cannot speak for this partition";
			return false;
		}
	} else if (!ap->rp) {
		ap->why_not = "no remote metadata for this partition";
		return false;
	}
	return true;
}

/* The metadata part a store run belongs to, or a new store-only part. */
static int run_part(struct ss_audit *a, const struct ss_store_key *k, uint32_t *out)
{
	struct ss_audit_part probe = { .partition = k->partition };
	char topic[256];
	memcpy(topic, k->topic, k->topic_len);
	topic[k->topic_len] = 0;
	probe.topic = topic;
	uint32_t lo = (uint32_t)ss_lower_bound(a->parts, a->n_meta_parts, sizeof(*a->parts), cmp_name_key, &probe, NULL);
	uint32_t pick = NO_AP;
	for (uint32_t i = lo; i < a->n_meta_parts && !cmp_name(&a->parts[i], &probe); i++) {
		struct ss_audit_part *ap = &a->parts[i];
		if (ap->in_store)
			continue;
		if (ap->has_topic_id && !memcmp(ap->topic_id, k->topic_id, 16)) {
			pick = i;
			break;
		}
		if (!ap->has_topic_id && pick == NO_AP)
			pick = i;   /* a --remote-state file without topic ids: by name */
	}
	if (pick != NO_AP) {
		*out = pick;
		return 0;
	}
	struct ss_audit_part *ap;
	if (SS_DA_PUSH(&a->parts, &a->n_parts, &a->cap_parts, &ap) < 0)
		return -ENOMEM;
	memset(ap, 0, sizeof(*ap));
	if (!(ap->topic = strdup(topic))) {
		a->n_parts--;
		return -ENOMEM;
	}
	ap->partition = k->partition;
	ap->has_topic_id = true;
	memcpy(ap->topic_id, k->topic_id, 16);
	*out = a->n_parts - 1;
	return 0;
}

static int close_run(struct ss_audit *a)
{
	int e;
	if (!a->run_open)
		return 0;
	if ((e = close_group(a)))
		return e;
	struct ss_audit_part *ap = &a->parts[a->run_ap];
	if (a->judge) {
		for (; a->cur < a->n_ms; a->cur++)
			if ((e = unmatched(a, ap, ss_remote_seg(ap->rp, a->ms[a->cur].i), &a->ms[a->cur])))
				return e;
		ap->compared = true;
	}
	a->run_open = false;
	a->run_ap = NO_AP;
	a->n_ms = a->cur = 0;
	return 0;
}

static int open_run(struct ss_audit *a, const char *key, const struct ss_store_key *k)
{
	int e;
	uint32_t i;
	if ((e = run_part(a, k, &i)))
		return e;
	struct ss_audit_part *ap = &a->parts[i];
	ap->in_store = true;
	if (!ap->has_topic_id) {
		/* the metadata named no topic id: the store's is the incarnation */
		ap->has_topic_id = true;
		memcpy(ap->topic_id, k->topic_id, 16);
	}
	free(ap->prefix);
	if (!(ap->prefix = strndup(key, k->part_len)))
		return -ENOMEM;
	a->run_open = true;
	a->run_ap = i;
	memcpy(a->run_prefix, key, k->part_len);
	a->run_plen = k->part_len;
	a->judge = judgeable(a, ap);
	if (a->judge) {
		bool ok;
		if ((e = load_msegs(a, ap->rp, &ok)))
			return e;
		if (!ok) {
			ap->why_not = "the remote metadata names its segments with ids that are not Kafka Uuids";
			a->judge = false;
		}
	}
	return 0;
}

static int unrecognised_store(struct ss_audit *a, const char *key, size_t len, int64_t size)
{
	a->tot.unplaced++;
	a->tot.unrecognised++;
	a->tot.unrecognised_bytes += size > 0 ? size : 0;
	return list_key(&a->tot.unrec_keys, &a->tot.n_unrec_keys, key, len);
}

/* The join needs S3's order: every key after the one before, bytewise. The key becomes
 * the one before the next. */
static int check_order(struct ss_audit *a, const char *key, size_t len)
{
	if (len > KEY_MAX) {
		snprintf(a->err, sizeof(a->err), "a key of %zu bytes (more than %d)", len, KEY_MAX);
		return -EPROTO;
	}
	if (a->have_prev) {
		size_t m = len < a->prev_len ? len : a->prev_len;
		int c = memcmp(key, a->prev, m);
		if (c < 0 || (c == 0 && len <= a->prev_len)) {
			snprintf(a->err, sizeof(a->err), "the listing is not in key order: '%.*s' %s '%.*s'",
				 (int)(len > 512 ? 512 : len), key, c == 0 && len == a->prev_len ? "repeats" : "after",
				 (int)(a->prev_len > 512 ? 512 : a->prev_len), a->prev);
			return -EPROTO;
		}
	}
	memcpy(a->prev, key, len);
	a->prev[len] = 0;
	a->prev_len = len;
	a->have_prev = true;
	return 0;
}

/* An object of a segment: into the open group of (start offset, segment id), which a key
 * of another segment closes first. */
static int group_add(struct ss_audit *a, const char *key, size_t len, const struct ss_store_key *k, int64_t size)
{
	struct group *g = &a->g;
	int e;
	if (g->open && (g->off != k->start_offset || memcmp(g->id, k->seg_id, 16))) {
		if ((e = close_group(a)))
			return e;
	}
	if (!g->open) {
		memset(g, 0, sizeof(*g));
		g->open = true;
		g->off = k->start_offset;
		memcpy(g->id, k->seg_id, 16);
		char t[23];
		ss_uuid_format(k->seg_id, t);
		memcpy(g->txt, t, ID_TXT);
		g->log_size = g->indexes_size = -1;
	}
	g->mask |= (uint16_t)(1u << k->kind);
	g->objects++;
	g->bytes += size > 0 ? size : 0;
	if (k->kind == SS_OBJ_LOG)
		g->log_size = size;
	else if (k->kind == SS_OBJ_INDEXES)
		g->indexes_size = size;
	else if (k->kind == SS_OBJ_MANIFEST && a->judge) {
		free(g->manifest_key);
		if (!(g->manifest_key = strndup(key, len)))
			return -ENOMEM;
	}
	return 0;
}

int ss_audit_object(struct ss_audit *a, const char *key, size_t len, int64_t size)
{
	int e;
	if (a->ended)
		return -EINVAL;
	if ((e = check_order(a, key, len)))
		return e;
	snprintf(a->tot.last_key, sizeof(a->tot.last_key), "%.*s", (int)(len > 1024 ? 1024 : len), key);
	a->tot.objects++;
	a->tot.stored_bytes += size > 0 ? size : 0;

	/* in key order, a key outside the partition's prefix means its objects are all in,
	 * whatever that key is */
	if (a->run_open && (len < a->run_plen || memcmp(key, a->run_prefix, a->run_plen)) && (e = close_run(a)))
		return e;
	struct ss_store_key k;
	enum ss_key_parse kp = ss_store_key_parse(a->cfg.layout, key, len, &k, NULL);
	if (kp != SS_KEY_NONE && a->cfg.layout == SS_LAYOUT_LTS) {
		/* one root per store: a copy of the tree under the other is not this store's */
		if (a->lts_form < 0)
			a->lts_form = k.lts_root;
		else if (a->lts_form != (int)k.lts_root)
			kp = SS_KEY_NONE;
	}
	if (kp == SS_KEY_NONE)
		return unrecognised_store(a, key, len, size);
	if (!a->run_open || a->run_plen != k.part_len || memcmp(a->run_prefix, key, k.part_len)) {
		if ((e = close_run(a)) || (e = open_run(a, key, &k)))
			return e;
	}
	struct ss_audit_part *ap = &a->parts[a->run_ap];
	ap->objects++;
	if (size < 0 && !ap->why_not) {
		ap->why_not = "the store gave no size for some of its objects";
		a->judge = false;
	}
	ap->stored_bytes += size > 0 ? size : 0;
	if (kp == SS_KEY_PARTITION) {
		ap->unrecognised++;
		ap->unrecognised_bytes += size > 0 ? size : 0;
		return list_key(&ap->unrec_keys, &ap->n_unrec_keys, key, len);
	}
	return group_add(a, key, len, &k, size);
}

/* ---- manifests ---- */

uint32_t ss_audit_manifest_count(const struct ss_audit *a)
{
	return a->n_mr;
}

const char *ss_audit_manifest_key(const struct ss_audit *a, uint32_t i)
{
	return i < a->n_mr ? a->mr[i].key : NULL;
}

int ss_audit_manifest(struct ss_audit *a, uint32_t i, const struct ss_aiven_manifest *m, const char *why)
{
	if (i >= a->n_mr)
		return -EINVAL;
	const struct manreq *r = &a->mr[i];
	struct ss_audit_part *ap = &a->parts[r->ap];
	a->tot.manifests++;
	(void)why;
	if (!m) {
		a->tot.manifest_errors++;
		return 0;
	}
	struct ss_audit_item it = { .code = SS_AUDIT_SIZE, .state = SS_RSEG_COPY_FINISHED, .start_offset = r->off,
				    .end_offset = r->end };
	memcpy(it.seg_id, r->id, 16);
	int e;
	if (m->original_size != r->meta_size) {
		it.what = SS_ASIZE_MANIFEST_META;
		it.bytes = m->original_size;
		it.expected = r->meta_size;
		if ((e = item_push(ap, &it)))
			return e;
	}
	if (r->log_size >= 0 && r->log_size != m->stored_log_size) {
		it.what = SS_ASIZE_LOG_MANIFEST;
		it.bytes = r->log_size;
		it.expected = m->stored_log_size;
		if ((e = item_push(ap, &it)))
			return e;
	}
	if (r->indexes_size >= 0 && r->indexes_size != m->indexes_size) {
		it.what = SS_ASIZE_INDEXES;
		it.bytes = r->indexes_size;
		it.expected = m->indexes_size;
		if ((e = item_push(ap, &it)))
			return e;
	}
	return 0;
}

void ss_audit_manifest_clear(struct ss_audit *a)
{
	for (uint32_t i = 0; i < a->n_mr; i++)
		free(a->mr[i].key);
	a->n_mr = 0;
}

uint32_t ss_audit_deep_count(const struct ss_audit *a)
{
	return a->n_dr;
}

const struct ss_audit_deep *ss_audit_deep_at(const struct ss_audit *a, uint32_t i)
{
	return i < a->n_dr ? &a->dr[i] : NULL;
}

void ss_audit_deep_clear(struct ss_audit *a)
{
	for (uint32_t i = 0; i < a->n_dr; i++)
		free(a->dr[i].key);
	a->n_dr = 0;
}

/* ---- the end of the listing ---- */

static bool listing_covers(const struct ss_audit *a, const char *prefix, size_t pl)
{
	/* last > prefix and last does not start with prefix: every key starting with the
	 * prefix sorts before the last one */
	if (!a->have_prev)
		return false;
	if (a->prev_len >= pl && !memcmp(a->prev, prefix, pl))
		return false;
	size_t m = pl < a->prev_len ? pl : a->prev_len;
	return memcmp(a->prev, prefix, m) > 0;
}

/* A metadata partition the listing never reached with an object. */
static int absent_part(struct ss_audit *a, struct ss_audit_part *ap, bool complete)
{
	int e;
	if (!complete) {
		if (!ap->has_topic_id) {
			ap->why_not = "the listing stopped early, and without a topic id the partition's prefix is unknown";
			return 0;
		}
		/* under both roots when the listing did not say which it uses */
		for (int form = 0; form < 2; form++) {
			if (a->cfg.layout != SS_LAYOUT_LTS && form)
				break;
			if (a->cfg.layout == SS_LAYOUT_LTS && a->lts_form >= 0 && form != a->lts_form)
				continue;
			char pre[KEY_MAX + 1];
			int n = ss_store_part_prefix(a->cfg.layout, form == 1, ap->topic, strlen(ap->topic), ap->partition,
						     ap->topic_id, pre, sizeof(pre));
			if (n < 0 || !listing_covers(a, pre, (size_t)n)) {
				ap->why_not = "the listing stopped before it reached this partition's objects";
				return 0;
			}
		}
	}
	if (!judgeable(a, ap))
		return 0;
	bool ok;
	if ((e = load_msegs(a, ap->rp, &ok)))
		return e;
	if (!ok) {
		ap->why_not = "the remote metadata names its segments with ids that are not Kafka Uuids";
		return 0;
	}
	for (uint32_t i = 0; i < a->n_ms; i++)
		if ((e = unmatched(a, ap, ss_remote_seg(ap->rp, a->ms[i].i), &a->ms[i])))
			return e;
	a->n_ms = 0;
	if (ap->has_topic_id && !ap->prefix) {
		char pre[KEY_MAX + 1];
		int n = ss_store_part_prefix(a->cfg.layout, a->lts_form == 1, ap->topic, strlen(ap->topic), ap->partition,
					     ap->topic_id, pre, sizeof(pre));
		if (n > 0 && !(ap->prefix = strdup(pre)))
			return -ENOMEM;
	}
	ap->compared = true;
	return 0;
}

int ss_audit_end_listing(struct ss_audit *a, bool complete)
{
	int e;
	if (a->ended)
		return 0;
	a->ended = true;
	a->tot.complete = complete;
	if (a->run_open) {
		uint32_t ri = a->run_ap;
		if ((e = close_run(a)))
			return e;
		if (!complete) {
			struct ss_audit_part *ap = &a->parts[ri];
			ap->compared = false;
			ap->why_not = "the listing stopped inside this partition's objects";
		}
	}
	for (uint32_t i = 0; i < a->n_meta_parts; i++) {
		struct ss_audit_part *ap = &a->parts[i];
		if (!ap->in_store && (e = absent_part(a, ap, complete)))
			return e;
	}
	return 0;
}

/* ---- the second replay ---- */

struct idstate {
	uint8_t id[16];
	uint8_t state;
};

static int cmp_idstate(const void *x, const void *y)
{
	return memcmp(((const struct idstate *)x)->id, ((const struct idstate *)y)->id, 16);
}

static int confirm_part(struct ss_audit_part *ap, const struct ss_remote *second)
{
	const struct ss_remote_part *p1 = ss_remote_find(second, ap->topic, ap->partition,
							 ap->has_topic_id ? ap->topic_id : NULL);
	if ((p1 ? p1->n_events : 0) == ap->m0_events)
		return 0;   /* nothing happened to it meanwhile: everything stands */
	struct idstate *v = NULL;
	uint32_t n = 0;
	if (p1 && p1->n_segs) {
		if (!(v = malloc(p1->n_segs * sizeof(*v))))
			return -ENOMEM;
		for (uint32_t i = 0; i < p1->n_segs; i++) {
			const struct ss_rseg *s = ss_remote_seg(p1, i);
			char txt[ID_TXT];
			if (!seg_id_bytes(s, v[n].id, txt))
				continue;
			v[n++].state = s->state;
		}
		qsort(v, n, sizeof(*v), cmp_idstate);
	}
	for (uint32_t i = 0; i < ap->n_items; i++) {
		struct ss_audit_item *it = &ap->items[i];
		struct idstate key, *f;
		memcpy(key.id, it->seg_id, 16);
		int64_t at = ss_sorted_find(v, n, sizeof(*v), cmp_idstate, &key, NULL);
		f = at >= 0 ? &v[at] : NULL;
		switch (it->code) {
		case SS_AUDIT_MISSING:
			/* deleted meanwhile (retention: DELETE_SEGMENT_STARTED comes before the RSM
			 * removes anything) */
			it->dropped = !f || f->state != SS_RSEG_COPY_FINISHED;
			break;
		case SS_AUDIT_ORPHAN:
		case SS_AUDIT_TORN:
			if (it->state == SS_RSEG_DELETE_FINISHED)
				break;   /* deleted before the listing began, still there */
			if (it->state == SS_AUDIT_UNKNOWN_STATE)
				it->dropped = f != NULL;   /* an upload that began meanwhile */
			else
				it->dropped = !f || f->state != it->state;   /* a STARTED copy moved on */
			break;
		default:
			break;
		}
	}
	free(v);
	return 0;
}

/* qsort_r's comparator: ctx is the audit (no global: two scans may finish at once) */
static int cmp_sorted(const void *x, const void *y, void *ctx)
{
	const struct ss_audit *au = ctx;
	const struct ss_audit_part *a = &au->parts[*(const uint32_t *)x], *b = &au->parts[*(const uint32_t *)y];
	int c = cmp_name(a, b);
	if (c)
		return c;
	if (a->has_topic_id != b->has_topic_id)
		return a->has_topic_id ? 1 : -1;
	return memcmp(a->topic_id, b->topic_id, 16);
}

static int cmp_item(const void *x, const void *y)
{
	const struct ss_audit_item *a = x, *b = y;
	if (a->start_offset != b->start_offset)
		return a->start_offset < b->start_offset ? -1 : 1;
	int c = memcmp(a->seg_id, b->seg_id, 16);
	if (c)
		return c;
	if (a->code != b->code)
		return a->code < b->code ? -1 : 1;
	return (int)a->what - (int)b->what;
}

bool ss_audit_suspects(const struct ss_audit *a)
{
	for (uint32_t i = 0; i < a->n_parts; i++)
		for (uint32_t k = 0; a->parts[i].compared && k < a->parts[i].n_items; k++)
			if (a->parts[i].items[k].code != SS_AUDIT_SIZE)
				return true;
	return false;
}

/* A compared partition's findings: confirmed against the second replay, the dropped ones
 * removed, sorted, counted into its own numbers and the totals. */
static int finish_part(struct ss_audit_part *ap, const struct ss_remote *second, struct ss_audit_totals *t)
{
	int e;
	if (second && ap->n_items && (e = confirm_part(ap, second)))
		return e;
	uint32_t k = 0;
	for (uint32_t j = 0; j < ap->n_items; j++)
		if (!ap->items[j].dropped)
			ap->items[k++] = ap->items[j];
	ap->n_items = k;
	if (k > 1)
		qsort(ap->items, k, sizeof(*ap->items), cmp_item);
	for (uint32_t j = 0; j < k; j++) {
		const struct ss_audit_item *it = &ap->items[j];
		if (it->code == SS_AUDIT_MISSING) {
			ap->missing_objects += it->objects;
		} else if (it->code == SS_AUDIT_ORPHAN) {
			ap->orphan_objects += it->objects;
			ap->orphan_bytes += it->bytes;
		} else if (it->code == SS_AUDIT_TORN) {
			ap->torn_objects += it->objects;
			ap->torn_bytes += it->bytes;
		}
	}
	ap->pending_objects = ap->objects - ap->unrecognised - ap->ok_objects - ap->orphan_objects - ap->torn_objects;
	ap->pending_bytes = ap->stored_bytes - ap->unrecognised_bytes - ap->ok_bytes - ap->orphan_bytes - ap->torn_bytes;
	t->partitions_compared++;
	t->accounted_bytes += ap->accounted_bytes;
	t->orphan_objects += ap->orphan_objects;
	t->orphan_bytes += ap->orphan_bytes;
	t->missing_objects += ap->missing_objects;
	t->torn_objects += ap->torn_objects;
	t->torn_bytes += ap->torn_bytes;
	t->pending_objects += ap->pending_objects;
	t->pending_bytes += ap->pending_bytes;
	return 0;
}

/* Per topic, in name order: the partitions sorted by name (a->sorted) give the runs. */
static int topic_totals(struct ss_audit *a)
{
	if (a->n_parts && !(a->sorted = malloc(a->n_parts * sizeof(uint32_t))))
		return -ENOMEM;
	for (uint32_t i = 0; i < a->n_parts; i++)
		a->sorted[i] = i;
	if (a->n_parts > 1)
		qsort_r(a->sorted, a->n_parts, sizeof(uint32_t), cmp_sorted, a);
	for (uint32_t i = 0; i < a->n_parts; i++) {
		const struct ss_audit_part *ap = &a->parts[a->sorted[i]];
		if (!ap->compared)
			continue;
		struct ss_audit_topic *tp = a->n_topics ? &a->topics[a->n_topics - 1] : NULL;
		if (!tp || strcmp(tp->topic, ap->topic)) {
			struct ss_audit_topic *n = realloc(a->topics, (a->n_topics + 1) * sizeof(*n));
			if (!n)
				return -ENOMEM;
			a->topics = n;
			tp = &n[a->n_topics++];
			memset(tp, 0, sizeof(*tp));
			tp->topic = ap->topic;
		}
		tp->partitions++;
		tp->objects += ap->objects;
		tp->stored_bytes += ap->stored_bytes;
		tp->accounted_bytes += ap->accounted_bytes;
		tp->orphan_objects += ap->orphan_objects;
		tp->orphan_bytes += ap->orphan_bytes;
		tp->missing_objects += ap->missing_objects;
		tp->torn_objects += ap->torn_objects;
		tp->torn_bytes += ap->torn_bytes;
		tp->unrecognised += ap->unrecognised;
	}
	return 0;
}

int ss_audit_confirm(struct ss_audit *a, const struct ss_remote *second)
{
	int e;
	if (!a->ended && (e = ss_audit_end_listing(a, false)))
		return e;
	if (a->final)
		return 0;
	struct ss_audit_totals *t = &a->tot;
	for (uint32_t i = 0; i < a->n_parts; i++) {
		struct ss_audit_part *ap = &a->parts[i];
		if (!ap->compared) {
			/* nothing about it is known to be wrong or right: no findings */
			ap->n_items = 0;
			t->not_compared_objects += ap->objects;
			t->not_compared_bytes += ap->stored_bytes;
		} else if ((e = finish_part(ap, second, t))) {
			return e;
		}
	}
	t->partitions = a->n_parts;
	for (uint32_t i = 0; i < a->n_parts; i++)
		t->unrecognised += a->parts[i].unrecognised, t->unrecognised_bytes += a->parts[i].unrecognised_bytes;
	if ((e = topic_totals(a)))
		return e;
	t->topics = a->topics;
	t->n_topics = a->n_topics;
	a->final = true;
	return 0;
}

/* ---- results ---- */

const struct ss_audit_totals *ss_audit_totals(const struct ss_audit *a)
{
	return &a->tot;
}

enum ss_store_layout ss_audit_layout(const struct ss_audit *a)
{
	return a->cfg.layout;
}

uint32_t ss_audit_part_count(const struct ss_audit *a)
{
	return a->final ? a->n_parts : 0;
}

const struct ss_audit_part *ss_audit_part_at(const struct ss_audit *a, uint32_t i)
{
	return a->final && i < a->n_parts ? &a->parts[a->sorted[i]] : NULL;
}

const char *ss_audit_error(const struct ss_audit *a)
{
	return a->err;
}

const struct ss_audit_part *ss_audit_find(const struct ss_audit *a, const char *topic, int32_t partition,
					  const uint8_t *topic_id)
{
	if (!a || !a->final || !topic)
		return NULL;
	struct ss_audit_part probe = { .topic = (char *)topic, .partition = partition };
	const struct sorted_key sk = { .parts = a->parts, .probe = &probe };
	uint32_t lo = (uint32_t)ss_lower_bound(a->sorted, a->n_parts, sizeof(*a->sorted), cmp_sorted_key, &sk, NULL);
	const struct ss_audit_part *only = NULL;
	uint32_t n = 0;
	const struct ss_remote_part *pick = NULL;
	if (!topic_id && a->cfg.remote)
		pick = ss_remote_find(a->cfg.remote, topic, partition, NULL);
	for (uint32_t i = lo; i < a->n_parts && !cmp_name(&a->parts[a->sorted[i]], &probe); i++) {
		const struct ss_audit_part *ap = &a->parts[a->sorted[i]];
		if (topic_id && ap->has_topic_id && !memcmp(ap->topic_id, topic_id, 16))
			return ap;
		if (!topic_id && pick && ap->rp == pick)
			return ap;
		only = ap;
		n++;
	}
	return !topic_id && !pick && n == 1 ? only : NULL;
}

int ss_audit_item_key(const struct ss_audit *a, const struct ss_audit_part *ap, const struct ss_audit_item *it,
		      enum ss_obj_kind k, char *buf, size_t len)
{
	char seg[SS_STORE_SEG_NAME_LEN];
	ss_store_seg_name(it->start_offset, it->seg_id, seg);
	char pre[KEY_MAX + 1];
	const char *p = ap->prefix;
	if (!p) {
		if (!ap->has_topic_id ||
		    ss_store_part_prefix(a->cfg.layout, a->lts_form == 1, ap->topic, strlen(ap->topic), ap->partition,
					 ap->topic_id, pre, sizeof(pre)) < 0)
			return -EINVAL;
		p = pre;
	}
	int n = snprintf(buf, len, "%s%s%s", p, seg, ss_obj_suffix(k));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- findings ---- */

struct listing {
	char    *ids[SS_AUDIT_LIST_MAX];
	char    *keys[SS_AUDIT_LIST_MAX];
	uint32_t n_ids, n_keys;
	uint64_t segs, objects;
	int64_t  bytes, first, last;
};

static void listing_free(struct listing *l)
{
	for (uint32_t i = 0; i < l->n_ids; i++)
		free(l->ids[i]);
	for (uint32_t i = 0; i < l->n_keys; i++)
		free(l->keys[i]);
}

static int add_key(const struct ss_audit *a, const struct ss_audit_part *ap, const struct ss_audit_item *it,
		   enum ss_obj_kind k, struct listing *l)
{
	char key[KEY_MAX + 64];
	if (l->n_keys >= SS_AUDIT_LIST_MAX || ss_audit_item_key(a, ap, it, k, key, sizeof(key)))
		return 0;
	if (!(l->keys[l->n_keys] = strdup(key)))
		return -ENOMEM;
	l->n_keys++;
	return 0;
}

static int collect(const struct ss_audit *a, const struct ss_audit_part *ap, enum ss_audit_code code,
		   struct listing *l)
{
	memset(l, 0, sizeof(*l));
	l->first = INT64_MAX;
	l->last = -1;
	const uint8_t *last_id = NULL;
	for (uint32_t i = 0; i < ap->n_items; i++) {
		const struct ss_audit_item *it = &ap->items[i];
		if (it->code != code)
			continue;
		bool new_seg = !last_id || memcmp(last_id, it->seg_id, 16);
		last_id = it->seg_id;
		if (new_seg) {
			l->segs++;
			l->bytes += it->bytes;
			if (l->n_ids < SS_AUDIT_LIST_MAX) {
				char t[23];
				ss_uuid_format(it->seg_id, t);
				if (!(l->ids[l->n_ids] = strdup(t)))
					return -ENOMEM;
				l->n_ids++;
			}
		}
		l->objects += it->objects;
		if (it->start_offset < l->first)
			l->first = it->start_offset;
		if (it->end_offset > l->last)
			l->last = it->end_offset;
		uint32_t mask = code == SS_AUDIT_MISSING ? it->absent : code == SS_AUDIT_SIZE ? 0 : it->present;
		if (code == SS_AUDIT_SIZE)
			mask = 1u << (it->what == SS_ASIZE_INDEXES ? SS_OBJ_INDEXES
				      : it->what == SS_ASIZE_MANIFEST_META ? SS_OBJ_MANIFEST : SS_OBJ_LOG);
		for (int k = 0; k < SS_OBJ_KINDS; k++) {
			int e;
			if ((mask & (1u << k)) && (e = add_key(a, ap, it, (enum ss_obj_kind)k, l)))
				return e;
		}
	}
	return 0;
}

static const char *more(const struct listing *l, uint64_t total, char *buf, size_t n)
{
	if (total > SS_AUDIT_LIST_MAX)
		snprintf(buf, n, " (the first %d listed)", SS_AUDIT_LIST_MAX);
	else
		buf[0] = 0;
	(void)l;
	return buf;
}

static const char *size_what(uint8_t w)
{
	switch (w) {
	case SS_ASIZE_MANIFEST_META: return "the manifest's originalFileSize, against the metadata's segment_size_in_bytes";
	case SS_ASIZE_LOG_MANIFEST: return "the .log object, against what the manifest's chunk index implies";
	case SS_ASIZE_INDEXES: return "the .indexes object, against the manifest's index ranges";
	default: return "the .log object, against the metadata's segment_size_in_bytes";
	}
}

int ss_audit_attach(const struct ss_audit *a, const struct ss_audit_part *ap, const char *why, struct ss_eval *ev)
{
	int e = 0;
	if (!ap || !ap->compared) {
		ev->remote_store = NULL;
		ev->remote_store_why = ap ? ap->why_not : why;
		return 0;
	}
	ev->remote_store = ap;
	ev->remote_store_why = NULL;
	char m[96];
	for (int code = 0; code < SS_AUDIT_CODES; code++) {
		struct listing l;
		if ((e = collect(a, ap, (enum ss_audit_code)code, &l))) {
			listing_free(&l);
			return e;
		}
		if (!l.segs) {
			listing_free(&l);
			continue;
		}
		struct ss_finding_spec spec = { .code = ss_audit_code_name((enum ss_audit_code)code), .has_amount = true,
						.segments = (int64_t)l.segs, .bytes = l.bytes,
						.ids = (const char *const *)l.ids, .n_ids = l.n_ids,
						.keys = (const char *const *)l.keys, .n_keys = l.n_keys };
		const char *k0 = l.n_keys ? l.keys[0] : "?";
		const struct ss_audit_item *it0 = NULL;
		for (uint32_t i = 0; i < ap->n_items && !it0; i++)
			if (ap->items[i].code == code)
				it0 = &ap->items[i];
		switch (code) {
		case SS_AUDIT_MISSING:
			e = ss_eval_add_finding(ev, &spec,
						"%" PRIu64 " object%s of %" PRIu64 " remote segment%s the metadata says are "
						"COPY_SEGMENT_FINISHED %s not in the remote store (%s%s%s): reads of "
						"offsets %" PRId64 "..%" PRId64 " from the remote tier will fail "
						"(%" PRId64 " bytes of records)",
						l.objects, l.objects == 1 ? "" : "s", l.segs, l.segs == 1 ? "" : "s",
						l.objects == 1 ? "is" : "are", k0, l.n_keys > 1 ? ", ..." : "",
						more(&l, l.objects, m, sizeof(m)), l.first, l.last, l.bytes);
			break;
		case SS_AUDIT_ORPHAN:
			e = ss_eval_add_finding(ev, &spec,
						"%" PRIu64 " object%s (%" PRId64 " bytes) of %" PRIu64 " segment%s the "
						"metadata does not know or knows as DELETE_SEGMENT_FINISHED %s in the remote "
						"store (%s%s%s): billed storage that nothing will read or delete",
						l.objects, l.objects == 1 ? "" : "s", l.bytes, l.segs, l.segs == 1 ? "" : "s",
						l.objects == 1 ? "is" : "are", k0, l.n_keys > 1 ? ", ..." : "",
						more(&l, l.objects, m, sizeof(m)));
			break;
		case SS_AUDIT_TORN:
			e = ss_eval_add_finding(ev, &spec,
						"%" PRIu64 " segment%s %s only some of %s objects in the remote store "
						"(%" PRIu64 " object%s, %" PRId64 " bytes: %s%s%s), with the metadata saying "
						"COPY_SEGMENT_STARTED for longer than --dangling-after or nothing: an upload "
						"that broke off",
						l.segs, l.segs == 1 ? "" : "s", l.segs == 1 ? "has" : "have",
						l.segs == 1 ? "its" : "their", l.objects, l.objects == 1 ? "" : "s", l.bytes,
						k0, l.n_keys > 1 ? ", ..." : "", more(&l, l.objects, m, sizeof(m)));
			break;
		default:
			e = ss_eval_add_finding(ev, &spec,
						"%" PRIu64 " segment%s of the remote store %s the wrong size: %s is %" PRId64
						" bytes where %" PRId64 " are expected (%s)%s%s",
						l.segs, l.segs == 1 ? "" : "s", l.segs == 1 ? "has" : "have", k0,
						it0 ? it0->bytes : 0, it0 ? it0->expected : 0,
						size_what(it0 ? it0->what : 0), l.segs > 1 ? "; and others" : "",
						more(&l, l.segs, m, sizeof(m)));
			break;
		}
		listing_free(&l);
		if (e)
			return e;
	}
	return 0;
}

const struct ss_audit_part *ss_audit_for_partition(const struct ss_audit *a, const char *topic, int32_t partition,
						   const uint8_t *topic_id, const char **why)
{
	const struct ss_audit_part *ap = ss_audit_find(a, topic, partition, topic_id);
	if (ap) {
		*why = ap->why_not;
		return ap->compared ? ap : NULL;
	}
	if (!a || !a->final) {
		*why = "the remote store was not audited";
		return NULL;
	}
	if (!topic_id) {
		*why = "its topic id is unknown (no partition.metadata), so its objects cannot be told";
		return NULL;
	}
	if (!a->tot.complete) {
		for (int form = 0; form < 2; form++) {
			char pre[KEY_MAX + 1];
			if ((a->cfg.layout != SS_LAYOUT_LTS && form) ||
			    (a->cfg.layout == SS_LAYOUT_LTS && a->lts_form >= 0 && form != a->lts_form))
				continue;
			int n = ss_store_part_prefix(a->cfg.layout, form == 1, topic, strlen(topic), partition, topic_id, pre,
						     sizeof(pre));
			if (n < 0 || !listing_covers(a, pre, (size_t)n)) {
				*why = "the listing stopped before it reached this partition's objects";
				return NULL;
			}
		}
	}
	if (a->cfg.coverage && !a->cfg.coverage(a->cfg.coverage_arg, topic, partition, topic_id, false, why))
		return NULL;
	if (!a->cfg.coverage) {
		*why = "no remote metadata for this partition";
		return NULL;
	}
	*why = NULL;
	return &a->zero;
}
